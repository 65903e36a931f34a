// How `tributary consume` prints a record: a --format template, or a JSON line with --json.
//
// Template syntax (kcat's, which rpk shares): %-codes for the fields, backslash escapes for
// control characters; nothing is added at the end, so a template ends with \n to print one record
// per line. The default template is "%v\n" (the value, one per line, as kafka-console-consumer).
//
//   %k key   %v value   %t topic   %p partition   %o offset   %T timestamp (ms since the epoch)
//   %h headers as k=v,k2=v2   %% a literal %      \n newline  \t tab  \r carriage return  \\ backslash
//
// A null key or value prints as nothing; so does a null header value (`k=`). Any other % or \
// sequence is a usage error, so a typo does not silently print garbage.
//
// --json prints {topic,partition,offset,timestamp,key,value,headers}, one object per line; key and
// value are strings or null, headers an array of {key,value} (header keys may repeat).
//
// Bytes become text per --encoding — for keys, values and header values alike: utf8 (default)
// writes a template's fields as the stored bytes, untouched, so whatever `tributary produce` read
// comes out byte for byte (in JSON, invalid UTF-8 becomes U+FFFD); base64 or hex for binary data.
import type { ConsumedRecord } from '../../client/consumer.js'
import { UsageError } from '../common.js'

export const ENCODINGS = ['utf8', 'base64', 'hex'] as const
export type Encoding = (typeof ENCODINGS)[number]

export const DEFAULT_TEMPLATE = '%v\\n'

type Field = (r: ConsumedRecord, enc: Encoding) => Buffer | string
type Part = Buffer | Field

const EMPTY = Buffer.alloc(0)
/** utf8: the stored bytes themselves; base64/hex: their text form. */
const bytes = (b: Buffer | null, enc: Encoding): Buffer | string => (b === null ? EMPTY : enc === 'utf8' ? b : b.toString(enc))

const FIELDS: Record<string, Field> = {
  k: (r, enc) => bytes(r.key, enc),
  v: (r, enc) => bytes(r.value, enc),
  t: (r) => r.topic,
  p: (r) => String(r.partition),
  o: (r) => String(r.offset),
  T: (r) => String(r.timestamp),
  h: (r, enc) =>
    Buffer.concat(r.headers.flatMap((h, i) => [Buffer.from(`${i > 0 ? ',' : ''}${h.key}=`), Buffer.from(bytes(h.value, enc))])),
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\' }

/** Compiles a template into a record formatter; throws UsageError on an unknown % or \ sequence. */
export function compileTemplate(template: string, encoding: Encoding = 'utf8'): (r: ConsumedRecord) => Buffer {
  const parts: Part[] = []
  let literal = ''
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!
    if (c !== '%' && c !== '\\') {
      literal += c
      continue
    }
    const next = template[++i]
    if (next === undefined)
      throw new UsageError(`--format ${JSON.stringify(template)}: a lone ${c} at the end; write ${c}${c} for a literal ${c}`)
    if (c === '\\') {
      const esc = ESCAPES[next]
      if (esc === undefined) throw new UsageError(`--format: unknown escape \\${next}; use \\n, \\t, \\r or \\\\`)
      literal += esc
    } else if (next === '%') {
      literal += '%'
    } else {
      const field = FIELDS[next]
      if (!field) throw new UsageError(`--format: unknown field %${next}; use %k %v %t %p %o %T %h or %%`)
      if (literal !== '') parts.push(Buffer.from(literal))
      literal = ''
      parts.push(field)
    }
  }
  if (literal !== '') parts.push(Buffer.from(literal))
  return (r) => Buffer.concat(parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p(r, encoding)))))
}

/** One JSON line (with its newline). */
export function jsonLine(r: ConsumedRecord, encoding: Encoding = 'utf8'): Buffer {
  const text = (b: Buffer | null) => (b === null ? null : b.toString(encoding))
  return Buffer.from(
    `${JSON.stringify({
      topic: r.topic,
      partition: r.partition,
      offset: r.offset,
      timestamp: r.timestamp,
      key: text(r.key),
      value: text(r.value),
      headers: r.headers.map((h) => ({ key: h.key, value: text(h.value) })),
      // Share groups (KIP-932): how many times the record has been delivered.
      ...('deliveryCount' in r ? { deliveryCount: r.deliveryCount } : {}),
    })}\n`,
  )
}
