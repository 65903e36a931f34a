// POST /v3/clusters/{cluster_id}/topics/{topic_name}/records (REST Proxy v3's produce): each
// record is a JSON object {partition_id?, headers?: [{name, value: base64}], key?, value?,
// timestamp?} whose key and value are {type: BINARY (data base64) | JSON (data any JSON value,
// stored as its JSON text) | STRING (data a string, stored as UTF-8), data}; a missing type is
// JSON. Several records in one body (REST Proxy's streaming mode: concatenated JSON objects) get
// one answer each, in the order sent, each its own JSON object on its own line:
// {error_code: 200, cluster_id, topic_name, partition_id, offset, timestamp, key: {type, size},
// value: {type, size}} when stored, {error_code, message, kafka_error?} when not.
//
// Status: with one record, the HTTP status is its answer's (200, 400 for bad JSON or base64, 404
// 40403 for an unknown partition, 413 for MESSAGE_TOO_LARGE); with several, 200 and each answer
// carries its own error_code, written as soon as it and those before it are known. An unknown
// topic is 404 40403 for the whole request; an empty body 422; a content type other than
// application/json 415; a body over the HTTP server's limit (2 × message.max.bytes) 413 before
// anything is stored. The body is read whole before the first record is produced.
//
// Rules: records are produced through Tributary's Producer (client/producer.ts), one per topic
// per HTTP server (at most MAX_PRODUCERS: the least recently used idle one is flushed and closed
// first; one in use by a request is never closed under it), acks=all, so
// partitioning is a Kafka producer's (murmur2 of the key, else sticky) and a cluster is served
// right. Memory: the body is bounded by the server's bodyLimit; at most WINDOW records of a
// request await their answers, the producer's buffer.memory holds records back (waitForSpace)
// when the brokers are slower, and answers are written no faster than the client reads them (a
// client that goes away ends the request). Each request's end is logged (debug) with its counts.
import { userKey } from '../auth.js'
import { once } from 'node:events'
import { PassThrough } from 'node:stream'
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { ClientError } from '../../client/errors.js'
import { Producer, type ProducerRecord, type RecordHeader } from '../../client/producer.js'
import { type JsonPiece, splitConcatenatedJson } from './concatenated-json.js'
import { badRequest, fromKafka, RestCode, RestError, toRestError } from './errors.js'
import type { RestContext } from './context.js'
import { base64, object, optionalArray, optionalInt, requiredString } from './input.js'

const MAX_PRODUCERS = 32
const DELIVERY_TIMEOUT_MS = 30_000
/** Records of one streaming request that may await their answers at once. */
const WINDOW = 1000
/** How long the HTTP server's close waits for records still being produced. */
const CLOSE_FLUSH_MS = 5000

interface RestRecord extends ProducerRecord {
  delivered(error: ClientError | null, offset: number): void
}

/** The HTTP server's producers, one per topic, created on first use. */
export class ProducerPool {
  /** By topic, least recently used first; `users` counts the requests producing with it now. */
  private readonly producers = new Map<string, { producer: Promise<Producer<RestRecord>>; users: number }>()

  constructor(private readonly ctx: RestContext) {}

  /** The topic's producer, for one request; call release() when the request has its answers. */
  async acquire(topic: string): Promise<{ producer: Producer<RestRecord>; release(): void }> {
    // One producer per topic and user: a user's records go out on that user's login (auth.ts).
    const key = `${userKey()}\u0000${topic}`
    let entry = this.producers.get(key)
    if (entry) {
      this.producers.delete(key) // re-inserted below: the map's order is least recently used first
    } else {
      const producer = this.create(topic)
      const created = { producer, users: 0 }
      entry = created
      producer.catch(() => {
        if (this.producers.get(key) === created) this.producers.delete(key)
      })
    }
    this.producers.set(key, entry)
    entry.users++
    const e = entry
    let released = false
    const release = () => {
      if (released) return
      released = true
      e.users--
      this.evict()
    }
    try {
      return { producer: await e.producer, release }
    } catch (err) {
      release()
      throw err
    }
  }

  /** Closes the least recently used idle producers while there are more than MAX_PRODUCERS. */
  private evict(): void {
    for (const [key, entry] of this.producers) {
      if (this.producers.size <= MAX_PRODUCERS) return
      if (entry.users > 0) continue
      this.producers.delete(key)
      void entry.producer.then(
        async (x) => {
          await x.flush()
          x.close()
        },
        () => {},
      )
    }
  }

  forget(topic: string): void {
    const key = `${userKey()}\u0000${topic}`
    const entry = this.producers.get(key)
    if (!entry || entry.users > 0) return
    this.producers.delete(key)
    void entry.producer.then(
      (x) => x.close(),
      () => {},
    )
  }

  private async create(topic: string): Promise<Producer<RestRecord>> {
    const client = await this.ctx.client()
    return Producer.create<RestRecord>(client, {
      topic,
      acks: -1,
      autoCreateTopic: false,
      deliveryTimeoutMs: DELIVERY_TIMEOUT_MS,
      onDelivery: (report) => {
        report.records.forEach((r, i) => {
          r.delivered(report.error, report.error ? -1 : report.baseOffset + i)
        })
      },
    })
  }

  /** Flushes and closes every producer; records not stored within CLOSE_FLUSH_MS are given up. */
  async close(): Promise<void> {
    const all = [...this.producers.values()]
    this.producers.clear()
    await Promise.all(
      all.map((e) =>
        e.producer.then(
          async (x) => {
            let timer: NodeJS.Timeout | undefined
            await Promise.race([x.flush(), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_FLUSH_MS)))])
            clearTimeout(timer)
            x.close()
          },
          () => {},
        ),
      ),
    )
  }
}

type DataType = 'BINARY' | 'JSON' | 'STRING'

/** A key or value of a record: its bytes and what the answer says of it (null when absent). */
function payload(v: unknown, what: 'key' | 'value'): { bytes: Buffer | null; type: DataType } | null {
  if (v === undefined || v === null) return null
  const o = object(v, what)
  const type = (o.type ?? 'JSON') as string
  const data = o.data
  switch (type) {
    case 'BINARY':
      return { type, bytes: data === undefined || data === null ? null : base64(data, 'data') }
    case 'STRING':
      if (data !== undefined && data !== null && typeof data !== 'string') throw badRequest(`${what}.data must be a string for type STRING`)
      return { type, bytes: data === undefined || data === null ? null : Buffer.from(data as string, 'utf8') }
    case 'JSON':
      return { type, bytes: data === undefined ? null : Buffer.from(JSON.stringify(data), 'utf8') }
    default:
      throw badRequest(`${what}.type must be BINARY, JSON or STRING (schema types need a schema registry), got ${JSON.stringify(type)}`)
  }
}

interface Parsed {
  record: ProducerRecord
  key: { type: DataType; size: number } | null
  value: { type: DataType; size: number } | null
}

/** One record of the body, or a 400 saying why not. */
export function parseRecord(text: string): Parsed {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    throw badRequest(`Bad Request: the record is not valid JSON: ${(err as Error).message}`)
  }
  const o = object(raw, 'record')
  const headers: RecordHeader[] = optionalArray(o, 'headers').map((h, i) => {
    const ho = object(h, `headers[${i}]`)
    const value = ho.value === undefined || ho.value === null ? null : base64(ho.value, `headers[${i}].value`)
    return { key: requiredString(ho, 'name'), value }
  })
  const key = payload(o.key, 'key')
  const value = payload(o.value, 'value')
  let timestamp: number | undefined
  if (o.timestamp !== undefined && o.timestamp !== null) {
    timestamp = typeof o.timestamp === 'string' ? Date.parse(o.timestamp) : Number.NaN
    if (!Number.isFinite(timestamp)) throw badRequest('timestamp must be an ISO 8601 date-time, e.g. 2021-02-05T19:14:42Z')
  }
  const partition = optionalInt(o, 'partition_id')
  const record: ProducerRecord = {
    key: key?.bytes ?? null,
    value: value?.bytes ?? null,
    headers,
    ...(timestamp !== undefined ? { timestamp } : {}),
    ...(partition !== null ? { partition } : {}),
  }
  const size = (p: { bytes: Buffer | null; type: DataType } | null) => (p ? { type: p.type, size: p.bytes?.length ?? 0 } : null)
  return { record, key: size(key), value: size(value) }
}

/** An instant as Java's Instant.toString writes it (REST Proxy's timestamps): no .000 when whole seconds. */
const isoTime = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z')

type Answer = Record<string, unknown> & { error_code: number }

export function registerProduceRoutes(app: FastifyInstance, ctx: RestContext, pool: ProducerPool): void {
  // The body is read as text and split here: concatenated JSON is not one JSON document. Only
  // application/json is taken (anything else is 415, as REST Proxy answers it).
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body))

  app.post<{ Params: { cluster_id: string; topic_name: string }; Body: string }>(
    '/clusters/:cluster_id/topics/:topic_name/records',
    async (req, reply) => {
      const topic = req.params.topic_name
      const pieces = splitConcatenatedJson(typeof req.body === 'string' ? req.body : '')
      if (pieces.length === 0) throw new RestError(422, RestCode.Unprocessable, 'Payload error. Request body is empty. Data is required.')
      const client = await ctx.client()
      const md = await client.metadata([topic], { refresh: true })
      const info = md.topics.get(topic)
      if (!info || info.error === 'UNKNOWN_TOPIC_OR_PARTITION') {
        pool.forget(topic)
        throw fromKafka('UNKNOWN_TOPIC_OR_PARTITION', null)
      }
      const { producer, release } = await pool.acquire(topic)
      try {
        return await produce(producer)
      } finally {
        release()
      }

      async function produce(producer: Producer<RestRecord>): Promise<FastifyReply> {
        // Wrapped in an object: awaiting a promise of a promise would wait for the delivery too.
        const answer = async (piece: JsonPiece): Promise<{ pending: Promise<Answer> }> => {
          if ('error' in piece) return { pending: Promise.resolve(badRequest(`Bad Request: ${piece.error}`).toJSON()) }
          let parsed: Parsed
          try {
            parsed = parseRecord(piece.text)
          } catch (err) {
            return { pending: Promise.resolve(toRestError(err).toJSON()) }
          }
          if (producer.isFull) await producer.waitForSpace()
          const pending = deliver(producer, parsed, (partition, offset, timestamp) => ({
            error_code: 200,
            cluster_id: ctx.deps.services.clusterId,
            topic_name: topic,
            partition_id: partition,
            offset,
            timestamp: isoTime(timestamp),
            key: parsed.key,
            value: parsed.value,
          }))
          return { pending }
        }
        void reply.type('application/json')
        if (pieces.length === 1) {
          const only = await (await answer(pieces[0]!)).pending
          ctx.deps.logger.debug('REST produce request done', { topic, records: 1, failed: only.error_code === 200 ? 0 : 1 })
          return reply.code(only.error_code === 200 ? 200 : toStatus(only.error_code)).send(JSON.stringify(only))
        }
        // Streaming: answers go out in order as they come, at most WINDOW records awaiting theirs,
        // and no faster than the client reads them.
        const out = new PassThrough()
        let gone = false
        const closed = new Promise<void>((resolve) =>
          reply.raw.once('close', () => {
            gone = !reply.raw.writableFinished
            resolve()
          }),
        )
        void reply.code(200).send(out)
        const window: Array<Promise<Answer>> = []
        let records = 0
        let failed = 0
        const emit = async (a: Answer): Promise<void> => {
          records++
          if (a.error_code !== 200) failed++
          if (!gone && !out.write(`${JSON.stringify(a)}\n`)) await Promise.race([once(out, 'drain').catch(() => {}), closed])
        }
        for (const piece of pieces) {
          if (gone) break
          window.push((await answer(piece)).pending)
          if (window.length >= WINDOW) await emit(await window.shift()!)
          if ('error' in piece) break
        }
        for (const pending of window) await emit(await pending)
        out.end()
        ctx.deps.logger.debug('REST produce stream closed', { topic, records, failed, clientGone: gone })
        return reply
      }
    },
  )
}

/**
 * Sends one record; resolves with its answer once it is stored (success(partition, offset,
 * timestamp)) or has failed (its error as REST Proxy answers it).
 */
function deliver(
  producer: Producer<RestRecord>,
  parsed: Parsed,
  success: (partition: number, offset: number, timestamp: number) => Answer,
): Promise<Answer> {
  const timestamp = parsed.record.timestamp ?? Date.now()
  return new Promise<Answer>((resolve) => {
    let partition = -1
    const record: RestRecord = {
      ...parsed.record,
      timestamp,
      delivered: (error, offset) => resolve(error ? toRestError(error).toJSON() : success(partition, offset, timestamp)),
    }
    try {
      partition = producer.send(record)
    } catch (err) {
      resolve(toRestError(err).toJSON())
    }
  })
}

/** The HTTP status of a REST Proxy error code (40403 → 404, 413 → 413). */
const toStatus = (errorCode: number): number => (errorCode >= 10000 ? Math.floor(errorCode / 100) : errorCode)
