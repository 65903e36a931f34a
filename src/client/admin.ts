// Requests the command-line tools need often enough to deserve a helper: creating topics (sent to
// the controller) and listing offsets (sent to each partition's leader).
import type { ErrorName } from '../protocol/errors.js'
import { ListOffsetsRequest, ListOffsetsResponse } from '../protocol/messages/02-list-offsets.js'
import { CreateTopicsRequest, CreateTopicsResponse } from '../protocol/messages/19-create-topics.js'
import type { KafkaClient } from './client.js'
import { ClientError, errorName, throwIfError } from './errors.js'

export interface NewTopic {
  name: string
  /** -1 (default): the broker's num.partitions. */
  numPartitions?: number
  /** -1 (default): the broker's default.replication.factor. */
  replicationFactor?: number
  /** Topic config overrides, Kafka's names. */
  configs?: Record<string, string>
  /**
   * The replicas of each partition, by broker id, the preferred leader first (Kafka's
   * NewTopic replicasAssignments); numPartitions and replicationFactor are then left at -1.
   */
  assignments?: number[][]
}

export interface CreateTopicResult {
  name: string
  /** null on success; TOPIC_ALREADY_EXISTS, INVALID_PARTITIONS, … otherwise. */
  error: ErrorName | null
  message: string | null
}

/** Creates topics through the controller; per-topic outcomes are returned, not thrown. */
export async function createTopics(
  client: KafkaClient,
  topics: NewTopic[],
  opts: { timeoutMs?: number; validateOnly?: boolean } = {},
): Promise<CreateTopicResult[]> {
  const { controllerId } = client.cluster
  const res = await client.request(
    CreateTopicsRequest,
    CreateTopicsResponse,
    {
      topics: topics.map((t) => ({
        name: t.name,
        numPartitions: t.numPartitions ?? -1,
        replicationFactor: t.replicationFactor ?? -1,
        assignments: (t.assignments ?? []).map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds })),
        configs: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })),
      })),
      timeoutMs: opts.timeoutMs ?? 30_000,
      validateOnly: opts.validateOnly ?? false,
    },
    controllerId >= 0 ? { nodeId: controllerId } : {},
  )
  return res.topics.map((t) => ({
    name: t.name,
    error: t.errorCode === 0 ? null : errorName(t.errorCode),
    message: t.errorMessage,
  }))
}

/** ListOffsets timestamps with a special meaning. */
export const OffsetSpec = { Latest: -1, Earliest: -2, MaxTimestamp: -3 } as const

/**
 * The offset per partition for a timestamp (or an OffsetSpec), asking each partition's leader.
 * `partitions` null means every partition of the topic. With readCommitted (ListOffsets v2+
 * isolation_level 1) Latest is the last stable offset rather than the high watermark. Throws a
 * ClientError on any error.
 */
export async function listOffsets(
  client: KafkaClient,
  topic: string,
  partitions: number[] | null,
  timestamp: number,
  readCommitted = false,
): Promise<Map<number, number>> {
  const md = await client.metadata([topic])
  const info = md.topics.get(topic)
  if (!info) throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', topic)
  if (info.error) throw new ClientError(info.error, `metadata of ${topic}`)
  const wanted = partitions ?? info.partitions.map((p) => p.partition)
  const byLeader = new Map<number, number[]>()
  for (const index of wanted) {
    const p = info.partitions.find((x) => x.partition === index)
    if (!p) throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', `${topic}-${index}`)
    if (p.leader < 0) throw new ClientError('LEADER_NOT_AVAILABLE', `${topic}-${index}`)
    const list = byLeader.get(p.leader) ?? []
    list.push(index)
    byLeader.set(p.leader, list)
  }
  const out = new Map<number, number>()
  await Promise.all(
    [...byLeader].map(async ([nodeId, list]) => {
      const res = await client.request(
        ListOffsetsRequest,
        ListOffsetsResponse,
        {
          replicaId: -1,
          isolationLevel: readCommitted ? 1 : 0,
          topics: [{ name: topic, partitions: list.map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp })) }],
          // v10+: how long a broker with tiered storage may spend on remote lookups (KIP-1075).
          timeoutMs: client.requestTimeoutMs,
        },
        { nodeId },
      )
      for (const t of res.topics) {
        for (const p of t.partitions) {
          throwIfError(p.errorCode, `ListOffsets ${t.name}-${p.partitionIndex}`)
          out.set(p.partitionIndex, p.offset)
        }
      }
    }),
  )
  return out
}
