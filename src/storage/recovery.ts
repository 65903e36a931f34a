// Loading a partition directory at startup (Kafka's LogLoader).
//
// After a clean shutdown (the log dir holds `.kafka_cleanshutdown`) every file is trusted: indexes
// are loaded (rebuilt if missing, of a size that is not a multiple of the entry size, or not
// monotonic), and only the tail of the last segment — from its last offset-index entry — is read
// to find the log end offset. Otherwise every segment from the one containing the recovery point
// (the offset up to which the log was fsynced, from recovery-point-offset-checkpoint; absent = 0)
// is rescanned: each batch's header, CRC-32C and offset continuity are checked; at the first
// invalid or partial batch the .log is truncated and every later segment deleted (so is every
// segment after one that ends before the next starts: it lost its tail), and the scanned
// segments' indexes are rebuilt and fsynced; the leader epochs the rescanned batches begin are
// handed to the log's epoch cache. What survives is the longest prefix of valid batches
// (docs/architecture.md §3); a log whose end falls below its checkpointed log start restarts empty at that start.
// Leftover temp files and index files without a .log are removed.
//
// Compaction swaps (Kafka's LogLoader, first three passes) are settled before anything else. A
// `<base>.log.swap` means the swap was committed: the segments it replaces — every segment file
// with a base offset in [base, the swap segment's next offset) — are deleted, then the `.swap`
// files are renamed to their final names. The cleaner keeps each cleaned segment's last batch
// (empty if need be), so that range is exactly the segments the swap replaced and the log reads
// as after it. A `.cleaned` file is an unfinished cleaner output and is deleted, with the index
// `.swap` files of its base offset when its .log was not renamed yet (the swap had not committed).
// Kafka also discards every swap above a `.cleaned` file, for its segment splits; there are no
// splits here, and a committed swap must win, as its old segments may be partly gone already.
//
// Producer state (producer-state.ts) is loaded with the segments, as Kafka's LogLoader rebuilds it:
// the newest snapshot that decodes is loaded (a corrupt one is deleted and the next older tried),
// then the batch headers from its offset — from the log start without one — to the log end are
// replayed: those of rescanned segments as the rescan meets them (no second read), the others by
// a header walk. Snapshots above the recovered log end (their offsets were lost; the state is then
// rebuilt from an older one) or below the log start are deleted, and so, after a crash, are those
// above the first rescanned segment's base offset (they follow batches that were not fsynced).
// Whatever recovery removes, it makes durable with the directory's fsync before the log goes on. A clean shutdown leaves a
// snapshot at the log end when there are producers, so after a clean shutdown without any
// snapshot there is no producer state and nothing is read (Kafka's rule for logs without snapshots).
//
// Transactions: the replay rebuilds the open transactions with the producers. A rescanned
// segment's transaction index is rebuilt from the markers the rescan meets in it, which need the
// producers' state as of the segment (it says which transaction a marker aborts, and the last
// stable offset then): as Kafka's LogLoader.recoverSegment, a second, temporary state is loaded
// from the newest snapshot at or below the first rescanned segment's base offset (one is written
// at each roll; the log start without one) and replayed over every batch from there. The other
// segments' transaction indexes are loaded as their other indexes.
import { KafkaError } from '../protocol/errors.js'
import type { BatchHeader } from '../protocol/records/batch.js'
import type { Logger } from '../util/logger.js'
import type { Fs } from './fs.js'
import { unlinkIfExists } from './index-file.js'
import type { LogConfig } from './log-config.js'
import { CorruptSnapshotError, decodeSnapshot, deleteSnapshot, snapshotFileName, snapshotOffsets } from './producer-snapshot.js'
import type { CompletedTxn, ProducerStateManager } from './producer-state.js'
import { CLEANED_SUFFIX, LOG_SUFFIX, LogSegment, SCAN_CHUNK_BYTES, type SegmentConfig, SWAP_SUFFIX, segmentFileName } from './segment.js'

const SEGMENT_FILE = /^(\d{20})(\.log|\.index|\.timeindex|\.txnindex)$/
const LEFTOVER = /\.(tmp|deleted|cleaned)$/
/** Any file named after a segment's base offset: the segment files, with any suffix. */
const OFFSET_FILE = /^(\d{20})\.(log|index|timeindex|txnindex)(\.\w+)?$/

export interface LoadOptions {
  fs: Fs
  dir: string
  config: LogConfig
  nowMs: number
  logger: Logger
  cleanShutdown: boolean
  /** From recovery-point-offset-checkpoint; undefined = recover every segment. */
  recoveryPoint?: number
  /** From log-start-offset-checkpoint. */
  logStartOffset?: number
  /** The producer state to rebuild (emptied first), at this time (producer.id.expiration.ms). */
  producers?: { state: ProducerStateManager; nowMs: number }
}

export interface LoadedLog {
  segments: LogSegment[]
  nextOffset: number
  logStartOffset: number
  recoveryPoint: number
  /** Segments rescanned by recovery, and the bytes it cut off. */
  recoveredSegments: number
  truncatedBytes: number
  /**
   * Where each leader epoch starts in the rescanned batches (the first batch of each epoch above
   * the previous one): the log assigns those newer than its checkpoint, as Kafka's
   * LogSegment.recover does, since an epoch is checkpointed after the batch that began it is written.
   */
  epochStarts: Array<{ epoch: number; startOffset: number }>
  /** The log was restarted empty at its checkpointed start: no leader epoch applies any more. */
  emptied: boolean
  /** Offsets of the producer state snapshots that remain, ascending. */
  snapshots: number[]
}

export function segmentConfigOf(c: LogConfig): SegmentConfig {
  return { indexIntervalBytes: c.indexIntervalBytes, maxIndexSizeBytes: c.maxIndexSizeBytes }
}

/** Loads the trusted indexes of a segment; false when one of them has to be rebuilt. */
async function loadIndexes(fs: Fs, seg: LogSegment): Promise<boolean> {
  const a = await seg.offsetIndex.load(fs, seg.sizeBytes)
  const b = await seg.timeIndex.load(fs, seg.sizeBytes)
  const c = await seg.txnIndex.load(fs)
  return a && b && c
}

/**
 * Completes the transaction a replayed marker ended; an aborted one goes to the transaction index
 * of `into` (the segment holding the marker, when its index is being rebuilt).
 */
export function completeReplayed(state: ProducerStateManager, txn: CompletedTxn, into: LogSegment | null): void {
  const lastStableOffset = state.completeTxn(txn)
  if (txn.isAborted && into) {
    into.txnIndex.append({ producerId: txn.producerId, firstOffset: txn.firstOffset, lastOffset: txn.lastOffset, lastStableOffset })
  }
}

/** Settles what an interrupted cleaner swap left in dir (see the header comment). */
async function completeInterruptedSwaps(opts: LoadOptions, segConfig: SegmentConfig): Promise<void> {
  const { fs, dir, logger } = opts
  const names = await fs.readdir(dir)
  if (!names.some((n) => n.endsWith(CLEANED_SUFFIX) || n.endsWith(SWAP_SUFFIX))) return
  const swapLogs: number[] = []
  const cleanedLogs = new Set<number>()
  for (const n of names) {
    const m = OFFSET_FILE.exec(n)
    if (m?.[2] === 'log' && m[3] === SWAP_SUFFIX) swapLogs.push(Number(m[1]))
    if (m?.[2] === 'log' && m[3] === CLEANED_SUFFIX) cleanedLogs.add(Number(m[1]))
  }
  // Index `.swap` files of a swap whose .log had not been renamed yet: not committed.
  for (const n of names) {
    const m = OFFSET_FILE.exec(n)
    if (!m || m[3] !== SWAP_SUFFIX || m[2] === 'log') continue
    const base = Number(m[1])
    if (!swapLogs.includes(base) && cleanedLogs.has(base)) {
      logger.info('removing a swap file of a cleaning that did not finish', { dir, file: n })
      await unlinkIfExists(fs, `${dir}/${n}`)
    }
  }
  let from = Number.POSITIVE_INFINITY
  let to = Number.NEGATIVE_INFINITY
  for (const base of swapLogs) {
    const name = `${segmentFileName(base, LOG_SUFFIX)}${SWAP_SUFFIX}`
    const st = await fs.stat(`${dir}/${name}`)
    const seg = LogSegment.existing(fs, dir, base, segConfig, opts.nowMs, st?.size ?? 0, SWAP_SUFFIX)
    let next = base
    try {
      await seg.scan(0, seg.sizeBytes, false, SCAN_CHUNK_BYTES, (h) => {
        next = h.baseOffset + h.lastOffsetDelta + 1
        return true
      })
    } finally {
      await seg.closeHandle()
    }
    logger.info('completing an interrupted cleaner swap', { dir, file: name, replaces: `[${base}, ${next})` })
    from = Math.min(from, base)
    to = Math.max(to, next)
  }
  for (const n of await fs.readdir(dir)) {
    const m = OFFSET_FILE.exec(n)
    if (!m || m[3] === SWAP_SUFFIX) continue
    const base = Number(m[1])
    if (m[3] === CLEANED_SUFFIX || (base >= from && base < to)) await unlinkIfExists(fs, `${dir}/${n}`)
  }
  for (const n of await fs.readdir(dir)) {
    if (n.endsWith(SWAP_SUFFIX) && OFFSET_FILE.test(n)) await fs.rename(`${dir}/${n}`, `${dir}/${n.slice(0, -SWAP_SUFFIX.length)}`)
  }
  await fs.syncDir(dir)
}

export async function loadSegments(opts: LoadOptions): Promise<LoadedLog> {
  const { fs, dir, logger } = opts
  const segConfig = segmentConfigOf(opts.config)
  await completeInterruptedSwaps(opts, segConfig)
  const names = await fs.readdir(dir)
  const logs = new Set<string>()
  for (const n of names) {
    const m = SEGMENT_FILE.exec(n)
    if (m && m[2] === LOG_SUFFIX) logs.add(m[1]!)
  }
  for (const n of names) {
    const m = SEGMENT_FILE.exec(n)
    if (LEFTOVER.test(n) || (m && m[2] !== LOG_SUFFIX && !logs.has(m[1]!))) {
      logger.debug('removing leftover file', { dir, file: n })
      await unlinkIfExists(fs, `${dir}/${n}`)
    }
  }

  const bases = [...logs].map(Number).sort((a, b) => a - b)
  const segments: LogSegment[] = []
  for (const base of bases) {
    const st = await fs.stat(`${dir}/${segmentFileName(base, LOG_SUFFIX)}`)
    segments.push(LogSegment.existing(fs, dir, base, segConfig, opts.nowMs, st?.size ?? 0))
  }
  if (segments.length === 0) {
    const start = Math.max(0, opts.logStartOffset ?? 0)
    segments.push(await LogSegment.create(fs, dir, start, segConfig, opts.nowMs))
  }

  // Index of the first segment to rescan.
  let from = segments.length
  const rp = opts.recoveryPoint ?? 0
  if (!opts.cleanShutdown) {
    from = 0
    for (let i = 0; i < segments.length; i++) if (segments[i]!.baseOffset <= rp) from = i
  }

  // The producer state's starting point: the newest snapshot that decodes (at or below the first
  // rescanned segment, whose markers rebuild its transaction index), or the log start.
  const producers = opts.producers
  let snapshots: number[] = []
  let snapshotAt = -1
  let hadSnapshot = false
  if (producers) {
    producers.state.clear()
    const minStart = opts.logStartOffset ?? segments[0]!.baseOffset
    // After a crash the snapshots above the first rescanned segment's base offset describe
    // batches that were not fsynced: the disk may have kept a snapshot file and lost the batches
    // it follows, or kept a truncation's rewritten batches beside an older history's snapshot
    // (found by the transactions crash property test). As Kafka's LogLoader, which rebuilds the
    // state of each unflushed segment from the log and snapshots it again, they are not trusted:
    // they go, and the state is replayed from the one at or below that base.
    const maxTrusted = !opts.cleanShutdown && from < segments.length ? segments[from]!.baseOffset : Number.POSITIVE_INFINITY
    ;({
      offsets: snapshots,
      loadedAt: snapshotAt,
      found: hadSnapshot,
    } = await loadNewestSnapshot(fs, dir, logger, producers.state, producers.nowMs, minStart, maxTrusted))
  }
  const replayFrom = snapshotAt >= 0 ? snapshotAt : (opts.logStartOffset ?? 0)
  // The state the rescanned segments' transaction indexes are rebuilt with (see the header comment).
  let txnState: ProducerStateManager | null = null
  let txnFrom = 0
  if (producers && !opts.cleanShutdown && from < segments.length) {
    txnState = producers.state.emptyCopy()
    const at = await loadSnapshotAtOrBelow(fs, dir, snapshots, segments[from]!.baseOffset, txnState, producers.nowMs)
    txnFrom = at >= 0 ? at : (opts.logStartOffset ?? 0)
  }
  // Without any snapshot file after a clean shutdown there were no producers: nothing to read.
  // A corrupt snapshot does not count as none: the state is then rebuilt from the log start.
  const replaying = producers !== undefined && (hadSnapshot || !opts.cleanShutdown)
  const replay = (h: BatchHeader, buf: Buffer, seg: LogSegment) => {
    const last = h.baseOffset + h.lastOffsetDelta
    if (txnState && last >= txnFrom) {
      const done = txnState.applyWritten(h, buf)
      if (done) completeReplayed(txnState, done, seg)
    }
    if (!replaying || last < replayFrom) return
    const done = producers!.state.applyWritten(h, buf)
    // Without the temporary state (a segment rescanned for a bad index after a clean shutdown),
    // the markers the state itself replays rebuild what they can.
    if (done) completeReplayed(producers!.state, done, txnState ? null : seg)
  }

  let recoveredSegments = 0
  let truncatedBytes = 0
  const epochStarts: LoadedLog['epochStarts'] = []
  const noteEpoch = (h: BatchHeader) => {
    const last = epochStarts[epochStarts.length - 1]
    if (h.partitionLeaderEpoch >= 0 && (!last || h.partitionLeaderEpoch > last.epoch)) {
      epochStarts.push({ epoch: h.partitionLeaderEpoch, startOffset: h.baseOffset })
    }
  }
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!
    const last = i === segments.length - 1
    let rescan = i >= from
    if (!rescan) {
      if (!(await loadIndexes(fs, seg))) {
        logger.warn('rebuilding segment indexes', { dir, baseOffset: seg.baseOffset })
        rescan = true
      } else if (last) {
        const r = await seg.loadTail()
        if (r.stop !== 'end') {
          logger.warn('invalid tail after a clean shutdown; recovering the segment', {
            dir,
            baseOffset: seg.baseOffset,
            reason: r.reason,
          })
          rescan = true
        }
      } else if (i === from - 1 && segments[from]!.baseOffset === rp) {
        // The segment ending at the recovery point may have been fsynced whole while active, then
        // rolled: the crash can come before the roll's background write of its final time-index
        // entry (PartitionLog.roll), which holds its largest timestamp. So that is read from the
        // batches after its last offset-index entry, as for the last segment (found by the crash
        // property test: a timestamp lookup skipped the segment). The entry is then written down
        // before the new recovery point makes this segment an ordinary trusted one.
        const r = await seg.loadTail()
        if (r.stop !== 'end') rescan = true
        else {
          seg.endBefore(segments[i + 1]!.baseOffset)
          seg.finalizeTimeIndex()
          await seg.persistIndexes(true)
        }
      } else {
        seg.restoreFromIndexes(segments[i + 1]!.baseOffset)
      }
    }
    if (!rescan) {
      const next = segments[i + 1]
      if (replaying && (next === undefined || next.baseOffset > replayFrom)) {
        await replayProducerState([seg], replayFrom, Number.MAX_SAFE_INTEGER, producers!.state)
      }
      if (txnState && i < from && (next === undefined || next.baseOffset > txnFrom)) {
        await replayProducerState([seg], txnFrom, Number.MAX_SAFE_INTEGER, txnState)
      }
      continue
    }
    const r = await seg.recover((h, buf) => {
      noteEpoch(h)
      replay(h, buf, seg)
    })
    recoveredSegments++
    let cut = r.truncatedBytes > 0
    if (cut) {
      truncatedBytes += r.truncatedBytes
      logger.warn('recovery truncated a segment', {
        dir,
        baseOffset: seg.baseOffset,
        truncatedBytes: r.truncatedBytes,
        reason: r.reason,
      })
    }
    if (!last && !cut) {
      const next = segments[i + 1]!.baseOffset
      if (seg.nextOffset < next) {
        // The segment lost its unflushed tail with its size (nothing to cut: the file is just
        // shorter, or empty) while a later segment's name survived: keeping that one would leave
        // a gap in the offsets, so it goes as after a torn batch. Every segment but the last ends
        // where the next starts (a roll starts it at the log end; the cleaner keeps each cleaned
        // segment's last batch). Found by the crash property test.
        logger.warn('segment ends before the next one starts; dropping the later segments', { dir, baseOffset: seg.baseOffset, next })
        cut = true
      } else if (seg.nextOffset !== next) {
        logger.warn('segment does not end where the next one starts', { dir, baseOffset: seg.baseOffset, next })
      }
    }
    if (cut && !last) {
      // Everything after a torn batch is gone: delete the later segments, last one first.
      for (let j = segments.length - 1; j > i; j--) {
        logger.warn('recovery deleted a segment after a torn one', { dir, baseOffset: segments[j]!.baseOffset })
        await segments[j]!.delete()
      }
      segments.length = i + 1
    }
    if (i < segments.length - 1) seg.finalizeTimeIndex()
    await seg.flush()
  }

  const active = segments[segments.length - 1]!
  let nextOffset = Math.max(active.nextOffset, active.baseOffset)
  const checkpointedStart = opts.logStartOffset
  let emptied = false
  if (checkpointedStart !== undefined && nextOffset < checkpointedStart) {
    // The log start had moved past records that were never fsynced (DeleteRecords or retention
    // moves it up to the high watermark, and the recovery point with it, without a flush), and
    // the crash lost them: the log would now end below its checkpointed start, and reuse offsets
    // that were handed out. As Kafka's LogLoader.recoverLog, restart it empty at that start
    // (found by the crash property test).
    logger.warn('log end below the checkpointed log start; restarting the log empty there', {
      dir,
      logEndOffset: nextOffset,
      logStartOffset: checkpointedStart,
    })
    for (let j = segments.length - 1; j >= 0; j--) await segments[j]!.delete()
    segments.length = 0
    segments.push(await LogSegment.create(fs, dir, checkpointedStart, segConfig, opts.nowMs))
    nextOffset = checkpointedStart
    epochStarts.length = 0
    emptied = true
  }
  if (producers) {
    if (emptied) producers.state.clear()
    if (emptied || snapshotAt > nextOffset) {
      // The snapshot loaded is past what survived: start again from the snapshots that remain.
      snapshots = await loadProducerState({
        fs,
        dir,
        logger,
        segments,
        logStartOffset: emptied ? nextOffset : Math.max(opts.logStartOffset ?? 0, segments[0]!.baseOffset),
        logEndOffset: nextOffset,
        nowMs: producers.nowMs,
        state: producers.state,
      })
    } else {
      producers.state.removeExpired(producers.nowMs)
    }
  }
  // What recovery removed (leftovers, the segments after a torn one, snapshots past the log end,
  // corrupt or below the start) stays removed: without the directory's fsync a later crash could
  // bring those files back beside what is appended from here on — a log mixing two histories,
  // with an old snapshot trusted as the state at its offset (found by the transactions crash
  // property test). Kafka relies on ext4 committing the unlinks with the next fsync.
  const left = new Set(await fs.readdir(dir))
  if (names.some((n) => !left.has(n))) await fs.syncDir(dir)
  const first = segments[0]!.baseOffset
  const logStartOffset = Math.min(Math.max(opts.logStartOffset ?? first, first), nextOffset)
  return {
    segments,
    nextOffset,
    logStartOffset,
    // Clean: everything was fsynced at close; unclean: the rescanned segments were fsynced above.
    recoveryPoint: nextOffset,
    recoveredSegments,
    truncatedBytes,
    epochStarts,
    emptied,
    snapshots,
  }
}

/**
 * Deletes the snapshots below minOffset or above maxOffset, loads the newest that decodes into
 * state (deleting the corrupt ones above it) and returns the offsets left and the loaded one (-1: none).
 */
async function loadNewestSnapshot(
  fs: Fs,
  dir: string,
  logger: Logger,
  state: ProducerStateManager,
  nowMs: number,
  minOffset: number,
  maxOffset: number,
): Promise<{ offsets: number[]; loadedAt: number; found: boolean }> {
  const offsets: number[] = []
  for (const o of snapshotOffsets(await fs.readdir(dir))) {
    if (o < minOffset || o > maxOffset) await deleteSnapshot(fs, dir, o)
    else offsets.push(o)
  }
  const found = offsets.length > 0
  while (offsets.length > 0) {
    const o = offsets[offsets.length - 1]!
    try {
      state.load(decodeSnapshot(await fs.readFile(`${dir}/${snapshotFileName(o)}`)), nowMs)
      return { offsets, loadedAt: o, found }
    } catch (err) {
      if (!(err instanceof CorruptSnapshotError)) throw err
      logger.warn('deleting a corrupt producer snapshot', { dir, offset: o, error: err })
      state.clear()
      await deleteSnapshot(fs, dir, o)
      offsets.pop()
    }
  }
  return { offsets, loadedAt: -1, found }
}

/** Loads into state the newest of the snapshots at offsets ≤ maxOffset that decodes (deleting none); its offset, -1 for none. */
async function loadSnapshotAtOrBelow(
  fs: Fs,
  dir: string,
  offsets: readonly number[],
  maxOffset: number,
  state: ProducerStateManager,
  nowMs: number,
): Promise<number> {
  for (let i = offsets.length - 1; i >= 0; i--) {
    const o = offsets[i]!
    if (o > maxOffset) continue
    try {
      state.load(decodeSnapshot(await fs.readFile(`${dir}/${snapshotFileName(o)}`)), nowMs)
      return o
    } catch (err) {
      if (!(err instanceof CorruptSnapshotError)) throw err
      state.clear()
    }
  }
  return -1
}

export interface ProducerStateLoad {
  fs: Fs
  dir: string
  logger: Logger
  segments: readonly LogSegment[]
  logStartOffset: number
  logEndOffset: number
  nowMs: number
  state: ProducerStateManager
}

/**
 * Rebuilds state (emptied first) from the snapshots of dir and the log (see the header comment).
 * Returns the offsets of the snapshots that remain, ascending.
 */
export async function loadProducerState(opts: ProducerStateLoad): Promise<number[]> {
  const { fs, dir, state } = opts
  state.clear()
  const { offsets, loadedAt } = await loadNewestSnapshot(fs, dir, opts.logger, state, opts.nowMs, opts.logStartOffset, opts.logEndOffset)
  await replayProducerState(opts.segments, loadedAt >= 0 ? loadedAt : opts.logStartOffset, opts.logEndOffset, state)
  state.removeExpired(opts.nowMs)
  return offsets
}

/** Applies the batch headers of [from, to) to state, as written (no sequence checks); the segments' transaction indexes are kept. */
export async function replayProducerState(
  segments: readonly LogSegment[],
  from: number,
  to: number,
  state: ProducerStateManager,
): Promise<void> {
  for (let i = 0; i < segments.length && from < to; i++) {
    const seg = segments[i]!
    const next = segments[i + 1]
    if (next && next.baseOffset <= from) continue
    const r = await seg.scan(seg.offsetIndex.floorPosition(from), seg.sizeBytes, false, SCAN_CHUNK_BYTES, (h, _pos, buf) => {
      if (h.baseOffset >= to) return false
      if (h.baseOffset + h.lastOffsetDelta < from) return true
      const done = state.applyWritten(h, buf)
      if (done) completeReplayed(state, done, null)
      return true
    })
    if (r.stop === 'corrupt') throw new KafkaError('KAFKA_STORAGE_ERROR', `${seg.logPath} at ${r.position}: ${r.reason}`)
  }
}
