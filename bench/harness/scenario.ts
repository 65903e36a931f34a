// The shape of a `npm run bench` scenario (scenarios.ts lists them; share-scenarios.ts adds the
// share-group and KIP-848 ones): its metrics, the counts of a quick or full run, and what a run gets.
import type { Broker, JavaEnv } from './brokers.js'

export interface Metric {
  key: string
  label: string
  unit: string
  better: 'higher' | 'lower'
  /** A goal (e.g. ≥ 70 % of the 8-partition throughput), checked against each broker's median. */
  target?: { op: '>=' | '<='; value: number }
}

export interface Counts {
  mode: 'quick' | 'full'
  runs: number
  startupRuns: number
  produce100: number
  /** records per `tributary perf produce` run (it is several times faster than the Java producer) */
  perfProduce100: number
  produce1k: number
  consume: number
  e2eRate: number
  e2eRecords: number
  pingpong: number
  /** Partitions of the many-partitions produce scenarios. */
  manyPartitions: number
  /** Size scenarios (size.ts): the small and the large partition, in MiB (segments: a tenth of the large one). */
  sizeSmallMiB: number
  sizeLargeMiB: number
  /** Timed fetches and timestamp lookups per partition per run. */
  sizeReads: number
  /** Records of 100 B per produce run of the size scenario (into each of the two partitions). */
  sizeProduce: number
  /** Records of 100 B the share consumers drain per run (share-scenarios.ts). */
  share: number
}

/** What a scenario's run gets: the Java tools (when Java is there) and the broker under test. */
export interface RunContext {
  tools: JavaEnv | null
  broker: Broker
  round: number
}

export interface Scenario {
  name: string
  title: string
  /** The load generator, as printed in the results. */
  generator: string
  /**
   * java: Kafka's tools (needs Java and bench/kafka/target); perf: `tributary perf`; rdkafka:
   * librdkafka's rdkafka_performance (rdkafka.ts); none: the harness itself.
   */
  needs: 'java' | 'perf' | 'rdkafka' | 'none'
  partitions: number
  params: Record<string, unknown>
  metrics: Metric[]
  /** The topic a run uses (created beforehand with `partitions` partitions). */
  topic(round: number): string
  /**
   * Create the run's topic just before the run (untimed, outside the memory watch) and delete it
   * after, instead of up front with the others: for topics of many partitions, which should not
   * sit idle under every other scenario.
   */
  topicPerRun?: boolean
  /**
   * A metric derived from another scenario of the same run and round on the same broker:
   * `key` = 100 × this run's `of` ÷ the `scenario`'s run's `of` (e.g. 1,000 partitions against 8).
   */
  relativeTo?: { scenario: string; of: string; key: string }
  /** Left out of a plain --quick run (it would take it past 2 minutes); runs with quick counts when named with --scenario. */
  fullOnly?: boolean
  /**
   * Records a run moves: with it, the run's broker CPU time is also given per million records
   * (broker_cpu_s_per_m), the cost of the work regardless of how fast the generator pushed it.
   */
  recordsPerRun?: number
  /** Bytes of each record's value: with recordsPerRun, the broker CPU is also given per GB (broker_cpu_s_per_gb). */
  recordBytes?: number
  /** Runs over the brokers' SSL listeners (RunContext.broker.tls): the brokers are then started with one. */
  tls?: true
  /** Untimed set-up once per broker before the first run (fills the consume topic). */
  prepare?(ctx: RunContext): Promise<string>
  run(ctx: RunContext): Promise<Record<string, number>>
}
