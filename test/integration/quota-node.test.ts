// Client quotas through Node clients against an in-process broker (quota.window.num=3, so a new
// client's burst before throttling is 2 windows of its quota):
// - @platformatic/kafka's Admin alterClientQuotas (AlterClientQuotas v1, flexible) and
//   describeClientQuotas (DescribeClientQuotas v0) set and read quotas, and get Kafka's
//   INVALID_REQUEST for a value ≤ 0;
// - `tributary quota set | list` (the CLI, a subprocess) sets, lists, deletes, and reports a key
//   the broker refuses with exit 1;
// - a kafkajs producer whose client id has producer_byte_rate = 100 KiB/s sending 1 MiB is
//   throttled (kafkajs logs each throttle time the broker answers) and its average rate stays near
//   the quota; one without a quota sees no throttle; /metrics counts the throttled responses;
// - request_percentage counts work, not waiting: a consumer long-polling at the tail is not throttled;
// - connection_creation_rate on ip 127.0.0.1: connections opened fast past the rate are closed by
//   the broker at accept.
import assert from 'node:assert/strict'
import { connect as tcpConnect, type Socket } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { Admin } from '@platformatic/kafka'
import { Kafka, logLevel } from 'kafkajs'
import { type RunningBroker, startBroker } from '../../src/index.js'
import { tributary } from '../helpers/cli.js'
import { sampleValue, scrape } from '../unit/http/metrics-text-parser.js'

const KIB = 1024
const QUOTA = 100 * KIB
const BYTES = 1024 * KIB

describe('client quotas with Node clients', () => {
  let broker: RunningBroker
  let admin: Admin

  before(async () => {
    broker = await startBroker({ storage: 'memory', http: true, config: { 'quota.window.num': 3 } })
    admin = new Admin({ clientId: 'quota-admin', bootstrapBrokers: [broker.bootstrap] })
  })
  after(async () => {
    await admin?.close().catch(() => {})
    await broker?.close()
  })

  const cli = (...args: string[]) => tributary(['quota', ...args, '--bootstrap-server', broker.bootstrap])

  test('@platformatic/kafka alterClientQuotas / describeClientQuotas', async () => {
    await admin.alterClientQuotas({
      entries: [
        {
          entities: [{ entityType: 'client-id', entityName: 'kjs-slow' }],
          ops: [{ key: 'producer_byte_rate', value: QUOTA, remove: false }],
        },
        {
          entities: [
            { entityType: 'user', entityName: 'ANONYMOUS' },
            { entityType: 'client-id', entityName: null },
          ],
          ops: [{ key: 'request_percentage', value: 500, remove: false }],
        },
      ],
    } as never)
    const slow = await admin.describeClientQuotas({ components: [{ entityType: 'client-id', matchType: 0, match: 'kjs-slow' }] } as never)
    assert.deepEqual(slow, [
      { entity: [{ entityType: 'client-id', entityName: 'kjs-slow' }], values: [{ key: 'producer_byte_rate', value: QUOTA }] },
    ])
    const anon = await admin.describeClientQuotas({
      components: [{ entityType: 'user', matchType: 0, match: 'ANONYMOUS' }],
      strict: true,
    } as never)
    assert.deepEqual(anon, [], 'strict: the user+client-id entity has another type')
    const loose = await admin.describeClientQuotas({ components: [{ entityType: 'user', matchType: 0, match: 'ANONYMOUS' }] } as never)
    assert.equal(loose.length, 1)
    assert.deepEqual(loose[0]!.values, [{ key: 'request_percentage', value: 500 }])
    await assert.rejects(
      admin.alterClientQuotas({
        entries: [
          { entities: [{ entityType: 'client-id', entityName: 'bad' }], ops: [{ key: 'producer_byte_rate', value: -5, remove: false }] },
        ],
      } as never),
      (err: Error & { errors?: Array<{ response?: { entries: Array<{ errorCode: number; errorMessage: string }> } }> }) => {
        // MultipleErrors of one ResponseError that carries the decoded response.
        const entry = err.errors?.[0]?.response?.entries[0]
        assert.equal(entry?.errorCode, 42, String(err))
        assert.equal(entry?.errorMessage, 'Quota producer_byte_rate must be greater than 0')
        return true
      },
    )
  })

  test('tributary quota set / list / delete, and a refused key', async () => {
    const set = await cli(
      'set',
      '--user',
      'alice',
      '--client',
      'app',
      '--producer-byte-rate',
      '1048576',
      '--add',
      'consumer_byte_rate=2097152',
    )
    assert.equal(set.code, 0, set.stderr)
    assert.match(set.stdout, /Updated quotas of user=alice, client-id=app/)
    const list = await cli('list', '--user', 'alice')
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, /^USER\s+CLIENT-ID\s+IP\s+KEY\s+VALUE\n/)
    assert.match(list.stdout, /alice\s+app\s+-\s+consumer_byte_rate\s+2097152\n/)
    assert.match(list.stdout, /alice\s+app\s+-\s+producer_byte_rate\s+1048576\n/)
    const del = await cli('set', '--user', 'alice', '--client', 'app', '--delete', 'producer_byte_rate')
    assert.equal(del.code, 0, del.stderr)
    const json = await cli('list', '--user', 'alice', '--json')
    assert.deepEqual(JSON.parse(json.stdout), [{ entity: { user: 'alice', 'client-id': 'app' }, values: { consumer_byte_rate: 2097152 } }])
    const bad = await cli('set', '--client', 'app', '--add', 'produce_byte_rate=5')
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /INVALID_REQUEST: Invalid configuration key produce_byte_rate/)
    const usage = await cli('set', '--producer-byte-rate', '5')
    assert.equal(usage.code, 2, usage.stderr)
  })

  async function produceMiB(clientId: string): Promise<{ ms: number; throttles: number[] }> {
    const throttles: number[] = []
    const kafka = new Kafka({
      clientId,
      brokers: [broker.bootstrap],
      logLevel: logLevel.DEBUG,
      logCreator: () => (entry) => {
        const m = /Client side throttling in effect for (\d+)ms/.exec(entry.log.message)
        if (m) throttles.push(Number(m[1]))
      },
    })
    const producer = kafka.producer({ allowAutoTopicCreation: true })
    await producer.connect()
    try {
      const value = Buffer.alloc(16 * KIB, 1)
      const started = performance.now()
      for (let sent = 0; sent < BYTES; sent += 4 * value.length) {
        await producer.send({ topic: 'quota-node', acks: 1, messages: [{ value }, { value }, { value }, { value }] })
      }
      return { ms: performance.now() - started, throttles }
    } finally {
      await producer.disconnect()
    }
  }

  test('kafkajs: a producer over producer_byte_rate is throttled near the quota; one without is not', { timeout: 120_000 }, async () => {
    const slow = await produceMiB('kjs-slow')
    console.log(`quota-node: 1 MiB in ${Math.round(slow.ms)} ms, ${slow.throttles.length} throttled responses`)
    assert.ok(slow.throttles.length > 0, 'the broker never answered a throttle time')
    assert.ok(slow.throttles.every((t) => t > 0))
    const rate = (BYTES / slow.ms) * 1000
    assert.ok(rate < 2 * QUOTA, `average rate ${Math.round(rate)} B/s with a quota of ${QUOTA}`)
    const free = await produceMiB('kjs-free')
    assert.deepEqual(free.throttles, [], 'a client id without a quota is not throttled')
    // The broker's /metrics counts them, per quota type.
    const families = await scrape(`${broker.http}/metrics`)
    const throttled = sampleValue(families, 'kafka_server_quota_throttled_responses_total', { quota: 'produce' }) ?? 0
    assert.ok(throttled >= slow.throttles.length, `${throttled} throttled Produce responses counted`)
    assert.ok((sampleValue(families, 'kafka_server_quota_throttle_time_seconds_total', { quota: 'produce' }) ?? 0) > 0)
  })

  test('request_percentage counts work, not a long-poll: an idle consumer at the tail is not throttled', { timeout: 60_000 }, async () => {
    const set = await cli('set', '--client', 'kjs-poller', '--request-percentage', '1')
    assert.equal(set.code, 0, set.stderr)
    const throttles: number[] = []
    let fetches = 0
    const kafka = new Kafka({
      clientId: 'kjs-poller',
      brokers: [broker.bootstrap],
      logLevel: logLevel.DEBUG,
      logCreator: () => (entry) => {
        if (/Client side throttling in effect/.test(entry.log.message)) throttles.push(1)
      },
    })
    const consumer = kafka.consumer({ groupId: 'quota-poller', maxWaitTimeInMs: 200 })
    consumer.on(consumer.events.FETCH, () => fetches++)
    await consumer.connect()
    try {
      await consumer.subscribe({ topic: 'quota-node', fromBeginning: false })
      await consumer.run({ eachMessage: async () => {} })
      // Each Fetch waits its 200 ms at the tail: as elapsed time that alone would be 100 %.
      await new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (fetches >= 15) {
            clearInterval(check)
            resolve()
          }
        }, 100)
      })
    } finally {
      await consumer.disconnect()
    }
    assert.deepEqual(throttles, [], `throttled while idle (${fetches} fetches)`)
  })

  test('connection_creation_rate: connections past the rate from 127.0.0.1 are closed at accept', { timeout: 60_000 }, async () => {
    const set = await cli('set', '--ip', '127.0.0.1', '--connection-creation-rate', '2')
    assert.equal(set.code, 0, set.stderr)
    const [host, port] = [broker.host, broker.port]
    const sockets: Array<{ socket: Socket; closed: Promise<boolean> }> = []
    for (let i = 0; i < 20; i++) {
      const socket = tcpConnect({ host, port })
      socket.on('error', () => {})
      // Closed by the broker within 2 s: refused; still open then: accepted.
      const closed = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 2000)
        socket.once('close', () => {
          clearTimeout(timer)
          resolve(true)
        })
      })
      sockets.push({ socket, closed })
      await new Promise((r) => socket.once('connect', r).once('close', r))
    }
    const outcomes = await Promise.all(sockets.map((s) => s.closed))
    for (const s of sockets) s.socket.destroy()
    const refused = outcomes.filter(Boolean).length
    console.log(`quota-node: ${refused} of 20 connections refused`)
    // 2 per second over the 2 s minimum span: about 4 accepted.
    assert.ok(refused >= 10, `only ${refused} refused`)
    assert.ok(refused < 20, 'every connection refused')
  })
})
