// Responses over TLS (the connection's TlsWriter): chunks of records written one by one, small
// pieces joined, pipelined responses in request order, and each response's onWritten called once
// the socket has all of it — the read buffers of a Fetch answer go back to their pool then, so a
// callback that came before its bytes were taken would let the next read overwrite them.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { connect, type TLSSocket } from 'node:tls'
import type { NetworkServer } from '../../../src/network/server.js'
import type { ResponseChunks } from '../../../src/network/types.js'
import { systemClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { NetworkServer as Server } from '../../../src/network/server.js'
import { makeCerts, type TestCerts } from '../../helpers/certs.js'
import { frame, req, TEST_CONFIG, waitFor } from './helpers.js'

/** A response of `parts` chunks: the id, then chunks of the given sizes filled with a byte of the id. */
function response(id: number, sizes: number[]): Buffer[] {
  const head = Buffer.alloc(4)
  head.writeInt32BE(id, 0)
  return [head, ...sizes.map((n) => Buffer.alloc(n, id & 0xff))]
}

describe('NetworkServer over TLS', () => {
  let certs: TestCerts
  let server: NetworkServer
  let port: number
  const written: number[] = []
  /** Per request id, the chunk sizes of its response. */
  const shapes = new Map<number, number[]>()

  before(async () => {
    certs = await makeCerts()
    server = new Server({
      listeners: [
        {
          name: 'SSL',
          host: '127.0.0.1',
          port: 0,
          securityProtocol: 'SSL',
          tls: {
            contextOptions: () => ({ key: readFileSync(certs.brokerKey), cert: readFileSync(certs.brokerCert) }),
            clientAuth: 'none',
            watch: () => () => {},
          },
        },
      ],
      config: TEST_CONFIG,
      dispatcher: {
        dispatch: (f) => {
          const id = f.readInt32BE(0)
          const chunks: NonNullable<ResponseChunks> = response(id, shapes.get(id) ?? [])
          // Every buffer of the response must still hold its bytes when the socket has taken them.
          chunks.onWritten = () => {
            written.push(id)
            for (const c of chunks.slice(1)) c.fill(0xee)
          }
          // Some answers come later than others, as Fetch long-polls do.
          return id % 2 === 0 ? chunks : new Promise((r) => setTimeout(() => r(chunks), 5))
        },
      },
      clock: systemClock,
      logger: silentLogger,
    })
    await server.start()
    port = server.boundPorts().get('SSL')!
  })

  after(async () => {
    await server.close()
    certs.remove()
  })

  it('answers pipelined large and small responses whole and in order, onWritten after the bytes', async () => {
    // Large chunks (records), small ones (headers), mixed; one response of 3 MiB.
    const plan: Array<[number, number[]]> = [
      [1, [10]],
      [2, [1 << 20, 30, 1 << 20, 1 << 20]],
      [3, []],
      [4, [100, 200, 300]],
      [5, [70_000]],
      [6, [65_535, 1, 65_536]],
      [7, [5]],
    ]
    for (const [id, sizes] of plan) shapes.set(id, sizes)
    const socket: TLSSocket = await new Promise((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port, ca: certs.pem.ca, servername: 'localhost' }, () => resolve(s))
      s.once('error', reject)
    })
    let pending = Buffer.alloc(0)
    const responses: Buffer[] = []
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const size = pending.readInt32BE(0)
        responses.push(pending.subarray(4, 4 + size))
        pending = pending.subarray(4 + size)
      }
    })
    socket.write(Buffer.concat(plan.map(([id]) => frame(req(id)))))
    await waitFor(
      () => responses.length === plan.length,
      10_000,
      () => `${responses.length} responses`,
    )
    for (let i = 0; i < plan.length; i++) {
      const [id, sizes] = plan[i]!
      const r = responses[i]!
      assert.equal(r.readInt32BE(0), id, `response ${i} is request ${id}'s`)
      const total = sizes.reduce((a, b) => a + b, 0)
      assert.equal(r.length, 4 + total, `response ${id}'s length`)
      // Not one byte was overwritten by onWritten before the socket had it.
      assert.ok(
        r.subarray(4).every((b) => b === (id & 0xff)),
        `response ${id}'s bytes are its own`,
      )
    }
    await waitFor(() => written.length === plan.length)
    assert.deepEqual(
      written,
      plan.map(([id]) => id),
    )
    socket.destroy()
  })
})
