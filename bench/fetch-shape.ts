// What each broker answers a consumer, fetch by fetch: the consume scenarios of `npm run bench`
// give one throughput per run, and this shows how it comes about. Each broker is started with its
// listener advertised at a proxy in front of it, so every connection a consumer opens (bootstrap,
// then the leader's) goes through the proxy, which forwards the bytes unchanged and decodes every
// Fetch request and response with the project's own codecs. Per consumer and broker it reports:
//   - fetches, and records and bytes per response (median and 90th percentile);
//   - partitions asked for, and partitions with records, per response; batches per partition;
//   - broker time per fetch: the request's last byte in → the response's last byte out;
//   - consumer time between fetches on a connection: a response's last byte → the next request;
//   - what the requests asked for: max_wait_ms, min_bytes, max_bytes, partition_max_bytes.
// The consumers: Kafka's ConsumerPerformance (the Java consumer) and librdkafka's
// rdkafka_performance -G (bench/harness/rdkafka.ts), a new group each, from the earliest offset,
// over the same topic of 8 partitions filled by ProducerPerformance (100-byte records, untimed).
// The proxy costs CPU on the same cores, so the throughput here is not the bench's; the shapes are.
//   node dist/bench/fetch-shape.js [records=2000000] [--json]
// Needs Java and bench/kafka/target (npm run bench makes it), and rdkafka_performance for its row.
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FrameDecoder } from '../src/network/framing.js'
import { decodeRequestHeader, decodeResponseHeader } from '../src/protocol/header.js'
import { FetchRequest, type FetchRequestData, FetchResponse } from '../src/protocol/messages/01-fetch.js'
import { Reader } from '../src/protocol/primitives/reader.js'
import { BATCH_HEADER_SIZE, BATCH_LENGTH_OFFSET, LOG_OVERHEAD, RECORD_COUNT_OFFSET } from '../src/protocol/records/batch.js'
import { type Broker, type JavaEnv, prepareKafka, startKafka, startTributary } from './harness/brokers.js'
import { consumerPerformance, createTopics, fill100b } from './harness/generators.js'
import { describeMachine } from './harness/machine.js'
import { rdkafkaAvailable, rdkafkaConsume } from './harness/rdkafka.js'
import { freePort } from './harness/util.js'

const args = process.argv.slice(2)
const json = args.includes('--json')
const records = Number(args.find((a) => !a.startsWith('--')) ?? 2_000_000)
const TOPIC = 'fetch-shape'

/** One Fetch exchange as the proxy saw it. */
interface FetchSample {
  conn: number
  brokerMs: number
  /** Response's last byte of the previous fetch on this connection → this request's last byte; NaN for a connection's first. */
  consumerMs: number
  responseBytes: number
  recordBytes: number
  records: number
  partitionsAsked: number
  partitionsWithRecords: number
  batches: number
  maxWaitMs: number
  minBytes: number
  maxBytes: number
  partitionMaxBytes: number
}

/** Feeds a chunk of one direction of a connection to its decoder and hands on every whole frame. */
function carryFrames(frames: FrameDecoder, chunk: Buffer, onFrame: (frame: Buffer) => void): void {
  frames.push(chunk)
  for (let f = frames.next(); f !== undefined; f = frames.next()) onFrame(f)
}

/** Whole batches and their records in a Fetch response's records field (a partial last batch is not counted, as consumers skip it). */
function countBatches(recs: Buffer | null): { batches: number; records: number } {
  let batches = 0
  let n = 0
  if (!recs) return { batches, records: n }
  for (let pos = 0; pos + BATCH_HEADER_SIZE <= recs.length; ) {
    const size = LOG_OVERHEAD + recs.readInt32BE(pos + BATCH_LENGTH_OFFSET)
    if (pos + size > recs.length) break
    batches++
    n += recs.readInt32BE(pos + RECORD_COUNT_OFFSET)
    pos += size
  }
  return { batches, records: n }
}

/** A proxy to one broker that records every Fetch it carries. */
class FetchProxy {
  readonly samples: FetchSample[] = []
  private server: Server | null = null
  private conns = 0
  recording = false

  async listen(port: number, target: number): Promise<void> {
    this.server = createServer((client) => this.carry(client, target))
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject)
      this.server!.listen(port, '127.0.0.1', resolve)
    })
  }

  private carry(client: Socket, target: number): void {
    const conn = ++this.conns
    const broker = connect(target, '127.0.0.1')
    client.setNoDelay(true)
    broker.setNoDelay(true)
    const pending = new Map<number, { version: number; t: number; req: FetchRequestData; gap: number }>()
    let lastResponseAt = Number.NaN
    const up = (frame: Buffer) => {
      const t = performance.now()
      const h = decodeRequestHeader(frame, (key, v) => (key === 1 && FetchRequest.isFlexible(v) ? true : key === 1 ? false : undefined))
      if (h.apiKey !== 1 || !this.recording) return
      const req = FetchRequest.decode(h.apiVersion, frame.subarray(h.bodyOffset))
      pending.set(h.correlationId, { version: h.apiVersion, t, req, gap: t - lastResponseAt })
    }
    const down = (frame: Buffer) => {
      const t = performance.now()
      const correlationId = frame.readInt32BE(0)
      const p = pending.get(correlationId)
      if (!p) return
      pending.delete(correlationId)
      lastResponseAt = t
      const r = new Reader(frame)
      decodeResponseHeader(r, FetchResponse.isFlexible(p.version) ? 1 : 0)
      const res = FetchResponse.decode(p.version, frame.subarray(r.pos))
      let batches = 0
      let n = 0
      let recordBytes = 0
      let withRecords = 0
      for (const topic of res.responses)
        for (const part of topic.partitions) {
          const c = countBatches(part.records)
          if (c.records > 0) withRecords++
          batches += c.batches
          n += c.records
          recordBytes += part.records?.length ?? 0
        }
      this.samples.push({
        conn,
        brokerMs: t - p.t,
        consumerMs: p.gap,
        responseBytes: frame.length + 4,
        recordBytes,
        records: n,
        partitionsAsked: p.req.topics.reduce((s, x) => s + x.partitions.length, 0),
        partitionsWithRecords: withRecords,
        batches,
        maxWaitMs: p.req.maxWaitMs,
        minBytes: p.req.minBytes,
        maxBytes: p.req.maxBytes,
        partitionMaxBytes: p.req.topics[0]?.partitions[0]?.partitionMaxBytes ?? Number.NaN,
      })
    }
    const requests = new FrameDecoder(0x7fffffff)
    const responses = new FrameDecoder(0x7fffffff)
    client.on('data', (b: Buffer) => {
      carryFrames(requests, b, up)
      broker.write(b)
    })
    broker.on('data', (b: Buffer) => {
      carryFrames(responses, b, down)
      client.write(b)
    })
    const end = () => {
      client.destroy()
      broker.destroy()
    }
    client.on('error', end).on('close', end)
    broker.on('error', end).on('close', end)
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }
}

function quantile(xs: number[], q: number): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}

const spread = (xs: number[]) => ({ p50: quantile(xs, 0.5), p90: quantile(xs, 0.9) })

interface Shape {
  consumer: string
  broker: string
  recordsPerSec: number
  fetches: number
  /** Fetches that carried records. */
  fetchesWithRecords: number
  records: { p50: number; p90: number; mean: number }
  responseKiB: { p50: number; p90: number; mean: number }
  partitionsAsked: number
  partitionsWithRecords: { p50: number; mean: number }
  batchesPerPartition: number
  brokerMs: { p50: number; p90: number; total: number }
  consumerMs: { p50: number; p90: number }
  asked: { maxWaitMs: number; minBytes: number; maxBytes: number; partitionMaxBytes: number }
}

function shapeOf(consumer: string, broker: string, recordsPerSec: number, all: FetchSample[]): Shape {
  const withRecords = all.filter((s) => s.records > 0)
  const mean = (xs: number[]) => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length)
  const recs = withRecords.map((s) => s.records)
  const kib = withRecords.map((s) => s.responseBytes / 1024)
  const parts = withRecords.map((s) => s.partitionsWithRecords)
  const first = all[0]
  return {
    consumer,
    broker,
    recordsPerSec,
    fetches: all.length,
    fetchesWithRecords: withRecords.length,
    records: { p50: quantile(recs, 0.5), p90: quantile(recs, 0.9), mean: mean(recs) },
    responseKiB: { p50: quantile(kib, 0.5), p90: quantile(kib, 0.9), mean: mean(kib) },
    partitionsAsked: quantile(
      all.map((s) => s.partitionsAsked),
      0.5,
    ),
    partitionsWithRecords: { p50: quantile(parts, 0.5), mean: mean(parts) },
    batchesPerPartition:
      withRecords.reduce((a, s) => a + s.batches, 0) /
      Math.max(
        1,
        withRecords.reduce((a, s) => a + s.partitionsWithRecords, 0),
      ),
    brokerMs: { ...spread(withRecords.map((s) => s.brokerMs)), total: all.reduce((a, s) => a + s.brokerMs, 0) },
    consumerMs: spread(withRecords.map((s) => s.consumerMs)),
    asked: {
      maxWaitMs: first?.maxWaitMs ?? Number.NaN,
      minBytes: first?.minBytes ?? Number.NaN,
      maxBytes: first?.maxBytes ?? Number.NaN,
      partitionMaxBytes: first?.partitionMaxBytes ?? Number.NaN,
    },
  }
}

const fmt = (x: number, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : '—'

function table(shapes: Shape[]): string {
  const rows: [string, (s: Shape) => string][] = [
    ['records/s through the proxy', (s) => fmt(s.recordsPerSec)],
    ['fetches (with records)', (s) => `${fmt(s.fetches)} (${fmt(s.fetchesWithRecords)})`],
    ['records per response, p50 / p90', (s) => `${fmt(s.records.p50)} / ${fmt(s.records.p90)}`],
    ['KiB per response, p50 / p90', (s) => `${fmt(s.responseKiB.p50)} / ${fmt(s.responseKiB.p90)}`],
    ['partitions asked / with records (p50)', (s) => `${fmt(s.partitionsAsked)} / ${fmt(s.partitionsWithRecords.p50)}`],
    ['batches per partition in a response', (s) => fmt(s.batchesPerPartition, 1)],
    ['broker ms per fetch, p50 / p90', (s) => `${fmt(s.brokerMs.p50, 2)} / ${fmt(s.brokerMs.p90, 2)}`],
    ['consumer ms between fetches, p50 / p90', (s) => `${fmt(s.consumerMs.p50, 2)} / ${fmt(s.consumerMs.p90, 2)}`],
    [
      'asked: max_wait_ms, min_bytes, max_bytes, partition_max_bytes',
      (s) => `${s.asked.maxWaitMs}, ${s.asked.minBytes}, ${fmt(s.asked.maxBytes)}, ${fmt(s.asked.partitionMaxBytes)}`,
    ],
  ]
  const head = ['', ...shapes.map((s) => `${s.consumer} → ${s.broker}`)]
  const body = rows.map(([label, f]) => [label, ...shapes.map(f)])
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...body.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n')
}

async function main(): Promise<void> {
  const machine = await describeMachine()
  const prepared = await prepareKafka(machine.java, machine.maven, (s) => console.error(s))
  if ('skip' in prepared) throw new Error(`the Kafka side cannot run: ${prepared.skip}`)
  const tools: JavaEnv = prepared
  const rdk = await rdkafkaAvailable()
  if (!rdk.available) console.error(`rdkafka_performance: left out (${rdk.reason})`)
  const tmp = mkdtempSync(join(tmpdir(), 'fetch-shape-'))
  const shapes: Shape[] = []
  try {
    for (const name of ['tributary', 'kafka'] as const) {
      const proxy = new FetchProxy()
      const advertise = async (target: number) => {
        const port = await freePort()
        await proxy.listen(port, target)
        return port
      }
      const dir = join(tmp, name)
      const broker: Broker = name === 'tributary' ? await startTributary(dir, { advertise }) : await startKafka(tools, dir, { advertise })
      try {
        await createTopics(tools, broker.bootstrap, 8, [TOPIC])
        await fill100b(tools, broker.bootstrap, TOPIC, records)
        // Clients bootstrap at the broker's own port, learn the proxy's from Metadata, and fetch through it.
        const measure = async (consumer: string, run: () => Promise<number>) => {
          proxy.samples.length = 0
          proxy.recording = true
          const rps = await run()
          proxy.recording = false
          shapes.push(shapeOf(consumer, name, rps, [...proxy.samples]))
          console.error(`${consumer} → ${name}: ${proxy.samples.length} fetches, ${fmt(rps)} records/s`)
        }
        await measure('ConsumerPerformance', async () => (await consumerPerformance(tools, broker.bootstrap, TOPIC, records)).recordsPerSec)
        if (rdk.available)
          await measure(
            'rdkafka_performance',
            async () => (await rdkafkaConsume(broker.bootstrap, TOPIC, `fetch-shape-${name}`, records)).recordsPerSec,
          )
      } finally {
        await broker.stop()
        await proxy.close()
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  if (json) console.log(JSON.stringify({ records, machine, shapes }))
  else console.log(table(shapes))
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err)
    process.exit(1)
  },
)
