// The port between the group coordinator (membership, offsets; pure logic on a Clock) and where
// groups and committed offsets are kept durably. The broker's implementation writes them to the
// internal topic `__consumer_offsets` and replays it at start-up (offsets-topic.ts); tests use an
// in-memory one.
//
// Contract: a store* call resolves only once the write is durable (acknowledged by the log); the
// coordinator answers the client after that. load() replays in write order, so the last record
// for a key wins, and a null value (tombstone) removes the key. loadPartition() does the same for
// the groups of one partition (partitionFor), for a coordinator that owns only some partitions.

export interface MemberSnapshot {
  memberId: string
  groupInstanceId: string | null
  clientId: string
  clientHost: string
  rebalanceTimeoutMs: number
  sessionTimeoutMs: number
  /** The member's metadata for the group's selected protocol (the subscription, for consumers). */
  subscription: Buffer
  /** What the leader assigned to this member in the last completed rebalance. */
  assignment: Buffer
}

export interface GroupSnapshot {
  protocolType: string
  generationId: number
  /** The selected protocol (assignor), null when the group is empty. */
  protocolName: string | null
  leaderId: string | null
  currentStateTimestampMs: number
  members: MemberSnapshot[]
}

export interface CommittedOffset {
  offset: number
  /** -1 when unknown. */
  leaderEpoch: number
  metadata: string | null
  commitTimestampMs: number
  /** -1: expires by offsets.retention.minutes once the group is empty. */
  expireTimestampMs: number
}

export interface OffsetEntry {
  topic: string
  partition: number
  /** null deletes the committed offset (OffsetDelete, DeleteGroups, expiry). */
  value: CommittedOffset | null
}

export interface GroupPersistence {
  /** The __consumer_offsets partition that holds this group (Kafka: abs(hash(groupId)) % partitions). */
  partitionFor(groupId: string): number
  /** Durably records the group after a rebalance completes, or null when the group is deleted. */
  storeGroup(groupId: string, snapshot: GroupSnapshot | null): Promise<void>
  /** Durably records committed offsets (and tombstones). */
  storeOffsets(groupId: string, entries: OffsetEntry[]): Promise<void>
  /** Replays everything stored, in write order (a single node: every partition). */
  load(sink: LoadSink): Promise<void>
  /**
   * Replays one partition, in write order: what a coordinator elected for that partition loads
   * (a cluster). Rejects when the partition cannot be read here.
   */
  loadPartition(partition: number, sink: LoadSink): Promise<unknown>
}

/** Receives the replayed records: the last one per key wins, null removes. */
export interface LoadSink {
  group(groupId: string, snapshot: GroupSnapshot | null): void
  offset(groupId: string, topic: string, partition: number, value: CommittedOffset | null): void
}

/**
 * Java's String.hashCode over UTF-16 code units, as Kafka uses to place a group:
 * Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions.
 */
export function javaStringHash(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0
  return h
}

export function partitionForGroup(groupId: string, partitions: number): number {
  const h = javaStringHash(groupId)
  // Kafka's Utils.abs maps Integer.MIN_VALUE to 0 rather than overflowing.
  const abs = h === -2147483648 ? 0 : Math.abs(h)
  return abs % partitions
}
