// Load generators, the same for both brokers: Kafka's own perf tools from kafka-tools
// (ProducerPerformance, ConsumerPerformance, EndToEndLatency), the two helpers in
// bench/kafka/src (BenchAdmin, FixedRateEndToEnd), each in its own JVM; `tributary perf` when
// the CLI has it; and the harness's random-reads tool (random-reads.ts), in its own Node process.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { JavaEnv } from './brokers.js'
import { TRIBUTARY_MAIN } from './brokers.js'
import type { RandomReadsResult } from './random-reads.js'
import { ROOT, run, runOk } from './util.js'

const TOOL_TIMEOUT_MS = 10 * 60_000

function java(env: JavaEnv, mainClass: string, args: string[], timeoutMs = TOOL_TIMEOUT_MS) {
  return runOk(env.java, [...env.toolArgs, '-cp', env.classpath, mainClass, ...args], { timeoutMs })
}

/** Creates topics with `partitions` partitions (RF 1) through Kafka's Admin client and waits for leaders. */
export async function createTopics(env: JavaEnv, bootstrap: string, partitions: number, topics: readonly string[]): Promise<void> {
  if (topics.length === 0) return
  await java(env, 'dev.tributary.bench.BenchAdmin', [bootstrap, String(partitions), ...topics], 180_000)
}

export interface ProducerOptions {
  topic: string
  records: number
  recordSize: number
  acks: '1' | 'all'
  lingerMs: number
  batchSize: number
  /** records/s, -1 for unthrottled */
  throughput?: number
  /** A transactional producer (ProducerPerformance --transactional-id): commits every transactionDurationMs. */
  transactionalId?: string
  transactionDurationMs?: number
  /** false: enable.idempotence=false (the Java producer is idempotent by default with acks=all). */
  idempotence?: boolean
  /** More producer settings, k=v (e.g. javaTlsProps). */
  props?: readonly string[]
}

/** A Java client's settings for a broker's SSL listener, trusting the bench CA (PEM trust store). */
export const javaTlsProps = (caFile: string): string[] => [
  'security.protocol=SSL',
  'ssl.truststore.type=PEM',
  `ssl.truststore.location=${caFile}`,
]

export interface ProducerResult {
  recordsPerSec: number
  mbPerSec: number
  avgMs: number
  maxMs: number
  p50Ms: number
  p95Ms: number
  p99Ms: number
  p999Ms: number
}

export const producerProps = (o: ProducerOptions) => [
  `acks=${o.acks}`,
  `linger.ms=${o.lingerMs}`,
  `batch.size=${o.batchSize}`,
  ...(o.idempotence === false ? ['enable.idempotence=false'] : []),
  ...(o.props ?? []),
]

/** Kafka's ProducerPerformance (kafka-producer-perf-test.sh). */
export async function producerPerformance(env: JavaEnv, bootstrap: string, o: ProducerOptions): Promise<ProducerResult> {
  const r = await java(env, 'org.apache.kafka.tools.ProducerPerformance', [
    '--bootstrap-server',
    bootstrap,
    '--topic',
    o.topic,
    '--num-records',
    String(o.records),
    '--record-size',
    String(o.recordSize),
    '--throughput',
    String(o.throughput ?? -1),
    ...(o.transactionalId
      ? ['--transactional-id', o.transactionalId, '--transaction-duration-ms', String(o.transactionDurationMs ?? 100)]
      : []),
    '--command-property',
    ...producerProps(o),
  ])
  // "N records sent, X records/sec (Y MB/sec), A ms avg latency, M ms max latency, P ms 50th, P ms 95th, P ms 99th, P ms 99.9th."
  const line = r.stdout
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.includes('99.9th'))
  const m =
    line &&
    /([\d.]+) records\/sec \(([\d.]+) MB\/sec\), ([\d.]+) ms avg latency, ([\d.]+) ms max latency, ([\d.]+) ms 50th, ([\d.]+) ms 95th, ([\d.]+) ms 99th, ([\d.]+) ms 99.9th/.exec(
      line,
    )
  if (!m) throw new Error(`ProducerPerformance: no summary line in its output:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`)
  const n = m.slice(1).map(Number)
  return { recordsPerSec: n[0]!, mbPerSec: n[1]!, avgMs: n[2]!, maxMs: n[3]!, p50Ms: n[4]!, p95Ms: n[5]!, p99Ms: n[6]!, p999Ms: n[7]! }
}

/** Fills `topic` with `records` of 100 B through ProducerPerformance (acks=1, linger 5 ms, 64 KiB batches): untimed set-up. */
export function fill100b(env: JavaEnv, bootstrap: string, topic: string, records: number): Promise<ProducerResult> {
  return producerPerformance(env, bootstrap, { topic, records, recordSize: 100, acks: '1', lingerMs: 5, batchSize: 65_536 })
}

export interface ConsumerResult {
  /** records/s over the fetch time (after the group join), as ConsumerPerformance's fetch.nMsg.sec */
  recordsPerSec: number
  mbPerSec: number
  /** records/s over the whole run including the group join (nMsg.sec) */
  overallRecordsPerSec: number
  rebalanceMs: number
}

/**
 * Kafka's ConsumerPerformance (kafka-consumer-perf-test.sh), a new group each time, from the earliest
 * offset; `props` are consumer settings (--command-property k=v), e.g. isolation.level=read_committed.
 */
export async function consumerPerformance(
  env: JavaEnv,
  bootstrap: string,
  topic: string,
  records: number,
  props: string[] = [],
): Promise<ConsumerResult> {
  const r = await java(env, 'org.apache.kafka.tools.ConsumerPerformance', [
    '--bootstrap-server',
    bootstrap,
    '--topic',
    topic,
    '--num-records',
    String(records),
    '--timeout',
    '30000',
    ...props.flatMap((p) => ['--command-property', p]),
  ])
  const lines = r.stdout.trim().split('\n')
  const hi = lines.findIndex((l) => l.startsWith('start.time'))
  if (hi < 0 || !lines[hi + 1])
    throw new Error(`ConsumerPerformance: no result in its output:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`)
  const head = lines[hi]!.split(',').map((s) => s.trim())
  const vals = lines[hi + 1]!.split(',').map((s) => s.trim())
  const get = (k: string) => Number(vals[head.indexOf(k)])
  const consumed = get('data.consumed.in.nMsg')
  if (consumed < records) throw new Error(`ConsumerPerformance consumed ${consumed} of ${records} records`)
  return {
    recordsPerSec: get('fetch.nMsg.sec'),
    mbPerSec: get('fetch.MB.sec'),
    overallRecordsPerSec: get('nMsg.sec'),
    rebalanceMs: get('rebalance.time.ms'),
  }
}

export interface LatencyResult {
  p50Ms: number
  p95Ms?: number
  p99Ms: number
  p999Ms: number
  maxMs?: number
  avgMs: number
  rate?: number
}

/** bench/kafka's FixedRateEndToEnd: produce at a fixed rate, consume in the same JVM, latency of every record. */
export async function fixedRateEndToEnd(
  env: JavaEnv,
  bootstrap: string,
  topic: string,
  records: number,
  rate: number,
  size: number,
  acks: string,
): Promise<LatencyResult> {
  const r = await java(env, 'dev.tributary.bench.FixedRateEndToEnd', [bootstrap, topic, String(records), String(rate), String(size), acks])
  const line = r.stdout
    .trim()
    .split('\n')
    .find((l) => l.startsWith('{'))
  if (!line) throw new Error(`FixedRateEndToEnd printed no result:\n${r.stdout.slice(-2000)}`)
  const j = JSON.parse(line) as Record<string, number>
  return { p50Ms: j.p50_ms!, p95Ms: j.p95_ms!, p99Ms: j.p99_ms!, p999Ms: j.p999_ms!, maxMs: j.max_ms!, avgMs: j.avg_ms!, rate: j.rate! }
}

/** Kafka's EndToEndLatency: one record in flight at a time (send, wait until consumed, repeat). */
export async function endToEndLatency(
  env: JavaEnv,
  bootstrap: string,
  topic: string,
  records: number,
  size: number,
  acks: string,
): Promise<LatencyResult> {
  const r = await java(env, 'org.apache.kafka.tools.EndToEndLatency', [
    '--bootstrap-server',
    bootstrap,
    '--topic',
    topic,
    '--num-records',
    String(records),
    '--producer-acks',
    acks,
    '--record-size',
    String(size),
  ])
  const avg = /Avg latency: ([\d.]+) ms/.exec(r.stdout)
  const pct = /Percentiles: 50th = ([\d.]+), 99th = ([\d.]+), 99.9th = ([\d.]+)/.exec(r.stdout)
  if (!avg || !pct) throw new Error(`EndToEndLatency: no result in its output:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`)
  return { avgMs: Number(avg[1]), p50Ms: Number(pct[1]), p99Ms: Number(pct[2]), p999Ms: Number(pct[3]) }
}

// ---------------------------------------------------------------------------------------------
// `tributary perf`, the second load generator. It is being written alongside this
// harness; the harness uses it when `node dist/bin/tributary.js perf --help` works, and otherwise
// says it was skipped. The flags and the JSON it prints are mapped here, in one place.

export interface PerfAvailability {
  available: boolean
  reason?: string
}

export async function tributaryPerfAvailable(): Promise<PerfAvailability> {
  if (!existsSync(TRIBUTARY_MAIN)) return { available: false, reason: 'dist/bin/tributary.js is not built' }
  const r = await run(process.execPath, [TRIBUTARY_MAIN, 'perf', '--help'], { timeoutMs: 30_000 })
  if (r.code !== 0 || !/produce/.test(r.stdout + r.stderr))
    return { available: false, reason: '`tributary perf` is not in this build of the CLI yet' }
  return { available: true }
}

export interface PerfProduceOptions {
  topic: string
  records: number
  recordSize: number
  acks: '1' | 'all'
  lingerMs: number
  batchSize: number
  /** Kill the generator after this long (default 10 minutes; filling gigabytes takes longer). */
  timeoutMs?: number
}

/** Finds a number in perf's --json output under any of the given keys (nested objects searched too). */
function pick(obj: unknown, keys: readonly string[]): number {
  if (obj === null || typeof obj !== 'object') return Number.NaN
  const o = obj as Record<string, unknown>
  for (const k of keys) if (typeof o[k] === 'number') return o[k] as number
  for (const v of Object.values(o)) {
    const x = pick(v, keys)
    if (Number.isFinite(x)) return x
  }
  return Number.NaN
}

async function perfJson(args: string[], timeoutMs = TOOL_TIMEOUT_MS): Promise<unknown> {
  const r = await runOk(process.execPath, [TRIBUTARY_MAIN, 'perf', ...args, '--json'], { timeoutMs })
  const lines = r.stdout.trim().split('\n')
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!.trim()
    if (l.startsWith('{')) return JSON.parse(l)
  }
  // A pretty-printed object over several lines.
  const start = r.stdout.indexOf('{')
  if (start >= 0) return JSON.parse(r.stdout.slice(start))
  throw new Error(`tributary perf printed no JSON:\n${r.stdout.slice(-2000)}`)
}

// `tributary perf --json` prints its Summary (src/cli/perf/stats.ts): recordsPerSec, mbPerSec and
// latencyMs { avg, max, p50, p95, p99, p999 }.
const RPS = ['recordsPerSec']
const MBPS = ['mbPerSec']
const P50 = ['p50']
const P99 = ['p99']
const P999 = ['p999']

export async function perfProduce(bootstrap: string, o: PerfProduceOptions): Promise<ProducerResult> {
  const j = await perfJson(
    [
      'produce',
      '--bootstrap-server',
      bootstrap,
      '--topic',
      o.topic,
      '--num-records',
      String(o.records),
      '--record-size',
      String(o.recordSize),
      '--throughput',
      '-1',
      '--acks',
      o.acks,
      '--linger-ms',
      String(o.lingerMs),
      '--batch-size',
      String(o.batchSize),
    ],
    o.timeoutMs,
  )
  return {
    recordsPerSec: pick(j, RPS),
    mbPerSec: pick(j, MBPS),
    avgMs: pick(j, ['avg']),
    maxMs: pick(j, ['max']),
    p50Ms: pick(j, P50),
    p95Ms: pick(j, ['p95']),
    p99Ms: pick(j, P99),
    p999Ms: pick(j, P999),
  }
}

export async function perfConsume(bootstrap: string, topic: string, records: number): Promise<ConsumerResult> {
  const j = await perfJson(['consume', '--bootstrap-server', bootstrap, '--topic', topic, '--num-records', String(records)])
  const rps = pick(j, RPS)
  return { recordsPerSec: rps, mbPerSec: pick(j, MBPS), overallRecordsPerSec: rps, rebalanceMs: Number.NaN }
}

export async function perfE2e(
  bootstrap: string,
  topic: string,
  records: number,
  rate: number,
  size: number,
  acks: '1' | 'all',
): Promise<LatencyResult> {
  const j = await perfJson([
    'e2e',
    '--bootstrap-server',
    bootstrap,
    '--topic',
    topic,
    '--num-records',
    String(records),
    '--throughput',
    String(rate),
    '--record-size',
    String(size),
    '--acks',
    acks,
    '--linger-ms',
    '0',
  ])
  // The e2e summary may carry the producer's acknowledgement latency too; take the e2e one.
  const e2e = (j as Record<string, unknown>).latencyMs ?? j
  return { p50Ms: pick(e2e, P50), p95Ms: pick(e2e, ['p95']), p99Ms: pick(e2e, P99), p999Ms: pick(e2e, P999), avgMs: pick(e2e, ['avg']) }
}

// ---------------------------------------------------------------------------------------------
// The harness's own random-reads tool (random-reads.ts), for the size scenarios.

const RANDOM_READS = join(ROOT, 'dist/bench/harness/random-reads.js')

/**
 * K fetches at random offsets and K timestamp lookups at random timestamps in partition 0 of each
 * topic, timed one at a time, the topics taking turns.
 */
export async function randomReadsTool(
  bootstrap: string,
  topics: readonly string[],
  reads: number,
  seed: number,
): Promise<RandomReadsResult> {
  const args = [
    RANDOM_READS,
    '--bootstrap-server',
    bootstrap,
    ...topics.flatMap((t) => ['--topic', t]),
    '--fetches',
    String(reads),
    '--lookups',
    String(reads),
    '--seed',
    String(seed),
  ]
  const r = await runOk(process.execPath, args, { timeoutMs: TOOL_TIMEOUT_MS })
  const line = r.stdout
    .trim()
    .split('\n')
    .find((l) => l.startsWith('{'))
  if (!line) throw new Error(`random-reads printed no result:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`)
  return JSON.parse(line) as RandomReadsResult
}
