// The partitions this broker hosts, and the produce/fetch/list-offsets paths over their logs.
//
// A replica leads or follows as its partition state in the metadata store says (replica-sync.ts,
// partition.ts), on one broker as on many: client requests go to leaders only
// (NOT_LEADER_OR_FOLLOWER elsewhere), the HW moves as the ISR followers fetch (readForFollower) —
// at once when the ISR is the leader alone, as on a single broker — acks=all waits for it, and a
// leader whose registration may have lapsed takes no write.
//
// Timestamps (Kafka's LogValidator, KIP-32 and KIP-937): a producer may not send a batch marked
// LogAppendTime (INVALID_TIMESTAMP). On a LogAppendTime topic each batch gets the broker's clock as
// its maxTimestamp and the LogAppendTime attribute bit (CRC recomputed), and the Produce answer
// carries that time. On a CreateTime topic with message.timestamp.before/after.max.ms bounds, a
// record timestamp outside [now - before, now + after] is INVALID_TIMESTAMP: every record of an
// uncompressed batch is checked; a compressed batch by the smallest and largest record timestamps
// found when its records were walked (which is the same as checking every record).
//
// Record errors (KIP-467): a batch refused for some of its records — out of those bounds, or
// without a key on a compacted topic — is refused with a RecordValidationError that names each of
// them (record-errors.ts); the Produce handler answers with them as record_errors.
//
// Compression (Kafka's LogValidator): a compressed batch is decompressed — bounded by
// tributary.max.decompressed.batch.bytes, so a compression bomb is refused with INVALID_RECORD
// rather than followed — and its records walked (count, offset deltas, structure) before anything is
// stored. With the topic's compression.type `producer`, or naming the batch's own codec, the batch is
// stored as the producer sent it. A compression.type naming another codec, or `uncompressed`, makes
// the broker rebuild the batch with that codec (same records, header fields and timestamps; new
// length and CRC), after which the batch must still fit max.message.bytes (MESSAGE_TOO_LARGE).
import { KafkaError } from '../protocol/errors.js'
import {
  type BatchHeader,
  CompressionType,
  NO_TIMESTAMP,
  type ProducedBatch,
  readBatchHeader,
  setLogAppendTime,
  TimestampType,
  validateProducedBatches,
} from '../protocol/records/batch.js'
import { recompressBatch } from '../protocol/records/builder.js'
import { codecByName, DEFAULT_MAX_DECOMPRESSED_BYTES } from '../protocol/records/compression.js'
import { iterateRecords } from '../protocol/records/iterator.js'
import type { LogConfig } from '../storage/log-config.js'
import type { LogManager } from '../storage/log-manager.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import { AppendWaiters } from './append-waiters.js'
import { Partition, partitionKey } from './partition.js'
import { type RecordRules, recordValidationError } from './record-errors.js'

export { Partition, partitionKey } from './partition.js'

/** A topic's message.timestamp.* settings, as the produce path applies them. */
export interface TimestampPolicy {
  /** message.timestamp.type=LogAppendTime: the broker stamps each batch. */
  logAppendTime: boolean
  /** message.timestamp.before.max.ms (MAX_SAFE_INTEGER or more: no bound). */
  beforeMaxMs: number
  /** message.timestamp.after.max.ms (MAX_SAFE_INTEGER or more: no bound). */
  afterMaxMs: number
}

/** What the produce path applies to a batch before storing it: the topic's timestamp and compression settings. */
export interface AppendPolicy extends TimestampPolicy {
  /** The topic's compression.type (`producer` when omitted: keep the producer's bytes). */
  compressionType?: string
  /** The level of the codec compression.type names (compression.gzip.level / compression.zstd.level); omitted: the codec's default. */
  compressionLevel?: number
  /** The Produce request's version (zstd needs v7+); omitted for the broker's own appends. */
  produceVersion?: number
  /** cleanup.policy includes compact: a record without a key is INVALID_RECORD (Kafka's LogValidator). */
  requireKeys?: boolean
  /** The Produce request's acks; -1 waits for the ISR (default 1). */
  acks?: number
  /** The topic's min.insync.replicas (acks=-1 only). */
  minInsyncReplicas?: number
  /** How long acks=-1 waits for the ISR (the Produce request's timeout). */
  timeoutMs?: number
}

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
}

export interface AppendResult {
  baseOffset: number
  logAppendTimeMs: number
  logStartOffset: number
}

export interface PartitionRead {
  records: Buffer
  highWatermark: number
  logStartOffset: number
}

export class ReplicaManager {
  private readonly partitions = new Map<string, Partition>()
  readonly waiters: AppendWaiters
  /** tributary.max.decompressed.batch.bytes. */
  readonly maxDecompressedBatchBytes: number
  readonly nodeId: number
  private readonly leaseAlive: () => boolean
  private readonly partitionExists: (topic: string, partition: number) => boolean
  /** Called after a follower's fetch moved its position (the ISR may grow; replica-sync.ts listens). */
  onFollowerProgress: ((p: Partition, replicaId: number) => void) | undefined

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
  }

  /** Registers the logs found on disk at start-up (the controller then reconciles them with the store). */
  loadExisting(): void {
    for (const log of this.logs.all()) {
      const p = new Partition(log.topic, log.partition, log.topicId ?? '', log, this.nodeId)
      // The role comes from the partition state (replica-sync.ts); until then the replica leads
      // nothing and its HW is the checkpointed one (clamped to the recovered log). A leader whose
      // ISR is itself alone moves it to the log end as soon as it leads.
      p.leaderId = -1
      log.highWatermark = this.logs.checkpointedHighWatermark(log) ?? log.logStartOffset
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

  /**
   * Creates the partition's log, or returns the one hosted. On a single node the replica leads at
   * once, its HW the log end; a cluster's replica (`leader: false`) gets its role from the partition
   * state (replica-sync.ts) and keeps its HW at the log start until the leader tells it more.
   */
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
    p.leaderId = -1
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
   * Validates a producer's records (v2 batches, CRC, size, compressed records, timestamps), applies
   * the topic's compression.type, and appends them. `timestamps` may be an AppendPolicy carrying the
   * compression settings too. The log assigns the offsets; the high watermark moves to the new log
   * end and long-polling fetches wake.
   */
  async append(
    p: Partition,
    records: Buffer,
    maxBatchBytes: number,
    timestamps: AppendPolicy = CREATE_TIME_UNBOUNDED,
  ): Promise<AppendResult> {
    if (!p.isLeader || !this.leaseAlive()) {
      throw new KafkaError('NOT_LEADER_OR_FOLLOWER', `broker ${this.nodeId} does not lead ${p.key}${p.isLeader ? ' (its cluster registration may have expired)' : ''}`)
    }
    const acksAll = timestamps.acks === -1
    const minIsr = timestamps.minInsyncReplicas ?? 1
    if (acksAll && p.isr.length < minIsr) {
      throw new KafkaError(
        'NOT_ENOUGH_REPLICAS',
        `The size of the current ISR [${p.isr.join(', ')}] is insufficient to satisfy the min.isr requirement of ${minIsr} for partition ${p.key}`,
      )
    }
    const maxDecompressedBytes = this.maxDecompressedBatchBytes
    let batches: BatchHeader[] = validateProducedBatches(records, {
      maxBatchBytes,
      maxDecompressedBytes,
      ...(timestamps.produceVersion === undefined ? {} : { produceVersion: timestamps.produceVersion }),
    })
    const now = this.clock.now()
    const keyRules: KeyRules = { partition: `${p.topic}-${p.index}`, requireKeys: timestamps.requireKeys === true, maxDecompressedBytes }
    applyTimestampPolicy(records, batches, timestamps, now, keyRules)
    if (keyRules.requireKeys) requireKeys(records, batches, keyRules)
    ;({ records, batches } = applyCompressionPolicy(records, batches, timestamps, maxBatchBytes, maxDecompressedBytes))
    const info = await p.log.append(records, batches, p.leaderEpoch)
    p.maybeAdvanceHighWatermark()
    this.waiters.notify(p.key)
    if (acksAll) {
      await p.waitForHighWatermark(info.lastOffset + 1, timestamps.timeoutMs ?? 30_000, this.clock)
      if (p.isr.length < minIsr) {
        throw new KafkaError(
          'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
          `The size of the current ISR [${p.isr.join(', ')}] is insufficient to satisfy the min.isr requirement of ${minIsr} for partition ${p.key}`,
        )
      }
    }
    return {
      baseOffset: info.baseOffset,
      logAppendTimeMs: timestamps.logAppendTime ? now : info.logAppendTimeMs,
      logStartOffset: p.log.logStartOffset,
    }
  }

  /** Whole batches from fetchOffset, bounded by maxBytes (at least one batch when minOneBatch) and the HW. */
  async read(p: Partition, fetchOffset: number, maxBytes: number, minOneBatch: boolean): Promise<PartitionRead> {
    const hw = p.log.highWatermark
    const res = await p.log.read(fetchOffset, maxBytes, hw, minOneBatch)
    return { records: res.records, highWatermark: hw, logStartOffset: p.log.logStartOffset }
  }

  /**
   * A follower's fetch (leader only): records where the follower is, which may advance the high
   * watermark (waking acks=all appends and consumers), then reads up to the log end — followers
   * copy what the leader has, committed or not. The answer carries the HW after the update.
   */
  async readForFollower(p: Partition, replicaId: number, fetchOffset: number, maxBytes: number): Promise<PartitionRead> {
    // A position outside the log is not the follower's progress (Kafka skips it when the read fails).
    if (fetchOffset < p.log.logStartOffset || fetchOffset > p.log.logEndOffset) {
      throw new KafkaError('OFFSET_OUT_OF_RANGE', `offset ${fetchOffset} is outside [${p.log.logStartOffset}, ${p.log.logEndOffset}] of ${p.key}`)
    }
    p.recordFollowerFetch(replicaId, fetchOffset, this.clock.monotonic())
    if (p.maybeAdvanceHighWatermark()) this.waiters.notify(p.key)
    this.onFollowerProgress?.(p, replicaId)
    const records = maxBytes > 0 ? (await p.log.read(fetchOffset, maxBytes, Number.MAX_SAFE_INTEGER, true)).records : EMPTY
    return { records, highWatermark: p.log.highWatermark, logStartOffset: p.log.logStartOffset }
  }

  /**
   * ListOffsets for one partition. Special timestamps: -2 earliest, -1 latest (the HW; there are
   * no transactions yet, so the LSO equals it), -3 the record with the largest timestamp (KIP-734),
   * -4 earliest local (KIP-405; no tiered storage, so the log start), -5 latest tiered (KIP-1005)
   * and -6 earliest pending upload (KIP-1023): with nothing tiered there is no such offset, and
   * the answer is -1, as Kafka's UnifiedLog gives for a topic without remote storage.
   */
  async listOffset(p: Partition, timestamp: number): Promise<{ offset: number; timestamp: number }> {
    switch (timestamp) {
      case -2:
      case -4:
        return { offset: p.log.logStartOffset, timestamp: -1 }
      case -1:
        return { offset: p.log.highWatermark, timestamp: -1 }
      case -5:
      case -6:
        return { offset: -1, timestamp: -1 }
      case -3:
        return (await p.log.maxTimestampAndOffset()) ?? { offset: -1, timestamp: -1 }
      default: {
        if (timestamp < 0) throw new KafkaError('INVALID_REQUEST', `unsupported ListOffsets timestamp ${timestamp}`)
        const found = await p.log.offsetForTimestamp(timestamp)
        if (!found || found.offset >= p.log.highWatermark) return { offset: -1, timestamp: -1 }
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
      throw new KafkaError('OFFSET_OUT_OF_RANGE', `cannot delete records of ${p.topic}-${p.index} before ${offset}: the high watermark is ${hw}`)
    }
    return this.logs.deleteRecords(p.log, target, fileDeleteDelayMs)
  }

  all(): Iterable<Partition> {
    return this.partitions.values()
  }

  async close(): Promise<void> {
    this.logger.debug('closing logs', { partitions: this.partitions.size })
    await this.logs.close()
  }
}

/** What a batch's records are checked against besides the timestamp bounds (see record-errors.ts). */
export type KeyRules = Omit<RecordRules, 'timestampBounds'>

const NO_KEY_RULE: KeyRules = { partition: '', requireKeys: false, maxDecompressedBytes: DEFAULT_MAX_DECOMPRESSED_BYTES }

/**
 * See the header comment: refuse client-set LogAppendTime, stamp LogAppendTime, check CreateTime
 * bounds. A batch with a record out of bounds is refused with a RecordValidationError naming every
 * offending record of it (keyRules: so that a keyless record of a compacted topic is named as Kafka
 * names it, the key rule first).
 */
export function applyTimestampPolicy(
  records: Buffer,
  batches: BatchHeader[],
  policy: TimestampPolicy,
  now: number,
  keyRules: KeyRules = NO_KEY_RULE,
): void {
  for (const b of batches) {
    if (b.timestampType === TimestampType.LogAppendTime) {
      throw new KafkaError('INVALID_TIMESTAMP', 'Invalid timestamp type in batch: producers must not set LogAppendTime')
    }
  }
  if (policy.logAppendTime) {
    for (const b of batches) setLogAppendTime(records, b, now)
    return
  }
  const bounded = policy.beforeMaxMs < Number.MAX_SAFE_INTEGER || policy.afterMaxMs < Number.MAX_SAFE_INTEGER
  if (!bounded) return
  const timestampBounds = { earliest: now - policy.beforeMaxMs, latest: now + policy.afterMaxMs }
  const ok = (timestamp: number) =>
    timestamp === NO_TIMESTAMP || (timestamp >= timestampBounds.earliest && timestamp <= timestampBounds.latest)
  const refuse = (b: BatchHeader) => recordValidationError(records, b, { ...keyRules, timestampBounds })
  for (const b of batches as ProducedBatch[]) {
    if (b.compression === CompressionType.None) {
      for (const r of iterateRecords(records, b.position)) if (!ok(r.timestamp)) throw refuse(b)
    } else if (b.records) {
      if (!ok(b.records.minTimestamp) || !ok(b.records.maxTimestamp)) throw refuse(b)
    } else if (!ok(b.baseTimestamp) || !ok(b.maxTimestamp)) {
      // Headers alone (a caller that did not walk the compressed records): no record to name.
      const t = ok(b.baseTimestamp) ? b.maxTimestamp : b.baseTimestamp
      throw new KafkaError(
        'INVALID_TIMESTAMP',
        `Timestamp ${t} is out of range. The timestamp should be within [${timestampBounds.earliest}, ${timestampBounds.latest}]`,
      )
    }
  }
}

/**
 * The topic's compression.type (see the header comment): the records unchanged when it is
 * `producer` or every batch already has its codec; otherwise every other batch rebuilt with it, and
 * the headers read again from the new buffer. MESSAGE_TOO_LARGE when a rebuilt batch outgrows
 * max.message.bytes (Kafka checks sizes again after recompressing).
 */
export function applyCompressionPolicy(
  records: Buffer,
  batches: BatchHeader[],
  policy: AppendPolicy,
  maxBatchBytes: number,
  maxDecompressedBytes: number,
): { records: Buffer; batches: BatchHeader[] } {
  const type = policy.compressionType ?? 'producer'
  if (type === 'producer') return { records, batches }
  const codec = codecByName(type)
  if (codec === undefined) throw new KafkaError('INVALID_CONFIG', `unknown compression.type ${type}`)
  if (batches.every((b) => b.compression === codec)) return { records, batches }
  const level = policy.compressionLevel
  const parts = batches.map((b) =>
    b.compression === codec
      ? records.subarray(b.position, b.position + b.sizeBytes)
      : recompressBatch(records, b.position, codec, { maxDecompressedBytes, ...(level === undefined ? {} : { level }) }),
  )
  const out = parts.length === 1 ? parts[0]! : Buffer.concat(parts)
  const rebuilt: BatchHeader[] = []
  for (let pos = 0; pos < out.length; ) {
    const h = readBatchHeader(out, pos)
    if (h.sizeBytes > maxBatchBytes) {
      throw new KafkaError('MESSAGE_TOO_LARGE', `batch recompressed with ${type} is ${h.sizeBytes} bytes, over the ${maxBatchBytes}-byte limit`)
    }
    rebuilt.push(h)
    pos += h.sizeBytes
  }
  return { records: out, batches: rebuilt }
}

/**
 * Kafka's LogValidator rule for compacted topics: every record needs a key (the cleaner keeps
 * records by key). The first batch with a keyless record is refused, naming each such record.
 */
export function requireKeys(records: Buffer, batches: BatchHeader[], keyRules: KeyRules): void {
  for (const b of batches) {
    for (const r of iterateRecords(records, b.position, keyRules.maxDecompressedBytes)) {
      if (r.key === null) throw recordValidationError(records, b, { ...keyRules, requireKeys: true, timestampBounds: null })
    }
  }
}
