// One TCP connection to one broker: Kafka framing (int32 size + frame), pipelined requests matched
// to their responses by correlation id, a timeout per request, and close.
//
// Why requests are not queued here: Kafka answers the requests of one connection in order, so a
// caller that wants a window of N requests in flight (a producer's
// max.in.flight.requests.per.connection) just keeps N outstanding; `inFlight` tells how many are.
// The broker stops reading once its own per-connection limit is reached, and TCP holds the rest.
//
// Why one timeout breaks the connection: a timed-out request's response may still arrive later, in
// order, ahead of the answers to the requests behind it; like Kafka's NetworkClient we disconnect
// and fail everything in flight rather than guess. The request that timed out fails with
// REQUEST_TIMED_OUT, the others with NETWORK_EXCEPTION (retriable). Deadlines are checked by one
// timer per connection, not one timer per request.
//
// Writes: the frame's size prefix is reserved at the start of the Writer and patched once the
// length is known; record batches spliced into a request (Writer.splice) go to the socket as they
// are, without being copied, in one corked writev with the header.
//
// TLS (security.protocol SSL or SASL_SSL): the socket is a TLS socket (TLS 1.2 or 1.3) verified
// against security.tls.ca (or Node's bundled CA certificates), presenting cert/key for mTLS, with
// the broker's host name checked unless checkHostname is false; the connection is handed out only
// once the handshake is done, so a refused handshake fails connect().
import { connect, isIP, type Socket } from 'node:net'
import { connect as connectTls, type ConnectionOptions as TlsConnectOptions } from 'node:tls'
import type { ClientSecurity, ClientTlsOptions } from './security.js'
import { FrameDecoder, FrameSizeError } from '../network/framing.js'
import { decodeResponseHeader, encodeRequestHeader, responseHeaderVersion } from '../protocol/header.js'
import { Reader } from '../protocol/primitives/reader.js'
import { Writer } from '../protocol/primitives/writer.js'
import type { Encodable, Message } from '../protocol/schema.js'
import type { ApiVersionTable } from './api-version-table.js'
import { ClientError } from './errors.js'

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000
/** Kafka's largest frame (int32 size); responses are not otherwise limited. */
const MAX_RESPONSE_BYTES = 0x7fffffff

export interface ConnectionOptions {
  host: string
  port: number
  /** Sent in every request header; null sends none. Default null. */
  clientId?: string | null
  /** Default timeout of each request, in ms. Default 30000 (Kafka's request.timeout.ms). */
  requestTimeoutMs?: number
  /** Default 10000. */
  connectTimeoutMs?: number
  /** TLS and SASL (security.ts). Default PLAINTEXT. */
  security?: ClientSecurity
}

/** A request in wire terms: the header fields and how to encode and decode its body. */
export interface RawRequest<T> {
  apiKey: number
  apiVersion: number
  /** Request header v2 (flexible request versions) rather than v1. */
  flexibleHeader: boolean
  responseHeaderVersion: 0 | 1
  encodeBody(w: Writer): void
  /** Decodes the response body (after the header). */
  decodeBody(r: Reader): T
  /** Overrides the connection's request timeout (e.g. a long-polling Fetch adds its max wait). */
  timeoutMs?: number
}

interface Pending {
  correlationId: number
  apiKey: number
  apiVersion: number
  headerVersion: 0 | 1
  decodeBody: (r: Reader) => unknown
  deadline: number
  resolve: (value: any) => void
  reject: (err: ClientError) => void
}

export class Connection {
  readonly host: string
  readonly port: number
  readonly clientId: string | null
  readonly requestTimeoutMs: number
  /** The versions negotiated on this connection (set by negotiateApiVersions). */
  versions: ApiVersionTable | undefined
  private readonly decoder = new FrameDecoder(MAX_RESPONSE_BYTES)
  /** In correlation-id order, which is also the order of the responses. */
  private readonly pending = new Map<number, Pending>()
  private nextCorrelationId = 1
  private closedWith: ClientError | undefined
  private readonly sweep: NodeJS.Timeout
  private readonly closeListeners: Array<(err: ClientError) => void> = []

  private constructor(
    private readonly socket: Socket,
    opts: ConnectionOptions,
  ) {
    this.host = opts.host
    this.port = opts.port
    this.clientId = opts.clientId ?? null
    this.requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
    socket.on('data', (chunk: Buffer) => this.onData(chunk))
    socket.on('error', (err) => this.fail(new ClientError('NETWORK_EXCEPTION', `${this.address}: ${err.message}`, { cause: err })))
    socket.on('close', () => this.fail(new ClientError('NETWORK_EXCEPTION', `${this.address}: connection closed`)))
    const tickMs = Math.min(1000, Math.max(10, Math.floor(this.requestTimeoutMs / 10)))
    this.sweep = setInterval(() => this.checkDeadlines(), tickMs)
    this.sweep.unref()
  }

  /** Opens a connection; rejects with NETWORK_EXCEPTION if the broker cannot be reached in time. */
  static connect(opts: ConnectionOptions): Promise<Connection> {
    const timeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
    const address = `${opts.host}:${opts.port}`
    const tls = opts.security?.protocol === 'SSL' || opts.security?.protocol === 'SASL_SSL'
    return new Promise((resolve, reject) => {
      const socket = tls
        ? connectTls(tlsConnectOptions(opts.host, opts.port, opts.security?.tls ?? {}))
        : connect({ host: opts.host, port: opts.port, noDelay: true })
      const timer = setTimeout(() => {
        socket.destroy()
        reject(new ClientError('NETWORK_EXCEPTION', `connect to ${address} timed out after ${timeoutMs} ms`))
      }, timeoutMs)
      const onError = (err: Error) => {
        clearTimeout(timer)
        socket.destroy()
        reject(new ClientError('NETWORK_EXCEPTION', `connect to ${address} failed: ${err.message}`, { cause: err }))
      }
      socket.once('error', onError)
      socket.once(tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer)
        socket.off('error', onError)
        socket.setKeepAlive(true)
        if (tls) socket.setNoDelay(true)
        resolve(new Connection(socket, opts))
      })
    })
  }

  get address(): string {
    return `${this.host}:${this.port}`
  }

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.pending.size
  }

  get isOpen(): boolean {
    return this.closedWith === undefined
  }

  /** Calls fn once when the connection closes, with the reason (at once if it already has). */
  onClose(fn: (err: ClientError) => void): void {
    if (this.closedWith) fn(this.closedWith)
    else this.closeListeners.push(fn)
  }

  /** Sends one request; resolves with the decoded response body. */
  send<T>(req: RawRequest<T>): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith)
    const correlationId = this.takeCorrelationId()
    let chunks: Buffer[]
    try {
      chunks = this.encodeFrame(req, correlationId)
    } catch (err) {
      return Promise.reject(err)
    }
    return new Promise<T>((resolve, reject) => {
      this.pending.set(correlationId, {
        correlationId,
        apiKey: req.apiKey,
        apiVersion: req.apiVersion,
        headerVersion: req.responseHeaderVersion,
        decodeBody: req.decodeBody,
        deadline: performance.now() + (req.timeoutMs ?? this.requestTimeoutMs),
        resolve,
        reject,
      })
      this.writeChunks(chunks)
    })
  }

  /**
   * Sends a request the broker does not answer (Produce with acks=0); resolves once the bytes are
   * handed to the kernel.
   */
  sendOneWay(req: Omit<RawRequest<never>, 'decodeBody' | 'responseHeaderVersion'>): Promise<void> {
    if (this.closedWith) return Promise.reject(this.closedWith)
    let chunks: Buffer[]
    try {
      chunks = this.encodeFrame(req, this.takeCorrelationId())
    } catch (err) {
      return Promise.reject(err)
    }
    return new Promise<void>((resolve, reject) => {
      this.writeChunks(chunks, (err) => {
        if (err) reject(new ClientError('NETWORK_EXCEPTION', `${this.address}: ${err.message}`, { cause: err }))
        else resolve()
      })
    })
  }

  /** Sends a request declared with the schema DSL, in the given version. */
  request<Req, Res>(
    reqMsg: Message<Req>,
    resMsg: Message<Res>,
    version: number,
    body: Encodable<Req>,
    opts: { timeoutMs?: number } = {},
  ): Promise<Res> {
    let reqCodec: ReturnType<Message<Req>['codec']>
    let resCodec: ReturnType<Message<Res>['codec']>
    try {
      reqCodec = reqMsg.codec(version)
      resCodec = resMsg.codec(version)
    } catch (err) {
      return Promise.reject(new ClientError('UNSUPPORTED_VERSION', (err as Error).message))
    }
    const name = reqMsg.name
    return this.send({
      apiKey: reqMsg.apiKey,
      apiVersion: version,
      flexibleHeader: reqMsg.isFlexible(version),
      responseHeaderVersion: responseHeaderVersion(resMsg.apiKey, resMsg.isFlexible(version)),
      encodeBody: (w) => reqCodec.encode(w, body),
      decodeBody: (r) => {
        const value = resCodec.decode(r)
        if (r.remaining !== 0) throw new Error(`${name} v${version} response has ${r.remaining} trailing bytes`)
        return value
      },
      ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    })
  }

  /** Closes the connection; requests in flight fail with NETWORK_EXCEPTION. */
  close(): void {
    this.fail(new ClientError('NETWORK_EXCEPTION', `${this.address}: connection closed by the client`))
  }

  private takeCorrelationId(): number {
    const id = this.nextCorrelationId
    this.nextCorrelationId = id === 0x7fffffff ? 1 : id + 1
    return id
  }

  private encodeFrame(req: Omit<RawRequest<unknown>, 'decodeBody' | 'responseHeaderVersion'>, correlationId: number): Buffer[] {
    const w = new Writer(512)
    w.int32(0) // size prefix, patched below
    encodeRequestHeader(w, { apiKey: req.apiKey, apiVersion: req.apiVersion, correlationId, clientId: this.clientId }, req.flexibleHeader)
    req.encodeBody(w)
    const chunks = w.toChunks()
    chunks[0]!.writeInt32BE(w.length - 4, 0)
    return chunks
  }

  private writeChunks(chunks: Buffer[], cb?: (err?: Error | null) => void): void {
    if (chunks.length === 1) {
      this.socket.write(chunks[0]!, cb)
      return
    }
    this.socket.cork()
    const last = chunks.length - 1
    for (let i = 0; i < last; i++) this.socket.write(chunks[i]!)
    this.socket.write(chunks[last]!, cb)
    this.socket.uncork()
  }

  private onData(chunk: Buffer): void {
    if (this.closedWith) return
    this.decoder.push(chunk)
    for (;;) {
      let frame: Buffer | undefined
      try {
        frame = this.decoder.next()
      } catch (err) {
        const size = err instanceof FrameSizeError ? err.sizeBytes : '?'
        this.fail(new ClientError('CORRUPT_MESSAGE', `${this.address}: invalid response size ${size}`))
        return
      }
      if (frame === undefined) return
      this.onFrame(frame)
      if (this.closedWith) return
    }
  }

  private onFrame(frame: Buffer): void {
    if (frame.length < 4) {
      this.fail(new ClientError('CORRUPT_MESSAGE', `${this.address}: response of ${frame.length} bytes`))
      return
    }
    const correlationId = frame.readInt32BE(0)
    const p = this.pending.get(correlationId)
    if (!p) {
      // Not a response to anything in flight: the stream can no longer be trusted.
      this.fail(new ClientError('CORRUPT_MESSAGE', `${this.address}: response with unknown correlation id ${correlationId}`))
      return
    }
    this.pending.delete(correlationId)
    let value: unknown
    try {
      const r = new Reader(frame)
      decodeResponseHeader(r, p.headerVersion)
      value = p.decodeBody(r)
    } catch (err) {
      p.reject(
        new ClientError(
          'CORRUPT_MESSAGE',
          `${this.address}: cannot decode response to api ${p.apiKey} v${p.apiVersion}: ${(err as Error).message}`,
          {
            cause: err,
          },
        ),
      )
      return
    }
    p.resolve(value)
  }

  private checkDeadlines(): void {
    if (this.pending.size === 0) return
    const now = performance.now()
    for (const p of this.pending.values()) {
      if (p.deadline > now) continue
      this.pending.delete(p.correlationId)
      p.reject(new ClientError('REQUEST_TIMED_OUT', `${this.address}: no response to api ${p.apiKey} v${p.apiVersion} in time`))
      this.fail(new ClientError('NETWORK_EXCEPTION', `${this.address}: disconnected after a request timed out`))
      return
    }
  }

  private fail(err: ClientError): void {
    if (this.closedWith) return
    this.closedWith = err
    clearInterval(this.sweep)
    this.socket.destroy()
    const pending = [...this.pending.values()]
    this.pending.clear()
    for (const p of pending) p.reject(err)
    for (const fn of this.closeListeners.splice(0)) fn(err)
  }
}

/** tls.connect's options for a broker at host:port. */
function tlsConnectOptions(host: string, port: number, t: ClientTlsOptions): TlsConnectOptions {
  return {
    host,
    port,
    // SNI takes a host name, never an address.
    ...(isIP(host) === 0 ? { servername: host } : {}),
    minVersion: 'TLSv1.2',
    ...(t.ca !== undefined ? { ca: t.ca } : {}),
    ...(t.cert !== undefined ? { cert: t.cert } : {}),
    ...(t.key !== undefined ? { key: t.key } : {}),
    ...(t.pfx !== undefined ? { pfx: t.pfx } : {}),
    ...(t.passphrase !== undefined ? { passphrase: t.passphrase } : {}),
    ...(t.checkHostname === false ? { checkServerIdentity: () => undefined } : {}),
  }
}
