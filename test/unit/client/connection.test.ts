// Connection: framing, responses matched by correlation id (in any order), per-request timeouts,
// close, and the failures that end a connection — against scripted peers and a real broker.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Connection } from '../../../src/client/connection.js'
import { ClientError } from '../../../src/client/errors.js'
import { startBroker } from '../../../src/index.js'
import { ProduceRequest } from '../../../src/protocol/messages/00-produce.js'
import { ListOffsetsRequest, ListOffsetsResponse } from '../../../src/protocol/messages/02-list-offsets.js'
import { MetadataRequest, MetadataResponse } from '../../../src/protocol/messages/03-metadata.js'
import { ApiVersionsRequest, ApiVersionsResponse } from '../../../src/protocol/messages/18-api-versions.js'
import { CreateTopicsRequest, CreateTopicsResponse } from '../../../src/protocol/messages/19-create-topics.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { responseFrame, sleep, startFakeServer } from './fake-server.js'

/** An ApiVersions v0 response whose only entry carries `marker`, so a test can tell answers apart. */
function markedResponse(correlationId: number, marker: number): Buffer {
  return responseFrame(correlationId, (w) =>
    ApiVersionsResponse.codec(0).encode(w, { errorCode: 0, apiKeys: [{ apiKey: marker, minVersion: 0, maxVersion: 0 }] }),
  )
}

const apiVersionsV0 = (conn: Connection, timeoutMs?: number) =>
  conn.request(ApiVersionsRequest, ApiVersionsResponse, 0, {}, timeoutMs === undefined ? {} : { timeoutMs })

async function rejectsWith(p: Promise<unknown>, code: string): Promise<ClientError> {
  const err = await p.then(
    () => assert.fail(`expected ${code}`),
    (e: unknown) => e,
  )
  assert.ok(err instanceof ClientError, `expected a ClientError, got ${String(err)}`)
  assert.equal(err.code, code, err.message)
  return err
}

describe('client Connection', () => {
  it('matches responses to requests by correlation id, whatever order they arrive in', async () => {
    const server = await startFakeServer()
    const conn = await Connection.connect({ host: '127.0.0.1', port: server.port, clientId: 'test' })
    const calls = Array.from({ length: 5 }, () => apiVersionsV0(conn))
    assert.equal(conn.inFlight, 5)
    while (server.requests.length < 5) await sleep(5)
    const ids = server.requests.map((r) => r.correlationId)
    assert.equal(new Set(ids).size, 5, 'distinct correlation ids')
    // Answer last to first; request i gets marker 100 + i.
    for (let i = 4; i >= 0; i--) server.requests[i]!.socket.write(markedResponse(ids[i]!, 100 + i))
    const results = await Promise.all(calls)
    assert.deepEqual(
      results.map((r) => r.apiKeys[0]!.apiKey),
      [100, 101, 102, 103, 104],
    )
    assert.equal(conn.inFlight, 0)
    // The request header carried the client id (v1 header: int16 length + bytes after 8 bytes).
    const f = server.requests[0]!.frame
    assert.equal(f.toString('utf8', 10, 10 + f.readInt16BE(8)), 'test')
    conn.close()
    await server.close()
  })

  it('reassembles responses that arrive one byte at a time, and several in one chunk', async () => {
    const server = await startFakeServer()
    const conn = await Connection.connect({ host: '127.0.0.1', port: server.port })
    const first = apiVersionsV0(conn)
    while (server.requests.length < 1) await sleep(5)
    const bytes = markedResponse(server.requests[0]!.correlationId, 7)
    for (const b of bytes) {
      server.requests[0]!.socket.write(Buffer.from([b]))
      await sleep(0)
    }
    assert.equal((await first).apiKeys[0]!.apiKey, 7)
    const more = [apiVersionsV0(conn), apiVersionsV0(conn)]
    while (server.requests.length < 3) await sleep(5)
    server.requests[1]!.socket.write(
      Buffer.concat([markedResponse(server.requests[1]!.correlationId, 8), markedResponse(server.requests[2]!.correlationId, 9)]),
    )
    assert.deepEqual(
      (await Promise.all(more)).map((r) => r.apiKeys[0]!.apiKey),
      [8, 9],
    )
    conn.close()
    await server.close()
  })

  it('fails a request that is not answered in time with REQUEST_TIMED_OUT and closes the connection', async () => {
    const server = await startFakeServer()
    const conn = await Connection.connect({ host: '127.0.0.1', port: server.port, requestTimeoutMs: 100 })
    const closed = new Promise<ClientError>((resolve) => conn.onClose(resolve))
    const short = apiVersionsV0(conn)
    const long = apiVersionsV0(conn, 60_000)
    const t0 = performance.now()
    await rejectsWith(short, 'REQUEST_TIMED_OUT')
    assert.ok(performance.now() - t0 >= 90, 'not before its deadline')
    // The stream can no longer be trusted: the other request fails too, retriably.
    const other = await rejectsWith(long, 'NETWORK_EXCEPTION')
    assert.equal(other.retriable, true)
    assert.equal((await closed).code, 'NETWORK_EXCEPTION')
    assert.equal(conn.isOpen, false)
    await rejectsWith(apiVersionsV0(conn), 'NETWORK_EXCEPTION')
    await server.close()
  })

  it('close() fails the requests in flight with NETWORK_EXCEPTION', async () => {
    const server = await startFakeServer()
    const conn = await Connection.connect({ host: '127.0.0.1', port: server.port })
    const pending = [apiVersionsV0(conn), apiVersionsV0(conn)]
    conn.close()
    for (const p of pending) await rejectsWith(p, 'NETWORK_EXCEPTION')
    assert.equal(conn.inFlight, 0)
    await server.close()
  })

  it('fails in-flight requests when the broker drops the connection', async () => {
    const server = await startFakeServer((req) => req.socket.destroy())
    const conn = await Connection.connect({ host: '127.0.0.1', port: server.port })
    await rejectsWith(apiVersionsV0(conn), 'NETWORK_EXCEPTION')
    assert.equal(conn.isOpen, false)
    await server.close()
  })

  it('closes the connection on a response to no request (CORRUPT_MESSAGE)', async () => {
    const server = await startFakeServer((req) => req.socket.write(markedResponse(req.correlationId + 1000, 1)))
    const conn = await Connection.connect({ host: '127.0.0.1', port: server.port })
    await rejectsWith(apiVersionsV0(conn), 'CORRUPT_MESSAGE')
    assert.equal(conn.isOpen, false)
    await server.close()
  })

  it('fails one request whose response does not decode, and keeps the connection', async () => {
    let n = 0
    const server = await startFakeServer((req) => {
      // First answer: a truncated body; second: a good one.
      if (n++ === 0) req.socket.write(responseFrame(req.correlationId, (w) => w.int16(0).int32(5)))
      else req.socket.write(markedResponse(req.correlationId, 3))
    })
    const conn = await Connection.connect({ host: '127.0.0.1', port: server.port })
    await rejectsWith(apiVersionsV0(conn), 'CORRUPT_MESSAGE')
    assert.equal((await apiVersionsV0(conn)).apiKeys[0]!.apiKey, 3)
    conn.close()
    await server.close()
  })

  it('refuses to connect to a closed port with NETWORK_EXCEPTION', async () => {
    const server = await startFakeServer()
    const port = server.port
    await server.close()
    await rejectsWith(Connection.connect({ host: '127.0.0.1', port }), 'NETWORK_EXCEPTION')
  })

  describe('against a broker', () => {
    let broker: Awaited<ReturnType<typeof startBroker>>
    let conn: Connection
    before(async () => {
      broker = await startBroker({ port: 0 })
      conn = await Connection.connect({ host: broker.host, port: broker.port, clientId: 'conn-test' })
    })
    after(async () => {
      conn.close()
      await broker.close()
    })

    it('pipelines requests of several APIs and versions on one socket', async () => {
      const results = await Promise.all([
        conn.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' }),
        conn.request(MetadataRequest, MetadataResponse, 1, { topics: null }),
        conn.request(MetadataRequest, MetadataResponse, 12, { topics: null }),
        conn.request(ApiVersionsRequest, ApiVersionsResponse, 0, {}),
      ])
      assert.equal(results[0].errorCode, 0)
      assert.ok(results[0].apiKeys.some((k) => k.apiKey === 0))
      assert.equal(results[1].brokers[0]!.port, broker.port)
      assert.equal(results[2].brokers[0]!.port, broker.port)
      assert.equal(typeof results[2].clusterId, 'string')
      assert.equal(results[3].errorCode, 0)
    })

    it('sends a request that gets no response (Produce acks=0) and resolves once written', async () => {
      const created = await conn.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
        topics: [{ name: 'acks0', numPartitions: 1, replicationFactor: 1 }],
        timeoutMs: 5000,
      })
      assert.equal(created.topics[0]!.errorCode, 0)
      const records = buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }], baseTimestamp: Date.now() })
      await conn.sendOneWay({
        apiKey: ProduceRequest.apiKey,
        apiVersion: 9,
        flexibleHeader: true,
        encodeBody: (w) =>
          ProduceRequest.codec(9).encode(w, {
            acks: 0,
            timeoutMs: 5000,
            topicData: [{ name: 'acks0', partitionData: [{ index: 0, records }] }],
          }),
      })
      // The connection stays usable, and the record arrives.
      let offset = 0
      for (let i = 0; i < 100 && offset === 0; i++) {
        const res = await conn.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
          replicaId: -1,
          topics: [{ name: 'acks0', partitions: [{ partitionIndex: 0, timestamp: -1 }] }],
        })
        offset = res.topics[0]!.partitions[0]!.offset
        if (offset === 0) await sleep(10)
      }
      assert.equal(offset, 1)
      assert.equal(conn.isOpen, true)
    })
  })
})
