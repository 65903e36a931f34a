// Kafka's sasl.jaas.config syntax, parsed as strictly as Kafka's JaasConfig (a java.io.StreamTokenizer
// with // and /* */ comments, words of letters, digits, '.', '-', '_' and '$', quoted strings):
//   <LoginModuleClass> <controlFlag> (<option>=<value>)* ;
// e.g. org.apache.kafka.common.security.plain.PlainLoginModule required username="admin"
//      password="admin-secret" user_alice="alice-secret";
// The control flag is required, requisite, sufficient or optional (any case). A value is a word or
// a quoted string (backslash escapes as in Java); a bare number is not a value, as in Kafka. A SASL
// listener takes exactly one login module (Kafka's JaasContext).
//
// Option values are secrets (passwords): no error message quotes a value, only option names.

export interface JaasEntry {
  loginModule: string
  controlFlag: 'required' | 'requisite' | 'sufficient' | 'optional'
  options: ReadonlyMap<string, string>
}

export class JaasSyntaxError extends Error {
  override name = 'JaasSyntaxError'
}

type Token = { kind: 'word' | 'quoted'; text: string } | { kind: 'number' } | { kind: 'char'; char: string } | { kind: 'eof' }

const WORD_START = /[A-Za-z_$\u00a0-\u00ff]/
const WORD_PART = /[A-Za-z0-9_$.\-\u00a0-\u00ff]/
const NUMBER_START = /[0-9.-]/
const ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' }

class Tokenizer {
  private i = 0
  constructor(private readonly s: string) {}

  next(): Token {
    const s = this.s
    for (;;) {
      while (this.i < s.length && s.charCodeAt(this.i) <= 32) this.i++
      if (s.startsWith('//', this.i)) {
        const nl = s.indexOf('\n', this.i)
        this.i = nl < 0 ? s.length : nl + 1
      } else if (s.startsWith('/*', this.i)) {
        const end = s.indexOf('*/', this.i + 2)
        this.i = end < 0 ? s.length : end + 2
      } else break
    }
    if (this.i >= s.length) return { kind: 'eof' }
    const c = s[this.i]!
    if (WORD_START.test(c)) {
      const start = this.i
      while (this.i < s.length && WORD_PART.test(s[this.i]!)) this.i++
      return { kind: 'word', text: s.slice(start, this.i) }
    }
    if (NUMBER_START.test(c)) {
      const next = s[this.i + 1]
      if (c === '-' && (next === undefined || !/[0-9.]/.test(next))) {
        this.i++
        return { kind: 'char', char: c }
      }
      this.i++
      while (this.i < s.length && /[0-9.]/.test(s[this.i]!)) this.i++
      return { kind: 'number' }
    }
    if (c === '"' || c === "'") return this.quoted(c)
    this.i++
    return { kind: 'char', char: c }
  }

  /** A quoted string ends at its quote, or (as in StreamTokenizer) at the end of the line. */
  private quoted(quote: string): Token {
    const s = this.s
    this.i++
    let out = ''
    while (this.i < s.length && s[this.i] !== quote && s[this.i] !== '\n' && s[this.i] !== '\r') {
      let c = s[this.i++]!
      if (c === '\\' && this.i < s.length) {
        const e = s[this.i++]!
        if (e >= '0' && e <= '7') {
          // Up to three octal digits, the third only after a first of 0..3 (StreamTokenizer's rule).
          let n = e.charCodeAt(0) - 48
          for (let k = e <= '3' ? 2 : 1; k > 0 && this.i < s.length && s[this.i]! >= '0' && s[this.i]! <= '7'; k--) {
            n = n * 8 + s.charCodeAt(this.i++) - 48
          }
          c = String.fromCharCode(n)
        } else c = ESCAPES[e] ?? e
      }
      out += c
    }
    if (s[this.i] === quote) this.i++
    return { kind: 'quoted', text: out }
  }
}

function textOf(t: Token): string | undefined {
  return t.kind === 'word' || t.kind === 'quoted' ? t.text : undefined
}

/** Parses a JAAS config text into its login module entries; throws JaasSyntaxError (never quoting a value). */
export function parseJaasConfig(text: string): JaasEntry[] {
  const tok = new Tokenizer(text)
  const entries: JaasEntry[] = []
  for (let t = tok.next(); t.kind !== 'eof'; t = tok.next()) {
    const loginModule = textOf(t)
    if (loginModule === undefined) throw new JaasSyntaxError('expected a login module class name')
    const flagToken = tok.next()
    if (flagToken.kind === 'eof') throw new JaasSyntaxError('Login module control flag not specified in JAAS config')
    const flag = textOf(flagToken)?.toLowerCase()
    if (flag !== 'required' && flag !== 'requisite' && flag !== 'sufficient' && flag !== 'optional') {
      throw new JaasSyntaxError(`Invalid login module control flag in JAAS config (expected required, requisite, sufficient or optional)`)
    }
    const options = new Map<string, string>()
    let o = tok.next()
    while (o.kind !== 'eof' && !(o.kind === 'char' && o.char === ';')) {
      const key = textOf(o)
      if (key === undefined) throw new JaasSyntaxError('expected an option name or ";" in JAAS config')
      const eq = tok.next()
      const value = eq.kind === 'char' && eq.char === '=' ? textOf(tok.next()) : undefined
      if (value === undefined) throw new JaasSyntaxError(`Value not specified for key '${key}' in JAAS config`)
      options.set(key, value)
      o = tok.next()
    }
    if (o.kind === 'eof') throw new JaasSyntaxError('JAAS config entry not terminated by semi-colon')
    entries.push({ loginModule, controlFlag: flag, options })
  }
  if (entries.length === 0) throw new JaasSyntaxError('Login module not specified in JAAS config')
  return entries
}

/** The one login module a SASL mechanism's JAAS config must have (Kafka's JaasContext). */
export function parseSaslJaasConfig(text: string): JaasEntry {
  const entries = parseJaasConfig(text)
  if (entries.length !== 1) {
    throw new JaasSyntaxError(`JAAS config property contains ${entries.length} login modules, should be 1 module`)
  }
  return entries[0]!
}
