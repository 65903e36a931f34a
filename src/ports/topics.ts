// The TopicService port: the topics as the handlers and the group coordinator see them — look-ups,
// creation and deletion, partition states, effective configs. cluster/controller.ts implements it
// over the metadata store.
import type { TopicConfigValues } from '../config/config-defs.js'
import type { PartitionState, TopicRecord } from './metadata-store.js'

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
  /** The partition's replicas, ISR, leader and leader epoch; undefined when it does not exist. */
  partitionState(topic: string, partition: number): PartitionState | undefined
  /** The topic's effective configuration (its overrides, else the broker-derived defaults). */
  effectiveConfig(topic: TopicRecord): TopicConfigValues
  /**
   * Replaces the topic's override set with `change(current)`, validated as a whole (INVALID_CONFIG
   * naming the key), persisted and applied to the live logs unless validateOnly. Changes of one
   * topic run one at a time. UNKNOWN_TOPIC_OR_PARTITION when the topic does not exist.
   */
  alterTopicConfigs(
    name: string,
    change: (current: Readonly<Record<string, string>>) => Record<string, string>,
    validateOnly: boolean,
  ): Promise<TopicRecord>
  /**
   * Raises the topic's partition count to `count` (CreatePartitions): INVALID_PARTITIONS unless it
   * grows, INVALID_REPLICA_ASSIGNMENT for assignments that are not one replica list per new
   * partition on live brokers. Creates the new logs, then records the count.
   */
  createPartitions(name: string, count: number, assignments: number[][] | null, validateOnly: boolean): Promise<void>
}
