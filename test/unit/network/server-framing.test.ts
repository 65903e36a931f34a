// Framing through a real socket: arbitrary TCP chunking, and the size limits Kafka enforces.
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import type { NetworkServer } from '../../../src/network/server.js'
import type { Dispatcher } from '../../../src/network/types.js'
import { frame, req, sleep, startServer, TestClient, waitFor, watchAllocations } from './helpers.js'

const echo: Dispatcher = { dispatch: (f) => [Buffer.from(f)] }

describe('NetworkServer framing', () => {
  let server: NetworkServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('reassembles frames split over many TCP segments', async () => {
    let port: number
    ;({ server, port } = await startServer(echo))
    const client = await TestClient.connect(port)
    client.socket.setNoDelay(true)
    const payloads = Array.from({ length: 10 }, (_, i) => req(i, i * 37))
    const stream = Buffer.concat(payloads.map(frame))
    // Pieces of 1..7 bytes, pausing now and then so they arrive as separate 'data' events.
    for (let at = 0, n = 0; at < stream.length; n++) {
      const len = 1 + (n % 7)
      client.socket.write(stream.subarray(at, at + len))
      at += len
      if (n % 5 === 0) await sleep(1)
    }
    await client.waitForResponses(10)
    assert.deepEqual(client.responses, payloads)
    client.close()
  })

  it('dispatches many frames that arrive in one chunk', async () => {
    let port: number
    ;({ server, port } = await startServer(echo))
    const client = await TestClient.connect(port)
    const payloads = Array.from({ length: 500 }, (_, i) => req(i, i % 10))
    client.send(...payloads)
    await client.waitForResponses(500)
    assert.deepEqual(client.responses, payloads)
    client.close()
  })

  it('does not allocate a declared 100 MB frame while only 10 bytes of it have arrived', async () => {
    let calls = 0
    let port: number
    ;({ server, port } = await startServer(
      {
        dispatch: () => {
          calls++
          return null
        },
      },
      { maxRequestBytes: 104_857_600 },
    ))
    const client = await TestClient.connect(port)
    const heapBefore = process.memoryUsage().arrayBuffers
    const allocations = watchAllocations()
    try {
      const head = Buffer.alloc(14, 1)
      head.writeInt32BE(100_000_000, 0)
      client.socket.write(head)
      await sleep(100)
    } finally {
      allocations.stop()
    }
    assert.ok(allocations.largest() < 1024 * 1024, `largest allocation ${allocations.largest()}`)
    assert.ok(process.memoryUsage().arrayBuffers - heapBefore < 50_000_000)
    assert.equal(calls, 0)
    assert.equal(client.isClosed, false, 'a legal size waits for the rest of the frame')
    assert.equal(server!.connectionCount, 1)
    client.close()
    await waitFor(() => server!.connectionCount === 0)
  })

  for (const [label, size] of [
    ['negative', -5],
    ['zero', 0],
    ['larger than maxRequestBytes', 1024 * 1024 + 1],
  ] as const) {
    it(`closes the connection on a ${label} frame size, and keeps serving others`, async () => {
      let calls = 0
      let port: number
      ;({ server, port } = await startServer({
        dispatch: (f) => {
          calls++
          return [Buffer.from(f)]
        },
      }))
      const bad = await TestClient.connect(port)
      const prefix = Buffer.alloc(4)
      prefix.writeInt32BE(size, 0)
      bad.socket.write(prefix)
      await bad.closed
      assert.equal(calls, 0)
      await waitFor(() => server!.connectionCount === 0)

      const good = await TestClient.connect(port)
      good.send(req(42))
      await good.waitForResponses(1)
      assert.deepEqual(good.ids(), [42])
      good.close()
    })
  }
})
