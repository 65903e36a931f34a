// The rules of the coordinator's requests that change a transaction's state — which transition
// InitProducerId and EndTxn (transaction protocol v1 and v2) make, or which error they answer — as
// Kafka's TransactionCoordinator decides them. Pure functions of the metadata and the request: the
// coordinator (txn-coordinator.ts) persists the transit they prepare, then completes it. A fence
// (PrepareEpochFence, never persisted) is turned into the abort here, with the fenced epoch.
import type { ErrorName } from '../../protocol/errors.js'
import { IllegalTxnTransition, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, type TxnMetadata, type TxnTransit } from './txn-metadata.js'

const SHORT_MAX = 32767

export interface EndResult {
  error: ErrorName | null
  producerId: number
  producerEpoch: number
}

/** A transition to persist, or the answer at once. */
export type EndDecision = { transit: TxnTransit; isEpochFence: boolean } | EndResult

export const endError = (name: ErrorName | null): EndResult => ({
  error: name,
  producerId: NO_PRODUCER_ID,
  producerEpoch: NO_PRODUCER_EPOCH,
})

/**
 * InitProducerId on an existing id: the transition, or the error; 'needProducerId' when the epoch
 * is exhausted and a new producer id is needed first (call again with it as rotationId).
 */
export function decideInit(
  txn: TxnMetadata,
  timeoutMs: number,
  expected: { producerId: number; producerEpoch: number } | null,
  rotationId: number | null,
  now: number,
): TxnTransit | ErrorName | 'needProducerId' {
  if (txn.pendingTransitionInProgress) return 'CONCURRENT_TRANSACTIONS'
  // KIP-360: a producer naming its id and epoch is fenced unless the metadata is new, the id is
  // the current one, or it is the previous one at an exhausted epoch (a retried rotation).
  if (
    expected &&
    !(
      txn.producerEpoch === NO_PRODUCER_EPOCH ||
      expected.producerId === txn.producerId ||
      (expected.producerId === txn.prevProducerId && expected.producerEpoch >= SHORT_MAX - 1)
    )
  ) {
    return 'PRODUCER_FENCED'
  }
  switch (txn.state) {
    case 'PrepareAbort':
    case 'PrepareCommit':
      return 'CONCURRENT_TRANSACTIONS'
    case 'CompleteAbort':
    case 'CompleteCommit':
    case 'Empty':
      if (txn.isProducerEpochExhausted && (!expected || expected.producerEpoch === txn.producerEpoch)) {
        if (rotationId === null) return 'needProducerId'
        return txn.prepareProducerIdRotation(rotationId, timeoutMs, now, expected !== null)
      }
      return txn.prepareIncrementProducerEpoch(timeoutMs, expected?.producerEpoch ?? null, now)
    case 'Ongoing':
      return txn.prepareFenceProducerEpoch()
    default:
      throw new IllegalTxnTransition(`${txn.transactionalId} is ${txn.state}, which InitProducerId never meets`)
  }
}

/** Transactions v1: the epoch stays; a repeated EndTxn of the finished outcome is answered NONE. */
export function decideEndV1(
  txn: TxnMetadata,
  producerId: number,
  producerEpoch: number,
  commit: boolean,
  fromClient: boolean,
  now: number,
): EndDecision {
  if (txn.producerId !== producerId) return endError('INVALID_PRODUCER_ID_MAPPING')
  if ((fromClient && producerEpoch !== txn.producerEpoch) || producerEpoch < txn.producerEpoch) return endError('PRODUCER_FENCED')
  if (txn.pendingTransitionInProgress && txn.pendingState !== 'PrepareEpochFence') return endError('CONCURRENT_TRANSACTIONS')
  switch (txn.state) {
    case 'Ongoing': {
      const next = commit ? 'PrepareCommit' : 'PrepareAbort'
      let isEpochFence = false
      if (next === 'PrepareAbort' && txn.pendingState === 'PrepareEpochFence') {
        isEpochFence = true
        txn.abortPending()
        txn.producerEpoch = producerEpoch
        txn.lastProducerEpoch = NO_PRODUCER_EPOCH
      }
      return { transit: txn.prepareAbortOrCommit(next, 0, NO_PRODUCER_ID, now, false), isEpochFence }
    }
    case 'CompleteCommit':
      return commit ? endError(null) : endError('INVALID_TXN_STATE')
    case 'CompleteAbort':
      return commit ? endError('INVALID_TXN_STATE') : endError(null)
    case 'PrepareCommit':
      return commit ? endError('CONCURRENT_TRANSACTIONS') : endError('INVALID_TXN_STATE')
    case 'PrepareAbort':
      return commit ? endError('INVALID_TXN_STATE') : endError('CONCURRENT_TRANSACTIONS')
    case 'Empty':
      return endError('INVALID_TXN_STATE')
    default:
      throw new IllegalTxnTransition(`${txn.transactionalId} is ${txn.state}, which EndTxn never meets`)
  }
}

/**
 * Transactions v2 (Kafka's table): Empty / CompleteAbort / CompleteCommit at the current epoch
 * accept an abort (epoch bump, nothing to mark); a retry — the epoch one below the current, or
 * the last epoch of a rotated id — of the finished outcome is answered NONE; every other epoch
 * is PRODUCER_FENCED.
 */
export function decideEndV2(
  txn: TxnMetadata,
  producerId: number,
  producerEpoch: number,
  commit: boolean,
  fromClient: boolean,
  tv: number,
  nextProducerId: number | null,
  now: number,
): EndDecision | 'needProducerId' {
  const isEpochFence = txn.pendingState === 'PrepareEpochFence'
  const retryOnOverflow = !isEpochFence && txn.prevProducerId === producerId && producerEpoch === SHORT_MAX - 1 && txn.producerEpoch === 0
  const retryOnEpochBump = !isEpochFence && txn.producerEpoch === producerEpoch + 1
  let isValidEpoch: boolean
  if (isEpochFence) {
    isValidEpoch = (!fromClient || producerEpoch === txn.producerEpoch) && producerEpoch >= txn.producerEpoch
  } else {
    switch (txn.state) {
      case 'PrepareCommit':
      case 'PrepareAbort':
        isValidEpoch = retryOnEpochBump
        break
      case 'CompleteCommit':
      case 'CompleteAbort':
        isValidEpoch = retryOnEpochBump || retryOnOverflow || producerEpoch === txn.producerEpoch
        break
      default:
        isValidEpoch = producerEpoch === txn.producerEpoch
    }
  }
  const isRetry = retryOnEpochBump || retryOnOverflow
  const current = (): EndResult => ({ error: null, producerId: txn.producerId, producerEpoch: txn.producerEpoch })
  const complete = (next: 'PrepareCommit' | 'PrepareAbort', noPartitionAdded: boolean) => {
    let rotateTo = NO_PRODUCER_ID
    if (!isEpochFence && txn.isProducerEpochExhausted) {
      if (nextProducerId === null) return 'needProducerId' as const
      rotateTo = nextProducerId
    }
    if (next === 'PrepareAbort' && isEpochFence) {
      txn.abortPending()
      txn.producerEpoch = producerEpoch
      txn.lastProducerEpoch = NO_PRODUCER_EPOCH
    }
    return { transit: txn.prepareAbortOrCommit(next, tv, rotateTo, now, noPartitionAdded), isEpochFence }
  }
  if (txn.producerId !== producerId && !retryOnOverflow) return endError('INVALID_PRODUCER_ID_MAPPING')
  if (!isValidEpoch) return endError('PRODUCER_FENCED')
  if (txn.pendingTransitionInProgress && txn.pendingState !== 'PrepareEpochFence') return endError('CONCURRENT_TRANSACTIONS')
  switch (txn.state) {
    case 'Ongoing':
      return complete(commit ? 'PrepareCommit' : 'PrepareAbort', false)
    case 'CompleteCommit':
      if (commit) return isRetry ? current() : endError('INVALID_TXN_STATE')
      return isRetry ? endError('INVALID_TXN_STATE') : complete('PrepareAbort', true)
    case 'CompleteAbort':
      if (!commit) return isRetry ? current() : complete('PrepareAbort', true)
      return endError('INVALID_TXN_STATE')
    case 'PrepareCommit':
      return commit ? endError('CONCURRENT_TRANSACTIONS') : endError('INVALID_TXN_STATE')
    case 'PrepareAbort':
      return commit ? endError('INVALID_TXN_STATE') : endError('CONCURRENT_TRANSACTIONS')
    case 'Empty':
      return commit ? endError('INVALID_TXN_STATE') : complete('PrepareAbort', true)
    default:
      throw new IllegalTxnTransition(`${txn.transactionalId} is ${txn.state}, which EndTxn never meets`)
  }
}
