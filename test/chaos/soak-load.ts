// The soak's mixed load (soak-run.ts): producers, consumers and HTTP clients that keep working
// through broker restarts, and the ledger of what they had acknowledged and what they saw.
//
// Topics (made by soak-run.ts, TOPICS below) and who writes them:
//   soak-plain      kafkajs acks=all, kafkajs idempotent, Tributary's Producer (acks=all)
//   soak-retained   Tributary's Producer; short retention.ms and small segments: deletion all the time
//   soak-compacted  Tributary's Producer with keys from a bounded key space: compaction all the time
//   soak-txn        Tributary's TransactionalProducer; every fifth transaction is aborted
//   soak-rest       REST produce (POST /v3/clusters/{id}/topics/soak-rest/records)
// Readers: a kafkajs consumer in a classic group (every topic but the compacted one, read_committed),
// a @platformatic/kafka consumer in a KIP-848 group (group.protocol=consumer), a Tributary
// ShareConsumer (KIP-932) and an SSE subscriber (GET /topics/soak-plain/events).
//
// Rules: every value is unique (`<source>-<n>`), so the ledger keys on it. A record counts as
// acknowledged only once its producer reported it stored with its partition and offset (a
// transaction: once commitTransaction returned). A worker whose operation fails counts the failure,
// waits a little and goes on; after several failures in a row it builds its client again (a broker
// restart may leave a client in a state it does not recover from by itself). stop() ends every
// worker and closes every client; nothing keeps running after it.
import { setTimeout as sleep } from 'node:timers/promises'
import { Consumer as PlatformaticConsumer, stringDeserializers } from '@platformatic/kafka'
import { Kafka, logLevel } from 'kafkajs'
import { KafkaClient } from '../../src/client/client.js'
import { Producer } from '../../src/client/producer.js'
import { ShareConsumer } from '../../src/client/share-consumer.js'
import { TransactionalProducer } from '../../src/client/transactional-producer.js'

export interface SoakTopic {
  name: string
  partitions: number
  configs: Record<string, string>
}

export const TOPICS: readonly SoakTopic[] = [
  {
    name: 'soak-plain',
    partitions: 3,
    configs: { 'segment.bytes': String(256 * 1024), 'retention.bytes': String(2 * 1024 * 1024), 'retention.ms': '600000' },
  },
  { name: 'soak-retained', partitions: 2, configs: { 'segment.bytes': String(64 * 1024), 'segment.ms': '10000', 'retention.ms': '60000' } },
  {
    name: 'soak-compacted',
    partitions: 2,
    configs: {
      'cleanup.policy': 'compact',
      'segment.bytes': String(64 * 1024),
      'segment.ms': '10000',
      'min.cleanable.dirty.ratio': '0.01',
      'delete.retention.ms': '1000',
    },
  },
  { name: 'soak-txn', partitions: 1, configs: { 'segment.bytes': String(256 * 1024) } },
  { name: 'soak-rest', partitions: 1, configs: { 'segment.bytes': String(256 * 1024), 'retention.bytes': String(1024 * 1024) } },
]
/** Distinct keys written to soak-compacted. */
export const COMPACTED_KEYS = 100
/** What the group consumers read (compaction removes records on purpose, so the compacted topic is checked by a final read alone). */
export const CONSUMED_TOPICS = ['soak-plain', 'soak-retained', 'soak-txn', 'soak-rest']
const SHARE_TOPIC = 'soak-plain'
const SSE_TOPIC = 'soak-plain'
const PAD = 'x'.repeat(80)
/** Failures in a row after which a worker builds its client again. */
const REBUILD_AFTER = 5

/** A REST answer, read field by field. */
type RestAnswer = Record<string, any>

/** The value a record carries: its first word (the padding follows). */
export const valueIn = (s: string): string => s.split(' ')[0]!

export interface AckedAt {
  partition: number
  offset: number
}

export interface Ledger {
  /** topic → value → where it was stored. */
  acked: Map<string, Map<string, AckedAt>>
  /** Values of transactions that committed / aborted; values of a transaction whose end failed are in neither. */
  committed: Set<string>
  aborted: Set<string>
  /** Compacted topic: value → its key. */
  keyOf: Map<string, string>
  /** consumer → topic → values seen. */
  seen: Map<string, Map<string, Set<string>>>
  counts: Record<string, number>
}

export function newLedger(): Ledger {
  return { acked: new Map(), committed: new Set(), aborted: new Set(), keyOf: new Map(), seen: new Map(), counts: {} }
}

function ack(l: Ledger, topic: string, value: string, partition: number, offset: number): void {
  let m = l.acked.get(topic)
  if (!m) l.acked.set(topic, (m = new Map()))
  m.set(value, { partition, offset })
}

function see(l: Ledger, consumer: string, topic: string, value: string): void {
  let byTopic = l.seen.get(consumer)
  if (!byTopic) l.seen.set(consumer, (byTopic = new Map()))
  let s = byTopic.get(topic)
  if (!s) byTopic.set(topic, (s = new Set()))
  s.add(value)
}

const bump = (l: Ledger, name: string, n = 1) => {
  l.counts[name] = (l.counts[name] ?? 0) + n
}

export interface LoadOptions {
  bootstrap: string
  http: string
  /** Records per second of each producer. */
  rate: number
  ledger: Ledger
  log: (line: string) => void
}

export interface Load {
  /** Stops the producers (the consumers keep reading). */
  stopProducers(): Promise<void>
  /** Stops everything and closes every client. */
  stop(): Promise<void>
}

interface Worker {
  done: Promise<void>
}

/**
 * Runs body(step) until stopped: step does one operation; a throw counts as a failure of `name`,
 * and REBUILD_AFTER of them in a row call rebuild().
 */
function loop(
  name: string,
  ledger: Ledger,
  stopped: () => boolean,
  step: () => Promise<void>,
  rebuild: () => Promise<void>,
  pauseMs: number,
): Worker {
  const run = async () => {
    let failures = 0
    while (!stopped()) {
      try {
        await step()
        failures = 0
      } catch {
        bump(ledger, `${name} failures`)
        if (++failures >= REBUILD_AFTER) {
          failures = 0
          bump(ledger, `${name} rebuilds`)
          await rebuild().catch(() => {})
        }
        await sleep(500)
      }
      if (pauseMs > 0) await sleep(pauseMs)
    }
  }
  return { done: run() }
}

export function startLoad(opts: LoadOptions): Load {
  const l = opts.ledger
  let producersStopped = false
  let allStopped = false
  const pStop = () => producersStopped || allStopped
  const aStop = () => allStopped
  const batch = Math.max(1, Math.round(opts.rate / 10))
  const kafka = new Kafka({
    clientId: 'soak',
    brokers: [opts.bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 2000 },
  })
  const closers: Array<() => Promise<unknown>> = []
  const producers: Worker[] = []
  const consumers: Worker[] = []

  // kafkajs producers: each batch to one partition (round robin), so value i of a batch is at baseOffset + i.
  for (const idempotent of [false, true]) {
    const name = idempotent ? 'kafkajs-idempotent' : 'kafkajs'
    const make = () => kafka.producer(idempotent ? { idempotent: true, maxInFlightRequests: 1 } : { allowAutoTopicCreation: false })
    let producer = make()
    let connected = false
    let n = 0
    closers.push(() => producer.disconnect())
    producers.push(
      loop(
        name,
        l,
        pStop,
        async () => {
          if (!connected) {
            await producer.connect()
            connected = true
          }
          const values = Array.from({ length: batch }, () => `${name}-${n++}`)
          const partition = n % 3
          const res = await producer.send({
            topic: 'soak-plain',
            acks: -1,
            messages: values.map((v) => ({ value: `${v} ${PAD}`, partition })),
          })
          const base = Number(res[0]!.baseOffset)
          for (const [i, v] of values.entries()) ack(l, 'soak-plain', v, partition, base + i)
          bump(l, `${name} acked`, values.length)
        },
        async () => {
          await producer.disconnect().catch(() => {})
          producer = make()
          connected = false
        },
        100,
      ),
    )
  }

  // Tributary's Producer: plain, retained and compacted topics.
  for (const topic of ['soak-plain', 'soak-retained', 'soak-compacted']) {
    const name = `tributary:${topic}`
    let client: KafkaClient | undefined
    let producer: Producer | undefined
    let n = 0
    const close = async () => {
      producer?.close()
      client?.close()
      producer = client = undefined
    }
    closers.push(close)
    producers.push(
      loop(
        name,
        l,
        pStop,
        async () => {
          if (!producer) {
            client = await KafkaClient.connect({ bootstrap: [opts.bootstrap], clientId: 'soak-tributary' })
            producer = await Producer.create(client, {
              topic,
              autoCreateTopic: false,
              deliveryTimeoutMs: 30_000,
              onDelivery: (r) => {
                if (r.error) bump(l, `${name} failed records`, r.records.length)
                else {
                  r.records.forEach((rec, i) => {
                    const v = valueIn(rec.value!.toString())
                    ack(l, topic, v, r.partition, r.baseOffset + i)
                  })
                  bump(l, `${name} acked`, r.records.length)
                }
              },
            })
          }
          for (let i = 0; i < batch; i++) {
            const v = `${name}-${n++}`
            const key = topic === 'soak-compacted' ? `k${n % COMPACTED_KEYS}` : null
            if (key) l.keyOf.set(v, key)
            producer.send({ key: key === null ? null : Buffer.from(key), value: Buffer.from(`${v} ${PAD}`) })
          }
          await producer.flush()
        },
        close,
        100,
      ),
    )
  }

  // One transactional producer; every fifth transaction aborts.
  {
    let client: KafkaClient | undefined
    let txn: TransactionalProducer | undefined
    let n = 0
    let t = 0
    const close = async () => {
      await txn?.close().catch(() => {})
      client?.close()
      txn = client = undefined
    }
    closers.push(close)
    producers.push(
      loop(
        'transactional',
        l,
        pStop,
        async () => {
          if (!txn) {
            client = await KafkaClient.connect({ bootstrap: [opts.bootstrap], clientId: 'soak-txn' })
            const p = await TransactionalProducer.create(client, { transactionalId: 'soak-txn', maxBlockMs: 15_000 })
            txn = p
            await p.initTransactions()
          }
          const values = Array.from({ length: 10 }, () => `txn-${n++}`)
          const abort = t++ % 5 === 4
          txn.beginTransaction()
          try {
            for (const v of values) await txn.send('soak-txn', { key: null, value: Buffer.from(`${v} ${PAD}`) })
            if (abort) await txn.abortTransaction()
            else await txn.commitTransaction()
          } catch (err) {
            bump(l, 'transactional uncertain', values.length)
            // Whether it committed is unknown: neither set holds these values. A new producer fences this one.
            await close()
            throw err
          }
          for (const v of values) (abort ? l.aborted : l.committed).add(v)
          bump(l, abort ? 'transactional aborted' : 'transactional acked', values.length)
        },
        close,
        400,
      ),
    )
  }

  // REST produce, one record a request.
  {
    let cluster: string | undefined
    let n = 0
    producers.push(
      loop(
        'rest',
        l,
        pStop,
        async () => {
          if (cluster === undefined) {
            const clusters = (await (await fetch(`${opts.http}/v3/clusters`, { signal: AbortSignal.timeout(5000) })).json()) as RestAnswer
            cluster = clusters.data[0].cluster_id as string
          }
          const v = `rest-${n++}`
          const r = await fetch(`${opts.http}/v3/clusters/${cluster}/topics/soak-rest/records`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ value: { type: 'STRING', data: `${v} ${PAD}` } }),
            signal: AbortSignal.timeout(35_000),
          })
          const body = (await r.json()) as RestAnswer
          if (body.error_code !== 200) throw new Error(`REST produce: ${JSON.stringify(body)}`)
          ack(l, 'soak-rest', v, body.partition_id, body.offset)
          bump(l, 'rest acked')
        },
        async () => {
          cluster = undefined
        },
        200,
      ),
    )
  }

  // kafkajs consumer in a classic group (read_committed, kafkajs's default).
  {
    let consumer: ReturnType<typeof kafka.consumer> | undefined
    const start = async () => {
      const c = kafka.consumer({ groupId: 'soak-classic', sessionTimeout: 10_000, heartbeatInterval: 1000, maxWaitTimeInMs: 500 })
      consumer = c
      await c.connect()
      await c.subscribe({ topics: CONSUMED_TOPICS, fromBeginning: true })
      await c.run({
        eachMessage: async ({ topic, message }) => {
          see(l, 'classic', topic, valueIn(message.value!.toString()))
        },
      })
    }
    let crashed = false
    closers.push(async () => consumer?.disconnect())
    consumers.push(
      loop(
        'classic-group',
        l,
        aStop,
        async () => {
          if (!consumer || crashed) {
            await consumer?.disconnect().catch(() => {})
            crashed = false
            await start()
            consumer!.on(consumer!.events.CRASH, (e) => {
              if (!e.payload.restart) crashed = true
            })
          }
          await sleep(1000)
        },
        async () => {
          crashed = true
        },
        0,
      ),
    )
  }

  // @platformatic/kafka consumer in a KIP-848 group.
  {
    let consumer: PlatformaticConsumer<string, string, string, string> | undefined
    let stream: { close(): Promise<void>; destroy(): void } | undefined
    let broken = false
    // The stream is closed first, by hand: with groupProtocol 'consumer' the consumer's close(true)
    // leaves its streams open (their autocommit interval then holds the process forever), and a
    // close that fails while the broker restarts leaves them open too.
    const close = async () => {
      const c = consumer
      const s = stream
      consumer = undefined
      stream = undefined
      if (s) await s.close().catch(() => s.destroy())
      if (c) await new Promise<void>((resolve) => c.close(true, () => resolve()))
    }
    closers.push(close)
    consumers.push(
      loop(
        'kip848-group',
        l,
        aStop,
        async () => {
          if (!consumer || broken) {
            await close()
            broken = false
            const c = new PlatformaticConsumer({
              clientId: 'soak-848',
              groupId: 'soak-848',
              bootstrapBrokers: [opts.bootstrap],
              groupProtocol: 'consumer',
              deserializers: stringDeserializers,
              autocommit: 1000,
              maxWaitTime: 500,
            })
            consumer = c
            c.on('error', () => {
              broken = true
            })
            const s = await c.consume({ topics: CONSUMED_TOPICS, mode: 'committed', fallbackMode: 'earliest' })
            if (consumer !== c) {
              // closed while consume() was joining: this stream is nobody's to close later
              await s.close().catch(() => s.destroy())
              return
            }
            stream = s
            s.on('data', (m) => see(l, 'kip848', m.topic, valueIn(m.value)))
            s.on('error', () => {
              broken = true
            })
            s.on('close', () => {
              broken = true
            })
          }
          await sleep(1000)
        },
        async () => {
          broken = true
        },
        0,
      ),
    )
  }

  // A share-group consumer: counts what it was delivered and accepts it.
  {
    let share: ShareConsumer | undefined
    const close = async () => {
      const s = share
      share = undefined
      await s?.close().catch(() => {})
    }
    closers.push(close)
    consumers.push(
      loop(
        'share',
        l,
        aStop,
        async () => {
          if (!share) {
            share = new ShareConsumer({ bootstrap: [opts.bootstrap], groupId: 'soak-share', maxWaitMs: 500 })
            await share.subscribe([SHARE_TOPIC])
          }
          const records = await share.poll()
          for (const r of records) share.acknowledge(r)
          bump(l, 'share delivered', records.length)
        },
        close,
        0,
      ),
    )
  }

  // An SSE subscriber from the log end; reconnects after the stream ends.
  const sseAbort = new AbortController()
  consumers.push(
    loop(
      'sse',
      l,
      aStop,
      async () => {
        const r = await fetch(`${opts.http}/topics/${SSE_TOPIC}/events`, { signal: sseAbort.signal })
        if (r.status !== 200 || !r.body) throw new Error(`SSE answered ${r.status}`)
        bump(l, 'sse connects')
        const decoder = new TextDecoder()
        let rest = ''
        for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
          rest += decoder.decode(chunk, { stream: true })
          const lines = rest.split('\n')
          rest = lines.pop()!
          bump(l, 'sse events', lines.filter((x) => x.startsWith('id: ')).length)
        }
      },
      async () => {},
      1000,
    ),
  )
  closers.push(async () => sseAbort.abort())

  const stopProducers = async () => {
    producersStopped = true
    await Promise.all(producers.map((w) => w.done))
  }
  return {
    stopProducers,
    stop: async () => {
      producersStopped = true
      allStopped = true
      sseAbort.abort()
      await Promise.all([...producers, ...consumers].map((w) => w.done))
      for (const c of closers) await c().catch(() => {})
      opts.log('soak: load stopped')
    },
  }
}
