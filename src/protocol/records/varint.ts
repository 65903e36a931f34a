// Zigzag varints as used inside v2 records (Protocol Buffers encoding): varint = zigzag int32 in at
// most 5 bytes, varlong = zigzag int64 in at most 10 bytes, limited here to safe JS integers. Reads
// are bounds-checked against an explicit end and fail with CORRUPT_MESSAGE, never past the record.
import { KafkaError } from '../errors.js'

const TWO_31 = 2147483648

export function sizeOfVarint(value: number): number {
  let v = ((value << 1) ^ (value >> 31)) >>> 0
  let n = 1
  while (v >= 0x80) {
    v >>>= 7
    n++
  }
  return n
}

/** Writes value (an int32) as a zigzag varint at pos; returns the position after it. */
export function writeVarint(buf: Buffer, value: number, pos: number): number {
  if (value < -TWO_31 || value >= TWO_31 || !Number.isInteger(value)) {
    throw new RangeError(`varint value ${value} is not an int32`)
  }
  let v = ((value << 1) ^ (value >> 31)) >>> 0
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80
    v >>>= 7
  }
  buf[pos++] = v
  return pos
}

function zigzag64(value: number): number {
  if (!Number.isSafeInteger(value)) throw new RangeError(`varlong value ${value} is not a safe integer`)
  return value >= 0 ? value * 2 : -value * 2 - 1
}

export function sizeOfVarlong(value: number): number {
  let v = zigzag64(value)
  let n = 1
  while (v >= 0x80) {
    v = Math.floor(v / 128)
    n++
  }
  return n
}

/** Writes value (a safe integer) as a zigzag varlong at pos; returns the position after it. */
export function writeVarlong(buf: Buffer, value: number, pos: number): number {
  let v = zigzag64(value)
  while (v >= 0x80) {
    buf[pos++] = (v % 128) | 0x80
    v = Math.floor(v / 128)
  }
  buf[pos++] = v
  return pos
}

/** A cursor over buf[pos..end) for decoding one record's fields. */
export class RecordReader {
  constructor(
    readonly buf: Buffer,
    public pos: number,
    public end: number,
  ) {}

  private corrupt(what: string): never {
    throw new KafkaError('CORRUPT_MESSAGE', `${what} at ${this.pos} runs past ${this.end}`)
  }

  get remaining(): number {
    return this.end - this.pos
  }

  readInt8(): number {
    if (this.pos >= this.end) this.corrupt('int8')
    return this.buf.readInt8(this.pos++)
  }

  readVarint(): number {
    let v = 0
    for (let shift = 0; shift < 35; shift += 7) {
      if (this.pos >= this.end) this.corrupt('varint')
      const b = this.buf[this.pos++]!
      v |= (b & 0x7f) << shift
      if ((b & 0x80) === 0) return (v >>> 1) ^ -(v & 1)
    }
    throw new KafkaError('CORRUPT_MESSAGE', `varint longer than 5 bytes at ${this.pos}`)
  }

  readVarlong(): number {
    let v = 0
    let mul = 1
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.corrupt('varlong')
      const b = this.buf[this.pos++]!
      v += (b & 0x7f) * mul
      if ((b & 0x80) === 0) {
        if (!Number.isSafeInteger(v)) {
          throw new KafkaError('CORRUPT_MESSAGE', `varlong at ${this.pos} is outside the safe integer range`)
        }
        return v % 2 === 0 ? v / 2 : -(v + 1) / 2
      }
      mul *= 128
    }
    throw new KafkaError('CORRUPT_MESSAGE', `varlong longer than 10 bytes at ${this.pos}`)
  }

  /** len bytes as a view (no copy). */
  readBytes(len: number): Buffer {
    if (len < 0 || len > this.end - this.pos) this.corrupt(`${len}-byte field`)
    const out = this.buf.subarray(this.pos, this.pos + len)
    this.pos += len
    return out
  }

  /** A varint length followed by that many bytes; -1 = null. */
  readNullableBytes(): Buffer | null {
    const len = this.readVarint()
    if (len === -1) return null
    if (len < -1) throw new KafkaError('CORRUPT_MESSAGE', `negative length ${len} at ${this.pos}`)
    return this.readBytes(len)
  }
}
