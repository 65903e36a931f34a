// A scripted TCP peer for client tests: hands every request frame (without its size prefix) to
// the test, which answers with whatever bytes it likes, whenever it likes.
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net'
import { Writer } from '../../../src/protocol/primitives/writer.js'

export interface FakeRequest {
  apiKey: number
  apiVersion: number
  correlationId: number
  frame: Buffer
  socket: Socket
}

export interface FakeServer {
  port: number
  requests: FakeRequest[]
  sockets: Socket[]
  close(): Promise<void>
}

export async function startFakeServer(onRequest: (req: FakeRequest) => void = () => {}): Promise<FakeServer> {
  const requests: FakeRequest[] = []
  const sockets: Socket[] = []
  const server: Server = createServer((socket) => {
    sockets.push(socket)
    let pending = Buffer.alloc(0)
    socket.on('error', () => {})
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const size = pending.readInt32BE(0)
        const frame = pending.subarray(4, 4 + size)
        pending = pending.subarray(4 + size)
        const req = {
          apiKey: frame.readInt16BE(0),
          apiVersion: frame.readInt16BE(2),
          correlationId: frame.readInt32BE(4),
          frame,
          socket,
        }
        requests.push(req)
        onRequest(req)
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A response frame: size prefix, correlation id (response header v0), then the body. */
export function responseFrame(correlationId: number, writeBody: (w: Writer) => void): Buffer {
  const w = new Writer()
  w.int32(correlationId)
  writeBody(w)
  const body = w.toBuffer()
  const out = Buffer.allocUnsafe(4 + body.length)
  out.writeInt32BE(body.length, 0)
  body.copy(out, 4)
  return out
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
