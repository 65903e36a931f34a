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
//
// The acceptor of each listener (Kafka's Acceptor with its ConnectionQuotas) takes a new
// connection once its connection creation rate allows it (acceptThrottle) and once a connection
// slot is free (connectionLimits: max.connections, per listener and broker-wide); meanwhile the
// connection waits unread, behind those that came before it on that listener. A connection from
// an address that already holds its max.connections.per.ip is then closed at once. Both hooks are
// asked anew for every connection, so limits changed at run time apply to the next one; when
// they change, or a connection closes, quotasChanged() / the close lets waiting ones in.

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
  type ConnectionLimits,
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
  /**
   * The acceptor's connection limits: a listener without a free slot waits for a connection to
   * close (or for quotasChanged()); an address at its per-ip maximum has its connection closed.
   */
  connectionLimits?: ConnectionLimits
  /** socket.listen.backlog.size: how many connections may wait for a throttled acceptor (as a full backlog, more are refused). */
  listenBacklog?: number
}

/** A connection waiting for its listener's acceptor. */
interface Waiting {
  socket: Socket
  principal: KafkaPrincipal
  onError: () => void
  /** Recorded on the connection creation rate (the acceptor then waited the throttle it gave). */
  rated: boolean
  /** Paused and listened to while it waits (a connection taken at once never is). */
  parked: boolean
}

/** Connections waiting for a throttled or full acceptor, in arrival order. */
interface AcceptQueue {
  waiting: Waiting[]
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
  /** Live connections per listener and per remote address (the acceptor's limits count them). */
  private readonly perListener = new Map<string, number>()
  private readonly perAddress = new Map<string, number>()
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
   * A new connection (past its TLS handshake on a TLS listener). The acceptor takes connections
   * one at a time, in order, each after the wait its connection creation rate gives (Kafka's
   * blocking acceptor) and once a connection slot is free: they wait paused, at most listenBacklog
   * of them (more are closed, as a full backlog would refuse them).
   */
  private accept(socket: Socket, listener: ListenerConfig, principal: KafkaPrincipal): void {
    if (this.closing !== undefined) {
      socket.destroy()
      return
    }
    let q = this.acceptQueues.get(listener.name)
    if (q === undefined) this.acceptQueues.set(listener.name, (q = { waiting: [], timer: undefined }))
    if (q.waiting.length >= (this.opts.listenBacklog ?? DEFAULT_LISTEN_BACKLOG)) {
      this.protocolCloses.record({
        conn: 0,
        listener: listener.name,
        remote: `${socket.remoteAddress}:${socket.remotePort}`,
        kind: 'connection-rate',
        reason: `listener ${listener.name} has ${q.waiting.length} connections waiting for its acceptor (socket.listen.backlog.size)`,
      })
      socket.destroy()
      return
    }
    const entry: Waiting = { socket, principal, onError: () => {}, rated: false, parked: false }
    q.waiting.push(entry)
    this.pump(listener)
    if (!q.waiting.includes(entry)) return
    // Not read while it waits; an error or close (the client gave up) takes it out of the queue.
    entry.parked = true
    socket.pause()
    socket.on('error', entry.onError)
    socket.once('close', () => {
      const i = q.waiting.indexOf(entry)
      if (i >= 0) q.waiting.splice(i, 1)
    })
  }

  /**
   * Lets the listener's acceptor take what it may: the first waiting connection, once its rate's
   * wait is over and a slot is free, then the next. Runs again when the wait ends, a connection
   * closes or the quotas change.
   */
  private pump(listener: ListenerConfig): void {
    const q = this.acceptQueues.get(listener.name)
    if (q === undefined || q.timer !== undefined) return
    const throttle = this.opts.acceptThrottle
    // (A connection taken may close at once and pump again from within: the timer it set holds here too.)
    while (q.waiting.length > 0 && q.timer === undefined && this.closing === undefined) {
      const head = q.waiting[0]!
      if (!head.rated) {
        head.rated = true
        const wait = throttle?.applies(listener.name) ? throttle.delayMs(listener.name) : 0
        if (wait > 0) {
          q.timer = this.opts.clock.setTimeout(() => {
            q.timer = undefined
            this.pump(listener)
          }, wait)
          this.opts.metrics?.acceptThrottled?.(listener.name, wait)
          return
        }
      }
      if (!this.slotAvailable(listener.name)) return
      q.waiting.shift()
      this.resume(head, listener)
    }
  }

  private slotAvailable(listener: string): boolean {
    const limits = this.opts.connectionLimits
    return (
      limits === undefined ||
      limits.slotAvailable(listener, { total: this.connections.size, listener: this.perListener.get(listener) ?? 0 })
    )
  }

  /** The connection limits or rates changed: the acceptors take the waiting connections they now may. */
  quotasChanged(): void {
    for (const b of this.bound) this.pump(b.listener)
  }

  private resume(w: Waiting, listener: ListenerConfig): void {
    if (!w.parked) {
      this.take(w.socket, listener, w.principal)
      return
    }
    w.socket.off('error', w.onError)
    if (w.socket.destroyed) return
    this.take(w.socket, listener, w.principal)
    w.socket.resume()
  }

  /** The per-ip quotas (connection creation rate, then max.connections.per.ip), then the connection is the broker's. */
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
    const address = addressKey(socket.remoteAddress ?? '')
    const held = this.perAddress.get(address) ?? 0
    const maxPerIp = this.opts.connectionLimits?.maxConnectionsPerIp(address) ?? Number.POSITIVE_INFINITY
    if (held >= maxPerIp) {
      this.protocolCloses.record({
        conn: 0,
        listener: listener.name,
        remote: `${socket.remoteAddress}:${socket.remotePort}`,
        kind: 'connection-limit',
        reason: `${address} already has the configured maximum of ${maxPerIp} connections (max.connections.per.ip)`,
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
    this.perListener.set(listener.name, (this.perListener.get(listener.name) ?? 0) + 1)
    this.perAddress.set(address, held + 1)
    this.opts.metrics?.connectionOpened(listener.name)
    this.log.debug('connection accepted', {
      conn: conn.info.id,
      listener: listener.name,
      remote: `${conn.info.remoteAddress}:${conn.info.remotePort}`,
      ...(listener.tls ? { principal: formatPrincipal(principal) } : {}),
    })
  }

  private onConnectionClosed(conn: Connection): void {
    if (!this.connections.delete(conn)) return
    const listener = conn.info.listenerName
    const left = (this.perListener.get(listener) ?? 1) - 1
    if (left > 0) this.perListener.set(listener, left)
    else this.perListener.delete(listener)
    const address = addressKey(conn.info.remoteAddress)
    const n = (this.perAddress.get(address) ?? 1) - 1
    if (n > 0) this.perAddress.set(address, n)
    else this.perAddress.delete(address)
    this.opts.metrics?.connectionClosed(conn.info.listenerName)
    this.log.debug('connection closed', { conn: conn.info.id })
    if (this.connections.size === 0 && this.allClosed !== undefined) {
      this.allClosed()
      this.allClosed = undefined
    }
    // A slot is free: the acceptors waiting for one may take their next connection.
    if (this.closing === undefined && this.opts.connectionLimits !== undefined) this.quotasChanged()
  }
}

/** An IPv4 client of a dual-stack listener shows as ::ffff:a.b.c.d: it is counted as a.b.c.d. */
export function addressKey(remote: string): string {
  return remote.startsWith('::ffff:') && remote.includes('.') ? remote.slice('::ffff:'.length) : remote
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
