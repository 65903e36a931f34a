// The partitions this broker hosts, and the produce/fetch/list-offsets paths over their logs.
//
// A replica leads or follows as its partition state in the metadata store says (replica-sync.ts,
// partition.ts), on one broker as on many: client requests go to leaders only
// (NOT_LEADER_OR_FOLLOWER elsewhere), the HW moves as the ISR followers fetch (readForFollower) —
// at once when the ISR is the leader alone, as on a single broker — acks=all waits for it, and a
// leader whose registration may have lapsed takes no write.
//
// What a producer's records must satisfy before they are stored — batch headers and CRC, the
// topic's timestamp, key and compression rules, KIP-467 record errors — is one pass per batch,
// log-validator.ts; append runs it once, then hands the batches to the log, which checks the
// idempotent producers' sequences (storage/producer-state.ts) and answers a retried batch with its
// original offsets. On a LogAppendTime topic the Produce answer carries the time the batches were
// stamped with.
//
// Transactions: the broker's coordinators append with origin 'coordinator' (no sequence checks:
// the group coordinator's transactional offset commits carry none); writeTxnMarker appends a
// marker control batch (protocol/records/control-record.ts) and waits for the ISR as acks=-1 does.
// read_committed reads stop at the log's last stable offset and carry the aborted transactions
// they overlap (storage/partition-log.ts readCommitted); ListOffsets answers LATEST with the LSO.
import { KafkaError } from '../protocol/errors.js'
import { readBatchHeader } from '../protocol/records/batch.js'
import { DEFAULT_MAX_DECOMPRESSED_BYTES } from '../protocol/records/compression.js'
import { buildMarkerBatch } from '../protocol/records/control-record.js'
import type { LogConfig } from '../storage/log-config.js'
import type { LogManager } from '../storage/log-manager.js'
import { readBuffers } from '../storage/read-buffers.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { ReplicationMetrics } from '../ports/metrics.js'
import type { ActiveProducer, AppendPolicy, AppendResult, PartitionRead, ReplicaService } from '../ports/replicas.js'
import type { TxnMarker } from '../ports/transactions.js'
import { AppendWaiters } from './append-waiters.js'
import { validateRecords } from './log-validator.js'
import { Partition, partitionKey } from './partition.js'

export type { AppendPolicy, AppendResult, PartitionRead, TimestampPolicy } from '../ports/replicas.js'
export { Partition, partitionKey } from './partition.js'

const EMPTY = Buffer.alloc(0)

const CREATE_TIME_UNBOUNDED: AppendPolicy = {
  logAppendTime: false,
  beforeMaxMs: Number.MAX_SAFE_INTEGER,
  afterMaxMs: Number.MAX_SAFE_INTEGER,
}

export interface ReplicaManagerOptions {
  /** tributary.max.decompressed.batch.bytes: bound on one compressed batch's records once decompressed. */
  maxDecompressedBatchBytes?: number
  /** This broker's id (default 0). */
  nodeId?: number
  /**
   * False while this broker cannot be sure it is still registered (its etcd lease may have
   * expired): it then accepts no write as leader, since another broker may lead already.
   */
  leaseAlive?: () => boolean
  /** Whether the cluster has this partition (hosted elsewhere: NOT_LEADER_OR_FOLLOWER, not UNKNOWN). */
  partitionExists?: (topic: string, partition: number) => boolean
  /** The topic's min.insync.replicas, for the transaction markers' acks=-1 (default 1). */
  minInsyncReplicas?: (topic: string) => number
}

export class ReplicaManager implements ReplicaService {
  private readonly partitions = new Map<string, Partition>()
  readonly waiters: AppendWaiters
  /** tributary.max.decompressed.batch.bytes. */
  readonly maxDecompressedBatchBytes: number
  readonly nodeId: number
  private readonly leaseAlive: () => boolean
  private readonly partitionExists: (topic: string, partition: number) => boolean
  private readonly minInsyncReplicas: (topic: string) => number
  /** Called after a follower's fetch moved its position (the ISR may grow; replica-sync.ts listens). */
  onFollowerProgress: ((p: Partition, replicaId: number) => void) | undefined
  /** Bytes and messages in and out per topic, and ISR changes (replica-sync.ts), when the broker exports metrics. */
  metrics: ReplicationMetrics | undefined

  constructor(
    private readonly logs: LogManager,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: ReplicaManagerOptions = {},
  ) {
    this.waiters = new AppendWaiters(clock)
    this.maxDecompressedBatchBytes = options.maxDecompressedBatchBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES
    this.nodeId = options.nodeId ?? 0
    this.leaseAlive = options.leaseAlive ?? (() => true)
    this.partitionExists = options.partitionExists ?? (() => false)
    this.minInsyncReplicas = options.minInsyncReplicas ?? (() => 1)
  }

  /** Registers the logs found on disk at start-up (the controller then reconciles them with the store). */
  loadExisting(): void {
    for (const log of this.logs.all()) {
      const p = new Partition(log.topic, log.partition, log.topicId ?? '', log, this.nodeId)
      // The role comes from the partition state (replica-sync.ts); until then the replica leads
      // nothing and its HW is the checkpointed one (clamped to the recovered log, PartitionLog.open).
      // A leader whose ISR is itself alone moves it to the log end as soon as it leads.
      this.partitions.set(p.key, p)
    }
  }

  /** A topic's storage settings changed: this broker's log of the partition, if any, takes them at once. */
  updateLogConfig(topic: string, partition: number, config: LogConfig): void {
    this.get(topic, partition)?.log.updateConfig(config)
  }

  get(topic: string, partition: number): Partition | undefined {
    return this.partitions.get(partitionKey(topic, partition))
  }

  /**
   * The partition, led here, for a client's request: NOT_LEADER_OR_FOLLOWER when another broker
   * leads it (or hosts it), UNKNOWN_TOPIC_OR_PARTITION when the cluster has no such partition.
   */
  require(topic: string, partition: number): Partition {
    const p = this.partitions.get(partitionKey(topic, partition))
    if (p?.isLeader) return p
    if (p || this.partitionExists(topic, partition)) {
      throw new KafkaError('NOT_LEADER_OR_FOLLOWER', `broker ${this.nodeId} does not lead ${topic}-${partition}`)
    }
    throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
  }

  activeProducers(topic: string, partition: number): ActiveProducer[] {
    const p = this.get(topic, partition)
    if (!p) {
      if (this.partitionExists(topic, partition)) {
        throw new KafkaError('NOT_LEADER_OR_FOLLOWER', `broker ${this.nodeId} does not host ${topic}-${partition}`)
      }
      throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
    }
    return p.log.producerEntries().map((e) => ({
      producerId: e.producerId,
      producerEpoch: e.epoch,
      lastSequence: e.batches.at(-1)?.lastSeq ?? -1,
      lastTimestamp: e.lastTimestamp,
      coordinatorEpoch: e.coordinatorEpoch,
      currentTxnStartOffset: e.currentTxnFirstOffset,
    }))
  }

  /**
   * A new local replica (its log created), leading nothing until its partition state is applied
   * (replica-sync.ts); an existing one is returned as it is.
   */
  async createPartition(topic: string, index: number, topicId: string, config?: Partial<LogConfig>): Promise<Partition> {
    const existing = this.get(topic, index)
    if (existing) {
      if (existing.topicId !== topicId) throw new KafkaError('INCONSISTENT_TOPIC_ID', `${topic}-${index} belongs to another topic id`)
      return existing
    }
    const log = await this.logs.create(topic, index, topicId, config)
    const p = new Partition(topic, index, topicId, log, this.nodeId)
    this.partitions.set(p.key, p)
    return p
  }

  async deletePartition(topic: string, index: number): Promise<void> {
    const key = partitionKey(topic, index)
    const p = this.partitions.get(key)
    if (!p) return
    this.partitions.delete(key)
    p.failWaiters(new KafkaError('NOT_LEADER_OR_FOLLOWER', `${key} is no longer hosted by broker ${this.nodeId}`))
    this.waiters.notify(key)
    await this.logs.delete(topic, index)
  }

  /**
   * Validates a producer's records in one pass (log-validator.ts: batch headers and CRC, the
   * topic's timestamp, key and compression rules) and appends what it returns. The log assigns the
   * offsets; the high watermark moves to the new log end and long-polling fetches wake.
   */
  async append(p: Partition, records: Buffer, maxBatchBytes: number, policy: AppendPolicy = CREATE_TIME_UNBOUNDED): Promise<AppendResult> {
    this.checkWritable(p)
    const acksAll = policy.acks === -1
    const minIsr = policy.minInsyncReplicas ?? 1
    if (acksAll) checkIsr(p, minIsr, 'NOT_ENOUGH_REPLICAS')
    const now = this.clock.now()
    const coordinator = policy.origin === 'coordinator'
    const valid = validateRecords(records, policy, {
      partition: `${p.topic}-${p.index}`,
      maxBatchBytes,
      maxDecompressedBytes: this.maxDecompressedBatchBytes,
      now,
      coordinator,
    })
    const info = await p.log.append(valid.records, valid.batches, p.leaderEpoch, { origin: coordinator ? 'coordinator' : 'client' })
    if (!info.duplicate) {
      p.maybeAdvanceHighWatermark()
      this.waiters.notify(p.key)
      if (this.metrics) {
        // Kafka's MessagesInPerSec counts records: the batch headers say how many, per batch.
        let messages = 0
        for (const b of valid.batches) messages += b.recordCount
        this.metrics.appended(p.topic, valid.records.length, messages)
      }
    }
    if (acksAll) {
      await p.waitForHighWatermark(info.lastOffset + 1, policy.timeoutMs ?? 30_000, this.clock)
      checkIsr(p, minIsr, 'NOT_ENOUGH_REPLICAS_AFTER_APPEND')
    }
    // A producer's retry of a batch already in the log (storage/producer-state.ts): a success with
    // the original offsets and, as Kafka's UnifiedLog answers it, the original batch's timestamp.
    // acks=all above waited for that batch to be committed.
    return {
      baseOffset: info.baseOffset,
      logAppendTimeMs: info.duplicate || !policy.logAppendTime ? info.logAppendTimeMs : now,
      logStartOffset: p.log.logStartOffset,
    }
  }

  /** The replica leads and may write (its registration is alive), else NOT_LEADER_OR_FOLLOWER. */
  private checkWritable(p: Partition): void {
    if (!p.isLeader || !this.leaseAlive()) {
      throw new KafkaError(
        'NOT_LEADER_OR_FOLLOWER',
        `broker ${this.nodeId} does not lead ${p.key}${p.isLeader ? ' (its cluster registration may have expired)' : ''}`,
      )
    }
  }

  /**
   * Whole batches from fetchOffset, bounded by maxBytes (at least one batch when minOneBatch) and
   * the HW — the LSO for readCommitted, with the aborted transactions the batches overlap.
   */
  async read(p: Partition, fetchOffset: number, maxBytes: number, minOneBatch: boolean, readCommitted = false): Promise<PartitionRead> {
    const hw = p.log.highWatermark
    if (readCommitted) {
      const res = await p.log.readCommitted(fetchOffset, maxBytes, minOneBatch)
      this.metrics?.readByConsumer(p.topic, res.records.length)
      return {
        records: res.records,
        highWatermark: hw,
        lastStableOffset: res.lastStableOffset,
        logStartOffset: p.log.logStartOffset,
        abortedTransactions: res.abortedTransactions.map((t) => ({ producerId: t.producerId, firstOffset: t.firstOffset })),
        release: releaser(res.records),
      }
    }
    const lso = p.log.lastStableOffset
    const res = await p.log.read(fetchOffset, maxBytes, hw, minOneBatch)
    this.metrics?.readByConsumer(p.topic, res.records.length)
    return {
      records: res.records,
      highWatermark: hw,
      lastStableOffset: lso,
      logStartOffset: p.log.logStartOffset,
      abortedTransactions: null,
      release: releaser(res.records),
    }
  }

  /**
   * A follower's fetch (leader only): records where the follower is, which may advance the high
   * watermark (waking acks=all appends and consumers), then reads up to the log end — followers
   * copy what the leader has, committed or not. The answer carries the HW after the update.
   */
  async readForFollower(p: Partition, replicaId: number, fetchOffset: number, maxBytes: number): Promise<PartitionRead> {
    // A position outside the log is not the follower's progress (Kafka skips it when the read fails).
    if (fetchOffset < p.log.logStartOffset || fetchOffset > p.log.logEndOffset) {
      throw new KafkaError(
        'OFFSET_OUT_OF_RANGE',
        `offset ${fetchOffset} is outside [${p.log.logStartOffset}, ${p.log.logEndOffset}] of ${p.key}`,
      )
    }
    p.recordFollowerFetch(replicaId, fetchOffset, this.clock.monotonic())
    if (p.maybeAdvanceHighWatermark()) this.waiters.notify(p.key)
    this.onFollowerProgress?.(p, replicaId)
    const records = maxBytes > 0 ? (await p.log.read(fetchOffset, maxBytes, Number.MAX_SAFE_INTEGER, true)).records : EMPTY
    this.metrics?.readByFollower(p.topic, records.length)
    return {
      records,
      highWatermark: p.log.highWatermark,
      lastStableOffset: p.log.lastStableOffset,
      logStartOffset: p.log.logStartOffset,
      abortedTransactions: null,
      release: releaser(records),
    }
  }

  /**
   * ListOffsets for one partition. Special timestamps: -2 earliest, -1 latest (the HW; the LSO for
   * read_committed), -3 the record with the largest timestamp (KIP-734),
   * -4 earliest local (KIP-405; no tiered storage, so the log start), -5 latest tiered (KIP-1005)
   * and -6 earliest pending upload (KIP-1023): with nothing tiered there is no such offset, and
   * the answer is -1, as Kafka's UnifiedLog gives for a topic without remote storage. As Kafka's
   * Partition.fetchOffsetForTimestamp, a record found by timestamp counts only below the last
   * fetchable offset — the HW, the LSO for read_committed (which bounds -3 too).
   */
  async listOffset(p: Partition, timestamp: number, readCommitted = false): Promise<{ offset: number; timestamp: number }> {
    const lastFetchable = readCommitted ? p.log.lastStableOffset : p.log.highWatermark
    const none = { offset: -1, timestamp: -1 }
    switch (timestamp) {
      case -2:
      case -4:
        return { offset: p.log.logStartOffset, timestamp: -1 }
      case -1:
        return { offset: lastFetchable, timestamp: -1 }
      case -5:
      case -6:
        return none
      case -3: {
        const found = await p.log.maxTimestampAndOffset()
        if (!found || (readCommitted && found.offset >= lastFetchable)) return none
        return found
      }
      default: {
        if (timestamp < 0) throw new KafkaError('INVALID_REQUEST', `unsupported ListOffsets timestamp ${timestamp}`)
        const found = await p.log.offsetForTimestamp(timestamp)
        if (!found || found.offset >= lastFetchable) return none
        return found
      }
    }
  }

  /**
   * DeleteRecords on the leader (Kafka's Partition.deleteRecordsOnLeader): -1 means the high
   * watermark; a negative offset or one above the HW is OFFSET_OUT_OF_RANGE. Moves the log start
   * offset, removes the segments wholly below it, and returns the low watermark (on a single node,
   * the log start offset). The caller checks the topic's cleanup.policy.
   */
  async deleteRecords(p: Partition, offset: number, fileDeleteDelayMs: number): Promise<number> {
    const hw = p.log.highWatermark
    const target = offset === -1 ? hw : offset
    if (target < 0 || target > hw) {
      throw new KafkaError(
        'OFFSET_OUT_OF_RANGE',
        `cannot delete records of ${p.topic}-${p.index} before ${offset}: the high watermark is ${hw}`,
      )
    }
    return this.logs.deleteRecords(p.log, target, fileDeleteDelayMs)
  }

  /**
   * Appends a transaction marker on the leader (Kafka's WriteTxnMarkers path: origin coordinator,
   * acks=-1): the producer state checks its epochs (INVALID_PRODUCER_EPOCH,
   * TRANSACTION_COORDINATOR_FENCED) and ends the producer's transaction; resolves once the ISR has
   * it. NOT_ENOUGH_REPLICAS below the topic's min.insync.replicas, REQUEST_TIMED_OUT after timeoutMs.
   */
  async writeTxnMarker(p: Partition, marker: TxnMarker, timeoutMs: number): Promise<void> {
    this.checkWritable(p)
    const minIsr = this.minInsyncReplicas(p.topic)
    checkIsr(p, minIsr, 'NOT_ENOUGH_REPLICAS')
    const records = buildMarkerBatch({
      producerId: marker.producerId,
      producerEpoch: marker.producerEpoch,
      coordinatorEpoch: marker.coordinatorEpoch,
      commit: marker.commit,
      timestamp: this.clock.now(),
    })
    const info = await p.log.append(records, [readBatchHeader(records, 0)], p.leaderEpoch, {
      origin: 'coordinator',
      transactionVersion: marker.transactionVersion,
    })
    p.maybeAdvanceHighWatermark()
    this.waiters.notify(p.key)
    await p.waitForHighWatermark(info.lastOffset + 1, timeoutMs, this.clock)
    checkIsr(p, minIsr, 'NOT_ENOUGH_REPLICAS_AFTER_APPEND')
  }

  hasOngoingTransaction(p: Partition, producerId: number, producerEpoch: number): boolean {
    return p.log.hasOngoingTransaction(producerId, producerEpoch)
  }

  startTxnVerification(p: Partition, producerId: number, baseSequence: number, producerEpoch: number, supportsEpochBump: boolean): boolean {
    const needed = p.log.startTxnVerification(producerId, baseSequence, producerEpoch, supportsEpochBump)
    // Not open at this epoch, and an open one is never of a newer epoch (refused above): an older one.
    if (needed && supportsEpochBump && p.log.hasOngoingTransaction(producerId)) {
      throw new KafkaError('NOT_ENOUGH_REPLICAS', `the previous transaction of producer ${producerId} is still completing in ${p.key}`)
    }
    return needed
  }

  all(): Iterable<Partition> {
    return this.partitions.values()
  }

  async close(): Promise<void> {
    this.logger.debug('closing logs', { partitions: this.partitions.size })
    await this.logs.close()
  }
}

/** acks=-1's rule: the ISR must hold at least min.insync.replicas replicas. */
function checkIsr(p: Partition, minIsr: number, code: 'NOT_ENOUGH_REPLICAS' | 'NOT_ENOUGH_REPLICAS_AFTER_APPEND'): void {
  if (p.isr.length >= minIsr) return
  throw new KafkaError(
    code,
    `The size of the current ISR [${p.isr.join(', ')}] is insufficient to satisfy the min.isr requirement of ${minIsr} for partition ${p.key}`,
  )
}

/** Gives a read's pooled buffer back once (readBuffers ignores what it did not hand out). */
function releaser(records: Buffer): () => void {
  let done = false
  return () => {
    if (done) return
    done = true
    readBuffers.release(records)
  }
}
