// The group scenarios of `npm run bench` beyond plain consumption, through Kafka's own Java
// clients in bench/kafka/src, the same for both brokers:
// - share-consume-5: five KafkaShareConsumers (KIP-932) of a new share group drain one partition
//   (ShareConsume.java): a queue's throughput, and the broker CPU it costs per million records.
// - rebalance-848-3: three KafkaConsumers with group.protocol=consumer (KIP-848) start together as
//   a new group on a 6-partition topic (Rebalance848.java, which first gives every partition
//   records): time to every member's first record.
// The harness (main.ts) adds broker CPU and peak RSS to each run; scenarios.ts lists these.
import type { JavaEnv } from './brokers.js'
import { producerPerformance } from './generators.js'
import type { Counts, RunContext, Scenario } from './scenario.js'
import { runOk } from './util.js'

const SHARE_TOPIC = 'share-100b'
const SHARE_CONSUMERS = 5
const REBALANCE_TOPIC = 'rebalance-848'
const REBALANCE_MEMBERS = 3
const REBALANCE_PARTITIONS = 6
/** Rebalance848 gives each partition this many records of 100 B before each run (untimed). */
const REBALANCE_RECORDS_PER_PARTITION = 100

function needTools(ctx: RunContext): JavaEnv {
  if (!ctx.tools) throw new Error('Java tools are not available')
  return ctx.tools
}

/** The last line of a helper's output that is a JSON object. */
function jsonLine(what: string, stdout: string, stderr: string): Record<string, unknown> {
  const line = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'))
  if (!line) throw new Error(`${what} printed no result:\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}`)
  return JSON.parse(line) as Record<string, unknown>
}

async function fill(ctx: RunContext, topic: string, records: number): Promise<string> {
  const o = { topic, records, recordSize: 100, acks: '1' as const, lingerMs: 5, batchSize: 65_536 }
  const t0 = performance.now()
  const r = await producerPerformance(needTools(ctx), ctx.broker.bootstrap, o)
  return `filled ${topic} with ${records.toLocaleString('en-US')} records in ${((performance.now() - t0) / 1000).toFixed(1)} s (${Math.round(r.recordsPerSec).toLocaleString('en-US')} records/s)`
}

export function shareScenarios(c: Counts): Scenario[] {
  return [
    {
      name: `share-consume-${SHARE_CONSUMERS}`,
      title: `${SHARE_CONSUMERS} share consumers (KIP-932) drain ${c.share.toLocaleString('en-US')} 100-byte records from 1 partition`,
      generator: `ShareConsume (${SHARE_CONSUMERS} Java KafkaShareConsumers in one JVM, implicit acknowledgement, new share group per run, bench/kafka/src)`,
      needs: 'java',
      partitions: 1,
      recordsPerRun: c.share,
      recordBytes: 100,
      params: { records: c.share, recordSize: 100, partitions: 1, consumers: SHARE_CONSUMERS, acknowledgement: 'implicit' },
      metrics: [
        { key: 'records_per_sec', label: 'throughput (first record to last)', unit: 'records/s', better: 'higher' },
        { key: 'overall_records_per_sec', label: 'throughput incl. group join', unit: 'records/s', better: 'higher' },
      ],
      topic: () => SHARE_TOPIC,
      prepare: (ctx) => fill(ctx, SHARE_TOPIC, c.share),
      async run(ctx) {
        const tools = needTools(ctx)
        const group = `bench-share-r${ctx.round}`
        const r = await runOk(
          tools.java,
          [
            ...tools.toolArgs,
            '-cp',
            tools.classpath,
            'dev.tributary.bench.ShareConsume',
            ctx.broker.bootstrap,
            SHARE_TOPIC,
            group,
            String(c.share),
            String(SHARE_CONSUMERS),
          ],
          { timeoutMs: 10 * 60_000 },
        )
        const j = jsonLine('ShareConsume', r.stdout, r.stderr)
        const records = j.records as number
        const per = j.per_consumer as number[]
        return {
          records_per_sec: records / ((j.fetch_ms as number) / 1000),
          overall_records_per_sec: records / ((j.ms as number) / 1000),
          first_record_ms: j.first_record_ms as number,
          // How evenly the queue was shared: the busiest consumer's share of the records, %.
          busiest_consumer_pct: (100 * Math.max(...per)) / records,
        }
      },
    },
    {
      name: `rebalance-848-${REBALANCE_MEMBERS}`,
      title: `${REBALANCE_MEMBERS} consumers (group.protocol=consumer, KIP-848) of a new group on ${REBALANCE_PARTITIONS} partitions: start → first record`,
      generator: `Rebalance848 (${REBALANCE_MEMBERS} Java KafkaConsumers in one JVM, bench/kafka/src)`,
      needs: 'java',
      partitions: REBALANCE_PARTITIONS,
      params: {
        members: REBALANCE_MEMBERS,
        partitions: REBALANCE_PARTITIONS,
        recordsPerPartitionPerRun: REBALANCE_RECORDS_PER_PARTITION,
        groupProtocol: 'consumer',
      },
      metrics: [
        { key: 'all_first_record_ms', label: 'start → every member has a record', unit: 'ms', better: 'lower' },
        { key: 'first_record_ms', label: 'start → the first record', unit: 'ms', better: 'lower' },
      ],
      topic: () => REBALANCE_TOPIC,
      async run(ctx) {
        const tools = needTools(ctx)
        const r = await runOk(
          tools.java,
          [
            ...tools.toolArgs,
            '-cp',
            tools.classpath,
            'dev.tributary.bench.Rebalance848',
            ctx.broker.bootstrap,
            REBALANCE_TOPIC,
            `bench-848-r${ctx.round}`,
            String(REBALANCE_MEMBERS),
          ],
          { timeoutMs: 3 * 60_000 },
        )
        const j = jsonLine('Rebalance848', r.stdout, r.stderr)
        const each = j.each_ms as number[]
        return { all_first_record_ms: j.all_ms as number, first_record_ms: each[0]!, second_member_ms: each[1]! }
      },
    },
  ]
}
