// The soak's measurements of a broker process (soak-run.ts) and the verdict on them.
//
// A sample reads, for one process: its RSS (/proc/PID/status VmRSS), its open file descriptors
// (the entries of /proc/PID/fd), the heap in use and the event-loop delay p99 from the broker's
// /metrics (prom-client's nodejs_heap_size_used_bytes and nodejs_eventloop_lag_p99_seconds; the
// event-loop histogram is reset at every scrape, so the p99 is that of the time since the last
// sample), and the segment files (*.log) under its data directory.
//
// The verdict (judge) takes the samples of every restart interval (one broker process each):
//   - growth within an interval: the median of the last third of its samples against the median
//     of its first third, for RSS, heap and fds, each with a stated tolerance (ratio and slack).
//     The heap in use counts garbage until the next collection, so a sample's heap is taken as the
//     lowest heap of it and the interval's later samples (what the process came down to; a leak
//     never comes down), and heap growth is judged only in an interval that had a full (major)
//     collection: before its first one a fresh process's heap climbs to V8's first limit however
//     little of it is live (the short soak's first 30 s showed 33 -> 77 MiB, then 41 after it);
//   - back to a baseline after each restart: the first-third medians of every interval against
//     those of the first interval, with the same tolerances;
//   - limits: every sample's RSS, fds and segment count under the configured bounds, and the 99th
//     percentile of the samples' loop-delay p99 under its bound (one sample may spike while other
//     processes of the machine take the CPU: that is not the broker's doing).
// Every failed check is one line naming the interval, the figure and the bound. Pure functions
// apart from sampleBroker, so the verdict is unit-tested (test/unit/soak-verdict.test.ts).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface Sample {
  /** Seconds since the soak started. */
  t: number
  /** Which restart interval (0 = the first broker process). */
  interval: number
  rssMiB: number
  fds: number
  heapMiB: number
  /** Event-loop delay p99 since the previous scrape, ms (NaN when /metrics did not answer). */
  loopP99Ms: number
  segments: number
  /** Full (major) collections of the process so far (prom-client's nodejs_gc_duration_seconds); NaN when unknown. */
  majorGcs: number
}

export interface Tolerance {
  /** A figure may grow to base × ratio + slack. */
  ratio: number
  slack: number
}

export interface SoakLimits {
  maxRssMiB: number
  maxFds: number
  maxLoopP99Ms: number
  maxSegments: number
  rss: Tolerance
  heap: Tolerance
  fds: Tolerance
}

export const DEFAULT_LIMITS: SoakLimits = {
  maxRssMiB: 768,
  maxFds: 1024,
  maxLoopP99Ms: 1000,
  maxSegments: 400,
  rss: { ratio: 1.5, slack: 48 },
  heap: { ratio: 1.5, slack: 24 },
  // A broker process opens segment files lazily and its clients reconnect over its first minutes:
  // the 30-minute run saw 55-60 fds of such warm-up in every interval, flat after it.
  fds: { ratio: 1.25, slack: 48 },
}

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : Number.NaN
}

function countSegments(dir: string): number {
  let n = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) n += countSegments(join(dir, e.name))
    else if (e.name.endsWith('.log')) n++
  }
  return n
}

/** The value of a metric line `name value` in Prometheus text (name with its labels, if any, as written), or NaN. */
export function metricValue(text: string, name: string): number {
  for (const line of text.split('\n')) if (line.startsWith(`${name} `)) return Number(line.slice(name.length + 1))
  return Number.NaN
}

export async function sampleBroker(pid: number, http: string, dataDir: string, t: number, interval: number): Promise<Sample> {
  let heap = Number.NaN
  let loop = Number.NaN
  let majorGcs = Number.NaN
  try {
    const text = await (await fetch(`${http}/metrics`, { signal: AbortSignal.timeout(5000) })).text()
    heap = metricValue(text, 'nodejs_heap_size_used_bytes') / 2 ** 20
    loop = metricValue(text, 'nodejs_eventloop_lag_p99_seconds') * 1000
    // The labelled series appears with the first major collection: absent from an answer means none yet.
    const gcs = metricValue(text, 'nodejs_gc_duration_seconds_count{kind="major"}')
    majorGcs = Number.isNaN(gcs) ? 0 : gcs
  } catch {
    // the broker is between restarts or too busy to answer: the /proc figures still count
  }
  const fds = readdirSync(`/proc/${pid}/fd`).length
  return { t, interval, rssMiB: rssOf(pid), fds, heapMiB: heap, loopP99Ms: loop, segments: countSegments(dataDir), majorGcs }
}

export function median(xs: readonly number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

export function percentile(xs: readonly number[], p: number): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}

type Figure = 'rssMiB' | 'heapMiB' | 'fds'
const FIGURES: ReadonlyArray<[Figure, 'rss' | 'heap' | 'fds', string]> = [
  ['rssMiB', 'rss', 'MiB RSS'],
  ['heapMiB', 'heap', 'MiB heap'],
  ['fds', 'fds', 'fds'],
]

export interface IntervalSummary {
  interval: number
  samples: number
  first: Record<Figure, number>
  last: Record<Figure, number>
  /** Whether a full collection ran within the interval (true when the samples do not say). */
  collected: boolean
}

/** The first-third and last-third medians of one interval's samples (the heap as the lowest from each sample on). */
export function summarise(interval: number, raw: readonly Sample[]): IntervalSummary {
  const samples = raw.map((x) => ({ ...x }))
  for (let i = samples.length - 2; i >= 0; i--) {
    const later = samples[i + 1]!.heapMiB
    if (!Number.isNaN(later) && !(samples[i]!.heapMiB <= later)) samples[i]!.heapMiB = later
  }
  const gcs = raw.map((x) => x.majorGcs).filter((x) => !Number.isNaN(x))
  const collected = gcs.length < 2 || gcs[gcs.length - 1]! > gcs[0]!
  const third = Math.max(1, Math.floor(samples.length / 3))
  const head = samples.slice(0, third)
  const tail = samples.slice(samples.length - third)
  const pick = (xs: readonly Sample[]) =>
    Object.fromEntries(FIGURES.map(([f]) => [f, median(xs.map((s) => s[f]))])) as Record<Figure, number>
  return { interval, samples: samples.length, first: pick(head), last: pick(tail), collected }
}

const bound = (base: number, tol: Tolerance) => base * tol.ratio + tol.slack
const round = (x: number) => Math.round(x * 10) / 10

/** Every failed check, one line each; empty when the samples show no leak and no limit passed. */
export function judge(samples: readonly Sample[], limits: SoakLimits, minPerInterval = 6): string[] {
  const problems: string[] = []
  const byInterval = new Map<number, Sample[]>()
  for (const s of samples) {
    let list = byInterval.get(s.interval)
    if (!list) byInterval.set(s.interval, (list = []))
    list.push(s)
  }
  const summaries = [...byInterval.entries()].filter(([, list]) => list.length >= minPerInterval).map(([i, list]) => summarise(i, list))
  if (summaries.length === 0) problems.push(`no interval has the ${minPerInterval} samples a comparison needs`)
  const baseline = summaries[0]
  for (const s of summaries) {
    for (const [f, tolKey, unit] of FIGURES) {
      const tol = limits[tolKey]
      if (s.last[f] > bound(s.first[f], tol) && (f !== 'heapMiB' || s.collected))
        problems.push(
          `interval ${s.interval}: ${unit} grew from ${round(s.first[f])} (first third) to ${round(s.last[f])} (last third), past ${round(bound(s.first[f], tol))}`,
        )
      if (baseline && s !== baseline && s.first[f] > bound(baseline.first[f], tol))
        problems.push(
          `interval ${s.interval}: ${unit} after the restart ${round(s.first[f])}, not back to the baseline ${round(baseline.first[f])} (bound ${round(bound(baseline.first[f], tol))})`,
        )
    }
  }
  for (const s of samples) {
    if (s.rssMiB > limits.maxRssMiB) problems.push(`t=${s.t}s: RSS ${round(s.rssMiB)} MiB past ${limits.maxRssMiB} MiB`)
    if (s.fds > limits.maxFds) problems.push(`t=${s.t}s: ${s.fds} fds past ${limits.maxFds}`)
    if (s.segments > limits.maxSegments) problems.push(`t=${s.t}s: ${s.segments} segments past ${limits.maxSegments}`)
  }
  // The loop delay of one sample may spike when other processes take the CPU; the limit holds for the 99th percentile of the samples.
  const loop = percentile(
    samples.map((s) => s.loopP99Ms),
    99,
  )
  if (loop > limits.maxLoopP99Ms)
    problems.push(`event-loop delay p99 ${round(loop)} ms (99th percentile of the samples) past ${limits.maxLoopP99Ms} ms`)
  return problems
}
