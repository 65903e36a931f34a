// Admin requests behind `tributary topic` and `tributary cluster`: list, create, describe, delete
// topics, change their configs and partition counts, and describe the cluster. Each helper sends
// where Kafka's own Admin client sends: topic creation, deletion and new partitions to the
// controller (a KRaft broker forwards them), configs to any broker, offsets to each partition's
// leader, log-dir sizes to each broker that leads a partition. Per-item outcomes (one topic of
// several failing) are returned as Kafka error names, not thrown; transport failures throw.
import type { ErrorName } from '../protocol/errors.js'
import { ListOffsetsRequest, ListOffsetsResponse } from '../protocol/messages/02-list-offsets.js'
import { CreateTopicsRequest, CreateTopicsResponse } from '../protocol/messages/19-create-topics.js'
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../protocol/messages/20-delete-topics.js'
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../protocol/messages/32-describe-configs.js'
import { DescribeLogDirsRequest, DescribeLogDirsResponse } from '../protocol/messages/35-describe-log-dirs.js'
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../protocol/messages/37-create-partitions.js'
import {
  ConfigOperation,
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
} from '../protocol/messages/44-incremental-alter-configs.js'
import { DescribeClusterRequest, DescribeClusterResponse } from '../protocol/messages/60-describe-cluster.js'
import { ZERO_UUID } from '../protocol/primitives/uuid.js'
import type { NewTopic } from './admin.js'
import type { KafkaClient, RequestOptions } from './client.js'
import { ClientError, errorName, throwIfError } from './errors.js'
import type { BrokerInfo, PartitionInfo, TopicInfo } from './metadata.js'

const RESOURCE_TOPIC = 2
/** Kafka's ConfigResource.Type.GROUP. */
const RESOURCE_GROUP = 32

/** Kafka's ConfigSource names (DescribeConfigs v1+), by code. */
export const CONFIG_SOURCES: Readonly<Record<number, string>> = {
  0: 'UNKNOWN',
  1: 'DYNAMIC_TOPIC_CONFIG',
  2: 'DYNAMIC_BROKER_CONFIG',
  3: 'DYNAMIC_DEFAULT_BROKER_CONFIG',
  4: 'STATIC_BROKER_CONFIG',
  5: 'DEFAULT_CONFIG',
  6: 'DYNAMIC_BROKER_LOGGER_CONFIG',
  7: 'CLIENT_METRICS_CONFIG',
  8: 'GROUP_CONFIG',
}
const DEFAULT_CONFIG = 5

/** One outcome per topic: error null on success. */
export interface TopicOutcome {
  name: string
  error: ErrorName | null
  message: string | null
}

const outcome = (name: string, code: number, message: string | null): TopicOutcome => ({
  name,
  error: code === 0 ? null : errorName(code),
  message: code === 0 ? null : message,
})

/** The controller when the metadata names one, else any broker. */
function toController(client: KafkaClient): RequestOptions {
  const { controllerId } = client.cluster
  return controllerId >= 0 ? { nodeId: controllerId } : {}
}

// ---------------------------------------------------------------------------------------------
// List.

export interface TopicListing {
  name: string
  topicId: string
  internal: boolean
  partitions: number
  /** Replicas of the topic's partitions (the largest count, should they differ). */
  replicationFactor: number
}

/** Every topic, sorted by name; internal topics (`__consumer_offsets`, …) only if asked. */
export async function listTopics(client: KafkaClient, opts: { internal?: boolean } = {}): Promise<TopicListing[]> {
  const md = await client.metadata(null, { refresh: true })
  return [...md.topics.values()]
    .filter((t) => t.error === null && (opts.internal === true || !t.isInternal))
    .sort((a, b) => compare(a.name, b.name))
    .map((t) => ({
      name: t.name,
      topicId: t.topicId,
      internal: t.isInternal,
      partitions: t.partitions.length,
      replicationFactor: replicationFactorOf(t),
    }))
}

function replicationFactorOf(t: TopicInfo): number {
  return t.partitions.reduce((n, p) => Math.max(n, p.replicas.length), 0)
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

// ---------------------------------------------------------------------------------------------
// Create, delete, add partitions, alter configs.

export interface CreatedTopic extends TopicOutcome {
  /** From CreateTopics v5+; -1 when the broker did not say. */
  numPartitions: number
  replicationFactor: number
  /** From CreateTopics v7+; null before. */
  topicId: string | null
}

/** Creates one topic through the controller. */
export async function createTopic(
  client: KafkaClient,
  topic: NewTopic,
  opts: { timeoutMs?: number; validateOnly?: boolean } = {},
): Promise<CreatedTopic> {
  await client.metadata([], { refresh: true }) // learn the controller
  const res = await client.request(
    CreateTopicsRequest,
    CreateTopicsResponse,
    {
      topics: [
        {
          name: topic.name,
          numPartitions: topic.numPartitions ?? -1,
          replicationFactor: topic.replicationFactor ?? -1,
          assignments: [],
          configs: Object.entries(topic.configs ?? {}).map(([name, value]) => ({ name, value })),
        },
      ],
      timeoutMs: opts.timeoutMs ?? 30_000,
      validateOnly: opts.validateOnly ?? false,
    },
    toController(client),
  )
  const t = res.topics.find((x) => x.name === topic.name)
  if (!t) throw new ClientError('UNKNOWN_SERVER_ERROR', `CreateTopics: no result for ${topic.name}`)
  return {
    ...outcome(t.name, t.errorCode, t.errorMessage),
    numPartitions: t.numPartitions,
    replicationFactor: t.replicationFactor,
    topicId: t.topicId === undefined || t.topicId === ZERO_UUID ? null : t.topicId,
  }
}

/** Deletes topics by name through the controller. */
export async function deleteTopics(client: KafkaClient, names: string[], opts: { timeoutMs?: number } = {}): Promise<TopicOutcome[]> {
  await client.metadata([], { refresh: true })
  const timeoutMs = opts.timeoutMs ?? 30_000
  const res = await client.request(
    DeleteTopicsRequest,
    DeleteTopicsResponse,
    (v) => (v >= 6 ? { topics: names.map((name) => ({ name, topicId: ZERO_UUID })), timeoutMs } : { topicNames: names, timeoutMs }),
    toController(client),
  )
  return names.map((name) => {
    const r = res.responses.find((x) => x.name === name)
    if (!r) return { name, error: 'UNKNOWN_SERVER_ERROR', message: 'DeleteTopics: no result for this topic' }
    return outcome(name, r.errorCode, r.errorMessage)
  })
}

/** Raises a topic's partition count to `count` (CreatePartitions, through the controller). */
export async function createPartitions(
  client: KafkaClient,
  name: string,
  count: number,
  opts: { timeoutMs?: number; validateOnly?: boolean } = {},
): Promise<TopicOutcome> {
  await client.metadata([], { refresh: true })
  const res = await client.request(
    CreatePartitionsRequest,
    CreatePartitionsResponse,
    {
      topics: [{ name, count, assignments: null }],
      timeoutMs: opts.timeoutMs ?? 30_000,
      validateOnly: opts.validateOnly ?? false,
    },
    toController(client),
  )
  const r = res.results.find((x) => x.name === name)
  if (!r) return { name, error: 'UNKNOWN_SERVER_ERROR', message: 'CreatePartitions: no result for this topic' }
  return outcome(name, r.errorCode, r.errorMessage)
}

export type ConfigOp = 'set' | 'delete' | 'append' | 'subtract'

export interface ConfigChange {
  name: string
  op: ConfigOp
  /** Ignored for 'delete'. */
  value: string | null
}

const OPS: Record<ConfigOp, number> = {
  set: ConfigOperation.SET,
  delete: ConfigOperation.DELETE,
  append: ConfigOperation.APPEND,
  subtract: ConfigOperation.SUBTRACT,
}

/** Changes only the named keys of a topic (IncrementalAlterConfigs, KIP-339). */
export function alterTopicConfigs(
  client: KafkaClient,
  name: string,
  changes: ConfigChange[],
  opts: { validateOnly?: boolean } = {},
): Promise<TopicOutcome> {
  return alterResourceConfigs(client, RESOURCE_TOPIC, name, changes, opts)
}

/**
 * Changes only the named keys of a group (IncrementalAlterConfigs on a GROUP resource, KIP-848 /
 * KIP-932: consumer.*, share.*, errors.deadletterqueue.* …). The group need not exist yet.
 */
export function alterGroupConfigs(
  client: KafkaClient,
  groupId: string,
  changes: ConfigChange[],
  opts: { validateOnly?: boolean } = {},
): Promise<TopicOutcome> {
  return alterResourceConfigs(client, RESOURCE_GROUP, groupId, changes, opts)
}

async function alterResourceConfigs(
  client: KafkaClient,
  resourceType: number,
  name: string,
  changes: ConfigChange[],
  opts: { validateOnly?: boolean },
): Promise<TopicOutcome> {
  const res = await client.request(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, {
    resources: [
      {
        resourceType,
        resourceName: name,
        configs: changes.map((c) => ({ name: c.name, configOperation: OPS[c.op], value: c.op === 'delete' ? null : c.value })),
      },
    ],
    validateOnly: opts.validateOnly ?? false,
  })
  const r = res.responses.find((x) => x.resourceName === name)
  if (!r) return { name, error: 'UNKNOWN_SERVER_ERROR', message: 'IncrementalAlterConfigs: no result for this resource' }
  return outcome(name, r.errorCode, r.errorMessage)
}

// ---------------------------------------------------------------------------------------------
// Describe.

export interface ConfigValue {
  name: string
  /** null for sensitive values. */
  value: string | null
  /** Kafka's ConfigSource name, e.g. DYNAMIC_TOPIC_CONFIG. */
  source: string
  sensitive: boolean
  readOnly: boolean
}

export interface PartitionDescription {
  partition: number
  /** -1 while leaderless. */
  leader: number
  leaderEpoch: number
  replicas: number[]
  isr: number[]
  offlineReplicas: number[]
  error: ErrorName | null
  /** ListOffsets -2 / -1 at the leader; null when the leader could not answer. */
  earliestOffset: number | null
  latestOffset: number | null
  /** Bytes of the leader's copy on disk (DescribeLogDirs); null when unknown. */
  sizeBytes: number | null
}

export interface TopicDescription {
  name: string
  topicId: string
  internal: boolean
  replicationFactor: number
  partitions: PartitionDescription[]
  /** Sum over partitions; null if any partition's size is unknown. */
  sizeBytes: number | null
  /** Configs whose source is not DEFAULT_CONFIG, by name. */
  configs: ConfigValue[]
  /** Why configs could not be described (null when they were). */
  configsError: string | null
}

/**
 * Describes topics: partitions with leader, replicas, ISR, earliest and latest offsets and size
 * on disk, and the configs that differ from the defaults. Throws UNKNOWN_TOPIC_OR_PARTITION
 * (detail: the topic's name) for a topic that does not exist.
 */
export async function describeTopics(client: KafkaClient, names: string[]): Promise<TopicDescription[]> {
  const md = await client.metadata(names)
  const infos = names.map((name) => {
    const info = md.topics.get(name)
    if (!info || info.error === 'UNKNOWN_TOPIC_OR_PARTITION') throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', name)
    if (info.error) throw new ClientError(info.error, `metadata of ${name}`)
    return info
  })
  const [earliest, latest, sizes, configs] = await Promise.all([
    offsetsAtLeaders(client, infos, -2),
    offsetsAtLeaders(client, infos, -1),
    sizesAtLeaders(client, infos),
    nonDefaultConfigs(client, names),
  ])
  return infos.map((t) => {
    const partitions = t.partitions.map((p): PartitionDescription => {
      const key = tp(t.name, p.partition)
      return {
        partition: p.partition,
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        replicas: p.replicas,
        isr: p.isr,
        offlineReplicas: p.offlineReplicas,
        error: p.error,
        earliestOffset: earliest.get(key) ?? null,
        latestOffset: latest.get(key) ?? null,
        sizeBytes: sizes?.get(key) ?? null,
      }
    })
    const c = configs.get(t.name) ?? { entries: [], error: 'no result' }
    return {
      name: t.name,
      topicId: t.topicId,
      internal: t.isInternal,
      replicationFactor: replicationFactorOf(t),
      partitions,
      sizeBytes: partitions.every((p) => p.sizeBytes !== null) ? partitions.reduce((n, p) => n + p.sizeBytes!, 0) : null,
      configs: c.entries,
      configsError: c.error,
    }
  })
}

const tp = (topic: string, partition: number) => `${topic}\u0000${partition}`

/** Partitions grouped by their leader's node id (leaderless ones left out). */
function byLeader(infos: TopicInfo[]): Map<number, Array<{ topic: string; partitions: PartitionInfo[] }>> {
  const out = new Map<number, Map<string, PartitionInfo[]>>()
  for (const t of infos) {
    for (const p of t.partitions) {
      if (p.leader < 0) continue
      const topics = out.get(p.leader) ?? new Map<string, PartitionInfo[]>()
      topics.set(t.name, [...(topics.get(t.name) ?? []), p])
      out.set(p.leader, topics)
    }
  }
  return new Map([...out].map(([node, topics]) => [node, [...topics].map(([topic, partitions]) => ({ topic, partitions }))]))
}

/** One ListOffsets per leader; partitions that fail are left out of the map. */
async function offsetsAtLeaders(client: KafkaClient, infos: TopicInfo[], timestamp: number): Promise<Map<string, number>> {
  const out = new Map<string, number>()
  await Promise.all(
    [...byLeader(infos)].map(async ([nodeId, topics]) => {
      const res = await client.request(
        ListOffsetsRequest,
        ListOffsetsResponse,
        {
          replicaId: -1,
          isolationLevel: 0,
          topics: topics.map((t) => ({
            name: t.topic,
            partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, currentLeaderEpoch: -1, timestamp })),
          })),
          // v10+: how long a broker with tiered storage may spend on remote lookups (KIP-1075).
          timeoutMs: client.requestTimeoutMs,
        },
        { nodeId },
      )
      for (const t of res.topics) {
        for (const p of t.partitions) if (p.errorCode === 0) out.set(tp(t.name, p.partitionIndex), p.offset)
      }
    }),
  )
  return out
}

/**
 * Size of each partition's copy at its leader, from one DescribeLogDirs per leader; null when a
 * leader does not serve DescribeLogDirs or does not let us use it.
 */
async function sizesAtLeaders(client: KafkaClient, infos: TopicInfo[]): Promise<Map<string, number> | null> {
  const out = new Map<string, number>()
  let unsupported = false
  await Promise.all(
    [...byLeader(infos)].map(async ([nodeId, topics]) => {
      const dirs = await describeLogDirs(
        client,
        nodeId,
        topics.map((t) => ({ topic: t.topic, partitions: t.partitions.map((p) => p.partition) })),
      ).catch((err: unknown) => {
        // Sizes are a nicety: a broker that does not serve DescribeLogDirs, or a principal
        // without DESCRIBE on the cluster (Kafka's ACL for it), leaves them unknown.
        if (err instanceof ClientError && (err.code === 'UNSUPPORTED_VERSION' || err.code === 'CLUSTER_AUTHORIZATION_FAILED')) {
          unsupported = true
          return []
        }
        throw err
      })
      for (const d of dirs) {
        if (d.error !== null) continue
        for (const p of d.partitions) {
          if (p.isFuture) continue
          const key = tp(p.topic, p.partition)
          out.set(key, (out.get(key) ?? 0) + p.sizeBytes)
        }
      }
    }),
  )
  return unsupported ? null : out
}

export interface LogDirView {
  path: string
  error: ErrorName | null
  totalBytes: number
  usableBytes: number
  partitions: Array<{ topic: string; partition: number; sizeBytes: number; offsetLag: number; isFuture: boolean }>
}

/** One broker's log dirs (DescribeLogDirs); `topics` null asks for every partition. */
export async function describeLogDirs(
  client: KafkaClient,
  nodeId: number,
  topics: Array<{ topic: string; partitions: number[] }> | null,
): Promise<LogDirView[]> {
  const res = await client.request(DescribeLogDirsRequest, DescribeLogDirsResponse, { topics }, { nodeId })
  throwIfError(res.errorCode, `DescribeLogDirs at node ${nodeId}`)
  return res.results.map((r) => ({
    path: r.logDir,
    error: r.errorCode === 0 ? null : errorName(r.errorCode),
    totalBytes: r.totalBytes,
    usableBytes: r.usableBytes,
    partitions: r.topics.flatMap((t) =>
      t.partitions.map((p) => ({
        topic: t.name,
        partition: p.partitionIndex,
        sizeBytes: p.partitionSize,
        offsetLag: p.offsetLag,
        isFuture: p.isFutureKey,
      })),
    ),
  }))
}

/** Per topic, the configs whose source is not DEFAULT_CONFIG, sorted by name. */
async function nonDefaultConfigs(
  client: KafkaClient,
  names: string[],
): Promise<Map<string, { entries: ConfigValue[]; error: string | null }>> {
  const res = await client.request(DescribeConfigsRequest, DescribeConfigsResponse, {
    resources: names.map((resourceName) => ({ resourceType: RESOURCE_TOPIC, resourceName, configurationKeys: null })),
    includeSynonyms: false,
    includeDocumentation: false,
  })
  const out = new Map<string, { entries: ConfigValue[]; error: string | null }>()
  for (const r of res.results) {
    if (r.errorCode !== 0) {
      out.set(r.resourceName, { entries: [], error: `${errorName(r.errorCode)}${r.errorMessage ? `: ${r.errorMessage}` : ''}` })
      continue
    }
    const entries = r.configs
      .filter((c) => c.configSource !== DEFAULT_CONFIG)
      .map((c) => ({
        name: c.name,
        value: c.isSensitive ? null : c.value,
        source: CONFIG_SOURCES[c.configSource] ?? `SOURCE_${c.configSource}`,
        sensitive: c.isSensitive,
        readOnly: c.readOnly,
      }))
      .sort((a, b) => compare(a.name, b.name))
    out.set(r.resourceName, { entries, error: null })
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Cluster.

export interface ClusterDescription {
  clusterId: string | null
  /** -1 when unknown. */
  controllerId: number
  brokers: BrokerInfo[]
  /** Which API answered: DescribeCluster when the broker serves it, Metadata otherwise. */
  source: 'DescribeCluster' | 'Metadata'
}

/** Cluster id, controller and brokers (sorted by id). */
export async function describeCluster(client: KafkaClient): Promise<ClusterDescription> {
  const served = await client.version(DescribeClusterRequest, DescribeClusterResponse).then(
    () => true,
    (err: unknown) => {
      if (err instanceof ClientError && err.code === 'UNSUPPORTED_VERSION') return false
      throw err
    },
  )
  if (!served) {
    const md = await client.metadata([], { refresh: true })
    const brokers = [...md.brokers.values()].sort((a, b) => a.nodeId - b.nodeId)
    return { clusterId: md.clusterId, controllerId: md.controllerId, brokers, source: 'Metadata' }
  }
  const res = await client.request(DescribeClusterRequest, DescribeClusterResponse, {
    includeClusterAuthorizedOperations: false,
    endpointType: 1,
  })
  throwIfError(res.errorCode, 'DescribeCluster', res.errorMessage)
  const brokers = res.brokers
    .map((b) => ({ nodeId: b.brokerId, host: b.host, port: b.port, rack: b.rack }))
    .sort((a, b) => a.nodeId - b.nodeId)
  return { clusterId: res.clusterId, controllerId: res.controllerId, brokers, source: 'DescribeCluster' }
}

/** The API version ranges a broker advertised in ApiVersions, by key. */
export async function brokerApiVersions(
  client: KafkaClient,
  nodeId: number,
): Promise<Array<{ apiKey: number; minVersion: number; maxVersion: number }>> {
  const conn = await client.connection(nodeId)
  const table = conn.versions
  if (!table) throw new ClientError('NETWORK_EXCEPTION', `no ApiVersions answer from node ${nodeId}`)
  return [...table.broker].map(([apiKey, r]) => ({ apiKey, minVersion: r.min, maxVersion: r.max })).sort((a, b) => a.apiKey - b.apiKey)
}
