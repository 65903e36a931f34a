// GET /metrics (src/http/metrics/): scraped with fetch and read with a strict Prometheus text-format
// parser (test/unit/http/metrics-text-parser.ts). The families and their labels are there on a
// fresh broker; the counters move with traffic from kafkajs — bytes and messages in, bytes out,
// requests per API, response errors — a group's lag goes to 0 once it commits; connections, protocol
// closes and HTTP requests are counted; SSE and WebSocket streams are counted while open, whoever
// serves them.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { type Admin, Kafka, logLevel } from 'kafkajs'
import { WebSocket, WebSocketServer } from 'ws'
import { type RunningBroker, startBroker } from '../../src/broker/start.js'
import { metricsModule } from '../../src/http/metrics/metrics-module.js'
import { type HttpDeps, type HttpModule, HttpServer } from '../../src/http/server.js'
import type { BrokerServices } from '../../src/ports/broker-services.js'
import { defaultBrokerConfig } from '../../src/config/config.js'
import { silentLogger } from '../../src/util/logger.js'
import { waitFor } from '../helpers/clients.js'
import { type Family, sampleValue, scrape } from '../unit/http/metrics-text-parser.js'

const TOPIC = 'metrics-traffic'
const GROUP = 'metrics-group'

const FAMILIES: Record<string, string> = {
  kafka_network_requestmetrics_requests_total: 'counter',
  kafka_network_requestmetrics_errors_total: 'counter',
  kafka_network_requestmetrics_totaltime_seconds: 'histogram',
  kafka_server_brokertopicmetrics_bytesin_total: 'counter',
  kafka_server_brokertopicmetrics_bytesout_total: 'counter',
  kafka_server_brokertopicmetrics_messagesin_total: 'counter',
  kafka_server_brokertopicmetrics_replicationbytesout_total: 'counter',
  kafka_server_replicamanager_underreplicatedpartitions: 'gauge',
  kafka_server_replicamanager_partitioncount: 'gauge',
  kafka_server_fetchsessioncache_numincrementalfetchsessions: 'gauge',
  kafka_server_fetchsessioncache_numincrementalfetchpartitionscached: 'gauge',
  kafka_server_fetchsessioncache_incrementalfetchsessionevictions_total: 'counter',
  kafka_server_replicamanager_leadercount: 'gauge',
  tributary_log_tail_cache_bytes: 'gauge',
  tributary_log_tail_cache_limit_bytes: 'gauge',
  tributary_log_tail_cache_reads_total: 'counter',
  tributary_log_tail_cache_evicted_bytes_total: 'counter',
  kafka_server_replicamanager_isrshrinks_total: 'counter',
  kafka_server_replicamanager_isrexpands_total: 'counter',
  kafka_controller_kafkacontroller_offlinepartitionscount: 'gauge',
  kafka_controller_kafkacontroller_activecontrollercount: 'gauge',
  kafka_consumergroup_lag: 'gauge',
  tributary_consumergroup_lag_series_dropped: 'gauge',
  kafka_server_socketservermetrics_connection_count: 'gauge',
  kafka_server_socketservermetrics_connection_creation_total: 'counter',
  kafka_server_socketservermetrics_connection_close_total: 'counter',
  tributary_network_protocol_closes_total: 'counter',
  tributary_http_requests_total: 'counter',
  tributary_http_open_streams: 'gauge',
  process_cpu_user_seconds_total: 'counter',
  process_resident_memory_bytes: 'gauge',
  nodejs_eventloop_lag_seconds: 'gauge',
}

const v = (f: Map<string, Family>, name: string, labels: Record<string, string> = {}) => sampleValue(f, name, labels) ?? 0

describe('GET /metrics', () => {
  let broker: RunningBroker
  let kafka: Kafka
  let admin: Admin
  let url: string

  before(async () => {
    broker = await startBroker({ storage: 'memory', http: true })
    url = `${broker.http}/metrics`
    kafka = new Kafka({ clientId: 'it-metrics', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    admin = kafka.admin()
    await admin.connect()
  })

  after(async () => {
    await admin?.disconnect()
    await broker?.close()
  })

  it('serves every family in the text format, with its type, help and labels', async () => {
    const families = await scrape(url)
    for (const [name, type] of Object.entries(FAMILIES)) {
      const f = families.get(name)
      assert.ok(f, `no family ${name}`)
      assert.equal(f.type, type, name)
      assert.ok((f.help ?? '').length > 0, `${name} has no help`)
    }
    // The admin client's connection, under the broker's listener; the partition gauges of a broker alone.
    const conns = families.get('kafka_server_socketservermetrics_connection_count')!.samples
    assert.ok(conns.length >= 1 && conns.every((s) => s.labels.listener !== undefined && s.value >= 1), JSON.stringify(conns))
    assert.equal(v(families, 'kafka_controller_kafkacontroller_activecontrollercount'), 1)
    assert.equal(v(families, 'kafka_server_replicamanager_underreplicatedpartitions'), 0)
    assert.equal(v(families, 'kafka_controller_kafkacontroller_offlinepartitionscount'), 0)
    assert.deepEqual(
      families.get('tributary_http_open_streams')!.samples.map((s) => [s.labels.kind, s.value]),
      [
        ['sse', 0],
        ['websocket', 0],
      ],
    )
  })

  it('counts produce and fetch traffic, errors, and a group lag that goes to 0 once it commits', async () => {
    assert.equal(await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2, replicationFactor: 1 }] }), true)
    const producer = kafka.producer()
    await producer.connect()
    const values = Array.from({ length: 10 }, (_, i) => `value-${i}`)
    const tailValues = ['tail-0', 'tail-1']
    try {
      await producer.send({ topic: TOPIC, acks: -1, messages: values.map((value, i) => ({ value, partition: i % 2 })) })
    } finally {
      await producer.disconnect()
    }
    let m = await scrape(url)
    assert.equal(v(m, 'kafka_server_brokertopicmetrics_messagesin_total', { topic: TOPIC }), 10)
    // Two batches (one per partition) of at least 61 header bytes plus the values.
    assert.ok(v(m, 'kafka_server_brokertopicmetrics_bytesin_total', { topic: TOPIC }) > 2 * 61 + values.join('').length)
    assert.ok(v(m, 'kafka_network_requestmetrics_requests_total', { request: 'Produce' }) >= 1)
    assert.ok(v(m, 'kafka_network_requestmetrics_totaltime_seconds_count', { request: 'Produce' }) >= 1)
    assert.equal(
      v(m, 'kafka_network_requestmetrics_totaltime_seconds_bucket', { request: 'Produce', le: '+Inf' }),
      v(m, 'kafka_network_requestmetrics_totaltime_seconds_count', { request: 'Produce' }),
    )
    assert.equal(v(m, 'kafka_server_brokertopicmetrics_bytesout_total', { topic: TOPIC }), 0, 'nothing read yet')
    assert.ok(v(m, 'kafka_server_replicamanager_leadercount') >= 2)

    // The group's committed offsets at 0: its lag is the whole partition.
    await admin.setOffsets({ groupId: GROUP, topic: TOPIC, partitions: [0, 1].map((partition) => ({ partition, offset: '0' })) })
    m = await scrape(url)
    for (const partition of ['0', '1']) {
      assert.equal(sampleValue(m, 'kafka_consumergroup_lag', { group: GROUP, topic: TOPIC, partition }), 5, `lag of ${partition}`)
    }

    const consumer = kafka.consumer({ groupId: GROUP, maxWaitTimeInMs: 100 })
    const seen: string[] = []
    await consumer.connect()
    try {
      await consumer.subscribe({ topic: TOPIC })
      await consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(message.value!.toString())
        },
      })
      await waitFor(() => seen.length >= 10, 'the 10 records consumed', 30_000)
      // Two more while the consumer waits at the end of both partitions: a reader at the tail, so
      // these are kept in memory and it is answered from there.
      const tailProducer = kafka.producer()
      await tailProducer.connect()
      try {
        await tailProducer.send({ topic: TOPIC, acks: -1, messages: tailValues.map((value, i) => ({ value, partition: i % 2 })) })
      } finally {
        await tailProducer.disconnect()
      }
      await waitFor(() => seen.length >= 12, 'the 2 records produced at the tail consumed', 30_000)
      m = await waitFor(
        async () => {
          const s = await scrape(url)
          const lags = ['0', '1'].map((partition) => sampleValue(s, 'kafka_consumergroup_lag', { group: GROUP, topic: TOPIC, partition }))
          return lags.every((l) => l === 0) ? s : undefined
        },
        'the lag at 0 after the commit',
        30_000,
      )
    } finally {
      await consumer.disconnect()
    }
    assert.deepEqual(seen.sort(), [...values, ...tailValues].sort())
    assert.ok(v(m, 'kafka_server_brokertopicmetrics_bytesout_total', { topic: TOPIC }) > values.join('').length)
    assert.ok(v(m, 'kafka_network_requestmetrics_requests_total', { request: 'FetchConsumer' }) >= 1)
    assert.ok(v(m, 'kafka_network_requestmetrics_requests_total', { request: 'OffsetCommit' }) >= 1)
    assert.equal(v(m, 'kafka_network_requestmetrics_requests_total', { request: 'FetchFollower' }), 0, 'no follower on one broker')
    // The first 10 were appended before anyone read the topic, so they came from the files; the 2
    // appended while the consumer was at the tail came from the cache of recent appends.
    assert.ok(v(m, 'tributary_log_tail_cache_reads_total', { result: 'miss' }) >= 2, 'the first reads from the files')
    assert.ok(v(m, 'tributary_log_tail_cache_reads_total', { result: 'hit' }) >= 1, 'reads at the tail answered from memory')
    assert.ok(v(m, 'tributary_log_tail_cache_bytes') > tailValues.join('').length, 'the tail batches are in the cache')
    assert.equal(v(m, 'tributary_log_tail_cache_limit_bytes'), 64 * 1024 * 1024)

    // An error in a response is counted under its API and name.
    assert.equal(await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }] }), false)
    m = await scrape(url)
    assert.ok(v(m, 'kafka_network_requestmetrics_errors_total', { request: 'CreateTopics', error: 'TOPIC_ALREADY_EXISTS' }) >= 1)
  })

  it('counts connections, protocol closes and HTTP requests', async () => {
    const before = await scrape(url)
    const created = v(before, 'kafka_server_socketservermetrics_connection_creation_total')
    const closed = v(before, 'kafka_server_socketservermetrics_connection_close_total')
    // A frame size of -1: the broker closes the connection at once (invalid-frame-size).
    const [host, port] = broker.bootstrap.split(':')
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ host: host!, port: Number(port) }, () => socket.write(Buffer.from([0xff, 0xff, 0xff, 0xff])))
      socket.on('error', reject)
      socket.on('close', () => resolve())
      socket.resume()
    })
    const notFound = await fetch(`${broker.http}/no/such/metric`)
    assert.equal(notFound.status, 404)
    await notFound.text()
    const m = await waitFor(
      async () => {
        const s = await scrape(url)
        return v(s, 'kafka_server_socketservermetrics_connection_close_total') > closed ? s : undefined
      },
      'the close counted',
      10_000,
    )
    assert.equal(v(m, 'kafka_server_socketservermetrics_connection_creation_total'), created + 1)
    assert.equal(v(m, 'tributary_network_protocol_closes_total', { kind: 'invalid-frame-size' }), 1)
    assert.ok(v(m, 'tributary_http_requests_total', { method: 'GET', route: '/metrics', status: '200' }) >= 1)
    assert.equal(v(m, 'tributary_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1)
  })
})

/** Stand-in push routes, as the push module will serve them: SSE by a hijacked reply, WebSocket by the server's 'upgrade' event. */
const pushRoutes: HttpModule = (app) => {
  app.get('/stand-in/sse', (_req, reply) => {
    reply.hijack()
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    reply.raw.write(': open\n\n')
  })
  const wss = new WebSocketServer({ noServer: true })
  app.server.on('upgrade', (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (ws) => ws.send('open'))
  })
  app.addHook('onClose', () => new Promise<void>((resolve) => wss.close(() => resolve())))
}

/** Services of a broker with nothing in it: the scrape-time gauges read them. */
const emptyBroker = {
  nodeId: 1,
  controllerId: () => 1,
  topics: { list: () => [], get: () => undefined, partitionState: () => undefined },
  groups: { listGroups: () => ({ errorCode: 0, groups: [] }), fetchOffsets: () => ({ errorCode: 0, topics: [] }) },
  replicas: { get: () => undefined },
} as unknown as BrokerServices

describe('open push streams in /metrics', () => {
  it('counts SSE responses and WebSocket upgrades while they are open, whoever serves them', async () => {
    const deps: HttpDeps = {
      services: emptyBroker,
      config: defaultBrokerConfig(),
      logger: silentLogger,
      bootstrap: () => '',
      clientOptions: (clientId) => ({ bootstrap: [''], clientId }),
    }
    const server = await HttpServer.start(['http://127.0.0.1:0'], deps, [metricsModule, pushRoutes])
    const base = server.urls[0]!
    const streams = async () => {
      const m = await scrape(`${base}/metrics`)
      return {
        sse: v(m, 'tributary_http_open_streams', { kind: 'sse' }),
        websocket: v(m, 'tributary_http_open_streams', { kind: 'websocket' }),
      }
    }
    try {
      assert.deepEqual(await streams(), { sse: 0, websocket: 0 })
      const abort = new AbortController()
      const sse = await fetch(`${base}/stand-in/sse`, { signal: abort.signal })
      assert.equal(sse.headers.get('content-type'), 'text/event-stream')
      const reader = sse.body!.getReader()
      await reader.read()
      const ws = new WebSocket(`${base.replace('http:', 'ws:')}/stand-in/ws`)
      await new Promise((resolve, reject) => {
        ws.once('message', resolve)
        ws.once('error', reject)
      })
      assert.deepEqual(await streams(), { sse: 1, websocket: 1 })
      abort.abort()
      await reader.cancel().catch(() => {})
      ws.close()
      await waitFor(async () => JSON.stringify(await streams()) === JSON.stringify({ sse: 0, websocket: 0 }), 'both streams closed', 10_000)
      const m = await scrape(`${base}/metrics`)
      assert.equal(v(m, 'tributary_http_requests_total', { method: 'GET', route: '/stand-in/sse', status: '200' }), 1)
    } finally {
      await server.close()
    }
  })
})
