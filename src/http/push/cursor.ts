// Cursors and record events of the push streams (SSE and WebSocket, push/index.ts).
//
// A cursor is opaque to clients: base64url of the JSON object {"<partition>": nextOffset} naming,
// for every partition of the stream, the offset of the record the stream would send next. Each
// event carries the cursor as it stands *after* that event, so a client that reconnects with the
// last cursor it received (Last-Event-ID, or ?cursor=) resumes exactly after that event on every
// partition: nothing skipped, nothing sent twice.
//
// Rules: a cursor that does not decode to such an object (non-negative integer offsets, integer
// partitions) is refused with a PushError 400 before any stream starts; record bytes are sent as
// UTF-8 text when key, value and every header value are valid UTF-8, else all of them as base64,
// and the event says which in its `encoding` field.
import { isUtf8 } from 'node:buffer'
import type { ConsumedRecord } from '../../client/consumer.js'

/** A request the push routes refuse before streaming: its HTTP status and a REST Proxy error code. */
export class PushError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number,
    message: string,
  ) {
    super(message)
  }
}

/** Next offset per partition of one stream. */
export class Positions {
  readonly next: Map<number, number>

  constructor(entries: Iterable<readonly [number, number]>) {
    this.next = new Map(entries)
  }

  /** Moves a partition past an offset (never backwards). */
  advance(partition: number, nextOffset: number): void {
    if ((this.next.get(partition) ?? -1) < nextOffset) this.next.set(partition, nextOffset)
  }

  encode(): string {
    return encodeCursor(this.next)
  }
}

export function encodeCursor(next: ReadonlyMap<number, number>): string {
  const obj: Record<string, number> = {}
  for (const [p, o] of [...next].sort((a, b) => a[0] - b[0])) obj[String(p)] = o
  return Buffer.from(JSON.stringify(obj)).toString('base64url')
}

const MAX_CURSOR_CHARS = 64 * 1024

/** Partition → next offset, or a PushError 400. */
export function decodeCursor(text: string): Map<number, number> {
  const bad = () => new PushError(400, 40002, `cursor ${JSON.stringify(text.slice(0, 64))} is not a cursor of this stream`)
  if (text.length === 0 || text.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(text)) throw bad()
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    throw bad()
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bad()
  const out = new Map<number, number>()
  for (const [k, v] of Object.entries(parsed)) {
    if (!/^(0|[1-9]\d{0,8})$/.test(k) || typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw bad()
    out.set(Number(k), v)
  }
  if (out.size === 0) throw bad()
  return out
}

export interface RecordEvent {
  topic: string
  partition: number
  offset: number
  timestamp: number
  encoding: 'text' | 'base64'
  key: string | null
  value: string | null
  headers: Array<{ key: string; value: string | null }>
  /** Share-group records: how many times this record has been delivered (1 the first time). */
  deliveryCount?: number
}

/** The JSON object of one record event. */
export function recordEvent(r: ConsumedRecord & { deliveryCount?: number }): RecordEvent {
  const text =
    (r.key === null || isUtf8(r.key)) &&
    (r.value === null || isUtf8(r.value)) &&
    r.headers.every((h) => h.value === null || isUtf8(h.value))
  const enc = text ? 'utf8' : 'base64'
  const str = (b: Buffer | null) => (b === null ? null : b.toString(enc))
  return {
    topic: r.topic,
    partition: r.partition,
    offset: r.offset,
    timestamp: r.timestamp,
    encoding: text ? 'text' : 'base64',
    key: str(r.key),
    value: str(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: str(h.value) })),
    ...(r.deliveryCount !== undefined ? { deliveryCount: r.deliveryCount } : {}),
  }
}

const jsonCache = new WeakMap<ConsumedRecord, string>()

/**
 * recordEvent as JSON text, made once per record however many subscribers of the shared tail
 * it goes to (the record objects of one fetch are the same for all of them).
 */
export function recordJson(r: ConsumedRecord): string {
  let text = jsonCache.get(r)
  if (text === undefined) jsonCache.set(r, (text = JSON.stringify(recordEvent(r))))
  return text
}

/** Bytes of a field a client sent: text as UTF-8, or base64 when it says encoding "base64". */
export function fieldBytes(v: unknown, encoding: unknown, what: string): Buffer | null {
  if (v === null || v === undefined) return null
  if (typeof v !== 'string') throw new PushError(400, 40001, `${what} must be a string or null`)
  if (encoding === 'base64') return Buffer.from(v, 'base64')
  if (encoding !== undefined && encoding !== 'text') throw new PushError(400, 40001, 'encoding must be "text" or "base64"')
  return Buffer.from(v, 'utf8')
}
