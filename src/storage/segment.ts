// A log segment: `<baseOffset>.log` (20-digit zero-padded base offset) holding record batches v2
// back to back, exactly as producers sent them (only baseOffset and partitionLeaderEpoch patched,
// docs/architecture.md §1.3), plus its sparse `.index` and `.timeindex` (offset-index.ts, time-index.ts)
// and its `.txnindex` of the transactions aborted in it (transaction-index.ts), which exists only
// once it has an entry.
//
// Crash: a .log keeps what was fsynced, and possibly more; an append that was in flight may leave
// a torn batch at the end. recover() rescans the file, keeps the longest prefix of batches whose
// header, CRC-32C and offsets are valid, truncates the rest and rebuilds both indexes from it; the
// transaction index is emptied, for the caller to refill from the markers the rescan hands it (the
// producer state decides which transactions they abort: recovery.ts).
//
// The segment keeps its own bookkeeping: append() writes the batches and then updates the indexes
// (an entry per index.interval.bytes, as Kafka's LogSegment.append), the largest timestamp, the
// next offset and the size; nobody else writes them. That in-memory state is only updated after
// the bytes it describes are written, so concurrent readers never see past them.
//
// Deletion (retention, DeleteRecords) is asynchronous, as Kafka's: markDeleted() renames the .log
// to `.log.deleted` (a read in flight keeps reading through its open handle, or reopens the new
// name) and removes the indexes at once (their entries stay in memory for such reads); delete()
// later removes the file. A `.deleted` file left by a crash is removed when the log is loaded.
//
// Compaction (cleaner/): the cleaner writes a replacement segment under `.cleaned` names
// (createCleaned), which the log swaps in through `.swap` names (PartitionLog.replaceSegments);
// fromSwapped() then opens it under its final names. A cleaned segment keeps the original offsets,
// so its batches may leave gaps between them: offsets only have to increase within a segment.
import { KafkaError } from '../protocol/errors.js'
import {
  ATTRIBUTES_OFFSET,
  BATCH_HEADER_SIZE,
  BATCH_LENGTH_OFFSET,
  type BatchHeader,
  batchCrcMatches,
  CONTROL_MASK,
  CURRENT_MAGIC,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MIN_BATCH_LENGTH,
  NO_TIMESTAMP,
  readBatchHeader,
  readInt64,
} from '../protocol/records/batch.js'
import type { FileHandle, Fs } from './fs.js'
import { unlinkIfExists } from './index-file.js'
import { OffsetIndex } from './offset-index.js'
import { TimeIndex } from './time-index.js'
import { TransactionIndex, TXN_INDEX_SUFFIX } from './transaction-index.js'
import { readBuffers } from './read-buffers.js'

/** Largest offset − baseOffset an index can hold: relative offsets are int32. */
export const MAX_RELATIVE_OFFSET = 0x7fffffff
/** Smallest positional read when looking for a batch (a tail read is one read of this size). */
export const READ_CHUNK_BYTES = 64 * 1024
/** Read size of recovery and index rebuild scans. */
export const SCAN_CHUNK_BYTES = 1024 * 1024

export const LOG_SUFFIX = '.log'
export const INDEX_SUFFIX = '.index'
export const TIME_INDEX_SUFFIX = '.timeindex'
export { TXN_INDEX_SUFFIX }
export const DELETED_SUFFIX = '.deleted'
/** A segment the cleaner is still writing (Kafka's CleanedFileSuffix); removed when a log loads. */
export const CLEANED_SUFFIX = '.cleaned'
/** A cleaned segment being swapped in (Kafka's SwapFileSuffix); a log load completes the swap. */
export const SWAP_SUFFIX = '.swap'

export function segmentFileName(baseOffset: number, suffix: string): string {
  return `${String(baseOffset).padStart(20, '0')}${suffix}`
}

/**
 * Renames a segment's files from suffix `from` to `to` (Kafka's changeFileSuffixes). The .log goes
 * last when logLast (so a `.log.swap` exists only once the indexes were renamed: its presence is
 * the swap's commit point), first otherwise. A segment without aborted transactions has no
 * `.txnindex`; a stale one under the target name is removed.
 */
export async function renameSegmentFiles(fs: Fs, dir: string, baseOffset: number, from: string, to: string, logLast: boolean) {
  const kinds = logLast
    ? [INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX, LOG_SUFFIX]
    : [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX]
  for (const kind of kinds) {
    const name = `${dir}/${segmentFileName(baseOffset, kind)}`
    if (kind === TXN_INDEX_SUFFIX && (await fs.stat(`${name}${from}`)) === null) {
      await unlinkIfExists(fs, `${name}${to}`)
      continue
    }
    await fs.rename(`${name}${from}`, `${name}${to}`)
  }
}

export interface SegmentConfig {
  indexIntervalBytes: number
  maxIndexSizeBytes: number
}

/** How a scan ended: at `end` ('end'), at a batch the visitor refused ('stopped'), or at an invalid one. */
export interface ScanResult {
  stop: 'end' | 'stopped' | 'partial' | 'corrupt'
  /** File position where the scan stopped (the end of the valid prefix for 'partial'/'corrupt'). */
  position: number
  reason?: string
}

/** Index of the segment holding offset: the last whose base offset ≤ offset (0 when below all). */
export function floorSegmentIndex(segs: readonly LogSegment[], offset: number): number {
  let lo = 0
  let hi = segs.length - 1
  let found = 0
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    if (segs[mid]!.baseOffset <= offset) {
      found = mid
      lo = mid + 1
    } else {
      hi = mid - 1
    }
  }
  return found
}

/** What LogSegment.append needs of a batch (a BatchHeader has it all); position is within the chunks appended. */
export type SegmentBatch = Pick<BatchHeader, 'baseOffset' | 'lastOffsetDelta' | 'maxTimestamp' | 'position' | 'sizeBytes'>

/**
 * A segment append whose write failed: undone when the bytes it may have left were cut off again
 * (the segment is as before), false when even that failed (the file's tail is unknown).
 */
export class AppendFailedError extends Error {
  readonly code = 'SEGMENT_APPEND_FAILED'
  constructor(
    cause: Error,
    readonly undone: boolean,
  ) {
    super(cause.message, { cause })
  }
}

/** A batch found in the file: its header (position relative to buf) and the chunk read around it. */
export interface BatchLocation {
  position: number
  header: BatchHeader
  buf: Buffer
}

/** Sees each batch's header (h.position within buf); a control batch is whole in buf. */
type Visitor = (h: BatchHeader, filePosition: number, buf: Buffer) => boolean | undefined

const EMPTY: Buffer = Buffer.alloc(0)

export class LogSegment {
  readonly offsetIndex: OffsetIndex
  readonly timeIndex: TimeIndex
  readonly txnIndex: TransactionIndex
  // The tail state below is written only by this class (append, recovery, truncation), each
  // field after the bytes it describes: callers read it through the getters.
  private size = 0
  private next: number
  private maxTs = NO_TIMESTAMP
  private maxTsOffset = -1
  private bytesSinceLastIndexEntry = 0
  /** Tail hint: where the last batch starts, so a read at the end needs no scan. */
  private lastBatchPosition = -1
  private lastBatchBaseOffset = -1
  private fh: FileHandle | null = null
  private opening: Promise<FileHandle> | null = null
  private path: string
  private removed = false

  private constructor(
    private readonly fs: Fs,
    readonly dir: string,
    readonly baseOffset: number,
    public config: SegmentConfig,
    /** Clock time of creation (or load), for segment.ms rolls. */
    public createdMs: number,
    /** Appended to the three file names: '' for a live segment, CLEANED_SUFFIX or SWAP_SUFFIX. */
    readonly suffix = '',
  ) {
    this.path = `${dir}/${segmentFileName(baseOffset, LOG_SUFFIX)}${suffix}`
    this.offsetIndex = new OffsetIndex(`${dir}/${segmentFileName(baseOffset, INDEX_SUFFIX)}${suffix}`, baseOffset, config.maxIndexSizeBytes)
    this.timeIndex = new TimeIndex(
      `${dir}/${segmentFileName(baseOffset, TIME_INDEX_SUFFIX)}${suffix}`,
      baseOffset,
      config.maxIndexSizeBytes,
    )
    this.txnIndex = new TransactionIndex(`${dir}/${segmentFileName(baseOffset, TXN_INDEX_SUFFIX)}${suffix}`, baseOffset)
    this.next = baseOffset
  }

  /** Bytes of whole batches in the file (the write position of the next append). */
  get sizeBytes(): number {
    return this.size
  }

  /** The offset after the segment's last batch (its base offset when empty). */
  get nextOffset(): number {
    return this.next
  }

  /** The largest record timestamp appended (NO_TIMESTAMP when none). */
  get maxTimestamp(): number {
    return this.maxTs
  }

  /** Last offset of the batch holding maxTimestamp, -1 when none. */
  get offsetOfMaxTimestamp(): number {
    return this.maxTsOffset
  }

  /** Creates the three files, empty (an existing .log at this offset is truncated). */
  static async create(fs: Fs, dir: string, baseOffset: number, config: SegmentConfig, nowMs: number, suffix = '') {
    const seg = new LogSegment(fs, dir, baseOffset, config, nowMs, suffix)
    seg.fh = await fs.open(seg.logPath, 'w+')
    seg.offsetIndex.reset()
    seg.timeIndex.reset()
    seg.txnIndex.reset()
    await seg.persistIndexes(false)
    return seg
  }

  /** The cleaner's output: `<base>.log.cleaned` and its indexes, created empty. */
  static createCleaned(fs: Fs, dir: string, baseOffset: number, config: SegmentConfig, nowMs: number) {
    return LogSegment.create(fs, dir, baseOffset, config, nowMs, CLEANED_SUFFIX)
  }

  /** A segment over an existing .log of sizeBytes; indexes are loaded or rebuilt by the caller. */
  static existing(fs: Fs, dir: string, baseOffset: number, config: SegmentConfig, nowMs: number, sizeBytes: number, suffix = '') {
    const seg = new LogSegment(fs, dir, baseOffset, config, nowMs, suffix)
    seg.size = sizeBytes
    return seg
  }

  /**
   * The segment a completed swap left under the final names: cleaned's bookkeeping, with the
   * indexes read back from their renamed (fsynced) files — rebuilt by a rescan if unreadable.
   */
  static async fromSwapped(cleaned: LogSegment): Promise<LogSegment> {
    const seg = new LogSegment(cleaned.fs, cleaned.dir, cleaned.baseOffset, cleaned.config, cleaned.createdMs)
    seg.size = cleaned.sizeBytes
    // The cleaner wrote the transaction index whole and fsynced it before the rename.
    if (!(await seg.txnIndex.load(seg.fs))) {
      seg.txnIndex.reset()
      for (const e of cleaned.txnIndex.all()) seg.txnIndex.append(e)
    }
    const loaded = (await seg.offsetIndex.load(seg.fs, seg.sizeBytes)) && (await seg.timeIndex.load(seg.fs, seg.sizeBytes))
    if (!loaded) {
      await seg.recover()
      await seg.persistIndexes(true)
      return seg
    }
    seg.next = cleaned.next
    seg.maxTs = cleaned.maxTs
    seg.maxTsOffset = cleaned.maxTsOffset
    seg.bytesSinceLastIndexEntry = cleaned.bytesSinceLastIndexEntry
    seg.lastBatchPosition = cleaned.lastBatchPosition
    seg.lastBatchBaseOffset = cleaned.lastBatchBaseOffset
    return seg
  }

  get isEmpty(): boolean {
    return this.sizeBytes === 0
  }

  /** Where the .log is now (`.log.deleted` once the segment was removed from its log). */
  get logPath(): string {
    return this.path
  }

  /** Removed from its log by markDeleted(); reads that still hold it may fail. */
  get deleted(): boolean {
    return this.removed
  }

  /**
   * Kafka's LogSegment.largestTimestamp, which retention judges a segment by: the largest record
   * timestamp, or the .log's last-modified time when no batch carries one.
   */
  async largestTimestamp(): Promise<number> {
    if (this.maxTimestamp >= 0) return this.maxTimestamp
    const st = await this.fs.stat(this.path)
    return st ? Math.floor(st.mtimeMs) : NO_TIMESTAMP
  }

  async handle(): Promise<FileHandle> {
    if (this.fh) return this.fh
    if (!this.opening) {
      this.opening = this.fs.open(this.logPath, 'r+').then(
        (fh) => {
          this.fh = fh
          this.opening = null
          return fh
        },
        (err) => {
          this.opening = null
          throw err
        },
      )
    }
    return this.opening
  }

  /** Up to length bytes at position (fewer if the file is shorter); large reads use pooled buffers (read-buffers.ts). */
  async readAt(position: number, length: number): Promise<Buffer> {
    if (length <= 0) return EMPTY
    const fh = await this.handle()
    const buf = readBuffers.acquire(length)
    let done = 0
    while (done < length) {
      const n = await fh.read(buf, done, length - done, position + done)
      if (n === 0) break
      done += n
    }
    return done === length ? buf : buf.subarray(0, done)
  }

  /**
   * Kafka's LogSegment.append: writes chunks contiguously at the segment's end with one write, then
   * does the bookkeeping of each batch in them — largest timestamp, an offset-index entry (with a
   * time-index entry for the largest timestamp so far) once more than index.interval.bytes were
   * appended since the last entry, the tail hint, the next offset and the size. Batch positions are
   * relative to the start of chunks, which must be the batches back to back; offsets must increase
   * from the segment's next offset (gaps allowed: a cleaned segment keeps the original offsets) and
   * stay within the index's int32 relative offsets. Nothing is updated before the write completes,
   * so a concurrent read never sees past the bytes; a failed write is cut back off the file
   * (AppendFailedError says whether that worked). Calls must not overlap.
   */
  async append(chunks: Buffer[], batches: readonly SegmentBatch[]): Promise<void> {
    let length = 0
    for (const c of chunks) length += c.length
    this.checkAppendable(length, batches)
    const position = this.size
    try {
      const fh = await this.handle()
      await fh.writev(chunks, position)
    } catch (err) {
      let undone = false
      try {
        await (await this.handle()).truncate(position)
        undone = true
      } catch {}
      throw new AppendFailedError(err as Error, undone)
    }
    for (const b of batches)
      this.onBatch(b.baseOffset, b.baseOffset + b.lastOffsetDelta, b.maxTimestamp, position + b.position, b.sizeBytes)
    this.size = position + length
  }

  private checkAppendable(length: number, batches: readonly SegmentBatch[]): void {
    let expected = this.next
    let at = 0
    for (const b of batches) {
      const last = b.baseOffset + b.lastOffsetDelta
      if (b.position !== at || b.baseOffset < expected || b.lastOffsetDelta < 0 || last - this.baseOffset > MAX_RELATIVE_OFFSET) {
        throw new RangeError(
          `${this.logPath}: batch ${b.baseOffset}..${last} at ${b.position} cannot follow offset ${expected - 1} at ${at}`,
        )
      }
      expected = last + 1
      at += b.sizeBytes
    }
    if (batches.length === 0 || at !== length)
      throw new RangeError(`${this.logPath}: the batches do not cover the ${length} bytes appended`)
  }

  /**
   * Bookkeeping for a batch whose bytes are now at position (append and recovery): largest
   * timestamp, and an index entry once more than indexIntervalBytes were appended since the last.
   */
  private onBatch(baseOffset: number, lastOffset: number, maxTimestamp: number, position: number, sizeBytes: number): void {
    if (maxTimestamp > this.maxTs) {
      this.maxTs = maxTimestamp
      this.maxTsOffset = lastOffset
    }
    if (this.bytesSinceLastIndexEntry > this.config.indexIntervalBytes && !this.offsetIndex.isFull) {
      this.offsetIndex.append(baseOffset, position)
      if (this.maxTsOffset >= 0) this.timeIndex.maybeAppend(this.maxTs, this.maxTsOffset)
      this.bytesSinceLastIndexEntry = 0
    }
    this.bytesSinceLastIndexEntry += sizeBytes
    this.lastBatchPosition = position
    this.lastBatchBaseOffset = baseOffset
    this.next = lastOffset + 1
  }

  /**
   * A non-active segment whose indexes loaded after a clean shutdown: its largest timestamp is the
   * time index's last entry (written when it was rolled) and it ends where the next segment starts.
   */
  restoreFromIndexes(nextSegmentBaseOffset: number): void {
    const te = this.timeIndex.lastEntry()
    this.maxTs = te ? te.timestamp : NO_TIMESTAMP
    this.maxTsOffset = te ? te.offset : -1
    this.next = nextSegmentBaseOffset
  }

  /** A non-active segment whose tail was read again at recovery: it ends where the next segment starts. */
  endBefore(nextSegmentBaseOffset: number): void {
    this.next = nextSegmentBaseOffset
  }

  /** On roll: a last time-index entry with the segment's largest timestamp (Kafka does the same). */
  finalizeTimeIndex(): void {
    if (this.maxTsOffset >= 0) this.timeIndex.maybeAppend(this.maxTs, this.maxTsOffset)
  }

  /**
   * Walks batch headers from `from` to `end` reading chunks of chunkBytes, calling visit for each
   * (return false to stop there). With verify, each batch must also be whole, pass its CRC-32C,
   * lie in this segment's offset range and start after its predecessor's last offset (the first
   * batch only needs baseOffset ≥ the segment's base offset). Gaps are allowed: a cleaned segment
   * keeps the original offsets of the records it kept.
   */
  async scan(from: number, end: number, verify: boolean, chunkBytes: number, visit?: Visitor): Promise<ScanResult> {
    let buf: Buffer = EMPTY
    let bufStart = from
    let pos = from
    let expected = -1
    const bad = (stop: 'partial' | 'corrupt', reason: string): ScanResult => ({ stop, position: pos, reason })
    while (pos < end) {
      let rel = pos - bufStart
      if (rel + BATCH_HEADER_SIZE > buf.length) {
        if (end - pos < BATCH_HEADER_SIZE) return bad('partial', `${end - pos} bytes after the last batch`)
        buf = await this.readAt(pos, Math.min(Math.max(chunkBytes, BATCH_HEADER_SIZE), end - pos))
        bufStart = pos
        rel = 0
        if (buf.length < BATCH_HEADER_SIZE) return bad('partial', 'file shorter than expected')
      }
      const batchLength = buf.readInt32BE(rel + BATCH_LENGTH_OFFSET)
      if (batchLength < MIN_BATCH_LENGTH) return bad('corrupt', `batch length ${batchLength}`)
      const size = LOG_OVERHEAD + batchLength
      if (size > end - pos) return bad('partial', `batch of ${size} bytes runs past ${end}`)
      if (buf[rel + MAGIC_OFFSET] !== CURRENT_MAGIC) return bad('corrupt', `magic ${buf[rel + MAGIC_OFFSET]}`)
      if (!verify && visit && rel + size > buf.length && (buf.readInt16BE(rel + ATTRIBUTES_OFFSET) & CONTROL_MASK) !== 0) {
        // A marker is read whole (it is small): the visitor may need its record.
        buf = await this.readAt(pos, Math.max(Math.min(chunkBytes, end - pos), size))
        bufStart = pos
        rel = 0
        if (buf.length < size) return bad('partial', 'file shorter than expected')
      }
      if (verify) {
        if (rel + size > buf.length) {
          buf = await this.readAt(pos, Math.max(Math.min(chunkBytes, end - pos), size))
          bufStart = pos
          rel = 0
          if (buf.length < size) return bad('partial', 'file shorter than expected')
        }
        if (!batchCrcMatches(buf, rel, size)) return bad('corrupt', 'CRC-32C mismatch')
      }
      let h: BatchHeader
      try {
        h = readBatchHeader(buf, rel)
      } catch (err) {
        return bad('corrupt', (err as Error).message)
      }
      if (verify) {
        const last = h.baseOffset + h.lastOffsetDelta
        if (h.lastOffsetDelta < 0 || h.baseOffset < this.baseOffset || last - this.baseOffset > MAX_RELATIVE_OFFSET) {
          return bad('corrupt', `offsets ${h.baseOffset}..${last} outside the segment`)
        }
        if (expected >= 0 && h.baseOffset < expected) {
          return bad('corrupt', `batch at offset ${h.baseOffset} where at least ${expected} was expected`)
        }
        expected = last + 1
      }
      if (visit && visit(h, pos, buf) === false) return { stop: 'stopped', position: pos }
      pos += size
    }
    return { stop: 'end', position: pos }
  }

  /** The batch containing offset (the first whose last offset ≥ offset) within [0, end), or null. */
  async findBatch(offset: number, end: number, chunkBytes: number): Promise<BatchLocation | null> {
    let start = this.offsetIndex.floorPosition(offset)
    const hint = this.lastBatchPosition
    if (this.lastBatchBaseOffset >= 0 && this.lastBatchBaseOffset <= offset && hint > start && hint < end) start = hint
    let found: BatchLocation | null = null
    const r = await this.scan(start, end, false, chunkBytes, (h, position, buf) => {
      if (h.baseOffset + h.lastOffsetDelta < offset) return true
      found = { position, header: h, buf }
      return false
    })
    if (r.stop === 'corrupt') {
      throw new KafkaError('KAFKA_STORAGE_ERROR', `${this.logPath} at ${r.position}: ${r.reason}`)
    }
    return found
  }

  /**
   * Whole batches from the one containing offset, within [0, end): at most maxBytes, but the first
   * batch whatever its size when minOneBatch (KIP-74); none whose base offset ≥ maxOffset. Null
   * when no batch of this segment contains offset.
   */
  async read(offset: number, maxBytes: number, maxOffset: number, minOneBatch: boolean, end: number) {
    // The batch sought usually starts within one index interval of the index entry the scan starts
    // from, so reading that much more than maxBytes serves most reads with this one read.
    const loc = await this.findBatch(offset, end, Math.max(maxBytes + this.config.indexIntervalBytes, READ_CHUNK_BYTES))
    if (!loc) return null
    const { header, position } = loc
    let buf = loc.buf
    let at = header.position
    let r = collect(buf, at, maxBytes, maxOffset, minOneBatch)
    if (r.needMore && position + (buf.length - at) < end) {
      // The chunk ended before maxBytes did: one more read, from the first batch, sized to fit.
      buf = await this.readAt(position, Math.min(end - position, Math.max(maxBytes, header.sizeBytes)))
      at = 0
      r = collect(buf, 0, maxBytes, maxOffset, minOneBatch)
    }
    return buf.subarray(at, at + r.length)
  }

  /**
   * Recomputes the tail state (next offset, largest timestamp, index spacing, last batch) from the
   * last time-index entry and a header scan from the last offset-index entry to the end: batches
   * before that entry cannot carry a larger timestamp than the time index's last one.
   */
  async loadTail(): Promise<ScanResult> {
    const te = this.timeIndex.lastEntry()
    this.maxTs = te ? te.timestamp : NO_TIMESTAMP
    this.maxTsOffset = te ? te.offset : -1
    const ie = this.offsetIndex.lastEntry()
    const start = ie ? ie.position : 0
    this.next = this.baseOffset
    this.lastBatchPosition = -1
    this.lastBatchBaseOffset = -1
    const r = await this.scan(start, this.sizeBytes, false, SCAN_CHUNK_BYTES, (h, pos) => {
      const last = h.baseOffset + h.lastOffsetDelta
      if (h.maxTimestamp > this.maxTs) {
        this.maxTs = h.maxTimestamp
        this.maxTsOffset = last
      }
      this.next = last + 1
      this.lastBatchPosition = pos
      this.lastBatchBaseOffset = h.baseOffset
      return true
    })
    this.bytesSinceLastIndexEntry = this.sizeBytes - start
    return r
  }

  /**
   * Full validating scan: keeps the longest valid prefix, truncates the file after it, rebuilds both
   * indexes in memory (persisted by the next flush or close) and empties the transaction index.
   * Returns the bytes removed and why. onBatch sees each valid batch whole (h.position within buf):
   * recovery re-records leader epochs and replays the producer state from them, refilling the
   * transaction index with the transactions their markers abort.
   */
  async recover(onBatch?: (h: BatchHeader, buf: Buffer) => void): Promise<{ truncatedBytes: number; reason?: string }> {
    this.offsetIndex.reset()
    this.timeIndex.reset()
    this.txnIndex.reset()
    this.maxTs = NO_TIMESTAMP
    this.maxTsOffset = -1
    this.bytesSinceLastIndexEntry = 0
    this.next = this.baseOffset
    this.lastBatchPosition = -1
    this.lastBatchBaseOffset = -1
    const fh = await this.handle()
    const fileSize = await fh.size()
    const r = await this.scan(0, fileSize, true, SCAN_CHUNK_BYTES, (h, pos, buf) => {
      this.onBatch(h.baseOffset, h.baseOffset + h.lastOffsetDelta, h.maxTimestamp, pos, h.sizeBytes)
      onBatch?.(h, buf)
      return true
    })
    if (r.position < fileSize) await fh.truncate(r.position)
    this.size = r.position
    return r.position < fileSize ? { truncatedBytes: fileSize - r.position, reason: r.reason } : { truncatedBytes: 0 }
  }

  /**
   * Removes every batch from the one containing offset on (so the segment may end below offset
   * when offset is inside a batch), and their index entries. Returns the bytes removed.
   */
  async truncateTo(offset: number): Promise<number> {
    if (offset >= this.next) return 0
    const loc = await this.findBatch(offset, this.sizeBytes, READ_CHUNK_BYTES)
    if (!loc) return 0
    const fh = await this.handle()
    await fh.truncate(loc.position)
    const removed = this.sizeBytes - loc.position
    this.size = loc.position
    await this.offsetIndex.truncateToOffset(this.fs, loc.header.baseOffset)
    await this.timeIndex.truncateToOffset(this.fs, loc.header.baseOffset)
    await this.txnIndex.truncateTo(this.fs, loc.header.baseOffset)
    const r = await this.loadTail()
    if (r.stop !== 'end') throw new KafkaError('KAFKA_STORAGE_ERROR', `${this.logPath}: ${r.reason}`)
    return removed
  }

  async persistIndexes(sync: boolean): Promise<void> {
    // A removed segment's index files are gone: writing them again would leave strays.
    if (this.removed) return
    await this.offsetIndex.persist(this.fs, sync)
    await this.timeIndex.persist(this.fs, sync)
    // The transaction index's file comes and goes with its entries: its name needs the directory's fsync.
    if ((await this.txnIndex.persist(this.fs, sync)) && sync) await this.fs.syncDir(this.dir)
  }

  /** fsyncs the .log and writes and fsyncs the indexes. */
  async flush(): Promise<void> {
    if (this.removed) return
    const fh = this.fh ?? (this.opening ? await this.opening : null)
    if (fh) await fh.sync()
    await this.persistIndexes(true)
  }

  /**
   * Adds the final time-index entry (as Kafka does on close), writes and fsyncs pending index
   * entries, and closes the .log handle (the .log itself is not fsynced: call flush first).
   */
  async close(): Promise<void> {
    this.finalizeTimeIndex()
    await this.persistIndexes(true)
    await this.closeHandle()
  }

  /** Closes the .log handle without writing anything. */
  async closeHandle(): Promise<void> {
    const fh = this.fh ?? (this.opening ? await this.opening.catch(() => null) : null)
    this.fh = null
    if (fh) await fh.close()
  }

  /**
   * First step of an asynchronous delete (the log no longer lists this segment): renames the .log
   * to `.log.deleted` and removes the indexes. The handle stays open for reads in flight.
   */
  async markDeleted(): Promise<void> {
    if (this.removed) return
    this.removed = true
    const to = `${this.path}${DELETED_SUFFIX}`
    try {
      await this.fs.rename(this.path, to)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
    // Even when the .log was already gone: the final name may now belong to a swapped-in segment.
    this.path = to
    await this.offsetIndex.delete(this.fs)
    await this.timeIndex.delete(this.fs)
    await this.txnIndex.delete(this.fs)
  }

  /**
   * Closes and removes the three files. After markDeleted only the `.log.deleted` is left: the
   * index names may belong to a cleaned segment swapped in at the same base offset since.
   */
  async delete(): Promise<void> {
    await this.closeHandle().catch(() => {})
    await unlinkIfExists(this.fs, this.logPath)
    if (this.removed) return
    await this.offsetIndex.delete(this.fs)
    await this.timeIndex.delete(this.fs)
    await this.txnIndex.delete(this.fs)
  }
}

/** How many bytes of whole batches from buf[at] a read returns; needMore when buf ran out first. */
function collect(buf: Buffer, at: number, maxBytes: number, maxOffset: number, minOneBatch: boolean) {
  let length = 0
  let q = at
  while (q + LOG_OVERHEAD <= buf.length) {
    const size = LOG_OVERHEAD + buf.readInt32BE(q + BATCH_LENGTH_OFFSET)
    if (readInt64(buf, q) >= maxOffset) return { length, needMore: false }
    if (length + size > maxBytes && !(length === 0 && minOneBatch)) return { length, needMore: false }
    if (q + size > buf.length) return { length, needMore: true }
    length += size
    q += size
  }
  return { length, needMore: true }
}
