// Random reads into partitions, timed one at a time: Fetch at K random offsets and ListOffsets at
// K random timestamps, the harness's own load generator for the size scenarios. It speaks the
// protocol through src/client, so it runs the same way against Tributary and Apache Kafka.
//
//   node dist/bench/harness/random-reads.js --bootstrap-server 127.0.0.1:9092 --topic small \
//     --topic large [--partition 0] [--fetches 1000] [--lookups 1000] [--seed 1] [--max-bytes 1]
//
// Prints one JSON object, { partitions: [...] } in the order of the --topic flags: each
// partition's offset and timestamp range, its size on disk (DescribeLogDirs, null if the broker
// does not say), and per operation the latency in ms (avg, p50, p99, max) over the timed
// operations. With several topics the operations take turns — fetch in A, fetch in B, fetch in A,
// … — so that warm-up, the machine's other load and drift fall on every partition alike.
//
// Offsets are drawn uniformly from [log start, log end), timestamps uniformly between the first
// batch's first timestamp and the last batch's max timestamp, from a seeded generator: both brokers
// holding the same records get the same offsets. A Fetch asks for max_bytes (1 by default), so the
// broker returns the one batch that holds the offset (KIP-74: the first batch comes whole whatever
// the limit) — the cost is the broker's lookup (segment, offset index, scan) plus one batch's
// transfer, with max_wait 0. Each answer is checked: the batch must contain the offset, the
// timestamp lookup must return an offset in range; anything else fails the run. The first
// `warmup` operations of each kind are not timed (connection, JIT).
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { describeLogDirs, KafkaClient, listOffsets, OffsetSpec, throwIfError } from '../../src/client/index.js'
import type { Connection } from '../../src/client/index.js'
import type { TopicInfo } from '../../src/client/metadata.js'
import { FetchRequest, FetchResponse } from '../../src/protocol/messages/01-fetch.js'
import { ListOffsetsRequest, ListOffsetsResponse } from '../../src/protocol/messages/02-list-offsets.js'
import { type BatchHeader, lastOffsetOf, readBatchHeader } from '../../src/protocol/records/batch.js'
import { seededRandom } from '../../src/util/seeded-random.js'

export interface RandomReadsOptions {
  bootstrap: string
  topics: string[]
  partition: number
  fetches: number
  lookups: number
  seed: number
  maxBytes: number
  warmup: number
}

export interface LatencySummary {
  count: number
  avg: number
  p50: number
  p99: number
  max: number
}

export interface PartitionReads {
  topic: string
  partition: number
  startOffset: number
  endOffset: number
  firstTimestamp: number
  lastTimestamp: number
  sizeBytes: number | null
  /** Average size of the batches the fetches returned. */
  avgBatchBytes: number
  fetch: LatencySummary
  listOffsets: LatencySummary
}

export interface RandomReadsResult {
  partitions: PartitionReads[]
}

export function summarize(samples: number[]): LatencySummary {
  const s = [...samples].sort((a, b) => a - b)
  const at = (p: number) => s[Math.max(0, Math.ceil(p * s.length) - 1)] ?? Number.NaN
  const round = (x: number) => Math.round(x * 1000) / 1000
  return {
    count: s.length,
    avg: round(s.reduce((a, b) => a + b, 0) / (s.length || 1)),
    p50: round(at(0.5)),
    p99: round(at(0.99)),
    max: round(s[s.length - 1] ?? Number.NaN),
  }
}

class PartitionReader {
  private readonly fetchVersion: number
  private readonly listVersion: number

  constructor(
    private readonly conn: Connection,
    private readonly topic: TopicInfo,
    private readonly partition: number,
    private readonly maxBytes: number,
  ) {
    this.fetchVersion = conn.versions!.pick(FetchRequest, FetchResponse)
    this.listVersion = conn.versions!.pick(ListOffsetsRequest, ListOffsetsResponse)
  }

  /** The first batch the broker returns for a fetch at offset. */
  async fetch(offset: number): Promise<BatchHeader> {
    const res = await this.conn.request(FetchRequest, FetchResponse, this.fetchVersion, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: this.maxBytes,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: this.topic.name,
          topicId: this.topic.topicId,
          partitions: [
            {
              partition: this.partition,
              currentLeaderEpoch: -1,
              fetchOffset: offset,
              lastFetchedEpoch: -1,
              logStartOffset: -1,
              partitionMaxBytes: this.maxBytes,
            },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: '',
    })
    throwIfError(res.errorCode, 'Fetch')
    const p = res.responses[0]?.partitions[0]
    if (!p) throw new Error(`Fetch at ${offset}: no partition in the response`)
    throwIfError(p.errorCode, `Fetch ${this.topic.name}-${this.partition} at ${offset}`)
    if (!p.records || p.records.length === 0) throw new Error(`Fetch at ${offset}: no records returned (high watermark ${p.highWatermark})`)
    const h = readBatchHeader(p.records, 0)
    if (h.baseOffset > offset || lastOffsetOf(h) < offset)
      throw new Error(`Fetch at ${offset}: the first batch returned holds offsets ${h.baseOffset}–${lastOffsetOf(h)}`)
    return h
  }

  /** ListOffsets by timestamp: the first offset whose timestamp is ≥ t (-1: none). */
  async lookup(timestamp: number): Promise<number> {
    const res = await this.conn.request(ListOffsetsRequest, ListOffsetsResponse, this.listVersion, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: this.topic.name, partitions: [{ partitionIndex: this.partition, currentLeaderEpoch: -1, timestamp }] }],
    })
    const p = res.topics[0]?.partitions[0]
    if (!p) throw new Error(`ListOffsets at ${timestamp}: no partition in the response`)
    throwIfError(p.errorCode, `ListOffsets ${this.topic.name}-${this.partition} at timestamp ${timestamp}`)
    return p.offset
  }
}

/** Where one partition stands and how to draw its random offsets and timestamps. */
interface Target {
  topic: string
  reader: PartitionReader
  startOffset: number
  endOffset: number
  firstTimestamp: number
  lastTimestamp: number
  sizeBytes: number | null
  nextOffset: () => number
  nextTimestamp: () => number
  batchBytes: number
  fetchMs: number[]
  lookupMs: number[]
}

async function target(client: KafkaClient, o: RandomReadsOptions, topic: string): Promise<Target> {
  const info = (await client.metadata([topic])).topics.get(topic)
  if (!info || info.error) throw new Error(`topic ${topic}: ${info?.error ?? 'not in the metadata'}`)
  const leader = info.partitions.find((p) => p.partition === o.partition)?.leader ?? -1
  if (leader < 0) throw new Error(`${topic}-${o.partition} has no leader`)
  const startOffset = (await listOffsets(client, topic, [o.partition], OffsetSpec.Earliest)).get(o.partition)!
  const endOffset = (await listOffsets(client, topic, [o.partition], OffsetSpec.Latest)).get(o.partition)!
  if (endOffset <= startOffset) throw new Error(`${topic}-${o.partition} is empty (offsets ${startOffset}–${endOffset})`)
  let sizeBytes: number | null = null
  try {
    const dirs = await describeLogDirs(client, leader, [{ topic, partitions: [o.partition] }])
    sizeBytes = dirs.flatMap((d) => d.partitions).find((p) => p.topic === topic && p.partition === o.partition)?.sizeBytes ?? null
  } catch {
    // Size on disk is informative only.
  }
  const reader = new PartitionReader(await client.connection(leader), info, o.partition, o.maxBytes)
  const firstTimestamp = (await reader.fetch(startOffset)).baseTimestamp
  const lastTimestamp = (await reader.fetch(endOffset - 1)).maxTimestamp
  if (!(lastTimestamp >= firstTimestamp) || firstTimestamp < 0)
    throw new Error(`${topic}-${o.partition}: no usable timestamps (${firstTimestamp}–${lastTimestamp})`)
  const offsets = seededRandom(o.seed)
  const timestamps = seededRandom(o.seed + 1)
  return {
    topic,
    reader,
    startOffset,
    endOffset,
    firstTimestamp,
    lastTimestamp,
    sizeBytes,
    nextOffset: () => startOffset + Math.floor(offsets() * (endOffset - startOffset)),
    nextTimestamp: () => firstTimestamp + Math.floor(timestamps() * (lastTimestamp - firstTimestamp + 1)),
    batchBytes: 0,
    fetchMs: [],
    lookupMs: [],
  }
}

async function fetchOnce(t: Target, timed: boolean): Promise<void> {
  const offset = t.nextOffset()
  const t0 = performance.now()
  const h = await t.reader.fetch(offset)
  if (timed) t.fetchMs.push(performance.now() - t0)
  t.batchBytes += h.sizeBytes
}

async function lookupOnce(t: Target, timed: boolean): Promise<void> {
  const ts = t.nextTimestamp()
  const t0 = performance.now()
  const offset = await t.reader.lookup(ts)
  if (timed) t.lookupMs.push(performance.now() - t0)
  if (offset < t.startOffset || offset >= t.endOffset) {
    throw new Error(
      `ListOffsets at timestamp ${ts} (range ${t.firstTimestamp}–${t.lastTimestamp}) returned offset ${offset}, outside ${t.startOffset}–${t.endOffset - 1}`,
    )
  }
}

export async function randomReads(o: RandomReadsOptions): Promise<RandomReadsResult> {
  const client = await KafkaClient.connect({ bootstrap: [o.bootstrap], clientId: 'bench-random-reads', requestTimeoutMs: 60_000 })
  try {
    const targets: Target[] = []
    for (const topic of o.topics) targets.push(await target(client, o, topic))
    // Taking turns: operation i goes to every partition before operation i + 1 goes to any.
    for (let i = 0; i < o.warmup + o.fetches; i++) for (const t of targets) await fetchOnce(t, i >= o.warmup)
    for (let i = 0; i < o.warmup + o.lookups; i++) for (const t of targets) await lookupOnce(t, i >= o.warmup)
    return {
      partitions: targets.map((t) => ({
        topic: t.topic,
        partition: o.partition,
        startOffset: t.startOffset,
        endOffset: t.endOffset,
        firstTimestamp: t.firstTimestamp,
        lastTimestamp: t.lastTimestamp,
        sizeBytes: t.sizeBytes,
        avgBatchBytes: Math.round(t.batchBytes / (o.warmup + o.fetches)),
        fetch: summarize(t.fetchMs),
        listOffsets: summarize(t.lookupMs),
      })),
    }
  } finally {
    await client.close()
  }
}

const USAGE = `usage: node dist/bench/harness/random-reads.js --bootstrap-server HOST:PORT --topic NAME [--topic NAME ...]
  [--partition 0] [--fetches 1000] [--lookups 1000] [--seed 1] [--max-bytes 1] [--warmup 20]`

async function main(): Promise<void> {
  const { values: v } = parseArgs({
    options: {
      'bootstrap-server': { type: 'string', default: process.env.TRIBUTARY_BOOTSTRAP ?? 'localhost:9092' },
      topic: { type: 'string', multiple: true },
      partition: { type: 'string', default: '0' },
      fetches: { type: 'string', default: '1000' },
      lookups: { type: 'string', default: '1000' },
      seed: { type: 'string', default: '1' },
      'max-bytes': { type: 'string', default: '1' },
      warmup: { type: 'string', default: '20' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (v.help) {
    console.log(USAGE)
    return
  }
  const int = (name: string, s: string, min: number) => {
    const n = Number(s)
    if (!Number.isInteger(n) || n < min) {
      console.error(`--${name} needs an integer ≥ ${min}\n${USAGE}`)
      process.exit(2)
    }
    return n
  }
  if (!v.topic || v.topic.length === 0) {
    console.error(`--topic is required\n${USAGE}`)
    process.exit(2)
  }
  const r = await randomReads({
    bootstrap: v['bootstrap-server']!,
    topics: v.topic,
    partition: int('partition', v.partition!, 0),
    fetches: int('fetches', v.fetches!, 1),
    lookups: int('lookups', v.lookups!, 1),
    seed: int('seed', v.seed!, 0),
    maxBytes: int('max-bytes', v['max-bytes']!, 1),
    warmup: int('warmup', v.warmup!, 0),
  })
  console.log(JSON.stringify(r))
}

const invokedDirectly = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)
if (invokedDirectly) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err))
    process.exit(1)
  })
}
