// The log cleaner of one log dir (Kafka's LogCleaner + LogCleanerManager): a background task on
// the Clock that, pass after pass, picks the dirtiest compacted log (cleanable.ts), cleans it
// (cleaner.ts) and records where its dirty section now starts in `cleaner-offset-checkpoint`
// (Kafka's file and format: one `<topic> <partition> <offset>` line per log). When no log needs
// cleaning it waits log.cleaner.backoff.ms; after a pass that cleaned something it goes again.
// One worker cleans one log at a time (Node runs one event loop; log.cleaner.threads = 0 turns it
// off like log.cleaner.enable=false), with one key map of at most log.cleaner.dedupe.buffer.size.
//
// Each pass reads every log's current topic config through configOf, so a topic switched to
// cleanup.policy=compact is picked up at the next pass. Beyond Kafka's triggers (dirty ratio,
// max.compaction.lag.ms), a log whose kept tombstones have reached their delete horizon is
// cleaned again even without new records, so deletes do not linger on an idle topic (the
// horizons are remembered from this process's passes only).
//
// Stopping: stop() (broker shutdown) and abort(log) (topic deletion) make the cleaning in progress
// stop at its next batch and remove its `.cleaned` files; a swap already under way completes, as
// it holds the log's lock. A log whose cleaning fails for another reason is left alone until the
// broker restarts (Kafka's uncleanable partitions), with an error logged.
// Crash: the checkpoint is written (atomically) after a cleaning's last swap, so a crash before
// it only makes the next cleaning redo work; every swap is crash-safe on its own (recovery.ts).
import { CorruptCheckpointError, readOffsetCheckpoint, topicPartitionKey, writeOffsetCheckpoint } from '../checkpoint-file.js'
import type { Clock, Timer } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import type { Fs } from '../fs.js'
import type { PartitionLog } from '../partition-log.js'
import { SerialQueue } from '../serial-queue.js'
import { isCleanable, type LogToClean, logToClean } from './cleanable.js'
import { CleaningAbortedError, type CleanerContext, type CleanerStats, cleanLog, SwapFailedError } from './cleaner.js'
import type { CleanerConfig, CleanerLogConfig } from './config.js'
import { SkimpyOffsetMap } from './offset-map.js'

export const CLEANER_OFFSET_CHECKPOINT = 'cleaner-offset-checkpoint'

export interface LogCleanerOptions {
  fs: Fs
  clock: Clock
  logger: Logger
  logDir: string
  config: CleanerConfig
  /** The logs of the log dir, as of each pass. */
  logs: () => Iterable<PartitionLog>
  /** A log's current cleaner settings; null leaves it alone (e.g. its topic is being deleted). */
  configOf: (log: PartitionLog) => CleanerLogConfig | null
}

/** What one pass did: the log it cleaned and the cleaning's statistics. */
export interface CleanerPass {
  log: PartitionLog
  stats: CleanerStats
}

const keyOf = (log: PartitionLog) => topicPartitionKey(log.topic, log.partition)

export class LogCleaner {
  private readonly map: SkimpyOffsetMap
  private checkpoints = new Map<string, number>()
  private readonly checkpointWrites = new SerialQueue()
  private timer: Timer | null = null
  private running: Promise<CleanerPass | null> | null = null
  private current: PartitionLog | null = null
  private readonly aborting = new Set<PartitionLog>()
  private readonly uncleanable = new WeakSet<PartitionLog>()
  /** Earliest delete horizon of the tombstones a log kept at its last cleaning. */
  private readonly horizons = new WeakMap<PartitionLog, number>()
  private stopped = false
  private ioBytes = 0
  private ioStartMs = 0

  private constructor(private readonly opts: LogCleanerOptions) {
    // Throws when the budget cannot hold one key, so a bad log.cleaner.dedupe.buffer.size stops the start.
    this.map = new SkimpyOffsetMap(opts.config.dedupeBufferBytes, opts.config.dedupeLoadFactor)
  }

  /** Reads cleaner-offset-checkpoint (a malformed one is ignored: logs are then cleaned from their start). */
  static async open(opts: LogCleanerOptions): Promise<LogCleaner> {
    const cleaner = new LogCleaner(opts)
    try {
      cleaner.checkpoints = await readOffsetCheckpoint(opts.fs, cleaner.checkpointPath)
    } catch (err) {
      if (!(err instanceof CorruptCheckpointError)) throw err
      opts.logger.warn('ignoring a malformed cleaner-offset-checkpoint', { error: err })
    }
    return cleaner
  }

  private get checkpointPath(): string {
    return `${this.opts.logDir}/${CLEANER_OFFSET_CHECKPOINT}`
  }

  /** The first dirty offset recorded for log, if any. */
  checkpointOf(log: PartitionLog): number | undefined {
    return this.checkpoints.get(keyOf(log))
  }

  /** Starts the background passes (the first one at once); does nothing when disabled. */
  start(): void {
    if (!this.opts.config.enabled || this.stopped || this.timer) return
    this.schedule(0)
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return
    this.timer = this.opts.clock.setTimeout(() => {
      this.timer = null
      void this.runOnce().then(
        (pass) => this.schedule(pass && pass.stats.groupsSkipped === 0 ? 0 : this.opts.config.backoffMs),
        () => this.schedule(this.opts.config.backoffMs),
      )
    }, delayMs)
  }

  /** One pass now (joins the pass in progress): cleans the dirtiest log that needs it, if any. */
  runOnce(): Promise<CleanerPass | null> {
    this.running ??= this.pass().finally(() => {
      this.running = null
    })
    return this.running
  }

  private async pass(): Promise<CleanerPass | null> {
    const { logger } = this.opts
    if (this.stopped) return null
    const ltc = await this.grabFilthiestLog()
    if (!ltc) return null
    const { log } = ltc
    this.current = log
    try {
      logger.info('cleaning log', {
        dir: log.dir,
        firstDirtyOffset: ltc.firstDirtyOffset,
        firstUncleanableOffset: ltc.firstUncleanableOffset,
        dirtyRatio: Number(ltc.cleanableRatio.toFixed(3)),
      })
      const stats = await cleanLog(ltc, this.context())
      this.horizons.set(log, stats.nextDeleteHorizonMs)
      // A group whose swap was refused (the log changed under it) is redone by the next cleaning.
      if (stats.groupsSkipped === 0) await this.updateCheckpoint(log, stats.endOffset)
      this.logDone(log, stats)
      return { log, stats }
    } catch (err) {
      if (err instanceof CleaningAbortedError) {
        logger.info('cleaning stopped', { dir: log.dir, reason: err.message })
        return null
      }
      // Retention, DeleteRecords or a truncation removed segments under the cleaning: not the
      // log's fault; the next pass starts over from the segments that remain.
      if (
        !(err instanceof SwapFailedError) &&
        log.usable &&
        (ltc.segments.some((s) => s.deleted) || log.truncationCount !== ltc.truncations)
      ) {
        logger.info('cleaning restarted: the log changed under it', { dir: log.dir, error: err as Error })
        return null
      }
      if ([...this.opts.logs()].includes(log)) {
        this.uncleanable.add(log)
        logger.error('cleaning failed; the log is not cleaned again until a restart', { dir: log.dir, error: err as Error })
      }
      return null
    } finally {
      this.current = null
      this.aborting.delete(log)
    }
  }

  /** Kafka's grabFilthiestCompactedLog (plus logs whose tombstones are due, see the header). */
  private async grabFilthiestLog(): Promise<LogToClean | null> {
    const now = this.opts.clock.now()
    let best: LogToClean | null = null
    for (const log of [...this.opts.logs()]) {
      if (this.stopped) return null
      const config = this.opts.configOf(log)
      if (!config?.compact || this.uncleanable.has(log) || !log.usable) continue
      let ltc: LogToClean
      try {
        ltc = await logToClean(log, config, this.checkpointOf(log), now)
        if (ltc.forceUpdateCheckpoint) await this.updateCheckpoint(log, ltc.firstDirtyOffset)
      } catch (err) {
        this.opts.logger.warn('cannot measure a log for cleaning', { dir: log.dir, error: err as Error })
        continue
      }
      if (ltc.totalBytes === 0) continue
      const due = isCleanable(ltc) || (now >= (this.horizons.get(log) ?? Number.POSITIVE_INFINITY) && ltc.cleanBytes > 0)
      if (due && (best === null || ltc.cleanableRatio > best.cleanableRatio)) best = ltc
    }
    return best
  }

  private context(): CleanerContext {
    this.ioBytes = 0
    this.ioStartMs = this.opts.clock.monotonic()
    return {
      fs: this.opts.fs,
      clock: this.opts.clock,
      logger: this.opts.logger,
      config: this.opts.config,
      map: this.map,
      checkDone: (log) => {
        if (this.stopped) throw new CleaningAbortedError('the cleaner is stopping')
        if (this.aborting.has(log)) throw new CleaningAbortedError('the log is being removed')
      },
      throttle: (bytes) => this.throttle(bytes),
    }
  }

  /** Kafka's Throttler: sleeps while the bytes read and written run ahead of the allowed rate. */
  private async throttle(bytes: number): Promise<void> {
    const rate = this.opts.config.maxIoBytesPerSecond
    if (!Number.isFinite(rate) || rate <= 0) return
    this.ioBytes += bytes
    const { clock } = this.opts
    const aheadMs = (this.ioBytes / rate) * 1000 - (clock.monotonic() - this.ioStartMs)
    if (aheadMs > 1) await new Promise<void>((resolve) => clock.setTimeout(resolve, aheadMs))
  }

  private logDone(log: PartitionLog, s: CleanerStats): void {
    const seconds = Math.max(s.endMs - s.startMs, 1) / 1000
    const mb = (s.mapBytesRead + s.bytesRead + s.bytesWritten) / 1048576
    this.opts.logger.info('cleaned log', {
      dir: log.dir,
      firstDirtyOffset: s.endOffset,
      segments: `${s.segmentsCleaned} → ${s.segmentsWritten}`,
      records: `${s.recordsRead} → ${s.recordsKept}`,
      bytes: `${s.bytesRead} → ${s.bytesWritten}`,
      keys: s.keysMapped,
      mapUtilization: Number(this.map.utilization.toFixed(3)),
      seconds,
      mbPerSecond: Number((mb / seconds).toFixed(1)),
      ...(s.groupsSkipped > 0 ? { groupsSkipped: s.groupsSkipped } : {}),
      ...(s.undecodableBatches > 0 ? { undecodableBatches: s.undecodableBatches } : {}),
    })
  }

  /** Records the log's first dirty offset and rewrites the file. */
  private async updateCheckpoint(log: PartitionLog, offset: number): Promise<void> {
    this.checkpoints.set(keyOf(log), offset)
    await this.writeCheckpoint()
  }

  /** Writes cleaner-offset-checkpoint (entries of logs that are gone are dropped), one write at a time. */
  private writeCheckpoint(): Promise<void> {
    return this.checkpointWrites.run(() => this.doWriteCheckpoint())
  }

  private async doWriteCheckpoint(): Promise<void> {
    const present = new Set([...this.opts.logs()].map(keyOf))
    const entries = []
    for (const [key, value] of this.checkpoints) {
      if (!present.has(key)) {
        this.checkpoints.delete(key)
        continue
      }
      const i = key.lastIndexOf('-')
      entries.push({ topic: key.slice(0, i), partition: Number(key.slice(i + 1)), offset: value })
    }
    await writeOffsetCheckpoint(this.opts.fs, this.checkpointPath, entries)
  }

  /**
   * Stops the cleaning of log, if in progress, and forgets its checkpoint: called before the log
   * is deleted, so a partition of the same name created later starts clean.
   */
  async abort(log: PartitionLog): Promise<void> {
    if (this.current === log) {
      this.aborting.add(log)
      await this.running?.catch(() => {})
    }
    if (this.checkpoints.delete(keyOf(log))) await this.writeCheckpoint()
  }

  /** Stops the passes and waits for the one in progress to stop. */
  async stop(): Promise<void> {
    this.stopped = true
    this.timer?.cancel()
    this.timer = null
    await this.running?.catch(() => {})
  }
}
