// DescribeTransactions v0 (KIP-664): the state of each named transactional id, as the transaction
// coordinator (ports/transactions.ts) keeps it — state, timeout, start time, producer id and epoch,
// and the partitions in the transaction. Answered per id, in the order asked, as Kafka's
// TransactionCoordinator.handleDescribeTransactions: NOT_COORDINATOR when this broker does not own
// the id's `__transaction_state` partition, COORDINATOR_LOAD_IN_PROGRESS while it loads,
// TRANSACTIONAL_ID_NOT_FOUND for an id it does not know, INVALID_REQUEST for an empty id.
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../protocol/messages/65-describe-transactions.js'
import { defineHandler } from './define.js'

export default defineHandler(DescribeTransactionsRequest, DescribeTransactionsResponse, { minVersion: 0, maxVersion: 0 }, (ctx, req) => ({
  throttleTimeMs: 0,
  transactionStates: ctx.broker.transactions.describe(req.transactionalIds).map((t) => ({
    errorCode: t.errorCode,
    transactionalId: t.transactionalId,
    transactionState: t.transactionState,
    transactionTimeoutMs: t.transactionTimeoutMs,
    transactionStartTimeMs: t.transactionStartTimeMs,
    producerId: t.producerId,
    producerEpoch: t.producerEpoch,
    topics: t.topics.map((p) => ({ topic: p.topic, partitions: p.partitions })),
  })),
}))
