// The ports handlers call. The broker's composition root (broker/broker.ts) provides them;
// handlers never import concrete services, so tests can hand them fakes.
import type { TopicConfigValues } from '../broker/config-defs.js'
import type { TopicRecord } from '../cluster/metadata-store.js'
import type { Partition, PartitionRead, AppendResult } from '../replication/replica-manager.js'
import type { AppendWaiters } from '../replication/append-waiters.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'

export interface BrokerEndpoint {
  nodeId: number
  host: string
  port: number
  rack: string | null
}

export interface TopicSpec {
  name: string
  /** -1 = the broker's num.partitions */
  numPartitions: number
  /** -1 = the broker's default.replication.factor */
  replicationFactor: number
  assignments: Array<{ partitionIndex: number; brokerIds: number[] }>
  configs: Array<{ name: string; value: string | null }>
}

export interface TopicService {
  get(name: string): TopicRecord | undefined
  getById(topicId: string): TopicRecord | undefined
  list(): TopicRecord[]
  /** Validates and (unless validateOnly) creates; throws KafkaError with the precise code. */
  create(spec: TopicSpec, validateOnly: boolean): Promise<TopicRecord>
  delete(name: string): Promise<void>
  /**
   * The topic, created with the broker defaults if it is missing and auto.create.topics.enable
   * allows it (and `allowed` — the client's allow_auto_topic_creation); undefined otherwise.
   * Throws INVALID_TOPIC_EXCEPTION for an illegal name.
   */
  getOrAutoCreate(name: string, allowed: boolean): Promise<TopicRecord | undefined>
  /** The topic's effective configuration (its overrides, else the broker-derived defaults). */
  effectiveConfig(topic: TopicRecord): TopicConfigValues
}

export interface ReplicaService {
  get(topic: string, partition: number): Partition | undefined
  require(topic: string, partition: number): Partition
  append(p: Partition, records: Buffer, maxBatchBytes: number): Promise<AppendResult>
  read(p: Partition, fetchOffset: number, maxBytes: number, minOneBatch: boolean): Promise<PartitionRead>
  listOffset(p: Partition, timestamp: number): Promise<{ offset: number; timestamp: number }>
  readonly waiters: AppendWaiters
}

export interface ProducerIdService {
  /** A new producer id with epoch 0 (for a producer without a transactional id). */
  initProducerId(): Promise<{ producerId: number; producerEpoch: number }>
}

export interface ConfigEntry {
  name: string
  value: string | null
  readOnly: boolean
  /** Kafka's ConfigSource: 1 topic, 2 dynamic broker, 3 dynamic default broker, 4 static broker, 5 default. */
  source: number
  isSensitive: boolean
  /** Kafka's ConfigType: 1 boolean, 2 string, 3 int, 4 short, 5 long, 6 double, 7 list, 8 class, 9 password. */
  type: number
  documentation: string | null
  synonyms: Array<{ name: string; value: string | null; source: number }>
}

export interface ConfigService {
  /** Every config of the topic (or only `keys`), with sources and synonyms. */
  describeTopic(topic: TopicRecord, keys: string[] | null): ConfigEntry[]
  /** Every config of this broker (or only `keys`). */
  describeBroker(keys: string[] | null): ConfigEntry[]
}

export interface BrokerSettings {
  messageMaxBytes: number
  fetchMaxBytes: number
  autoCreateTopics: boolean
  deleteTopicEnable: boolean
}

export interface BrokerServices {
  readonly nodeId: number
  readonly clusterId: string
  readonly clock: Clock
  readonly logger: Logger
  readonly settings: BrokerSettings
  /** The brokers as advertised on the given listener (clients must reconnect to that one). */
  brokers(listenerName: string): BrokerEndpoint[]
  readonly topics: TopicService
  readonly replicas: ReplicaService
  readonly producerIds: ProducerIdService
  readonly configs: ConfigService
}
