// A TCP proxy in front of a broker that loses Produce answers: every `every`-th Produce request
// is forwarded, and when the broker's response to it comes back the proxy closes both sockets
// instead of relaying it. The broker has stored the batch; the client sees a broken connection
// and, being idempotent, sends the same batch again (same producer id, epoch and sequence).
// Requests are framed as Kafka's (int32 size; request header: api key int16, version int16,
// correlation id int32); responses start with the correlation id.
import { createServer, type Server, type Socket, connect } from 'node:net'

export interface DropProxy {
  readonly port: number
  /** Produce responses the client never got. */
  readonly dropped: number
  /** Produce requests seen. */
  readonly produces: number
  close(): Promise<void>
}

/** Calls onFrame with each complete size-prefixed frame read from socket (body without the size). */
function frames(socket: Socket, onFrame: (frame: Buffer) => void): void {
  let buf: Buffer = Buffer.alloc(0)
  socket.on('data', (chunk: Buffer) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk])
    while (buf.length >= 4) {
      const size = buf.readInt32BE(0)
      if (buf.length < 4 + size) break
      onFrame(buf.subarray(4, 4 + size))
      buf = buf.subarray(4 + size)
    }
  })
}

function frame(body: Buffer): Buffer {
  const size = Buffer.alloc(4)
  size.writeInt32BE(body.length, 0)
  return Buffer.concat([size, body])
}

/**
 * A port free on 127.0.0.1 right now, for a broker that must listen on a known port while it
 * advertises the proxy's (a broker started with port 0 reports its advertised port, not the bound one).
 */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return typeof address === 'object' && address ? address.port : 0
}

/** Listens on 127.0.0.1 (port 0: any free port) and forwards to upstreamPort. */
export async function startDropProxy(opts: { port?: number; upstreamPort: number; every: number; maxDrops: number }): Promise<DropProxy> {
  let dropped = 0
  let produces = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = connect(opts.upstreamPort, '127.0.0.1')
    sockets.add(client)
    sockets.add(upstream)
    const toDrop = new Set<number>()
    const end = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('error', end)
    upstream.on('error', end)
    client.on('close', end)
    upstream.on('close', end)
    frames(client, (body) => {
      if (body.length >= 8 && body.readInt16BE(0) === 0) {
        produces++
        if (dropped + toDrop.size < opts.maxDrops && produces % opts.every === 0) toDrop.add(body.readInt32BE(4))
      }
      upstream.write(frame(body))
    })
    frames(upstream, (body) => {
      if (body.length >= 4 && toDrop.has(body.readInt32BE(0))) {
        dropped++
        end()
        return
      }
      client.write(frame(body))
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    port,
    get dropped() {
      return dropped
    },
    get produces() {
      return produces
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
