// The log of one partition: `<logDir>/<topic>-<partition>/`, an ordered list of segments
// (segment.ts), the leader epoch checkpoint (leader-epoch-cache.ts), partition.metadata, and the
// producers' state with its `<offset>.snapshot` files (producer-log.ts: written at each roll and at
// close, deleted with the segments below the log start and above a truncation; recovery loads the
// newest and replays the batches after it).
//
// Transactions (Kafka's UnifiedLog): every append — a producer's, a coordinator's (transactional
// offset commits, transaction markers) and a follower's — goes through the producer state, which
// tracks the open transactions; the transactions a marker aborts are recorded in the transaction
// index of the segment the marker is written to (transaction-index.ts). The last stable offset is
// the first unstable offset (the first offset of the oldest transaction open, or completed above
// the high watermark), bounded by the high watermark and the log start: read_committed reads stop
// there and carry the aborted transactions overlapping what they return (readCommitted).
//
// Contract (docs/architecture.md §3):
// - offsets are contiguous and never reused: append assigns [LEO, LEO + n) and nothing else does;
// - logStartOffset ≤ highWatermark ≤ logEndOffset; the high watermark starts at the checkpointed one,
//   only moves up through maybeIncrementHighWatermark and only goes down on truncation;
// - a read at offset o returns whole batches, the first being the one that contains o;
// - a timestamp lookup returns the first offset whose timestamp ≥ t;
// - after a crash the log is the longest prefix of CRC-valid batches: recovery truncates the rest
//   and rebuilds indexes from the last recovery point (recovery.ts);
// - truncateTo(o) removes everything at or above o, index entries included;
// - logStartOffset only moves up (DeleteRecords, retention), never past the high watermark, and
//   deleteOldSegments removes whole segments from the oldest, never leaving the log without one.
//
// Crash: data is durable up to the recovery point — the offset covered by the last fsync. flush()
// fsyncs and advances it; the flush policy (flush.messages / flush.ms, default never) and segment
// rolls (the rolled segment is fsynced in the background, as Kafka does) call it; close() flushes all.
//
// Concurrency: appends, truncations and close run one at a time in call order (`main` queue);
// fsyncs run on their own queue so a slow fsync does not hold appends; a truncation holds both.
// Reads take no lock: they read the segment list and sizes as of their start, and segment state
// is only updated after the bytes it describes are written. A segment deleted under a read keeps
// its file for file.delete.delay.ms (segment.ts); a read that fails on one that is gone meanwhile
// answers OFFSET_OUT_OF_RANGE, since its offsets are then below the log start.
//
// Compaction (cleaner/) rewrites old segments off the lock and swaps each result in with
// replaceSegments, under both queues: offsets keep their values (with gaps where records went), a
// read that holds a replaced segment finishes on its `.deleted` file, and a crash anywhere in the
// swap is completed or undone by the next load (recovery.ts).
//
// Performance (docs/architecture.md §4): no per-record work; one write per append call; a read is an index floor
// lookup (or the last-batch hint) and one positional read of max(maxBytes, 64 KiB), walking batch
// headers in memory; append cost does not depend on the log's size.
import { KafkaError } from '../protocol/errors.js'
import { type BatchHeader, NO_TIMESTAMP, setBaseOffset, setPartitionLeaderEpoch } from '../protocol/records/batch.js'
import { iterateBatches } from '../protocol/records/iterator.js'
import type { Clock, Timer } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { Fs } from './fs.js'
import { CorruptCheckpointError } from './checkpoint-file.js'
import { LeaderEpochCache } from './leader-epoch-cache.js'
import { type LogConfig, resolveLogConfig } from './log-config.js'
import { ProducerLog } from './producer-log.js'
import { type PrepareOptions, type ProducerEntry, ProducerStateManager, type ProducerUpdates, type TxnMetadata } from './producer-state.js'
import { type LoadedLog, loadSegments, segmentConfigOf } from './recovery.js'
import {
  AppendFailedError,
  CLEANED_SUFFIX,
  floorSegmentIndex,
  LogSegment,
  MAX_RELATIVE_OFFSET,
  renameSegmentFiles,
  SWAP_SUFFIX,
} from './segment.js'
import { readSegments } from './log-read.js'
import { SegmentDeleter } from './segment-deleter.js'
import { SerialQueue } from './serial-queue.js'
import { type TailCache, TailEntry } from './tail-cache.js'
import { maxTimestampIn, type TimestampAndOffset, timestampInSegment } from './timestamp-lookup.js'
import type { AbortedTxn } from './transaction-index.js'

export type { TimestampAndOffset }

export interface AppendInfo {
  baseOffset: number
  lastOffset: number
  maxTimestamp: number
  /** The broker time stamped on the batches for LogAppendTime topics; -1 for CreateTime. */
  logAppendTimeMs: number
  /**
   * The batch was a producer's retry of one already in the log (producer-state.ts): nothing was
   * written, and the offsets and timestamp are the original batch's (logAppendTimeMs is its max
   * timestamp, as Kafka's UnifiedLog answers a duplicate).
   */
  duplicate?: boolean
}

export interface ReadResult {
  /** Whole batches, the first containing the requested offset; may be empty. */
  records: Buffer
  /** The log's offsets when the read started. */
  highWatermark: number
  logStartOffset: number
  logEndOffset: number
}

/** A read_committed read: up to the last stable offset, with the aborted transactions it overlaps. */
export interface CommittedReadResult extends ReadResult {
  lastStableOffset: number
  /** By marker order; a consumer drops the records of these producers from each firstOffset on. */
  abortedTransactions: AbortedTxn[]
}

/**
 * Decides whether a segment may go (Kafka's deleteOldSegments predicates); next is the segment after
 * it, undefined for the active one. Segments are offered oldest first until the first refusal.
 */
export type SegmentDeletionPredicate = (segment: LogSegment, next: LogSegment | undefined) => boolean | Promise<boolean>

export interface PartitionLogOptions {
  fs: Fs
  clock: Clock
  logger: Logger
  dir: string
  topic: string
  partition: number
  config: LogConfig
  topicId?: string
  cleanShutdown: boolean
  recoveryPoint?: number
  logStartOffset?: number
  /** The checkpointed high watermark (replication-offset-checkpoint); the log start when absent. */
  highWatermark?: number
  /** producer.id.expiration.ms (default 86400000, Kafka's). */
  producerIdExpirationMs?: number
  /**
   * Called when a truncation lowered the recovery point, before the log takes anything else: the
   * log manager writes recovery-point-offset-checkpoint at once (as Kafka's LogManager.truncateTo),
   * so a crash never trusts rewritten offsets below a recovery point checkpointed before them.
   */
  onRecoveryPointLowered?: () => Promise<void>
  /**
   * Called once, when the log fails (a write it could not undo, a failed fsync, a failed swap):
   * Kafka takes the log dir offline then (LogDirFailureChannel); the log manager tells the broker.
   */
  onFailure?: (err: Error) => void
  /** The broker's cache of recent appends (tail-cache.ts); none: every read goes to the files. */
  tailCache?: TailCache
}

const DEFAULT_PRODUCER_ID_EXPIRATION_MS = 86_400_000
/** Errors of a read that mean the disk failed under the data: EIO, a device gone, a corrupt file system. */
const DISK_READ_ERRORS: ReadonlySet<string> = new Set(['EIO', 'ENXIO', 'ENODEV', 'EBADMSG', 'EUCLEAN'])

const EMPTY: Buffer = Buffer.alloc(0)

export class PartitionLog {
  readonly topic: string
  readonly partition: number
  readonly dir: string
  topicId: string | undefined
  readonly leaderEpochs: LeaderEpochCache
  private cfg: LogConfig
  private readonly fs: Fs
  private readonly clock: Clock
  private readonly logger: Logger
  private segments: LogSegment[]
  private nextOffset: number
  private startOffset: number
  private hw: number
  private flushedOffset: number
  private totalBytes: number
  private readonly main = new SerialQueue()
  private readonly flushes = new SerialQueue()
  private unflushedMessages = 0
  private flushTimer: Timer | null = null
  /** Segments removed from the log whose files are deleted when their timer fires (or at close). */
  private readonly deleter: SegmentDeleter
  private failure: Error | null = null
  private readonly onFailure: ((err: Error) => void) | undefined
  private closed = false
  /** Bumped by every truncation: a cleaning that began before one must not swap its result in. */
  private truncations = 0
  /** The idempotent producers' state and its snapshots, checked and updated by every append. */
  private readonly producers: ProducerLog
  /** The state `producers` wraps (reloaded in place), for the produce path's transaction checks. */
  private readonly producerState: ProducerStateManager
  private readonly onRecoveryPointLowered: (() => Promise<void>) | undefined
  private readonly tailCache: TailCache | undefined
  /** This log's part of tailCache: its latest appends, up to the log end. */
  private readonly tail = new TailEntry()

  private constructor(opts: PartitionLogOptions, loaded: LoadedLog, epochs: LeaderEpochCache, producers: ProducerStateManager) {
    this.onFailure = opts.onFailure
    this.fs = opts.fs
    this.clock = opts.clock
    this.logger = opts.logger
    this.dir = opts.dir
    this.topic = opts.topic
    this.partition = opts.partition
    this.topicId = opts.topicId
    this.cfg = opts.config
    this.leaderEpochs = epochs
    this.segments = loaded.segments
    this.nextOffset = loaded.nextOffset
    this.startOffset = loaded.logStartOffset
    this.flushedOffset = loaded.recoveryPoint
    // What was committed as of the last checkpoint, within the recovered log (Kafka's
    // Partition.createLog does the same); nothing is known committed without one.
    this.hw = Math.min(Math.max(opts.highWatermark ?? loaded.logStartOffset, loaded.logStartOffset), loaded.nextOffset)
    this.totalBytes = loaded.segments.reduce((n, s) => n + s.sizeBytes, 0)
    this.deleter = new SegmentDeleter(opts.clock, opts.logger, opts.dir)
    this.producers = new ProducerLog(opts.fs, opts.dir, opts.logger, producers, loaded.snapshots)
    this.producerState = producers
    this.producers.onHighWatermarkUpdated(this.hw)
    this.onRecoveryPointLowered = opts.onRecoveryPointLowered
    this.tailCache = opts.tailCache?.enabled ? opts.tailCache : undefined
  }

  /** Loads (and if needed recovers) the partition directory, which must exist. */
  static async open(opts: PartitionLogOptions): Promise<PartitionLog> {
    const producers = new ProducerStateManager(
      `${opts.topic}-${opts.partition}`,
      opts.producerIdExpirationMs ?? DEFAULT_PRODUCER_ID_EXPIRATION_MS,
    )
    const loaded = await loadSegments({
      fs: opts.fs,
      dir: opts.dir,
      config: opts.config,
      nowMs: opts.clock.now(),
      logger: opts.logger,
      cleanShutdown: opts.cleanShutdown,
      recoveryPoint: opts.recoveryPoint,
      logStartOffset: opts.logStartOffset,
      producers: { state: producers, nowMs: opts.clock.now() },
    })
    let epochs: LeaderEpochCache
    try {
      epochs = await LeaderEpochCache.load(opts.fs, opts.dir)
    } catch (err) {
      if (!(err instanceof CorruptCheckpointError)) throw err
      opts.logger.warn('ignoring a malformed leader-epoch-checkpoint', { dir: opts.dir, error: err })
      epochs = LeaderEpochCache.empty(opts.fs, opts.dir)
    }
    // A crash between a batch of a new epoch and the checkpoint of that epoch loses the entry:
    // recovery found the epochs' starts in the batches (found by the crash property test).
    for (const e of loaded.epochStarts) await epochs.assign(e.epoch, e.startOffset)
    await epochs.truncateFromEnd(loaded.emptied ? 0 : loaded.nextOffset)
    if (loaded.recoveredSegments > 0) {
      opts.logger.info('recovered partition log', {
        dir: opts.dir,
        segments: loaded.recoveredSegments,
        truncatedBytes: loaded.truncatedBytes,
        logEndOffset: loaded.nextOffset,
      })
    }
    return new PartitionLog(opts, loaded, epochs, producers)
  }

  /** A copy of an idempotent producer's state in this log, or undefined. */
  producerEntry(producerId: number): ProducerEntry | undefined {
    return this.producers.entry(producerId)
  }

  /** Copies of every idempotent producer's state in this log. */
  producerEntries(): ProducerEntry[] {
    return this.producers.entries()
  }

  /** The producer has a transaction open in this log — at that epoch when one is given. */
  hasOngoingTransaction(producerId: number, producerEpoch?: number): boolean {
    return this.producerState.hasOngoingTransaction(producerId, producerEpoch)
  }

  /**
   * The produce path is about to verify a transactional batch with the coordinator (Kafka's
   * UnifiedLog.maybeStartTransactionVerification, producer-state.ts startVerification): false
   * when the producer's transaction of that epoch is open here already; else the verification is
   * recorded, so that a later batch of the producer waits for this one, and true is returned.
   * INVALID_PRODUCER_EPOCH for an epoch below the producer's.
   */
  startTxnVerification(producerId: number, sequence: number, producerEpoch: number, supportsEpochBump: boolean): boolean {
    return this.producerState.startVerification(producerId, sequence, producerEpoch, supportsEpochBump, this.clock.now())
  }

  /** The open transactions, oldest first. */
  ongoingTransactions(): TxnMetadata[] {
    return this.producers.ongoingTransactions()
  }

  /** Offsets of the producer state snapshots on disk, ascending. */
  producerSnapshotOffsets(): number[] {
    return this.producers.snapshotOffsets()
  }

  /** Forgets the producers idle for producer.id.expiration.ms (the log manager calls it periodically). */
  removeExpiredProducers(): Promise<number> {
    return this.main.run(async () => this.producers.removeExpired(this.clock.now()))
  }

  get logStartOffset(): number {
    return this.startOffset
  }

  /** The offset the next appended record gets. */
  get logEndOffset(): number {
    return this.nextOffset
  }

  /** Offsets below it are committed; written only by maybeIncrementHighWatermark and truncations. */
  get highWatermark(): number {
    return this.hw
  }

  /**
   * Moves the high watermark up to offset, bounded by the log end offset; never down (only a
   * truncation lowers it, to the new log end). The replica's Partition is the one caller: a leader
   * by the ISR rule, a follower with what its leader reports (Kafka's maybeIncrementHighWatermark
   * and maybeUpdateHighWatermark). Returns true when it moved.
   */
  maybeIncrementHighWatermark(offset: number): boolean {
    const hw = Math.min(offset, this.nextOffset)
    if (!(hw > this.hw)) return false
    this.hw = hw
    this.producers.onHighWatermarkUpdated(hw)
    return true
  }

  /**
   * Kafka's lastStableOffset: the first unstable offset (at least the log start) when below the
   * high watermark, else the high watermark. read_committed reads stop here.
   */
  get lastStableOffset(): number {
    const unstable = this.producers.firstUnstableOffset()
    if (unstable < 0) return this.hw
    return Math.min(Math.max(unstable, this.startOffset), this.hw)
  }

  get sizeBytes(): number {
    return this.totalBytes
  }

  /** Offsets below this are fsynced. */
  get recoveryPoint(): number {
    return this.flushedOffset
  }

  get config(): LogConfig {
    return this.cfg
  }

  get segmentCount(): number {
    return this.segments.length
  }

  /** Base offsets of the segments, oldest first. */
  segmentBaseOffsets(): number[] {
    return this.segments.map((s) => s.baseOffset)
  }

  /** The segments as of now, oldest first (the active one last); the array is never modified. */
  segmentsView(): readonly LogSegment[] {
    return this.segments
  }

  /** Neither closed nor failed (a failed log waits for a restart to recover). */
  get usable(): boolean {
    return !this.closed && this.failure === null
  }

  /** How many truncations the log has seen (the cleaner's guard, see replaceSegments). */
  get truncationCount(): number {
    return this.truncations
  }

  /** Applies topic config overrides (new segments pick up index sizes). */
  updateConfig(overrides: Partial<LogConfig>): void {
    this.cfg = resolveLogConfig(this.cfg, overrides)
    const sc = segmentConfigOf(this.cfg)
    for (const s of this.segments) s.config = sc
  }

  private get active(): LogSegment {
    return this.segments[this.segments.length - 1]!
  }

  private checkUsable(): void {
    if (this.closed) throw new KafkaError('KAFKA_STORAGE_ERROR', `log ${this.dir} is closed`)
    if (this.failure) {
      throw new KafkaError('KAFKA_STORAGE_ERROR', `log ${this.dir} failed earlier: ${this.failure.message}`)
    }
  }

  /**
   * Records that leaderEpoch starts at the log end offset, as a new leader does (Kafka's
   * maybeAssignEpochStartOffset on becoming leader), so that the first append of the epoch does
   * not rewrite the leader-epoch checkpoint — a durable file write — on the produce path.
   */
  assignLeaderEpoch(leaderEpoch: number): Promise<void> {
    return this.main.run(async () => {
      if (leaderEpoch > this.leaderEpochs.latestEpoch) await this.leaderEpochs.assign(leaderEpoch, this.nextOffset)
    })
  }

  /**
   * Appends a Produce partition's records, already validated (replication/log-validator.ts; batches
   * is its result). Assigns offsets, patching baseOffset and partitionLeaderEpoch in place, and
   * writes the buffer with one write at the end of the active segment (rolling it first if
   * needed). Calls are serialized in call order. The idempotent producers' batches are checked
   * against the producer state here, under the same serialization as the offsets they get
   * (producer-state.ts): a refused batch throws its Kafka error and nothing is written; a retried
   * batch already in the log answers with its original offsets (`duplicate`) and nothing is written.
   * `producer` says who writes (a client by default; the broker's coordinators for transactional
   * offset commits and transaction markers, with the marker's transaction version).
   */
  append(records: Buffer, batches: BatchHeader[], leaderEpoch: number, producer?: PrepareOptions): Promise<AppendInfo> {
    return this.main.run(() => this.doAppend(records, batches, leaderEpoch, producer))
  }

  private async doAppend(records: Buffer, batches: BatchHeader[], leaderEpoch: number, producer?: PrepareOptions): Promise<AppendInfo> {
    this.checkUsable()
    checkWholeBuffer(records, batches)
    let count = 0
    let offset = this.nextOffset
    for (const b of batches) {
      setBaseOffset(records, b.position, offset)
      setPartitionLeaderEpoch(records, b.position, leaderEpoch)
      b.baseOffset = offset
      b.partitionLeaderEpoch = leaderEpoch
      count += b.lastOffsetDelta + 1
      offset += b.lastOffsetDelta + 1
    }
    const prepared = this.producers.prepare(batches, records, producer)
    if (prepared.duplicate) {
      const d = prepared.duplicate
      return {
        baseOffset: d.lastOffset - d.offsetDelta,
        lastOffset: d.lastOffset,
        maxTimestamp: d.timestamp,
        logAppendTimeMs: d.timestamp,
        duplicate: true,
      }
    }
    return this.writeBatches(records, batches, count, prepared.updates)
  }

  /**
   * Writes batches whose offsets and leader epochs are set at the end of the active segment (rolled
   * first if needed) — the segment's append writes and indexes them — then moves the log end,
   * records a new leader epoch and applies the flush policy.
   */
  private async writeBatches(
    records: Buffer,
    batches: BatchHeader[],
    count: number,
    producers: ProducerUpdates | null | 'replicated',
  ): Promise<AppendInfo> {
    const first = batches[0]!
    const last = batches[batches.length - 1]!
    const lastOffset = last.baseOffset + last.lastOffsetDelta
    let maxTimestamp = NO_TIMESTAMP
    for (const b of batches) if (b.maxTimestamp > maxTimestamp) maxTimestamp = b.maxTimestamp
    if (this.shouldRoll(records.length, lastOffset, batches.length)) await this.roll()
    try {
      await this.active.append([records], batches)
    } catch (err) {
      this.onWriteError(err as Error)
    }
    this.tailCache?.appended(this.tail, this.active, records, batches, this.clock.monotonic())
    this.totalBytes += records.length
    this.nextOffset = lastOffset + 1
    // The markers' aborted transactions go to the index of the segment that holds them.
    for (const txn of this.producers.written(producers, batches, records)) this.active.txnIndex.append(txn)
    for (const b of batches) {
      if (b.partitionLeaderEpoch > this.leaderEpochs.latestEpoch) await this.leaderEpochs.assign(b.partitionLeaderEpoch, b.baseOffset)
    }
    this.unflushedMessages += count
    await this.applyFlushPolicy()
    return { baseOffset: first.baseOffset, lastOffset, maxTimestamp, logAppendTimeMs: -1 }
  }

  /**
   * Appends batches copied from the leader by a follower's fetch. Unlike a producer's append, the
   * offsets and partition leader epochs are the leader's and are kept as they are: batches must
   * follow the log end (a compacted leader may leave gaps between them) and each other. A batch of
   * a newer leader epoch records that epoch's start, so this replica can answer OffsetForLeaderEpoch
   * and truncate correctly if it leads later. Calls are serialized with every other append.
   */
  appendAsFollower(records: Buffer, batches: BatchHeader[]): Promise<AppendInfo> {
    return this.main.run(() => this.doAppendAsFollower(records, batches))
  }

  private async doAppendAsFollower(records: Buffer, batches: BatchHeader[]): Promise<AppendInfo> {
    this.checkUsable()
    checkWholeBuffer(records, batches)
    let expected = this.nextOffset
    let count = 0
    for (const b of batches) {
      if (b.baseOffset < expected) {
        throw new KafkaError(
          'OFFSET_OUT_OF_RANGE',
          `${this.topic}-${this.partition}: batch at ${b.baseOffset} is below the log end ${expected}`,
        )
      }
      expected = b.baseOffset + b.lastOffsetDelta + 1
      count += b.recordCount
    }
    return this.writeBatches(records, batches, count, 'replicated')
  }

  /** OffsetForLeaderEpoch on this log: the largest epoch ≤ requested and where it ends (KIP-101/279). */
  endOffsetForEpoch(requestedEpoch: number): { epoch: number; endOffset: number } {
    return this.leaderEpochs.endOffsetFor(requestedEpoch, this.nextOffset)
  }

  /** The newest leader epoch recorded in this log (-1: none). */
  get latestEpoch(): number {
    return this.leaderEpochs.latestEpoch
  }

  /** The log refuses all further work until a restart recovers it; the first failure is reported. */
  private fail(err: Error): void {
    if (this.failure) return
    this.failure = err
    this.tailCache?.clear(this.tail)
    this.onFailure?.(err)
  }

  /** The segment cut a failed write back off; when it could not, the log fails (its tail is unknown). */
  private onWriteError(err: Error): never {
    if (!(err instanceof AppendFailedError)) throw err
    if (!err.undone) {
      this.logger.error('log failed: cannot undo a failed append', { dir: this.dir, error: err })
      this.fail(err)
    }
    throw new KafkaError('KAFKA_STORAGE_ERROR', `append to ${this.dir} failed: ${err.message}`)
  }

  private shouldRoll(sizeBytes: number, lastOffset: number, batchCount: number): boolean {
    const seg = this.active
    if (seg.isEmpty) return false
    const c = this.cfg
    return (
      seg.sizeBytes > c.segmentBytes - sizeBytes ||
      this.clock.now() - seg.createdMs > c.segmentMs ||
      !seg.offsetIndex.hasRoomFor(batchCount) ||
      !seg.timeIndex.hasRoomFor(batchCount + 1) ||
      lastOffset - seg.baseOffset > MAX_RELATIVE_OFFSET
    )
  }

  /** Starts a new segment at LEO; the old one gets its final time-index entry and a background fsync. */
  private async roll(): Promise<void> {
    const old = this.active
    old.finalizeTimeIndex()
    let seg: LogSegment
    try {
      seg = await LogSegment.create(this.fs, this.dir, this.nextOffset, segmentConfigOf(this.cfg), this.clock.now())
    } catch (err) {
      throw new KafkaError('KAFKA_STORAGE_ERROR', `cannot roll ${this.dir}: ${(err as Error).message}`)
    }
    this.segments = [...this.segments, seg]
    const upTo = seg.baseOffset
    this.logger.debug('rolled segment', { dir: this.dir, baseOffset: upTo })
    // The producer state as of the new segment's start (Kafka's UnifiedLog.roll), so recovery
    // replays at most the segments after it; taken now, written with the background flush. Taken
    // with no producer too, as Kafka does: an unclean restart then reads no older segment for it.
    const snapshot = this.producers.takeSnapshot(upTo, true)
    this.flushes
      .run(async () => {
        if (snapshot !== null && !this.closed) await this.producers.writeSnapshot(upTo, snapshot)
        // Flushed whole while active, the old segment is skipped by flushUpTo, but the roll just
        // gave its time index a final entry (its largest timestamp), which a load below the
        // recovery point trusts: write it down (found by the crash property test) — after an fsync
        // of its .log, so no index entry is ever durable before the bytes it names (the flushed
        // offset also moves with the log start, past bytes never fsynced: found the same way).
        if (this.flushedOffset >= upTo && !this.closed) await old.flush()
        else await this.flushUpTo(upTo)
      })
      .catch((err) => this.logger.error('background flush of a rolled segment failed', { dir: this.dir, error: err }))
  }

  private async applyFlushPolicy(): Promise<void> {
    const c = this.cfg
    if (this.unflushedMessages >= c.flushIntervalMessages) {
      await this.flush()
    } else if (Number.isFinite(c.flushIntervalMs) && this.flushTimer === null) {
      this.flushTimer = this.clock.setTimeout(() => {
        this.flushTimer = null
        this.flush().catch((err) => this.logger.error('timed flush failed', { dir: this.dir, error: err }))
      }, c.flushIntervalMs)
    }
  }

  /** fsyncs every segment holding offsets in [recoveryPoint, offset), then advances the recovery point. */
  private async flushUpTo(offset: number): Promise<void> {
    if (offset <= this.flushedOffset || this.closed) return
    const segs = this.segments
    try {
      let created = false
      for (let i = 0; i < segs.length; i++) {
        const seg = segs[i]!
        if (seg.baseOffset >= offset) break
        const nextBase = i + 1 < segs.length ? segs[i + 1]!.baseOffset : Number.POSITIVE_INFINITY
        if (nextBase <= this.flushedOffset) continue
        await seg.flush()
        if (seg.baseOffset >= this.flushedOffset) created = true
      }
      // A segment rolled since the last flush has names the directory does not hold durably yet:
      // without this, a crash lost a whole fsynced segment below the recovery point (Kafka's
      // LocalLog.flush does the same; found by the crash property test).
      if (created) await this.fs.syncDir(this.dir)
    } catch (err) {
      // A failed fsync may have dropped dirty pages: nothing after the recovery point can be
      // trusted any more. As Kafka takes the log dir offline, the log refuses all further work
      // until a restart recovers it from the last good recovery point.
      this.fail(err as Error)
      throw err
    }
    if (offset > this.flushedOffset) this.flushedOffset = offset
  }

  /** fsyncs the log up to the current log end offset and advances the recovery point. */
  flush(): Promise<void> {
    return this.flushes.run(async () => {
      if (this.flushTimer) {
        this.flushTimer.cancel()
        this.flushTimer = null
      }
      this.unflushedMessages = 0
      try {
        await this.flushUpTo(this.nextOffset)
      } catch (err) {
        throw new KafkaError('KAFKA_STORAGE_ERROR', `flush of ${this.dir} failed: ${(err as Error).message}`)
      }
    })
  }

  /**
   * Whole batches from the one containing startOffset: up to maxBytes, but at least the first
   * batch when minOneBatch (KIP-74), never one whose base offset ≥ maxOffset (e.g. the HW). Reads
   * stay within one segment, as Kafka's do. startOffset == LEO → empty; below logStartOffset or
   * above LEO → OFFSET_OUT_OF_RANGE.
   */
  async read(startOffset: number, maxBytes: number, maxOffset: number, minOneBatch: boolean): Promise<ReadResult> {
    this.checkUsable()
    const result = {
      records: EMPTY,
      highWatermark: this.hw,
      logStartOffset: this.startOffset,
      logEndOffset: this.nextOffset,
    }
    if (startOffset < result.logStartOffset || startOffset > result.logEndOffset) {
      throw new KafkaError(
        'OFFSET_OUT_OF_RANGE',
        `offset ${startOffset} is outside [${result.logStartOffset}, ${result.logEndOffset}] of ${this.topic}-${this.partition}`,
      )
    }
    if (this.tailCache && startOffset >= this.active.baseOffset) this.tailCache.readAtTail(this.tail, this.clock.monotonic())
    if (startOffset === result.logEndOffset) return result
    const cached = this.tailCache?.read(this.tail, this.active, startOffset, maxBytes, maxOffset, minOneBatch)
    if (cached !== undefined) {
      result.records = cached
      return result
    }
    try {
      result.records = await readSegments(
        this.segments,
        startOffset,
        maxBytes,
        maxOffset,
        minOneBatch,
        (detail) =>
          new KafkaError(
            'OFFSET_OUT_OF_RANGE',
            `offset ${startOffset} of ${this.topic}-${this.partition} ${detail}; the log now starts at ${this.startOffset}`,
          ),
      )
    } catch (err) {
      throw this.readFailed(err)
    }
    return result
  }

  /**
   * A read the disk refused fails the log, as a write does: Kafka's UnifiedLog takes the log dir
   * offline on an IOException of a read too, and a broker whose only log dir is offline stops.
   * Only the disk's own errors count (DISK_READ_ERRORS): a handle closed under the read, a file
   * deleted under it, or a process out of descriptors say nothing of the data, and go on as they are.
   */
  private readFailed(err: unknown): unknown {
    const code = (err as NodeJS.ErrnoException | undefined)?.code
    if (err instanceof KafkaError || this.closed || code === undefined || !DISK_READ_ERRORS.has(code)) return err
    this.logger.error('log failed: a read failed', { dir: this.dir, error: err })
    this.fail(err as Error)
    return new KafkaError('KAFKA_STORAGE_ERROR', `read of ${this.dir} failed: ${(err as Error).message}`)
  }

  /**
   * A read_committed read (Kafka's FetchIsolation.TXN_COMMITTED): whole batches from startOffset as
   * read() gives them, none at or past the last stable offset, and the aborted transactions that
   * overlap [startOffset, the end of the batches returned).
   */
  async readCommitted(startOffset: number, maxBytes: number, minOneBatch: boolean): Promise<CommittedReadResult> {
    const lastStableOffset = this.lastStableOffset
    const segs = this.segments
    const res = await this.read(startOffset, maxBytes, lastStableOffset, minOneBatch)
    let upperBound = startOffset
    for (const h of iterateBatches(res.records)) upperBound = h.baseOffset + h.lastOffsetDelta + 1
    const abortedTransactions = upperBound > startOffset ? collectAbortedTransactions(segs, startOffset, upperBound) : []
    return { ...res, lastStableOffset, abortedTransactions }
  }

  /** The aborted transactions overlapping [startOffset, upperBoundOffset) (Kafka's collectAbortedTransactions). */
  collectAbortedTransactions(startOffset: number, upperBoundOffset: number): AbortedTxn[] {
    return collectAbortedTransactions(this.segments, startOffset, upperBoundOffset)
  }

  /**
   * The first offset at or above logStartOffset whose record timestamp ≥ targetMs, with that
   * timestamp; null when none. Segments are skipped by their largest timestamp, then the time index
   * and offset index give where to start walking batch headers (timestamp-lookup.ts).
   */
  async offsetForTimestamp(targetMs: number): Promise<TimestampAndOffset | null> {
    this.checkUsable()
    const lso = this.startOffset
    for (const seg of this.segments) {
      if (seg.maxTimestamp < targetMs || seg.nextOffset <= lso) continue
      let found: TimestampAndOffset | null
      try {
        found = await timestampInSegment(seg, targetMs, lso)
      } catch (err) {
        // Deleted meanwhile: its offsets are below the log start now; the next segments answer.
        if (!seg.deleted) throw err
        continue
      }
      if (found) return found
    }
    return null
  }

  /** The record with the largest timestamp (ListOffsets -3, KIP-734), earliest on ties; null when empty. */
  async maxTimestampAndOffset(): Promise<TimestampAndOffset | null> {
    this.checkUsable()
    const segs = this.segments
    try {
      return await maxTimestampIn(segs, this.startOffset)
    } catch (err) {
      // A segment deleted under the lookup: ask again over the segments that remain.
      if (!segs.some((s) => s.deleted)) throw err
      return this.maxTimestampAndOffset()
    }
  }

  /**
   * Removes every offset ≥ offset: later segments are deleted (newest first, so a crash leaves a
   * prefix), the segment containing offset is cut at the start of the batch containing it (so LEO
   * may end below offset when it falls inside a batch), indexes and leader epochs are trimmed.
   * Below logStartOffset the log is emptied and restarts at offset.
   */
  truncateTo(offset: number): Promise<void> {
    return this.main.run(() =>
      this.flushes.run(async () => {
        this.checkUsable()
        if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`cannot truncate to ${offset}`)
        if (offset >= this.nextOffset) return
        this.truncations++
        const recoveryPoint = this.flushedOffset
        if (offset < this.startOffset) return this.truncateFullyAndStartAt(offset, recoveryPoint)
        const segs = this.segments
        const idx = floorSegmentIndex(segs, offset)
        for (let j = segs.length - 1; j > idx; j--) await segs[j]!.delete()
        this.segments = segs.slice(0, idx + 1)
        await this.active.truncateTo(offset)
        this.afterTruncation()
        await this.leaderEpochs.truncateFromEnd(this.nextOffset)
        await this.producers.reload(this.segments, this.startOffset, this.nextOffset, this.clock.now())
        // The segments and snapshots removed above the new end are gone for good before anything
        // written after the truncation can be made durable: otherwise a crash brings them back
        // beside the new batches, a log mixing two histories whose old snapshots recovery trusts
        // (found by the transactions crash property test). Kafka relies on ext4 committing the
        // directory's changes with the next fsync; POSIX promises that only with the directory's own.
        await this.fs.syncDir(this.dir)
        // The replay completed transactions whose markers may be below the high watermark already.
        this.producers.onHighWatermarkUpdated(this.hw)
        this.logger.info('truncated log', { dir: this.dir, offset, logEndOffset: this.nextOffset })
        // Found by the transactions crash property test: a crash after offsets below the old
        // checkpointed recovery point were written again recovered them as trusted, with their
        // transaction index lost.
        if (this.flushedOffset < recoveryPoint) await this.onRecoveryPointLowered?.()
      }),
    )
  }

  /**
   * Empties the log and restarts it at offset (a follower that fell behind the leader's log start:
   * what it holds is older than anything the leader still has).
   */
  truncateFullyAndStartAtOffset(offset: number): Promise<void> {
    return this.main.run(() =>
      this.flushes.run(async () => {
        this.checkUsable()
        if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`cannot restart the log at ${offset}`)
        this.truncations++
        await this.truncateFullyAndStartAt(offset, this.flushedOffset)
      }),
    )
  }

  private async truncateFullyAndStartAt(offset: number, recoveryPoint: number): Promise<void> {
    for (let j = this.segments.length - 1; j >= 0; j--) await this.segments[j]!.delete()
    this.segments = [await LogSegment.create(this.fs, this.dir, offset, segmentConfigOf(this.cfg), this.clock.now())]
    this.startOffset = offset
    this.afterTruncation()
    await this.leaderEpochs.truncateFromEnd(0)
    await this.producers.clear()
    // As in truncateTo: the removed files must not come back beside the new segment's batches.
    await this.fs.syncDir(this.dir)
    this.logger.info('emptied log', { dir: this.dir, logStartOffset: offset })
    if (this.flushedOffset < recoveryPoint) await this.onRecoveryPointLowered?.()
  }

  private afterTruncation(): void {
    this.tailCache?.clear(this.tail)
    const active = this.active
    this.nextOffset = Math.max(active.nextOffset, active.baseOffset)
    this.totalBytes = this.segments.reduce((n, s) => n + s.sizeBytes, 0)
    if (this.startOffset > this.nextOffset) this.startOffset = this.nextOffset
    if (this.flushedOffset > this.nextOffset) this.flushedOffset = this.nextOffset
    if (this.hw > this.nextOffset) this.hw = this.nextOffset
    if (this.hw < this.startOffset) this.hw = this.startOffset
  }

  /**
   * Moves logStartOffset up (DeleteRecords, retention), at most to the high watermark; segments
   * wholly below it are left to deleteOldSegments. Returns the log start offset after the call.
   */
  maybeIncrementLogStartOffset(offset: number): Promise<number> {
    return this.main.run(async () => {
      this.checkUsable()
      await this.advanceLogStartOffset(Math.min(offset, this.hw))
      return this.startOffset
    })
  }

  /** Kafka's updateLogStartOffset: the recovery point follows (nothing below the start is read). */
  private async advanceLogStartOffset(target: number): Promise<void> {
    if (target <= this.startOffset) return
    this.startOffset = target
    if (this.flushedOffset < target) this.flushedOffset = target
    await this.leaderEpochs.truncateFromStart(target)
  }

  /**
   * Kafka's UnifiedLog.deleteOldSegments: offers the segments to predicate oldest first and removes
   * the run it accepts. A segment is only offered when everything in it is below the high
   * watermark (so the log start never passes it); an empty active segment is never offered. When
   * the whole log goes — the active segment expired too — the log first rolls, so a fresh empty
   * segment at the log end remains. The log start moves to the first remaining segment's base
   * offset. Files are renamed to `.deleted` and removed after fileDeleteDelayMs (at once for 0).
   * Returns how many segments were removed.
   */
  deleteOldSegments(predicate: SegmentDeletionPredicate, fileDeleteDelayMs: number, reason: string): Promise<number> {
    return this.main.run(() =>
      this.flushes.run(async () => {
        this.checkUsable()
        const doomed = await this.deletableSegments(predicate)
        if (doomed.length === 0) return 0
        if (doomed.length === this.segments.length) await this.roll()
        const gone = new Set(doomed)
        this.segments = this.segments.filter((s) => !gone.has(s))
        let bytes = 0
        for (const s of doomed) bytes += s.sizeBytes
        this.totalBytes -= bytes
        // As Kafka: the files are renamed first, then the log start moves, so once a client sees
        // the new start the old segments are gone from the directory listing.
        // The log start follows the segment list even if a rename failed (the file is then left
        // below the log start, and removed by the next run after a restart).
        try {
          for (const s of doomed) await this.deleter.schedule(s, fileDeleteDelayMs)
        } finally {
          await this.advanceLogStartOffset(this.segments[0]!.baseOffset)
        }
        await this.producers.deleteBelow(this.startOffset)
        this.logger.info('deleted old segments', {
          dir: this.dir,
          reason,
          segments: doomed.map((s) => s.baseOffset),
          bytes,
          logStartOffset: this.startOffset,
        })
        return doomed.length
      }),
    )
  }

  private async deletableSegments(predicate: SegmentDeletionPredicate): Promise<LogSegment[]> {
    const segs = this.segments
    const out: LogSegment[] = []
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i]!
      const next = segs[i + 1]
      const upperBound = next ? next.baseOffset : this.nextOffset
      if (this.hw < upperBound || (next === undefined && seg.isEmpty)) break
      if (!(await predicate(seg, next))) break
      out.push(seg)
    }
    return out
  }

  /**
   * Swaps a cleaned segment (written under `.cleaned` names, fsynced, closed) in for the run of
   * segments `old` it was made from, as Kafka's LocalLog.replaceSegments: renames its files to
   * `.swap` (the .log last: from then on a load completes the swap), fsyncs the directory,
   * removes the old segments (`.deleted`, file.delete.delay.ms), renames the `.swap` files to
   * their final names and fsyncs the directory again. Returns false without touching anything
   * when the log changed under the cleaner — one of `old` is gone (retention, DeleteRecords) or
   * the log was truncated since `truncations` was read — and the caller discards its files. A
   * failure during the renames fails the log, as a failed fsync does: the next load settles it.
   */
  replaceSegments(cleaned: LogSegment, old: readonly LogSegment[], truncations: number, fileDeleteDelayMs: number): Promise<boolean> {
    return this.main.run(() =>
      this.flushes.run(async () => {
        this.checkUsable()
        const segs = this.segments
        const at = segs.indexOf(old[0]!)
        const intact =
          this.truncations === truncations &&
          at >= 0 &&
          at + old.length < segs.length &&
          old.every((s, k) => segs[at + k] === s) &&
          cleaned.baseOffset === old[0]!.baseOffset &&
          cleaned.suffix === CLEANED_SUFFIX
        if (!intact) return false
        let swapped: LogSegment
        try {
          await renameSegmentFiles(this.fs, this.dir, cleaned.baseOffset, CLEANED_SUFFIX, SWAP_SUFFIX, true)
          await this.fs.syncDir(this.dir)
          for (const s of old) await this.deleter.schedule(s, fileDeleteDelayMs)
          await renameSegmentFiles(this.fs, this.dir, cleaned.baseOffset, SWAP_SUFFIX, '', false)
          await this.fs.syncDir(this.dir)
          swapped = await LogSegment.fromSwapped(cleaned)
        } catch (err) {
          this.logger.error('log failed: swapping in a cleaned segment failed', { dir: this.dir, error: err as Error })
          this.fail(err as Error)
          throw new KafkaError('KAFKA_STORAGE_ERROR', `swap in ${this.dir} failed: ${(err as Error).message}`)
        }
        this.segments = [...segs.slice(0, at), swapped, ...segs.slice(at + old.length)]
        this.totalBytes = this.segments.reduce((n, s) => n + s.sizeBytes, 0)
        return true
      }),
    )
  }

  /** Flushes everything and closes the files; the log is unusable afterwards. */
  close(): Promise<void> {
    return this.main.run(() =>
      this.flushes.run(async () => {
        if (this.closed) return
        if (this.flushTimer) {
          this.flushTimer.cancel()
          this.flushTimer = null
        }
        if (!this.failure) {
          await this.flushUpTo(this.nextOffset)
          // A clean shutdown leaves the state at the log end: the next load replays nothing.
          const snapshot = this.producers.takeSnapshot(this.nextOffset)
          if (snapshot !== null) await this.producers.writeSnapshot(this.nextOffset, snapshot)
        }
        this.closed = true
        this.tailCache?.clear(this.tail)
        for (const seg of this.segments) await seg.close()
        await this.deleter.settle(true)
      }),
    )
  }

  /** Closes the files without flushing (the directory is about to be deleted). */
  closeWithoutFlush(): Promise<void> {
    return this.main.run(() =>
      this.flushes.run(async () => {
        if (this.flushTimer) {
          this.flushTimer.cancel()
          this.flushTimer = null
        }
        this.closed = true
        this.tailCache?.clear(this.tail)
        for (const seg of this.segments) await seg.closeHandle().catch(() => {})
        await this.deleter.settle(false)
      }),
    )
  }
}

/**
 * From the segment holding startOffset on, the entries of each transaction index that overlap
 * [startOffset, upperBoundOffset), until one says no later segment can add any (a transaction's
 * entry is in the segment of its marker, which may come after the one its records start in).
 */
function collectAbortedTransactions(segs: readonly LogSegment[], startOffset: number, upperBoundOffset: number): AbortedTxn[] {
  const out: AbortedTxn[] = []
  for (let i = floorSegmentIndex(segs, startOffset); i < segs.length; i++) {
    const r = segs[i]!.txnIndex.collect(startOffset, upperBoundOffset)
    out.push(...r.abortedTransactions)
    if (r.isComplete) break
  }
  return out
}

/** The batches must be the whole buffer, in order (what validation or the fetcher produced). */
function checkWholeBuffer(records: Buffer, batches: BatchHeader[]): void {
  const first = batches[0]
  const last = batches[batches.length - 1]
  if (!first || !last || first.position !== 0 || last.position + last.sizeBytes !== records.length) {
    throw new KafkaError('INVALID_RECORD', 'append needs the batches of the whole buffer')
  }
}
