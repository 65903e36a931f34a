// The push module of the HTTP listener (server.ts): records of a topic delivered as they arrive,
// over Server-Sent Events (GET /topics/{topic}/events, sse.ts) and WebSocket (/topics/{topic}/ws,
// ws.ts), with resumable cursors (cursor.ts), classic or consumer-group positions (plan.ts,
// reader.ts) or share-group queue delivery (share.ts).
//
// Rules: a request is checked completely (plan.ts) before the stream starts, so every refusal is a
// 4xx JSON error {error_code, message} — for a WebSocket, an HTTP answer to the upgrade request.
// Streams from the log end with no cursor and no group share one reader per topic (TailHub); the
// others read alone. Every stream close is logged at info with its reason; closing the app closes
// every stream.
import { authenticate, BASIC_CHALLENGE, runAs, userKey } from '../auth.js'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { WebSocketServer } from 'ws'
import type { HttpContext, HttpModule } from '../server.js'
import { encodeCursor, PushError } from './cursor.js'
import { type PushPlan, planPush } from './plan.js'
import { Publisher } from './publish.js'
import { runReader, TailHub } from './reader.js'
import { ShareStream } from './share.js'
import { errorText, PUSH_CLIENT_ID, type PushContext, type PushSink } from './sink.js'
import { SseSink } from './sse.js'
import { WsSink } from './ws.js'

const WS_PATH = /^\/topics\/([^/?]+)\/ws(?:\?|$)/

function errorBody(err: unknown): { status: number; body: { error_code: number; message: string } } {
  if (err instanceof PushError) return { status: err.status, body: { error_code: err.errorCode, message: err.message } }
  const message = err instanceof Error ? err.message : String(err)
  return { status: 503, body: { error_code: 50301, message } }
}

export const pushModule: HttpModule = (app: FastifyInstance, deps: HttpContext) => {
  // Per user (auth.ts): the publisher of WebSocket publishes, and (in TailHub) the shared tails.
  const publishers = new Map<string, Promise<Publisher>>()
  const publisher = (): Promise<Publisher> => {
    const key = userKey()
    let p = publishers.get(key)
    if (!p) {
      p = Publisher.connect(deps.clients.options(PUSH_CLIENT_ID))
      publishers.set(key, p)
      p.catch(() => publishers.delete(key))
    }
    return p
  }
  const ctx: PushContext = {
    logger: deps.logger,
    clientOptions: () => deps.clients.options(PUSH_CLIENT_ID),
    admin: () => deps.clients.get(PUSH_CLIENT_ID),
    maxBufferedBytes: deps.config.get('tributary.http.stream.max.buffered.bytes'),
    heartbeatMs: deps.config.get('tributary.http.stream.heartbeat.ms'),
  }
  const tails = new TailHub(ctx)
  const authentication = deps.config.get('tributary.http.authentication') as 'none' | 'basic'
  const streams = new Set<SseSink | WsSink>()

  /** Feeds a stream until it closes; never rejects (a failure closes the stream with its reason). */
  const startFeed = async (plan: PushPlan, sink: PushSink, ws: WsSink | null): Promise<void> => {
    try {
      if (plan.shareGroup !== null) {
        const share = new ShareStream(ctx, plan, sink, ws !== null)
        if (ws) ws.share = share
        await share.run()
      } else if (!plan.tail || !(await tails.join(plan, sink))) {
        // A stream of its own (a cursor, a time, earliest) moves to the shared tail once caught up.
        const handOff = plan.group === null ? (at: ReadonlyMap<number, number>) => tails.join(plan, sink, at) : undefined
        await runReader(ctx, plan, sink, handOff)
      }
    } catch (err) {
      sink.fail(errorText(err))
    }
  }

  const logClose = (kind: string, plan: PushPlan, remote: string | undefined) => (reason: string, fields: Record<string, unknown>) =>
    deps.logger.info(`HTTP push ${kind} stream closed: ${reason}`, {
      topic: plan.topic,
      remote,
      ...(plan.group !== null ? { group: plan.group } : {}),
      ...(plan.shareGroup !== null ? { shareGroup: plan.shareGroup } : {}),
      ...fields,
    })

  app.get<{ Params: { topic: string }; Querystring: Record<string, string | string[]> }>('/topics/:topic/events', async (req, reply) => {
    let plan: PushPlan
    try {
      plan = await planPush(await ctx.admin(), req.params.topic, req.query, req.headers['last-event-id'] as string | undefined)
    } catch (err) {
      const { status, body } = errorBody(err)
      return reply.code(status).send(body)
    }
    reply.hijack()
    const start = plan.shareGroup === null ? encodeCursor(plan.start) : null
    const sink = new SseSink(reply.raw, ctx.maxBufferedBytes, ctx.heartbeatMs, start, logClose('SSE', plan, req.socket.remoteAddress))
    streams.add(sink)
    void sink.closed.then(() => streams.delete(sink))
    deps.logger.debug('HTTP push SSE stream opened', { topic: plan.topic, cursor: start })
    void startFeed(plan, sink, null)
  })

  const wss = new WebSocketServer({ noServer: true, maxPayload: deps.config.get('message.max.bytes') * 2 })
  const refuse = (socket: Duplex, status: number, body: unknown) => {
    const text = JSON.stringify(body)
    const reason = status === 404 ? 'Not Found' : status === 400 ? 'Bad Request' : status === 401 ? 'Unauthorized' : 'Error'
    const challenge = status === 401 ? `${BASIC_CHALLENGE[0]}: ${BASIC_CHALLENGE[1]}\r\n` : ''
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${challenge}connection: close\r\n\r\n${text}`,
    )
  }
  const onUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const m = WS_PATH.exec(req.url ?? '')
    if (!m) {
      // Another module may take it; with no one else listening, it is a 404.
      if (app.server.listenerCount('upgrade') === 1)
        refuse(socket, 404, { error_code: 404, message: `HTTP 404 Not Found: ${req.url?.split('?')[0]}` })
      return
    }
    socket.on('error', () => socket.destroy())
    // An upgrade is no Fastify request: its login is checked here, as the onRequest hook does.
    const login = await authenticate(req.headers.authorization, authentication, deps.clients)
    if (typeof login === 'string') {
      if (login === 'refused') deps.logger.info('HTTP login refused', { remote: req.socket.remoteAddress })
      refuse(socket, 401, { error_code: 40101, message: login === 'refused' ? 'Authentication failed' : 'Authentication required' })
      return
    }
    await runAs(login, () => upgrade(req, socket, head, m))
  }
  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer, m: RegExpExecArray) => {
    let plan: PushPlan
    try {
      const url = new URL(req.url!, 'http://x')
      const query: Record<string, string | string[]> = {}
      for (const [k, v] of url.searchParams) {
        const had = query[k]
        query[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v]
      }
      plan = await planPush(await ctx.admin(), decodeURIComponent(m[1]!), query, req.headers['last-event-id'] as string | undefined)
    } catch (err) {
      const { status, body } = errorBody(err instanceof URIError ? new PushError(400, 40001, 'bad topic name') : err)
      refuse(socket, status, body)
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const start = plan.shareGroup === null ? encodeCursor(plan.start) : null
      const sink = new WsSink(
        ws,
        plan.topic,
        publisher,
        ctx.maxBufferedBytes,
        ctx.heartbeatMs,
        start,
        logClose('WebSocket', plan, req.socket.remoteAddress),
      )
      streams.add(sink)
      void sink.closed.then(() => streams.delete(sink))
      deps.logger.debug('HTTP push WebSocket stream opened', { topic: plan.topic, cursor: start })
      void startFeed(plan, sink, sink)
    })
  }
  app.server.on('upgrade', (req, socket, head) => void onUpgrade(req, socket, head))

  app.addHook('onClose', async () => {
    for (const s of streams) s.shutdown()
    for (const ws of wss.clients) ws.terminate()
    wss.close()
    const all = [...publishers.values()]
    publishers.clear()
    await Promise.all(all.map((p) => p.then((x) => x.close()).catch(() => {})))
  })
}
