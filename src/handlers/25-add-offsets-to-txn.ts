// AddOffsetsToTxn v0–4: a transactions v1 producer adds its consumer group's `__consumer_offsets`
// partition to its transaction before TxnOffsetCommit (transactions v2 producers skip it: the
// TxnOffsetCommit adds the partition). Errors: INVALID_REQUEST, NOT_COORDINATOR,
// COORDINATOR_LOAD_IN_PROGRESS, INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED,
// CONCURRENT_TRANSACTIONS; PRODUCER_FENCED is INVALID_PRODUCER_EPOCH before v2 (txn-errors.ts).
import { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from '../protocol/messages/25-add-offsets-to-txn.js'
import { canGroup, canTransactionalId, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'
import { forVersion } from './txn-errors.js'

export default defineHandler(AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, { minVersion: 0, maxVersion: 4 }, async (ctx, req) => ({
  throttleTimeMs: 0,
  // WRITE on the transactional id, READ on the group (Kafka's KafkaApis).
  errorCode: !canTransactionalId(ctx, Op.WRITE, req.transactionalId)
    ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code
    : !canGroup(ctx, Op.READ, req.groupId)
      ? ErrorCode.GROUP_AUTHORIZATION_FAILED.code
      : forVersion(
          await ctx.broker.transactions.addOffsets({
            transactionalId: req.transactionalId,
            producerId: req.producerId,
            producerEpoch: req.producerEpoch,
            groupId: req.groupId,
          }),
          ctx.apiVersion,
          { producerFenced: 2 },
        ),
}))
