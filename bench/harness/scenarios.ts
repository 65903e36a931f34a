// The fixed scenarios of `npm run bench`, each run the same way against both brokers.
import type { JavaEnv } from './brokers.js'
import {
  type ConsumerResult,
  consumerPerformance,
  endToEndLatency,
  fixedRateEndToEnd,
  javaTlsProps,
  type PerfProduceOptions,
  type ProducerOptions,
  type ProducerResult,
  perfConsume,
  perfE2e,
  perfProduce,
  producerPerformance,
} from './generators.js'
import { rdkafkaScenarios } from './rdkafka.js'
import type { Counts, Metric, RunContext, Scenario } from './scenario.js'
import { shareScenarios } from './share-scenarios.js'

export type { Counts, Metric, RunContext, Scenario } from './scenario.js'

export const COUNTS: Record<'quick' | 'full', Counts> = {
  quick: {
    mode: 'quick',
    runs: 1,
    startupRuns: 1,
    produce100: 200_000,
    perfProduce100: 500_000,
    produce1k: 30_000,
    consume: 500_000,
    e2eRate: 20_000,
    e2eRecords: 60_000,
    pingpong: 500,
    manyPartitions: 1000,
    // 1/20 of a full run's sizes (and segments 1/20 of Kafka's default, see size.ts).
    sizeSmallMiB: 50,
    sizeLargeMiB: 500,
    sizeReads: 300,
    // Long enough (a couple of seconds a run) for a 10 % target to mean something.
    sizeProduce: 2_000_000,
    share: 200_000,
  },
  full: {
    mode: 'full',
    runs: 3,
    startupRuns: 3,
    produce100: 3_000_000,
    perfProduce100: 10_000_000,
    produce1k: 500_000,
    consume: 10_000_000,
    e2eRate: 20_000,
    e2eRecords: 300_000,
    pingpong: 3_000,
    manyPartitions: 1000,
    sizeSmallMiB: 1024,
    sizeLargeMiB: 10 * 1024,
    sizeReads: 2_000,
    sizeProduce: 5_000_000,
    share: 1_000_000,
  },
}

export const PEAK_RSS: Metric = { key: 'peak_rss_mb', label: 'broker peak RSS', unit: 'MiB', better: 'lower' }
/** The broker process's CPU time during the run (all its threads): what it took from the two cores the generator shares. */
export const BROKER_CPU: Metric = { key: 'broker_cpu_s', label: 'broker CPU time per run', unit: 's', better: 'lower' }
/** BROKER_CPU per million records moved (scenarios with recordsPerRun). */
export const BROKER_CPU_PER_M: Metric = { key: 'broker_cpu_s_per_m', label: 'broker CPU per million records', unit: 's', better: 'lower' }
/** BROKER_CPU per GB of record values moved (scenarios with recordsPerRun and recordBytes). */
export const BROKER_CPU_PER_GB: Metric = { key: 'broker_cpu_s_per_gb', label: 'broker CPU per GB of values', unit: 's', better: 'lower' }

const RPS: Metric = { key: 'records_per_sec', label: 'throughput', unit: 'records/s', better: 'higher' }
const MBPS: Metric = { key: 'mb_per_sec', label: 'throughput', unit: 'MB/s', better: 'higher' }
const produceMetrics: Metric[] = [
  RPS,
  { key: 'p50_ms', label: 'produce latency p50', unit: 'ms', better: 'lower' },
  { key: 'p99_ms', label: 'produce latency p99', unit: 'ms', better: 'lower' },
]

/** A produce run's figures as the produce scenarios report them. */
const produceFigures = (r: ProducerResult): Record<string, number> => ({
  records_per_sec: r.recordsPerSec,
  mb_per_sec: r.mbPerSec,
  p50_ms: r.p50Ms,
  p99_ms: r.p99Ms,
  avg_ms: r.avgMs,
  p999_ms: r.p999Ms,
})

/** A ConsumerPerformance run's figures. */
const consumeFigures = (r: ConsumerResult): Record<string, number> => ({
  records_per_sec: r.recordsPerSec,
  mb_per_sec: r.mbPerSec,
  overall_records_per_sec: r.overallRecordsPerSec,
  rebalance_ms: r.rebalanceMs,
})

function needTools(ctx: RunContext): JavaEnv {
  if (!ctx.tools) throw new Error('Java tools are not available')
  return ctx.tools
}

function produceScenario(
  name: string,
  title: string,
  recordSize: number,
  acks: '1' | 'all',
  records: number,
  partitions = 8,
  idempotence?: false,
): Scenario {
  const base = { records, recordSize, acks, lingerMs: 5, batchSize: 65_536, ...(idempotence === false ? { idempotence } : {}) }
  // MB/s is in every run's JSON; the table shows it where records/s alone says little (1 KB records).
  const metrics = recordSize >= 1024 ? [RPS, MBPS, ...produceMetrics.slice(1)] : produceMetrics
  return {
    name,
    title,
    generator: 'Kafka ProducerPerformance (Java producer)',
    needs: 'java',
    partitions,
    params: { ...base, partitions, throughput: 'unthrottled', compression: 'none' },
    recordsPerRun: records,
    recordBytes: recordSize,
    metrics,
    topic: (round) => `${name}-r${round}`,
    async run(ctx) {
      const o: ProducerOptions = { ...base, topic: this.topic(ctx.round) }
      const r = await producerPerformance(needTools(ctx), ctx.broker.bootstrap, o)
      return produceFigures(r)
    },
  }
}

/**
 * The same load as an 8-partition produce scenario into a topic of `partitions` partitions, with
 * its throughput also given as a share of the 8-partition scenario's in the same round on the same
 * broker (the goal: ≥ 70 % at 1,000 partitions).
 */
function manyPartitions(s: Scenario, baseline: string, partitions: number): Scenario {
  const share: Metric = {
    key: 'vs_8p_pct',
    label: 'throughput as % of 8 partitions',
    unit: '%',
    better: 'higher',
    target: { op: '>=', value: 70 },
  }
  return {
    ...s,
    topicPerRun: true,
    fullOnly: true,
    relativeTo: { scenario: baseline, of: 'records_per_sec', key: share.key },
    metrics: [s.metrics[0]!, share, ...s.metrics.slice(1)],
    params: { ...s.params, partitions, topicCreated: 'before each run (untimed), deleted after it', baseline },
  }
}

const CONSUME_TOPIC = 'consume-100b'

async function fillConsumeTopic(ctx: RunContext, records: number): Promise<string> {
  const o = { topic: CONSUME_TOPIC, records, recordSize: 100, acks: '1' as const, lingerMs: 5, batchSize: 65_536 }
  const t0 = performance.now()
  const r = ctx.tools ? await producerPerformance(ctx.tools, ctx.broker.bootstrap, o) : await perfProduce(ctx.broker.bootstrap, o)
  return `filled ${CONSUME_TOPIC} with ${records.toLocaleString('en-US')} records in ${((performance.now() - t0) / 1000).toFixed(1)} s (${Math.round(r.recordsPerSec).toLocaleString('en-US')} records/s)`
}

const TXN_CONSUME_TOPIC = 'consume-100b-txn'
/** Kafka's ProducerPerformance commits every 100 ms (issue 15's transactional produce scenario). */
const TXN_DURATION_MS = 100

/** Fills the read_committed topic through a transactional producer: committed data, with its markers. */
async function fillTxnConsumeTopic(ctx: RunContext, records: number): Promise<string> {
  const tools = needTools(ctx)
  const o: ProducerOptions = {
    topic: TXN_CONSUME_TOPIC,
    records,
    recordSize: 100,
    acks: 'all',
    lingerMs: 5,
    batchSize: 65_536,
    transactionalId: 'bench-fill-txn',
    transactionDurationMs: TXN_DURATION_MS,
  }
  const t0 = performance.now()
  const r = await producerPerformance(tools, ctx.broker.bootstrap, o)
  return `filled ${TXN_CONSUME_TOPIC} with ${records.toLocaleString('en-US')} records in ${TXN_DURATION_MS} ms transactions in ${((performance.now() - t0) / 1000).toFixed(1)} s (${Math.round(r.recordsPerSec).toLocaleString('en-US')} records/s)`
}

/** Transactional produce and read_committed consume (issue 15), both through Kafka's Java tools. */
function transactionScenarios(c: Counts): Scenario[] {
  const base = { records: c.produce100, recordSize: 100, acks: 'all' as const, lingerMs: 5, batchSize: 65_536 }
  return [
    {
      name: 'produce-100b-txn',
      title: `100-byte records to 8 partitions in ${TXN_DURATION_MS} ms transactions (acks=all, RF 1)`,
      generator: 'Kafka ProducerPerformance (Java producer, --transactional-id --transaction-duration-ms 100)',
      needs: 'java',
      partitions: 8,
      recordsPerRun: c.produce100,
      recordBytes: 100,
      params: { ...base, partitions: 8, throughput: 'unthrottled', compression: 'none', transactionDurationMs: TXN_DURATION_MS },
      metrics: produceMetrics,
      topic: (round) => `produce-100b-txn-r${round}`,
      async run(ctx) {
        const o: ProducerOptions = {
          ...base,
          topic: this.topic(ctx.round),
          transactionalId: `bench-txn-r${ctx.round}`,
          transactionDurationMs: TXN_DURATION_MS,
        }
        const r = await producerPerformance(needTools(ctx), ctx.broker.bootstrap, o)
        return produceFigures(r)
      },
    },
    {
      name: 'consume-100b-read-committed',
      title: `consume ${c.consume.toLocaleString('en-US')} transactional 100-byte records from 8 partitions, read_committed (page cache)`,
      generator: 'Kafka ConsumerPerformance (Java consumer, isolation.level=read_committed, new group per run)',
      needs: 'java',
      partitions: 8,
      recordsPerRun: c.consume,
      recordBytes: 100,
      params: {
        records: c.consume,
        recordSize: 100,
        partitions: 8,
        fetchSize: 1_048_576,
        isolation: 'read_committed',
        filledBy: `ProducerPerformance, ${TXN_DURATION_MS} ms transactions`,
      },
      metrics: [
        { ...RPS, label: 'throughput (fetch)' },
        { key: 'overall_records_per_sec', label: 'throughput incl. group join', unit: 'records/s', better: 'higher' },
      ],
      topic: () => TXN_CONSUME_TOPIC,
      prepare: (ctx) => fillTxnConsumeTopic(ctx, c.consume),
      async run(ctx) {
        const r = await consumerPerformance(needTools(ctx), ctx.broker.bootstrap, TXN_CONSUME_TOPIC, c.consume, [
          'isolation.level=read_committed',
        ])
        return consumeFigures(r)
      },
    },
  ]
}

function tlsOf(ctx: RunContext): { bootstrap: string; caFile: string } {
  if (!ctx.broker.tls) throw new Error(`${ctx.broker.name} was started without an SSL listener`)
  return ctx.broker.tls
}

/**
 * Produce and consume over each broker's SSL listener (TLS with the same development certificate on
 * both, the Java clients trusting its CA): the idempotent acks=all produce and the consume of the
 * plaintext scenarios, so each pair shows what TLS costs.
 */
function tlsScenarios(c: Counts): Scenario[] {
  const base = { records: c.produce100, recordSize: 100, acks: 'all' as const, lingerMs: 5, batchSize: 65_536 }
  return [
    {
      name: 'produce-100b-tls',
      title: '100-byte records to 8 partitions over TLS, acks=all (RF 1), idempotent (the Java default)',
      generator: 'Kafka ProducerPerformance (Java producer, security.protocol=SSL)',
      needs: 'java',
      tls: true,
      partitions: 8,
      recordsPerRun: c.produce100,
      recordBytes: 100,
      params: { ...base, partitions: 8, throughput: 'unthrottled', compression: 'none', securityProtocol: 'SSL' },
      metrics: produceMetrics,
      topic: (round) => `produce-100b-tls-r${round}`,
      async run(ctx) {
        const tls = tlsOf(ctx)
        const o: ProducerOptions = { ...base, topic: this.topic(ctx.round), props: javaTlsProps(tls.caFile) }
        const r = await producerPerformance(needTools(ctx), tls.bootstrap, o)
        return produceFigures(r)
      },
    },
    {
      name: 'consume-100b-tls',
      title: `consume ${c.consume.toLocaleString('en-US')} 100-byte records from 8 partitions over TLS (page cache)`,
      generator: 'Kafka ConsumerPerformance (Java consumer, security.protocol=SSL, new group per run)',
      needs: 'java',
      tls: true,
      partitions: 8,
      recordsPerRun: c.consume,
      recordBytes: 100,
      params: { records: c.consume, recordSize: 100, partitions: 8, fetchSize: 1_048_576, securityProtocol: 'SSL' },
      metrics: [
        { ...RPS, label: 'throughput (fetch)' },
        { key: 'overall_records_per_sec', label: 'throughput incl. group join', unit: 'records/s', better: 'higher' },
      ],
      topic: () => CONSUME_TOPIC,
      prepare: (ctx) => fillConsumeTopic(ctx, c.consume),
      async run(ctx) {
        const tls = tlsOf(ctx)
        const r = await consumerPerformance(needTools(ctx), tls.bootstrap, CONSUME_TOPIC, c.consume, javaTlsProps(tls.caFile))
        return consumeFigures(r)
      },
    },
  ]
}

export function scenarios(c: Counts): Scenario[] {
  const e2eTopic = (name: string) => (round: number) => `${name}-r${round}`
  const list: Scenario[] = [
    produceScenario('produce-100b-acks1', '100-byte records to 8 partitions, acks=1', 100, '1', c.produce100),
    manyPartitions(
      produceScenario(
        `produce-100b-${c.manyPartitions}p`,
        `100-byte records to ${c.manyPartitions.toLocaleString('en-US')} partitions, acks=1`,
        100,
        '1',
        c.produce100,
        c.manyPartitions,
      ),
      'produce-100b-acks1',
      c.manyPartitions,
    ),
    produceScenario(
      'produce-100b-acksall',
      '100-byte records to 8 partitions, acks=all (RF 1), idempotent (the Java default)',
      100,
      'all',
      c.produce100,
    ),
    // The same load without idempotence: issue 15 wants idempotent produce within 5 % of it.
    produceScenario(
      'produce-100b-acksall-plain',
      '100-byte records to 8 partitions, acks=all (RF 1), enable.idempotence=false',
      100,
      'all',
      c.produce100,
      8,
      false,
    ),
    produceScenario('produce-1kb-acks1', '1 KB records to 8 partitions, acks=1', 1024, '1', c.produce1k),
    {
      name: 'consume-100b',
      title: `consume ${c.consume.toLocaleString('en-US')} 100-byte records from 8 partitions (page cache)`,
      generator: 'Kafka ConsumerPerformance (Java consumer, new group per run)',
      needs: 'java',
      partitions: 8,
      params: { records: c.consume, recordSize: 100, partitions: 8, fetchSize: 1_048_576 },
      recordsPerRun: c.consume,
      recordBytes: 100,
      metrics: [
        { ...RPS, label: 'throughput (fetch)' },
        { key: 'overall_records_per_sec', label: 'throughput incl. group join', unit: 'records/s', better: 'higher' },
      ],
      topic: () => CONSUME_TOPIC,
      prepare: (ctx) => fillConsumeTopic(ctx, c.consume),
      async run(ctx) {
        const r = await consumerPerformance(needTools(ctx), ctx.broker.bootstrap, CONSUME_TOPIC, c.consume)
        return consumeFigures(r)
      },
    },
    {
      name: 'e2e-20k',
      title: `end-to-end latency at a fixed ${c.e2eRate.toLocaleString('en-US')} records/s (100 B, 8 partitions, acks=1)`,
      generator: 'FixedRateEndToEnd (Java producer + consumer in one JVM, bench/kafka/src)',
      needs: 'java',
      partitions: 8,
      recordsPerRun: c.e2eRecords,
      recordBytes: 100,
      params: {
        records: c.e2eRecords,
        rate: c.e2eRate,
        recordSize: 100,
        acks: '1',
        lingerMs: 0,
        warmupRecords: Math.min(c.e2eRecords / 4, c.e2eRate),
      },
      metrics: [
        { key: 'p50_ms', label: 'e2e latency p50', unit: 'ms', better: 'lower' },
        { key: 'p99_ms', label: 'e2e latency p99', unit: 'ms', better: 'lower' },
        { key: 'p999_ms', label: 'e2e latency p99.9', unit: 'ms', better: 'lower' },
      ],
      topic: e2eTopic('e2e-20k'),
      async run(ctx) {
        const r = await fixedRateEndToEnd(needTools(ctx), ctx.broker.bootstrap, this.topic(ctx.round), c.e2eRecords, c.e2eRate, 100, '1')
        return {
          p50_ms: r.p50Ms,
          p95_ms: r.p95Ms!,
          p99_ms: r.p99Ms,
          p999_ms: r.p999Ms,
          max_ms: r.maxMs!,
          avg_ms: r.avgMs,
          achieved_rate: r.rate!,
        }
      },
    },
    {
      name: 'e2e-pingpong',
      title: 'end-to-end latency, one 100-byte record in flight (1 partition, acks=1)',
      generator: 'Kafka EndToEndLatency',
      needs: 'java',
      partitions: 1,
      params: { records: c.pingpong, recordSize: 100, acks: '1', partitions: 1 },
      recordsPerRun: c.pingpong,
      recordBytes: 100,
      metrics: [
        { key: 'avg_ms', label: 'e2e latency avg', unit: 'ms', better: 'lower' },
        { key: 'p99_ms', label: 'e2e latency p99', unit: 'ms', better: 'lower' },
      ],
      topic: e2eTopic('e2e-pingpong'),
      async run(ctx) {
        const r = await endToEndLatency(needTools(ctx), ctx.broker.bootstrap, this.topic(ctx.round), c.pingpong, 100, '1')
        return { avg_ms: r.avgMs, p50_ms: r.p50Ms, p99_ms: r.p99Ms, p999_ms: r.p999Ms }
      },
    },
  ]

  // `tributary perf` as the second load generator (used when the CLI has it).
  const perfProduceScenario = (name: string, title: string, acks: '1' | 'all', partitions = 8): Scenario => {
    const base = { records: c.perfProduce100, recordSize: 100, acks, lingerMs: 5, batchSize: 65_536 }
    return {
      name,
      title,
      generator: 'tributary perf produce',
      needs: 'perf',
      partitions,
      params: { ...base, partitions },
      recordsPerRun: c.perfProduce100,
      recordBytes: 100,
      metrics: produceMetrics,
      topic: (round) => `${name}-r${round}`,
      async run(ctx) {
        const o: PerfProduceOptions = { ...base, topic: this.topic(ctx.round) }
        const r = await perfProduce(ctx.broker.bootstrap, o)
        return produceFigures(r)
      },
    }
  }
  list.push(
    perfProduceScenario('perf-produce-100b-acks1', '100-byte records to 8 partitions, acks=1 (tributary perf)', '1'),
    manyPartitions(
      perfProduceScenario(
        `perf-produce-100b-${c.manyPartitions}p`,
        `100-byte records to ${c.manyPartitions.toLocaleString('en-US')} partitions, acks=1 (tributary perf)`,
        '1',
        c.manyPartitions,
      ),
      'perf-produce-100b-acks1',
      c.manyPartitions,
    ),
    perfProduceScenario('perf-produce-100b-acksall', '100-byte records to 8 partitions, acks=all (tributary perf)', 'all'),
    {
      name: 'perf-consume-100b',
      title: `consume ${c.consume.toLocaleString('en-US')} 100-byte records from 8 partitions (tributary perf)`,
      generator: 'tributary perf consume',
      needs: 'perf',
      partitions: 8,
      params: { records: c.consume, recordSize: 100, partitions: 8 },
      recordsPerRun: c.consume,
      recordBytes: 100,
      metrics: [RPS],
      topic: () => CONSUME_TOPIC,
      prepare: (ctx) => fillConsumeTopic(ctx, c.consume),
      async run(ctx) {
        const r = await perfConsume(ctx.broker.bootstrap, CONSUME_TOPIC, c.consume)
        return { records_per_sec: r.recordsPerSec, mb_per_sec: r.mbPerSec }
      },
    },
    {
      name: 'perf-e2e-20k',
      title: `end-to-end latency at a fixed ${c.e2eRate.toLocaleString('en-US')} records/s (tributary perf)`,
      generator: 'tributary perf e2e',
      needs: 'perf',
      partitions: 8,
      recordsPerRun: c.e2eRecords,
      recordBytes: 100,
      params: { records: c.e2eRecords, rate: c.e2eRate, recordSize: 100, acks: '1', lingerMs: 0, partitions: 8 },
      metrics: [
        { key: 'p50_ms', label: 'e2e latency p50', unit: 'ms', better: 'lower' },
        { key: 'p99_ms', label: 'e2e latency p99', unit: 'ms', better: 'lower' },
        { key: 'p999_ms', label: 'e2e latency p99.9', unit: 'ms', better: 'lower' },
      ],
      topic: e2eTopic('perf-e2e-20k'),
      async run(ctx) {
        const r = await perfE2e(ctx.broker.bootstrap, this.topic(ctx.round), c.e2eRecords, c.e2eRate, 100, '1')
        return { p50_ms: r.p50Ms, p95_ms: r.p95Ms!, p99_ms: r.p99Ms, p999_ms: r.p999Ms, avg_ms: r.avgMs }
      },
    },
  )
  list.push(
    ...rdkafkaScenarios(c, { topic: CONSUME_TOPIC, prepare: (ctx) => fillConsumeTopic(ctx, c.consume) }),
    ...transactionScenarios(c),
    ...tlsScenarios(c),
    ...shareScenarios(c),
  )
  // The broker's CPU per million records (and per GB) first after the throughput: the cost of the
  // work whatever the generator's speed, the figure that says how the broker scales.
  for (const s of list) {
    const cost = s.recordsPerRun ? [BROKER_CPU_PER_M, ...(s.recordBytes ? [BROKER_CPU_PER_GB] : [])] : []
    s.metrics = [s.metrics[0]!, ...cost, ...s.metrics.slice(1), BROKER_CPU, PEAK_RSS]
  }
  return list
}

/** Start-up is measured by the harness itself (spawn → first ApiVersions answer), on an empty directory. */
export const STARTUP: { name: string; title: string; metrics: Metric[] } = {
  name: 'startup',
  title: 'broker start-up on an empty data directory: spawn → first ApiVersions answer',
  metrics: [
    { key: 'startup_ms', label: 'start-up to first answer', unit: 'ms', better: 'lower' },
    { key: 'idle_rss_mb', label: 'RSS 1 s after start, idle', unit: 'MiB', better: 'lower' },
  ],
}

export const SCENARIO_NAMES = (c: Counts) => [STARTUP.name, ...scenarios(c).map((s) => s.name)]
