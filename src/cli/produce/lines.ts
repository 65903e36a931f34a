// Turning the input of `tributary produce` into records: the delimiter and key separator options
// (with backslash escapes), a streaming line splitter, and the key/value split of a line.
//
// Everything works on bytes, never on decoded text, so a record holds exactly the bytes between two
// delimiters — UTF-8 or not, a '\r' before '\n' included — and a consumer printing value + '\n'
// gives back the input byte for byte. A trailing delimiter ends the last record; it does not start
// an empty one. An empty line inside the input is an empty record.
import { UsageError } from '../common.js'

const ESCAPES: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, '0': 0x00, '\\': 0x5c }

/**
 * The bytes of an option value with \n, \r, \t, \0, \\ and \xHH replaced (so `--delimiter '\0'`
 * works from any shell); other text is taken as UTF-8. `what` names the option in errors.
 */
export function parseEscapes(text: string, what: string): Buffer {
  const out: Buffer[] = []
  let plain = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c !== '\\') {
      plain += c
      continue
    }
    const e = text[i + 1]
    let byte: number | undefined
    if (e !== undefined && e in ESCAPES) {
      byte = ESCAPES[e]
      i++
    } else if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 2, i + 4))) {
      byte = Number.parseInt(text.slice(i + 2, i + 4), 16)
      i += 3
    } else {
      throw new UsageError(`${what} ${JSON.stringify(text)}: unknown escape '\\${e ?? ''}' (use \\n, \\r, \\t, \\0, \\\\ or \\xHH)`)
    }
    out.push(Buffer.from(plain, 'utf8'), Buffer.from([byte!]))
    plain = ''
  }
  out.push(Buffer.from(plain, 'utf8'))
  const bytes = Buffer.concat(out)
  if (bytes.length === 0) throw new UsageError(`${what} must not be empty`)
  return bytes
}

/** A line longer than the splitter's limit (no delimiter found within it). */
export class LineTooLongError extends Error {
  override name = 'LineTooLongError'
  constructor(
    /** 1-based number of the line. */
    readonly line: number,
    readonly limitBytes: number,
  ) {
    super(`line ${line} is longer than ${limitBytes} bytes`)
  }
}

/**
 * Splits a byte stream at a delimiter of one or more bytes, chunk by chunk. Lines inside one chunk
 * are views of it (no copy); a line spread over chunks is copied once, when it completes. Only
 * the unfinished line is held, and it may not exceed maxLineBytes.
 */
export class LineSplitter {
  /** Lines completed so far. */
  lines = 0
  private pending: Buffer[] = []
  private pendingLength = 0

  constructor(
    private readonly delimiter: Buffer,
    private readonly maxLineBytes: number = Number.MAX_SAFE_INTEGER,
  ) {
    if (delimiter.length === 0) throw new RangeError('empty delimiter')
  }

  /** Bytes of the unfinished line. */
  get pendingBytes(): number {
    return this.pendingLength
  }

  /** The lines this chunk completes, in order. Throws LineTooLongError past the limit. */
  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = []
    const d = this.delimiter
    let start = 0
    if (this.pendingLength > 0 && d.length > 1) start = this.straddling(chunk, out)
    for (;;) {
      const i = chunk.indexOf(d, start)
      if (i < 0) break
      const piece = chunk.subarray(start, i)
      this.emit(this.pendingLength > 0 ? this.takePending(piece) : piece, out)
      start = i + d.length
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start))
      this.pendingLength += chunk.length - start
      if (this.pendingLength > this.maxLineBytes) throw new LineTooLongError(this.lines + 1, this.maxLineBytes)
    }
    return out
  }

  /** The unfinished last line when the input ends (null if there is none), and a fresh start. */
  end(): Buffer | null {
    if (this.pendingLength === 0) return null
    const out: Buffer[] = []
    this.emit(this.takePending(Buffer.alloc(0)), out)
    return out[0]!
  }

  /**
   * A delimiter that starts in the pending bytes and ends in this chunk: emits the line before it
   * and returns where the chunk's own content starts (0 if there is no such delimiter).
   */
  private straddling(chunk: Buffer, out: Buffer[]): number {
    const d = this.delimiter
    const tail = this.pendingTail(d.length - 1)
    const joint = Buffer.concat([tail, chunk.subarray(0, d.length - 1)])
    const i = joint.indexOf(d)
    // An occurrence starting at i < tail.length crosses into the chunk (tail is too short to hold one).
    if (i < 0 || i >= tail.length) return 0
    const whole = this.takePending(Buffer.alloc(0))
    this.emit(whole.subarray(0, whole.length - (tail.length - i)), out)
    return i + d.length - tail.length
  }

  private pendingTail(n: number): Buffer {
    const parts: Buffer[] = []
    let have = 0
    for (let k = this.pending.length - 1; k >= 0 && have < n; k--) {
      const p = this.pending[k]!
      const take = Math.min(p.length, n - have)
      parts.unshift(p.subarray(p.length - take))
      have += take
    }
    return Buffer.concat(parts)
  }

  private takePending(last: Buffer): Buffer {
    const line = Buffer.concat([...this.pending, last])
    this.pending = []
    this.pendingLength = 0
    return line
  }

  private emit(line: Buffer, out: Buffer[]): void {
    this.lines++
    if (line.length > this.maxLineBytes) throw new LineTooLongError(this.lines, this.maxLineBytes)
    out.push(line)
  }
}

/** Key before the first separator and value after it; without a separator (or none given) a null key. */
export function splitKey(line: Buffer, separator: Buffer | null): { key: Buffer | null; value: Buffer } {
  if (separator === null) return { key: null, value: line }
  const i = line.indexOf(separator)
  if (i < 0) return { key: null, value: line }
  return { key: line.subarray(0, i), value: line.subarray(i + separator.length) }
}
