// The MetadataStore port: the cluster metadata every broker agrees on — the cluster id, the topics
// (name, id, partition count, replication factor, topic-level config overrides, replica
// assignment), each partition's state (replicas, ISR, leader, epochs), the dynamic broker configs
// (KIP-226: per broker, and the cluster-wide default), the group configs (KIP-848/KIP-932: per group
// id) and the producer-id allocator. Two
// implementations: LocalMetadataStore (one broker, journaled to its data dir) and the etcd store
// (several brokers). A single broker is a cluster of one: both stores hold the same records and
// tell the same change events, so replica sync, leader election and coordinator ownership run one
// path on one node and on many. Reads are synchronous from an in-memory image; every write
// resolves only once it is durable, and listeners hear of it before the write's promise settles
// (for this broker's own writes) or once the change arrives (for another broker's).
//
// Contract every implementation keeps:
// - topic names and topic ids are unique; a deleted topic's id is never given to another topic;
// - a topic id never changes while the topic exists, across restarts included;
// - partitions only grow (updateTopic refuses fewer: INVALID_PARTITIONS);
// - producer-id blocks never overlap, across restarts included;
// - failures map to Kafka error codes (KafkaError): TOPIC_ALREADY_EXISTS,
//   UNKNOWN_TOPIC_OR_PARTITION, INVALID_PARTITIONS, INVALID_REQUEST; a failed write leaves the
//   image unchanged.

import { KafkaError } from '../protocol/errors.js'

export interface TopicRecord {
  name: string
  /** Kafka Uuid as base64url, 22 chars, like Kafka's Uuid.toString(). */
  topicId: string
  partitions: number
  replicationFactor: number
  /** Topic-level overrides only (the broker config supplies the rest). */
  configs: Record<string, string>
  createdMs: number
  /**
   * Each partition's replicas as placed at creation (first = preferred leader). A partition's
   * current state (partitionState) starts from it.
   */
  assignment?: readonly (readonly number[])[]
}

/**
 * Where a partition's replicas live and who leads it (Kafka's PartitionRegistration); the rules
 * both stores keep are in partition-states.ts.
 */
export interface PartitionState {
  /** Replica broker ids; the first is the preferred leader. During a reassignment: target ∪ old. */
  readonly replicas: readonly number[]
  /** The in-sync replicas (a subset of replicas; includes the leader while there is one). */
  readonly isr: readonly number[]
  /** The leader's broker id; -1 while no replica can lead. */
  readonly leader: number
  /** Grows with every change of leader. */
  readonly leaderEpoch: number
  /** Grows with every change of this record (leader, ISR, replicas). */
  readonly partitionEpoch: number
  /** A reassignment in progress: the replicas being added and those to remove once it completes. */
  readonly addingReplicas: readonly number[]
  readonly removingReplicas: readonly number[]
}

/** A partition state change: the state it was computed from and the new one (its partitionEpoch is ignored). */
export interface PartitionChange {
  topic: string
  partition: number
  expected: PartitionState
  next: Omit<PartitionState, 'partitionEpoch'>
}

export type NewTopic = Omit<TopicRecord, 'topicId' | 'createdMs'> & {
  topicId?: string
  /** One replica list per partition (first = preferred leader). */
  assignment?: number[][]
}

/** What changed in the image, for the parts of a broker that follow the metadata. */
export type StoreChange =
  | { kind: 'topic'; name: string }
  | { kind: 'partition'; topic: string; partition: number }
  | { kind: 'brokerConfigs'; resourceName: string }
  | { kind: 'groupConfigs'; groupId: string }
  | { kind: 'security'; entry: SecurityEntryKind; key: string }

/**
 * The kinds of security metadata (ACL bindings, SCRAM credentials, client quotas). The store keeps
 * them as opaque texts by kind and key; the security layer owns their encoding, and never stores a
 * secret in clear (SCRAM keeps salted keys only).
 */
export const SECURITY_ENTRY_KINDS = ['acl', 'scram', 'quota'] as const
export type SecurityEntryKind = (typeof SECURITY_ENTRY_KINDS)[number]

export interface MetadataStore {
  clusterId(): string
  listTopics(): TopicRecord[]
  getTopic(name: string): TopicRecord | undefined
  getTopicById(id: string): TopicRecord | undefined
  /** Throws KafkaError TOPIC_ALREADY_EXISTS if the name (or the given id) is taken. */
  createTopic(t: NewTopic): Promise<TopicRecord>
  /** Throws KafkaError UNKNOWN_TOPIC_OR_PARTITION if absent. */
  deleteTopic(name: string): Promise<void>
  /**
   * Raises the partition count and/or replaces the whole override map (`configs` is the new set,
   * not a diff). Throws UNKNOWN_TOPIC_OR_PARTITION, or INVALID_PARTITIONS when partitions shrink.
   */
  updateTopic(
    name: string,
    patch: Partial<Pick<TopicRecord, 'partitions' | 'configs'>> & { newAssignment?: number[][] },
  ): Promise<TopicRecord>
  /** The partition's replicas, leader and ISR; undefined when the topic or partition does not exist. */
  partitionState(topic: string, partition: number): PartitionState | undefined
  /**
   * Applies a partition state change if the partition still has the state it was computed from
   * (compare-and-swap on the partition epoch): a stale leader or controller cannot overwrite a newer
   * decision. Throws INVALID_UPDATE_VERSION when the state moved on, FENCED_LEADER_EPOCH when the
   * leader epoch did, UNKNOWN_TOPIC_OR_PARTITION when it is gone; resolves with the stored state.
   */
  alterPartition(change: PartitionChange): Promise<PartitionState>
  /** Called after every change of the image (see the header for when). */
  onChange(listener: (change: StoreChange) => void): void
  /**
   * Dynamic broker configs (KIP-226) of one resource: "" is the cluster-wide default, a node id
   * (as text) that broker's own. Values are canonical texts, already validated. {} when none.
   */
  getBrokerConfigs(resourceName: string): Readonly<Record<string, string>>
  /** Replaces the whole dynamic config set of a resource (an empty set removes it). */
  setBrokerConfigs(resourceName: string, configs: Readonly<Record<string, string>>): Promise<void>
  /**
   * Group configs of one group id (GROUP resources of DescribeConfigs / IncrementalAlterConfigs):
   * canonical texts, already validated. {} when none.
   */
  getGroupConfigs(groupId: string): Readonly<Record<string, string>>
  /** Replaces the whole config set of a group (an empty set removes it); INVALID_REQUEST for the empty id. */
  setGroupConfigs(groupId: string, configs: Readonly<Record<string, string>>): Promise<void>
  /** The security entries of one kind: key → value text. Empty when none. */
  getSecurityEntries(kind: SecurityEntryKind): ReadonlyMap<string, string>
  /**
   * Sets (a text) or removes (null) entries of one kind, all in one durable write; listeners hear
   * one 'security' change per key set or removed (removing an absent key is no change). Last
   * writer wins per key. INVALID_REQUEST for an empty key.
   */
  setSecurityEntries(kind: SecurityEntryKind, entries: Readonly<Record<string, string | null>>): Promise<void>
  /** Durable allocation: producer ids in [start, start + size) are never handed out again. */
  nextProducerIdBlock(size: number): Promise<{ start: number; size: number }>
  close(): Promise<void>
}

/** Both stores' rule for a topic's counts: INVALID_PARTITIONS / INVALID_REPLICATION_FACTOR below 1. */
export function checkCounts(partitions: number, replicationFactor: number): void {
  if (!Number.isSafeInteger(partitions) || partitions < 1) {
    throw new KafkaError('INVALID_PARTITIONS', `Number of partitions must be larger than 0, not ${partitions}.`)
  }
  if (!Number.isSafeInteger(replicationFactor) || replicationFactor < 1) {
    throw new KafkaError('INVALID_REPLICATION_FACTOR', `Replication factor must be larger than 0, not ${replicationFactor}.`)
  }
}

/** Records handed out by the stores are frozen (callers may cache per record object). */
/** Both stores' checks of a group config write. */
export function checkGroupConfigs(groupId: string, configs: Readonly<Record<string, string>>): void {
  if (groupId === '') throw new KafkaError('INVALID_REQUEST', 'Group config resource name must not be empty')
  if (Object.values(configs).some((v) => typeof v !== 'string'))
    throw new KafkaError('INVALID_REQUEST', 'Group config values must be strings')
}

/** Both stores' checks of a security entry write. */
export function checkSecurityEntries(kind: string, entries: Readonly<Record<string, string | null>>): void {
  if (!(SECURITY_ENTRY_KINDS as readonly string[]).includes(kind)) {
    throw new KafkaError('INVALID_REQUEST', `unknown security entry kind ${JSON.stringify(kind)}`)
  }
  for (const [key, value] of Object.entries(entries)) {
    if (key === '') throw new KafkaError('INVALID_REQUEST', 'A security entry key must not be empty')
    if (value !== null && typeof value !== 'string') throw new KafkaError('INVALID_REQUEST', 'Security entry values must be strings')
  }
}

export function freezeTopic(t: TopicRecord): TopicRecord {
  Object.freeze(t.configs)
  return Object.freeze(t)
}
