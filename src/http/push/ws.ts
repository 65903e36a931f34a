// WebSocket push: /topics/{topic}/ws, the query and cursors of the SSE stream (plan.ts). Server
// messages are JSON: {type:"record", cursor, ...record} (cursor.ts recordEvent), {type:"published",
// partition, offset}, {type:"error", message, cursor?}. Client messages:
//   {type:"publish", key, value, headers?, partition?, encoding?}  → published or error
//   {type:"ack", cursor | partition+offset, kind: accept|release|reject}  (share-group streams)
// A client message that is not one of these gets an error message; the stream goes on.
//
// Back-pressure: past tributary.http.stream.max.buffered.bytes waiting (ws.bufferedAmount) the
// server sends {type:"error", reason, cursor} and closes with 1013 (try again later), the cursor
// resuming it; a subscriber that takes nothing for two heartbeat periods while a paced reader waits
// for it is closed with 1008 (sink.ts); a message too big for the broker is closed with 1009 by the ws package
// (maxPayload). At most MAX_PENDING_PUBLISHES publishes of one socket wait for their answer;
// more get an error. A ping goes out every tributary.http.stream.heartbeat.ms. Every close is
// logged at info with its code and reason.
import type { WebSocket } from 'ws'
import type { ConsumedRecord } from '../../client/consumer.js'
import type { AckKind } from '../../client/share-consumer.js'
import { decodeCursor, fieldBytes, PushError, recordJson } from './cursor.js'
import type { Publisher } from './publish.js'
import type { ShareStream } from './share.js'
import { awaitDrain, type PushSink, type StreamLog, StreamState } from './sink.js'

const MAX_PENDING_PUBLISHES = 1000
const ACK_KINDS: ReadonlySet<string> = new Set(['accept', 'release', 'reject'])

export class WsSink extends StreamState implements PushSink {
  private pendingPublishes = 0
  share: ShareStream | null = null

  constructor(
    private readonly ws: WebSocket,
    private readonly topic: string,
    private readonly publisher: () => Promise<Publisher>,
    private readonly maxBufferedBytes: number,
    heartbeatMs: number,
    startCursor: string | null,
    log: StreamLog,
  ) {
    super(startCursor, heartbeatMs, () => ws.ping(), log)
    ws.on('close', (code, reason) => this.markClosed(`closed (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''})`))
    ws.on('error', () => this.markClosed('the connection failed'))
    ws.on('message', (data, isBinary) => void this.onMessage(isBinary ? null : data.toString()))
  }

  send(record: ConsumedRecord, cursor: string): void {
    if (this.state !== 'open') return
    this.ws.send(`{"type":"record","cursor":${JSON.stringify(cursor)},${recordJson(record).slice(1)}`)
    this.queued(cursor)
    if (this.ws.bufferedAmount > this.maxBufferedBytes)
      this.end(1013, 'subscriber too slow', `subscriber too slow: more than ${this.maxBufferedBytes} bytes waiting to be sent`)
  }

  get congested(): boolean {
    return this.ws.bufferedAmount * 2 >= this.maxBufferedBytes
  }

  drained(): Promise<void> {
    if (this.state !== 'open') return Promise.resolve()
    // ws has no drain event of its own: its socket's is the one, which comes only after a write
    // that answered false.
    const socket = (this.ws as unknown as { _socket?: NodeJS.EventEmitter & { writableNeedDrain: boolean } })._socket
    if (!socket?.writableNeedDrain) return Promise.resolve()
    return awaitDrain(socket, this.closed, this.stallMs, () =>
      this.end(1008, 'subscriber stalled', `subscriber stalled: nothing taken for ${this.stallMs} ms`),
    )
  }

  fail(reason: string): void {
    this.end(1011, 'server error', reason)
  }

  shutdown(): void {
    this.end(1001, 'server stopping', 'the server is stopping')
  }

  private end(code: number, shortReason: string, reason: string): void {
    if (this.state !== 'open') return
    this.ws.send(JSON.stringify({ type: 'error', reason, cursor: this.lastCursor }))
    this.ws.close(code, shortReason)
    this.markClosed(reason)
  }

  private reply(msg: Record<string, unknown>): void {
    if (this.state === 'open') this.ws.send(JSON.stringify(msg))
  }

  private async onMessage(text: string | null): Promise<void> {
    let msg: Record<string, unknown> | undefined
    try {
      const parsed: unknown = text === null ? null : JSON.parse(text)
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new PushError(400, 40001, 'a message must be a JSON object')
      msg = parsed as Record<string, unknown>
      if (msg.type === 'publish') await this.publish(msg)
      else if (msg.type === 'ack') this.ack(msg)
      else throw new PushError(400, 40001, 'type must be "publish" or "ack"')
    } catch (err) {
      const message = err instanceof SyntaxError ? 'a message must be JSON' : err instanceof Error ? err.message : String(err)
      this.reply({ type: 'error', message, ...(msg?.id !== undefined ? { id: msg.id } : {}) })
    }
  }

  private async publish(msg: Record<string, unknown>): Promise<void> {
    const { partition } = msg
    if (partition !== undefined && (typeof partition !== 'number' || !Number.isSafeInteger(partition) || partition < 0))
      throw new PushError(400, 40001, 'partition must be a partition number')
    const headers = msg.headers ?? []
    if (!Array.isArray(headers)) throw new PushError(400, 40001, 'headers must be a list of {key, value}')
    const record = {
      key: fieldBytes(msg.key, msg.encoding, 'key'),
      value: fieldBytes(msg.value, msg.encoding, 'value'),
      headers: headers.map((h: unknown) => {
        const { key, value } = (h ?? {}) as Record<string, unknown>
        if (typeof key !== 'string') throw new PushError(400, 40001, 'a header key must be a string')
        return { key, value: fieldBytes(value, msg.encoding, 'a header value') }
      }),
      ...(partition !== undefined ? { partition } : {}),
    }
    if (this.pendingPublishes >= MAX_PENDING_PUBLISHES)
      throw new PushError(429, 42901, `more than ${MAX_PENDING_PUBLISHES} publishes wait for an answer`)
    this.pendingPublishes++
    try {
      const stored = await (await this.publisher()).publish(this.topic, record)
      this.reply({ type: 'published', ...stored, ...(msg.id !== undefined ? { id: msg.id } : {}) })
    } finally {
      this.pendingPublishes--
    }
  }

  private ack(msg: Record<string, unknown>): void {
    if (!this.share) throw new PushError(400, 40001, 'acks are for share-group streams')
    const kind = msg.kind ?? 'accept'
    if (typeof kind !== 'string' || !ACK_KINDS.has(kind)) throw new PushError(400, 40001, 'kind must be accept, release or reject')
    let partition = msg.partition
    let offset = msg.offset
    if (typeof msg.cursor === 'string') {
      const named = [...decodeCursor(msg.cursor)]
      if (named.length !== 1) throw new PushError(400, 40002, 'the cursor of an ack names one record')
      partition = named[0]![0]
      offset = named[0]![1] - 1
    }
    if (typeof partition !== 'number' || typeof offset !== 'number')
      throw new PushError(400, 40001, 'an ack names its record by cursor, or by partition and offset')
    this.share.acknowledge(partition, offset, kind as AckKind)
  }
}
