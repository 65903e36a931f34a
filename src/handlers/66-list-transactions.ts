// ListTransactions v0–2 (KIP-664): the transactions this broker coordinates, filtered by state and
// producer id (an empty filter matches everything), v1 by duration (KIP-994: only transactions
// running longer than durationFilter ms; -1: no filter), v2 by a pattern on the transactional id
// (KIP-1152). As Kafka's TransactionStateManager.listTransactionStates, state filters naming no
// state are echoed in unknownStateFilters (and match nothing); COORDINATOR_LOAD_IN_PROGRESS while a
// `__transaction_state` partition loads. The filters a version does not carry are off.
import { ListTransactionsRequest, ListTransactionsResponse } from '../protocol/messages/66-list-transactions.js'
import { canTransactionalId, Op } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(ListTransactionsRequest, ListTransactionsResponse, { minVersion: 0, maxVersion: 2 }, (ctx, req) => {
  const r = ctx.broker.transactions.list({
    states: req.stateFilters,
    producerIds: req.producerIdFilters,
    durationFilterMs: ctx.apiVersion >= 1 ? req.durationFilter : -1,
    transactionalIdPattern: ctx.apiVersion >= 2 ? req.transactionalIdPattern : null,
  })
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    unknownStateFilters: r.unknownStateFilters,
    // Only the transactional ids the caller may DESCRIBE (Kafka's KafkaApis).
    transactionStates: r.transactions
      .filter((t) => canTransactionalId(ctx, Op.DESCRIBE, t.transactionalId))
      .map((t) => ({
        transactionalId: t.transactionalId,
        producerId: t.producerId,
        transactionState: t.transactionState,
      })),
  }
})
