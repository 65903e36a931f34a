// KafkaClient against an in-process broker: version negotiation, requests routed by node id,
// metadata (brokers, controller, cluster id, partitions with leader/replicas/ISR; cached and
// refreshable), a connection per broker, the admin helpers, ClientError codes, and close().
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTopics, listOffsets, OffsetSpec } from '../../../src/client/admin.js'
import { KafkaClient, parseAddress } from '../../../src/client/client.js'
import { ClientError, errorName, throwIfError } from '../../../src/client/errors.js'
import { type RunningBroker, startBroker } from '../../../src/index.js'
import { ProduceRequest, ProduceResponse } from '../../../src/protocol/messages/00-produce.js'
import { MetadataRequest, MetadataResponse } from '../../../src/protocol/messages/03-metadata.js'
import { ApiVersionsRequest, ApiVersionsResponse } from '../../../src/protocol/messages/18-api-versions.js'
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../../../src/protocol/messages/20-delete-topics.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { f, message } from '../../../src/protocol/schema.js'
import { responseFrame, startFakeServer } from './fake-server.js'

async function rejectsWith(p: Promise<unknown>, code: string): Promise<ClientError> {
  const err = await p.then(
    () => assert.fail(`expected ${code}`),
    (e: unknown) => e,
  )
  assert.ok(err instanceof ClientError, `expected a ClientError, got ${String(err)}`)
  assert.equal(err.code, code, err.message)
  return err
}

describe('KafkaClient', () => {
  let broker: RunningBroker
  let client: KafkaClient
  before(async () => {
    broker = await startBroker({ port: 0, config: { 'num.partitions': 2 } })
    client = await KafkaClient.connect({ bootstrap: [broker.bootstrap], clientId: 'client-test' })
  })
  after(async () => {
    await client.close()
    await broker.close()
  })

  it('negotiates the highest version both sides support, per API', async () => {
    const conn = await client.connection(0)
    const ours = MetadataRequest.versions.max
    const theirs = conn.versions!.brokerRange(MetadataRequest.apiKey)!
    assert.equal(await client.version(MetadataRequest, MetadataResponse), Math.min(ours, theirs.max))
    // Produce is advertised from v0 but declared from v3: the intersection starts at 3.
    assert.equal(conn.versions!.pick(ProduceRequest, ProduceResponse, 3), 3)
    await rejectsWith(
      Promise.resolve().then(() => conn.versions!.pick(ProduceRequest, ProduceResponse, 2)),
      'UNSUPPORTED_VERSION',
    )
  })

  it('hands a body function the version chosen, and honours maxVersion', async () => {
    const seen: number[] = []
    const res = await client.request(
      MetadataRequest,
      MetadataResponse,
      (v) => {
        seen.push(v)
        return { topics: [] }
      },
      { maxVersion: 4 },
    )
    assert.deepEqual(seen, [4])
    assert.equal(res.brokers[0]!.port, broker.port)
  })

  it('refuses an API the broker does not serve with UNSUPPORTED_VERSION', async () => {
    const fakeReq = message({ apiKey: 57, name: 'UpdateFeatures', versions: '0-1', flexible: '0+', fields: { x: f.int8('0+') } })
    const fakeRes = message({ apiKey: 57, name: 'UpdateFeatures', versions: '0-1', flexible: '0+', fields: { y: f.int8('0+') } })
    await rejectsWith(client.request(fakeReq, fakeRes, { x: 1 }), 'UNSUPPORTED_VERSION')
  })

  it('describes the cluster and a topic: brokers, controller, cluster id, leaders, replicas, ISR', async () => {
    const [created] = await createTopics(client, [{ name: 'described', numPartitions: 3 }])
    assert.equal(created!.error, null)
    const md = await client.metadata(['described'])
    assert.equal(typeof md.clusterId, 'string')
    assert.ok(md.clusterId!.length > 0)
    assert.equal(md.controllerId, 0)
    assert.deepEqual([...md.brokers.values()], [{ nodeId: 0, host: '127.0.0.1', port: broker.port, rack: null }])
    const t = md.topics.get('described')!
    assert.equal(t.error, null)
    assert.equal(t.isInternal, false)
    assert.notEqual(t.topicId, 'AAAAAAAAAAAAAAAAAAAAAA')
    assert.deepEqual(
      t.partitions.map((p) => [p.partition, p.leader, p.replicas, p.isr, p.error]),
      [
        [0, 0, [0], [0], null],
        [1, 0, [0], [0], null],
        [2, 0, [0], [0], null],
      ],
    )
    assert.equal(client.leaderOf('described', 2), 0)
    assert.equal(client.leaderOf('described', 9), -1)
    const all = await client.metadata(null)
    assert.ok(all.topics.has('described'))
  })

  it('caches metadata until refreshed', async () => {
    await createTopics(client, [{ name: 'cached', numPartitions: 1 }])
    assert.ok((await client.metadata(['cached'])).topics.get('cached'))
    const del = await client.request(DeleteTopicsRequest, DeleteTopicsResponse, {
      topicNames: ['cached'],
      topics: [{ name: 'cached' }],
      timeoutMs: 5000,
    })
    assert.equal(del.responses[0]!.errorCode, 0)
    // Still served from the cache...
    assert.equal((await client.metadata(['cached'])).topics.get('cached')!.error, null)
    // ...until a refresh.
    const fresh = await client.metadata(['cached'], { refresh: true })
    assert.equal(fresh.topics.get('cached')!.error, 'UNKNOWN_TOPIC_OR_PARTITION')
  })

  it('reports unknown topics as such, and creates them only when asked', async () => {
    const md = await client.metadata(['missing-topic'])
    assert.equal(md.topics.get('missing-topic')!.error, 'UNKNOWN_TOPIC_OR_PARTITION')
    const created = await client.metadata(['auto-topic'], { autoCreate: true })
    assert.notEqual(created.topics.get('auto-topic')!.error, 'UNKNOWN_TOPIC_OR_PARTITION')
    const again = await client.metadata(['auto-topic'], { refresh: true })
    assert.equal(again.topics.get('auto-topic')!.partitions.length, 2)
  })

  it('keeps one connection per broker, reopens it after a close, and knows only listed nodes', async () => {
    const a = await client.connection(0)
    assert.equal(await client.connection(0), a)
    assert.equal(a.port, broker.port)
    a.close()
    const b = await client.connection(0)
    assert.notEqual(b, a)
    assert.equal(b.isOpen, true)
    // Requests without a node id still find an open connection.
    assert.equal((await client.request(MetadataRequest, MetadataResponse, { topics: [] })).brokers.length, 1)
    await rejectsWith(client.connection(7), 'BROKER_NOT_AVAILABLE')
  })

  it('creates topics, lists offsets, and reports errors by Kafka name', async () => {
    const [dup] = await createTopics(client, [{ name: 'described', numPartitions: 1 }])
    assert.equal(dup!.error, 'TOPIC_ALREADY_EXISTS')
    await createTopics(client, [{ name: 'offsets', numPartitions: 2 }])
    // Produce v13 names the topic by id (KIP-516): the name is kept for older versions.
    const { topicId } = (await client.metadata(['offsets'])).topics.get('offsets')!
    const records = buildRecordBatch({
      records: [1, 2, 3].map((i) => ({ key: null, value: Buffer.from(String(i)) })),
      baseTimestamp: Date.now(),
    })
    const res = await client.request(
      ProduceRequest,
      ProduceResponse,
      {
        acks: -1,
        timeoutMs: 5000,
        topicData: [
          {
            name: 'offsets',
            topicId,
            partitionData: [
              { index: 1, records },
              { index: 5, records },
            ],
          },
        ],
      },
      { nodeId: client.leaderOf('offsets', 1) },
    )
    const parts = res.responses[0]!.partitionResponses
    assert.equal(parts.find((p) => p.index === 1)!.errorCode, 0)
    const bad = parts.find((p) => p.index === 5)!
    assert.equal(errorName(bad.errorCode), 'UNKNOWN_TOPIC_OR_PARTITION')
    assert.throws(
      () => throwIfError(bad.errorCode, 'produce offsets-5'),
      (e: unknown) => e instanceof ClientError && e.code === 'UNKNOWN_TOPIC_OR_PARTITION' && e.errorCode === 3 && e.retriable,
    )
    assert.deepEqual([...(await listOffsets(client, 'offsets', null, OffsetSpec.Latest))].sort(), [
      [0, 0],
      [1, 3],
    ])
    assert.deepEqual([...(await listOffsets(client, 'offsets', [1], OffsetSpec.Earliest))], [[1, 0]])
    await rejectsWith(listOffsets(client, 'offsets', [9], OffsetSpec.Latest), 'UNKNOWN_TOPIC_OR_PARTITION')
  })

  it('tries the bootstrap servers in turn and says when none is reachable', async () => {
    const dead = await startFakeServer()
    const deadPort = dead.port
    await dead.close()
    const c = await KafkaClient.connect({ bootstrap: [`127.0.0.1:${deadPort}`, broker.bootstrap] })
    assert.equal((await c.metadata([])).brokers.size, 1)
    await c.close()
    const err = await rejectsWith(KafkaClient.connect({ bootstrap: [`127.0.0.1:${deadPort}`] }), 'NETWORK_EXCEPTION')
    assert.match(err.message, /no broker reachable/)
  })

  it('fails requests after close() with NETWORK_EXCEPTION', async () => {
    const c = await KafkaClient.connect({ bootstrap: [broker.bootstrap] })
    await c.close()
    await rejectsWith(c.metadata(null), 'NETWORK_EXCEPTION')
  })
})

describe('KafkaClient version negotiation (KIP-511)', () => {
  it('retries ApiVersions in the version a broker answering UNSUPPORTED_VERSION in v0 form lists', async () => {
    const server = await startFakeServer((req) => {
      if (req.apiKey !== ApiVersionsRequest.apiKey) return
      if (req.apiVersion > 2) {
        req.socket.write(
          responseFrame(req.correlationId, (w) =>
            ApiVersionsResponse.codec(0).encode(w, { errorCode: 35, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 2 }] }),
          ),
        )
      } else {
        req.socket.write(
          responseFrame(req.correlationId, (w) =>
            ApiVersionsResponse.codec(req.apiVersion).encode(w, {
              errorCode: 0,
              apiKeys: [
                { apiKey: 18, minVersion: 0, maxVersion: 2 },
                { apiKey: 3, minVersion: 0, maxVersion: 5 },
              ],
              throttleTimeMs: 0,
            }),
          ),
        )
      }
    })
    const c = await KafkaClient.connect({ bootstrap: [`127.0.0.1:${server.port}`] })
    assert.deepEqual(
      server.requests.map((r) => r.apiVersion),
      [ApiVersionsRequest.versions.max, 2],
    )
    assert.equal(await c.version(MetadataRequest, MetadataResponse), 5)
    await c.close()
    await server.close()
  })
})

describe('parseAddress', () => {
  it('reads host:port, [v6]:port and bare hosts', () => {
    assert.deepEqual(parseAddress('127.0.0.1:9093'), { host: '127.0.0.1', port: 9093 })
    assert.deepEqual(parseAddress(' broker-1 '), { host: 'broker-1', port: 9092 })
    assert.deepEqual(parseAddress('[::1]:19092'), { host: '::1', port: 19092 })
    assert.deepEqual(parseAddress('[::1]'), { host: '::1', port: 9092 })
    for (const bad of ['', 'h:0', 'h:70000', 'h:x', ':9092', '::1:9092']) {
      assert.throws(() => parseAddress(bad), ClientError, bad)
    }
  })
})
