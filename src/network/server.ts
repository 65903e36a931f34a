// The TCP side of the broker: binds each listener, accepts connections and hands each socket to a
// Connection. It keeps the set of live connections so close() can shut them down gracefully and
// report when the last one is gone. Nothing here knows Kafka's messages; requests go to the
// Dispatcher it was built with.
//
// SSL and SASL_SSL listeners are TLS servers (node:tls) set up by the listener's ListenerTls: a
// connection becomes a Connection only once its handshake is done and its principal known (an
// SSL listener's client certificate, mapped by ssl.principal.mapping.rules), so no request is
// dispatched before. A handshake that fails or does not finish within HANDSHAKE_TIMEOUT_MS is
// logged (rate-limited, close-log.ts) and closed; until then OpenSSL holds at most one handshake
// flight per socket, so the pre-handshake phase buffers a bounded amount. When the listener's
// files change, new connections get the new material (setSecureContext); open ones keep theirs.

import type { X509Certificate } from 'node:crypto'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from 'node:tls'
import type { Clock, Timer } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import { ProtocolCloseLog } from './close-log.js'
import { Connection } from './connection.js'
import { isTlsProtocol } from './listeners.js'
import { ANONYMOUS, formatPrincipal, type KafkaPrincipal } from './principal.js'
import {
  DEFAULT_NETWORK_CONFIG,
  type Dispatcher,
  type ListenerConfig,
  type ListenerTls,
  type NetworkConfig,
  type NetworkMetrics,
} from './types.js'

/** Kafka's socket.listen.backlog.size default. */
const DEFAULT_LISTEN_BACKLOG = 50

/** How long a TLS client has to finish its handshake. */
export const HANDSHAKE_TIMEOUT_MS = 10_000

export interface NetworkServerOptions {
  listeners: ListenerConfig[]
  config: NetworkConfig
  dispatcher: Dispatcher
  clock: Clock
  logger: Logger
  /** Connections opened and closed per listener, and protocol closes (the broker's /metrics). */
  metrics?: NetworkMetrics
  /**
   * Asked for each accepted socket: 0 to take it, else how many milliseconds its address is over
   * its connection creation rate — the socket is then closed at once and the close logged.
   */
  admit?: (remoteAddress: string) => number
  /**
   * The acceptor's throttle (KIP-612 broker-wide and per-listener connection creation rates):
   * `applies` tells whether a listener has one; `delayMs` records a new connection on it and says
   * how long the acceptor waits before taking it. Connections that arrive meanwhile queue behind it.
   */
  acceptThrottle?: { applies(listener: string): boolean; delayMs(listener: string): number }
  /** socket.listen.backlog.size: how many connections may wait for a throttled acceptor (as a full backlog, more are refused). */
  listenBacklog?: number
}

/** Connections waiting for a throttled acceptor, in arrival order. */
interface AcceptQueue {
  waiting: Array<{ socket: Socket; principal: KafkaPrincipal; onError: () => void }>
  timer: Timer | undefined
}

interface Bound {
  listener: ListenerConfig
  server: Server
  /** Stops watching a TLS listener's files. */
  unwatch?: () => void
}

export class NetworkServer {
  private readonly bound: Bound[] = []
  private readonly connections = new Set<Connection>()
  /** TLS sockets whose handshake is under way (destroyed on close). */
  private readonly handshaking = new Set<Socket>()
  /** Per listener: connections waiting for its throttled acceptor. */
  private readonly acceptQueues = new Map<string, AcceptQueue>()
  private readonly log: Logger
  /** Connections closed for a protocol reason, logged and counted by kind. */
  readonly protocolCloses: ProtocolCloseLog
  private nextConnectionId = 1
  private started = false
  private closing: Promise<void> | undefined
  private allClosed: (() => void) | undefined

  constructor(private readonly opts: NetworkServerOptions) {
    validate(opts)
    this.log = opts.logger
    this.protocolCloses = new ProtocolCloseLog({ clock: opts.clock, logger: opts.logger, metrics: opts.metrics })
  }

  /** Binds every listener; rejects (and unbinds those already bound) if one cannot be bound. */
  async start(): Promise<void> {
    if (this.started) throw new Error('NetworkServer.start() called twice')
    this.started = true
    try {
      for (const listener of this.opts.listeners) {
        const server = listener.tls ? this.tlsServer(listener, listener.tls) : createServer({ allowHalfOpen: true })
        if (!listener.tls) server.on('connection', (socket) => this.accept(socket, listener, ANONYMOUS))
        await listen(server, listener)
        // After a successful bind, errors (e.g. EMFILE on accept) are logged, never thrown.
        server.on('error', (err) => this.log.error('listener error', { listener: listener.name, err }))
        const tls = listener.tls
        const unwatch = tls?.watch(() => {
          ;(server as TlsServer).setSecureContext(tls.contextOptions())
          this.log.info('TLS material reloaded; new connections use it', { listener: listener.name })
        })
        this.bound.push({ listener, server, ...(unwatch ? { unwatch } : {}) })
        const port = (server.address() as AddressInfo).port
        this.log.debug('listening', { listener: listener.name, host: listener.host, port })
      }
    } catch (err) {
      for (const b of this.bound) b.unwatch?.()
      await Promise.all(this.bound.map(({ server }) => closeServer(server)))
      this.bound.length = 0
      throw err
    }
  }

  /** A TLS server for an SSL or SASL_SSL listener: connections are accepted once their handshake is done. */
  private tlsServer(listener: ListenerConfig, tls: ListenerTls): TlsServer {
    const server = createTlsServer({
      ...tls.contextOptions(),
      allowHalfOpen: true,
      requestCert: tls.clientAuth !== 'none',
      // requested: a client without a certificate is let in; one with an untrusted one is refused below.
      rejectUnauthorized: tls.clientAuth === 'required',
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
    })
    server.on('connection', (raw: Socket) => {
      if (this.closing !== undefined) {
        raw.destroy()
        return
      }
      this.handshaking.add(raw)
      raw.once('close', () => this.handshaking.delete(raw))
    })
    server.on('secureConnection', (socket: TLSSocket) => {
      const principal = this.tlsPrincipal(socket, listener, tls)
      if (principal) this.accept(socket, listener, principal)
    })
    server.on('tlsClientError', (err: Error & { code?: string }, socket: TLSSocket) => {
      // A client certificate that does not verify ends the handshake from Node's side once it is
      // done, which reaches us as a reset with the verification error on the socket: name that.
      const untrusted = socket.authorizationError
      this.tlsRefused(listener, socket, untrusted ? `client certificate not trusted: ${String(untrusted)}` : (err.code ?? err.message))
      socket.destroy()
    })
    return server
  }

  /** The principal of a connection just past its handshake, or undefined when it is refused (and closed). */
  private tlsPrincipal(socket: TLSSocket, listener: ListenerConfig, tls: ListenerTls): KafkaPrincipal | undefined {
    let cert: X509Certificate | undefined
    try {
      cert = socket.getPeerX509Certificate()
      if (cert && !socket.authorized) throw new Error(`client certificate not trusted: ${String(socket.authorizationError)}`)
      if (!cert || !tls.principalOf) return ANONYMOUS
      return tls.principalOf(cert)
    } catch (err) {
      this.tlsRefused(listener, socket, (err as Error).message)
      socket.destroy()
      return undefined
    }
  }

  private tlsRefused(listener: ListenerConfig, socket: Socket, reason: string): void {
    this.protocolCloses.record({
      kind: 'tls-handshake',
      conn: 0,
      listener: listener.name,
      remote: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`,
      reason,
      level: 'info',
    })
  }

  /** Listener name → the port actually bound (useful with port 0). */
  boundPorts(): Map<string, number> {
    const ports = new Map<string, number>()
    for (const { listener, server } of this.bound) {
      const address = server.address()
      if (address !== null && typeof address === 'object') ports.set(listener.name, address.port)
    }
    return ports
  }

  get connectionCount(): number {
    return this.connections.size
  }

  /**
   * Stops accepting, lets each connection write the responses in flight (within closeGraceMs),
   * then closes it; resolves when every listener and connection is closed. Idempotent.
   */
  close(): Promise<void> {
    if (this.closing === undefined) this.closing = this.doClose()
    return this.closing
  }

  private async doClose(): Promise<void> {
    for (const b of this.bound) b.unwatch?.()
    for (const raw of this.handshaking) raw.destroy()
    for (const q of this.acceptQueues.values()) {
      q.timer?.cancel()
      for (const w of q.waiting) w.socket.destroy()
      q.waiting.length = 0
    }
    const unbound = Promise.all(this.bound.map(({ server }) => closeServer(server)))
    const drained = new Promise<void>((resolve) => {
      if (this.connections.size === 0) resolve()
      else this.allClosed = resolve
    })
    for (const conn of this.connections) conn.shutdown()
    await Promise.all([unbound, drained])
    this.log.debug('network server closed')
  }

  /**
   * A new connection (past its TLS handshake on a TLS listener). Under a connection creation rate,
   * the acceptor takes connections one at a time, each after the wait the rate gives (Kafka's
   * blocking acceptor): they wait paused, at most listenBacklog of them (more are closed, as a full
   * backlog would refuse them).
   */
  private accept(socket: Socket, listener: ListenerConfig, principal: KafkaPrincipal): void {
    if (this.closing !== undefined) {
      socket.destroy()
      return
    }
    const throttle = this.opts.acceptThrottle
    if (throttle === undefined || !throttle.applies(listener.name)) {
      this.take(socket, listener, principal)
      return
    }
    let q = this.acceptQueues.get(listener.name)
    if (q === undefined) this.acceptQueues.set(listener.name, (q = { waiting: [], timer: undefined }))
    if (q.timer === undefined) {
      const wait = throttle.delayMs(listener.name)
      if (wait <= 0) {
        this.take(socket, listener, principal)
        return
      }
      q.timer = this.opts.clock.setTimeout(() => this.drainAccepts(listener), wait)
      this.opts.metrics?.acceptThrottled?.(listener.name, wait)
    } else if (q.waiting.length >= (this.opts.listenBacklog ?? DEFAULT_LISTEN_BACKLOG)) {
      this.protocolCloses.record({
        conn: 0,
        listener: listener.name,
        remote: `${socket.remoteAddress}:${socket.remotePort}`,
        kind: 'connection-rate',
        reason: `listener ${listener.name} has ${q.waiting.length} connections waiting for its connection creation rate (socket.listen.backlog.size)`,
      })
      socket.destroy()
      return
    }
    // Not read while it waits; an error or close (the client gave up) takes it out of the queue.
    socket.pause()
    const entry = { socket, principal, onError: () => {} }
    socket.on('error', entry.onError)
    socket.once('close', () => {
      const i = q.waiting.indexOf(entry)
      if (i >= 0) q.waiting.splice(i, 1)
    })
    q.waiting.push(entry)
  }

  /** The acceptor's wait is over: takes the first waiting connection, then waits for the next. */
  private drainAccepts(listener: ListenerConfig): void {
    const q = this.acceptQueues.get(listener.name)!
    q.timer = undefined
    const first = q.waiting.shift()
    if (first !== undefined) this.resume(first, listener)
    while (q.waiting.length > 0 && this.closing === undefined) {
      const wait = this.opts.acceptThrottle!.delayMs(listener.name)
      if (wait > 0) {
        q.timer = this.opts.clock.setTimeout(() => this.drainAccepts(listener), wait)
        this.opts.metrics?.acceptThrottled?.(listener.name, wait)
        return
      }
      this.resume(q.waiting.shift()!, listener)
    }
  }

  private resume(w: AcceptQueue['waiting'][number], listener: ListenerConfig): void {
    w.socket.off('error', w.onError)
    if (w.socket.destroyed) return
    this.take(w.socket, listener, w.principal)
    w.socket.resume()
  }

  /** The per-ip quota, then the connection is the broker's. */
  private take(socket: Socket, listener: ListenerConfig, principal: KafkaPrincipal): void {
    const overMs = this.opts.admit?.(socket.remoteAddress ?? '') ?? 0
    if (overMs > 0) {
      this.protocolCloses.record({
        conn: 0,
        listener: listener.name,
        remote: `${socket.remoteAddress}:${socket.remotePort}`,
        kind: 'connection-rate',
        reason: `connection creation rate of ${socket.remoteAddress} exceeded (for ${overMs} ms more)`,
      })
      socket.destroy()
      return
    }
    const config = this.opts.config
    const conn = new Connection(socket, {
      id: this.nextConnectionId++,
      listenerName: listener.name,
      securityProtocol: listener.securityProtocol ?? 'PLAINTEXT',
      principal,
      maxRequestBytes: config.maxRequestBytes,
      saslMaxReceiveBytes: config.saslMaxReceiveBytes ?? DEFAULT_NETWORK_CONFIG.saslMaxReceiveBytes,
      connectionsMaxIdleMs: config.connectionsMaxIdleMs,
      maxInFlightPerConnection: config.maxInFlightPerConnection,
      maxPendingWriteBytes: config.maxPendingWriteBytes ?? 0,
      closeGraceMs: config.closeGraceMs ?? DEFAULT_NETWORK_CONFIG.closeGraceMs,
      dispatcher: this.opts.dispatcher,
      clock: this.opts.clock,
      logger: this.log,
      closeLog: this.protocolCloses,
      onClose: (c) => this.onConnectionClosed(c),
    })
    this.connections.add(conn)
    this.opts.metrics?.connectionOpened(listener.name)
    this.log.debug('connection accepted', {
      conn: conn.info.id,
      listener: listener.name,
      remote: `${conn.info.remoteAddress}:${conn.info.remotePort}`,
      ...(listener.tls ? { principal: formatPrincipal(principal) } : {}),
    })
  }

  private onConnectionClosed(conn: Connection): void {
    this.connections.delete(conn)
    this.opts.metrics?.connectionClosed(conn.info.listenerName)
    this.log.debug('connection closed', { conn: conn.info.id })
    if (this.connections.size === 0 && this.allClosed !== undefined) {
      this.allClosed()
      this.allClosed = undefined
    }
  }
}

function listen(server: Server, listener: ListenerConfig): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(new Error(`cannot bind listener ${listener.name} on ${hostPort(listener)}: ${err.code ?? err.message}`, { cause: err }))
    }
    server.once('error', onError)
    server.listen({ host: listener.host, port: listener.port }, () => {
      server.off('error', onError)
      resolve()
    })
  })
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) resolve()
    else server.close(() => resolve())
  })
}

function hostPort({ host, port }: ListenerConfig): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
}

function validate({ listeners, config }: NetworkServerOptions): void {
  if (listeners.length === 0) throw new Error('at least one listener is required')
  const names = new Set<string>()
  for (const l of listeners) {
    if (names.has(l.name)) throw new Error(`listener name ${l.name} is used twice`)
    names.add(l.name)
    if (!Number.isInteger(l.port) || l.port < 0 || l.port > 65535) {
      throw new Error(`listener ${l.name}: port must be an integer in 0..65535, got ${l.port}`)
    }
    const secure = isTlsProtocol(l.securityProtocol ?? 'PLAINTEXT')
    if (secure !== (l.tls !== undefined)) {
      throw new Error(
        `listener ${l.name}: ${secure ? 'an SSL or SASL_SSL listener needs its TLS settings' : 'only SSL and SASL_SSL listeners take TLS settings'}`,
      )
    }
  }
  const positiveInt = (name: string, value: number | undefined, max = Number.MAX_SAFE_INTEGER) => {
    if (value === undefined) return
    if (!Number.isInteger(value) || value < 1 || value > max) {
      throw new Error(`network config ${name} must be an integer in 1..${max}, got ${value}`)
    }
  }
  positiveInt('maxRequestBytes', config.maxRequestBytes, 0x7fffffff)
  positiveInt('maxInFlightPerConnection', config.maxInFlightPerConnection)
  positiveInt('saslMaxReceiveBytes', config.saslMaxReceiveBytes, 0x7fffffff)
  if (config.maxPendingWriteBytes !== undefined && !(config.maxPendingWriteBytes >= 0)) {
    throw new Error(`network config maxPendingWriteBytes must be ≥ 0, got ${config.maxPendingWriteBytes}`)
  }
  if (config.closeGraceMs !== undefined && !(config.closeGraceMs >= 0)) {
    throw new Error(`network config closeGraceMs must be ≥ 0, got ${config.closeGraceMs}`)
  }
  if (Number.isNaN(config.connectionsMaxIdleMs)) throw new Error('network config connectionsMaxIdleMs is NaN')
}
