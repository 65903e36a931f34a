// The views DescribeTransactions and ListTransactions give of the transactions a coordinator owns.
// DescribeTransactions: one id's state, timeout, start time, producer and partitions, or only an
// error code (TRANSACTIONAL_ID_NOT_FOUND for an unknown or expired id). ListTransactions' filters, as Kafka's
// TransactionStateManager.listTransactionStates applies them: states (names Kafka does not know are
// reported back as unknown filters), producer ids, v1's duration (only transactions started longer
// ago than it) and v2's transactional id pattern, which must match the whole id as Java's
// Matcher.matches() does (a JavaScript RegExp; one that does not compile is
// INVALID_REGULAR_EXPRESSION). Expired (Dead) ids are never listed; empty filters list everything.
import type { DescribedTransaction, ListedTransaction, ListTransactionsFilter } from '../../ports/transactions.js'
import { ErrorCode, type ErrorName } from '../../protocol/errors.js'
import { isTxnState, partitionsByTopic, type TxnMetadata } from './txn-metadata.js'

/** DescribeTransactions' answer for an id it cannot describe: Kafka sets only the code, the other fields keep their zero defaults. */
export function describeFailure(transactionalId: string, error: ErrorName): DescribedTransaction {
  return {
    errorCode: ErrorCode[error].code,
    transactionalId,
    transactionState: '',
    transactionTimeoutMs: 0,
    transactionStartTimeMs: 0,
    producerId: 0,
    producerEpoch: 0,
    topics: [],
  }
}

/** DescribeTransactions' answer for an id this coordinator owns (txn undefined: none known). */
export function describeTransaction(transactionalId: string, txn: TxnMetadata | undefined): DescribedTransaction {
  if (!txn || txn.state === 'Dead') return describeFailure(transactionalId, 'TRANSACTIONAL_ID_NOT_FOUND')
  return {
    errorCode: 0,
    transactionalId,
    transactionState: txn.state,
    transactionTimeoutMs: txn.txnTimeoutMs,
    transactionStartTimeMs: txn.txnStartTimestamp,
    producerId: txn.producerId,
    producerEpoch: txn.producerEpoch,
    topics: partitionsByTopic(txn.partitions),
  }
}

export function listTransactions(
  owned: Iterable<ReadonlyMap<string, TxnMetadata>>,
  filter: ListTransactionsFilter,
  now: number,
): { errorCode: number; unknownStateFilters: string[]; transactions: ListedTransaction[] } {
  let pattern: RegExp | null = null
  if (filter.transactionalIdPattern !== null && filter.transactionalIdPattern !== '') {
    try {
      pattern = new RegExp(`^(?:${filter.transactionalIdPattern})$`, 'u')
    } catch {
      return { errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION.code, unknownStateFilters: [], transactions: [] }
    }
  }
  const unknownStateFilters = filter.states.filter((s) => !isTxnState(s))
  const states = new Set(filter.states.filter(isTxnState))
  const producerIds = new Set(filter.producerIds)
  const transactions: ListedTransaction[] = []
  for (const txns of owned) {
    for (const [id, txn] of txns) {
      if (txn.state === 'Dead') continue
      if (producerIds.size > 0 && !producerIds.has(txn.producerId)) continue
      if (filter.states.length > 0 && !states.has(txn.state)) continue
      if (filter.durationFilterMs >= 0 && now - txn.txnStartTimestamp <= filter.durationFilterMs) continue
      if (pattern && !pattern.test(id)) continue
      transactions.push({ transactionalId: id, producerId: txn.producerId, transactionState: txn.state })
    }
  }
  return { errorCode: 0, unknownStateFilters, transactions }
}
