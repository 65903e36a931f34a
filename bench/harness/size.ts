// The size scenarios of `npm run bench`: does a partition's size change the cost
// of producing into it, of a fetch at a random old offset, and of a timestamp lookup?
//
//   size-produce-100b   100-byte records into a partition that already holds 10 GiB, against an
//                       empty one (target: within 10 %)
//   size-random-reads   Fetch at random offsets and ListOffsets at random timestamps in a 1 GiB
//                       partition against a 10 GiB one (target: no slower at 10 GiB, ± 20 %)
//
// They need gigabytes written before the timed part, so they run in a phase of their own after
// the other load scenarios, one broker at a time, each on a fresh broker process: start it, create
// two one-partition topics and fill them (untimed, `tributary perf produce` with 10 KB records,
// acks=1 — the same filler for both brokers, so both hold the same batches), run every round of the
// reads, then an untimed warm-up produce and every round of the produce comparison (so the reads
// see exactly the filled sizes), stop the broker and delete its data before the next broker
// starts. One broker's data at a time keeps the disk and the page cache to one data set.
//
// The filler is perf produce without --raw: --raw sends one pre-built batch again and again, so
// every batch would carry the same timestamp and a timestamp lookup would degenerate into a scan
// of the whole segment on both brokers. Without --raw each batch carries its close time, as a real
// producer's do.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Broker, BrokerName } from './brokers.js'
import { settle } from './brokers.js'
import { perfProduce, randomReadsTool } from './generators.js'
import type { PartitionReads } from './random-reads.js'
import type { ScenarioResult } from './report.js'
import { type Counts, type Metric, PEAK_RSS } from './scenarios.js'
import { createTopicAndWait } from './topics.js'
import { fmtNum, watchMemory } from './util.js'

export interface SizeScenario {
  name: string
  title: string
  generator: string
  needs: 'perf'
  params: Record<string, unknown>
  metrics: Metric[]
  fullOnly: true
}

const FILL_RECORD_BYTES = 10_240
const FILL_BATCH_BYTES = 65_536
const FILL_TIMEOUT_MS = 60 * 60_000
const SMALL = 'size-small'
const LARGE = 'size-large'
const WARMUP = 'size-warmup'
const emptyTopic = (round: number) => `size-empty-r${round}`

/**
 * segment.bytes for the size topics: a tenth of the large partition, so that it spans ten segments
 * whatever the sizes (full run: 10 GiB, Kafka's default 1 GiB segments, no override needed).
 */
function segmentConfig(c: Counts): Record<string, string> {
  const bytes = Math.floor((c.sizeLargeMiB * 1024 * 1024) / 10)
  return bytes === DEFAULT_SEGMENT_BYTES ? {} : { 'segment.bytes': String(bytes) }
}
const DEFAULT_SEGMENT_BYTES = 1024 * 1024 * 1024

export const SIZE_PRODUCE = 'size-produce-100b'
export const SIZE_READS = 'size-random-reads'

/** "1 GiB", "500 MiB". */
export const sizeLabel = (mib: number) => (mib >= 1024 && mib % 1024 === 0 ? `${mib / 1024} GiB` : `${mib} MiB`)

const ms = (key: string, label: string): Metric => ({ key, label, unit: 'ms', better: 'lower' })

export function sizeScenarios(c: Counts): SizeScenario[] {
  const small = sizeLabel(c.sizeSmallMiB)
  const large = sizeLabel(c.sizeLargeMiB)
  const fill = {
    fillRecordSize: FILL_RECORD_BYTES,
    fillBatchSize: FILL_BATCH_BYTES,
    fillAcks: '1',
    fillGenerator: 'tributary perf produce (not --raw: each batch carries its own timestamp)',
    segmentBytes: segmentConfig(c)['segment.bytes'] ?? 'broker default (1 GiB)',
  }
  return [
    {
      name: SIZE_PRODUCE,
      title: `100-byte records into a partition holding ${large} against an empty one (1 partition, acks=1, tributary perf)`,
      generator: 'tributary perf produce',
      needs: 'perf',
      fullOnly: true,
      params: {
        records: c.sizeProduce,
        recordSize: 100,
        acks: '1',
        lingerMs: 5,
        batchSize: 65_536,
        partitions: 1,
        largeMiB: c.sizeLargeMiB,
        ...fill,
      },
      metrics: [
        { key: 'empty_records_per_sec', label: 'throughput into an empty partition', unit: 'records/s', better: 'higher' },
        { key: 'full_records_per_sec', label: `throughput into a ${large} partition`, unit: 'records/s', better: 'higher' },
        {
          key: 'full_vs_empty_pct',
          label: `throughput, ${large} as % of empty`,
          unit: '%',
          better: 'higher',
          target: { op: '>=', value: 90 },
        },
        PEAK_RSS,
      ],
    },
    {
      name: SIZE_READS,
      title: `Fetch at a random offset and ListOffsets at a random timestamp, ${small} against ${large} partition (one request in flight)`,
      generator: 'bench/harness/random-reads.ts (src/client)',
      needs: 'perf',
      fullOnly: true,
      params: { reads: c.sizeReads, warmup: 20, fetchMaxBytes: 1, smallMiB: c.sizeSmallMiB, largeMiB: c.sizeLargeMiB, ...fill },
      metrics: [
        ms('fetch_small_p50_ms', `fetch at a random offset p50, ${small}`),
        ms('fetch_large_p50_ms', `fetch at a random offset p50, ${large}`),
        ms('fetch_small_p99_ms', `fetch at a random offset p99, ${small}`),
        ms('fetch_large_p99_ms', `fetch at a random offset p99, ${large}`),
        {
          key: 'fetch_large_vs_small_pct',
          label: `fetch p50, ${large} as % of ${small}`,
          unit: '%',
          better: 'lower',
          target: { op: '<=', value: 120 },
        },
        ms('lookup_small_p50_ms', `timestamp lookup p50, ${small}`),
        ms('lookup_large_p50_ms', `timestamp lookup p50, ${large}`),
        ms('lookup_small_p99_ms', `timestamp lookup p99, ${small}`),
        ms('lookup_large_p99_ms', `timestamp lookup p99, ${large}`),
        {
          key: 'lookup_large_vs_small_pct',
          label: `lookup p50, ${large} as % of ${small}`,
          unit: '%',
          better: 'lower',
          target: { op: '<=', value: 120 },
        },
        PEAK_RSS,
      ],
    },
  ]
}

export interface SizePhase {
  brokers: BrokerName[]
  start(b: BrokerName, dir: string): Promise<Broker>
  /** The run's temporary directory; each broker gets a subdirectory, its data deleted after its turn. */
  dir: string
  counts: Counts
  /** Results of the size scenarios to run (SIZE_PRODUCE and/or SIZE_READS). */
  results: ScenarioResult[]
  say(s: string): void
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const pct = (a: number, b: number) => Math.round((1000 * a) / b) / 10

/** Fills a one-partition topic with about `mib` MiB of 10 KB records; returns a line for the notes. */
async function fill(broker: Broker, topic: string, mib: number): Promise<string> {
  const records = Math.ceil((mib * 1024 * 1024) / FILL_RECORD_BYTES)
  const t0 = performance.now()
  const r = await perfProduce(broker.bootstrap, {
    topic,
    records,
    recordSize: FILL_RECORD_BYTES,
    acks: '1',
    lingerMs: 5,
    batchSize: FILL_BATCH_BYTES,
    timeoutMs: FILL_TIMEOUT_MS,
  })
  return `filled ${topic} with ${sizeLabel(mib)} (${records.toLocaleString('en-US')} records of 10 KB) in ${secs(performance.now() - t0)} (${fmtNum(r.mbPerSec)} MB/s)`
}

function readsMetrics(small: PartitionReads, large: PartitionReads): Record<string, number> {
  return {
    fetch_small_p50_ms: small.fetch.p50,
    fetch_large_p50_ms: large.fetch.p50,
    fetch_small_p99_ms: small.fetch.p99,
    fetch_large_p99_ms: large.fetch.p99,
    fetch_large_vs_small_pct: pct(large.fetch.p50, small.fetch.p50),
    lookup_small_p50_ms: small.listOffsets.p50,
    lookup_large_p50_ms: large.listOffsets.p50,
    lookup_small_p99_ms: small.listOffsets.p99,
    lookup_large_p99_ms: large.listOffsets.p99,
    lookup_large_vs_small_pct: pct(large.listOffsets.p50, small.listOffsets.p50),
    fetch_small_avg_ms: small.fetch.avg,
    fetch_large_avg_ms: large.fetch.avg,
    lookup_small_avg_ms: small.listOffsets.avg,
    lookup_large_avg_ms: large.listOffsets.avg,
    small_size_mb: (small.sizeBytes ?? Number.NaN) / 1048576,
    large_size_mb: (large.sizeBytes ?? Number.NaN) / 1048576,
    avg_batch_bytes: large.avgBatchBytes,
  }
}

const readsLine = (m: Record<string, number>) =>
  `fetch p50 ${fmtNum(m.fetch_small_p50_ms!)} → ${fmtNum(m.fetch_large_p50_ms!)} ms (${fmtNum(m.fetch_large_vs_small_pct!)} %), lookup p50 ${fmtNum(m.lookup_small_p50_ms!)} → ${fmtNum(m.lookup_large_p50_ms!)} ms (${fmtNum(m.lookup_large_vs_small_pct!)} %), peak RSS ${fmtNum(m.peak_rss_mb!)} MiB`

const produceLine = (m: Record<string, number>) =>
  `empty ${Math.round(m.empty_records_per_sec!).toLocaleString('en-US')} records/s, full ${Math.round(m.full_records_per_sec!).toLocaleString('en-US')} records/s (${fmtNum(m.full_vs_empty_pct!)} %), peak RSS ${fmtNum(m.peak_rss_mb!)} MiB`

/** Runs the size scenarios on each broker in turn; returns the number of failed runs. */
export async function runSizePhase(p: SizePhase): Promise<number> {
  const { counts: c, say } = p
  const reads = p.results.find((r) => r.name === SIZE_READS)
  const produce = p.results.find((r) => r.name === SIZE_PRODUCE)
  if (!reads && !produce) return 0
  const configs = segmentConfig(c)
  let failures = 0
  const fail = (r: ScenarioResult, b: BrokerName, what: string, err: unknown) => {
    failures++
    r.errors[b].push(`${what}: ${(err as Error).message}`)
    say(`  ${what} ${b.padEnd(9)} FAILED: ${(err as Error).message}`)
  }
  say(`\n== size scenarios (${p.results.map((r) => r.name).join(', ')}): one fresh broker at a time, filled, measured, deleted`)
  for (const b of p.brokers) {
    const dir = join(p.dir, `size-${b}`)
    let broker: Broker | undefined
    try {
      broker = await p.start(b, dir)
      say(`  ${b.padEnd(9)} started on ${broker.bootstrap}`)
      // Fill: the large partition is needed by both scenarios, the small one by the reads only.
      const topics: [string, number][] = reads
        ? [
            [SMALL, c.sizeSmallMiB],
            [LARGE, c.sizeLargeMiB],
          ]
        : [[LARGE, c.sizeLargeMiB]]
      for (const [topic, mib] of topics) {
        await createTopicAndWait(broker.bootstrap, topic, 1, configs)
        const note = await fill(broker, topic, mib)
        say(`  ${b.padEnd(9)} ${note}`)
        for (const r of p.results) r.notes.push(`${b}: ${note} (untimed set-up)`)
      }
    } catch (err) {
      for (const r of p.results) fail(r, b, 'set-up', err)
      await broker?.stop()
      rmSync(join(dir, 'data'), { recursive: true, force: true })
      continue
    }

    for (let round = 1; reads && round <= c.runs; round++) {
      if (!broker.alive()) {
        fail(reads, b, `run ${round}/${c.runs}`, new Error(`the broker has exited\n${broker.logTail(10)}`))
        break
      }
      const w = watchMemory(broker.pid)
      const t = performance.now()
      try {
        // The two partitions take turns, one request at a time; the same offsets on both brokers
        // (seeded by the round); which partition goes first alternates from round to round.
        const order = round % 2 === 1 ? [SMALL, LARGE] : [LARGE, SMALL]
        const res = await randomReadsTool(broker.bootstrap, order, c.sizeReads, round)
        const of = (topic: string) => {
          const r = res.partitions.find((x) => x.topic === topic)
          if (!r) throw new Error(`random-reads returned nothing for ${topic}`)
          return r
        }
        const m = readsMetrics(of(SMALL), of(LARGE))
        m.peak_rss_mb = w.stop()
        reads.runs[b].push(m)
        say(`  ${SIZE_READS} run ${round}/${c.runs} ${b.padEnd(9)} ${readsLine(m)} (${secs(performance.now() - t)})`)
      } catch (err) {
        w.stop()
        fail(reads, b, `${SIZE_READS} run ${round}/${c.runs}`, err)
      }
    }

    const o = { records: c.sizeProduce, recordSize: 100, acks: '1' as const, lingerMs: 5, batchSize: 65_536 }
    if (produce && broker.alive()) {
      // The broker is fresh and has only taken 10 KB records so far: one untimed produce of the
      // same load first, so that neither partition's first run pays for warming up its path.
      try {
        await createTopicAndWait(broker.bootstrap, WARMUP, 1, configs)
        await perfProduce(broker.bootstrap, { ...o, topic: WARMUP })
      } catch (err) {
        fail(produce, b, `${SIZE_PRODUCE} warm-up`, err)
      }
    }
    for (let round = 1; produce && round <= c.runs; round++) {
      if (!broker.alive()) {
        fail(produce, b, `run ${round}/${c.runs}`, new Error(`the broker has exited\n${broker.logTail(10)}`))
        break
      }
      try {
        await createTopicAndWait(broker.bootstrap, emptyTopic(round), 1, configs)
      } catch (err) {
        fail(produce, b, `${SIZE_PRODUCE} run ${round}/${c.runs} set-up`, err)
        continue
      }
      const w = watchMemory(broker.pid)
      const t = performance.now()
      try {
        const order = round % 2 === 1 ? [emptyTopic(round), LARGE] : [LARGE, emptyTopic(round)]
        const m: Record<string, number> = {}
        for (const topic of order) {
          const r = await perfProduce(broker.bootstrap, { ...o, topic })
          const k = topic === LARGE ? 'full' : 'empty'
          Object.assign(m, { [`${k}_records_per_sec`]: r.recordsPerSec, [`${k}_p50_ms`]: r.p50Ms, [`${k}_p99_ms`]: r.p99Ms })
          await settle()
        }
        m.full_vs_empty_pct = pct(m.full_records_per_sec!, m.empty_records_per_sec!)
        m.peak_rss_mb = w.stop()
        produce.runs[b].push(m)
        say(`  ${SIZE_PRODUCE} run ${round}/${c.runs} ${b.padEnd(9)} ${produceLine(m)} (${secs(performance.now() - t)})`)
      } catch (err) {
        w.stop()
        fail(produce, b, `${SIZE_PRODUCE} run ${round}/${c.runs}`, err)
      }
    }

    const t = performance.now()
    await broker.stop()
    rmSync(join(dir, 'data'), { recursive: true, force: true })
    say(`  ${b.padEnd(9)} stopped, its data deleted (${secs(performance.now() - t)})`)
    await settle()
  }
  return failures
}
