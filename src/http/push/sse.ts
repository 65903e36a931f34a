// Server-Sent Events push: GET /topics/{topic}/events (plan.ts for the query).
//
// Each record is one event: `id:` its cursor (cursor.ts), `data:` its JSON (recordEvent). A
// comment line goes out every tributary.http.stream.heartbeat.ms. Past
// tributary.http.stream.max.buffered.bytes waiting in the response (res.writableLength) the
// stream ends with `event: error` whose data is {reason, cursor} — the cursor of the last event
// queued, which resumes it — and the response is ended; a subscriber that never reads again is
// disconnected after CUT_GRACE_MS. Every close is logged at info with its reason.
import type { ServerResponse } from 'node:http'
import type { ConsumedRecord } from '../../client/consumer.js'
import { recordJson } from './cursor.js'
import { awaitDrain, type EncodedBatch, type PushSink, type StreamLog, StreamState } from './sink.js'

/** How long a cut subscriber has to read its last events before the connection is dropped. */
const CUT_GRACE_MS = 30_000

export class SseSink extends StreamState implements PushSink {
  constructor(
    private readonly res: ServerResponse,
    private readonly maxBufferedBytes: number,
    heartbeatMs: number,
    startCursor: string | null,
    log: StreamLog,
  ) {
    super(startCursor, heartbeatMs, () => res.write(': heartbeat\n\n'), log)
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    })
    res.write(': tributary push stream\n\n')
    res.on('close', () => this.markClosed('the client went away'))
    // The client may have gone while the request was being checked: 'close' came before this.
    if (res.destroyed || res.socket === null || res.socket.destroyed) queueMicrotask(() => this.markClosed('the client went away'))
    res.on('error', () => this.markClosed('the connection failed'))
  }

  readonly kind = 'sse'

  encode(record: ConsumedRecord, cursor: string): string {
    return `id: ${cursor}\ndata: ${recordJson(record)}\n\n`
  }

  send(record: ConsumedRecord, cursor: string): void {
    if (this.state !== 'open') return
    this.res.write(this.encode(record, cursor))
    this.queued(cursor)
    this.checkLimit()
  }

  sendEncoded(batch: EncodedBatch): void {
    if (this.state !== 'open' || batch.events.length === 0) return
    batch.joined ??= Buffer.from(batch.events.join(''))
    this.res.write(batch.joined)
    this.queued(batch.lastCursor, batch.events.length)
    this.checkLimit()
  }

  private checkLimit(): void {
    if (this.res.writableLength > this.maxBufferedBytes)
      this.end(`subscriber too slow: more than ${this.maxBufferedBytes} bytes waiting to be sent`)
  }

  cork(): void {
    this.res.cork()
  }

  uncork(): void {
    // end() (a cut) has flushed and closed the response already.
    if (!this.res.writableEnded) this.res.uncork()
  }

  get congested(): boolean {
    return this.res.writableLength * 2 >= this.maxBufferedBytes
  }

  drained(): Promise<void> {
    // 'drain' comes only after a write that answered false; below that the bytes are on their way.
    if (this.state !== 'open' || !this.res.writableNeedDrain) return Promise.resolve()
    return awaitDrain(this.res, this.closed, this.stallMs, () => this.end(`subscriber stalled: nothing taken for ${this.stallMs} ms`))
  }

  fail(reason: string): void {
    this.end(reason)
  }

  /** Ends the stream from the server's side with an error event. */
  private end(reason: string): void {
    if (this.state !== 'open') return
    const id = this.lastCursor === null ? '' : `id: ${this.lastCursor}\n`
    this.res.write(`event: error\n${id}data: ${JSON.stringify({ reason, cursor: this.lastCursor })}\n\n`)
    this.res.end()
    const drop = setTimeout(() => this.res.destroy(), CUT_GRACE_MS)
    drop.unref()
    this.res.once('close', () => clearTimeout(drop))
    this.markClosed(reason)
  }

  /** Closes the stream because the server is stopping. */
  shutdown(): void {
    this.end('the server is stopping')
    this.res.destroy()
  }
}
