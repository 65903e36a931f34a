// The cleaner's key → latest offset map (Kafka's SkimpyOffsetMap): an open-addressing hash table
// that stores, per slot, the 16-byte MD5 digest of a key and an offset — never the key itself —
// so its memory is bounded by log.cleaner.dedupe.buffer.size whatever the keys' sizes, at 24
// bytes per entry as Kafka's. Two keys share an entry only if their MD5 digests collide, which
// Kafka accepts as never happening in practice; we do the same (md5.ts computes it).
//
// Unlike Kafka's, which takes its whole buffer up front, the table starts small and doubles (a
// rehash from the stored digests) up to the budget's slot count, so a broker with few compacted
// keys does not hold 128 MiB. It is "full" at loadFactor × that slot count
// (log.cleaner.io.buffer.load.factor, 0.9): the cleaner then stops mapping and cleans up to the
// last batch it mapped whole (latestOffset), leaving the rest for the next round.
import { md5Words } from './md5.js'

export const HASH_BYTES = 16
export const BYTES_PER_ENTRY = HASH_BYTES + 8
const WORDS = HASH_BYTES / 4
const INITIAL_SLOTS = 1024
/** Below full size the table doubles when it is half full (short probe chains). */
const GROW_AT = 0.5

export class SkimpyOffsetMap {
  /** Slots the memory budget allows. */
  readonly maxSlots: number
  /** Entries at which the map counts as full. */
  readonly maxEntries: number
  private capacity: number
  private digests: Uint32Array
  /** offset + 1 per slot; 0 = empty. */
  private offsets: Float64Array
  private entries = 0
  private latest = -1
  /** Lookups and probes since the last clear(), for the cleaner's statistics. */
  lookups = 0
  probes = 0

  constructor(memoryBytes: number, loadFactor = 0.9) {
    this.maxSlots = Math.floor(memoryBytes / BYTES_PER_ENTRY)
    this.maxEntries = Math.floor(this.maxSlots * loadFactor)
    if (this.maxEntries < 1) {
      throw new RangeError(
        `a key map of ${memoryBytes} bytes cannot hold a single key: raise log.cleaner.dedupe.buffer.size (${BYTES_PER_ENTRY} bytes per key)`,
      )
    }
    this.capacity = Math.min(INITIAL_SLOTS, this.maxSlots)
    this.digests = new Uint32Array(this.capacity * WORDS)
    this.offsets = new Float64Array(this.capacity)
  }

  /** Distinct keys mapped. */
  get size(): number {
    return this.entries
  }

  get isFull(): boolean {
    return this.entries >= this.maxEntries
  }

  /** The last offset the map covers (every key at or below it is mapped); -1 when none. */
  get latestOffset(): number {
    return this.latest
  }

  updateLatestOffset(offset: number): void {
    if (offset > this.latest) this.latest = offset
  }

  /** Fraction of the budget's slots in use (Kafka's utilization). */
  get utilization(): number {
    return this.entries / this.maxSlots
  }

  /** Bytes the table holds now. */
  get memoryBytes(): number {
    return this.capacity * BYTES_PER_ENTRY
  }

  clear(): void {
    this.digests.fill(0)
    this.offsets.fill(0)
    this.entries = 0
    this.latest = -1
    this.lookups = 0
    this.probes = 0
  }

  /**
   * Maps key to offset (a later put of the same key replaces it). Returns false, mapping nothing,
   * when the key is new and the map is full.
   */
  put(key: Buffer, offset: number): boolean {
    const d = digest(key)
    let slot = this.find(d)
    if (this.offsets[slot] === 0) {
      if (this.entries >= this.maxEntries) return false
      if (this.entries + 1 > this.capacity * GROW_AT && this.capacity < this.maxSlots) {
        this.grow()
        slot = this.find(d)
      }
      this.digests.set(d, slot * WORDS)
      this.entries++
    }
    this.offsets[slot] = offset + 1
    return true
  }

  /** The offset mapped for key, or -1. */
  get(key: Buffer): number {
    const slot = this.find(digest(key))
    return this.offsets[slot]! - 1
  }

  /** The slot holding digest d, or the empty slot where it would go (linear probing). */
  private find(d: Uint32Array): number {
    const cap = this.capacity
    const ds = this.digests
    const os = this.offsets
    let slot = d[0]! % cap
    this.lookups++
    for (;;) {
      this.probes++
      if (os[slot] === 0) return slot
      const at = slot * WORDS
      if (ds[at] === d[0] && ds[at + 1] === d[1] && ds[at + 2] === d[2] && ds[at + 3] === d[3]) return slot
      slot = slot + 1 === cap ? 0 : slot + 1
    }
  }

  private grow(): void {
    const oldDigests = this.digests
    const oldOffsets = this.offsets
    const oldCap = this.capacity
    this.capacity = Math.min(oldCap * 2, this.maxSlots)
    this.digests = new Uint32Array(this.capacity * WORDS)
    this.offsets = new Float64Array(this.capacity)
    for (let i = 0; i < oldCap; i++) {
      if (oldOffsets[i] === 0) continue
      const d = oldDigests.subarray(i * WORDS, i * WORDS + WORDS)
      const slot = this.find(d)
      this.digests.set(d, slot * WORDS)
      this.offsets[slot] = oldOffsets[i]!
    }
  }
}

const scratch = new Uint32Array(WORDS)

/** MD5 of the key as four 32-bit words, in a scratch array valid until the next call. */
function digest(key: Buffer): Uint32Array {
  md5Words(key, 0, key.length, scratch)
  return scratch
}
