// The producers of one partition log and their `<offset>.snapshot` files, kept together: the state
// (producer-state.ts) that every append checks and updates — its transactions with it — and the list of snapshot
// files (producer-snapshot.ts) that the log writes at each roll and at close, deletes with the
// segments below the log start (and all of them when the log restarts empty), and reloads from
// after a truncation. The partition log calls it under its own serialization; nothing here locks.
import type { BatchHeader } from '../protocol/records/batch.js'
import type { Logger } from '../util/logger.js'
import type { Fs } from './fs.js'
import { deleteSnapshot, encodeSnapshot, writeSnapshot } from './producer-snapshot.js'
import type {
  CompletedTxn,
  PreparedAppend,
  PrepareOptions,
  ProducerEntry,
  ProducerStateManager,
  ProducerUpdates,
  TxnMetadata,
} from './producer-state.js'
import { loadProducerState } from './recovery.js'
import type { AbortedTxn } from './transaction-index.js'
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

  /** Checks an append's batches (in records) against the state and each other: a duplicate, or the updates to commit once written. */
  prepare(batches: readonly BatchHeader[], records: Buffer, opts?: PrepareOptions): PreparedAppend {
    return this.state.prepare(batches, records, opts)
  }

  /**
   * The batches (in records) are written: a leader's append commits what prepare() returned, a
   * follower's applies each batch as written. Returns the transactions their markers aborted, with
   * the last stable offset of the moment, for the transaction index of the segment written to.
   */
  written(updates: ProducerUpdates | null | 'replicated', batches: readonly BatchHeader[], records: Buffer): AbortedTxn[] {
    const aborted: AbortedTxn[] = []
    const complete = (txn: CompletedTxn) => {
      const lastStableOffset = this.state.completeTxn(txn)
      if (txn.isAborted)
        aborted.push({ producerId: txn.producerId, firstOffset: txn.firstOffset, lastOffset: txn.lastOffset, lastStableOffset })
    }
    if (updates === 'replicated') {
      for (const b of batches) {
        const done = this.state.applyWritten(b, records)
        if (done) complete(done)
      }
    } else {
      this.state.commit(updates)
      for (const txn of updates?.completed ?? []) complete(txn)
    }
    return aborted
  }

  /** The first offset of the oldest transaction open or not yet replicated; -1: none. */
  firstUnstableOffset(): number {
    return this.state.firstUnstableOffset()
  }

  onHighWatermarkUpdated(highWatermark: number): void {
    this.state.onHighWatermarkUpdated(highWatermark)
  }

  hasOngoingTransaction(producerId: number): boolean {
    return this.state.hasOngoingTransaction(producerId)
  }

  ongoingTransactions(): TxnMetadata[] {
    return this.state.ongoingTransactions()
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
