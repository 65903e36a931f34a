// The side of a push stream that records are written to, the same for SSE (sse.ts) and
// WebSocket (ws.ts), and the context every stream shares (push/index.ts builds it).
//
// Rules of a sink: send() never waits and never queues past tributary.http.stream.max.buffered.bytes
// — past it the transport closes the stream itself, after that record, with the reason and the
// cursor of that last record queued; callers check `open` before each send. A reader that can wait (its own Fetcher,
// a share member) paces itself with paced(): once half the limit is queued it waits for the
// subscriber to take it (drained()); a subscriber that takes nothing for two heartbeat periods
// is stalled and its stream is cut, so a stalled stream never holds a reader, a connection and a
// full buffer forever. The shared tail cannot wait for one subscriber: its bursts are kept small
// instead (reader.ts). `closed` settles once the stream is gone for whatever reason.
import type { KafkaClient, KafkaClientOptions } from '../../client/client.js'
import type { ConsumedRecord } from '../../client/consumer.js'
import type { Logger } from '../../util/logger.js'

export interface PushSink {
  readonly open: boolean
  /** Queues one record event carrying `cursor` (on an open sink, always); the stream may be cut right after it. */
  send(record: ConsumedRecord, cursor: string): void
  /** Whether half the limit or more waits to be sent. */
  readonly congested: boolean
  /** Resolves at once unless the last write went past the socket's high-water mark; then at its drain, or when the stream closed (cut when stalled, see above). */
  drained(): Promise<void>
  /** Closes the stream because of the server (an error of the reader), with a reason. */
  fail(reason: string): void
  /** Settles once the stream is closed. */
  readonly closed: Promise<void>
  /** Holds the sends that follow until uncork(), to write them together (optional). */
  cork?(): void
  uncork?(): void
  /**
   * Sharing one encoding among the shared tail's subscribers that are at the same positions
   * (optional): `kind` names the wire form (sinks of one kind encode alike), encode() gives one
   * event's text, and sendEncoded() queues a batch made by encode() as send() would each event.
   */
  readonly kind?: string
  encode?(record: ConsumedRecord, cursor: string): string
  sendEncoded?(batch: EncodedBatch): void
}

/** Events encoded once for every subscriber at the same positions: their texts and the last cursor. */
export interface EncodedBatch {
  readonly events: readonly string[]
  readonly lastCursor: string
  /** The events as one buffer, made by the first sink that writes them whole. */
  joined?: Buffer
}

/** Logs a stream's close with its reason. */
export type StreamLog = (reason: string, fields: Record<string, unknown>) => void

/**
 * What the SSE and WebSocket sinks keep alike: open or closed, the last cursor queued, the events
 * sent, the heartbeat timer and the `closed` promise; closing logs once with the reason.
 */
export abstract class StreamState {
  protected state: 'open' | 'closed' = 'open'
  protected sent = 0
  private readonly heartbeat: NodeJS.Timeout
  private resolveClosed!: () => void
  readonly closed = new Promise<void>((r) => (this.resolveClosed = r))
  protected readonly stallMs: number

  constructor(
    protected lastCursor: string | null,
    heartbeatMs: number,
    beat: () => void,
    private readonly log: StreamLog,
  ) {
    this.stallMs = 2 * heartbeatMs
    this.heartbeat = setInterval(() => this.state === 'open' && beat(), heartbeatMs)
    this.heartbeat.unref()
  }

  get open(): boolean {
    return this.state === 'open'
  }

  /** Records events queued, the last with this cursor. */
  protected queued(cursor: string, events = 1): void {
    this.lastCursor = cursor
    this.sent += events
  }

  protected markClosed(reason: string): void {
    if (this.state !== 'open') return
    this.state = 'closed'
    clearInterval(this.heartbeat)
    this.log(reason, { events: this.sent, cursor: this.lastCursor })
    this.resolveClosed()
  }
}

export interface PushContext {
  readonly logger: Logger
  /** How the streams' Kafka clients reach this broker (HttpDeps.clientOptions). */
  clientOptions(): KafkaClientOptions
  /** A client shared by the routes for metadata, offsets and commits (never for long polls). */
  admin(): Promise<KafkaClient>
  readonly maxBufferedBytes: number
  readonly heartbeatMs: number
}

export const PUSH_CLIENT_ID = 'tributary-http-push'

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** Waits for a lagging subscriber after a send; false once the stream closed. */
export async function paced(sink: PushSink): Promise<boolean> {
  if (sink.open && sink.congested) await sink.drained()
  return sink.open
}

/** The drained() of a transport: waits for `drain` on its socket, or cuts the stream after stallMs without one. */
export function awaitDrain(emitter: NodeJS.EventEmitter, closed: Promise<void>, stallMs: number, onStall: () => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      emitter.off('drain', done)
      resolve()
    }
    const timer = setTimeout(() => {
      onStall()
      done()
    }, stallMs)
    emitter.once('drain', done)
    void closed.then(done)
  })
}
