// The HTTP listener beside the Kafka listeners (tributary.http.listeners): one Fastify app per
// address, each serving the same routes — REST in Confluent REST Proxy v3's shapes (rest/), SSE
// and WebSocket push (push/), the console at / (console/) and Prometheus metrics at /metrics
// (metrics/). The routes reach the broker through its services (ports/broker-services.ts) and,
// where a Kafka client is the simpler way (produce, group consumption, partitions led by another
// broker), through Tributary's own client connected to this broker's client listener.
//
// Errors are JSON, {"error_code": N, "message": "..."}, as REST Proxy answers them; a route that
// knows the Kafka error answers its code (rest/errors.ts). Every connection that closes with
// streams on it is logged by the module that owns the stream; the server logs its own start and stop.
import type { Server as TlsServer } from 'node:tls'
import type { KafkaClientOptions } from '../client/client.js'
import type { ListenerTls } from '../network/types.js'
import { HttpClients, type HttpUser, registerAuthentication } from './auth.js'
import Fastify, { type FastifyInstance } from 'fastify'
import type { BrokerConfig } from '../config/config.js'
import type { BrokerServices } from '../ports/broker-services.js'
import type { Logger } from '../util/logger.js'

export interface HttpDeps {
  readonly services: BrokerServices
  readonly config: BrokerConfig
  readonly logger: Logger
  /** host:port of this broker's first client listener (REST's links name it without a Host header). */
  bootstrap(): string
  /**
   * How the routes' Kafka clients reach this broker acting for a user (null: anonymous): the
   * listener broker.ts picked for HTTP, with its security and the user's login (auth.ts).
   */
  clientOptions(clientId: string, user: HttpUser | null): KafkaClientOptions
  /** With tributary.http.authentication=basic, the SASL mechanisms a user may log in with, in order. */
  readonly loginMechanisms?: readonly string[]
  /** The TLS of https:// addresses (the broker's ssl.* keys, `listener.name.http.ssl.*` first). */
  readonly tls?: ListenerTls
}

/** What the modules get: the deps and the Kafka clients of the requesting user (auth.ts). */
export interface HttpContext extends HttpDeps {
  readonly clients: HttpClients
}

/** One part of the HTTP surface: registers its routes (and its onClose hooks) on an app. */
export type HttpModule = (app: FastifyInstance, deps: HttpContext) => void | Promise<void>

/** An http://host:port or https://host:port address of tributary.http.listeners. */
export function parseHttpListener(url: string): { host: string; port: number; tls: boolean } {
  const m = /^(https?):\/\/(\[[^\]]*\]|[^:/]*):(\d+)\/?$/.exec(url.trim())
  if (!m) throw new Error(`tributary.http.listeners: ${JSON.stringify(url)} is not http://host:port or https://host:port`)
  const port = Number(m[3])
  if (port > 65535) throw new Error(`tributary.http.listeners: port ${port} is out of range`)
  const host = m[2]!.replace(/^\[|\]$/g, '')
  return { host: host === '' ? '0.0.0.0' : host, port, tls: m[1] === 'https' }
}

export class HttpServer {
  private constructor(
    private readonly apps: FastifyInstance[],
    readonly urls: readonly string[],
    private readonly logger: Logger,
    private readonly clients: HttpClients,
  ) {}

  static async start(listeners: readonly string[], base: HttpDeps, modules: readonly HttpModule[]): Promise<HttpServer> {
    const apps: FastifyInstance[] = []
    const urls: string[] = []
    const clients = new HttpClients((id, user) => base.clientOptions(id, user), base.logger, base.loginMechanisms)
    const deps: HttpContext = { ...base, clients }
    const authentication = deps.config.get('tributary.http.authentication') as 'none' | 'basic'
    try {
      for (const listener of listeners) {
        const { host, port, tls } = parseHttpListener(listener)
        if (tls && !deps.tls)
          throw new Error(`tributary.http.listeners: ${listener} needs the broker's ssl.keystore.* (or listener.name.http.ssl.*)`)
        const common = { logger: false, forceCloseConnections: true, bodyLimit: deps.config.get('message.max.bytes') * 2 }
        const app: FastifyInstance = tls
          ? (Fastify({ ...common, https: deps.tls!.contextOptions() }) as unknown as FastifyInstance)
          : Fastify(common)
        if (tls) {
          // New certificates on disk reach new connections (as on the Kafka TLS listeners).
          const stop = deps.tls!.watch(() => (app.server as unknown as TlsServer).setSecureContext(deps.tls!.contextOptions()))
          app.addHook('onClose', async () => stop())
        }
        app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
          const status = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500
          if (status >= 500) deps.logger.warn('HTTP request failed', { err })
          void reply.code(status).send({ error_code: status, message: err.message })
        })
        app.setNotFoundHandler((req, reply) => {
          void reply.code(404).send({ error_code: 404, message: `HTTP 404 Not Found: ${req.method} ${req.url.split('?')[0]}` })
        })
        registerAuthentication(app, authentication, clients, deps.logger)
        for (const m of modules) await m(app, deps)
        apps.push(app)
        await app.listen({ host, port })
        const address = app.server.address()
        const bound = typeof address === 'object' && address !== null ? address.port : port
        urls.push(`${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host}:${bound}`)
      }
    } catch (err) {
      await Promise.all(apps.map((a) => a.close().catch(() => {})))
      await clients.close()
      throw err
    }
    deps.logger.info('HTTP listening', { urls, authentication })
    return new HttpServer(apps, urls, deps.logger, clients)
  }

  /** Stops accepting, closes open streams (their modules' onClose hooks) and the connections. */
  async close(): Promise<void> {
    await Promise.all(this.apps.map((a) => a.close()))
    await this.clients.close()
    this.logger.info('HTTP closed', { urls: this.urls })
  }
}
