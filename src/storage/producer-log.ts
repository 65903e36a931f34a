// The idempotent producers of one partition log and their `<offset>.snapshot` files, kept together:
// the state (producer-state.ts) that every append checks and updates, and the list of snapshot
// files (producer-snapshot.ts) that the log writes at each roll and at close, deletes with the
// segments below the log start (and all of them when the log restarts empty), and reloads from
// after a truncation. The partition log calls it under its own serialization; nothing here locks.
import type { BatchHeader } from '../protocol/records/batch.js'
import type { Logger } from '../util/logger.js'
import type { Fs } from './fs.js'
import { deleteSnapshot, encodeSnapshot, writeSnapshot } from './producer-snapshot.js'
import type { PreparedAppend, ProducerEntry, ProducerStateManager, ProducerUpdates } from './producer-state.js'
import { loadProducerState } from './recovery.js'
import type { LogSegment } from './segment.js'

export class ProducerLog {
  constructor(
    private readonly fs: Fs,
    private readonly dir: string,
    private readonly logger: Logger,
    private readonly state: ProducerStateManager,
    /** Offsets of the snapshot files on disk, ascending. */
    private snapshots: number[],
  ) {}

  /** A copy of a producer's state, or undefined. */
  entry(producerId: number): ProducerEntry | undefined {
    return this.state.entry(producerId)
  }

  entries(): ProducerEntry[] {
    return this.state.entries()
  }

  snapshotOffsets(): number[] {
    return [...this.snapshots]
  }

  /** Checks a producer's batches against the state (and each other): a duplicate, or the updates to commit once written. */
  prepare(batches: readonly BatchHeader[]): PreparedAppend {
    return this.state.prepare(batches)
  }

  /** The batches are written: a producer's append commits what prepare() returned; a follower's applies each batch as written. */
  written(updates: ProducerUpdates | null | 'replicated', batches: readonly BatchHeader[]): void {
    if (updates === 'replicated') for (const b of batches) this.state.applyWritten(b)
    else this.state.commit(updates)
  }

  removeExpired(nowMs: number): number {
    return this.state.removeExpired(nowMs)
  }

  /**
   * The state encoded as a snapshot at offset `at` (the log end), recorded as a file to be written
   * with writeSnapshot; null — unless `always` — when there is nothing to keep (no producer and no
   * snapshot that could be outdated).
   */
  takeSnapshot(at: number, always = false): Buffer | null {
    if (!always && this.state.size === 0 && this.snapshots.length === 0) return null
    if (this.snapshots[this.snapshots.length - 1] !== at) this.snapshots.push(at)
    return encodeSnapshot(this.state.entries())
  }

  writeSnapshot(at: number, data: Buffer): Promise<void> {
    return writeSnapshot(this.fs, this.dir, at, data)
  }

  /** Deletes the snapshots below the log start (they go with their segments; the producers stay). */
  deleteBelow(logStartOffset: number): Promise<void> {
    return this.deleteWhere((o) => o < logStartOffset)
  }

  /** The log restarts empty: no producer, no snapshot (Kafka's truncateFullyAndStartAt). */
  async clear(): Promise<void> {
    this.state.clear()
    await this.deleteWhere(() => true)
  }

  /** The state as of a new log end after a truncation, from the snapshots and the log (Kafka's truncateAndReload). */
  async reload(segments: readonly LogSegment[], logStartOffset: number, logEndOffset: number, nowMs: number): Promise<void> {
    this.snapshots = await loadProducerState({
      fs: this.fs,
      dir: this.dir,
      logger: this.logger,
      segments,
      logStartOffset,
      logEndOffset,
      nowMs,
      state: this.state,
    })
  }

  private async deleteWhere(gone: (offset: number) => boolean): Promise<void> {
    const doomed = this.snapshots.filter(gone)
    if (doomed.length === 0) return
    this.snapshots = this.snapshots.filter((o) => !gone(o))
    for (const o of doomed) await deleteSnapshot(this.fs, this.dir, o)
  }
}
