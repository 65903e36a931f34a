// The batches last appended to each log, kept in memory so that consumers and followers at the
// tail are answered without a file read (tributary.log.tail.cache.bytes for the whole broker).
//
// What a log's entry holds: copies of its latest appends, back to back up to the log end, all in
// the active segment. A read that starts at or after the entry's first batch is served from it
// (whole batches, the same ones the segment would give); any other read goes to the files. The
// entry is emptied when what it holds may no longer be the log's tail: the active segment is not
// the one it was filled from (a roll, a truncation to a new segment), the log was truncated, or it
// closed. An append that cannot be kept (larger than the whole cache) empties it too, since the
// entry must reach the log end without a gap.
//
// Only logs with a reader at the tail are kept: a log's appends are copied in only while a read of
// its active segment (a consumer's, a follower's, a long poll at the log end) came within the last
// READER_WINDOW_MS; otherwise the entry stays empty. Copying every append of a broker that nobody
// reads at the tail cost as much CPU as the rest of the produce path (docs/benchmarks.md "Where the
// time goes": the copies live long enough to be promoted, so the collector marks the whole heap for
// each 64 MiB that passes through), and bought nothing. A reader that arrives finds the files for
// what was appended before it, the cache from then on.
//
// Memory: an append is kept as the view it came in (on the request's or the leader's response's
// frame, which nothing writes to after the append) when it is most of the memory behind it, and
// counted as all of that memory; an append that is a small part of a larger frame (one partition
// of a produce request to many) is copied, so that it does not keep the frame alive. What the
// cache counts is then never less than what it keeps alive. The oldest appends of the broker leave
// first once the total passes the limit. The oldest
// append of the broker is always the oldest one of its log, so eviction keeps every entry
// contiguous. 0 turns the cache off.
import type { BatchHeader } from '../protocol/records/batch.js'

const EMPTY = Buffer.alloc(0)

/** What the cache of recent appends holds and how often it answered reads. */
export interface TailCacheStats {
  /** Bytes of batches held, and the most it may hold (tributary.log.tail.cache.bytes). */
  bytes: number
  limitBytes: number
  /** Log reads served from memory, and those sent to the segment files. */
  hits: number
  misses: number
  /** Bytes that left to make room for newer appends. */
  evictedBytes: number
}

/** One append: its bytes and where each batch of it starts. */
interface Chunk {
  readonly entry: TailEntry
  /** Emptied once dropped, so that the queue does not keep it alive. */
  buf: Buffer
  /** The bytes it counts for: its own, or all the memory behind the view it is. */
  charge: number
  /** Base offset, last offset and position in buf of each batch. */
  readonly bases: number[]
  readonly lasts: number[]
  readonly positions: number[]
  dropped: boolean
}

/**
 * How long after a read of a log's active segment its appends are still kept: readers at the tail
 * fetch far more often (every fetch.max.wait.ms, 500 ms by default, when there is nothing new, and
 * a follower every replica.fetch.wait.max.ms), so a log whose last such read is older has none.
 */
export const READER_WINDOW_MS = 30_000

/** One log's part of the cache. */
export class TailEntry {
  chunks: Chunk[] = []
  /** The segment the chunks were appended to (compared by identity). */
  segment: object | null = null
  /** The monotonic time of the last read of the log's active segment; -Infinity: none yet. */
  readAt = Number.NEGATIVE_INFINITY
}

export class TailCache {
  private fifo: Chunk[] = []
  private head = 0
  private bytes = 0
  /** Chunks held (not dropped). */
  private live = 0
  private hits = 0
  private misses = 0
  private evictedBytes = 0

  constructor(readonly limitBytes: number) {}

  get enabled(): boolean {
    return this.limitBytes > 0
  }

  stats(): TailCacheStats {
    return { bytes: this.bytes, limitBytes: this.limitBytes, hits: this.hits, misses: this.misses, evictedBytes: this.evictedBytes }
  }

  /** A read of the entry's log that starts in its active segment, at monotonic time `now` (ms). */
  readAtTail(entry: TailEntry, now: number): void {
    entry.readAt = now
  }

  /**
   * Records an append of whole batches (their offsets final; `batches` their headers, as the append
   * validated them, positions within `records`) at the end of `segment`, which the entry's earlier
   * appends are the tail of; `now` is the monotonic time (ms). Kept only while the log has a reader
   * at the tail (see the header comment).
   */
  appended(entry: TailEntry, segment: object, records: Buffer, batches: readonly BatchHeader[], now: number): void {
    if (!this.enabled) return
    if (now - entry.readAt > READER_WINDOW_MS) {
      if (entry.chunks.length > 0 || entry.segment !== null) this.clear(entry)
      return
    }
    if (entry.segment !== segment) {
      this.clear(entry)
      entry.segment = segment
    }
    const whole = records.buffer.byteLength
    const kept = records.length * 2 >= whole
    const charge = kept ? whole : records.length
    if (charge > this.limitBytes) {
      this.clear(entry)
      return
    }
    const bases = batches.map((b) => b.baseOffset)
    const lasts = batches.map((b) => b.baseOffset + b.lastOffsetDelta)
    const positions = batches.map((b) => b.position)
    if (bases.length === 0) return
    let buf = records
    if (!kept) {
      buf = Buffer.allocUnsafe(records.length)
      records.copy(buf)
    }
    const chunk: Chunk = { entry, buf, charge, bases, lasts, positions, dropped: false }
    entry.chunks.push(chunk)
    this.fifo.push(chunk)
    this.live++
    this.bytes += charge
    this.evict()
  }

  /** Forgets what the entry holds (a truncation, a close). */
  clear(entry: TailEntry): void {
    for (const c of entry.chunks) this.drop(c)
    entry.chunks = []
    entry.segment = null
    this.compact()
  }

  /**
   * Whole batches from the one holding startOffset (or the first after it), as the segment's read
   * gives them: up to maxBytes, at least one when minOneBatch, none whose base offset is ≥
   * maxOffset. undefined when the entry does not hold startOffset (the files must answer).
   */
  read(
    entry: TailEntry,
    segment: object,
    startOffset: number,
    maxBytes: number,
    maxOffset: number,
    minOneBatch: boolean,
  ): Buffer | undefined {
    const chunks = entry.chunks
    if (!this.enabled || entry.segment !== segment || chunks.length === 0 || startOffset < chunks[0]!.bases[0]!) {
      this.misses++
      return undefined
    }
    // The last chunk starting at or before startOffset, then its batch holding it (or the next).
    let lo = 0
    let hi = chunks.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (chunks[mid]!.bases[0]! <= startOffset) lo = mid
      else hi = mid - 1
    }
    let ci = lo
    let bi = 0
    const first = chunks[ci]!
    while (bi < first.bases.length && first.lasts[bi]! < startOffset) bi++
    if (bi === first.bases.length) {
      ci++
      bi = 0
    }
    this.hits++
    const pieces: Buffer[] = []
    let total = 0
    for (; ci < chunks.length; ci++, bi = 0) {
      const c = chunks[ci]!
      const from = c.positions[bi] ?? c.buf.length
      let to = from
      let j = bi
      let full = false
      for (; j < c.bases.length; j++) {
        if (c.bases[j]! >= maxOffset) {
          full = true
          break
        }
        const end = j + 1 < c.positions.length ? c.positions[j + 1]! : c.buf.length
        const size = end - c.positions[j]!
        if (total + (to - from) + size > maxBytes && !(total + (to - from) === 0 && minOneBatch)) {
          full = true
          break
        }
        to = end
      }
      if (to > from) {
        pieces.push(c.buf.subarray(from, to))
        total += to - from
      }
      if (full) break
    }
    if (pieces.length === 0) return EMPTY
    return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, total)
  }

  private evict(): void {
    while (this.bytes > this.limitBytes && this.head < this.fifo.length) {
      const c = this.fifo[this.head++]!
      if (c.dropped) continue
      // The broker's oldest append is its log's oldest.
      const entry = c.entry
      entry.chunks.shift()
      if (entry.chunks.length === 0) entry.segment = null
      this.evictedBytes += c.charge
      this.drop(c)
    }
    this.compact()
  }

  private drop(c: Chunk): void {
    c.dropped = true
    this.bytes -= c.charge
    c.buf = EMPTY
    this.live--
  }

  /** Keeps the queue to about the chunks held: the dropped ones leave once they are most of it. */
  private compact(): void {
    const queued = this.fifo.length - this.head
    if (queued > 1024 && queued > 2 * this.live) {
      this.fifo = this.fifo.slice(this.head).filter((c) => !c.dropped)
      this.head = 0
    }
  }
}
