// ListTransactions' filters over the transactions a coordinator owns, as Kafka's
// TransactionStateManager.listTransactionStates applies them: states (names Kafka does not know are
// reported back as unknown filters), producer ids, v1's duration (only transactions started longer
// ago than it) and v2's transactional id pattern, which must match the whole id as Java's
// Matcher.matches() does (a JavaScript RegExp; one that does not compile is
// INVALID_REGULAR_EXPRESSION). Expired (Dead) ids are never listed; empty filters list everything.
import type { ListedTransaction, ListTransactionsFilter } from '../../ports/transactions.js'
import { ErrorCode } from '../../protocol/errors.js'
import { isTxnState, type TxnMetadata } from './txn-metadata.js'

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
