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
import type { AddPartitionsParams, TxnPartitions } from '../ports/transactions.js'
import { ErrorCode } from '../protocol/errors.js'
import { canCluster, canTopic, canTransactionalId, Op } from './authorize.js'
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../protocol/messages/24-add-partitions-to-txn.js'
import { defineHandler, type RequestContext } from './define.js'
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

type Results = Array<{ topic: string; partition: number; errorCode: number }>

/**
 * Kafka's checks of one transaction: WRITE on the transactional id (else every partition
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED), WRITE on each topic (else TOPIC_AUTHORIZATION_FAILED
 * for its partitions and OPERATION_NOT_ATTEMPTED for the others); null when all is allowed.
 */
function refusals(ctx: RequestContext, params: AddPartitionsParams): Results | null {
  const all = params.partitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })))
  if (!canTransactionalId(ctx, Op.WRITE, params.transactionalId)) {
    return all.map((x) => ({ ...x, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code }))
  }
  const denied = new Set(params.partitions.filter((t) => !canTopic(ctx, Op.WRITE, t.topic)).map((t) => t.topic))
  if (denied.size === 0) return null
  const code = (topic: string) => (denied.has(topic) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : ErrorCode.OPERATION_NOT_ATTEMPTED).code
  return all.map((x) => ({ ...x, errorCode: code(x.topic) }))
}

export default defineHandler(AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, { minVersion: 0, maxVersion: 5 }, async (ctx, req) => {
  const add = (params: AddPartitionsParams): Promise<Results> | Results =>
    refusals(ctx, params) ?? ctx.broker.transactions.addPartitions(params)
  if (ctx.apiVersion <= 3) {
    const results = await add({
      transactionalId: req.v3AndBelowTransactionalId,
      producerId: req.v3AndBelowProducerId,
      producerEpoch: req.v3AndBelowProducerEpoch,
      partitions: partitionsOf(req.v3AndBelowTopics),
      verifyOnly: false,
      apiVersion: ctx.apiVersion,
    })
    return { throttleTimeMs: 0, resultsByTopicV3AndBelow: byTopic(results, ctx.apiVersion) }
  }
  // v4+ is sent by brokers (KIP-890): CLUSTER_ACTION on the cluster.
  if (!canCluster(ctx, Op.CLUSTER_ACTION)) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, resultsByTransaction: [] }
  }
  const resultsByTransaction = await Promise.all(
    req.transactions.map(async (t) => ({
      transactionalId: t.transactionalId,
      topicResults: byTopic(
        await add({
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
