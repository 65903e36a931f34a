// The client's view of the cluster, as the Metadata API describes it: brokers with their
// advertised endpoints, the controller, the cluster id, and per topic its partitions with leader,
// replicas and ISR. Built from a Metadata response (any version we declare, v0–12).
import type { MetadataResponseData } from '../protocol/messages/03-metadata.js'
import type { ErrorName } from '../protocol/errors.js'
import { errorName } from './errors.js'

export interface BrokerInfo {
  nodeId: number
  host: string
  port: number
  rack: string | null
}

export interface PartitionInfo {
  partition: number
  /** -1 while the partition has no leader. */
  leader: number
  leaderEpoch: number
  replicas: number[]
  isr: number[]
  offlineReplicas: number[]
  /** null, or e.g. LEADER_NOT_AVAILABLE. */
  error: ErrorName | null
}

export interface TopicInfo {
  name: string
  /** Base64url Kafka Uuid; all 'A's before Metadata v10. */
  topicId: string
  isInternal: boolean
  /** null, or e.g. UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE while being created. */
  error: ErrorName | null
  /** Sorted by partition index. */
  partitions: PartitionInfo[]
}

export interface ClusterMetadata {
  clusterId: string | null
  /** -1 when unknown (Metadata v0). */
  controllerId: number
  brokers: Map<number, BrokerInfo>
  topics: Map<string, TopicInfo>
}

const errorOrNull = (code: number): ErrorName | null => (code === 0 ? null : errorName(code))

export function parseMetadata(res: MetadataResponseData): ClusterMetadata {
  const brokers = new Map<number, BrokerInfo>()
  for (const b of res.brokers) brokers.set(b.nodeId, { nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack })
  const topics = new Map<string, TopicInfo>()
  for (const t of res.topics) {
    if (t.name === null) continue // only for lookups by id, which this client does not make
    const partitions: PartitionInfo[] = t.partitions.map((p) => ({
      partition: p.partitionIndex,
      leader: p.leaderId,
      leaderEpoch: p.leaderEpoch,
      replicas: p.replicaNodes,
      isr: p.isrNodes,
      offlineReplicas: p.offlineReplicas,
      error: errorOrNull(p.errorCode),
    }))
    partitions.sort((a, b) => a.partition - b.partition)
    topics.set(t.name, { name: t.name, topicId: t.topicId, isInternal: t.isInternal, error: errorOrNull(t.errorCode), partitions })
  }
  return { clusterId: res.clusterId, controllerId: res.controllerId, brokers, topics }
}
