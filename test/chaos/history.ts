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
//
// Share groups (KIP-932): `share-group` names the group, its topic and its delivery count limit
// (logged once, before any member runs); each record a member was handed is a `share-delivery`
// (with the delivery count the leader sent), and what became of its acknowledgement is a
// `share-ack`, logged when the member learnt it: ok (the leader took it), fail (certainly not
// applied: the lock had expired, the session or the leader was gone) or unknown (no answer).

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

/** The share group of the run's share members: logged once, before they start. */
export interface ShareGroupOp {
  type: 'share-group'
  process: string
  time: number
  group: string
  topic: string
  /** share.delivery.count.limit of the group. */
  deliveryCountLimit: number
}

/** One record handed to one member of the share group (a ShareFetch's acquired records). */
export interface ShareDeliveryOp {
  type: 'share-delivery'
  /** The workload's member (one name over its ShareConsumer instances). */
  process: string
  /** The group member id of the ShareConsumer instance that got it. */
  member: string
  time: number
  partition: number
  offset: number
  value: string
  /** As the leader sent it: 1 the first time. */
  deliveryCount: number
}

export type ShareAckKind = 'accept' | 'release' | 'reject'
export type ShareAckOutcome = 'ok' | 'fail' | 'unknown'

/** What became of the acknowledgement of one delivery. */
export interface ShareAckOp {
  type: 'share-ack'
  process: string
  member: string
  time: number
  partition: number
  offset: number
  /** The delivery acknowledged (its count). */
  deliveryCount: number
  kind: ShareAckKind
  outcome: ShareAckOutcome
  error?: string
}

export type Op = SendOp | PollOp | AssignOp | TxnOp | ReplicaOp | ShareGroupOp | ShareDeliveryOp | ShareAckOp

export type History = Op[]
