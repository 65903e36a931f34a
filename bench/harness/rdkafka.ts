// librdkafka's own load generator, rdkafka_performance (examples/rdkafka_performance.c in the
// librdkafka sources), as a third load beside Kafka's Java tools and `tributary perf`: the C client
// that confluent-kafka, kcat and node-rdkafka are built on. Nobody here wrote it, and it pushes
// harder than the Java producer on two cores, so the broker's share of the CPU shows more.
//
// The binary is not installed by `npm ci`: bench/rdkafka/build.sh builds it from a librdkafka
// checkout, and the harness finds it through RDKAFKA_PERFORMANCE, bench/rdkafka/bin, or PATH.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { PerfAvailability } from './generators.js'
import type { Counts, Metric, RunContext, Scenario } from './scenario.js'
import { ROOT, run, runOk } from './util.js'

const TOOL_TIMEOUT_MS = 10 * 60_000
const BUILT = join(ROOT, 'bench/rdkafka/bin/rdkafka_performance')

let found: { path: string; version: string } | null | undefined

/** Where rdkafka_performance is and which librdkafka it was built from, or why it cannot be used. */
export async function rdkafkaAvailable(): Promise<PerfAvailability & { version?: string }> {
  if (found === undefined) {
    const candidates = [process.env.RDKAFKA_PERFORMANCE, BUILT, 'rdkafka_performance'].filter((p): p is string => !!p)
    found = null
    for (const path of candidates) {
      if (path.includes('/') && !existsSync(path)) continue
      // It has no --help: an unknown option prints the usage, with the library's version, and exits 1.
      const r = await run(path, ['-V'], { timeoutMs: 30_000 }).catch(() => null)
      const m = r && /librdkafka version (\S+)/.exec(r.stdout + r.stderr)
      if (m) {
        found = { path, version: m[1]! }
        break
      }
    }
  }
  if (!found)
    return {
      available: false,
      reason:
        'rdkafka_performance was not found (set RDKAFKA_PERFORMANCE, or build it with `bench/rdkafka/build.sh <librdkafka checkout>`)',
    }
  return { available: true, version: found.version }
}

function tool(): string {
  if (!found) throw new Error('rdkafka_performance is not available')
  return found.path
}

function lastMatch(text: string, re: RegExp): RegExpExecArray | undefined {
  let last: RegExpExecArray | undefined
  for (const m of text.matchAll(re)) last = m as RegExpExecArray
  return last
}

export interface RdkafkaResult {
  recordsPerSec: number
  mbPerSec: number
  records: number
  elapsedMs: number
}

/** The librdkafka settings both modes get (-X k=v): its log at warnings and above only. */
const COMMON = ['-X', 'log_level=4']

/**
 * Produces `records` of `size` bytes to random partitions of `topic` (rdkafka_performance -P).
 * `idempotent` turns on enable.idempotence (acks=all then, as librdkafka requires); otherwise acks=1.
 * linger.ms and batch.size are librdkafka's defaults (5 ms, 1 MB), as its users run it.
 */
export async function rdkafkaProduce(
  bootstrap: string,
  topic: string,
  records: number,
  size: number,
  idempotent: boolean,
): Promise<RdkafkaResult> {
  const r = await runOk(
    tool(),
    [
      '-P',
      '-t',
      topic,
      '-b',
      bootstrap,
      '-s',
      String(size),
      '-c',
      String(records),
      '-a',
      idempotent ? '-1' : '1',
      '-X',
      `enable.idempotence=${idempotent}`,
      ...COMMON,
    ],
    { timeoutMs: TOOL_TIMEOUT_MS },
  )
  return parseProduceSummary(r.stdout + r.stderr, records)
}

/**
 * The figures of an rdkafka_performance -P run from its output: "% N messages produced (B bytes),
 * D delivered (offset O, F failed) in T ms: R msgs/s and S MB/s, …", printed once a second and once
 * at the end (the last is the run's). A run that did not deliver every record, or failed any, throws.
 */
export function parseProduceSummary(out: string, records: number): RdkafkaResult {
  const m = lastMatch(
    out,
    /(\d+) messages produced \((\d+) bytes\), (\d+) delivered \(offset -?\d+, (\d+) failed\) in (\d+)ms: (\d+) msgs\/s and ([\d.]+) MB\/s/g,
  )
  if (!m) throw new Error(`rdkafka_performance -P printed no summary:\n${out.slice(-2000)}`)
  const delivered = Number(m[3])
  const failed = Number(m[4])
  if (delivered < records || failed > 0)
    throw new Error(`rdkafka_performance -P delivered ${delivered} of ${records} records, ${failed} failed:\n${out.slice(-2000)}`)
  return { records: delivered, elapsedMs: Number(m[5]), recordsPerSec: Number(m[6]), mbPerSec: Number(m[7]) }
}

/**
 * Consumes `records` from the start of `topic` as a new group (rdkafka_performance -G, the
 * high-level consumer, classic protocol), librdkafka's default fetch settings.
 */
export async function rdkafkaConsume(bootstrap: string, topic: string, group: string, records: number): Promise<RdkafkaResult> {
  const r = await runOk(
    tool(),
    ['-G', group, '-t', topic, '-b', bootstrap, '-c', String(records), '-o', 'beginning', '-X', 'auto.offset.reset=earliest', ...COMMON],
    { timeoutMs: TOOL_TIMEOUT_MS },
  )
  return parseConsumeSummary(r.stdout + r.stderr, records)
}

/**
 * The figures of an rdkafka_performance -G run: "% N messages (B bytes) consumed in T ms: R msgs/s
 * (S MB/s)", once a second and at the end (the last is the run's). Fewer than `records` throws.
 */
export function parseConsumeSummary(out: string, records: number): RdkafkaResult {
  const m = lastMatch(out, /(\d+) messages \((\d+) bytes\) consumed in (\d+)ms: (\d+) msgs\/s \(([\d.]+) MB\/s\)/g)
  if (!m) throw new Error(`rdkafka_performance -G printed no summary:\n${out.slice(-2000)}`)
  const consumed = Number(m[1])
  if (consumed < records) throw new Error(`rdkafka_performance -G consumed ${consumed} of ${records} records:\n${out.slice(-2000)}`)
  return { records: consumed, elapsedMs: Number(m[3]), recordsPerSec: Number(m[4]), mbPerSec: Number(m[5]) }
}

const RPS: Metric = { key: 'records_per_sec', label: 'throughput', unit: 'records/s', better: 'higher' }
const MBPS: Metric = { key: 'mb_per_sec', label: 'throughput', unit: 'MB/s', better: 'higher' }

const figures = (r: RdkafkaResult): Record<string, number> => ({ records_per_sec: r.recordsPerSec, mb_per_sec: r.mbPerSec })

/** The topic the Java consume scenarios fill (scenarios.ts): the rdkafka consume reads the same records. */
export interface RdkafkaConsumeSource {
  topic: string
  prepare(ctx: RunContext): Promise<string>
}

/**
 * rdk-produce-100b-acks1 and rdk-produce-100b-idempotent (10 M records of 100 B to random
 * partitions of 8) and rdk-consume-100b (the consume scenarios' 10 M records, a new group per run).
 */
export function rdkafkaScenarios(c: Counts, source: RdkafkaConsumeSource): Scenario[] {
  const produce = (name: string, title: string, idempotent: boolean): Scenario => ({
    name,
    title,
    generator: 'librdkafka rdkafka_performance -P',
    needs: 'rdkafka',
    partitions: 8,
    recordsPerRun: c.perfProduce100,
    recordBytes: 100,
    params: {
      records: c.perfProduce100,
      recordSize: 100,
      partitions: 8,
      partitioner: 'random (rdkafka_performance without -p)',
      acks: idempotent ? 'all' : '1',
      idempotence: idempotent,
      lingerMs: 5,
      batchSize: 1_000_000,
      compression: 'none',
    },
    metrics: [RPS, MBPS],
    topic: (round) => `${name}-r${round}`,
    async run(ctx) {
      return figures(await rdkafkaProduce(ctx.broker.bootstrap, this.topic(ctx.round), c.perfProduce100, 100, idempotent))
    },
  })
  return [
    produce('rdk-produce-100b-acks1', '100-byte records to 8 partitions, acks=1 (rdkafka_performance)', false),
    produce(
      'rdk-produce-100b-idempotent',
      '100-byte records to 8 partitions, acks=all, enable.idempotence=true (rdkafka_performance)',
      true,
    ),
    {
      name: 'rdk-consume-100b',
      title: `consume ${c.consume.toLocaleString('en-US')} 100-byte records from 8 partitions (rdkafka_performance, page cache)`,
      generator: 'librdkafka rdkafka_performance -G (high-level consumer, new group per run)',
      needs: 'rdkafka',
      partitions: 8,
      recordsPerRun: c.consume,
      recordBytes: 100,
      params: { records: c.consume, recordSize: 100, partitions: 8, fetch: "librdkafka's defaults" },
      metrics: [{ ...RPS, label: 'throughput (first record to last)' }, MBPS],
      topic: () => source.topic,
      prepare: (ctx) => source.prepare(ctx),
      async run(ctx) {
        return figures(await rdkafkaConsume(ctx.broker.bootstrap, source.topic, `bench-rdk-${ctx.broker.name}-r${ctx.round}`, c.consume))
      },
    },
  ]
}
