// The TCP side of the broker: binds each listener, accepts connections and hands each socket to a
// Connection. It keeps the set of live connections so close() can shut them down gracefully and
// report when the last one is gone. Nothing here knows Kafka's messages; requests go to the
// Dispatcher it was built with.

import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import { ProtocolCloseLog } from './close-log.js'
import { Connection } from './connection.js'
import { DEFAULT_NETWORK_CONFIG, type Dispatcher, type ListenerConfig, type NetworkConfig, type NetworkMetrics } from './types.js'

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
}

interface Bound {
  listener: ListenerConfig
  server: Server
}

export class NetworkServer {
  private readonly bound: Bound[] = []
  private readonly connections = new Set<Connection>()
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
        const server = createServer({ allowHalfOpen: true })
        server.on('connection', (socket) => this.accept(socket, listener))
        await listen(server, listener)
        // After a successful bind, errors (e.g. EMFILE on accept) are logged, never thrown.
        server.on('error', (err) => this.log.error('listener error', { listener: listener.name, err }))
        this.bound.push({ listener, server })
        const port = (server.address() as AddressInfo).port
        this.log.debug('listening', { listener: listener.name, host: listener.host, port })
      }
    } catch (err) {
      await Promise.all(this.bound.map(({ server }) => closeServer(server)))
      this.bound.length = 0
      throw err
    }
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
    const unbound = Promise.all(this.bound.map(({ server }) => closeServer(server)))
    const drained = new Promise<void>((resolve) => {
      if (this.connections.size === 0) resolve()
      else this.allClosed = resolve
    })
    for (const conn of this.connections) conn.shutdown()
    await Promise.all([unbound, drained])
    this.log.debug('network server closed')
  }

  private accept(socket: Socket, listener: ListenerConfig): void {
    if (this.closing !== undefined) {
      socket.destroy()
      return
    }
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
      maxRequestBytes: config.maxRequestBytes,
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
  }
  const positiveInt = (name: string, value: number | undefined, max = Number.MAX_SAFE_INTEGER) => {
    if (value === undefined) return
    if (!Number.isInteger(value) || value < 1 || value > max) {
      throw new Error(`network config ${name} must be an integer in 1..${max}, got ${value}`)
    }
  }
  positiveInt('maxRequestBytes', config.maxRequestBytes, 0x7fffffff)
  positiveInt('maxInFlightPerConnection', config.maxInFlightPerConnection)
  if (config.maxPendingWriteBytes !== undefined && !(config.maxPendingWriteBytes >= 0)) {
    throw new Error(`network config maxPendingWriteBytes must be ≥ 0, got ${config.maxPendingWriteBytes}`)
  }
  if (config.closeGraceMs !== undefined && !(config.closeGraceMs >= 0)) {
    throw new Error(`network config closeGraceMs must be ≥ 0, got ${config.closeGraceMs}`)
  }
  if (Number.isNaN(config.connectionsMaxIdleMs)) throw new Error('network config connectionsMaxIdleMs is NaN')
}
