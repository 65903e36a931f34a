// Test helpers for the network layer: a server on 127.0.0.1 port 0 with a fake dispatcher, and a
// raw TCP client that frames requests and collects responses (with its own simple parser, so
// the server's decoder is not used to check itself).

import { connect, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { systemClock, type Clock } from '../../../src/util/clock.js'
import { type Logger, silentLogger } from '../../../src/util/logger.js'
import { NetworkServer } from '../../../src/network/server.js'
import type { Dispatcher, NetworkConfig } from '../../../src/network/types.js'

export const TEST_CONFIG: NetworkConfig = {
  maxRequestBytes: 1024 * 1024,
  connectionsMaxIdleMs: 600_000,
  maxInFlightPerConnection: 100,
  closeGraceMs: 1_000,
}

export async function startServer(
  dispatcher: Dispatcher,
  config: Partial<NetworkConfig> = {},
  clock: Clock = systemClock,
  logger: Logger = silentLogger,
): Promise<{ server: NetworkServer; port: number }> {
  const server = new NetworkServer({
    listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 0 }],
    config: { ...TEST_CONFIG, ...config },
    dispatcher,
    clock,
    logger,
  })
  await server.start()
  return { server, port: server.boundPorts().get('PLAINTEXT')! }
}

/** A size-prefixed frame. */
export function frame(payload: Buffer): Buffer {
  const prefix = Buffer.alloc(4)
  prefix.writeInt32BE(payload.length, 0)
  return Buffer.concat([prefix, payload])
}

/** A request payload carrying a number, like a correlation id. */
export function req(n: number, padBytes = 0): Buffer {
  const b = Buffer.alloc(4 + padBytes, 0x61)
  b.writeInt32BE(n, 0)
  return b
}

export class TestClient {
  readonly responses: Buffer[] = []
  readonly closed: Promise<void>
  isClosed = false
  private pending = Buffer.alloc(0)

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.pending = Buffer.concat([this.pending, chunk])
      while (this.pending.length >= 4) {
        const size = this.pending.readInt32BE(0)
        if (this.pending.length < 4 + size) break
        this.responses.push(this.pending.subarray(4, 4 + size))
        this.pending = this.pending.subarray(4 + size)
      }
    })
    socket.on('error', () => {}) // resets are expected in some tests
    this.closed = new Promise((resolve) =>
      socket.on('close', () => {
        this.isClosed = true
        resolve()
      }),
    )
  }

  static connect(port: number): Promise<TestClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port })
      socket.once('error', reject)
      socket.once('connect', () => {
        socket.off('error', reject)
        resolve(new TestClient(socket))
      })
    })
  }

  /** Sends the payloads as frames, all in one write. */
  send(...payloads: Buffer[]): void {
    this.socket.write(Buffer.concat(payloads.map(frame)))
  }

  async waitForResponses(count: number, timeoutMs = 5_000): Promise<Buffer[]> {
    await waitFor(
      () => this.responses.length >= count,
      timeoutMs,
      () => `${this.responses.length}/${count} responses`,
    )
    return this.responses
  }

  /** Correlation-like numbers read from the first 4 bytes of each response. */
  ids(): number[] {
    return this.responses.map((r) => r.readInt32BE(0))
  }

  close(): void {
    this.socket.destroy()
  }
}

export async function waitFor(cond: () => boolean, timeoutMs = 5_000, what: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting ${what()}`)
    await sleep(5)
  }
}

/** A promise with its resolve/reject exposed, for dispatchers the test finishes by hand. */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

export { sleep }

/** Records the largest size asked of Buffer's allocators until stop() (same process as the server). */
export function watchAllocations(): { largest: () => number; stop: () => void } {
  const { alloc, allocUnsafe, allocUnsafeSlow } = Buffer
  let largest = 0
  const note = (n: number) => {
    largest = Math.max(largest, n)
  }
  Buffer.allocUnsafe = (n: number) => {
    note(n)
    return allocUnsafe(n)
  }
  Buffer.allocUnsafeSlow = (n: number) => {
    note(n)
    return allocUnsafeSlow(n)
  }
  Buffer.alloc = ((n: number, ...rest: []) => {
    note(n)
    return alloc(n, ...rest)
  }) as typeof Buffer.alloc
  return {
    largest: () => largest,
    stop: () => Object.assign(Buffer, { alloc, allocUnsafe, allocUnsafeSlow }),
  }
}
