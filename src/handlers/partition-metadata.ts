// One partition as Metadata (03-metadata.ts) and DescribeTopicPartitions
// (75-describe-topic-partitions.ts) describe it, from the partition state in the metadata store:
// the leader only when it is a live broker (else -1), every replica and ISR member as recorded, and
// the replicas on brokers that are not live listed offline.
import type { BrokerServices } from '../ports/broker-services.js'

export interface PartitionMetadata {
  partitionIndex: number
  /** -1 while the partition has no live leader. */
  leaderId: number
  leaderEpoch: number
  replicaNodes: number[]
  isrNodes: number[]
  offlineReplicas: number[]
}

export function partitionMetadata(broker: BrokerServices, topic: string, partition: number, live: ReadonlySet<number>): PartitionMetadata {
  const st = broker.topics.partitionState(topic, partition)
  return {
    partitionIndex: partition,
    leaderId: st && st.leader >= 0 && live.has(st.leader) ? st.leader : -1,
    leaderEpoch: st?.leaderEpoch ?? -1,
    replicaNodes: st ? [...st.replicas] : [],
    isrNodes: st ? [...st.isr] : [],
    offlineReplicas: st ? st.replicas.filter((b) => !live.has(b)) : [],
  }
}
