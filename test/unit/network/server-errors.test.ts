// Failures through a real socket: dispatcher errors close only their own connection after the
// responses owed before them; resets and hang-ups never crash the server and abort `closed`.
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import type { NetworkServer } from '../../../src/network/server.js'
import { CloseConnection, type ConnectionInfo, type ResponseChunks } from '../../../src/network/types.js'
import { deferred, req, sleep, startServer, TestClient, waitFor } from './helpers.js'

describe('NetworkServer failures', () => {
  let server: NetworkServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('on a synchronous throw, writes the earlier responses, dispatches nothing more and closes', async () => {
    const calls: number[] = []
    let port: number
    ;({ server, port } = await startServer({
      dispatch: (f) => {
        const id = f.readInt32BE(0)
        calls.push(id)
        if (id === 3) throw new Error('boom')
        return id === 2 ? sleep(30).then(() => [req(id)]) : [req(id)]
      },
    }))
    const client = await TestClient.connect(port)
    client.send(req(1), req(2), req(3), req(4))
    await client.closed
    assert.deepEqual(client.ids(), [1, 2])
    assert.deepEqual(calls, [1, 2, 3])
  })

  it('on a rejection, writes the earlier responses, drops the later ones and closes; other connections go on', async () => {
    const first = deferred<ResponseChunks>()
    let port: number
    ;({ server, port } = await startServer({
      dispatch: (f) => {
        const id = f.readInt32BE(0)
        if (id === 1) return first.promise
        if (id === 2) return Promise.reject(new CloseConnection('unsupported version'))
        return [req(id)]
      },
    }))
    const other = await TestClient.connect(port)
    const client = await TestClient.connect(port)
    client.send(req(1), req(2), req(3))
    await sleep(30)
    assert.equal(client.isClosed, false, 'request 1 is still owed')
    first.resolve([req(1)])
    await client.closed
    assert.deepEqual(client.ids(), [1])

    other.send(req(7))
    await other.waitForResponses(1)
    assert.deepEqual(other.ids(), [7])
    assert.equal(server!.connectionCount, 1)
    other.close()
  })

  it('closes on a throw or rejection of a non-Error value too', async () => {
    let port: number
    ;({ server, port } = await startServer({
      dispatch: (f) => {
        if (f.readInt32BE(0) === 0) throw undefined
        return Promise.reject(undefined)
      },
    }))
    for (const id of [0, 1]) {
      const client = await TestClient.connect(port)
      client.send(req(id))
      await client.closed
      assert.equal(client.responses.length, 0)
    }
  })

  it('closes (without crashing) when a dispatcher returns something other than Buffer[] or null', async () => {
    const bad = [undefined, Promise.resolve(undefined), { length: 1 }] as unknown as ResponseChunks[]
    let port: number
    ;({ server, port } = await startServer({ dispatch: (f) => bad[f.readInt32BE(0)]! }))
    for (let i = 0; i < bad.length; i++) {
      const client = await TestClient.connect(port)
      client.send(req(i))
      await client.closed
      assert.equal(client.responses.length, 0)
    }
  })

  it('survives a client reset with requests in flight, and aborts `closed`', async () => {
    const pending = deferred<ResponseChunks>()
    let info: ConnectionInfo | undefined
    let port: number
    ;({ server, port } = await startServer({
      dispatch: (f, conn) => {
        info = conn
        return f.readInt32BE(0) === 1 ? pending.promise : [Buffer.alloc(1024 * 1024)]
      },
    }))
    const client = await TestClient.connect(port)
    client.send(req(1), req(2))
    await waitFor(() => info !== undefined)
    assert.equal(info!.closed.aborted, false)
    client.socket.resetAndDestroy() // RST: the server sees ECONNRESET
    await new Promise((resolve) => info!.closed.addEventListener('abort', resolve))
    await waitFor(() => server!.connectionCount === 0)
    pending.resolve([req(1)]) // answering a closed connection is ignored
    await sleep(10)

    const next = await TestClient.connect(port)
    next.send(req(2))
    await next.waitForResponses(1)
    next.close()
  })

  it('describes the connection to the dispatcher and aborts `closed` when the client hangs up', async () => {
    const infos: ConnectionInfo[] = []
    let port: number
    ;({ server, port } = await startServer({
      dispatch: (_f, conn) => {
        infos.push(conn)
        return [req(0)]
      },
    }))
    const a = await TestClient.connect(port)
    const b = await TestClient.connect(port)
    a.send(req(0))
    await a.waitForResponses(1)
    b.send(req(0))
    await b.waitForResponses(1)
    const [ia, ib] = infos
    assert.equal(ia!.remoteAddress, '127.0.0.1')
    assert.equal(ia!.remotePort, a.socket.localPort)
    assert.equal(ia!.listenerName, 'PLAINTEXT')
    assert.notEqual(ia!.id, ib!.id)
    a.close()
    await new Promise((resolve) => ia!.closed.addEventListener('abort', resolve))
    assert.equal(ib!.closed.aborted, false)
    b.close()
    await waitFor(() => ib!.closed.aborted)
  })

  it('answers everything sent before the client half-closes, then closes', async () => {
    let port: number
    ;({ server, port } = await startServer({ dispatch: (f) => sleep(5).then(() => [Buffer.from(f)]) }, { maxInFlightPerConnection: 2 }))
    const client = await TestClient.connect(port)
    client.send(...Array.from({ length: 6 }, (_, i) => req(i)))
    client.socket.write(Buffer.from([0, 0, 0, 9, 1])) // a partial frame, dropped
    client.socket.end()
    await client.closed
    assert.deepEqual(client.ids(), [0, 1, 2, 3, 4, 5])
    await waitFor(() => server!.connectionCount === 0)
  })

  it('drops a frame cut short by the client closing, without dispatching it', async () => {
    let calls = 0
    let port: number
    ;({ server, port } = await startServer({
      dispatch: () => {
        calls++
        return null
      },
    }))
    const client = await TestClient.connect(port)
    client.socket.write(Buffer.from([0, 0, 0, 100, 1, 2, 3]))
    await sleep(10)
    client.close()
    await waitFor(() => server!.connectionCount === 0)
    assert.equal(calls, 0)
  })
})
