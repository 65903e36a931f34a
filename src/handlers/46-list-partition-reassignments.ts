// ListPartitionReassignments v0 (KIP-455): the partitions being moved — every one (topics null) or
// those among the partitions named — each with its current replica set (target and leaving
// replicas together) and the replicas being added and removed. Partitions that do not exist or
// are not moving are left out, as Kafka does.
import {
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
} from '../protocol/messages/46-list-partition-reassignments.js'
import { canCluster, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
  { minVersion: 0, maxVersion: 0 },
  (ctx, req) => {
    // DESCRIBE on the cluster (Kafka's KafkaApis).
    if (!canCluster(ctx, Op.DESCRIBE))
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, errorMessage: null, topics: [] }
    const named = req.topics === null ? null : req.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes }))
    const byTopic = new Map<
      string,
      Array<{ partitionIndex: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[] }>
    >()
    for (const r of ctx.broker.partitionAdmin.listReassignments(named)) {
      let list = byTopic.get(r.topic)
      if (!list) byTopic.set(r.topic, (list = []))
      list.push({
        partitionIndex: r.partition,
        replicas: r.replicas,
        addingReplicas: r.addingReplicas,
        removingReplicas: r.removingReplicas,
      })
    }
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
    }
  },
)
