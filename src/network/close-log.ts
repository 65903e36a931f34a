// Every connection the broker closes for a protocol reason is logged and counted: a client cut off
// without a word is the hardest failure to diagnose from either side. Each close is counted by kind
// (the counts are exported with the broker's metrics) and published on the diagnostics channel
// `tributary:network:protocol-close`, and logged (at WARN; failed TLS handshakes at INFO) with the peer, the client id, the API and
// version and the reason — at most `burst` lines per `windowMs`, so a misbehaving client cannot
// flood the log; what was held back is summed up in one line when the next window opens.
import { channel } from 'node:diagnostics_channel'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { CloseKind, NetworkMetrics, RequestSummary } from './types.js'

export const PROTOCOL_CLOSE_CHANNEL = 'tributary:network:protocol-close'

export interface ProtocolClose {
  kind: CloseKind
  reason: string
  conn: number
  listener: string
  remote: string
  request?: RequestSummary
  /** The error behind a request-failed close (its stack is logged). */
  cause?: unknown
  /** Default warn; failed TLS handshakes are info, as Kafka logs failed authentications. */
  level?: 'warn' | 'info'
}

export interface CloseLogOptions {
  clock: Clock
  logger: Logger
  /** WARN lines allowed per window (default 20). */
  burst?: number
  /** Default 60 s. */
  windowMs?: number
  /** Counts each close by listener and kind (the broker's /metrics). */
  metrics?: NetworkMetrics
}

export class ProtocolCloseLog {
  private readonly counts = new Map<CloseKind, number>()
  private readonly burst: number
  private readonly windowMs: number
  private windowStartMs = Number.NEGATIVE_INFINITY
  private loggedInWindow = 0
  private suppressed = 0
  private readonly channel = channel(PROTOCOL_CLOSE_CHANNEL)

  constructor(private readonly opts: CloseLogOptions) {
    this.burst = opts.burst ?? 20
    this.windowMs = opts.windowMs ?? 60_000
  }

  /** Closes so far, by kind. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.counts)
  }

  get total(): number {
    let n = 0
    for (const c of this.counts.values()) n += c
    return n
  }

  record(close: ProtocolClose): void {
    this.counts.set(close.kind, (this.counts.get(close.kind) ?? 0) + 1)
    this.opts.metrics?.protocolClose(close.listener, close.kind)
    if (this.channel.hasSubscribers) this.channel.publish(close)
    const now = this.opts.clock.monotonic()
    if (now - this.windowStartMs >= this.windowMs) {
      if (this.suppressed > 0) {
        this.opts.logger.warn('protocol closes not logged (rate limit)', {
          count: this.suppressed,
          windowMs: this.windowMs,
        })
      }
      this.windowStartMs = now
      this.loggedInWindow = 0
      this.suppressed = 0
    }
    if (this.loggedInWindow >= this.burst) {
      this.suppressed++
      return
    }
    this.loggedInWindow++
    const req = close.request
    const fields: Record<string, unknown> = {
      conn: close.conn,
      listener: close.listener,
      remote: close.remote,
      kind: close.kind,
    }
    if (req) {
      fields.clientId = req.clientId
      fields.api = req.apiName ? `${req.apiName}(${req.apiKey})` : req.apiKey
      fields.version = req.apiVersion
      fields.correlationId = req.correlationId
    }
    fields.reason = close.reason
    if (close.cause !== undefined) fields.err = errorText(close.cause)
    if (close.level === 'info') this.opts.logger.info('closing connection', fields)
    else this.opts.logger.warn('closing connection', fields)
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err)
}
