// DescribeTransactions v0 (KIP-664): the state of each named transactional id, as the transaction
// coordinator (ports/transactions.ts) keeps it — state, timeout, start time, producer id and epoch,
// and the partitions in the transaction. Answered per id, in the order asked, as Kafka's
// TransactionCoordinator.handleDescribeTransactions: NOT_COORDINATOR when this broker does not own
// the id's `__transaction_state` partition, COORDINATOR_LOAD_IN_PROGRESS while it loads,
// TRANSACTIONAL_ID_NOT_FOUND for an id it does not know, INVALID_REQUEST for an empty id.
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../protocol/messages/65-describe-transactions.js'
import { canTopic, canTransactionalId, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(DescribeTransactionsRequest, DescribeTransactionsResponse, { minVersion: 0, maxVersion: 0 }, (ctx, req) => ({
  throttleTimeMs: 0,
  transactionStates: ctx.broker.transactions.describe(req.transactionalIds).map((t) => {
    // DESCRIBE on each transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED); the topics
    // the caller may not DESCRIBE are left out (Kafka's KafkaApis).
    const allowed = canTransactionalId(ctx, Op.DESCRIBE, t.transactionalId)
    return {
      errorCode: allowed ? t.errorCode : ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code,
      transactionalId: t.transactionalId,
      transactionState: t.transactionState,
      transactionTimeoutMs: t.transactionTimeoutMs,
      transactionStartTimeMs: t.transactionStartTimeMs,
      producerId: t.producerId,
      producerEpoch: t.producerEpoch,
      topics: allowed
        ? t.topics.filter((p) => canTopic(ctx, Op.DESCRIBE, p.topic)).map((p) => ({ topic: p.topic, partitions: p.partitions }))
        : [],
    }
  }),
}))
