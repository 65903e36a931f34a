// ElectLeaders v0–2 (KIP-183, KIP-460): elects the preferred replica (electionType 0; v0 always)
// or, for a partition whose in-sync replicas are all gone, any live replica (1, UNCLEAN) — for the
// partitions named, or every partition when topicPartitions is null. Then only the partitions an
// election was tried for are answered: those already led as asked (ELECTION_NOT_NEEDED) are left
// out, as Kafka's controller does.
// Errors per partition: ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE (the preferred replica is
// not alive and in sync), ELIGIBLE_LEADERS_NOT_AVAILABLE (no live replica), UNKNOWN_TOPIC_OR_PARTITION.
// Top-level errorCode (v1+): 0; v0 has none. On a single node no election is ever needed.
import { ErrorCode, KafkaError } from '../protocol/errors.js'
import { ElectionType, ElectLeadersRequest, ElectLeadersResponse } from '../protocol/messages/43-elect-leaders.js'
import { canCluster, Op } from './authorize.js'
import { defineHandler } from './define.js'

interface PartitionResult {
  partitionId: number
  errorCode: number
  errorMessage: string | null
}

export default defineHandler(ElectLeadersRequest, ElectLeadersResponse, { minVersion: 0, maxVersion: 2 }, async (ctx, req) => {
  const { broker } = ctx
  const electionType = ctx.apiVersion >= 1 ? req.electionType : ElectionType.PREFERRED
  const throttleTimeMs = 0
  if (electionType !== ElectionType.PREFERRED && electionType !== ElectionType.UNCLEAN) {
    return { throttleTimeMs, errorCode: ErrorCode.INVALID_REQUEST.code, replicaElectionResults: [] }
  }
  // ALTER on the cluster (Kafka's KafkaApis), else CLUSTER_AUTHORIZATION_FAILED for every partition asked.
  if (!canCluster(ctx, Op.ALTER)) {
    const denied = { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, errorMessage: null }
    return {
      throttleTimeMs,
      errorCode: denied.errorCode,
      replicaElectionResults: (req.topicPartitions ?? []).map((t) => ({
        topic: t.topic,
        partitionResult: t.partitions.map((partitionId) => ({ partitionId, ...denied })),
      })),
    }
  }
  const unclean = electionType === ElectionType.UNCLEAN
  const all = req.topicPartitions === null
  const wanted =
    req.topicPartitions ??
    broker.topics.list().map((t) => ({ topic: t.name, partitions: Array.from({ length: t.partitions }, (_, i) => i) }))

  const elect = async (topic: string, partition: number): Promise<PartitionResult | undefined> => {
    let err: KafkaError | null
    try {
      err = await broker.partitionAdmin.electLeader(topic, partition, unclean)
    } catch (e) {
      broker.logger.error('leader election failed', { topic, partition, err: e })
      err = e instanceof KafkaError ? e : new KafkaError('UNKNOWN_SERVER_ERROR', e instanceof Error ? e.message : String(e))
    }
    if (err === null) return { partitionId: partition, errorCode: 0, errorMessage: null }
    if (all && err.errorName === 'ELECTION_NOT_NEEDED') return undefined
    return { partitionId: partition, errorCode: err.code, errorMessage: err.message === err.errorName ? null : err.message }
  }

  // Per topic the partitions are elected concurrently (each is its own compare-and-swap write).
  const replicaElectionResults = []
  const merged = new Map<string, Set<number>>()
  for (const t of wanted) {
    let set = merged.get(t.topic)
    if (!set) merged.set(t.topic, (set = new Set()))
    for (const p of t.partitions) set.add(p)
  }
  for (const [topic, partitions] of merged) {
    const results = (await Promise.all([...partitions].map((p) => elect(topic, p)))).filter((r): r is PartitionResult => r !== undefined)
    if (results.length > 0 || !all) replicaElectionResults.push({ topic, partitionResult: results })
  }
  return { throttleTimeMs, errorCode: 0, replicaElectionResults }
})
