// Lifecycle through a real socket: listeners and ports, idle connections on the Clock, graceful
// close(), socket options and how a response is handed to the socket.
import assert from 'node:assert/strict'
import { Socket } from 'node:net'
import { afterEach, describe, it } from 'node:test'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { NetworkServer } from '../../../src/network/server.js'
import type { ConnectionInfo, Dispatcher, ResponseChunks } from '../../../src/network/types.js'
import { deferred, req, sleep, startServer, TEST_CONFIG, TestClient, waitFor } from './helpers.js'

const echo: Dispatcher = { dispatch: (f) => [Buffer.from(f)] }

describe('NetworkServer lifecycle', () => {
  const servers: NetworkServer[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()))
  })
  async function start(...args: Parameters<typeof startServer>) {
    const started = await startServer(...args)
    servers.push(started.server)
    return started
  }

  it('binds every listener on its own port and tells the dispatcher which one a request came on', async () => {
    const seen: string[] = []
    const server = new NetworkServer({
      listeners: [
        { name: 'PLAINTEXT', host: '127.0.0.1', port: 0 },
        { name: 'INTERNAL', host: '127.0.0.1', port: 0 },
      ],
      config: TEST_CONFIG,
      dispatcher: {
        dispatch: (_f, conn) => {
          seen.push(conn.listenerName)
          return [req(0)]
        },
      },
      clock: new ManualClock(),
      logger: silentLogger,
    })
    servers.push(server)
    await server.start()
    const ports = server.boundPorts()
    assert.deepEqual([...ports.keys()], ['PLAINTEXT', 'INTERNAL'])
    assert.notEqual(ports.get('PLAINTEXT'), ports.get('INTERNAL'))
    for (const name of ['INTERNAL', 'PLAINTEXT']) {
      const client = await TestClient.connect(ports.get(name)!)
      client.send(req(0))
      await client.waitForResponses(1)
      client.close()
    }
    assert.deepEqual(seen, ['INTERNAL', 'PLAINTEXT'])
  })

  it('fails start() naming the listener whose port is taken, and unbinds the others', async () => {
    const { port } = await start(echo)
    const server = new NetworkServer({
      listeners: [
        { name: 'FREE', host: '127.0.0.1', port: 0 },
        { name: 'CLASH', host: '127.0.0.1', port },
      ],
      config: TEST_CONFIG,
      dispatcher: echo,
      clock: new ManualClock(),
      logger: silentLogger,
    })
    await assert.rejects(server.start(), /listener CLASH on 127\.0\.0\.1:\d+: EADDRINUSE/)
    assert.equal(server.boundPorts().size, 0)
  })

  it('refuses invalid configuration up front', () => {
    const make = (over: object, listeners = [{ name: 'A', host: '127.0.0.1', port: 0 }]) =>
      new NetworkServer({
        listeners,
        config: { ...TEST_CONFIG, ...over },
        dispatcher: echo,
        clock: new ManualClock(),
        logger: silentLogger,
      })
    assert.throws(() => make({ maxInFlightPerConnection: 0 }), /maxInFlightPerConnection/)
    assert.throws(() => make({ maxRequestBytes: 2 ** 31 }), /maxRequestBytes/)
    assert.throws(() => make({}, []), /at least one listener/)
    assert.throws(
      () =>
        make({}, [
          { name: 'A', host: '127.0.0.1', port: 0 },
          { name: 'A', host: '127.0.0.1', port: 0 },
        ]),
      /used twice/,
    )
    assert.throws(() => make({}, [{ name: 'A', host: '127.0.0.1', port: 70000 }]), /port/)
  })

  it('closes a connection idle for connectionsMaxIdleMs, counting from its last activity', async () => {
    const clock = new ManualClock()
    const { server, port } = await start(echo, { connectionsMaxIdleMs: 1_000 }, clock)
    const client = await TestClient.connect(port)
    await waitFor(() => server.connectionCount === 1)
    clock.advance(600)
    client.send(req(1))
    await client.waitForResponses(1)
    clock.advance(999) // 999 ms since the request
    await sleep(20)
    assert.equal(client.isClosed, false)
    clock.advance(1)
    await client.closed
    await waitFor(() => server.connectionCount === 0)
  })

  it('never closes a connection as idle while a request is in flight', async () => {
    const clock = new ManualClock()
    const pending = deferred<ResponseChunks>()
    const { port } = await start({ dispatch: () => pending.promise }, { connectionsMaxIdleMs: 1_000 }, clock)
    const client = await TestClient.connect(port)
    client.send(req(1))
    await sleep(20)
    clock.advance(5_000)
    await sleep(20)
    assert.equal(client.isClosed, false)
    pending.resolve([req(1)])
    await client.waitForResponses(1)
    clock.advance(999)
    await sleep(20)
    assert.equal(client.isClosed, false)
    clock.advance(1_000)
    await client.closed
  })

  it('close() stops accepting, lets in-flight requests be answered, then closes every connection', async () => {
    const pending = deferred<ResponseChunks>()
    let dispatched = false
    const { server, port } = await start({
      dispatch: () => {
        dispatched = true
        return pending.promise
      },
    })
    const busy = await TestClient.connect(port)
    const idle = await TestClient.connect(port)
    busy.send(req(1))
    await waitFor(() => dispatched && server.connectionCount === 2)
    let closed = false
    const closing = server.close().then(() => (closed = true))
    assert.equal(server.close(), server.close(), 'idempotent')
    await idle.closed
    await assert.rejects(TestClient.connect(port), /ECONNREFUSED/)
    await sleep(20)
    assert.equal(closed, false, 'waits for the request in flight')
    pending.resolve([req(1)])
    await closing
    await busy.closed
    assert.deepEqual(busy.ids(), [1])
    assert.equal(server.connectionCount, 0)
  })

  it('close() destroys connections whose requests outlive closeGraceMs, aborting `closed`', async () => {
    const clock = new ManualClock()
    let info: ConnectionInfo | undefined
    const { server, port } = await start(
      {
        dispatch: (_f, conn) => {
          info = conn
          return new Promise<ResponseChunks>(() => {}) // never answers
        },
      },
      { closeGraceMs: 2_000 },
      clock,
    )
    const client = await TestClient.connect(port)
    client.send(req(1))
    await waitFor(() => info !== undefined)
    let closed = false
    const closing = server.close().then(() => (closed = true))
    clock.advance(1_999)
    await sleep(20)
    assert.equal(closed, false)
    clock.advance(1)
    await closing
    await client.closed
    assert.equal(info!.closed.aborted, true)
  })

  it('sets TCP_NODELAY and writes the size prefix and each chunk separately inside one cork', async () => {
    const calls: string[] = []
    const written: Buffer[] = []
    const proto = Socket.prototype
    const { setNoDelay, cork, uncork, write } = proto
    let serverSide: Socket | undefined
    const chunks = [Buffer.from('response-header'), Buffer.alloc(100, 1)]
    const { port } = await start({ dispatch: () => chunks })
    proto.setNoDelay = function (this: Socket, noDelay?: boolean) {
      if (noDelay === true) serverSide ??= this
      return setNoDelay.call(this, noDelay)
    }
    proto.cork = function (this: Socket) {
      if (this === serverSide) calls.push('cork')
      return cork.call(this)
    }
    proto.uncork = function (this: Socket) {
      if (this === serverSide) calls.push('uncork')
      return uncork.call(this)
    }
    proto.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
      if (this === serverSide) {
        calls.push('write')
        written.push(args[0] as Buffer)
      }
      return (write as (...a: unknown[]) => boolean).apply(this, args)
    } as Socket['write']
    try {
      const client = await TestClient.connect(port)
      await waitFor(() => serverSide !== undefined)
      assert.equal(serverSide!.remotePort, client.socket.localPort, 'setNoDelay(true) on the accepted socket')
      client.send(req(1))
      await client.waitForResponses(1)
      client.close()
    } finally {
      Object.assign(proto, { setNoDelay, cork, uncork, write })
    }
    assert.deepEqual(calls, ['cork', 'write', 'write', 'write', 'uncork'])
    assert.equal(written[0]!.readInt32BE(0), 115)
    assert.equal(written[1], chunks[0], 'chunks are written as given, not concatenated')
    assert.equal(written[2], chunks[1])
  })
})
