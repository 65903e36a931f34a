// The dispatcher's answers to bad input and its header choices, without sockets.
import { testConn } from '../../helpers/local-broker.js'
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { RequestDispatcher } from '../../../src/handlers/dispatcher.js'
import { createRegistry } from '../../../src/handlers/index.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import type { MeasuredQuota, QuotaService } from '../../../src/ports/quotas.js'
import { CloseConnection, type ConnectionInfo } from '../../../src/network/types.js'
import { encodeRequestHeader } from '../../../src/protocol/header.js'
import { ApiVersionsRequest, ApiVersionsResponse } from '../../../src/protocol/messages/18-api-versions.js'
import { MetadataRequest, MetadataResponse } from '../../../src/protocol/messages/03-metadata.js'
import { Reader } from '../../../src/protocol/primitives/reader.js'
import { Writer } from '../../../src/protocol/primitives/writer.js'
import { silentLogger } from '../../../src/util/logger.js'
import { systemClock } from '../../../src/util/clock.js'

const conn: ConnectionInfo = testConn()

const services = {
  nodeId: 0,
  clusterId: 'c',
  clock: systemClock,
  logger: silentLogger,
  brokers: () => [{ nodeId: 0, host: '127.0.0.1', port: 9092, rack: null }],
  controllerId: () => 0,
  topics: { list: () => [], get: () => undefined, getById: () => undefined },
  quotas: fixedQuotas(() => 0),
} as unknown as BrokerServices

/** A quota service whose every record earns throttle(type) ms; it remembers what was recorded. */
function fixedQuotas(throttle: (type: MeasuredQuota) => number, recorded: Array<[MeasuredQuota, string, number]> = []): QuotaService {
  return {
    describe: () => [],
    alter: async () => [],
    record: (type, _p, clientId, value) => {
      recorded.push([type, clientId, value])
      return throttle(type)
    },
    unrecord: () => {},
    fetchBytesCap: () => Infinity,
    mutationQuota: () => ({ admit: () => true, record: () => {}, throttleMs: () => 0 }),
  }
}

function frame(apiKey: number, apiVersion: number, body: Buffer, flexible: boolean): Buffer {
  const w = new Writer()
  encodeRequestHeader(w, { apiKey, apiVersion, correlationId: 42, clientId: 'test' }, flexible)
  w.bytes(body)
  return w.toBuffer()
}

const dispatcher = new RequestDispatcher(createRegistry(), services)

async function answer(f: Buffer): Promise<Buffer> {
  const chunks = await dispatcher.dispatch(f, conn)
  assert.ok(chunks)
  return Buffer.concat(chunks)
}

test('an unknown API key closes the connection', () => {
  assert.throws(() => dispatcher.dispatch(frame(9999, 0, Buffer.alloc(0), false), conn), CloseConnection)
})

test('an unsupported version of a known API closes the connection', () => {
  assert.throws(() => dispatcher.dispatch(frame(3, 99, Buffer.alloc(0), false), conn), CloseConnection)
})

test('a body that does not parse closes the connection', () => {
  // Metadata v1: topics array claims 1000 entries with no bytes behind it.
  assert.throws(() => dispatcher.dispatch(frame(3, 1, Buffer.from([0, 0, 0x03, 0xe8]), false), conn), CloseConnection)
})

test('bytes left after a body are ignored, as Kafka ignores them', async () => {
  const body = Buffer.concat([MetadataRequest.encode(1, { topics: null }), Buffer.from([1, 2, 3])])
  const out = await answer(frame(3, 1, body, false))
  assert.equal(out.readInt32BE(0), 42)
})

test("librdkafka 2.12+'s all-topics Metadata v12 request (3 bytes after the body) is answered", async () => {
  // Captured from confluent-kafka 2.16.1 (librdkafka 2.16.0) listing topics: header v2 (key 3, v12,
  // correlation id 3, client id "rdkafka", no tags), then topics = null (compact 0), three bytes of
  // the client's 4-byte array-count placeholder, allow_auto_topic_creation, the authorized-operations
  // flag and the tag count. Kafka reads the first four body bytes and ignores the rest.
  const captured = Buffer.from('0003000c00000003000772646b61666b610000000000010000', 'hex')
  const out = await answer(captured)
  const r = new Reader(out)
  assert.equal(r.int32(), 3)
  r.uvarint() // response header v1 tags
  const res = MetadataResponse.codec(12).decode(r)
  assert.equal(res.brokers.length, 1)
  assert.deepEqual(res.topics, [])
})

test('a failure inside a handler closes with the request it was answering', async () => {
  const failing = new RequestDispatcher(createRegistry(), {
    ...services,
    topics: {
      list: () => {
        throw new Error('store down')
      },
    },
  } as unknown as BrokerServices)
  await assert.rejects(
    async () => failing.dispatch(frame(3, 1, MetadataRequest.encode(1, { topics: null }), false), conn),
    (err: unknown) => {
      assert.ok(err instanceof CloseConnection)
      assert.equal(err.kind, 'request-failed')
      assert.deepEqual(err.request, { apiKey: 3, apiVersion: 1, apiName: 'Metadata', correlationId: 42, clientId: 'test' })
      assert.match(err.message, /Metadata v1 failed: store down/)
      return true
    },
  )
})

test('closes name their kind and request: unknown key, unsupported version, malformed body', () => {
  const kinds: Array<[Buffer, string]> = [
    [frame(9999, 0, Buffer.alloc(0), false), 'unknown-api'],
    [frame(3, 99, Buffer.alloc(0), false), 'unsupported-version'],
    [frame(3, 1, Buffer.from([0, 0, 0x03, 0xe8]), false), 'malformed-request'],
    [Buffer.from([0, 3, 0, 1, 0, 0, 0, 9, 0x7f]), 'malformed-header'],
  ]
  for (const [f, kind] of kinds) {
    assert.throws(
      () => dispatcher.dispatch(f, conn),
      (err: unknown) => err instanceof CloseConnection && err.kind === kind && err.request?.apiVersion !== undefined,
      kind,
    )
  }
})

test('ApiVersions of an unknown version is answered in v0 form with UNSUPPORTED_VERSION (KIP-511)', async () => {
  const out = await answer(frame(18, 99, Buffer.from([0xde, 0xad]), true))
  const r = new Reader(out)
  assert.equal(r.int32(), 42) // response header v0: correlation id only
  const body = ApiVersionsResponse.codec(0).decode(r)
  assert.equal(body.errorCode, 35)
  assert.deepEqual(body.apiKeys, [{ apiKey: 18, minVersion: 0, maxVersion: 5 }])
})

test('ApiVersions v3 uses response header v0 despite its flexible body', async () => {
  const out = await answer(frame(18, 3, ApiVersionsRequest.encode(3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' }), true))
  const r = new Reader(out)
  assert.equal(r.int32(), 42)
  const body = ApiVersionsResponse.codec(3).decode(r) // no header tag byte before the body
  assert.equal(body.errorCode, 0)
  assert.equal(r.remaining, 0)
  const produce = body.apiKeys.find((a) => a.apiKey === 0)
  assert.deepEqual(produce, { apiKey: 0, minVersion: 0, maxVersion: 13 }) // KAFKA-18659: advertised from 0
})

test('a flexible response (Metadata v9) carries response header v1 with its tag section', async () => {
  const out = await answer(frame(3, 9, MetadataRequest.encode(9, { topics: [] }), true))
  assert.equal(out.readInt32BE(0), 42)
  assert.equal(out[4], 0) // header tagged fields: none
})

test('Produce v0-2 is advertised but refused: the connection closes', () => {
  assert.throws(() => dispatcher.dispatch(frame(0, 2, Buffer.alloc(0), false), conn), CloseConnection)
})

test('a throttled request: throttle_time_ms set in the response, the connection muted as long (KIP-219)', async () => {
  const recorded: Array<[MeasuredQuota, string, number]> = []
  const throttled = new RequestDispatcher(createRegistry(), {
    ...services,
    quotas: fixedQuotas((type) => (type === 'request' ? 250 : 0), recorded),
  } as unknown as BrokerServices)
  const chunks = await throttled.dispatch(frame(3, 1, MetadataRequest.encode(1, { topics: null }), false), conn)
  assert.ok(chunks)
  assert.equal(chunks.muteMs, 250)
  const r = new Reader(Buffer.concat(chunks))
  assert.equal(r.int32(), 42)
  assert.equal(MetadataResponse.codec(1).decode(r).throttleTimeMs, 0, 'Metadata v1 has no throttle field: unchanged')
  const v3 = await throttled.dispatch(frame(3, 3, MetadataRequest.encode(3, { topics: null }), false), conn)
  assert.ok(v3)
  assert.equal(v3.muteMs, 250)
  const r3 = new Reader(Buffer.concat(v3))
  r3.int32()
  assert.equal(MetadataResponse.codec(3).decode(r3).throttleTimeMs, 250)
  assert.deepEqual(
    recorded.map(([type, clientId]) => [type, clientId]),
    [
      ['request', 'test'],
      ['request', 'test'],
    ],
  )
})

test('a request within its quotas is answered as is, not muted', async () => {
  const chunks = await dispatcher.dispatch(frame(3, 3, MetadataRequest.encode(3, { topics: null }), false), conn)
  assert.ok(chunks)
  assert.equal(chunks.muteMs, undefined)
})
