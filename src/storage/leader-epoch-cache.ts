// The leader epochs of a partition and the offset each started at, kept in the partition's
// `leader-epoch-checkpoint` (format in checkpoint-file.ts). The log records an epoch when a batch
// of a new epoch is appended (as Kafka's LeaderEpochFileCache does) and trims the entries when the
// log is truncated; replication answers OffsetForLeaderEpoch from endOffsetFor (KIP-101, KIP-279).
// Crash: rewritten atomically on every change; after recovery, entries at or past the recovered
// log end are dropped.
import { CheckpointFile, type EpochEntry, epochEntryFormat } from './checkpoint-file.js'
import type { Fs } from './fs.js'

export const LEADER_EPOCH_CHECKPOINT = 'leader-epoch-checkpoint'
export const UNDEFINED_EPOCH = -1
export const UNDEFINED_EPOCH_OFFSET = -1

export class LeaderEpochCache {
  private constructor(
    private readonly file: CheckpointFile<EpochEntry>,
    private list: EpochEntry[],
  ) {}

  /** Throws CorruptCheckpointError when the file is malformed. */
  static async load(fs: Fs, dir: string): Promise<LeaderEpochCache> {
    const file = new CheckpointFile(fs, `${dir}/${LEADER_EPOCH_CHECKPOINT}`, epochEntryFormat)
    const entries = await file.read()
    // Keep only a strictly increasing sequence, as a valid file is.
    const clean: EpochEntry[] = []
    for (const e of entries) {
      const last = clean[clean.length - 1]
      if (!last || (e.epoch > last.epoch && e.startOffset >= last.startOffset)) clean.push(e)
    }
    return new LeaderEpochCache(file, clean)
  }

  /** A cache with no entries (its file is rewritten on the next change). */
  static empty(fs: Fs, dir: string): LeaderEpochCache {
    return new LeaderEpochCache(new CheckpointFile(fs, `${dir}/${LEADER_EPOCH_CHECKPOINT}`, epochEntryFormat), [])
  }

  entries(): readonly EpochEntry[] {
    return this.list
  }

  get latestEpoch(): number {
    return this.list.length === 0 ? UNDEFINED_EPOCH : this.list[this.list.length - 1]!.epoch
  }

  /** Records that epoch starts at startOffset, when epoch is newer than the latest one. */
  async assign(epoch: number, startOffset: number): Promise<void> {
    if (epoch < 0 || epoch <= this.latestEpoch) return
    this.list = this.list.filter((e) => e.startOffset < startOffset)
    this.list.push({ epoch, startOffset })
    await this.file.write(this.list)
  }

  /** Drops the epochs starting at or after endOffset (the log was truncated to endOffset). */
  async truncateFromEnd(endOffset: number): Promise<void> {
    const kept = this.list.filter((e) => e.startOffset < endOffset)
    if (kept.length === this.list.length) return
    this.list = kept
    await this.file.write(this.list)
  }

  /** Drops the epochs wholly below startOffset (the log start moved up). */
  async truncateFromStart(startOffset: number): Promise<void> {
    let i = 0
    while (i + 1 < this.list.length && this.list[i + 1]!.startOffset <= startOffset) i++
    const first = this.list[i]
    if (i === 0 && (!first || first.startOffset >= startOffset)) return
    this.list = this.list.slice(i)
    if (first && first.startOffset < startOffset) this.list[0] = { epoch: first.epoch, startOffset }
    await this.file.write(this.list)
  }

  /**
   * OffsetForLeaderEpoch: the largest epoch ≤ requested and the offset where the next epoch
   * starts (logEndOffset for the latest epoch); (-1, -1) when the epoch is undefined or newer than
   * every known epoch.
   */
  endOffsetFor(requestedEpoch: number, logEndOffset: number): { epoch: number; endOffset: number } {
    const undefinedAnswer = { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET }
    if (requestedEpoch === UNDEFINED_EPOCH) return undefinedAnswer
    if (requestedEpoch === this.latestEpoch) return { epoch: requestedEpoch, endOffset: logEndOffset }
    const higher = this.list.findIndex((e) => e.epoch > requestedEpoch)
    if (higher < 0) return undefinedAnswer
    const endOffset = this.list[higher]!.startOffset
    return higher === 0 ? { epoch: requestedEpoch, endOffset } : { epoch: this.list[higher - 1]!.epoch, endOffset }
  }
}
