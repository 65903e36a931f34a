// One transactional id's state, as Kafka's TransactionMetadata keeps it: the producer id and epoch
// handed out, the state of its current transaction and the partitions in it.
//
// Transitions are two-step, as in Kafka: a prepare* method checks that the transition is legal,
// marks it pending (pendingState) and returns the new state (a TxnTransit) without changing
// anything else; the coordinator persists the transit to `__transaction_state` and only then calls
// completeTransitionTo(), or abortPending() when the write failed. While a transition is pending
// another one is refused (the coordinator answers CONCURRENT_TRANSACTIONS).
//
// States (Kafka's ids, written in the log): Empty 0, Ongoing 1, PrepareCommit 2, PrepareAbort 3,
// CompleteCommit 4, CompleteAbort 5, Dead 6, PrepareEpochFence 7. Legal predecessors:
//   Empty             ← Empty, CompleteCommit, CompleteAbort
//   Ongoing           ← Ongoing, Empty, CompleteCommit, CompleteAbort
//   PrepareCommit     ← Ongoing
//   PrepareAbort      ← Ongoing, PrepareEpochFence, and (transactions v2, an abort with nothing
//                       added) Empty, CompleteCommit, CompleteAbort
//   CompleteCommit    ← PrepareCommit
//   CompleteAbort     ← PrepareAbort
//   Dead              ← Empty, CompleteCommit, CompleteAbort
//   PrepareEpochFence ← Ongoing
// Epochs: an epoch ≥ 32766 (Short.MAX_VALUE - 1) is exhausted, so the coordinator can always fence
// with one more; the next InitProducerId (or, with transactions v2, the next EndTxn) moves to a
// new producer id at epoch 0.
import { partitionKey } from '../../ports/replicas.js'
import type { TxnLogValue } from './txn-records.js'

export type TxnState =
  | 'Empty'
  | 'Ongoing'
  | 'PrepareCommit'
  | 'PrepareAbort'
  | 'CompleteCommit'
  | 'CompleteAbort'
  | 'Dead'
  | 'PrepareEpochFence'

export const TXN_STATE_IDS: Readonly<Record<TxnState, number>> = {
  Empty: 0,
  Ongoing: 1,
  PrepareCommit: 2,
  PrepareAbort: 3,
  CompleteCommit: 4,
  CompleteAbort: 5,
  Dead: 6,
  PrepareEpochFence: 7,
}

const STATE_BY_ID = new Map(Object.entries(TXN_STATE_IDS).map(([name, id]) => [id, name as TxnState]))

export function txnStateOf(id: number): TxnState | undefined {
  return STATE_BY_ID.get(id)
}

export function isTxnState(name: string): name is TxnState {
  return Object.hasOwn(TXN_STATE_IDS, name)
}

const VALID_PREVIOUS: Readonly<Record<TxnState, readonly TxnState[]>> = {
  Empty: ['Empty', 'CompleteCommit', 'CompleteAbort'],
  Ongoing: ['Ongoing', 'Empty', 'CompleteCommit', 'CompleteAbort'],
  PrepareCommit: ['Ongoing'],
  PrepareAbort: ['Ongoing', 'PrepareEpochFence', 'Empty', 'CompleteCommit', 'CompleteAbort'],
  CompleteCommit: ['PrepareCommit'],
  CompleteAbort: ['PrepareAbort'],
  Dead: ['Empty', 'CompleteCommit', 'CompleteAbort'],
  PrepareEpochFence: ['Ongoing'],
}

export const NO_PRODUCER_ID = -1
export const NO_PRODUCER_EPOCH = -1
const SHORT_MAX = 32767

export function isEpochExhausted(epoch: number): boolean {
  return epoch >= SHORT_MAX - 1
}

/** Transactions v2 (KIP-890 part 2): EndTxn bumps the epoch. */
export function supportsEpochBump(transactionVersion: number): boolean {
  return transactionVersion >= 2
}

/** A transition's target: every field of the metadata as it will be once the transition is persisted. */
export interface TxnTransit {
  producerId: number
  prevProducerId: number
  nextProducerId: number
  producerEpoch: number
  lastProducerEpoch: number
  txnTimeoutMs: number
  state: TxnState
  /** partitionKey(topic, partition) of each partition in the transaction. */
  partitions: Set<string>
  txnStartTimestamp: number
  txnLastUpdateTimestamp: number
  clientTransactionVersion: number
}

/** An illegal transition: a bug, never a client's error (Kafka throws IllegalStateException). */
export class IllegalTxnTransition extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'IllegalTxnTransition'
  }
}

export class TxnMetadata implements TxnTransit {
  producerId: number
  prevProducerId: number
  nextProducerId: number
  producerEpoch: number
  lastProducerEpoch: number
  txnTimeoutMs: number
  state: TxnState
  partitions: Set<string>
  txnStartTimestamp: number
  txnLastUpdateTimestamp: number
  clientTransactionVersion: number
  /** The state a transition in progress leads to (being persisted, or markers being written). */
  pendingState: TxnState | null = null
  /** A fence whose write failed: its epoch bump is not repeated (it was never answered). */
  hasFailedEpochFence = false

  constructor(
    readonly transactionalId: string,
    init: TxnTransit,
  ) {
    this.producerId = init.producerId
    this.prevProducerId = init.prevProducerId
    this.nextProducerId = init.nextProducerId
    this.producerEpoch = init.producerEpoch
    this.lastProducerEpoch = init.lastProducerEpoch
    this.txnTimeoutMs = init.txnTimeoutMs
    this.state = init.state
    this.partitions = new Set(init.partitions)
    this.txnStartTimestamp = init.txnStartTimestamp
    this.txnLastUpdateTimestamp = init.txnLastUpdateTimestamp
    this.clientTransactionVersion = init.clientTransactionVersion
  }

  get pendingTransitionInProgress(): boolean {
    return this.pendingState !== null
  }

  get isProducerEpochExhausted(): boolean {
    return isEpochExhausted(this.producerEpoch)
  }

  private current(): TxnTransit {
    return {
      producerId: this.producerId,
      prevProducerId: this.prevProducerId,
      nextProducerId: this.nextProducerId,
      producerEpoch: this.producerEpoch,
      lastProducerEpoch: this.lastProducerEpoch,
      txnTimeoutMs: this.txnTimeoutMs,
      state: this.state,
      partitions: new Set(this.partitions),
      txnStartTimestamp: this.txnStartTimestamp,
      txnLastUpdateTimestamp: this.txnLastUpdateTimestamp,
      clientTransactionVersion: this.clientTransactionVersion,
    }
  }

  private prepareTransitionTo(change: Partial<TxnTransit> & { state: TxnState }): TxnTransit {
    if (this.pendingState !== null) {
      throw new IllegalTxnTransition(
        `${this.transactionalId}: a transition to ${this.pendingState} is pending; cannot start one to ${change.state}`,
      )
    }
    if (!VALID_PREVIOUS[change.state].includes(this.state)) {
      throw new IllegalTxnTransition(`${this.transactionalId}: no transition from ${this.state} to ${change.state}`)
    }
    this.pendingState = change.state
    return { ...this.current(), ...change }
  }

  /** Ongoing → PrepareEpochFence (InitProducerId or a timeout fences the running producer). Never persisted itself. */
  prepareFenceProducerEpoch(): TxnTransit {
    if (this.producerEpoch === SHORT_MAX) throw new IllegalTxnTransition('cannot fence a producer at epoch 32767')
    const producerEpoch = this.hasFailedEpochFence ? this.producerEpoch : this.producerEpoch + 1
    return this.prepareTransitionTo({ state: 'PrepareEpochFence', producerEpoch })
  }

  /**
   * InitProducerId on a completed or empty transaction: the next epoch (KIP-360 rules for a
   * producer that names its current epoch). 'PRODUCER_FENCED' when that epoch is neither the
   * current nor the last one.
   */
  prepareIncrementProducerEpoch(newTxnTimeoutMs: number, expectedEpoch: number | null, now: number): TxnTransit | 'PRODUCER_FENCED' {
    if (this.isProducerEpochExhausted) throw new IllegalTxnTransition(`no epoch left for producer id ${this.producerId}`)
    const bumped = this.producerEpoch + 1
    let producerEpoch: number
    let lastProducerEpoch: number
    if (expectedEpoch === null) {
      producerEpoch = bumped
      lastProducerEpoch = NO_PRODUCER_EPOCH
    } else if (this.producerEpoch === NO_PRODUCER_EPOCH || expectedEpoch === this.producerEpoch) {
      producerEpoch = bumped
      lastProducerEpoch = this.producerEpoch
    } else if (expectedEpoch === this.lastProducerEpoch) {
      // A retry of a bump that succeeded: the same epoch again.
      producerEpoch = this.producerEpoch
      lastProducerEpoch = this.lastProducerEpoch
    } else {
      return 'PRODUCER_FENCED'
    }
    return this.prepareTransitionTo({
      state: 'Empty',
      producerEpoch,
      lastProducerEpoch,
      txnTimeoutMs: newTxnTimeoutMs,
      partitions: new Set(),
      txnStartTimestamp: -1,
      txnLastUpdateTimestamp: now,
    })
  }

  /** InitProducerId with the epoch exhausted: a new producer id at epoch 0. */
  prepareProducerIdRotation(newProducerId: number, newTxnTimeoutMs: number, now: number, recordLastEpoch: boolean): TxnTransit {
    return this.prepareTransitionTo({
      state: 'Empty',
      producerId: newProducerId,
      prevProducerId: this.producerId,
      producerEpoch: 0,
      lastProducerEpoch: recordLastEpoch ? this.producerEpoch : NO_PRODUCER_EPOCH,
      txnTimeoutMs: newTxnTimeoutMs,
      partitions: new Set(),
      txnStartTimestamp: -1,
      txnLastUpdateTimestamp: now,
    })
  }

  prepareAddPartitions(added: Iterable<string>, now: number, clientTransactionVersion: number): TxnTransit {
    const starts = this.state === 'Empty' || this.state === 'CompleteAbort' || this.state === 'CompleteCommit'
    const partitions = new Set(this.partitions)
    for (const k of added) partitions.add(k)
    return this.prepareTransitionTo({
      state: 'Ongoing',
      partitions,
      txnStartTimestamp: starts ? now : this.txnStartTimestamp,
      txnLastUpdateTimestamp: now,
      clientTransactionVersion,
    })
  }

  /** EndTxn: PrepareCommit / PrepareAbort; transactions v2 bump the epoch here. */
  prepareAbortOrCommit(
    state: 'PrepareCommit' | 'PrepareAbort',
    clientTransactionVersion: number,
    nextProducerId: number,
    now: number,
    noPartitionAdded: boolean,
  ): TxnTransit {
    const bump = supportsEpochBump(clientTransactionVersion)
    return this.prepareTransitionTo({
      state,
      producerEpoch: bump ? this.producerEpoch + 1 : this.producerEpoch,
      lastProducerEpoch: bump ? this.producerEpoch : this.lastProducerEpoch,
      // Transactions v2 may abort a transaction nothing was added to: it starts now.
      txnStartTimestamp: noPartitionAdded ? now : this.txnStartTimestamp,
      nextProducerId,
      txnLastUpdateTimestamp: now,
      clientTransactionVersion,
    })
  }

  /** Every marker is written: CompleteCommit / CompleteAbort (and a pending producer id rotation takes effect). */
  prepareComplete(now: number): TxnTransit {
    this.hasFailedEpochFence = false
    const rotate = supportsEpochBump(this.clientTransactionVersion) && this.nextProducerId !== NO_PRODUCER_ID
    return this.prepareTransitionTo({
      state: this.state === 'PrepareCommit' ? 'CompleteCommit' : 'CompleteAbort',
      producerId: rotate ? this.nextProducerId : this.producerId,
      prevProducerId: rotate ? this.producerId : this.prevProducerId,
      producerEpoch: rotate ? 0 : this.producerEpoch,
      nextProducerId: NO_PRODUCER_ID,
      partitions: new Set(),
      txnLastUpdateTimestamp: now,
    })
  }

  /** transactional.id.expiration.ms passed: the id is forgotten (a tombstone). */
  prepareDead(): TxnTransit {
    return this.prepareTransitionTo({ state: 'Dead', partitions: new Set() })
  }

  /** The pending transition was persisted: it takes effect. */
  completeTransitionTo(t: TxnTransit): void {
    if (this.pendingState !== t.state) {
      throw new IllegalTxnTransition(`${this.transactionalId}: completing ${t.state} while ${this.pendingState ?? 'nothing'} is pending`)
    }
    this.producerId = t.producerId
    this.prevProducerId = t.prevProducerId
    this.nextProducerId = t.nextProducerId
    this.producerEpoch = t.producerEpoch
    this.lastProducerEpoch = t.lastProducerEpoch
    this.txnTimeoutMs = t.txnTimeoutMs
    this.state = t.state
    this.partitions = new Set(t.partitions)
    this.txnStartTimestamp = t.txnStartTimestamp
    this.txnLastUpdateTimestamp = t.txnLastUpdateTimestamp
    this.clientTransactionVersion = t.clientTransactionVersion
    this.pendingState = null
  }

  abortPending(): void {
    this.pendingState = null
  }

  hasPartition(topic: string, partition: number): boolean {
    return this.partitions.has(partitionKey(topic, partition))
  }
}

/** The partitions of a transit, grouped by topic (as the log and DescribeTransactions list them). */
export function partitionsByTopic(partitions: Iterable<string>): Array<{ topic: string; partitions: number[] }> {
  const byTopic = new Map<string, number[]>()
  for (const k of partitions) {
    const { topic, partition } = splitPartitionKey(k)
    let list = byTopic.get(topic)
    if (!list) byTopic.set(topic, (list = []))
    list.push(partition)
  }
  return [...byTopic].map(([topic, list]) => ({ topic, partitions: list.sort((a, b) => a - b) }))
}

export function splitPartitionKey(key: string): { topic: string; partition: number } {
  const i = key.lastIndexOf(':')
  return { topic: key.slice(0, i), partition: Number(key.slice(i + 1)) }
}

/** The log record of a state (txn-records.ts). */
export function toLogValue(t: TxnTransit): TxnLogValue {
  return {
    producerId: t.producerId,
    previousProducerId: t.prevProducerId,
    nextProducerId: t.nextProducerId,
    producerEpoch: t.producerEpoch,
    nextProducerEpoch: -1,
    transactionTimeoutMs: t.txnTimeoutMs,
    transactionStatus: TXN_STATE_IDS[t.state],
    transactionPartitions: partitionsByTopic(t.partitions).map((x) => ({ topic: x.topic, partitionIds: x.partitions })),
    transactionLastUpdateTimestampMs: t.txnLastUpdateTimestamp,
    transactionStartTimestampMs: t.txnStartTimestamp,
    clientTransactionVersion: t.clientTransactionVersion,
  }
}

/** The state a log record holds; undefined for a state id this version does not know. */
export function fromLogValue(transactionalId: string, v: TxnLogValue): TxnMetadata | undefined {
  const state = txnStateOf(v.transactionStatus)
  if (state === undefined) return undefined
  const partitions = new Set<string>()
  for (const t of v.transactionPartitions) for (const p of t.partitionIds) partitions.add(partitionKey(t.topic, p))
  return new TxnMetadata(transactionalId, {
    producerId: v.producerId,
    prevProducerId: v.previousProducerId,
    nextProducerId: v.nextProducerId,
    producerEpoch: v.producerEpoch,
    lastProducerEpoch: NO_PRODUCER_EPOCH,
    txnTimeoutMs: v.transactionTimeoutMs,
    state,
    partitions,
    txnStartTimestamp: v.transactionStartTimestampMs,
    txnLastUpdateTimestamp: v.transactionLastUpdateTimestampMs,
    clientTransactionVersion: v.clientTransactionVersion,
  })
}
