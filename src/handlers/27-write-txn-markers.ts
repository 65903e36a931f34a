// WriteTxnMarkers v1–2: a transaction coordinator asks this broker to write COMMIT or ABORT markers
// to partitions it leads (v2 carries the marker's transaction version, KIP-1228). Each marker is
// written to each of its partitions (ctx.broker.txnMarkers: a control batch acknowledged by the
// in-sync replicas; on `__consumer_offsets` the group's pending transactional offsets are then
// committed or dropped), and every partition answered with its own code.
// Errors per partition: UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS,
// REQUEST_TIMED_OUT, INVALID_PRODUCER_EPOCH (a marker older than the producer's epoch),
// TRANSACTION_COORDINATOR_FENCED (from an older coordinator epoch), KAFKA_STORAGE_ERROR.
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../protocol/messages/27-write-txn-markers.js'
import { canCluster, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(WriteTxnMarkersRequest, WriteTxnMarkersResponse, { minVersion: 1, maxVersion: 2 }, async (ctx, req) => ({
  markers: await Promise.all(
    req.markers.map(async (m) => {
      // Sent by transaction coordinators (CLUSTER_ACTION on the cluster) or by an admin aborting a
      // hanging transaction (KIP-664: ALTER on the cluster), as Kafka's KafkaApis allows.
      if (!canCluster(ctx, Op.ALTER) && !canCluster(ctx, Op.CLUSTER_ACTION)) {
        const denied = ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code
        return {
          producerId: m.producerId,
          topics: m.topics.map((t) => ({
            name: t.name,
            partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode: denied })),
          })),
        }
      }
      const partitions = m.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })))
      const results = await ctx.broker.txnMarkers.writeMarkers(
        {
          producerId: m.producerId,
          producerEpoch: m.producerEpoch,
          coordinatorEpoch: m.coordinatorEpoch,
          commit: m.transactionResult,
          transactionVersion: ctx.apiVersion >= 2 ? m.transactionVersion : 0,
        },
        partitions,
      )
      return {
        producerId: m.producerId,
        topics: m.topics.map((t) => ({
          name: t.name,
          partitions: results.filter((r) => r.topic === t.name).map((r) => ({ partitionIndex: r.partition, errorCode: r.errorCode })),
        })),
      }
    }),
  ),
}))
