// Counters, the progress line and the final summary of a perf run.
//
// A Meter counts records and bytes and keeps a latency histogram for the whole run, plus the
// records, bytes and latency sum/max of the current progress window. Rates use the time since the
// meter started. MB means 2^20 bytes, as in Kafka's perf tools.
import { Histogram } from './histogram.js'

const MB = 1024 * 1024

export interface LatencySummary {
  avg: number
  max: number
  p50: number
  p95: number
  p99: number
  p999: number
}

export interface Summary {
  records: number
  bytes: number
  elapsedMs: number
  recordsPerSec: number
  mbPerSec: number
  /** Milliseconds. */
  latencyMs: LatencySummary
}

export class Meter {
  readonly histogram = new Histogram()
  records = 0
  bytes = 0
  private startedAt = performance.now()
  private stoppedAt: number | undefined
  private windowStart = this.startedAt
  private windowRecords = 0
  private windowBytes = 0
  private windowLatencySum = 0
  private windowLatencyCount = 0
  private windowLatencyMax = 0

  /** Restarts the clock (when the work really begins, after setup). */
  start(): void {
    this.startedAt = this.windowStart = performance.now()
  }

  /** Freezes the elapsed time at now. */
  stop(): void {
    this.stoppedAt ??= performance.now()
  }

  get elapsedMs(): number {
    return (this.stoppedAt ?? performance.now()) - this.startedAt
  }

  add(records: number, bytes: number): void {
    this.records += records
    this.bytes += bytes
    this.windowRecords += records
    this.windowBytes += bytes
  }

  /** Records `count` samples of a latency in microseconds. */
  latency(us: number, count = 1): void {
    this.histogram.record(us, count)
    this.windowLatencySum += us * count
    this.windowLatencyCount += count
    if (us > this.windowLatencyMax) this.windowLatencyMax = us
  }

  /** The progress line for the window since the previous call, which starts a new window. */
  progressLine(label: string, verb: string): string {
    const now = performance.now()
    const sec = Math.max(1e-9, (now - this.windowStart) / 1000)
    const avg = this.windowLatencyCount === 0 ? 0 : this.windowLatencySum / this.windowLatencyCount / 1000
    const line =
      `${label}: ${this.records} records ${verb}, ${fmt(this.windowRecords / sec, 1)} records/s ` +
      `(${fmt(this.windowBytes / MB / sec, 2)} MB/s), latency avg ${fmt(avg, 2)} ms, max ${fmt(this.windowLatencyMax / 1000, 2)} ms`
    this.windowStart = now
    this.windowRecords = this.windowBytes = this.windowLatencySum = this.windowLatencyCount = this.windowLatencyMax = 0
    return line
  }

  summary(): Summary {
    const elapsedMs = this.elapsedMs
    const sec = Math.max(1e-9, elapsedMs / 1000)
    const h = this.histogram
    const ms = (us: number) => round(us / 1000, 3)
    return {
      records: this.records,
      bytes: this.bytes,
      elapsedMs: round(elapsedMs, 1),
      recordsPerSec: round(this.records / sec, 1),
      mbPerSec: round(this.bytes / MB / sec, 2),
      latencyMs: {
        avg: ms(h.mean),
        max: ms(h.max),
        p50: ms(h.percentile(50)),
        p95: ms(h.percentile(95)),
        p99: ms(h.percentile(99)),
        p999: ms(h.percentile(99.9)),
      },
    }
  }
}

/** The one-line text summary, in the shape of Kafka's ProducerPerformance output. */
export function summaryLine(label: string, verb: string, s: Summary, latencyWhat = 'latency'): string {
  const l = s.latencyMs
  return (
    `${label}: ${s.records} records ${verb} in ${fmt(s.elapsedMs / 1000, 2)} s, ${fmt(s.recordsPerSec, 1)} records/s ` +
    `(${fmt(s.mbPerSec, 2)} MB/s), ${latencyWhat} avg ${fmt(l.avg, 2)} ms, max ${fmt(l.max, 2)} ms, ` +
    `p50 ${fmt(l.p50, 2)} ms, p95 ${fmt(l.p95, 2)} ms, p99 ${fmt(l.p99, 2)} ms, p99.9 ${fmt(l.p999, 2)} ms`
  )
}

function fmt(v: number, digits: number): string {
  return v.toFixed(digits)
}

function round(v: number, digits: number): number {
  const f = 10 ** digits
  return Math.round(v * f) / f
}

/** Calls fn every intervalMs until the returned stop function is called. */
export function every(intervalMs: number, fn: () => void): () => void {
  const timer = setInterval(fn, intervalMs)
  return () => clearInterval(timer)
}
