// The network layer's two quota hooks through a real socket: a response with muteMs stops the
// connection's requests from being read until that time has passed on the server's clock
// (KIP-219) — a silent one writes nothing and mutes all the same — and an accepted socket the admit hook refuses is closed at once and logged as a
// 'connection-rate' close; and a throttled acceptor (KIP-612) takes connections one at a time after
// each wait, their requests unread until then, closing only those past the accept queue's bound;
// at its connection limit (max.connections) the acceptor waits for a close or a raised limit, and
// an address at its max.connections.per.ip has its next connection closed, as a connection-limit close.
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { NetworkServer } from '../../../src/network/server.js'
import type { ResponseChunks } from '../../../src/network/types.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { req, sleep, startServer, TEST_CONFIG, TestClient, waitFor } from './helpers.js'

describe('NetworkServer quota hooks', () => {
  let server: NetworkServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('a response with muteMs: answered at once, then no request is read until the mute ends', async () => {
    const clock = new ManualClock()
    const calls: number[] = []
    let port: number
    ;({ server, port } = await startServer(
      {
        dispatch: (f) => {
          const id = f.readInt32BE(0)
          calls.push(id)
          const chunks: NonNullable<ResponseChunks> = [req(id)]
          if (id === 1) chunks.muteMs = 1000
          return chunks
        },
      },
      {},
      clock,
    ))
    const client = await TestClient.connect(port)
    client.send(req(1))
    await client.waitForResponses(1)
    client.send(req(2), req(3))
    await sleep(50)
    assert.deepEqual(calls, [1], 'muted: requests 2 and 3 wait unread')
    clock.advance(999)
    await sleep(20)
    assert.deepEqual(calls, [1])
    clock.advance(1)
    await client.waitForResponses(3)
    assert.deepEqual(calls, [1, 2, 3])
    assert.deepEqual(client.ids(), [1, 2, 3])
    client.close()
  })

  it('a silent response writes nothing but mutes (a throttled Produce with acks=0)', async () => {
    const clock = new ManualClock()
    const calls: number[] = []
    let port: number
    ;({ server, port } = await startServer(
      {
        dispatch: (f) => {
          const id = f.readInt32BE(0)
          calls.push(id)
          return id === 1 ? Object.assign([] as Buffer[], { muteMs: 500, silent: true }) : [req(id)]
        },
      },
      {},
      clock,
    ))
    const client = await TestClient.connect(port)
    client.send(req(1), req(2))
    await waitFor(() => calls.length === 1)
    await sleep(50)
    assert.deepEqual(calls, [1], 'muted after the silent request')
    clock.advance(500)
    await client.waitForResponses(1)
    assert.deepEqual(client.ids(), [2], 'nothing was written for request 1')
    client.close()
  })

  it('a socket the admit hook refuses is closed at accept and logged as a connection-rate close', async () => {
    let asked = 0
    server = new NetworkServer({
      listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 0 }],
      config: TEST_CONFIG,
      dispatcher: { dispatch: (f) => [req(f.readInt32BE(0))] },
      clock: new ManualClock(),
      logger: silentLogger,
      admit: (ip) => {
        assert.match(ip, /127\.0\.0\.1/)
        return ++asked === 1 ? 0 : 500
      },
    })
    await server.start()
    const port = server.boundPorts().get('PLAINTEXT')!
    const accepted = await TestClient.connect(port)
    const refused = await TestClient.connect(port)
    await refused.closed
    accepted.send(req(7))
    await accepted.waitForResponses(1)
    assert.deepEqual(accepted.ids(), [7])
    await waitFor(() => server!.protocolCloses.snapshot()['connection-rate'] === 1)
    assert.equal(server.connectionCount, 1)
    accepted.close()
  })

  it('a throttled acceptor makes connections wait, in turn; past the queue bound they are closed', async () => {
    const clock = new ManualClock()
    const calls: number[] = []
    let delays = 0
    server = new NetworkServer({
      listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 0 }],
      config: TEST_CONFIG,
      dispatcher: {
        dispatch: (f) => {
          calls.push(f.readInt32BE(0))
          return [req(f.readInt32BE(0))]
        },
      },
      clock,
      logger: silentLogger,
      // Every connection but the first throttles the acceptor for 1000 ms.
      acceptThrottle: { applies: () => true, delayMs: () => (delays++ === 0 ? 0 : 1000) },
      listenBacklog: 2,
    })
    await server.start()
    const port = server.boundPorts().get('PLAINTEXT')!
    const first = await TestClient.connect(port)
    const waiting = [await TestClient.connect(port), await TestClient.connect(port)]
    await waitFor(() => delays === 2)
    const overflow = await TestClient.connect(port)
    await overflow.closed
    await waitFor(() => server!.protocolCloses.snapshot()['connection-rate'] === 1)
    waiting[0]!.send(req(2))
    waiting[1]!.send(req(3))
    first.send(req(1))
    await first.waitForResponses(1)
    await sleep(50)
    assert.deepEqual(calls, [1], 'the waiting connections are not read')
    assert.equal(server.connectionCount, 1)
    clock.advance(1000)
    await waiting[0]!.waitForResponses(1)
    assert.deepEqual(calls, [1, 2])
    assert.equal(server.connectionCount, 2, 'the next one waits its own turn')
    clock.advance(1000)
    await waiting[1]!.waitForResponses(1)
    assert.deepEqual(calls, [1, 2, 3])
    for (const c of [first, ...waiting]) c.close()
  })

  it('at its connection limit the acceptor waits for a close or a raised limit; open connections are kept', async () => {
    const calls: number[] = []
    let max = 1
    server = new NetworkServer({
      listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 0 }],
      config: TEST_CONFIG,
      dispatcher: {
        dispatch: (f) => {
          calls.push(f.readInt32BE(0))
          return [req(f.readInt32BE(0))]
        },
      },
      clock: new ManualClock(),
      logger: silentLogger,
      connectionLimits: { slotAvailable: (_l, live) => live.listener < max, maxConnectionsPerIp: () => Number.POSITIVE_INFINITY },
    })
    await server.start()
    const port = server.boundPorts().get('PLAINTEXT')!
    const first = await TestClient.connect(port)
    const second = await TestClient.connect(port)
    const third = await TestClient.connect(port)
    second.send(req(2))
    third.send(req(3))
    first.send(req(1))
    await first.waitForResponses(1)
    await sleep(50)
    assert.deepEqual(calls, [1], 'the others wait unread')
    first.close()
    await second.waitForResponses(1)
    await sleep(50)
    assert.deepEqual(calls, [1, 2], 'one slot freed, one connection taken')
    max = 0
    second.close()
    await sleep(50)
    assert.deepEqual(calls, [1, 2], 'a lowered limit keeps the next one waiting')
    max = 5
    server.quotasChanged()
    await third.waitForResponses(1)
    assert.deepEqual(calls, [1, 2, 3])
    assert.equal(server.protocolCloses.total, 0, 'nothing was closed')
    third.close()
  })

  it('an address at its max.connections.per.ip has its next connection closed, as a connection-limit close', async () => {
    let perIp = 2
    server = new NetworkServer({
      listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 0 }],
      config: TEST_CONFIG,
      dispatcher: { dispatch: (f) => [req(f.readInt32BE(0))] },
      clock: new ManualClock(),
      logger: silentLogger,
      connectionLimits: {
        slotAvailable: () => true,
        maxConnectionsPerIp: (address) => {
          assert.equal(address, '127.0.0.1')
          return perIp
        },
      },
    })
    await server.start()
    const port = server.boundPorts().get('PLAINTEXT')!
    const kept = [await TestClient.connect(port), await TestClient.connect(port)]
    await waitFor(() => server!.connectionCount === 2)
    const refused = await TestClient.connect(port)
    await refused.closed
    assert.equal(server.protocolCloses.snapshot()['connection-limit'], 1)
    perIp = 1
    kept[0]!.send(req(1))
    await kept[0]!.waitForResponses(1)
    assert.equal(server.connectionCount, 2, 'a lowered maximum closes no open connection')
    kept[0]!.close()
    kept[1]!.close()
    await waitFor(() => server!.connectionCount === 0)
    const again = await TestClient.connect(port)
    again.send(req(9))
    await again.waitForResponses(1)
    assert.deepEqual(again.ids(), [9], 'closed connections no longer count')
    again.close()
  })
})
