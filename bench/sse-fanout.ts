// SSE fan-out: N concurrent subscribers of one topic from latest (the shared tail of
// src/http/push/reader.ts) on a `tributary start` process, while Tributary's Producer writes R
// records/s in total for S seconds. Reports produce-to-event latency (p50/p99 over every
// `sample`-th record of every subscriber; the record value is its send time, both ends on this
// machine's clock), events received against events expected, streams cut, and the broker's RSS
// before the subscribers, after they connected, and at the end, and the broker's CPU time per event
// delivered (all from /proc).
//   node dist/bench/sse-fanout.js [subscribers=1000] [rate=20000] [seconds=20] [--sample=50] [--json]
// The target load, 1,000 subscribers at 20,000 records/s, is 20 million events/s to parse, which
// one reading process on a 2-core machine cannot do; report what was run with the numbers.
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { KafkaClient } from '../src/client/client.js'
import { createTopic } from '../src/client/admin-topics.js'
import { Producer } from '../src/client/producer.js'
import { startBrokerProcess, stopAndCheck } from '../test/helpers/broker-process.js'
import { cpuSecondsOf } from './harness/util.js'

const args = process.argv.slice(2)
const json = args.includes('--json')
const positional = args.filter((a) => !a.startsWith('--')).map(Number)
const subscribers = positional[0] ?? 1000
const rate = positional[1] ?? 20_000
const seconds = positional[2] ?? 20
const sample = Number(args.find((a) => a.startsWith('--sample='))?.slice(9) ?? 50)
const TOPIC = 'fanout'
const PARTITIONS = 4

const rssMiB = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Math.round(Number(m[1]) / 1024) : Number.NaN
}
const now = () => performance.timeOrigin + performance.now()

const broker = await startBrokerProcess()
const rss0 = rssMiB(broker.pid)
const client = await KafkaClient.connect({ bootstrap: [broker.bootstrap] })
await createTopic(client, { name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1 })

const latencies: number[] = []
let events = 0
let cuts = 0
const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY })
const requests: http.ClientRequest[] = []

/** Opens one subscriber; resolves once its stream has started. */
function subscribe(index: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${broker.http}/topics/${TOPIC}/events`, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`subscriber ${index}: HTTP ${res.statusCode}`))
      res.setEncoding('utf8')
      let tail = ''
      res.on('data', (chunk: string) => {
        const at = now()
        const text = tail + chunk
        let i = 0
        for (;;) {
          const d = text.indexOf('"value":"t', i)
          if (d < 0) break
          const end = text.indexOf('"', d + 10)
          if (end < 0) break
          const [seq, sent] = text.slice(d + 10, end).split(':')
          events++
          if (Number(seq) % sample === 0) latencies.push(at - Number(sent))
          i = end
        }
        if (text.includes('event: error')) cuts++
        tail = text.slice(Math.max(i, text.length - 64))
      })
      resolve()
    })
    req.on('error', (err) => (requests.length < subscribers ? reject(err) : undefined))
    requests.push(req)
  })
}

for (let i = 0; i < subscribers; i += 50)
  await Promise.all(Array.from({ length: Math.min(50, subscribers - i) }, (_, j) => subscribe(i + j)))
await sleep(1000)
const rssConnected = rssMiB(broker.pid)

const producer = await Producer.create(client, { topic: TOPIC, lingerMs: 2 })
const cpu0 = cpuSecondsOf(broker.pid)
const total = rate * seconds
// At least one record per tick: below 100 records/s a tick is longer than 10 ms.
const tickMs = Math.max(10, 1000 / rate)
const perTick = Math.max(1, Math.round((rate * tickMs) / 1000))
const started = now()
let sent = 0
while (sent < total) {
  for (let k = 0; k < perTick && sent < total; k++, sent++) {
    producer.send({ key: null, value: Buffer.from(`t${sent}:${now().toFixed(3)}`) })
  }
  if (producer.isFull) await producer.waitForSpace()
  const due = started + (sent / perTick) * tickMs
  const wait = due - now()
  if (wait > 0) await sleep(wait)
}
await producer.flush()
const produceSeconds = (now() - started) / 1000
await sleep(2000)
const brokerCpuSeconds = cpuSecondsOf(broker.pid) - cpu0
// The broker's own view of stalls (prom-client's event-loop and GC metrics on its /metrics).
const metricsText = await (await fetch(`${broker.http}/metrics`)).text()
const metric = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metricsText)?.[1] ?? Number.NaN)
const brokerLoop = {
  eventLoopLagP99Ms: Number((metric('nodejs_eventloop_lag_p99_seconds') * 1000).toFixed(1)),
  eventLoopLagMaxMs: Number((metric('nodejs_eventloop_lag_max_seconds') * 1000).toFixed(1)),
}
const rssEnd = rssMiB(broker.pid)
for (const r of requests) r.destroy()
producer.close()
await client.close()
await stopAndCheck(broker)

latencies.sort((a, b) => a - b)
const pct = (p: number) =>
  latencies.length === 0 ? Number.NaN : Number(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!.toFixed(1))
const result = {
  subscribers,
  recordsPerSecond: rate,
  seconds,
  achievedRecordsPerSecond: Math.round(total / produceSeconds),
  eventsExpected: total * subscribers,
  eventsReceived: events,
  streamsCut: cuts,
  latencyMs: { p50: pct(0.5), p99: pct(0.99), samples: latencies.length },
  // What the fan-out costs the broker whatever else runs on the machine: CPU time per event sent.
  brokerCpuSeconds: Number(brokerCpuSeconds.toFixed(2)),
  brokerCpuMicrosecondsPerEvent: Number(((brokerCpuSeconds * 1e6) / Math.max(1, events)).toFixed(2)),
  brokerRssMiB: { start: rss0, subscribed: rssConnected, end: rssEnd, growth: rssEnd - rss0 },
  brokerLoop,
}
if (json) console.log(JSON.stringify(result))
else console.log(result)
