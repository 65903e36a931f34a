// Pipelining through a real socket: concurrent dispatch in arrival order, responses in request
// order whatever order they finish in, null responses keeping their place, chunked responses.
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import type { NetworkServer } from '../../../src/network/server.js'
import type { ResponseChunks } from '../../../src/network/types.js'
import { deferred, req, sleep, startServer, TestClient, waitFor } from './helpers.js'

describe('NetworkServer pipelining', () => {
  let server: NetworkServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('dispatches pipelined requests concurrently, in arrival order, and answers in request order', async () => {
    const calls: number[] = []
    const pending = new Map<number, ReturnType<typeof deferred<ResponseChunks>>>()
    let port: number
    ;({ server, port } = await startServer({
      dispatch: (f) => {
        const id = f.readInt32BE(0)
        calls.push(id)
        const d = deferred<ResponseChunks>()
        pending.set(id, d)
        return d.promise
      },
    }))
    const client = await TestClient.connect(port)
    client.send(...Array.from({ length: 10 }, (_, i) => req(i)))
    await waitFor(() => calls.length === 10)
    assert.deepEqual(calls, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'all dispatched before any answered')

    // Finish them last-to-first: nothing may be written until request 0 is answered.
    for (let id = 9; id >= 1; id--) pending.get(id)!.resolve([req(id)])
    await sleep(30)
    assert.equal(client.responses.length, 0)
    pending.get(0)!.resolve([req(0)])
    await client.waitForResponses(10)
    assert.deepEqual(client.ids(), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    client.close()
  })

  it('keeps the place of a request answered with null (acks=0) until it settles', async () => {
    const pending = new Map<number, ReturnType<typeof deferred<ResponseChunks>>>()
    let port: number
    ;({ server, port } = await startServer({
      dispatch: (f) => {
        const d = deferred<ResponseChunks>()
        pending.set(f.readInt32BE(0), d)
        return d.promise
      },
    }))
    const client = await TestClient.connect(port)
    client.send(req(1), req(2), req(3))
    await waitFor(() => pending.size === 3)
    pending.get(1)!.resolve([req(1)])
    pending.get(3)!.resolve([req(3)])
    await client.waitForResponses(1)
    await sleep(30)
    assert.deepEqual(client.ids(), [1], 'response 3 waits for request 2')
    pending.get(2)!.resolve(null)
    await client.waitForResponses(2)
    await sleep(10)
    assert.deepEqual(client.ids(), [1, 3])
    client.close()
  })

  it('mixes synchronous and asynchronous answers in order', async () => {
    let port: number
    ;({ server, port } = await startServer({
      dispatch: (f) => {
        const id = f.readInt32BE(0)
        if (id % 3 === 0) return [req(id)]
        if (id % 3 === 1) return sleep(20 - id).then(() => [req(id)])
        return null
      },
    }))
    const client = await TestClient.connect(port)
    client.send(...Array.from({ length: 15 }, (_, i) => req(i)))
    await client.waitForResponses(10)
    await sleep(20)
    assert.deepEqual(client.ids(), [0, 1, 3, 4, 6, 7, 9, 10, 12, 13])
    client.close()
  })

  it('writes a response given as several chunks after one size prefix covering them all', async () => {
    let port: number
    ;({ server, port } = await startServer({
      dispatch: (f) => {
        const id = f.readInt32BE(0)
        if (id === 1) return [req(1), Buffer.from('-header-'), Buffer.alloc(0), Buffer.alloc(70_000, 0x7a)]
        return [] // an empty response is a frame of size 0
      },
    }))
    const client = await TestClient.connect(port)
    client.send(req(1), req(2))
    await client.waitForResponses(2)
    assert.deepEqual(client.responses[0], Buffer.concat([req(1), Buffer.from('-header-'), Buffer.alloc(70_000, 0x7a)]))
    assert.equal(client.responses[1]!.length, 0)
    client.close()
  })
})
