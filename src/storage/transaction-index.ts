// A segment's transaction index, `<baseOffset>.txnindex`: the transactions aborted by a marker in the
// segment, in marker order, which read_committed fetches report so consumers drop their records
// (Kafka's TransactionIndex and AbortedTxn). The format is Kafka's, so a log directory moves between
// Kafka and Tributary. Entries of 34 bytes, big-endian, back to back:
//   version          int16  0
//   producerId       int64
//   firstOffset      int64  the transaction's first offset (possibly in an earlier segment)
//   lastOffset       int64  the offset of its ABORT marker
//   lastStableOffset int64  the log's last stable offset once the transaction was completed
// As Kafka, the file exists only once the segment has an entry.
//
// Entries live in memory and reach the file as the other indexes' do (index-file.ts): appended by
// persist() on flush, roll and close. What survives a crash is a prefix of whole entries at most:
// a load refuses a file that is not (a partial entry, an unknown version, offsets out of order or
// outside the segment), and recovery rebuilds the index of every segment it rescans from the
// markers it meets (recovery.ts). The segment owns its index: created, renamed, truncated and
// deleted with it (segment.ts).
import { readInt64, writeInt64 } from '../protocol/records/batch.js'
import type { Fs } from './fs.js'
import { unlinkIfExists } from './index-file.js'

export const TXN_INDEX_SUFFIX = '.txnindex'
export const ABORTED_TXN_BYTES = 34
const CURRENT_VERSION = 0

/** One aborted transaction (Kafka's AbortedTxn). */
export interface AbortedTxn {
  producerId: number
  firstOffset: number
  lastOffset: number
  lastStableOffset: number
}

/** Kafka's TxnIndexSearchResult: complete once an entry's last stable offset reaches the upper bound. */
export interface TxnIndexSearchResult {
  abortedTransactions: AbortedTxn[]
  isComplete: boolean
}

export function encodeAbortedTxns(entries: readonly AbortedTxn[]): Buffer {
  const buf = Buffer.alloc(entries.length * ABORTED_TXN_BYTES)
  let p = 0
  for (const e of entries) {
    buf.writeInt16BE(CURRENT_VERSION, p)
    writeInt64(buf, e.producerId, p + 2)
    writeInt64(buf, e.firstOffset, p + 10)
    writeInt64(buf, e.lastOffset, p + 18)
    writeInt64(buf, e.lastStableOffset, p + 26)
    p += ABORTED_TXN_BYTES
  }
  return buf
}

/** The entries of a .txnindex file; null when it is not whole entries of a known version. */
export function decodeAbortedTxns(buf: Buffer): AbortedTxn[] | null {
  if (buf.length % ABORTED_TXN_BYTES !== 0) return null
  const out: AbortedTxn[] = []
  try {
    for (let p = 0; p < buf.length; p += ABORTED_TXN_BYTES) {
      if (buf.readInt16BE(p) > CURRENT_VERSION) return null
      out.push({
        producerId: readInt64(buf, p + 2),
        firstOffset: readInt64(buf, p + 10),
        lastOffset: readInt64(buf, p + 18),
        lastStableOffset: readInt64(buf, p + 26),
      })
    }
  } catch {
    return null
  }
  return out
}

export class TransactionIndex {
  private list: AbortedTxn[] = []
  /** Entries known to be in the file. */
  private persisted = 0
  private synced = 0
  /** The file does not hold a prefix of the entries (or should not exist): rewrite it whole. */
  private rewrite = false
  /** The file was cut by a truncation not fsynced yet (a crash would bring the entries back). */
  private cutUnsynced = false

  constructor(
    public path: string,
    readonly baseOffset: number,
  ) {}

  get entries(): number {
    return this.list.length
  }

  /** Copies of the entries, in marker order. */
  all(): AbortedTxn[] {
    return this.list.map((e) => ({ ...e }))
  }

  /** Adds an aborted transaction; its marker must follow the last one's (Kafka refuses otherwise). */
  append(e: AbortedTxn): void {
    const last = this.list[this.list.length - 1]
    if (last && last.lastOffset >= e.lastOffset) {
      throw new RangeError(`${this.path}: aborted transaction ending at ${e.lastOffset} does not follow ${last.lastOffset}`)
    }
    this.list.push({ ...e })
  }

  /**
   * Kafka's collectAbortedTxns: the entries overlapping [fetchOffset, upperBoundOffset) — marker at
   * or after fetchOffset, first offset before upperBoundOffset — and whether the search is complete:
   * an entry recorded a last stable offset at or past upperBoundOffset, so no later segment can hold
   * a transaction that began below it.
   */
  collect(fetchOffset: number, upperBoundOffset: number): TxnIndexSearchResult {
    const abortedTransactions: AbortedTxn[] = []
    for (const e of this.list) {
      if (e.lastOffset >= fetchOffset && e.firstOffset < upperBoundOffset) abortedTransactions.push({ ...e })
      if (e.lastStableOffset >= upperBoundOffset) return { abortedTransactions, isComplete: true }
    }
    return { abortedTransactions, isComplete: false }
  }

  /** Forgets every entry; the next persist rewrites (or removes) the file. */
  reset(): void {
    this.list = []
    this.persisted = 0
    this.synced = 0
    this.rewrite = true
  }

  /** Loads the file (none: no entry); false (and no entry) when it is not a valid index of this segment. */
  async load(fs: Fs): Promise<boolean> {
    const st = await fs.stat(this.path)
    if (st === null) {
      this.list = []
      this.persisted = this.synced = 0
      this.rewrite = false
      return true
    }
    const entries = decodeAbortedTxns(await fs.readFile(this.path))
    const valid =
      entries?.every((e, i) => e.lastOffset >= this.baseOffset && (i === 0 || e.lastOffset > entries[i - 1]!.lastOffset)) === true
    if (!valid) {
      this.reset()
      return false
    }
    this.list = entries!
    this.persisted = this.synced = entries.length
    this.rewrite = false
    return true
  }

  /** Kafka's truncateTo: drops the entries whose marker is at or after offset, in memory and in the file. */
  async truncateTo(fs: Fs, offset: number): Promise<void> {
    const keep = this.list.findIndex((e) => e.lastOffset >= offset)
    if (keep < 0) return
    this.list.length = keep
    if (keep < this.synced) this.synced = keep
    if (keep < this.persisted && !this.rewrite) {
      const fh = await fs.open(this.path, 'r+')
      try {
        await fh.truncate(keep * ABORTED_TXN_BYTES)
      } finally {
        await fh.close()
      }
      this.cutUnsynced = true
      this.persisted = keep
    }
  }

  /**
   * Writes the entries not yet in the file, fsyncing if asked; creates no file for a segment
   * without entries (and removes one after a reset). Returns true when the file was created or
   * removed: that change is durable only once the caller fsyncs the directory (a crash would
   * otherwise lose a new index of a trusted segment, or bring back a stale one — found by the
   * transactions crash property test).
   */
  async persist(fs: Fs, sync: boolean): Promise<boolean> {
    const to = this.list.length
    if (this.rewrite && to === 0) {
      const existed = (await fs.stat(this.path)) !== null
      if (existed) await unlinkIfExists(fs, this.path)
      this.rewrite = false
      return existed
    }
    const from = this.rewrite ? 0 : this.persisted
    if (from === to && !this.rewrite && (!sync || (this.synced === to && !this.cutUnsynced))) return false
    const rewrite = this.rewrite
    const created = from === 0 && (await fs.stat(this.path)) === null
    const fh = await fs.open(this.path, rewrite ? 'w' : 'a')
    try {
      const buf = encodeAbortedTxns(this.list.slice(from, to))
      if (buf.length > 0) await fh.write(buf, null)
      if (sync) await fh.sync()
    } finally {
      await fh.close()
    }
    this.persisted = to
    if (sync) {
      this.synced = to
      this.cutUnsynced = false
    }
    if (rewrite) this.rewrite = false
    return created
  }

  async delete(fs: Fs): Promise<void> {
    await unlinkIfExists(fs, this.path)
  }
}
