// The history of a chaos run (test/chaos/workload.ts writes it, checker.ts reads it): every
// operation a client did, with its outcome, in the order the workload saw them complete. Plain data
// (JSON-serializable), so a history can be saved, read back and checked again.
//
// Rules: a value is written once by one producer and is unique over the run ("<process>-<n>"); a
// send is logged when its outcome is known — ok (stored, with its offset), fail (certainly not
// stored) or info (unknown: a timeout or a lost connection may have stored it). A poll is one
// answer to a consumer, the records per partition in the order the client returned them. An
// `assign` resets what a consumer's next poll of a partition may start from (a new assignment, a
// rebalance, a seek). A transaction's outcome is its own op; its sends name it.

export type SendOutcome = 'ok' | 'fail' | 'info'

export interface SendOp {
  type: 'send'
  /** Who sent it: one producer (a client instance) of the run. */
  process: string
  /** ms since the start of the run, when the outcome was known. */
  time: number
  partition: number
  value: string
  outcome: SendOutcome
  /** With ok: the offset the broker reported. */
  offset?: number
  error?: string
  /** The transaction the value was written in (transactional producers). */
  txn?: string
}

export interface PollRecord {
  offset: number
  value: string
}

export interface PollOp {
  type: 'poll'
  process: string
  time: number
  partition: number
  records: PollRecord[]
  /** read_committed consumers may not see aborted or open transactions. */
  isolation: 'read_uncommitted' | 'read_committed'
}

export interface AssignOp {
  type: 'assign'
  process: string
  time: number
  partitions: number[]
}

export interface TxnOp {
  type: 'txn'
  process: string
  /** When the commit (or abort) was asked for. */
  time: number
  txn: string
  /** committed and aborted are certain; info: the end call failed and the outcome is unknown. */
  outcome: 'committed' | 'aborted' | 'info'
}

/** What a replica stores, read from its data dir after the run (below the high watermark). */
export interface ReplicaOp {
  type: 'replica'
  process: string
  time: number
  partition: number
  records: PollRecord[]
}

export type Op = SendOp | PollOp | AssignOp | TxnOp | ReplicaOp

export type History = Op[]
