// The offset index of a segment: `<baseOffset>.index`, a sequence of 8-byte big-endian entries
//   int32 relativeOffset (offset − segment base offset) | int32 position (byte offset in the .log)
// with both columns strictly increasing. It is sparse: an entry is added for the batch appended
// once more than indexIntervalBytes have been appended since the previous entry. Entries here name
// the batch's BASE offset, so a floor lookup lands exactly on the batch containing an offset (a
// Kafka-written index names the last offset instead; a floor lookup followed by a forward scan of
// batch headers — what every reader here does — is correct for both).
// Crash: see index-file.ts (lazy writes; validated on load; rebuilt by recovery).
import type { Fs } from './fs.js'
import { grow, IndexFile } from './index-file.js'

export const OFFSET_INDEX_ENTRY_SIZE = 8

export class OffsetIndex extends IndexFile {
  private rel = new Int32Array(64)
  private pos = new Int32Array(64)

  constructor(path: string, baseOffset: number, maxIndexSizeBytes: number) {
    super(path, baseOffset, OFFSET_INDEX_ENTRY_SIZE, Math.floor(maxIndexSizeBytes / OFFSET_INDEX_ENTRY_SIZE))
  }

  /** Adds an entry; offset and position must be above the last entry's. */
  append(offset: number, position: number): void {
    const r = offset - this.baseOffset
    const n = this.count
    if (this.isFull) throw new RangeError(`offset index ${this.path} is full`)
    if (r < 0 || r > 0x7fffffff || (n > 0 && (r <= this.rel[n - 1]! || position <= this.pos[n - 1]!))) {
      throw new RangeError(`offset index entry (${offset}, ${position}) is not after the last one in ${this.path}`)
    }
    this.rel = grow(this.rel, n + 1, n, this.maxEntries)
    this.pos = grow(this.pos, n + 1, n, this.maxEntries)
    this.rel[n] = r
    this.pos[n] = position
    this.count = n + 1
  }

  /** Index of the last entry whose offset ≤ offset, or -1. */
  private floorSlot(offset: number): number {
    const r = offset - this.baseOffset
    let lo = 0
    let hi = this.count - 1
    let found = -1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      if (this.rel[mid]! <= r) {
        found = mid
        lo = mid + 1
      } else {
        hi = mid - 1
      }
    }
    return found
  }

  /** File position from which a forward scan finds the batch containing offset (0 if no entry). */
  floorPosition(offset: number): number {
    const i = this.floorSlot(offset)
    return i < 0 ? 0 : this.pos[i]!
  }

  /** The floor entry of offset, or null. */
  lookup(offset: number): { offset: number; position: number } | null {
    const i = this.floorSlot(offset)
    return i < 0 ? null : { offset: this.baseOffset + this.rel[i]!, position: this.pos[i]! }
  }

  /** The last entry, or null when empty. */
  lastEntry(): { offset: number; position: number } | null {
    const n = this.count
    return n === 0 ? null : { offset: this.baseOffset + this.rel[n - 1]!, position: this.pos[n - 1]! }
  }

  entryAt(i: number): { offset: number; position: number } {
    if (i < 0 || i >= this.count) throw new RangeError(`no entry ${i}`)
    return { offset: this.baseOffset + this.rel[i]!, position: this.pos[i]! }
  }

  /** Removes every entry whose offset ≥ offset (in memory and in the file). */
  truncateToOffset(fs: Fs, offset: number): Promise<void> {
    return this.truncateEntries(fs, this.floorSlot(offset - 1) + 1)
  }

  protected setCount(n: number): void {
    this.count = n
  }

  protected writeEntry(i: number, buf: Buffer, at: number): void {
    buf.writeInt32BE(this.rel[i]!, at)
    buf.writeInt32BE(this.pos[i]!, at + 4)
  }

  protected readEntries(buf: Buffer, n: number, logSizeBytes: number): boolean {
    const rel = new Int32Array(Math.max(n, 64))
    const pos = new Int32Array(Math.max(n, 64))
    for (let i = 0; i < n; i++) {
      const r = buf.readInt32BE(i * 8)
      const p = buf.readInt32BE(i * 8 + 4)
      if (r < 0 || p < 0 || p >= logSizeBytes) return false
      if (i > 0 && (r <= rel[i - 1]! || p <= pos[i - 1]!)) return false
      rel[i] = r
      pos[i] = p
    }
    this.rel = rel
    this.pos = pos
    this.count = n
    return true
  }
}
