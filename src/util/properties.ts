// Java `.properties` text, as java.util.Properties.load reads it and Kafka's server.properties and
// meta.properties use it. Shared by the broker config loader and the metadata store's
// meta.properties, so it lives in util/.
//
// Syntax handled (java.util.Properties#load(Reader)):
// - natural lines end in \n, \r or \r\n; a line whose first non-blank character is `#` or `!` is a
//   comment; blank lines are skipped;
// - a logical line continues on the next natural line when it ends in an odd number of
//   backslashes; the continuation's leading blanks (space, \t, \f) are dropped; a comment line never
//   continues;
// - the key runs to the first unescaped `=`, `:` or blank; blanks after the key, then one `=` or `:`,
//   then blanks are skipped; the rest of the line is the value (trailing blanks kept, like Java);
// - escapes in keys and values: \t \n \r \f, \uXXXX, and `\` + any other char = that char. A
//   malformed \uXXXX is an error (Java throws IllegalArgumentException).
// Text is decoded as UTF-8 by the caller (Java's InputStream overload assumes ISO-8859-1; UTF-8 is
// identical for ASCII files and kinder to everything else).
// Duplicate keys: the last one wins, as in Java.

export class PropertiesSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly detail: string,
  ) {
    super(`line ${line}: ${detail}`)
    this.name = 'PropertiesSyntaxError'
  }
}

export interface PropertyEntry {
  key: string
  value: string
  /** 1-based natural line where the logical line starts (for error messages). */
  line: number
}

const isBlank = (c: string): boolean => c === ' ' || c === '\t' || c === '\f'

/** Parses properties text into entries in file order (duplicates kept; callers take the last). */
export function parsePropertiesEntries(text: string): PropertyEntry[] {
  const lines = text.split(/\r\n|\r|\n/)
  const out: PropertyEntry[] = []
  let i = 0
  while (i < lines.length) {
    const startLine = i + 1
    let cur = stripLeading(lines[i]!)
    i++
    if (cur === '' || cur[0] === '#' || cur[0] === '!') continue
    // Join continuation lines: an odd count of trailing backslashes escapes the line break.
    while (endsWithOddBackslashes(cur)) {
      cur = cur.slice(0, -1)
      if (i >= lines.length) break
      cur += stripLeading(lines[i]!)
      i++
    }
    out.push(splitKeyValue(cur, startLine))
  }
  return out
}

/** Parses properties text into a map (last duplicate wins). */
export function parseProperties(text: string): Map<string, string> {
  const map = new Map<string, string>()
  for (const e of parsePropertiesEntries(text)) map.set(e.key, e.value)
  return map
}

function stripLeading(s: string): string {
  let k = 0
  while (k < s.length && isBlank(s[k]!)) k++
  return s.slice(k)
}

function endsWithOddBackslashes(s: string): boolean {
  let n = 0
  for (let k = s.length - 1; k >= 0 && s[k] === '\\'; k--) n++
  return n % 2 === 1
}

function splitKeyValue(line: string, lineNo: number): PropertyEntry {
  // Find the end of the key: first unescaped '=', ':' or blank.
  let k = 0
  while (k < line.length) {
    const c = line[k]!
    if (c === '\\') {
      k += 2
      continue
    }
    if (c === '=' || c === ':' || isBlank(c)) break
    k++
  }
  const rawKey = line.slice(0, Math.min(k, line.length))
  let v = k
  while (v < line.length && isBlank(line[v]!)) v++
  if (v < line.length && (line[v] === '=' || line[v] === ':')) {
    v++
    while (v < line.length && isBlank(line[v]!)) v++
  }
  return {
    key: unescapeText(rawKey, lineNo),
    value: unescapeText(line.slice(v), lineNo),
    line: lineNo,
  }
}

function unescapeText(s: string, lineNo: number): string {
  if (!s.includes('\\')) return s
  let out = ''
  for (let k = 0; k < s.length; k++) {
    const c = s[k]!
    if (c !== '\\') {
      out += c
      continue
    }
    k++
    if (k >= s.length) break // a lone trailing backslash (end of file) is dropped, as in Java
    const e = s[k]!
    switch (e) {
      case 't':
        out += '\t'
        break
      case 'n':
        out += '\n'
        break
      case 'r':
        out += '\r'
        break
      case 'f':
        out += '\f'
        break
      case 'u': {
        const hex = s.slice(k + 1, k + 5)
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
          throw new PropertiesSyntaxError(lineNo, `malformed \\uXXXX escape "\\u${hex}"`)
        }
        out += String.fromCharCode(Number.parseInt(hex, 16))
        k += 4
        break
      }
      default:
        out += e
    }
  }
  return out
}

/**
 * Formats entries as properties text that parseProperties reads back unchanged: `key=value` lines,
 * with `\`, line breaks, leading blanks and (in keys) `=`, `:`, blanks and comment starts escaped.
 */
export function formatProperties(entries: Iterable<[string, string]>, header?: string): string {
  let out = ''
  if (header !== undefined) for (const l of header.split('\n')) out += `#${l}\n`
  for (const [k, v] of entries) out += `${escapeText(k, true)}=${escapeText(v, false)}\n`
  return out
}

function escapeText(s: string, isKey: boolean): string {
  let out = ''
  for (let k = 0; k < s.length; k++) {
    const c = s[k]!
    switch (c) {
      case '\\':
        out += '\\\\'
        break
      case '\n':
        out += '\\n'
        break
      case '\r':
        out += '\\r'
        break
      case '\t':
        out += '\\t'
        break
      case '\f':
        out += '\\f'
        break
      case ' ':
        out += isKey || k === 0 ? '\\ ' : ' '
        break
      case '=':
      case ':':
        out += isKey ? `\\${c}` : c
        break
      case '#':
      case '!':
        out += isKey && k === 0 ? `\\${c}` : c
        break
      default:
        out += c
    }
  }
  return out
}
