// Back-pressure through a real socket: a client that pipelines without limit, or never reads, must
// not make the server dispatch (and buffer responses) without bound.
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import type { NetworkServer } from '../../../src/network/server.js'
import type { ResponseChunks } from '../../../src/network/types.js'
import { deferred, req, sleep, startServer, TestClient, waitFor } from './helpers.js'

describe('NetworkServer back-pressure', () => {
  let server: NetworkServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('stops dispatching at maxInFlightPerConnection unanswered requests, resumes as they are answered', async () => {
    const pending: Array<ReturnType<typeof deferred<ResponseChunks>>> = []
    const ids: number[] = []
    let port: number
    ;({ server, port } = await startServer(
      {
        dispatch: (f) => {
          ids.push(f.readInt32BE(0))
          const d = deferred<ResponseChunks>()
          pending.push(d)
          return d.promise
        },
      },
      { maxInFlightPerConnection: 4 },
    ))
    const client = await TestClient.connect(port)
    client.send(...Array.from({ length: 20 }, (_, i) => req(i)))
    await waitFor(() => ids.length === 4)
    await sleep(30)
    assert.equal(ids.length, 4, 'no fifth dispatch while four are unanswered')

    pending[1]!.resolve([req(1)]) // done but not answered: still behind request 0
    await sleep(30)
    assert.equal(ids.length, 4)
    pending[0]!.resolve([req(0)]) // answers 0 and 1: two slots free
    await waitFor(() => ids.length === 6)
    await sleep(20)
    assert.equal(ids.length, 6)

    // Answer everything as it comes.
    for (let i = 2; i < 20; i++) {
      await waitFor(() => pending.length > i)
      pending[i]!.resolve([req(ids[i]!)])
    }
    await client.waitForResponses(20)
    assert.deepEqual(
      client.ids(),
      Array.from({ length: 20 }, (_, i) => i),
    )
    client.close()
  })

  it('stops dispatching while the client does not read its responses, resumes when it does', async () => {
    const REQUESTS = 100
    const RESPONSE_BYTES = 512 * 1024
    let calls = 0
    let port: number
    ;({ server, port } = await startServer(
      {
        dispatch: (f) => {
          calls++
          return [req(f.readInt32BE(0)), Buffer.alloc(RESPONSE_BYTES - 4, 1)]
        },
      },
      { maxInFlightPerConnection: 1_000 },
    ))
    const client = await TestClient.connect(port)
    client.socket.pause() // never read: the kernel buffers fill, then the server's write buffer
    client.send(...Array.from({ length: REQUESTS }, (_, i) => req(i)))
    // Wait for the dispatch count to settle (robust on a loaded machine), then check it stays put.
    let stalledAt = -1
    for (let i = 0; i < 50 && calls !== stalledAt; i++) {
      stalledAt = calls
      await sleep(100)
    }
    await sleep(200)
    assert.equal(calls, stalledAt, 'dispatch stopped')
    assert.ok(stalledAt < REQUESTS, `only ${stalledAt} of ${REQUESTS} dispatched while the client is not reading`)

    client.socket.resume()
    await client.waitForResponses(REQUESTS, 20_000)
    assert.equal(calls, REQUESTS)
    assert.deepEqual(
      client.ids(),
      Array.from({ length: REQUESTS }, (_, i) => i),
    )
    assert.ok(client.responses.every((r) => r.length === RESPONSE_BYTES))
    client.close()
  })

  it('with maxPendingWriteBytes, keeps answering a non-reading client until that many bytes are queued', async () => {
    const REQUESTS = 40
    const RESPONSE_BYTES = 256 * 1024
    let calls = 0
    let port: number
    ;({ server, port } = await startServer(
      {
        dispatch: (f) => {
          calls++
          return [req(f.readInt32BE(0)), Buffer.alloc(RESPONSE_BYTES - 4, 1)]
        },
      },
      { maxInFlightPerConnection: 1_000, maxPendingWriteBytes: 32 * 1024 * 1024 },
    ))
    const client = await TestClient.connect(port)
    client.socket.pause()
    client.send(...Array.from({ length: REQUESTS }, (_, i) => req(i)))
    await waitFor(() => calls === REQUESTS) // 10 MB of responses fit under the 32 MB allowance
    client.socket.resume()
    await client.waitForResponses(REQUESTS)
    assert.deepEqual(
      client.ids(),
      Array.from({ length: REQUESTS }, (_, i) => i),
    )
    client.close()
  })
})
