// The producer state of a topic's partitions (DescribeProducers, KIP-664), behind `tributary
// producers describe`. As Kafka's Admin (DescribeProducersHandler with its partition-leader lookup),
// each partition is asked of its leader, one request per leader; a partition whose leader moved
// (NOT_LEADER_OR_FOLLOWER) is asked again once after fresh metadata. Per-partition failures are
// returned as Kafka error names, not thrown; a missing topic and transport failures throw.
import type { ErrorName } from '../protocol/errors.js'
import { DescribeProducersRequest, DescribeProducersResponse } from '../protocol/messages/61-describe-producers.js'
import type { KafkaClient } from './client.js'
import { ClientError, errorName } from './errors.js'

export interface ProducerDescription {
  producerId: number
  producerEpoch: number
  /** -1: no sequence retained. */
  lastSequence: number
  /** -1: unknown. */
  lastTimestamp: number
  /** -1 for an idempotent, non-transactional producer. */
  coordinatorEpoch: number
  /** -1: no open transaction. */
  currentTxnStartOffset: number
}

export interface PartitionProducers {
  partition: number
  /** The broker asked (the partition's leader then); -1 when it had none. */
  leader: number
  /** null on success. */
  error: ErrorName | null
  message: string | null
  producers: ProducerDescription[]
}

/** The active producers of `topic`'s partitions (all when `partitions` is null), in partition order. */
export async function describeProducers(client: KafkaClient, topic: string, partitions: number[] | null): Promise<PartitionProducers[]> {
  let results = await askLeaders(client, topic, partitions)
  const moved = results.filter((r) => r.error === 'NOT_LEADER_OR_FOLLOWER').map((r) => r.partition)
  if (moved.length > 0) {
    const again = new Map((await askLeaders(client, topic, moved, true)).map((r) => [r.partition, r]))
    results = results.map((r) => again.get(r.partition) ?? r)
  }
  return results.sort((a, b) => a.partition - b.partition)
}

async function askLeaders(client: KafkaClient, topic: string, partitions: number[] | null, refresh = false): Promise<PartitionProducers[]> {
  const md = await client.metadata([topic], { refresh })
  const info = md.topics.get(topic)
  if (!info) throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', topic)
  if (info.error) throw new ClientError(info.error, `metadata of ${topic}`)
  const wanted = partitions ?? info.partitions.map((p) => p.partition)
  const out: PartitionProducers[] = []
  const byLeader = new Map<number, number[]>()
  for (const partition of wanted) {
    const p = info.partitions.find((x) => x.partition === partition)
    const failed = (error: ErrorName) => out.push({ partition, leader: p?.leader ?? -1, error, message: null, producers: [] })
    if (!p) failed('UNKNOWN_TOPIC_OR_PARTITION')
    else if (p.leader < 0) failed('LEADER_NOT_AVAILABLE')
    else byLeader.set(p.leader, [...(byLeader.get(p.leader) ?? []), partition])
  }
  await Promise.all(
    [...byLeader].map(async ([nodeId, list]) => {
      const res = await client.request(
        DescribeProducersRequest,
        DescribeProducersResponse,
        { topics: [{ name: topic, partitionIndexes: list }] },
        { nodeId },
      )
      for (const t of res.topics) {
        for (const p of t.partitions) {
          out.push({
            partition: p.partitionIndex,
            leader: nodeId,
            error: p.errorCode === 0 ? null : errorName(p.errorCode),
            message: p.errorMessage,
            producers: p.activeProducers.map((a) => ({ ...a })),
          })
        }
      }
    }),
  )
  return out
}
