// Metrics of the HTTP listener itself: requests per route, method and status, and the push streams
// open now. Counted generically, whoever writes the routes: a request is counted when its response
// closes (so replies that take over the raw response, as SSE routes do, are counted too), under its
// route pattern (never the raw URL: bounded labels; "unmatched" for a 404); a stream is a response
// whose headers went out with content-type text/event-stream, or a socket upgraded by the server's
// 'upgrade' event (WebSocket), counted until it closes.
//
// The open responses are kept in a set only while they are open; the streams among them are
// counted when scraped, from the headers they sent.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { type Counter, Gauge, type Registry } from 'prom-client'
import type { Logger } from '../../util/logger.js'
import { instrumentsOf } from './instruments.js'

interface HttpInstruments {
  requests: Counter<'method' | 'route' | 'status'>
  open: Set<ServerResponse>
  upgraded: Set<Duplex>
}

const byRegistry = new WeakMap<Registry, HttpInstruments>()

/** The instruments of one registry, created once however many apps (listeners) share it. */
function instruments(registry: Registry): HttpInstruments {
  let i = byRegistry.get(registry)
  if (i) return i
  const open = new Set<ServerResponse>()
  const upgraded = new Set<Duplex>()
  i = {
    requests: instrumentsOf(registry).counter(
      'tributary_http_requests_total',
      'HTTP requests answered, per method, route pattern and status.',
      ['method', 'route', 'status'],
    ),
    open,
    upgraded,
  }
  new Gauge({
    name: 'tributary_http_open_streams',
    help: 'Push streams open now: SSE responses (text/event-stream) and upgraded WebSocket connections.',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      let sse = 0
      for (const res of open) if (isEventStream(res)) sse++
      this.set({ kind: 'sse' }, sse)
      this.set({ kind: 'websocket' }, upgraded.size)
    },
  })
  byRegistry.set(registry, i)
  return i
}

/** Installs the hooks on one app; call before the app's other routes and plugins register. */
export function instrumentHttp(app: FastifyInstance, registry: Registry, logger: Logger): void {
  const { requests, open, upgraded } = instruments(registry)
  app.addHook('onRequest', (request, reply, done) => {
    const res = reply.raw
    open.add(res)
    res.once('close', () => {
      open.delete(res)
      const route = request.routeOptions.url ?? 'unmatched'
      requests.labels(request.method, route, String(res.statusCode)).inc()
    })
    done()
  })
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    // Ours is the only listener: nobody serves upgrades, so the socket is refused as Node would.
    if (app.server.listenerCount('upgrade') === 1) {
      socket.destroy()
      return
    }
    upgraded.add(socket)
    socket.once('close', () => {
      upgraded.delete(socket)
      logger.debug('upgraded HTTP connection closed', { url: req.url?.split('?')[0] })
    })
  })
}

function isEventStream(res: ServerResponse): boolean {
  if (!res.headersSent) return false
  const type = res.getHeader('content-type')
  if (typeof type === 'string') return type.startsWith('text/event-stream')
  // Headers given to writeHead() alone are not kept for getHeader(); the header block sent is.
  const sent = (res as ServerResponse & { _header?: string | null })._header
  return typeof sent === 'string' && /\r\ncontent-type:\s*text\/event-stream/i.test(sent)
}
