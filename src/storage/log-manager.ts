// All partition logs of one log dir (Kafka's LogManager). Layout of the log dir:
//   <topic>-<partition>/                 one per partition (topic names may contain '-' and '.',
//                                        so the partition is what follows the LAST '-')
//   <topic>-<partition>.<hex>-delete/    a deleted partition not yet removed (removed at start)
//   recovery-point-offset-checkpoint     per partition, the offset below which the log is fsynced
//   log-start-offset-checkpoint          per partition, the log start offset
//   cleaner-offset-checkpoint            per compacted partition, where its dirty section starts
//   replication-offset-checkpoint        per partition, its high watermark (a replica of a cluster
//                                        restarts from it, not from its log end: records past it
//                                        may never have been committed)
//   .kafka_cleanshutdown                 written last by close(), removed after the next load
// Retention (retention.ts) runs here once startRetention() is called, every
// log.retention.check.interval.ms; it and DeleteRecords write log-start-offset-checkpoint right
// after they move a log start offset. The log cleaner (cleaner/log-cleaner.ts) runs here once
// startCleaner() is called; it is stopped before the logs close and before a log is deleted.
// Every producer.id.expiration.check.interval.ms each log forgets the idempotent producers idle for
// producer.id.expiration.ms (Kafka's PeriodicProducerExpirationCheck, producer-state.ts).
// Crash: without the clean-shutdown marker, every log is recovered from its recovery point
// (recovery.ts); checkpoints are replaced atomically (checkpoint-file.ts), and the marker is only
// written after every log was flushed and every checkpoint written.
import { randomBytes } from 'node:crypto'
import { KafkaError } from '../protocol/errors.js'
import type { Clock, Timer } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import {
  CorruptCheckpointError,
  readOffsetCheckpoint,
  type TopicPartitionOffset,
  topicPartitionKey,
  writeFileAtomic,
  writeOffsetCheckpoint,
} from './checkpoint-file.js'
import type { Fs } from './fs.js'
import { unlinkIfExists } from './index-file.js'
import { type LogConfig, resolveLogConfig } from './log-config.js'
import { SerialQueue } from './serial-queue.js'
import type { TailCache } from './tail-cache.js'
import { PartitionLog } from './partition-log.js'
import { readPartitionMetadata, writePartitionMetadata } from './partition-metadata.js'
import { deleteLogStartOffsetBreachedSegments, type RetentionConfig, RetentionTask } from './retention.js'
import type { CleanerConfig, CleanerLogConfig } from './cleaner/config.js'
import { type CleanerPass, LogCleaner } from './cleaner/log-cleaner.js'

export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown'
export const RECOVERY_POINT_CHECKPOINT = 'recovery-point-offset-checkpoint'
export const LOG_START_OFFSET_CHECKPOINT = 'log-start-offset-checkpoint'
export const HIGH_WATERMARK_CHECKPOINT = 'replication-offset-checkpoint'
const DELETE_SUFFIX = '-delete'
/** How many partitions load (and recover) at once. */
const LOAD_CONCURRENCY = 8

export interface LogManagerOptions {
  fs: Fs
  clock: Clock
  logDir: string
  config: LogConfig
  logger: Logger
  /** Period of the checkpoint writes (log.flush.offset.checkpoint.interval.ms); 0 = only on close. */
  checkpointIntervalMs?: number
  /** producer.id.expiration.ms (Kafka: 86400000). */
  producerIdExpirationMs?: number
  /** producer.id.expiration.check.interval.ms (Kafka: 600000). */
  producerIdExpirationCheckIntervalMs?: number
  /**
   * A log of this dir failed (partition-log.ts: a write it could not undo, a failed fsync): its
   * data past the last fsync cannot be trusted, as Kafka's log dir going offline. Called once, with
   * the partition dir that failed first.
   */
  onLogDirFailure?: (err: Error, partitionDir: string) => void
  /** The recent appends of every log, kept in memory for reads at the tail (tail-cache.ts). */
  tailCache?: TailCache
}

/** `<topic>-<partition>` → its parts, or null when the name is not a partition directory. */
export function parseTopicPartitionDir(name: string): { topic: string; partition: number } | null {
  const i = name.lastIndexOf('-')
  if (i <= 0) return null
  const p = name.slice(i + 1)
  if (!/^\d+$/.test(p)) return null
  const partition = Number(p)
  if (!Number.isSafeInteger(partition) || partition > 0x7fffffff) return null
  return { topic: name.slice(0, i), partition }
}

export class LogManager {
  private readonly logs = new Map<string, PartitionLog>()
  private readonly topicIds = new Map<string, string>()
  private readonly creating = new Map<string, Promise<PartitionLog>>()
  private readonly checkpoints = new SerialQueue()
  private checkpointTimer: Timer | null = null
  private expirationTimer: Timer | null = null
  private retention: RetentionTask | null = null
  private cleanerTask: LogCleaner | null = null
  private closed = false
  private dirFailed = false

  private constructor(private readonly opts: LogManagerOptions) {}

  private logFailed(dir: string, err: Error): void {
    if (this.dirFailed || this.closed) return
    this.dirFailed = true
    this.opts.onLogDirFailure?.(err, dir)
  }

  static async open(opts: LogManagerOptions): Promise<LogManager> {
    const { fs, logDir, logger } = opts
    await fs.mkdir(logDir)
    const mgr = new LogManager(opts)
    const clean = (await fs.stat(`${logDir}/${CLEAN_SHUTDOWN_FILE}`)) !== null
    const recoveryPoints = await mgr.readCheckpoint(RECOVERY_POINT_CHECKPOINT)
    const logStarts = await mgr.readCheckpoint(LOG_START_OFFSET_CHECKPOINT)
    const highWatermarks = await mgr.readCheckpoint(HIGH_WATERMARK_CHECKPOINT)

    const dirs: Array<{ name: string; topic: string; partition: number }> = []
    for (const name of (await fs.readdir(logDir)).sort()) {
      const path = `${logDir}/${name}`
      const st = await fs.stat(path)
      if (!st?.isDirectory) continue
      if (name.endsWith(DELETE_SUFFIX)) {
        logger.info('removing a deleted partition directory', { dir: path })
        await fs.rmdir(path)
        continue
      }
      const tp = parseTopicPartitionDir(name)
      if (!tp) {
        logger.warn('ignoring a directory that is not a partition', { dir: path })
        continue
      }
      dirs.push({ name, ...tp })
    }

    let next = 0
    const worker = async () => {
      while (next < dirs.length) {
        const d = dirs[next++]!
        const key = topicPartitionKey(d.topic, d.partition)
        const dir = `${logDir}/${d.name}`
        const topicId = await readPartitionMetadata(fs, dir)
        const log = await PartitionLog.open({
          fs,
          clock: opts.clock,
          logger,
          dir,
          topic: d.topic,
          partition: d.partition,
          config: opts.config,
          topicId,
          cleanShutdown: clean,
          recoveryPoint: recoveryPoints.get(key),
          logStartOffset: logStarts.get(key),
          highWatermark: highWatermarks.get(key),
          ...mgr.producerOptions(),
          ...(opts.tailCache ? { tailCache: opts.tailCache } : {}),
          onFailure: (err) => mgr.logFailed(dir, err),
        })
        mgr.logs.set(key, log)
        if (topicId !== undefined) mgr.topicIds.set(d.topic, topicId)
      }
    }
    await Promise.all(Array.from({ length: Math.min(LOAD_CONCURRENCY, dirs.length) }, worker))

    // Write the recovery state down before the marker goes: a crash from here on is unclean.
    await mgr.checkpoint()
    if (clean) {
      await unlinkIfExists(fs, `${logDir}/${CLEAN_SHUTDOWN_FILE}`)
      await fs.syncDir(logDir)
    }
    logger.debug('loaded logs', { logDir, partitions: mgr.logs.size, cleanShutdown: clean })
    mgr.scheduleCheckpoint()
    mgr.scheduleProducerExpiration()
    return mgr
  }

  /** What every log is opened with: the producer settings, and the checkpoint after a truncation lowered its recovery point. */
  private producerOptions(): { producerIdExpirationMs?: number; onRecoveryPointLowered: () => Promise<void> } {
    const ms = this.opts.producerIdExpirationMs
    const onRecoveryPointLowered = () => this.checkpoint()
    return ms === undefined ? { onRecoveryPointLowered } : { producerIdExpirationMs: ms, onRecoveryPointLowered }
  }

  private scheduleProducerExpiration(): void {
    const interval = this.opts.producerIdExpirationCheckIntervalMs ?? 600_000
    if (!(interval > 0) || !Number.isFinite(interval) || this.closed) return
    this.expirationTimer = this.opts.clock.setTimeout(() => {
      this.expirationTimer = null
      this.removeExpiredProducers()
        .catch((err) => this.opts.logger.error('producer expiration failed', { error: err }))
        .finally(() => this.scheduleProducerExpiration())
    }, interval)
  }

  /** One producer expiration pass over every log now; returns how many producers were forgotten. */
  async removeExpiredProducers(): Promise<number> {
    let n = 0
    for (const log of [...this.logs.values()]) if (log.usable) n += await log.removeExpiredProducers()
    return n
  }

  private async readCheckpoint(name: string): Promise<Map<string, number>> {
    try {
      return await readOffsetCheckpoint(this.opts.fs, `${this.opts.logDir}/${name}`)
    } catch (err) {
      if (!(err instanceof CorruptCheckpointError)) throw err
      // Without recovery points every segment is rescanned: slower, never wrong.
      this.opts.logger.warn('ignoring a malformed checkpoint file', { error: err })
      return new Map()
    }
  }

  private scheduleCheckpoint(): void {
    const interval = this.opts.checkpointIntervalMs ?? 60_000
    if (!(interval > 0) || !Number.isFinite(interval) || this.closed) return
    this.checkpointTimer = this.opts.clock.setTimeout(() => {
      this.checkpointTimer = null
      this.checkpoint()
        .catch((err) => this.opts.logger.error('checkpoint failed', { error: err }))
        .finally(() => this.scheduleCheckpoint())
    }, interval)
  }

  /**
   * Starts the retention task (retention.ts); configOf gives each log's current settings, null to
   * leave a log alone. Safe to call once; close() stops it.
   */
  startRetention(opts: { checkIntervalMs: number; configOf: (log: PartitionLog) => RetentionConfig | null }): void {
    if (this.retention || this.closed) return
    this.retention = new RetentionTask({
      clock: this.opts.clock,
      logger: this.opts.logger,
      checkIntervalMs: opts.checkIntervalMs,
      logs: () => this.logs.values(),
      configOf: opts.configOf,
      afterDeletion: () => this.checkpoint(),
    })
    this.retention.start()
  }

  /** One retention pass now (tests, tools); 0 when retention was not started. */
  runRetention(): Promise<number> {
    return this.retention?.runOnce() ?? Promise.resolve(0)
  }

  /**
   * Opens the log cleaner (reads cleaner-offset-checkpoint) and starts its passes unless
   * config.enabled is false; configOf gives each log's current cleaner settings, null to leave a
   * log alone. Safe to call once; close() stops it.
   */
  async startCleaner(opts: { config: CleanerConfig; configOf: (log: PartitionLog) => CleanerLogConfig | null }): Promise<void> {
    if (this.cleanerTask || this.closed) return
    this.cleanerTask = await LogCleaner.open({
      fs: this.opts.fs,
      clock: this.opts.clock,
      logger: this.opts.logger.child('cleaner'),
      logDir: this.opts.logDir,
      config: opts.config,
      logs: () => this.logs.values(),
      configOf: opts.configOf,
    })
    this.cleanerTask.start()
  }

  /** The log cleaner, once startCleaner() was called. */
  get cleaner(): LogCleaner | null {
    return this.cleanerTask
  }

  /** One cleaner pass now (tests, tools): cleans the dirtiest log that needs it; null when none. */
  runCleaner(): Promise<CleanerPass | null> {
    return this.cleanerTask?.runOnce() ?? Promise.resolve(null)
  }

  /**
   * DeleteRecords on a local log: moves its log start offset up to offset (the caller checked it
   * against the high watermark), removes the segments wholly below it, and checkpoints the new log
   * start offset before answering. Returns the log start offset (the low watermark).
   */
  async deleteRecords(log: PartitionLog, offset: number, fileDeleteDelayMs: number): Promise<number> {
    const before = log.logStartOffset
    const start = await log.maybeIncrementLogStartOffset(offset)
    await deleteLogStartOffsetBreachedSegments(log, fileDeleteDelayMs)
    if (start !== before) await this.checkpoint()
    return log.logStartOffset
  }

  get(topic: string, partition: number): PartitionLog | undefined {
    return this.logs.get(topicPartitionKey(topic, partition))
  }

  all(): Iterable<PartitionLog> {
    return this.logs.values()
  }

  /** The topic id recorded in the topic's partition.metadata files. */
  topicIdOf(topic: string): string | undefined {
    return this.topicIds.get(topic)
  }

  /**
   * Creates the partition's directory, first segment and partition.metadata (durably). Returns
   * the existing log when there is one with the same topic id; INCONSISTENT_TOPIC_ID otherwise.
   */
  async create(topic: string, partition: number, topicId: string, config?: Partial<LogConfig>): Promise<PartitionLog> {
    if (this.closed) throw new KafkaError('KAFKA_STORAGE_ERROR', 'log manager is closed')
    const key = topicPartitionKey(topic, partition)
    const existing = this.logs.get(key)
    if (existing) {
      if (existing.topicId !== undefined && existing.topicId !== topicId) {
        throw new KafkaError('INCONSISTENT_TOPIC_ID', `${key} belongs to topic id ${existing.topicId}`)
      }
      if (config) existing.updateConfig(config)
      return existing
    }
    const pending = this.creating.get(key)
    if (pending) {
      return pending.then(
        () => this.create(topic, partition, topicId, config),
        () => this.create(topic, partition, topicId, config),
      )
    }
    const p = this.doCreate(topic, partition, topicId, config)
    this.creating.set(key, p)
    try {
      return await p
    } finally {
      this.creating.delete(key)
    }
  }

  private async doCreate(topic: string, partition: number, topicId: string, config?: Partial<LogConfig>) {
    const key = topicPartitionKey(topic, partition)
    const { fs, logDir } = this.opts
    const dir = `${logDir}/${key}`
    await fs.mkdir(dir)
    await writePartitionMetadata(fs, dir, topicId)
    await fs.syncDir(logDir)
    const log = await PartitionLog.open({
      fs,
      clock: this.opts.clock,
      logger: this.opts.logger,
      dir,
      topic,
      partition,
      config: resolveLogConfig(this.opts.config, config),
      topicId,
      cleanShutdown: true,
      ...this.producerOptions(),
      ...(this.opts.tailCache ? { tailCache: this.opts.tailCache } : {}),
      onFailure: (err) => this.logFailed(dir, err),
    })
    this.logs.set(key, log)
    this.topicIds.set(topic, topicId)
    return log
  }

  /** Closes the log, renames its dir to `<topic>-<partition>.<hex>-delete`, then removes it. */
  async delete(topic: string, partition: number): Promise<void> {
    const key = topicPartitionKey(topic, partition)
    const log = this.logs.get(key)
    if (!log) return
    await this.cleanerTask?.abort(log)
    this.logs.delete(key)
    await log.closeWithoutFlush()
    const { fs, logDir } = this.opts
    const doomed = `${logDir}/${key}.${randomBytes(16).toString('hex')}${DELETE_SUFFIX}`
    await fs.rename(log.dir, doomed)
    await fs.syncDir(logDir)
    // As Kafka's asyncDelete: drop the partition from the checkpoints now, so a partition of the
    // same name created later never inherits this one's recovery point or log start offset.
    await this.checkpoint()
    await fs.rmdir(doomed)
    if (![...this.logs.values()].some((l) => l.topic === topic)) this.topicIds.delete(topic)
  }

  /**
   * Writes recovery-point-offset-checkpoint and log-start-offset-checkpoint for every log. Writes
   * are serialized: the periodic one, the one after a delete and the one at close share the files.
   */
  checkpoint(): Promise<void> {
    return this.checkpoints.run(() => this.writeCheckpoints())
  }

  private async writeCheckpoints(): Promise<void> {
    const recovery: TopicPartitionOffset[] = []
    const starts: TopicPartitionOffset[] = []
    const hws: TopicPartitionOffset[] = []
    for (const log of this.logs.values()) {
      recovery.push({ topic: log.topic, partition: log.partition, offset: log.recoveryPoint })
      starts.push({ topic: log.topic, partition: log.partition, offset: log.logStartOffset })
      hws.push({ topic: log.topic, partition: log.partition, offset: log.highWatermark })
    }
    const { fs, logDir } = this.opts
    // Log starts first: a log start moved past unflushed records moves the recovery point with it
    // (PartitionLog.advanceLogStartOffset), which is only true together with that start — a crash
    // between the two writes must not leave the new recovery point with the old start (found by
    // the crash property test: the log then recovered to an end below its recovery point).
    await writeOffsetCheckpoint(fs, `${logDir}/${LOG_START_OFFSET_CHECKPOINT}`, starts)
    await writeOffsetCheckpoint(fs, `${logDir}/${RECOVERY_POINT_CHECKPOINT}`, recovery)
    await writeOffsetCheckpoint(fs, `${logDir}/${HIGH_WATERMARK_CHECKPOINT}`, hws)
  }

  /**
   * Flushes and closes every log, writes the checkpoints, then the clean-shutdown marker — unless
   * some log could not be closed cleanly, in which case the next start recovers.
   */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.checkpointTimer?.cancel()
    this.checkpointTimer = null
    this.expirationTimer?.cancel()
    this.expirationTimer = null
    await this.retention?.stop()
    await this.cleanerTask?.stop()
    const results = await Promise.allSettled([...this.logs.values()].map((l) => l.close()))
    const failed = results.filter((r) => r.status === 'rejected')
    for (const f of failed) this.opts.logger.error('closing a log failed', { error: (f as PromiseRejectedResult).reason })
    await this.checkpoint()
    if (failed.length > 0) return
    const { fs, logDir } = this.opts
    await writeFileAtomic(fs, `${logDir}/${CLEAN_SHUTDOWN_FILE}`, '')
  }
}
