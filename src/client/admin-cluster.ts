// Admin requests behind `tributary cluster rebalance | reassignments | elect-leaders`: moving
// partitions between brokers (AlterPartitionReassignments, KIP-455), following the moves
// (ListPartitionReassignments) and electing leaders (ElectLeaders, KIP-460). All three go to the
// controller, as Kafka's Admin client sends them (a KRaft broker forwards them; a Tributary broker
// serves them itself). Per-partition outcomes are returned as Kafka error names, not thrown;
// top-level and transport failures throw a ClientError.
import type { ErrorName } from '../protocol/errors.js'
import { ElectionType, ElectLeadersRequest, ElectLeadersResponse } from '../protocol/messages/43-elect-leaders.js'
import {
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
} from '../protocol/messages/45-alter-partition-reassignments.js'
import {
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
} from '../protocol/messages/46-list-partition-reassignments.js'
import type { KafkaClient, RequestOptions } from './client.js'
import { ClientError, errorName, throwIfError } from './errors.js'

export interface TopicPartitionRef {
  topic: string
  partition: number
}

/** One partition's outcome: error null on success. */
export interface PartitionResult extends TopicPartitionRef {
  error: ErrorName | null
  message: string | null
}

export interface PartitionMove extends TopicPartitionRef {
  /** The target replicas, preferred leader first; null cancels the partition's move in progress. */
  replicas: number[] | null
}

export interface ReassignmentInProgress extends TopicPartitionRef {
  /** The current replica set: target and leaving replicas together. */
  replicas: number[]
  addingReplicas: number[]
  removingReplicas: number[]
}

/** The controller per fresh metadata, else any broker. */
async function toController(client: KafkaClient): Promise<RequestOptions> {
  await client.metadata([], { refresh: true })
  const { controllerId } = client.cluster
  return controllerId >= 0 ? { nodeId: controllerId } : {}
}

/** Groups partition entries by topic, keeping first-seen order. */
function byTopic<T extends TopicPartitionRef>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const it of items) {
    const list = out.get(it.topic)
    if (list) list.push(it)
    else out.set(it.topic, [it])
  }
  return out
}

const result = (topic: string, partition: number, code: number, message: string | null): PartitionResult => ({
  topic,
  partition,
  error: code === 0 ? null : errorName(code),
  message: code === 0 ? null : message,
})

/**
 * Starts (or cancels) partition moves; resolves once the controller recorded them — the data moves
 * in the background. `allowReplicationFactorChange` false (KIP-860, v1) refuses a move that
 * changes a partition's replica count (INVALID_REPLICATION_FACTOR).
 */
export async function alterPartitionReassignments(
  client: KafkaClient,
  moves: readonly PartitionMove[],
  opts: { timeoutMs?: number; allowReplicationFactorChange?: boolean } = {},
): Promise<PartitionResult[]> {
  if (moves.length === 0) return []
  const res = await client.request(
    AlterPartitionReassignmentsRequest,
    AlterPartitionReassignmentsResponse,
    {
      timeoutMs: opts.timeoutMs ?? 30_000,
      allowReplicationFactorChange: opts.allowReplicationFactorChange ?? true,
      topics: [...byTopic(moves)].map(([name, list]) => ({
        name,
        partitions: list.map((m) => ({ partitionIndex: m.partition, replicas: m.replicas })),
      })),
    },
    await toController(client),
  )
  throwIfError(res.errorCode, 'AlterPartitionReassignments', res.errorMessage)
  return moves.map((m) => {
    const p = res.responses.find((t) => t.name === m.topic)?.partitions.find((x) => x.partitionIndex === m.partition)
    if (!p) return { topic: m.topic, partition: m.partition, error: 'UNKNOWN_SERVER_ERROR', message: 'no result for this partition' }
    return result(m.topic, m.partition, p.errorCode, p.errorMessage)
  })
}

/** The moves in progress: every one (null), or among the partitions named; sorted by topic, partition. */
export async function listPartitionReassignments(
  client: KafkaClient,
  partitions: readonly TopicPartitionRef[] | null = null,
  opts: { timeoutMs?: number } = {},
): Promise<ReassignmentInProgress[]> {
  const topics =
    partitions === null ? null : [...byTopic(partitions)].map(([name, list]) => ({ name, partitionIndexes: list.map((p) => p.partition) }))
  if (topics !== null && topics.length === 0) return []
  const res = await client.request(
    ListPartitionReassignmentsRequest,
    ListPartitionReassignmentsResponse,
    { timeoutMs: opts.timeoutMs ?? 30_000, topics },
    await toController(client),
  )
  throwIfError(res.errorCode, 'ListPartitionReassignments', res.errorMessage)
  const out: ReassignmentInProgress[] = []
  for (const t of res.topics) {
    for (const p of t.partitions) {
      out.push({
        topic: t.name,
        partition: p.partitionIndex,
        replicas: p.replicas,
        addingReplicas: p.addingReplicas,
        removingReplicas: p.removingReplicas,
      })
    }
  }
  return out.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
}

export type ElectionKind = 'preferred' | 'unclean'

/**
 * Elects leaders: the preferred replica, or (unclean) any live replica of a partition without a
 * live in-sync one. partitions null = every partition of the cluster; the controller then answers
 * only for the partitions it tried (not those already led as asked). ELECTION_NOT_NEEDED is an
 * outcome like any other here; the caller decides whether it is a failure.
 */
export async function electLeaders(
  client: KafkaClient,
  kind: ElectionKind,
  partitions: readonly TopicPartitionRef[] | null,
  opts: { timeoutMs?: number } = {},
): Promise<PartitionResult[]> {
  const topicPartitions =
    partitions === null ? null : [...byTopic(partitions)].map(([topic, list]) => ({ topic, partitions: list.map((p) => p.partition) }))
  if (topicPartitions !== null && topicPartitions.length === 0) return []
  const electionType = kind === 'unclean' ? ElectionType.UNCLEAN : ElectionType.PREFERRED
  const res = await client.request(
    ElectLeadersRequest,
    ElectLeadersResponse,
    (v) => {
      // v0 elects only the preferred replica (KIP-183); unclean elections need v1 (KIP-460).
      if (v === 0 && kind === 'unclean')
        throw new ClientError('UNSUPPORTED_VERSION', 'the broker does not support unclean leader elections (ElectLeaders v1)')
      return { electionType, topicPartitions, timeoutMs: opts.timeoutMs ?? 30_000 }
    },
    await toController(client),
  )
  if (res.errorCode !== undefined) throwIfError(res.errorCode, 'ElectLeaders')
  const out: PartitionResult[] = []
  for (const t of res.replicaElectionResults) {
    for (const p of t.partitionResult) out.push(result(t.topic, p.partitionId, p.errorCode, p.errorMessage))
  }
  return out.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
}
