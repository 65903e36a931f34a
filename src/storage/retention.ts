// Retention: the background task that removes old segments (Kafka's LogManager.cleanupLogs, run
// every log.retention.check.interval.ms), and the three rules it applies to each log, as Kafka's
// UnifiedLog.deleteOldSegments does, in this order:
//   1. segments wholly below the log start offset (moved by DeleteRecords) go, whatever the policy;
//   2. with cleanup.policy containing `delete`: while the partition exceeds retention.bytes, the
//      oldest segment goes if size − segment.size ≥ retention.bytes (so the log never drops below
//      its budget by deleting); -1 = unlimited;
//   3. with `delete`: segments whose largest timestamp (the time index's last entry; the .log's
//      mtime when no batch carries a timestamp) is more than retention.ms old go, oldest first,
//      stopping at the first younger one; -1 = forever.
// A compact-only topic is never trimmed by time or size. The active segment is included in rules
// 2 and 3: when it has expired too, the log rolls first and deletes it (an idle partition still
// ages out), as Kafka's deleteSegments does. Segment removal itself — log start moving to the next
// segment's base offset, `.deleted` renames, file.delete.delay.ms — is PartitionLog's.
//
// Each run reads the log's current config through configOf, so dynamic changes of retention.ms or
// cleanup.policy apply at the next run. After a run that removed something the log manager writes
// log-start-offset-checkpoint at once, so a restart does not bring back a lower log start.
import type { Clock, Timer } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { PartitionLog } from './partition-log.js'

export interface RetentionConfig {
  /** retention.ms: age past which a segment is deleted; negative = forever. */
  retentionMs: number
  /** retention.bytes: partition size budget; negative = unlimited. */
  retentionBytes: number
  /** cleanup.policy includes `delete` (rules 2 and 3 apply). */
  deleteEnabled: boolean
  /** file.delete.delay.ms: how long a deleted segment's .log stays as `.log.deleted`. */
  fileDeleteDelayMs: number
}

/** Kafka's topic defaults: 7 days, unlimited size, delete, files removed after 60 s. */
export const defaultRetentionConfig: RetentionConfig = Object.freeze({
  retentionMs: 604_800_000,
  retentionBytes: -1,
  deleteEnabled: true,
  fileDeleteDelayMs: 60_000,
})

/** The effective topic configs retention reads, by Kafka's names (already resolved from the broker's). */
export interface TopicRetentionConfigs {
  readonly 'retention.ms': number
  readonly 'retention.bytes': number
  readonly 'cleanup.policy': readonly string[]
  readonly 'file.delete.delay.ms': number
}

export function retentionConfigOf(c: TopicRetentionConfigs): RetentionConfig {
  return {
    retentionMs: c['retention.ms'],
    retentionBytes: c['retention.bytes'],
    deleteEnabled: c['cleanup.policy'].includes('delete'),
    fileDeleteDelayMs: c['file.delete.delay.ms'],
  }
}

/** Rule 1: segments whose successor starts at or below the log start offset. */
export function deleteLogStartOffsetBreachedSegments(log: PartitionLog, fileDeleteDelayMs: number): Promise<number> {
  return log.deleteOldSegments(
    (_seg, next) => next !== undefined && next.baseOffset <= log.logStartOffset,
    fileDeleteDelayMs,
    'log start offset breach',
  )
}

/** Rule 2: oldest first, while size − segment.size ≥ retention.bytes. */
export function deleteRetentionSizeBreachedSegments(log: PartitionLog, config: RetentionConfig): Promise<number> {
  const budget = config.retentionBytes
  if (budget < 0 || log.sizeBytes < budget) return Promise.resolve(0)
  // The excess is measured when the log offers its first segment (under its lock), not before.
  let excess: number | null = null
  return log.deleteOldSegments(
    (seg) => {
      excess ??= log.sizeBytes - budget
      if (excess - seg.sizeBytes < 0) return false
      excess -= seg.sizeBytes
      return true
    },
    config.fileDeleteDelayMs,
    `retention.bytes ${budget} breach`,
  )
}

/** Rule 3: segments whose largest timestamp is more than retention.ms before nowMs. */
export function deleteRetentionMsBreachedSegments(log: PartitionLog, config: RetentionConfig, nowMs: number): Promise<number> {
  const retentionMs = config.retentionMs
  if (retentionMs < 0) return Promise.resolve(0)
  return log.deleteOldSegments(
    async (seg) => nowMs - (await seg.largestTimestamp()) > retentionMs,
    config.fileDeleteDelayMs,
    `retention.ms ${retentionMs} breach`,
  )
}

/** The three rules, in Kafka's order; returns how many segments were deleted. */
export async function deleteOldSegments(log: PartitionLog, config: RetentionConfig, nowMs: number): Promise<number> {
  let deleted = await deleteLogStartOffsetBreachedSegments(log, config.fileDeleteDelayMs)
  if (config.deleteEnabled) {
    deleted += await deleteRetentionSizeBreachedSegments(log, config)
    deleted += await deleteRetentionMsBreachedSegments(log, config, nowMs)
  }
  return deleted
}

export interface RetentionTaskOptions {
  clock: Clock
  logger: Logger
  /** log.retention.check.interval.ms */
  checkIntervalMs: number
  /** The logs to check, as of each run. */
  logs: () => Iterable<PartitionLog>
  /** The log's current retention settings; null leaves it alone (e.g. its topic is being deleted). */
  configOf: (log: PartitionLog) => RetentionConfig | null
  /** Called after a run that deleted segments (writes log-start-offset-checkpoint). */
  afterDeletion: () => Promise<void>
}

/** Kafka's first retention run waits log.initial.task.delay.ms (30 s), or one interval if shorter. */
const INITIAL_DELAY_MS = 30_000

/** Runs deleteOldSegments over every log, every checkIntervalMs, on the Clock. */
export class RetentionTask {
  private timer: Timer | null = null
  private running: Promise<number> | null = null
  private stopped = false

  constructor(private readonly opts: RetentionTaskOptions) {}

  start(): void {
    this.schedule(Math.min(INITIAL_DELAY_MS, this.opts.checkIntervalMs))
  }

  private schedule(delayMs: number): void {
    if (this.stopped || !(delayMs > 0) || !Number.isFinite(delayMs)) return
    this.timer = this.opts.clock.setTimeout(() => {
      this.timer = null
      void this.runOnce().finally(() => this.schedule(this.opts.checkIntervalMs))
    }, delayMs)
  }

  /** One pass over every log (joins the pass in progress, if any); resolves with the segments deleted. */
  runOnce(): Promise<number> {
    this.running ??= this.run().finally(() => {
      this.running = null
    })
    return this.running
  }

  private async run(): Promise<number> {
    const { clock, logger } = this.opts
    let deleted = 0
    for (const log of [...this.opts.logs()]) {
      if (this.stopped) break
      const config = this.opts.configOf(log)
      if (!config) continue
      try {
        deleted += await deleteOldSegments(log, config, clock.now())
      } catch (err) {
        // A log deleted or closed during the pass is not an error of retention.
        if (![...this.opts.logs()].includes(log)) continue
        logger.error('retention failed for a log', { dir: log.dir, error: err as Error })
      }
    }
    if (deleted > 0) {
      await this.opts.afterDeletion().catch((err) => logger.error('checkpoint after retention failed', { error: err as Error }))
    }
    return deleted
  }

  /** Stops the timer and waits for a pass in progress. */
  async stop(): Promise<void> {
    this.stopped = true
    this.timer?.cancel()
    this.timer = null
    await this.running?.catch(() => {})
  }
}
