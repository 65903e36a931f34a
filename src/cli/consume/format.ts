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
// Bytes become text per --encoding: utf8 (default; invalid sequences become U+FFFD), base64 or hex
// (for binary data) — for keys, values and header values alike.
import type { ConsumedRecord } from '../../client/consumer.js'
import { UsageError } from '../common.js'

export const ENCODINGS = ['utf8', 'base64', 'hex'] as const
export type Encoding = (typeof ENCODINGS)[number]

export const DEFAULT_TEMPLATE = '%v\\n'

type Part = string | ((r: ConsumedRecord, enc: Encoding) => string)

const text = (b: Buffer | null, enc: Encoding): string => (b === null ? '' : b.toString(enc))

const FIELDS: Record<string, (r: ConsumedRecord, enc: Encoding) => string> = {
  k: (r, enc) => text(r.key, enc),
  v: (r, enc) => text(r.value, enc),
  t: (r) => r.topic,
  p: (r) => String(r.partition),
  o: (r) => String(r.offset),
  T: (r) => String(r.timestamp),
  h: (r, enc) => r.headers.map((h) => `${h.key}=${text(h.value, enc)}`).join(','),
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\' }

/** Compiles a template into a record formatter; throws UsageError on an unknown % or \ sequence. */
export function compileTemplate(template: string, encoding: Encoding = 'utf8'): (r: ConsumedRecord) => string {
  const parts: Part[] = []
  let literal = ''
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!
    if (c !== '%' && c !== '\\') {
      literal += c
      continue
    }
    const next = template[++i]
    if (next === undefined) throw new UsageError(`--format ${JSON.stringify(template)}: a lone ${c} at the end; write ${c}${c} for a literal ${c}`)
    if (c === '\\') {
      const esc = ESCAPES[next]
      if (esc === undefined) throw new UsageError(`--format: unknown escape \\${next}; use \\n, \\t, \\r or \\\\`)
      literal += esc
    } else if (next === '%') {
      literal += '%'
    } else {
      const field = FIELDS[next]
      if (!field) throw new UsageError(`--format: unknown field %${next}; use %k %v %t %p %o %T %h or %%`)
      if (literal !== '') parts.push(literal)
      literal = ''
      parts.push(field)
    }
  }
  if (literal !== '') parts.push(literal)
  return (r) => {
    let out = ''
    for (const p of parts) out += typeof p === 'string' ? p : p(r, encoding)
    return out
  }
}

/** One JSON line (with its newline). */
export function jsonLine(r: ConsumedRecord, encoding: Encoding = 'utf8'): string {
  const bytes = (b: Buffer | null) => (b === null ? null : b.toString(encoding))
  return `${JSON.stringify({
    topic: r.topic,
    partition: r.partition,
    offset: r.offset,
    timestamp: r.timestamp,
    key: bytes(r.key),
    value: bytes(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: bytes(h.value) })),
  })}\n`
}
