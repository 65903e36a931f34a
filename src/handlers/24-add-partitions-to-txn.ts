// AddPartitionsToTxn v0–5. v0–3 come from a transactional producer (one transaction, the
// v3AndBelow* fields): the partitions join its ongoing transaction before it writes to them
// (transaction protocol v1); unknown partitions fail the request as a whole
// (UNKNOWN_TOPIC_OR_PARTITION for them, OPERATION_NOT_ATTEMPTED for the others), as Kafka answers.
// v4+ come from partition leaders verifying a producer's first transactional batch (KIP-890), one
// entry per transaction: verifyOnly checks that the partitions are in the ongoing transaction
// (TRANSACTION_ABORTABLE when not), otherwise — a transactions v2 producer, Produce v12+ — adds
// them. The top-level error code is 0; every code is per partition.
// Errors: INVALID_REQUEST (empty transactional id), NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
// INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED, CONCURRENT_TRANSACTIONS (a transition is running,
// or the transaction is completing); as each version knows them (txn-errors.ts).
import type { TxnPartitions } from '../ports/transactions.js'
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../protocol/messages/24-add-partitions-to-txn.js'
import { defineHandler } from './define.js'
import { forVersion } from './txn-errors.js'

function byTopic(results: Array<{ topic: string; partition: number; errorCode: number }>, version: number) {
  const topics = new Map<string, Array<{ partitionIndex: number; partitionErrorCode: number }>>()
  for (const r of results) {
    let list = topics.get(r.topic)
    if (!list) topics.set(r.topic, (list = []))
    list.push({
      partitionIndex: r.partition,
      partitionErrorCode: forVersion(r.errorCode, version, { producerFenced: 2, transactionAbortable: 5 }),
    })
  }
  return [...topics].map(([name, resultsByPartition]) => ({ name, resultsByPartition }))
}

const partitionsOf = (topics: Array<{ name: string; partitions: number[] }>): TxnPartitions[] =>
  topics.map((t) => ({ topic: t.name, partitions: t.partitions }))

export default defineHandler(AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, { minVersion: 0, maxVersion: 5 }, async (ctx, req) => {
  const { transactions } = ctx.broker
  if (ctx.apiVersion <= 3) {
    const results = await transactions.addPartitions({
      transactionalId: req.v3AndBelowTransactionalId,
      producerId: req.v3AndBelowProducerId,
      producerEpoch: req.v3AndBelowProducerEpoch,
      partitions: partitionsOf(req.v3AndBelowTopics),
      verifyOnly: false,
      apiVersion: ctx.apiVersion,
    })
    return { throttleTimeMs: 0, resultsByTopicV3AndBelow: byTopic(results, ctx.apiVersion) }
  }
  const resultsByTransaction = await Promise.all(
    req.transactions.map(async (t) => ({
      transactionalId: t.transactionalId,
      topicResults: byTopic(
        await transactions.addPartitions({
          transactionalId: t.transactionalId,
          producerId: t.producerId,
          producerEpoch: t.producerEpoch,
          partitions: partitionsOf(t.topics),
          verifyOnly: t.verifyOnly,
          apiVersion: ctx.apiVersion,
        }),
        ctx.apiVersion,
      ),
    })),
  )
  return { throttleTimeMs: 0, errorCode: 0, resultsByTransaction }
})
