// The controller: creates and deletes topics, adds partitions and changes topic configs. It
// validates a request the way Kafka's controller does, places the replicas on the live brokers
// and records the change in the MetadataStore, the source of truth. The replicas themselves follow
// the store on every broker, this one included (ReplicaSync, replica-sync.ts): the controller
// never creates or removes a log itself, so one broker and many run the same path. A creation
// answers once this broker's own replicas of the new partitions are in place (`replicasApplied`),
// so a client that produces right after creating a topic on a single broker finds it led.
//
// Config changes take effect without a restart, as in Kafka: a topic's new overrides, or new
// dynamic broker defaults (updateBrokerConfig), are applied to its live partition logs at once
// (segment size and age, index sizes, flush policy); the rest of a topic's effective config
// (max.message.bytes, message.timestamp.*, retention) is read from effectiveConfig() at each use.
//
// Crash safety follows from the order: the store first, then the logs. A crash in between leaves
// a topic whose logs ReplicaSync creates at the next start, or logs of a deleted topic that it
// removes.
import type { BrokerConfig } from '../config/config.js'
import type { TopicConfigValues } from '../config/config-defs.js'
import { resolveTopicConfig, validateTopicConfigs } from '../config/topic-config.js'
import type { TopicService, TopicSpec } from '../ports/topics.js'
import { KafkaError } from '../protocol/errors.js'
import { ZERO_UUID } from '../protocol/primitives/uuid.js'
import type { LogConfig } from '../storage/log-config.js'
import type { Logger } from '../util/logger.js'
import type { MetadataStore, PartitionState, TopicRecord } from '../ports/metadata-store.js'
import { assignReplicas, type PlacementBroker } from './placement.js'
import { INTERNAL_TOPICS, unifyCollisionChars, validateTopicName } from './topic-names.js'

/** Kafka's Long.MAX_VALUE ("never") arrives as MAX_SAFE_INTEGER; the storage layer says Infinity. */
const never = (n: number) => (n >= Number.MAX_SAFE_INTEGER ? Number.POSITIVE_INFINITY : n)

/** The storage settings implied by a topic's effective configuration. */
export function logConfigOf(c: TopicConfigValues): LogConfig {
  return {
    segmentBytes: c['segment.bytes'],
    segmentMs: c['segment.ms'],
    indexIntervalBytes: c['index.interval.bytes'],
    maxIndexSizeBytes: c['segment.index.bytes'],
    flushIntervalMessages: never(c['flush.messages']),
    flushIntervalMs: never(c['flush.ms']),
  }
}

/** Where a topic's storage settings go when they change: this broker's logs of that partition, if any. */
export interface LogConfigTarget {
  updateLogConfig(topic: string, partition: number, config: LogConfig): void
}

/** Kafka's limit on partitions per topic is the int32 range; we refuse absurd counts up front. */
const MAX_PARTITIONS = 100_000

export class Controller implements TopicService {
  /** Effective configs, cached per (immutable) topic record; dropped when the broker config changes. */
  private effective = new WeakMap<TopicRecord, TopicConfigValues>()
  /**
   * Creations and deletions of one topic name run one at a time, in call order: a delete never
   * overlaps a re-creation of the same name, and concurrent auto-creations find the first one's
   * topic instead of racing it.
   */
  private readonly locks = new Map<string, Promise<unknown>>()

  constructor(
    private readonly store: MetadataStore,
    private readonly logs: LogConfigTarget,
    private config: BrokerConfig,
    private readonly logger: Logger,
    /** The live brokers replicas are placed on. */
    private readonly liveBrokers: () => readonly PlacementBroker[],
    /** Resolves once this broker's replicas of the topic match the store (ReplicaSync). */
    private readonly replicasApplied: (topic: string) => Promise<void> = async () => {},
  ) {}

  get(name: string): TopicRecord | undefined {
    return this.store.getTopic(name)
  }

  /**
   * New broker-level defaults (dynamic broker configs): every topic's effective config is computed
   * again and the live logs pick up the storage settings at once.
   */
  updateBrokerConfig(config: BrokerConfig): void {
    this.config = config
    this.effective = new WeakMap()
    for (const t of this.store.listTopics()) this.applyLogConfig(t)
  }

  private applyLogConfig(topic: TopicRecord): void {
    const logConfig = this.logConfigOf(topic)
    for (let i = 0; i < topic.partitions; i++) this.logs.updateLogConfig(topic.name, i, logConfig)
  }

  partitionState(topic: string, partition: number): PartitionState | undefined {
    return this.store.partitionState(topic, partition)
  }

  getById(topicId: string): TopicRecord | undefined {
    return this.store.getTopicById(topicId)
  }

  list(): TopicRecord[] {
    return this.store.listTopics()
  }

  /** The topic's effective configuration: its overrides over the broker-derived defaults. */
  effectiveConfig(topic: TopicRecord): TopicConfigValues {
    let c = this.effective.get(topic)
    if (!c) {
      c = resolveTopicConfig(this.config, topic.configs)
      this.effective.set(topic, c)
    }
    return c
  }

  logConfigOf(topic: TopicRecord): LogConfig {
    return logConfigOf(this.effectiveConfig(topic))
  }

  create(spec: TopicSpec, validateOnly: boolean): Promise<TopicRecord> {
    validateTopicName(spec.name)
    return this.withTopicLock(spec.name, () => this.createLocked(spec, validateOnly))
  }

  private withTopicLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(name) ?? Promise.resolve()
    const run = prev.then(fn)
    const tail = run.catch(() => {})
    this.locks.set(name, tail)
    void tail.then(() => {
      if (this.locks.get(name) === tail) this.locks.delete(name)
    })
    return run
  }

  private async createLocked(spec: TopicSpec, validateOnly: boolean): Promise<TopicRecord> {
    if (this.store.getTopic(spec.name)) throw new KafkaError('TOPIC_ALREADY_EXISTS', `Topic '${spec.name}' already exists.`)
    const unified = unifyCollisionChars(spec.name)
    const clash = this.store.listTopics().find((t) => unifyCollisionChars(t.name) === unified)
    if (clash) {
      throw new KafkaError('INVALID_TOPIC_EXCEPTION', `Topic '${spec.name}' collides with existing topic: ${clash.name}`)
    }

    let partitions: number
    let replicationFactor: number
    if (spec.assignments.length > 0) {
      if (spec.numPartitions !== -1 || spec.replicationFactor !== -1) {
        throw new KafkaError(
          'INVALID_REQUEST',
          'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.',
        )
      }
      const indexes = spec.assignments.map((a) => a.partitionIndex).sort((a, b) => a - b)
      if (indexes.some((p, i) => p !== i)) {
        throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', 'Partitions should be a consecutive 0-based integer sequence')
      }
      replicationFactor = spec.assignments[0]!.brokerIds.length
      for (const a of spec.assignments) {
        if (a.brokerIds.length === 0 || a.brokerIds.length !== replicationFactor || new Set(a.brokerIds).size !== a.brokerIds.length) {
          throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `Invalid replica assignment for partition ${a.partitionIndex}: ${a.brokerIds}`)
        }
        const live = new Set(this.liveBrokers().map((b) => b.id))
        const unknown = a.brokerIds.find((b) => !live.has(b))
        if (unknown !== undefined) {
          throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `Unknown broker ${unknown} in the assignment of partition ${a.partitionIndex}`)
        }
      }
      partitions = spec.assignments.length
    } else {
      partitions = spec.numPartitions === -1 ? this.config.get('num.partitions') : spec.numPartitions
      replicationFactor = spec.replicationFactor === -1 ? this.config.get('default.replication.factor') : spec.replicationFactor
      if (partitions <= 0) throw new KafkaError('INVALID_PARTITIONS', 'Number of partitions must be larger than 0.')
      if (partitions > MAX_PARTITIONS) throw new KafkaError('INVALID_PARTITIONS', `Number of partitions must be at most ${MAX_PARTITIONS}.`)
      if (replicationFactor <= 0) throw new KafkaError('INVALID_REPLICATION_FACTOR', 'Replication factor must be larger than 0.')
      const brokers = this.liveBrokers().length
      if (replicationFactor > brokers) {
        throw new KafkaError(
          'INVALID_REPLICATION_FACTOR',
          `Unable to replicate the partition ${replicationFactor} time(s): The target replication factor of ${replicationFactor} cannot be reached because only ${brokers} broker(s) are registered.`,
        )
      }
    }

    const raw: Record<string, string> = {}
    for (const c of spec.configs) {
      if (c.value === null) throw new KafkaError('INVALID_CONFIG', `Null value not supported for topic config ${c.name}`)
      raw[c.name] = c.value
    }
    const configs = validateTopicConfigs(raw, this.config)

    if (validateOnly) {
      // Nothing is created, so there is no id yet: Kafka answers with the zero Uuid.
      return { name: spec.name, topicId: ZERO_UUID, partitions, replicationFactor, configs, createdMs: 0 }
    }
    const assignment =
      spec.assignments.length > 0
        ? [...spec.assignments].sort((a, b) => a.partitionIndex - b.partitionIndex).map((a) => a.brokerIds)
        : assignReplicas(this.liveBrokers(), partitions, replicationFactor)
    const topic = await this.store.createTopic({ name: spec.name, partitions, replicationFactor, configs, assignment })
    this.logger.info('created topic', { topic: spec.name, partitions, replicationFactor, topicId: topic.topicId })
    await this.replicasApplied(spec.name)
    return topic
  }

  async getOrAutoCreate(name: string, allowed: boolean): Promise<TopicRecord | undefined> {
    const existing = this.store.getTopic(name)
    if (existing) return existing
    validateTopicName(name)
    // Internal topics are created by their coordinators, with their own partition counts and
    // compaction, never as ordinary auto-created topics.
    if (!allowed || !this.config.get('auto.create.topics.enable') || INTERNAL_TOPICS.has(name)) return undefined
    return this.withTopicLock(name, async () => {
      const now = this.store.getTopic(name)
      if (now) return now // created by whoever held the lock before us
      const spec = { name, numPartitions: -1, replicationFactor: -1, assignments: [], configs: [] }
      return this.createLocked(spec, false)
    })
  }

  alterTopicConfigs(
    name: string,
    change: (current: Readonly<Record<string, string>>) => Record<string, string>,
    validateOnly: boolean,
  ): Promise<TopicRecord> {
    return this.withTopicLock(name, async () => {
      const t = this.store.getTopic(name)
      if (!t) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `The topic '${name}' does not exist.`)
      const configs = validateTopicConfigs(change(t.configs), this.config)
      if (validateOnly) return { ...t, configs }
      const updated = await this.store.updateTopic(name, { configs })
      this.applyLogConfig(updated)
      this.logger.info('altered topic configs', { topic: name, configs })
      return updated
    })
  }

  createPartitions(name: string, count: number, assignments: number[][] | null, validateOnly: boolean): Promise<void> {
    return this.withTopicLock(name, async () => {
      const t = this.store.getTopic(name)
      if (!t) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
      // Kafka's ReplicationControlManager wording.
      if (count < t.partitions) {
        throw new KafkaError(
          'INVALID_PARTITIONS',
          `The topic ${name} currently has ${t.partitions} partition(s); ${count} would not be an increase.`,
        )
      }
      if (count === t.partitions) throw new KafkaError('INVALID_PARTITIONS', `Topic already has ${t.partitions} partition(s).`)
      if (count > MAX_PARTITIONS) throw new KafkaError('INVALID_PARTITIONS', `Number of partitions must be at most ${MAX_PARTITIONS}.`)
      if (assignments !== null) this.checkNewAssignments(t, count, assignments)
      if (validateOnly) return
      const newAssignment =
        assignments ??
        assignReplicas(this.liveBrokers(), count - t.partitions, t.replicationFactor, {
          startPartition: t.partitions,
          ...(t.assignment ? { existing: t.assignment } : {}),
        })
      await this.store.updateTopic(name, { partitions: count, newAssignment })
      this.logger.info('added partitions', { topic: name, from: t.partitions, to: count })
      await this.replicasApplied(name)
    })
  }

  /** One replica list per new partition, of registered brokers (Kafka's checks and wording). */
  private checkNewAssignments(t: TopicRecord, count: number, assignments: number[][]): void {
    const adding = count - t.partitions
    if (assignments.length !== adding) {
      throw new KafkaError(
        'INVALID_REPLICA_ASSIGNMENT',
        `Attempted to add ${adding} additional partition(s), but only ${assignments.length} assignment(s) were specified.`,
      )
    }
    for (const replicas of assignments) {
      if (replicas.length === 0)
        throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', 'The manual partition assignment includes an empty replica list.')
      const seen = new Set<number>()
      for (const b of replicas) {
        if (seen.has(b))
          throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `The manual partition assignment includes the broker ${b} more than once.`)
        seen.add(b)
        if (!this.liveBrokers().some((x) => x.id === b)) {
          throw new KafkaError(
            'INVALID_REPLICA_ASSIGNMENT',
            `The manual partition assignment includes broker ${b}, but no such broker is registered.`,
          )
        }
      }
      if (replicas.length !== t.replicationFactor) {
        throw new KafkaError(
          'INVALID_REPLICA_ASSIGNMENT',
          `The manual partition assignment includes a partition with ${replicas.length} replica(s), but this is not consistent with previous partitions, which have ${t.replicationFactor} replica(s).`,
        )
      }
    }
  }

  delete(name: string): Promise<void> {
    return this.withTopicLock(name, async () => {
      const t = this.store.getTopic(name)
      if (!t) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
      // The store first: from here the topic is gone for clients; every broker then removes its
      // logs (a crash before that leaves orphans that the next start removes).
      await this.store.deleteTopic(name)
      this.logger.info('deleted topic', { topic: name, topicId: t.topicId })
      await this.replicasApplied(name)
    })
  }
}
