// InitProducerId v0–5. Without a transactional id: a fresh producer id with epoch 0 (allocated in
// durable blocks, never reused across restarts), as Kafka's coordinator gives an idempotent
// producer. With one: the transaction coordinator of the id (coordinator/txn/txn-coordinator.ts)
// keeps its producer id and bumps its epoch, fencing the producer that used it before — an
// ongoing transaction is aborted first and the request answered CONCURRENT_TRANSACTIONS until that
// is done (the producer retries); v3+ (KIP-360) may name the producer's current id and epoch to
// recover after an error; an exhausted epoch moves to a new producer id.
// Errors: INVALID_REQUEST (empty transactional id), INVALID_TRANSACTION_TIMEOUT (not in
// (0, transaction.max.timeout.ms]), NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
// CONCURRENT_TRANSACTIONS, PRODUCER_FENCED (INVALID_PRODUCER_EPOCH before v4, txn-errors.ts).
import { ErrorCode, toErrorCode } from '../protocol/errors.js'
import { InitProducerIdRequest, InitProducerIdResponse } from '../protocol/messages/22-init-producer-id.js'
import { canIdempotentWrite, canTransactionalId, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { forVersion } from './txn-errors.js'

export default defineHandler(InitProducerIdRequest, InitProducerIdResponse, { minVersion: 0, maxVersion: 5 }, async (ctx, req) => {
  // WRITE on the transactional id; without one, IDEMPOTENT_WRITE on the cluster or WRITE on some
  // topic (KIP-679), as Kafka's KafkaApis checks.
  const refuse = (code: number) => ({ throttleTimeMs: 0, errorCode: code, producerId: -1, producerEpoch: -1 })
  if (req.transactionalId !== null && !canTransactionalId(ctx, Op.WRITE, req.transactionalId)) {
    return refuse(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code)
  }
  if (req.transactionalId === null && !canIdempotentWrite(ctx)) return refuse(ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code)
  if (req.transactionalId !== null) {
    const r = await ctx.broker.transactions.initProducerId({
      transactionalId: req.transactionalId,
      transactionTimeoutMs: req.transactionTimeoutMs,
      producerId: ctx.apiVersion >= 3 ? req.producerId : -1,
      producerEpoch: ctx.apiVersion >= 3 ? req.producerEpoch : -1,
      apiVersion: ctx.apiVersion,
    })
    return { throttleTimeMs: 0, ...r, errorCode: forVersion(r.errorCode, ctx.apiVersion, { producerFenced: 4 }) }
  }
  try {
    const id = await ctx.broker.producerIds.initProducerId()
    return { throttleTimeMs: 0, errorCode: 0, ...id }
  } catch (err) {
    return { throttleTimeMs: 0, errorCode: toErrorCode(err), producerId: -1, producerEpoch: -1 }
  }
})
