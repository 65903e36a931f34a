// Deleting segments that left a partition log (retention, DeleteRecords, a cleaned segment swapped
// in), as Kafka's LocalLog.deleteSegmentFiles: the files are renamed `.deleted` at once and removed
// after file.delete.delay.ms, so reads already positioned in them can finish. Files still waiting
// when the log closes are removed then (or only closed, when the directory goes as a whole); any
// left by a crash are removed at the next load (recovery.ts).
import type { Clock, Timer } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { LogSegment } from './segment.js'

export class SegmentDeleter {
  private readonly pending = new Map<LogSegment, Timer>()

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly dir: string,
  ) {}

  /** Renames seg's files `.deleted`; removes them after delayMs (at once for 0 or less). */
  async schedule(seg: LogSegment, delayMs: number): Promise<void> {
    await seg.markDeleted()
    if (!(delayMs > 0)) {
      await seg.delete()
      return
    }
    const timer = this.clock.setTimeout(() => {
      this.pending.delete(seg)
      seg.delete().catch((err) => this.logger.error('deleting a segment file failed', { dir: this.dir, file: seg.logPath, error: err }))
    }, delayMs)
    this.pending.set(seg, timer)
  }

  /** The files still waiting for their delay: removed now (removeFiles) or just closed. */
  async settle(removeFiles: boolean): Promise<void> {
    for (const [seg, timer] of [...this.pending]) {
      timer.cancel()
      this.pending.delete(seg)
      if (removeFiles)
        await seg.delete().catch((err) => this.logger.warn('deleting a segment file failed', { file: seg.logPath, error: err }))
      else await seg.closeHandle().catch(() => {})
    }
  }
}
