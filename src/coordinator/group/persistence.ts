// The port between the group coordinator (membership, offsets; pure logic on a Clock) and where
// groups and committed offsets are kept durably. The broker's implementation writes them to the
// internal topic `__consumer_offsets` and replays it at start-up (offsets-topic.ts); tests use an
// in-memory one.
//
// Contract: a store* call resolves only once the write is durable (acknowledged by the log); the
// coordinator answers the client after that. load() replays in write order, so the last record
// for a key wins, and a null value (tombstone) removes the key. loadPartition() does the same for
// the groups of one partition (partitionFor), for a coordinator that owns only some partitions.
//
// Transactional offsets (TxnOffsetCommit): storeTxnOffsets writes them as one transactional batch
// of the producer; the transaction's marker (a control batch written by the transaction
// coordinator, not through this port) later commits or aborts every transactional offset of that
// producer in the partition. The replay hands them over in the same order: txnOffset() for each
// pending offset, txnMarker() where the marker is, so the sink keeps them pending per producer
// until then. Each replayed offset carries its record's offset in the log: when a marker commits
// a transactional offset, it replaces the committed one only if it was written later (Kafka's
// OffsetMetadataManager.replayEndTransactionMarker compares the records' offsets), so a plain
// commit written after the transactional one but before the marker wins.

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
  /**
   * In memory only (not encoded): the offset of the record in `__consumer_offsets` (-1 or absent:
   * unknown, older than any other), which orders it against transactional commits.
   */
  recordOffset?: number
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
  /**
   * Durably records committed offsets (and tombstones), as one batch. Resolves with the log
   * offset of the first entry's record (entry i is at that + i; -1 when unknown).
   */
  storeOffsets(groupId: string, entries: OffsetEntry[]): Promise<number>
  /**
   * Durably records offsets committed inside the producer's transaction: one transactional batch
   * (producer id and epoch, base sequence -1) that stays pending until the transaction's marker.
   * Resolves as storeOffsets; rejects with the log's producer errors (INVALID_PRODUCER_EPOCH, …)
   * as they are.
   */
  storeTxnOffsets(groupId: string, producer: TxnProducer, entries: OffsetEntry[]): Promise<number>
  /**
   * Durably records a consumer-protocol group's changes (KIP-848): Kafka's ConsumerGroup* records
   * (consumer/records.ts: key and value bytes, null value a tombstone), as one batch in order.
   */
  storeConsumerGroupRecords(groupId: string, records: readonly RawGroupRecord[]): Promise<void>
  /** Replays everything stored, in write order (a single node: every partition). */
  load(sink: LoadSink): Promise<void>
  /**
   * Replays one partition, in write order: what a coordinator elected for that partition loads
   * (a cluster). Rejects when the partition cannot be read here.
   */
  loadPartition(partition: number, sink: LoadSink): Promise<unknown>
  /**
   * Durably records share group records (coordinator/group/share/records.ts: Kafka's ShareGroup*
   * keys and values, a null value a tombstone) as one batch in the group's partition. Absent:
   * share groups live in memory only.
   */
  storeShareGroupRecords?(groupId: string, records: ReadonlyArray<{ key: Buffer; value: Buffer | null }>): Promise<void>
}

export interface TxnProducer {
  producerId: number
  producerEpoch: number
}

/** A record of `__consumer_offsets` as bytes (a consumer-protocol group's; null value: a tombstone). */
export interface RawGroupRecord {
  key: Buffer
  value: Buffer | null
}

/** Receives the replayed records: the last one per key wins, null removes. */
export interface LoadSink {
  group(groupId: string, snapshot: GroupSnapshot | null): void
  /** A committed offset, or a tombstone (which also removes the partition's pending transactional offsets). */
  offset(groupId: string, topic: string, partition: number, value: CommittedOffset | null, recordOffset: number): void
  /** An offset committed inside producerId's transaction: pending until its marker. */
  txnOffset(producerId: number, groupId: string, topic: string, partition: number, value: CommittedOffset, recordOffset: number): void
  /** producerId's transaction ended in this partition: its pending offsets are committed or dropped. */
  txnMarker(producerId: number, commit: boolean): void
  /** A share group record (storeShareGroupRecords), in log order. */
  shareGroupRecord?(key: Buffer, value: Buffer | null): void
  /** A consumer-protocol group's record (storeConsumerGroupRecords), in log order. */
  consumerGroupRecord?(groupId: string, record: RawGroupRecord): void
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
