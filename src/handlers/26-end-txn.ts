// EndTxn v0–5: commits or aborts the producer's transaction. Answered once PrepareCommit /
// PrepareAbort is durable in `__transaction_state`; the coordinator then writes the markers and
// completes the transaction (coordinator/txn/txn-coordinator.ts). v5 is transaction protocol v2
// (KIP-890 part 2): the epoch is bumped at every EndTxn and the answer carries the producer id and
// the epoch of the next transaction; a retry of a completed EndTxn is answered NONE with them.
// Errors: INVALID_REQUEST, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
// INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED (INVALID_PRODUCER_EPOCH before v2, txn-errors.ts),
// CONCURRENT_TRANSACTIONS, INVALID_TXN_STATE.
import { EndTxnRequest, EndTxnResponse } from '../protocol/messages/26-end-txn.js'
import { canTransactionalId, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'
import { forVersion } from './txn-errors.js'

export default defineHandler(EndTxnRequest, EndTxnResponse, { minVersion: 0, maxVersion: 5 }, async (ctx, req) => {
  // WRITE on the transactional id (Kafka's KafkaApis).
  if (!canTransactionalId(ctx, Op.WRITE, req.transactionalId)) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code, producerId: -1, producerEpoch: -1 }
  }
  const r = await ctx.broker.transactions.endTxn({
    transactionalId: req.transactionalId,
    producerId: req.producerId,
    producerEpoch: req.producerEpoch,
    commit: req.committed,
    apiVersion: ctx.apiVersion,
  })
  const errorCode = forVersion(r.errorCode, ctx.apiVersion, { producerFenced: 2 })
  return { throttleTimeMs: 0, errorCode, producerId: r.producerId, producerEpoch: r.producerEpoch }
})
