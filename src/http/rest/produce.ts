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
// carries its own error_code. An unknown topic is 404 40403 for the whole request; an empty body
// 422; a body over the HTTP server's limit (2 × message.max.bytes) 413 before anything is stored.
//
// Rules: records are produced through Tributary's Producer (client/producer.ts), one per topic
// per HTTP server (at most MAX_PRODUCERS, the least recently used closed first), acks=all, so
// partitioning is a Kafka producer's (murmur2 of the key, else sticky) and a cluster is served
// right. Memory: the body is bounded by the server's bodyLimit, and the producer's buffer.memory
// holds the records back (waitForSpace) when the brokers are slower than the clients.
import type { FastifyInstance } from 'fastify'
import type { ClientError } from '../../client/errors.js'
import { Producer, type ProducerRecord, type RecordHeader } from '../../client/producer.js'
import { splitConcatenatedJson } from './concatenated-json.js'
import { badRequest, fromKafka, RestCode, RestError, toRestError } from './errors.js'
import type { RestContext } from './context.js'
import { base64, object, optionalArray, optionalInt, requiredString } from './input.js'

const MAX_PRODUCERS = 32
const DELIVERY_TIMEOUT_MS = 30_000

interface RestRecord extends ProducerRecord {
  delivered(error: ClientError | null, offset: number): void
}

/** The HTTP server's producers, one per topic, created on first use. */
export class ProducerPool {
  private readonly producers = new Map<string, Promise<Producer<RestRecord>>>()

  constructor(private readonly ctx: RestContext) {}

  async get(topic: string): Promise<Producer<RestRecord>> {
    let p = this.producers.get(topic)
    if (p) {
      this.producers.delete(topic) // re-inserted below: the map's order is least recently used first
    } else {
      p = this.create(topic)
      p.catch(() => {
        if (this.producers.get(topic) === p) this.producers.delete(topic)
      })
    }
    this.producers.set(topic, p)
    while (this.producers.size > MAX_PRODUCERS) {
      const [oldest, op] = this.producers.entries().next().value!
      this.producers.delete(oldest)
      void op.then(
        async (x) => {
          await x.flush()
          x.close()
        },
        () => {},
      )
    }
    return p
  }

  forget(topic: string): void {
    const p = this.producers.get(topic)
    this.producers.delete(topic)
    void p?.then(
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

  async close(): Promise<void> {
    const all = [...this.producers.values()]
    this.producers.clear()
    await Promise.all(
      all.map((p) =>
        p.then(
          async (x) => {
            await x.flush()
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
  // The body is read as text and split here: concatenated JSON is not one JSON document.
  app.removeContentTypeParser('application/json')
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
      const producer = await pool.get(topic)
      const answers: Array<Promise<Answer>> = []
      for (const piece of pieces) {
        if ('error' in piece) {
          answers.push(Promise.resolve(badRequest(`Bad Request: ${piece.error}`).toJSON()))
          break
        }
        let parsed: Parsed
        try {
          parsed = parseRecord(piece.text)
        } catch (err) {
          answers.push(Promise.resolve(toRestError(err).toJSON()))
          continue
        }
        if (producer.isFull) await producer.waitForSpace()
        const timestamp = parsed.record.timestamp ?? Date.now()
        answers.push(
          new Promise<Answer>((resolve) => {
            let partition = -1
            const record: RestRecord = {
              ...parsed.record,
              timestamp,
              delivered: (error, offset) => {
                if (error) return resolve(toRestError(error).toJSON())
                resolve({
                  error_code: 200,
                  cluster_id: ctx.deps.services.clusterId,
                  topic_name: topic,
                  partition_id: partition,
                  offset,
                  timestamp: isoTime(timestamp),
                  key: parsed.key,
                  value: parsed.value,
                })
              },
            }
            try {
              partition = producer.send(record)
            } catch (err) {
              resolve(toRestError(err).toJSON())
            }
          }),
        )
      }
      const done = await Promise.all(answers)
      const failed = done.filter((a) => a.error_code !== 200).length
      ctx.deps.logger.debug('REST produce request done', { topic, records: done.length, failed })
      void reply.type('application/json')
      if (done.length === 1) {
        const only = done[0]!
        const status = only.error_code === 200 ? 200 : toStatus(only.error_code)
        return reply.code(status).send(JSON.stringify(only))
      }
      return reply.code(200).send(`${done.map((a) => JSON.stringify(a)).join('\n')}\n`)
    },
  )
}

/** The HTTP status of a REST Proxy error code (40403 → 404, 413 → 413). */
const toStatus = (errorCode: number): number => (errorCode >= 10000 ? Math.floor(errorCode / 100) : errorCode)
