// AlterPartitionReassignments v0–1 (KIP-455): starts moving each partition named to a new replica
// list, or with null replicas cancels its move. The answer goes out once each change is recorded;
// the new replicas catch up and the controller completes the move in the background (follow it
// with ListPartitionReassignments). timeout_ms is not needed for that.
// Errors per partition, as Kafka's controller answers: UNKNOWN_TOPIC_OR_PARTITION,
// INVALID_REPLICA_ASSIGNMENT (empty list, a broker twice, an unregistered broker),
// INVALID_REPLICATION_FACTOR (v1 allowReplicationFactorChange=false and another replica count,
// KIP-860), NO_REASSIGNMENT_IN_PROGRESS (cancel with nothing to cancel). On a single node the only
// assignment is [this node], which changes nothing.
import { KafkaError, toErrorCode } from '../protocol/errors.js'
import {
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
} from '../protocol/messages/45-alter-partition-reassignments.js'
import { canCluster, Op } from './authorize.js'
import { ErrorCode } from '../protocol/errors.js'
import { defineHandler } from './define.js'

export default defineHandler(
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
  { minVersion: 0, maxVersion: 1 },
  async (ctx, req) => {
    const { broker } = ctx
    // v0 has no such field: replication factor changes were always allowed.
    const allowRfChange = ctx.apiVersion < 1 || req.allowReplicationFactorChange
    // ALTER on the cluster (Kafka's KafkaApis).
    if (!canCluster(ctx, Op.ALTER)) {
      return {
        throttleTimeMs: 0,
        allowReplicationFactorChange: allowRfChange,
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code,
        errorMessage: null,
        responses: [],
      }
    }
    const responses = []
    for (const t of req.topics) {
      const partitions = []
      for (const p of t.partitions) {
        try {
          await broker.partitionAdmin.alterReassignment(t.name, p.partitionIndex, p.replicas, allowRfChange)
          partitions.push({ partitionIndex: p.partitionIndex, errorCode: 0, errorMessage: null })
        } catch (err) {
          if (!(err instanceof KafkaError))
            broker.logger.error('partition reassignment failed', { topic: t.name, partition: p.partitionIndex, err })
          const message =
            err instanceof KafkaError && err.message === err.errorName ? null : err instanceof Error ? err.message : String(err)
          partitions.push({ partitionIndex: p.partitionIndex, errorCode: toErrorCode(err), errorMessage: message })
        }
      }
      responses.push({ name: t.name, partitions })
    }
    return { throttleTimeMs: 0, allowReplicationFactorChange: allowRfChange, errorCode: 0, errorMessage: null, responses }
  },
)
