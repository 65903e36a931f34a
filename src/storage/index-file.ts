// Shared machinery of the sparse segment indexes (.index, .timeindex): entries live in memory in
// typed arrays (binary search, no mmap) and are written to the file lazily — appended on flush,
// roll and close, never on the append path. Index files carry no checksum; what survives a crash
// is whatever prefix reached the disk, which is why a load validates the file (size a multiple of
// the entry size, monotonic entries, positions inside the log) and recovery rebuilds the indexes
// of every segment it scans. Truncation shortens the file immediately, so a truncated log never
// leaves index entries pointing past its end.
import type { Fs } from './fs.js'

export abstract class IndexFile {
  protected count = 0
  /** Entries known to be in the file. */
  private persisted = 0
  /** Entries known to be fsynced. */
  private synced = 0
  /** The file's contents are not a prefix of the entries: rewrite it whole. */
  private rewrite = false

  constructor(
    readonly path: string,
    readonly baseOffset: number,
    readonly entrySize: number,
    readonly maxEntries: number,
  ) {}

  get entries(): number {
    return this.count
  }

  get isFull(): boolean {
    return this.count >= this.maxEntries
  }

  /** Room for n more entries. */
  hasRoomFor(n: number): boolean {
    return this.count + n <= this.maxEntries
  }

  protected abstract writeEntry(i: number, buf: Buffer, pos: number): void
  /** Replaces the in-memory entries by the file's; false when they are not a valid index. */
  protected abstract readEntries(buf: Buffer, n: number, logSizeBytes: number): boolean
  protected abstract setCount(n: number): void

  /** Loads the file; false (and empty entries) when missing or invalid, so the caller rebuilds. */
  async load(fs: Fs, logSizeBytes: number): Promise<boolean> {
    const st = await fs.stat(this.path)
    if (st === null || st.size % this.entrySize !== 0 || st.size / this.entrySize > this.maxEntries) {
      this.reset()
      return false
    }
    const buf = await fs.readFile(this.path)
    const n = buf.length / this.entrySize
    if (!Number.isInteger(n) || !this.readEntries(buf, n, logSizeBytes)) {
      this.reset()
      return false
    }
    this.persisted = n
    this.synced = n
    this.rewrite = false
    return true
  }

  /** Forgets every entry; the next persist rewrites the file. */
  reset(): void {
    this.setCount(0)
    this.persisted = 0
    this.synced = 0
    this.rewrite = true
  }

  /** Drops entries from n on, in memory and in the file. */
  protected async truncateEntries(fs: Fs, n: number): Promise<void> {
    if (n >= this.count) return
    this.setCount(n)
    if (n < this.synced) this.synced = n
    if (n < this.persisted && !this.rewrite) {
      const fh = await fs.open(this.path, 'r+')
      try {
        await fh.truncate(n * this.entrySize)
      } finally {
        await fh.close()
      }
      this.persisted = n
    }
  }

  /** Writes the entries not yet in the file (all of them after a reset), fsyncing if asked. */
  async persist(fs: Fs, sync: boolean): Promise<void> {
    const from = this.rewrite ? 0 : this.persisted
    const to = this.count
    if (from === to && !this.rewrite && (!sync || this.synced === to)) return
    const buf = Buffer.allocUnsafe((to - from) * this.entrySize)
    for (let i = from; i < to; i++) this.writeEntry(i, buf, (i - from) * this.entrySize)
    const rewrite = this.rewrite
    const fh = await fs.open(this.path, rewrite ? 'w' : 'a')
    try {
      if (buf.length > 0) await fh.write(buf, null)
      if (sync) await fh.sync()
    } finally {
      await fh.close()
    }
    // A truncation while we wrote leaves persisted ≥ count; the next truncate or reset fixes it.
    this.persisted = to
    if (sync) this.synced = to
    if (rewrite) this.rewrite = false
  }

  async delete(fs: Fs): Promise<void> {
    await unlinkIfExists(fs, this.path)
  }
}

export async function unlinkIfExists(fs: Fs, path: string): Promise<void> {
  try {
    await fs.unlink(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
}

/** Grows a typed array to at least `need` elements (doubling), keeping the first `keep`. */
export function grow<T extends Int32Array | Float64Array>(arr: T, need: number, keep: number, max: number): T {
  if (need <= arr.length) return arr
  const size = Math.min(Math.max(need, arr.length * 2, 64), Math.max(need, max))
  const next = new (arr.constructor as new (n: number) => T)(size)
  next.set(arr.subarray(0, keep))
  return next
}
