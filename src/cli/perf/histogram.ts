// A latency histogram in the spirit of HdrHistogram: log-linear buckets with bounded memory and a
// bounded relative error. Values are non-negative integers (the perf tools record microseconds).
//
// Layout: values below 128 each have their own bucket (exact). Above, every power-of-two range
// [2^m, 2^(m+1)) is split into 64 equal sub-buckets, so a bucket is at most 1/64 (≈1.6%) of its
// value wide. Values are capped at 2^31 − 1 (≈36 minutes in µs): 1,664 buckets, 13 KB, whatever
// the number of samples. Percentiles report the middle of the bucket holding the requested rank,
// clamped to the exact minimum and maximum, which are tracked separately along with the sum.

const SUB_BITS = 6
const SUB_COUNT = 1 << SUB_BITS // 64 sub-buckets per power of two
const LINEAR_LIMIT = SUB_COUNT * 2 // values < 128 are exact
const MAX_VALUE = 0x7fffffff
const BUCKETS = (31 - SUB_BITS) * SUB_COUNT + SUB_COUNT // 1664

function indexOf(v: number): number {
  if (v < LINEAR_LIMIT) return v
  const shift = 31 - Math.clz32(v) - SUB_BITS
  return shift * SUB_COUNT + (v >>> shift)
}

/** [lowest, highest] value that falls in bucket i. */
function boundsOf(i: number): [number, number] {
  if (i < LINEAR_LIMIT) return [i, i]
  const shift = Math.floor(i / SUB_COUNT) - 1
  const sub = i - shift * SUB_COUNT
  const low = sub * 2 ** shift
  return [low, low + 2 ** shift - 1]
}

export class Histogram {
  private readonly counts = new Float64Array(BUCKETS)
  private n = 0
  private sum = 0
  private minValue = Number.POSITIVE_INFINITY
  private maxValue = 0

  /** Records `count` samples of value v (rounded to an integer, clamped to 0 … 2^31−1). */
  record(v: number, count = 1): void {
    if (!(count > 0)) return
    let x = Math.round(v)
    if (!(x >= 0)) x = 0
    else if (x > MAX_VALUE) x = MAX_VALUE
    this.counts[indexOf(x)]! += count
    this.n += count
    this.sum += x * count
    if (x < this.minValue) this.minValue = x
    if (x > this.maxValue) this.maxValue = x
  }

  get count(): number {
    return this.n
  }

  get min(): number {
    return this.n === 0 ? 0 : this.minValue
  }

  get max(): number {
    return this.maxValue
  }

  get mean(): number {
    return this.n === 0 ? 0 : this.sum / this.n
  }

  /** The value at percentile p (0 < p ≤ 100), within the bucket's precision; 0 when empty. */
  percentile(p: number): number {
    if (this.n === 0) return 0
    if (p >= 100) return this.maxValue
    const rank = Math.max(1, Math.ceil((Math.min(100, Math.max(0, p)) / 100) * this.n))
    let seen = 0
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!
      if (seen >= rank) {
        const [low, high] = boundsOf(i)
        const mid = low === high ? low : (low + high) / 2
        return Math.min(this.maxValue, Math.max(this.minValue, mid))
      }
    }
    return this.maxValue
  }

  /** Adds another histogram's samples to this one. */
  merge(other: Histogram): void {
    for (let i = 0; i < BUCKETS; i++) this.counts[i]! += other.counts[i]!
    this.n += other.n
    this.sum += other.sum
    if (other.n > 0) {
      this.minValue = Math.min(this.minValue, other.minValue)
      this.maxValue = Math.max(this.maxValue, other.maxValue)
    }
  }
}
