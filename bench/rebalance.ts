// Rebalance time with kafkajs: three consumers of a new group start together (connect + subscribe
// + run) on a 6-partition topic that already holds records; measures, from that start, the time to
// the first record received by each consumer and by all three. Runs against a broker process with
// group.initial.rebalance.delay.ms = 3000 (Kafka's default) and = 0, with kafkajs' default group
// settings (session 30 s, heartbeat 3 s, rebalance timeout 60 s) and, for comparison, with the
// short heartbeat the integration tests use (500 ms). Prints the median of N runs (default 3).
//   node dist/bench/rebalance.js [runs=3]
// This is the classic protocol (JoinGroup/SyncGroup). KIP-848's (group.protocol=consumer, the
// Java client) is `npm run bench -- --scenario rebalance-848-3` (bench/harness/share-scenarios.ts),
// beside Apache Kafka.

import { Kafka, logLevel, Partitioners } from 'kafkajs'
import { type BrokerProcess, startBrokerProcess } from '../test/helpers/broker-process.js'

const runs = Number(process.argv[2] ?? 3)
const TOPIC = 'bench-rebalance'
const PARTITIONS = 6
const MEMBERS = 3

interface RunResult {
  /** ms from the start to each consumer's first record, ascending. */
  each: number[]
  /** ms until all three had a record. */
  all: number
  /** GROUP_JOIN events seen (rebalances × members that took part). */
  joins: number
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

async function prepare(broker: BrokerProcess): Promise<void> {
  const kafka = new Kafka({ clientId: 'bench-admin', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true })
  await admin.disconnect()
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner })
  await producer.connect()
  await producer.send({
    topic: TOPIC,
    acks: -1,
    messages: Array.from({ length: 600 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
  })
  await producer.disconnect()
}

async function oneRun(broker: BrokerProcess, groupId: string, heartbeatInterval?: number): Promise<RunResult> {
  const kafka = new Kafka({ clientId: 'bench-rebalance', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
  const consumers = Array.from({ length: MEMBERS }, () =>
    kafka.consumer({ groupId, ...(heartbeatInterval ? { heartbeatInterval, maxWaitTimeInMs: 500 } : {}) }),
  )
  const first: (number | null)[] = consumers.map(() => null)
  let joins = 0
  let allDone: () => void = () => {}
  const all = new Promise<void>((r) => (allDone = r))
  const t0 = performance.now()
  await Promise.all(
    consumers.map(async (c, i) => {
      c.on(c.events.GROUP_JOIN, () => joins++)
      await c.connect()
      await c.subscribe({ topics: [TOPIC], fromBeginning: true })
      await c.run({
        eachMessage: async () => {
          if (first[i] !== null) return
          first[i] = performance.now() - t0
          if (first.every((x) => x !== null)) allDone()
        },
      })
    }),
  )
  const timeout = setTimeout(() => allDone(), 120_000)
  await all
  clearTimeout(timeout)
  const allMs = performance.now() - t0
  await Promise.all(consumers.map((c) => c.disconnect().catch(() => {})))
  if (first.some((x) => x === null)) throw new Error(`not every consumer got a record within 120 s: ${first}`)
  return { each: (first as number[]).sort((a, b) => a - b), all: allMs, joins }
}

async function measure(delayMs: number | null, heartbeatInterval?: number): Promise<string> {
  const overrides: Record<string, string> = {}
  if (delayMs !== null) overrides['group.initial.rebalance.delay.ms'] = String(delayMs)
  const broker = await startBrokerProcess({ overrides })
  try {
    await prepare(broker)
    const results: RunResult[] = []
    for (let i = 0; i < runs; i++)
      results.push(await oneRun(broker, `bench-group-${delayMs}-${heartbeatInterval ?? 'd'}-${i}`, heartbeatInterval))
    const each = [0, 1, 2].map((k) => median(results.map((r) => r.each[k]!)).toFixed(0))
    const label = `group.initial.rebalance.delay.ms=${delayMs ?? '3000 (default)'}, kafkajs heartbeat ${heartbeatInterval ?? 3000} ms`
    return `${label.padEnd(72)} first record by each: ${each.join(' / ')} ms; by all: ${median(results.map((r) => r.all)).toFixed(0)} ms (runs: ${results
      .map((r) => `${r.all.toFixed(0)} ms, ${r.joins} joins`)
      .join('; ')})`
  } finally {
    await broker.stop().catch(() => {})
    await broker.cleanup()
  }
}

console.log(
  `kafkajs, ${MEMBERS} consumers of a new group on a ${PARTITIONS}-partition topic with records; start (connect+run) → first record; median of ${runs} runs`,
)
console.log(await measure(null))
console.log(await measure(0))
console.log(await measure(null, 500))
console.log(await measure(0, 500))
