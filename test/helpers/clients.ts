// Shared helpers for the integration tests: Java's murmur2 partitioner, a kcat runner and parsers,
// a raw Kafka-protocol socket client, and the record-set checks every client test applies.

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { connect, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Connection, Consumer, describeClusterV1, type fetchV17 } from '@platformatic/kafka'
import type { Kafka } from 'kafkajs'
import { murmur2 } from '../../src/client/partitioner.js'
import { decodeResponseHeader, encodeRequestHeader } from '../../src/protocol/header.js'
import { ApiVersionsRequest, ApiVersionsResponse } from '../../src/protocol/messages/18-api-versions.js'
import { Reader } from '../../src/protocol/primitives/reader.js'
import { Writer } from '../../src/protocol/primitives/writer.js'
import type { Encodable, Message } from '../../src/protocol/schema.js'

export { sleep }

// ---------------------------------------------------------------------------------------------
// Java's murmur2 and the default partitioner: the product's (checked against Kafka's own test
// vectors in test/unit/client/partitioner.test.ts).

export { murmur2 }

/** The partition Java's partitioner (also kafkajs' DefaultPartitioner, librdkafka's murmur2_random) picks for a key. */
export function javaPartition(key: string | Buffer, numPartitions: number): number {
  const b = typeof key === 'string' ? Buffer.from(key, 'utf8') : key
  return (murmur2(b) & 0x7fffffff) % numPartitions
}

// ---------------------------------------------------------------------------------------------
// Polling.

export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  for (;;) {
    try {
      const v = await probe()
      if (v !== undefined && v !== false) return v
    } catch (e) {
      lastError = e
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`)
    }
    await sleep(intervalMs)
  }
}

// ---------------------------------------------------------------------------------------------
// kcat.

export interface ProcResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs kcat with args, feeding `input` on stdin; rejects on timeout (with the output so far). */
export function runKcat(args: string[], input?: string, timeoutMs = 60_000): Promise<ProcResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', args, { stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8')
    child.stderr.setEncoding('utf8')
    child.stdout.on('data', (s: string) => {
      stdout += s
    })
    child.stderr.on('data', (s: string) => {
      stderr += s
    })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`kcat ${args.join(' ')} timed out after ${timeoutMs} ms\nstderr:\n${stderr.slice(-4000)}`))
    }, timeoutMs)
    child.on('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
    child.stdin.on('error', () => {}) // kcat may exit before reading everything on failure
    if (input !== undefined) child.stdin.end(input)
    else child.stdin.end()
  })
}

export interface ConsumedRecord {
  partition: number
  offset: number
  timestamp: number
  key: string | null
  value: string | null
  headers: [string, string | null][]
}

/** Reads a whole topic (all partitions) from the beginning to the end with kcat -C -e -J. */
export async function kcatConsumeAll(bootstrap: string, topic: string, extra: string[] = []): Promise<ConsumedRecord[]> {
  const res = await runKcat(['-C', '-b', bootstrap, '-t', topic, '-o', 'beginning', '-e', '-J', '-q', ...extra])
  if (res.code !== 0) throw new Error(`kcat -C exited ${res.code}\nstderr:\n${res.stderr.slice(-4000)}`)
  const out: ConsumedRecord[] = []
  for (const line of res.stdout.split('\n')) {
    if (line.trim() === '') continue
    const j = JSON.parse(line) as {
      partition: number
      offset: number
      ts?: number
      key: string | null
      payload: string | null
      headers?: (string | null)[]
    }
    const headers: [string, string | null][] = []
    const h = j.headers ?? []
    for (let i = 0; i + 1 < h.length; i += 2) headers.push([h[i] as string, h[i + 1] ?? null])
    out.push({
      partition: j.partition,
      offset: j.offset,
      timestamp: j.ts ?? -1,
      key: j.key,
      value: j.payload,
      headers,
    })
  }
  return out
}

/** kcat -Q: offsets for (partition, timestamp) pairs; -1 = latest, -2 = earliest. */
export async function kcatQueryOffsets(
  bootstrap: string,
  topic: string,
  queries: { partition: number; timestamp: number }[],
): Promise<Map<number, number>> {
  const args = ['-Q', '-b', bootstrap]
  for (const q of queries) args.push('-t', `${topic}:${q.partition}:${q.timestamp}`)
  const res = await runKcat(args)
  if (res.code !== 0) throw new Error(`kcat -Q exited ${res.code}\nstdout:\n${res.stdout}\nstderr:\n${res.stderr}`)
  const map = new Map<number, number>()
  for (const line of res.stdout.split('\n')) {
    const m = /^(\S+) \[(\d+)\] offset (-?\d+)(.*)$/.exec(line.trim())
    if (!m) continue
    if (m[4]!.trim() !== '') throw new Error(`kcat -Q reported an error: ${line}`)
    map.set(Number(m[2]), Number(m[3]))
  }
  return map
}

export interface KcatMetadata {
  controllerid: number
  brokers: { id: number; name: string }[]
  topics: { topic: string; error?: string; partitions: { partition: number; leader: number; error?: string }[] }[]
}

export async function kcatMetadata(bootstrap: string, topic?: string): Promise<KcatMetadata> {
  const args = ['-L', '-J', '-b', bootstrap]
  if (topic) args.push('-t', topic)
  const res = await runKcat(args)
  if (res.code !== 0) throw new Error(`kcat -L exited ${res.code}\nstderr:\n${res.stderr}`)
  return JSON.parse(res.stdout) as KcatMetadata
}

// ---------------------------------------------------------------------------------------------
// The record set the client tests produce, and the checks they apply when reading it back.

export interface ProducedRecord {
  seq: number
  key: string
  value: string
  headers: [string, string][]
  timestamp: number
  /** The partition the Java partitioner picks for key. */
  partition: number
}

/** Printable keys/values/headers (kcat prints them as JSON strings). */
export function makeRecords(opts: {
  count: number
  numPartitions: number
  client: string
  baseTimestamp: number
  /** Headers of record i; default: seq, client and a varying tag. */
  headers?: (i: number) => [string, string][]
}): ProducedRecord[] {
  const out: ProducedRecord[] = []
  for (let i = 0; i < opts.count; i++) {
    const key = `${opts.client}-key-${i}`
    out.push({
      seq: i,
      key,
      value: `${opts.client} value #${i} ${'x'.repeat(i % 37)}|`,
      headers: opts.headers
        ? opts.headers(i)
        : [
            ['seq', String(i)],
            ['client', opts.client],
            ['tag', `t${i % 7}`],
          ],
      timestamp: opts.baseTimestamp + i,
      partition: javaPartition(key, opts.numPartitions),
    })
  }
  return out
}

/** Records per partition, in production order. */
export function expectedByPartition(records: ProducedRecord[], numPartitions: number): ProducedRecord[][] {
  const parts: ProducedRecord[][] = Array.from({ length: numPartitions }, () => [])
  for (const r of records) parts[r.partition]!.push(r)
  return parts
}

/**
 * The consumed set equals the produced one: every partition holds exactly the records the Java
 * partitioner assigns to it, in production order, at offsets 0..n-1, with the same key, value and
 * headers (and the same timestamps when checkTimestamps).
 */
export function assertSameRecords(
  consumed: ConsumedRecord[],
  produced: ProducedRecord[],
  numPartitions: number,
  checkTimestamps = true,
): void {
  const expected = expectedByPartition(produced, numPartitions)
  const byPartition: ConsumedRecord[][] = Array.from({ length: numPartitions }, () => [])
  for (const c of consumed) {
    assert.ok(c.partition >= 0 && c.partition < numPartitions, `record from unexpected partition ${c.partition}`)
    byPartition[c.partition]!.push(c)
  }
  assert.equal(consumed.length, produced.length, 'total number of records read back')
  for (let p = 0; p < numPartitions; p++) {
    const got = byPartition[p]!.slice().sort((a, b) => a.offset - b.offset)
    const want = expected[p]!
    assert.equal(got.length, want.length, `partition ${p}: record count`)
    for (let i = 0; i < want.length; i++) {
      const g = got[i]!
      const w = want[i]!
      const where = `partition ${p} offset ${g.offset} (expected seq ${w.seq})`
      assert.equal(g.offset, i, `partition ${p}: offsets must be 0..n-1 without gaps or repeats (index ${i})`)
      assert.equal(g.key, w.key, `${where}: key`)
      assert.equal(g.value, w.value, `${where}: value`)
      assert.deepEqual(g.headers, w.headers, `${where}: headers`)
      if (checkTimestamps) assert.equal(g.timestamp, w.timestamp, `${where}: timestamp`)
    }
  }
}

/** kcat -P input lines "key<sep>value" for records. */
export function kcatInput(records: ProducedRecord[], sep = '\t'): string {
  let s = ''
  for (const r of records) s += `${r.key}${sep}${r.value}\n`
  return s
}

// ---------------------------------------------------------------------------------------------
// A raw protocol client: frames requests with our own encoders, collects responses, notices close.

export class RawClient {
  private pending: Buffer = Buffer.alloc(0)
  private readonly frames: Buffer[] = []
  private waiters: (() => void)[] = []
  private correlation = 1
  isClosed = false
  readonly closed: Promise<void>

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
      while (this.pending.length >= 4) {
        const size = this.pending.readInt32BE(0)
        if (this.pending.length < 4 + size) break
        this.frames.push(this.pending.subarray(4, 4 + size))
        this.pending = this.pending.subarray(4 + size)
      }
      this.wake()
    })
    socket.on('error', () => {}) // resets are expected after bad input
    this.closed = new Promise((resolve) =>
      socket.on('close', () => {
        this.isClosed = true
        this.wake()
        resolve()
      }),
    )
  }

  private wake(): void {
    const w = this.waiters
    this.waiters = []
    for (const f of w) f()
  }

  static connect(host: string, port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port })
      socket.once('error', reject)
      socket.once('connect', () => {
        socket.off('error', reject)
        socket.setNoDelay(true)
        resolve(new RawClient(socket))
      })
    })
  }

  writeRaw(bytes: Buffer): void {
    this.socket.write(bytes)
  }

  /** Encodes header + body of a request of msg at version, framed; returns its correlation id. */
  sendRequest<V>(msg: Message<V>, version: number, body: Encodable<V>, clientId: string | null = 'it'): number {
    const correlationId = this.correlation++
    const w = new Writer()
    encodeRequestHeader(w, { apiKey: msg.apiKey, apiVersion: version, correlationId, clientId }, msg.isFlexible(version))
    const payload = Buffer.concat([w.toBuffer(), msg.encode(version, body)])
    this.writeRaw(frame(payload))
    return correlationId
  }

  /** The next response frame (without its size prefix); rejects if the connection closes first. */
  async nextFrame(timeoutMs = 10_000): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs
    while (this.frames.length === 0) {
      if (this.isClosed) throw new Error('connection closed before a response arrived')
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no response within ${timeoutMs} ms`)
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left)
        this.waiters.push(() => {
          clearTimeout(t)
          resolve()
        })
      })
    }
    return this.frames.shift()!
  }

  /** Sends a request and decodes its response with the matching declaration. */
  async request<Req, Res>(req: Message<Req>, res: Message<Res>, version: number, body: Encodable<Req>): Promise<Res> {
    const id = this.sendRequest(req, version, body)
    const f = await this.nextFrame()
    const r = new Reader(f)
    const headerVersion = res.isFlexible(version) && req.apiKey !== 18 ? 1 : 0
    const cid = decodeResponseHeader(r, headerVersion)
    assert.equal(cid, id, 'correlation id of the response')
    return res.decode(version, f.subarray(r.pos))
  }

  /** Resolves true if the broker closes the connection within timeoutMs (no response frames allowed unless allowResponses). */
  async expectClose(timeoutMs = 5_000): Promise<{ closed: boolean; frames: number }> {
    const deadline = Date.now() + timeoutMs
    while (!this.isClosed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, deadline - Date.now()))
        this.waiters.push(() => {
          clearTimeout(t)
          resolve()
        })
      })
    }
    return { closed: this.isClosed, frames: this.frames.length }
  }

  close(): void {
    this.socket.destroy()
  }
}

export function frame(payload: Buffer): Buffer {
  const prefix = Buffer.alloc(4)
  prefix.writeInt32BE(payload.length, 0)
  return Buffer.concat([prefix, payload])
}

/** A fresh connection gets a well-formed ApiVersions v3 answer with no error (the broker still serves). */
export async function assertServes(host: string, port: number): Promise<void> {
  const c = await RawClient.connect(host, port)
  try {
    const res = await c.request(ApiVersionsRequest, ApiVersionsResponse, 3, {
      clientSoftwareName: 'tributary-it',
      clientSoftwareVersion: '1.0.0',
    })
    assert.equal(res.errorCode, 0, 'ApiVersions error code on a fresh connection')
    const av = res.apiKeys.find((k) => k.apiKey === 18)
    assert.ok(av, 'ApiVersions lists itself')
    assert.equal(av.maxVersion, 5)
  } finally {
    c.close()
  }
}

// ---------------------------------------------------------------------------------------------
// @platformatic/kafka without a consumer group: Consumer.fetch (Fetch v12+ by topic id) per partition.

/** Reads partitions [0, numPartitions) of topic from offset 0 up to each partition's latest offset. */
export async function platformaticReadAll(bootstrap: string, topic: string): Promise<ConsumedRecord[]> {
  const consumer = new Consumer({ clientId: 'it-platformatic-reader', groupId: 'it-unused', bootstrapBrokers: [bootstrap] })
  try {
    const md = await consumer.metadata({ topics: [topic] })
    const t = md.topics.get(topic)
    assert.ok(t, `metadata for ${topic}`)
    const latest = (await consumer.listOffsets({ topics: [topic] })).get(topic)
    assert.ok(latest, `latest offsets for ${topic}`)
    const out: ConsumedRecord[] = []
    for (let p = 0; p < t.partitionsCount; p++) {
      const end = latest[p]!
      let offset = 0n
      let emptyFetches = 0
      while (offset < end) {
        const res: fetchV17.FetchResponse = await consumer.fetch({
          node: t.partitions[p]!.leader,
          topics: [
            {
              topicId: t.id,
              partitions: [{ partition: p, fetchOffset: offset, currentLeaderEpoch: -1, lastFetchedEpoch: -1, partitionMaxBytes: 1 << 20 }],
            },
          ],
          maxWaitTime: 500,
          minBytes: 1,
          maxBytes: 4 << 20,
        })
        assert.equal(res.errorCode, 0, 'Fetch top-level error code')
        const pr = res.responses[0]?.partitions[0]
        assert.ok(pr, 'Fetch response has the partition')
        assert.equal(pr.partitionIndex, p)
        assert.equal(pr.errorCode, 0, `Fetch error code for partition ${p} at offset ${offset}`)
        let next = offset
        for (const batch of pr.records ?? []) {
          for (const rec of batch.records) {
            const o = batch.firstOffset + BigInt(rec.offsetDelta)
            if (o < offset) continue // whole batches are returned; skip what precedes the position
            out.push({
              partition: p,
              offset: Number(o),
              timestamp: Number(batch.firstTimestamp + rec.timestampDelta),
              key: rec.key === null ? null : rec.key.toString('utf8'),
              value: rec.value === null ? null : rec.value.toString('utf8'),
              headers: rec.headers.map(([k, v]): [string, string | null] => [
                k === null ? '' : k.toString('utf8'),
                v === null ? null : v.toString('utf8'),
              ]),
            })
            if (o + 1n > next) next = o + 1n
          }
        }
        if (next === offset) {
          if (++emptyFetches > 20) throw new Error(`Fetch made no progress on partition ${p} at offset ${offset} (end ${end})`)
        } else emptyFetches = 0
        offset = next
      }
    }
    return out
  } finally {
    await consumer.close()
  }
}

/** DescribeCluster through @platformatic/kafka's own v1 encoder on a direct connection. */
export async function platformaticDescribeCluster(host: string, port: number) {
  const conn = new Connection('it-describe-cluster')
  await conn.connect(host, port)
  try {
    return await describeClusterV1.api.async(conn, false, 1)
  } finally {
    await conn.close()
  }
}

/**
 * kafkajs end to end with whatever connection settings `kafka` has: creates `topic` (one
 * partition), produces `values`, reads them back with a group consumer; resolves with what it read.
 */
export async function kafkajsRoundTrip(kafka: Kafka, topic: string, values: string[], groupId: string): Promise<string[]> {
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
  await admin.disconnect()
  const producer = kafka.producer()
  await producer.connect()
  await producer.send({ topic, messages: values.map((value) => ({ value })) })
  await producer.disconnect()
  const consumer = kafka.consumer({ groupId })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  const seen: string[] = []
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        eachMessage: async ({ message }) => {
          seen.push(message.value!.toString())
          if (seen.length === values.length) resolve()
        },
      })
      .catch(reject)
  })
  await consumer.disconnect()
  return seen
}

/** Every message, code and API error in an error, its causes and its aggregated errors. */
export function errorChain(err: unknown, out: string[] = []): string[] {
  if (!err || typeof err !== 'object' || out.length > 50) return out
  const e = err as { message?: string; code?: string; cause?: unknown; errors?: unknown[]; response?: unknown; apiId?: string }
  out.push(
    `${e.code ?? ''} ${e.apiId ?? ''} ${e.message ?? ''} ${e.response ? JSON.stringify(e.response, (_k, v) => (typeof v === 'bigint' ? String(v) : v)) : ''}`,
  )
  for (const x of e.errors ?? []) errorChain(x, out)
  if (e.cause) errorChain(e.cause, out)
  return out
}
