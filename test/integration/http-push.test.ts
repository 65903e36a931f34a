// Push delivery over HTTP (src/http/push/): SSE read with Node's fetch and curl -N, WebSocket with
// the ws package, records produced by kafkajs, against an in-process broker with HTTP on.
// - 10,000 records from earliest arrive in order per partition; cut after 5,000, Last-Event-ID
//   resumes with exactly the other 5,000 (markers written after them end the second read).
// - from=<time> starts at the first record at or after it; ?cursor= (curl -N) resumes it.
// - Two subscribers of one share group get every record exactly once between them.
// - A subscriber that stops reading is cut at tributary.http.stream.max.buffered.bytes (event:
//   error with its cursor, logged) and resumes from the cursor with nothing lost or repeated.
// - A stream with a reader of its own stays open while idle, and is cut once its subscriber has
//   taken nothing for two heartbeats while it waited (error event with the cursor).
// - Two subscribers from latest share one reader (the shared tail, seen in the debug log).
// - A group stream commits what it delivered (kafkajs admin sees the log end); the group's next
//   stream starts there.
// - A paused WebSocket subscriber is closed with 1013, an error message with its cursor, and the
//   cursor resumes it with nothing lost.
// - Streams of a topic deleted under them end with an error event; the broker goes on serving.
// PUSH_DEBUG=1 prints every stream close the broker logs.
// - WebSocket: publish answered with partition and offset, records pushed with cursors, share-group
//   acks (a released record comes back with deliveryCount 2), bad messages answered with errors.
// - Bad topic, partition, from, cursor: 4xx JSON before any stream, for SSE and WebSocket.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { Kafka, logLevel, type Producer } from 'kafkajs'
import WebSocket from 'ws'
import { alterGroupConfigs } from '../../src/client/admin-topics.js'
import { KafkaClient } from '../../src/client/client.js'
import { type RunningBroker, startBroker } from '../../src/index.js'
import type { Logger } from '../../src/util/logger.js'
import { waitFor } from '../helpers/clients.js'

const MAX_BUFFERED = 256 * 1024

interface Ev {
  id: string | null
  event: string | null
  data: string
}

interface Rec {
  topic: string
  partition: number
  offset: number
  timestamp: number
  encoding: string
  key: string | null
  value: string | null
  headers: Array<{ key: string; value: string | null }>
  deliveryCount?: number
}

/** Parses complete SSE events out of a text buffer; returns the rest. */
function parseEvents(buf: string, out: Ev[]): string {
  let i: number
  while ((i = buf.indexOf('\n\n')) >= 0) {
    const block = buf.slice(0, i)
    buf = buf.slice(i + 2)
    const ev: Ev = { id: null, event: null, data: '' }
    let any = false
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue
      const c = line.indexOf(':')
      const field = c < 0 ? line : line.slice(0, c)
      const value = c < 0 ? '' : line.slice(c + 1).replace(/^ /, '')
      if (field === 'id') ev.id = value
      else if (field === 'event') ev.event = value
      else if (field === 'data') ev.data += value
      any = true
    }
    if (any) out.push(ev)
  }
  return buf
}

class SseClient {
  readonly events: Ev[] = []
  /** The record events among them, parsed once each. */
  readonly records: Array<Rec & { cursor: string }> = []
  markers = 0
  ended = false
  private buf = ''
  private readonly decoder = new TextDecoder()

  private constructor(
    private readonly abort: AbortController,
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
  ) {}

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const abort = new AbortController()
    const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal })
    assert.equal(res.status, 200, await (res.status === 200 ? Promise.resolve('') : res.text()))
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/)
    return new SseClient(abort, res.body!.getReader())
  }

  async readUntil(done: (c: SseClient) => boolean): Promise<void> {
    while (!done(this) && !this.ended) {
      const { done: eof, value } = await this.reader.read()
      if (eof) this.ended = true
      else {
        const seen = this.events.length
        this.buf = parseEvents(this.buf + this.decoder.decode(value, { stream: true }), this.events)
        for (const e of this.events.slice(seen)) {
          if (e.event !== null) continue
          const r = { ...(JSON.parse(e.data) as Rec), cursor: e.id! }
          if (r.value === 'END') this.markers++
          else this.records.push(r)
        }
      }
    }
  }

  close(): void {
    this.abort.abort()
    this.reader.cancel().catch(() => {})
  }
}

/** The first n record events of a stream; the connection is then dropped. */
async function readRecords(url: string, n: number, headers: Record<string, string> = {}): Promise<Array<Rec & { cursor: string }>> {
  const c = await SseClient.open(url, headers)
  await c.readUntil((x) => x.records.length >= n)
  c.close()
  return c.records.slice(0, n)
}

/** Reads until a record with value 'END' has been seen on each of `partitions` partitions. */
async function readToMarkers(c: SseClient, partitions: number): Promise<Array<Rec & { cursor: string }>> {
  await c.readUntil((x) => x.markers >= partitions)
  c.close()
  assert.equal(c.markers, partitions, 'the stream ended before the markers')
  return c.records
}

function assertInOrder(records: readonly Rec[]): void {
  const last = new Map<number, number>()
  for (const r of records) {
    const prev = last.get(r.partition) ?? -1
    assert.ok(r.offset > prev, `partition ${r.partition}: offset ${r.offset} after ${prev}`)
    last.set(r.partition, r.offset)
  }
}

const idOf = (r: Rec) => `${r.partition}:${r.offset}`

describe('HTTP push: SSE and WebSocket', () => {
  let broker: RunningBroker
  let kafka: Kafka
  let producer: Producer
  const logs: string[] = []
  const capture: Logger = {
    debug: (m) => logs.push(m),
    info: (m, f) => {
      logs.push(m)
      if (process.env.PUSH_DEBUG && m.includes('stream closed')) console.error(m, JSON.stringify(f))
    },
    warn: (m) => logs.push(m),
    error: (m) => logs.push(m),
    child: () => capture,
  }

  const produce = async (topic: string, values: string[], perSend = 500) => {
    for (let i = 0; i < values.length; i += perSend) {
      await producer.send({
        topic,
        acks: -1,
        messages: values.slice(i, i + perSend).map((v, j) => ({ key: `k${i + j}`, value: v })),
      })
    }
  }
  const markers = async (topic: string, partitions: number) => {
    for (let p = 0; p < partitions; p++) await producer.send({ topic, acks: -1, messages: [{ value: 'END', partition: p }] })
  }
  const url = (topic: string, query = '') => `${broker.http}/topics/${topic}/events${query}`

  before(async () => {
    broker = await startBroker({
      storage: 'memory',
      http: true,
      logger: capture,
      config: { 'tributary.http.stream.max.buffered.bytes': MAX_BUFFERED, 'tributary.http.stream.heartbeat.ms': 1000 },
    })
    kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({
      topics: [
        { topic: 'orders', numPartitions: 3 },
        { topic: 'timed', numPartitions: 2 },
        { topic: 'jobs', numPartitions: 2 },
        { topic: 'stall', numPartitions: 1 },
        { topic: 'live', numPartitions: 2 },
        { topic: 'handoff', numPartitions: 2 },
        { topic: 'sockets', numPartitions: 2 },
        { topic: 'grouped', numPartitions: 2 },
        { topic: 'ws-stall', numPartitions: 1 },
      ],
    })
    await admin.disconnect()
    producer = kafka.producer()
    await producer.connect()
  })

  after(async () => {
    await producer?.disconnect()
    await broker?.close()
  })

  it('delivers 10,000 records in order per partition and resumes after 5,000 with Last-Event-ID', async () => {
    const values = Array.from({ length: 10_000 }, (_, i) => `value-${i}`)
    await produce('orders', values)
    const first = await readRecords(url('orders', '?from=earliest'), 5_000)
    assert.equal(first.length, 5_000)
    await markers('orders', 3)
    const rest = await readToMarkers(await SseClient.open(url('orders', '?from=earliest'), { 'last-event-id': first.at(-1)!.cursor }), 3)
    assert.equal(rest.length, 5_000)
    const all = [...first, ...rest]
    assertInOrder(all)
    assert.equal(new Set(all.map(idOf)).size, 10_000)
    assert.deepEqual(all.map((r) => r.value).sort(), [...values].sort())
    assert.ok(all.every((r) => r.encoding === 'text' && r.topic === 'orders' && r.key?.startsWith('k')))
    assert.equal(new Set(all.map((r) => r.partition)).size, 3)
  })

  it('starts from a time, and curl -N resumes it with ?cursor=', async () => {
    await produce(
      'timed',
      Array.from({ length: 500 }, (_, i) => `old-${i}`),
    )
    const since = Date.now() + 5
    await new Promise((r) => setTimeout(r, 20))
    const fresh = Array.from({ length: 2_000 }, (_, i) => `new-${i}`)
    await produce('timed', fresh)
    const first = await readRecords(url('timed', `?from=${new Date(since).toISOString()}`), 1_000)
    assert.ok(first.every((r) => r.value!.startsWith('new-') && r.timestamp >= since))
    await markers('timed', 2)
    const curl = spawn('curl', ['-N', '-s', '-H', 'Accept: text/event-stream', url('timed', `?cursor=${first.at(-1)!.cursor}`)])
    const events: Ev[] = []
    let buf = ''
    await new Promise<void>((resolve, reject) => {
      curl.on('error', reject)
      curl.stdout.setEncoding('utf8')
      curl.stdout.on('data', (chunk: string) => {
        buf = parseEvents(buf + chunk, events)
        if (events.filter((e) => e.data.includes('"value":"END"')).length >= 2) resolve()
      })
      curl.on('exit', () => reject(new Error('curl ended before the markers')))
    })
    curl.kill()
    const rest = events.filter((e) => e.event === null && !e.data.includes('"value":"END"')).map((e) => JSON.parse(e.data) as Rec)
    const all = [...first, ...rest]
    assertInOrder(all)
    assert.equal(all.length, 2_000)
    assert.deepEqual(all.map((r) => r.value).sort(), [...fresh].sort())
  })

  it('gives each record of a share group to one of its two subscribers, exactly once overall', async () => {
    const client = await KafkaClient.connect({ bootstrap: [broker.bootstrap] })
    await alterGroupConfigs(client, 'workers', [{ name: 'share.auto.offset.reset', op: 'set', value: 'earliest' }])
    await client.close()
    const values = Array.from({ length: 2_000 }, (_, i) => `job-${i}`)
    await produce('jobs', values)
    const a = await SseClient.open(url('jobs', '?share-group=workers'))
    const b = await SseClient.open(url('jobs', '?share-group=workers'))
    const total = () => a.records.length + b.records.length
    await Promise.race([a.readUntil(() => total() >= 2_000), b.readUntil(() => total() >= 2_000)])
    await Promise.race([a.readUntil(() => total() >= 2_000), b.readUntil(() => total() >= 2_000)])
    a.close()
    b.close()
    const all = [...a.records, ...b.records]
    assert.equal(new Set(all.map(idOf)).size, all.length, 'a record was delivered twice')
    assert.deepEqual(all.map((r) => r.value).sort(), [...values].sort())
  })

  it('cuts a subscriber that stops reading at the buffer limit; its cursor resumes it with nothing lost', async () => {
    const c = await SseClient.open(url('stall'))
    const big = 'x'.repeat(300)
    const values = Array.from({ length: 60_000 }, (_, i) => `${i}:${big}`)
    await produce('stall', values.slice(0, 10))
    await c.readUntil((x) => x.records.length > 0)
    // Stop reading; the broker queues until the limit and then cuts the stream.
    await produce('stall', values.slice(10), 200)
    await waitFor(() => logs.some((m) => m.includes('stream closed: subscriber too slow')), 'the cut', 60_000)
    await c.readUntil(() => false)
    const cut = c.events.find((e) => e.event === 'error')
    const got = c.records
    assert.ok(got.length < values.length, 'the stream was cut before the end')
    assert.ok(cut, 'an error event ends the stream')
    const data = JSON.parse(cut.data) as { reason: string; cursor: string }
    assert.match(data.reason, /too slow/)
    assert.equal(data.cursor, got.at(-1)!.cursor)
    await markers('stall', 1)
    const rest = await readToMarkers(await SseClient.open(url('stall'), { 'last-event-id': got.at(-1)!.cursor }), 1)
    const all = [...got, ...rest]
    assertInOrder(all)
    assert.deepEqual(
      all.map((r) => r.value),
      values,
    )
  })

  it('keeps an idle stream of its own open, and cuts one whose subscriber stopped taking anything', async () => {
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'idle', numPartitions: 1 }] })
    await admin.disconnect()
    await produce('idle', ['i0', 'i1'])
    const idle = await SseClient.open(url('idle', '?from=earliest'))
    await idle.readUntil((x) => x.records.length >= 2)
    // Longer than the stall limit (two heartbeats of 1 s) with nothing to send.
    await new Promise((r) => setTimeout(r, 2_500))
    await produce('idle', ['i2'])
    await idle.readUntil((x) => x.records.length >= 3)
    idle.close()
    assert.deepEqual(
      idle.records.map((r) => r.value),
      ['i0', 'i1', 'i2'],
    )

    // The stall topic holds 60,000 records of 300 bytes: far more than any socket takes.
    const stalled = await SseClient.open(url('stall', '?from=earliest'))
    await stalled.readUntil((x) => x.records.length > 0)
    await waitFor(() => logs.some((m) => m.includes('stream closed: subscriber stalled')), 'the stall cut', 60_000)
    await stalled.readUntil(() => false)
    const cut = stalled.events.find((e) => e.event === 'error')
    assert.ok(cut, 'an error event ends the stream')
    const data = JSON.parse(cut.data) as { reason: string; cursor: string }
    assert.match(data.reason, /stalled/)
    assert.equal(data.cursor, stalled.records.at(-1)!.cursor)
    assertInOrder(stalled.records)
    assert.equal(stalled.records[0]!.offset, 0)
  })

  it('fans the log end out to subscribers from latest through one shared reader', async () => {
    const before = logs.filter((m) => m.includes('shared tail started')).length
    const a = await SseClient.open(url('live'))
    const b = await SseClient.open(url('live', '?from=latest'))
    // One partition of the same tail: its events and cursors name that partition only.
    const one = await SseClient.open(url('live', '?partition=1'))
    await waitFor(() => logs.filter((m) => m.includes('shared tail started')).length > before, 'the tail')
    const values = Array.from({ length: 1_000 }, (_, i) => `live-${i}`)
    await produce('live', values, 100)
    await markers('live', 2)
    const [ra, rb, r1] = await Promise.all([readToMarkers(a, 2), readToMarkers(b, 2), readToMarkers(one, 1)])
    for (const got of [ra, rb]) {
      assertInOrder(got)
      assert.deepEqual(got.map((r) => r.value).sort(), [...values].sort())
    }
    assertInOrder(r1)
    assert.deepEqual(
      r1.map((r) => r.value),
      ra.filter((r) => r.partition === 1).map((r) => r.value),
    )
    for (const r of r1) assert.deepEqual(Object.keys(JSON.parse(Buffer.from(r.cursor, 'base64url').toString())), ['1'])
    assert.deepEqual(Object.keys(JSON.parse(Buffer.from(ra.at(-1)!.cursor, 'base64url').toString())), ['0', '1'])
    assert.equal(logs.filter((m) => m.includes('shared tail started')).length, before + 1)
  })

  it('moves a stream from earliest to the shared tail once it caught up, with nothing lost or repeated', async () => {
    const first = Array.from({ length: 300 }, (_, i) => `early-${i}`)
    await produce('handoff', first)
    const moved = () => logs.filter((m) => m.includes('moved to the shared tail')).length
    const before = moved()
    const c = await SseClient.open(url('handoff', '?from=earliest'))
    await waitFor(() => moved() > before, 'the hand-off to the shared tail')
    const later = Array.from({ length: 300 }, (_, i) => `later-${i}`)
    await produce('handoff', later, 50)
    await markers('handoff', 2)
    const got = await readToMarkers(c, 2)
    assertInOrder(got)
    const values = got.map((r) => r.value)
    assert.equal(new Set(values).size, values.length, 'no record twice')
    for (const v of [...first, ...later]) assert.ok(values.includes(v), `${v} arrived`)
  })

  it('commits the offsets a group stream delivered, and a new stream of the group starts there', async () => {
    const values = Array.from({ length: 1_000 }, (_, i) => `g-${i}`)
    await produce('grouped', values)
    await markers('grouped', 2)
    const first = await readToMarkers(await SseClient.open(url('grouped', '?group=http-readers&from=earliest')), 2)
    assert.deepEqual(first.map((r) => r.value).sort(), [...values].sort())
    const admin = kafka.admin()
    await admin.connect()
    try {
      const committed = await waitFor(async () => {
        const [t] = await admin.fetchOffsets({ groupId: 'http-readers', topics: ['grouped'] })
        const sum = t!.partitions.reduce((n, p) => n + Number(p.offset), 0)
        return sum === 1_002 ? t!.partitions : undefined
      }, 'the commits')
      const ends = await admin.fetchTopicOffsets('grouped')
      assert.deepEqual(committed.map((p) => [p.partition, p.offset]).sort(), ends.map((p) => [p.partition, p.offset]).sort())
    } finally {
      await admin.disconnect()
    }
    const more = Array.from({ length: 10 }, (_, i) => `g-more-${i}`)
    await produce('grouped', more)
    await markers('grouped', 2)
    const second = await readToMarkers(await SseClient.open(url('grouped', '?group=http-readers&from=earliest')), 2)
    assert.deepEqual(second.map((r) => r.value).sort(), [...more].sort())
  })

  it('WebSocket: a paused subscriber is closed with 1013 and its cursor; the cursor resumes it', async () => {
    const base = broker.http!.replace('http', 'ws')
    const ws = new WebSocket(`${base}/topics/ws-stall/ws`)
    const inbox: Array<Record<string, any>> = []
    ws.on('message', (d) => inbox.push(JSON.parse(d.toString())))
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)))
    await new Promise((r) => ws.once('open', r))
    const big = 'y'.repeat(300)
    const values = Array.from({ length: 60_000 }, (_, i) => `${i}:${big}`)
    await produce('ws-stall', values.slice(0, 10))
    await waitFor(() => inbox.length > 0, 'the first record')
    ws.pause()
    await produce('ws-stall', values.slice(10), 200)
    await waitFor(() => logs.some((m) => m.includes('WebSocket stream closed: subscriber too slow')), 'the cut', 60_000)
    ws.resume()
    assert.equal(await closed, 1013)
    const error = inbox.at(-1)!
    const got = inbox.filter((m) => m.type === 'record')
    assert.equal(error.type, 'error')
    assert.match(error.reason, /too slow/)
    assert.equal(error.cursor, got.at(-1)!.cursor)
    assert.ok(got.length < values.length)
    await markers('ws-stall', 1)
    const again = new WebSocket(`${base}/topics/ws-stall/ws?cursor=${error.cursor}`)
    const rest: Array<Record<string, any>> = []
    await new Promise<void>((resolve) =>
      again.on('message', (d) => {
        const m = JSON.parse(d.toString())
        if (m.value === 'END') resolve()
        else rest.push(m)
      }),
    )
    again.close()
    assert.deepEqual(
      [...got, ...rest].map((m) => m.value),
      values,
    )
  })

  it('ends streams of a topic deleted under them with an error event, and goes on serving', async () => {
    const admin = kafka.admin()
    await admin.connect()
    try {
      await admin.createTopics({ topics: [{ topic: 'doomed', numPartitions: 1 }] })
      await produce('doomed', ['a', 'b'])
      const alone = await SseClient.open(url('doomed', '?from=earliest'))
      const tail = await SseClient.open(url('doomed'))
      await alone.readUntil((x) => x.records.length >= 2)
      await admin.deleteTopics({ topics: ['doomed'] })
      await Promise.all([alone.readUntil(() => false), tail.readUntil(() => false)])
      for (const c of [alone, tail]) {
        const err = c.events.find((e) => e.event === 'error')
        assert.ok(err, 'an error event ends the stream')
        assert.match((JSON.parse(err.data) as { reason: string }).reason, /UNKNOWN_TOPIC_OR_PARTITION|does not exist/)
      }
      const res = await fetch(url('doomed'), { headers: { accept: 'text/event-stream' } })
      assert.equal(res.status, 404)
      assert.equal(((await res.json()) as { error_code: number }).error_code, 40403)
    } finally {
      await admin.disconnect()
    }
  })

  it('answers bad requests with 4xx JSON before any stream', async () => {
    const cases: Array<[string, number, number]> = [
      [url('nope'), 404, 40403],
      [url('orders', '?partition=7'), 404, 40402],
      [url('orders', '?partition=x'), 400, 40001],
      [url('orders', '?from=yesterday'), 400, 40001],
      [url('orders', '?cursor=%%%'), 400, 40002],
      [url('orders', `?cursor=${Buffer.from('{"0":99999999}').toString('base64url')}`), 400, 40002],
      [url('orders', '?group=a&share-group=b'), 400, 40001],
    ]
    for (const [u, status, code] of cases) {
      const res = await fetch(u, { headers: { accept: 'text/event-stream' } })
      assert.equal(res.status, status, u)
      const body = (await res.json()) as { error_code: number; message: string }
      assert.equal(body.error_code, code, u)
      assert.ok(body.message.length > 0)
    }
    const refused = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${broker.http!.replace('http', 'ws')}/topics/nope/ws`)
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
      ws.on('open', () => reject(new Error('opened')))
      ws.on('error', () => {})
    })
    assert.equal(refused, 404)
  })

  it('WebSocket: publishes and pushes records with cursors, and takes explicit share-group acks', async () => {
    const base = broker.http!.replace('http', 'ws')
    const ws = new WebSocket(`${base}/topics/sockets/ws?from=earliest`)
    const inbox: Array<Record<string, any>> = []
    ws.on('message', (d) => inbox.push(JSON.parse(d.toString())))
    await new Promise((r) => ws.once('open', r))
    for (let i = 0; i < 3; i++) ws.send(JSON.stringify({ type: 'publish', key: `w${i}`, value: `hello-${i}`, partition: 1, id: i }))
    ws.send('not json')
    ws.send(JSON.stringify({ type: 'publish', value: 'x', partition: 9 }))
    ws.send(JSON.stringify({ type: 'ack', offset: 0, partition: 0 }))
    await waitFor(
      () => inbox.filter((m) => m.type === 'record').length >= 3 && inbox.filter((m) => m.type !== 'record').length >= 6,
      'answers',
    )
    const published = inbox.filter((m) => m.type === 'published').sort((x, y) => x.id - y.id)
    assert.deepEqual(
      published.map((m) => [m.partition, m.offset]),
      [
        [1, 0],
        [1, 1],
        [1, 2],
      ],
    )
    assert.equal(inbox.filter((m) => m.type === 'error').length, 3)
    const records = inbox.filter((m) => m.type === 'record')
    assert.deepEqual(
      records.map((r) => [r.partition, r.offset, r.key, r.value]),
      [0, 1, 2].map((i) => [1, i, `w${i}`, `hello-${i}`]),
    )
    ws.close()
    await new Promise((r) => ws.once('close', r))

    // Resume from the second record's cursor.
    const again = new WebSocket(`${base}/topics/sockets/ws?cursor=${records[1]!.cursor}`)
    const next = await new Promise<Record<string, any>>((resolve) => again.once('message', (d) => resolve(JSON.parse(d.toString()))))
    assert.deepEqual([next.partition, next.offset], [1, 2])
    again.close()

    const client = await KafkaClient.connect({ bootstrap: [broker.bootstrap] })
    await alterGroupConfigs(client, 'ws-queue', [{ name: 'share.auto.offset.reset', op: 'set', value: 'earliest' }])
    await client.close()
    const q = new WebSocket(`${base}/topics/sockets/ws?share-group=ws-queue`)
    const got: Array<Record<string, any>> = []
    q.on('message', (d) => {
      const m = JSON.parse(d.toString())
      got.push(m)
      if (m.type !== 'record') return
      // The first delivery of hello-1 is released; everything else accepted.
      const kind = m.value === 'hello-1' && m.deliveryCount === 1 ? 'release' : 'accept'
      q.send(JSON.stringify({ type: 'ack', cursor: m.cursor, kind }))
    })
    await new Promise((r) => q.once('open', r))
    await waitFor(() => got.filter((m) => m.type === 'record').length >= 4, 'the redelivery', 30_000)
    q.close()
    const seen = got.filter((m) => m.type === 'record').map((m) => [m.value, m.deliveryCount])
    assert.deepEqual(seen.sort(), [
      ['hello-0', 1],
      ['hello-1', 1],
      ['hello-1', 2],
      ['hello-2', 1],
    ])
    assert.equal(got.filter((m) => m.type === 'error').length, 0)
  })
})
