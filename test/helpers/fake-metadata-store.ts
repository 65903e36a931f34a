// An in-memory MetadataStore (src/ports/metadata-store.ts) for replication and election unit
// tests: topics with an assignment, partition states, and alterPartition with the compare-and-swap
// the etcd store applies (leader epoch first → FENCED_LEADER_EPOCH, then partition epoch →
// INVALID_UPDATE_VERSION, a stored state gets partitionEpoch + 1). Every alterPartition attempt is
// recorded; a test can make a write wait (hold), let another write land first (beforeAlter: a
// race), and change states behind a broker's back (setState with notify: false: a watch that lags).
// Listeners (onChange) hear about each change, as the etcd store's watch tells the broker.
import type { MetadataStore, NewTopic, PartitionChange, PartitionState, TopicRecord } from '../../src/ports/metadata-store.js'
import { KafkaError } from '../../src/protocol/errors.js'

export type FakeStoreChange = { kind: 'topic'; name: string } | { kind: 'partition'; topic: string; partition: number }

export interface AlterAttempt {
  change: PartitionChange
  /** The stored state after the attempt, or the error name it failed with. */
  outcome: PartitionState | string
}

let nextId = 1

/** A Kafka Uuid (base64url, 22 chars) distinct per call. */
export function fakeTopicId(): string {
  const b = Buffer.alloc(16)
  b.writeUInt32BE(nextId++, 12)
  return b.toString('base64url')
}

export function stateOf(s: Partial<PartitionState> & { replicas: readonly number[] }): PartitionState {
  return Object.freeze({
    replicas: s.replicas,
    isr: s.isr ?? s.replicas,
    leader: s.leader ?? s.replicas[0]!,
    leaderEpoch: s.leaderEpoch ?? 0,
    partitionEpoch: s.partitionEpoch ?? 0,
    addingReplicas: s.addingReplicas ?? [],
    removingReplicas: s.removingReplicas ?? [],
  })
}

export class FakeMetadataStore implements MetadataStore {
  readonly distributed = true
  readonly attempts: AlterAttempt[] = []
  /** Runs once per alterPartition, before the compare-and-swap (another writer got there first). */
  beforeAlter: ((change: PartitionChange) => void) | undefined
  /** While set, alterPartition waits for it before doing anything. */
  hold: Promise<void> | undefined
  private readonly topics = new Map<string, TopicRecord>()
  private readonly states = new Map<string, PartitionState>()
  private readonly listeners: Array<(c: FakeStoreChange) => void> = []

  onChange(listener: (c: FakeStoreChange) => void): void {
    this.listeners.push(listener)
  }

  private tell(c: FakeStoreChange): void {
    for (const l of this.listeners) l(c)
  }

  /** A topic whose partition i starts as stateOf(states[i] ?? {replicas: assignment[i]}). */
  addTopic(name: string, assignment: number[][], states: Array<Partial<PartitionState>> = []): TopicRecord {
    const t: TopicRecord = Object.freeze({
      name,
      topicId: fakeTopicId(),
      partitions: assignment.length,
      replicationFactor: assignment[0]?.length ?? 1,
      configs: {},
      createdMs: 0,
      assignment,
    })
    this.topics.set(name, t)
    assignment.forEach((replicas, i) => {
      this.states.set(`${name}:${i}`, stateOf({ replicas, ...states[i] }))
    })
    this.tell({ kind: 'topic', name })
    return t
  }

  /** A write by someone else (a controller): partitionEpoch + 1; listeners hear of it unless notify is false. */
  setState(topic: string, partition: number, patch: Partial<Omit<PartitionState, 'partitionEpoch'>>, notify = true): PartitionState {
    const cur = this.partitionState(topic, partition)
    if (!cur) throw new Error(`no partition ${topic}-${partition}`)
    const next = stateOf({ ...cur, ...patch, partitionEpoch: cur.partitionEpoch + 1 })
    this.states.set(`${topic}:${partition}`, next)
    if (notify) this.tell({ kind: 'partition', topic, partition })
    return next
  }

  clusterId(): string {
    return 'fake-cluster'
  }

  listTopics(): TopicRecord[] {
    return [...this.topics.values()]
  }

  getTopic(name: string): TopicRecord | undefined {
    return this.topics.get(name)
  }

  getTopicById(id: string): TopicRecord | undefined {
    return [...this.topics.values()].find((t) => t.topicId === id)
  }

  async createTopic(t: NewTopic): Promise<TopicRecord> {
    return this.addTopic(t.name, t.assignment ?? Array.from({ length: t.partitions }, () => [0]))
  }

  async deleteTopic(name: string): Promise<void> {
    const t = this.topics.get(name)
    if (!t) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
    this.topics.delete(name)
    for (let i = 0; i < t.partitions; i++) this.states.delete(`${name}:${i}`)
    this.tell({ kind: 'topic', name })
  }

  async updateTopic(): Promise<TopicRecord> {
    throw new Error('FakeMetadataStore.updateTopic is not used by these tests')
  }

  partitionState(topic: string, partition: number): PartitionState | undefined {
    return this.topics.has(topic) ? this.states.get(`${topic}:${partition}`) : undefined
  }

  async alterPartition(change: PartitionChange): Promise<PartitionState> {
    if (this.hold) await this.hold
    this.beforeAlter?.(change)
    const attempt: AlterAttempt = { change, outcome: '' }
    this.attempts.push(attempt)
    const current = this.partitionState(change.topic, change.partition)
    let err: KafkaError | undefined
    if (!current) err = new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
    else if (current.leaderEpoch !== change.expected.leaderEpoch) err = new KafkaError('FENCED_LEADER_EPOCH')
    else if (current.partitionEpoch !== change.expected.partitionEpoch) err = new KafkaError('INVALID_UPDATE_VERSION')
    if (err || !current) {
      attempt.outcome = err?.errorName ?? 'UNKNOWN_TOPIC_OR_PARTITION'
      throw err
    }
    // next.partitionEpoch, if the writer left one in, is ignored: the store numbers its states.
    const stored = stateOf({ ...change.next, partitionEpoch: current.partitionEpoch + 1 })
    this.states.set(`${change.topic}:${change.partition}`, stored)
    attempt.outcome = stored
    this.tell({ kind: 'partition', topic: change.topic, partition: change.partition })
    return stored
  }

  getBrokerConfigs(): Readonly<Record<string, string>> {
    return {}
  }

  async setBrokerConfigs(): Promise<void> {}

  getGroupConfigs(): Readonly<Record<string, string>> {
    return {}
  }

  async setGroupConfigs(): Promise<void> {}

  getSecurityEntries(): ReadonlyMap<string, string> {
    return new Map()
  }

  async setSecurityEntries(): Promise<void> {}

  async nextProducerIdBlock(size: number): Promise<{ start: number; size: number }> {
    return { start: 0, size }
  }

  async close(): Promise<void> {}
}
