// The time index of a segment: `<baseOffset>.timeindex`, a sequence of 12-byte big-endian entries
//   int64 timestamp | int32 relativeOffset
// where timestamp is the segment's largest timestamp so far and the offset is the last offset of
// the batch that carried it (Kafka's "shallow" offset). Entries are added alongside offset-index
// entries, only when the largest timestamp grew, so both columns increase; when a segment rolls, a
// final entry with its largest timestamp is added so a load can read the segment's max from it.
// Crash: see index-file.ts (lazy writes; validated on load; rebuilt by recovery).
import { readInt64, writeInt64 } from '../protocol/records/batch.js'
import type { Fs } from './fs.js'
import { grow, IndexFile } from './index-file.js'

export const TIME_INDEX_ENTRY_SIZE = 12

export class TimeIndex extends IndexFile {
  private ts = new Float64Array(64)
  private rel = new Int32Array(64)

  constructor(path: string, baseOffset: number, maxIndexSizeBytes: number) {
    super(path, baseOffset, TIME_INDEX_ENTRY_SIZE, Math.floor(maxIndexSizeBytes / TIME_INDEX_ENTRY_SIZE))
  }

  /** Adds (timestamp, offset) if timestamp is above the last entry's; returns whether it did. */
  maybeAppend(timestamp: number, offset: number): boolean {
    const n = this.count
    if (n > 0 && timestamp <= this.ts[n - 1]!) return false
    if (this.isFull) return false
    const r = offset - this.baseOffset
    if (r < 0 || r > 0x7fffffff || (n > 0 && r < this.rel[n - 1]!)) {
      throw new RangeError(`time index entry (${timestamp}, ${offset}) is before the last one in ${this.path}`)
    }
    this.ts = grow(this.ts, n + 1, n, this.maxEntries)
    this.rel = grow(this.rel, n + 1, n, this.maxEntries)
    this.ts[n] = timestamp
    this.rel[n] = r
    this.count = n + 1
    return true
  }

  /**
   * The offset of the last entry whose timestamp is strictly below targetMs, or -1. Every record
   * at or before that offset has a timestamp < targetMs, so a search for the first record with
   * timestamp ≥ targetMs can start there.
   */
  offsetBefore(targetMs: number): number {
    let lo = 0
    let hi = this.count - 1
    let found = -1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      if (this.ts[mid]! < targetMs) {
        found = mid
        lo = mid + 1
      } else {
        hi = mid - 1
      }
    }
    return found < 0 ? -1 : this.baseOffset + this.rel[found]!
  }

  lastEntry(): { timestamp: number; offset: number } | null {
    const n = this.count
    return n === 0 ? null : { timestamp: this.ts[n - 1]!, offset: this.baseOffset + this.rel[n - 1]! }
  }

  entryAt(i: number): { timestamp: number; offset: number } {
    if (i < 0 || i >= this.count) throw new RangeError(`no entry ${i}`)
    return { timestamp: this.ts[i]!, offset: this.baseOffset + this.rel[i]! }
  }

  /** Removes every entry whose offset ≥ offset (in memory and in the file). */
  truncateToOffset(fs: Fs, offset: number): Promise<void> {
    const r = offset - this.baseOffset
    let n = this.count
    while (n > 0 && this.rel[n - 1]! >= r) n--
    return this.truncateEntries(fs, n)
  }

  protected setCount(n: number): void {
    this.count = n
  }

  protected writeEntry(i: number, buf: Buffer, at: number): void {
    writeInt64(buf, this.ts[i]!, at)
    buf.writeInt32BE(this.rel[i]!, at + 8)
  }

  protected readEntries(buf: Buffer, n: number): boolean {
    const ts = new Float64Array(Math.max(n, 64))
    const rel = new Int32Array(Math.max(n, 64))
    for (let i = 0; i < n; i++) {
      let t: number
      try {
        t = readInt64(buf, i * 12)
      } catch {
        return false
      }
      const r = buf.readInt32BE(i * 12 + 8)
      if (r < 0 || (i > 0 && (t <= ts[i - 1]! || r < rel[i - 1]!))) return false
      ts[i] = t
      rel[i] = r
    }
    this.ts = ts
    this.rel = rel
    this.count = n
    return true
  }
}
