// The ReplicaService port: the partitions this broker hosts, as the produce, fetch, list-offsets,
// delete-records and offset-for-leader-epoch handlers and the group coordinator use them.
// replication/replica-manager.ts implements it; its Partition and AppendWaiters classes satisfy
// HostedReplica and AppendWaiting by their shape, so this file needs nothing from replication/.
//
// Transactions (Kafka's semantics): the last stable offset (LSO) is the first offset of the oldest
// transaction still open in the log, or the high watermark when that is lower; read_committed
// consumers read up to it and drop the records of the aborted transactions the read reports.
import type { TxnMarker } from './transactions.js'

/** The topic's message.timestamp.* rules (log-validator.ts applies them). */
export interface TimestampPolicy {
  /** message.timestamp.type=LogAppendTime: the broker stamps each batch. */
  logAppendTime: boolean
  /** message.timestamp.before.max.ms (MAX_SAFE_INTEGER or more: no bound). */
  beforeMaxMs: number
  /** message.timestamp.after.max.ms (MAX_SAFE_INTEGER or more: no bound). */
  afterMaxMs: number
}

/** The topic's and the request's rules a producer's records are validated against. */
export interface RecordPolicy extends TimestampPolicy {
  /** The topic's compression.type (`producer` when omitted: keep the producer's bytes). */
  compressionType?: string
  /** The level of the codec compression.type names (compression.gzip.level / compression.zstd.level); omitted: the codec's default. */
  compressionLevel?: number
  /** The Produce request's version (zstd needs v7+); omitted for the broker's own appends. */
  produceVersion?: number
  /** cleanup.policy includes compact: a record without a key is INVALID_RECORD. */
  requireKeys?: boolean
}

/** What the produce path applies to a batch before storing it (log-validator.ts) and how the append is acknowledged. */
export interface AppendPolicy extends RecordPolicy {
  /** The Produce request's acks; -1 waits for the ISR (default 1). */
  acks?: number
  /** The topic's min.insync.replicas (acks=-1 only). */
  minInsyncReplicas?: number
  /** How long acks=-1 waits for the ISR (the Produce request's timeout). */
  timeoutMs?: number
  /**
   * Who writes (default 'client'). 'coordinator': the broker's own coordinator writes a batch with
   * a producer id (the group coordinator's transactional offset commits, baseSequence -1): its
   * sequence is not checked, but its transactional state is tracked as a client's.
   */
  origin?: 'client' | 'coordinator'
}

export interface AppendResult {
  baseOffset: number
  logAppendTimeMs: number
  logStartOffset: number
}

/** A transaction aborted in the log: its producer and the first offset of its records. */
export interface AbortedTransaction {
  producerId: number
  firstOffset: number
}

export interface PartitionRead {
  records: Buffer
  highWatermark: number
  /** The LSO when the read started (Fetch's last_stable_offset, for every isolation level). */
  lastStableOffset: number
  logStartOffset: number
  /**
   * A committed read: the aborted transactions whose records overlap the read's offsets, by first
   * offset (a consumer drops their records); null for an uncommitted read.
   */
  abortedTransactions: AbortedTransaction[] | null
  /**
   * Gives the read's buffer back (it may be pooled) once nothing refers to `records` any more —
   * after the socket has taken the response that carries them. Safe to call more than once.
   */
  release(): void
}

/** The key of a topic-partition in maps and wait lists (':' cannot appear in a topic name). */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}:${partition}`
}

/** The offsets of a hosted replica's log, and the reads the coordinator and the handlers make of it. */
export interface ReplicaLogView {
  readonly logStartOffset: number
  readonly logEndOffset: number
  readonly highWatermark: number
  /** min(first offset of the oldest open transaction, high watermark). */
  readonly lastStableOffset: number
  /** OffsetForLeaderEpoch: the largest epoch ≤ the one asked for and where it ends. */
  endOffsetForEpoch(requestedEpoch: number): { epoch: number; endOffset: number }
  /** Whole batches from startOffset, below maxOffset (the group coordinator loads its partitions so). */
  read(startOffset: number, maxBytes: number, maxOffset: number, minOneBatch: boolean): Promise<{ records: Buffer }>
}

/** One partition replica hosted here, as the port's callers see it. */
export interface HostedReplica {
  readonly topic: string
  readonly index: number
  readonly leaderEpoch: number
  readonly log: ReplicaLogView
  /** FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH when the client's view of the leader is stale or ahead (-1: unchecked). */
  checkLeaderEpoch(currentLeaderEpoch: number): void
}

/** One idempotent producer's state in a replica's log, as DescribeProducers reports it (Kafka's UnifiedLog.activeProducers). */
export interface ActiveProducer {
  producerId: number
  producerEpoch: number
  /** The last sequence of its last retained batch; -1: none. */
  lastSequence: number
  lastTimestamp: number
  coordinatorEpoch: number
  /** First offset of its open transaction; -1: none. */
  currentTxnStartOffset: number
}

/** Where a fetch waits for new data on some partitions (keyed by partitionKey). */
export interface AppendWaiting {
  /** True when woken by an append to one of the keys (or `changed` reports one already), false after timeoutMs or on abort. */
  wait(keys: string[], timeoutMs: number, signal?: AbortSignal, changed?: () => boolean): Promise<boolean>
}

export interface ReplicaService {
  get(topic: string, partition: number): HostedReplica | undefined
  require(topic: string, partition: number): HostedReplica
  /** `timestamps`: the topic's message.timestamp.* policy (CreateTime without bounds when omitted). */
  append(p: HostedReplica, records: Buffer, maxBatchBytes: number, policy?: AppendPolicy): Promise<AppendResult>
  /**
   * A consumer's read, up to the HW; readCommitted (isolation_level 1): up to the LSO, with the
   * aborted transactions overlapping [fetchOffset, end of the read).
   */
  read(p: HostedReplica, fetchOffset: number, maxBytes: number, minOneBatch: boolean, readCommitted?: boolean): Promise<PartitionRead>
  /** A follower's fetch on the leader: records its position, reads up to the log end. */
  readForFollower(p: HostedReplica, replicaId: number, fetchOffset: number, maxBytes: number): Promise<PartitionRead>
  /** ListOffsets; readCommitted: LATEST is the LSO and a timestamp lookup answers nothing at or above it. */
  listOffset(p: HostedReplica, timestamp: number, readCommitted?: boolean): Promise<{ offset: number; timestamp: number }>
  /** DeleteRecords: moves the log start up to offset (-1 = HW); resolves with the low watermark. */
  deleteRecords(p: HostedReplica, offset: number, fileDeleteDelayMs: number): Promise<number>
  /**
   * DescribeProducers: the producers in this broker's replica of the partition, leader or follower
   * (Kafka's ReplicaManager.activeProducerState). NOT_LEADER_OR_FOLLOWER when the partition exists
   * but is not hosted here, UNKNOWN_TOPIC_OR_PARTITION when the cluster has no such partition.
   */
  activeProducers(topic: string, partition: number): ActiveProducer[]
  /**
   * Writes a transaction marker (leader only, else NOT_LEADER_OR_FOLLOWER): one control batch with
   * the marker's producer id and epoch, acknowledged as acks=-1 — resolves once the in-sync
   * replicas have it (NOT_ENOUGH_REPLICAS below the topic's min.insync.replicas, REQUEST_TIMED_OUT
   * after timeoutMs). A marker older than the producer's epoch is INVALID_PRODUCER_EPOCH, one from
   * an older coordinator epoch TRANSACTION_COORDINATOR_FENCED (Kafka's ProducerAppendInfo).
   */
  writeTxnMarker(p: HostedReplica, marker: TxnMarker, timeoutMs: number): Promise<void>
  /**
   * The producer has a transaction open in this replica's log at that epoch (Kafka's
   * UnifiedLog.hasOngoingTransaction: one of an older epoch may be over at the coordinator, so a
   * batch of a newer epoch is verified).
   */
  hasOngoingTransaction(p: HostedReplica, producerId: number, producerEpoch: number): boolean
  /**
   * Before the produce path asks the coordinator about a transactional batch (Kafka's
   * maybeStartTransactionVerification): false when its producer's transaction of its epoch is
   * open in the partition already (nothing to verify); else the log records the verification —
   * until the producer's first transactional batch is written, a batch of it at a higher sequence
   * than this one is OUT_OF_ORDER_SEQUENCE_NUMBER (storage/producer-state.ts) — and true is
   * returned. INVALID_PRODUCER_EPOCH when the epoch is below the producer's; with
   * supportsEpochBump (Produce v12+, transactions v2) NOT_ENOUGH_REPLICAS while a transaction of
   * an older epoch is still open there (its marker not written yet, KAFKA-18575), to be retried.
   */
  startTxnVerification(
    p: HostedReplica,
    producerId: number,
    baseSequence: number,
    producerEpoch: number,
    supportsEpochBump: boolean,
  ): boolean
  readonly waiters: AppendWaiting
}
