// Bounds-checked reader over one request frame. Every length prefix is checked against the bytes
// remaining before anything is allocated (CVE-2022-34917): a hostile length fails fast with a
// DecodeError, which the connection answers by closing.

export class DecodeError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'DecodeError'
  }
}

const TWO_32 = 4294967296

export class Reader {
  pos: number
  readonly end: number

  constructor(
    readonly buf: Buffer,
    start = 0,
    end = buf.length,
  ) {
    this.pos = start
    this.end = end
  }

  get remaining(): number {
    return this.end - this.pos
  }

  need(n: number): void {
    if (n < 0 || this.pos + n > this.end) {
      throw new DecodeError(`need ${n} bytes at ${this.pos}, ${this.end - this.pos} remain`)
    }
  }

  int8(): number {
    this.need(1)
    return this.buf.readInt8(this.pos++)
  }

  bool(): boolean {
    return this.int8() !== 0
  }

  int16(): number {
    this.need(2)
    const v = this.buf.readInt16BE(this.pos)
    this.pos += 2
    return v
  }

  uint16(): number {
    this.need(2)
    const v = this.buf.readUInt16BE(this.pos)
    this.pos += 2
    return v
  }

  int32(): number {
    this.need(4)
    const v = this.buf.readInt32BE(this.pos)
    this.pos += 4
    return v
  }

  uint32(): number {
    this.need(4)
    const v = this.buf.readUInt32BE(this.pos)
    this.pos += 4
    return v
  }

  /** int64 as a JS number (docs/architecture.md §1.4); values outside the safe integer range are refused. */
  int64(): number {
    this.need(8)
    const hi = this.buf.readInt32BE(this.pos)
    const lo = this.buf.readUInt32BE(this.pos + 4)
    this.pos += 8
    const v = hi * TWO_32 + lo
    if (!Number.isSafeInteger(v)) throw new DecodeError(`int64 out of the safe integer range at ${this.pos - 8}`)
    return v
  }

  /**
   * int64 for protocol fields, where Kafka accepts any value: outside the safe integer range it is
   * clamped to ±Number.MAX_SAFE_INTEGER (Long.MAX_VALUE as "no limit" keeps its meaning, and the
   * value can be written back). Storage keeps the strict int64() above.
   */
  int64Clamped(): number {
    this.need(8)
    const hi = this.buf.readInt32BE(this.pos)
    const lo = this.buf.readUInt32BE(this.pos + 4)
    this.pos += 8
    const v = hi * TWO_32 + lo
    if (v > Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER
    if (v < -Number.MAX_SAFE_INTEGER) return -Number.MAX_SAFE_INTEGER
    return v
  }

  /**
   * The length of a compact string, bytes or array (unsigned varint N+1; N < 0 is null). Like
   * Kafka's ByteUtils.readUnsignedVarint the varint is read as a 32-bit int, so a length of 2^31
   * or more reads as negative, i.e. null.
   */
  compactLength(): number {
    return (this.uvarint() | 0) - 1
  }

  float64(): number {
    this.need(8)
    const v = this.buf.readDoubleBE(this.pos)
    this.pos += 8
    return v
  }

  /**
   * Unsigned LEB128 varint, at most 5 bytes. As Kafka's ByteUtils.readUnsignedVarint, bits of the
   * fifth byte past the 32nd are dropped; a sixth byte is refused.
   */
  uvarint(): number {
    let result = 0
    let shift = 0
    for (let i = 0; i < 5; i++) {
      this.need(1)
      const b = this.buf[this.pos++]!
      result += (b & 0x7f) * 2 ** shift
      if ((b & 0x80) === 0) return result % 4294967296
      shift += 7
    }
    throw new DecodeError('varint longer than 5 bytes')
  }

  /** Zigzag-encoded signed varint (32 bits). */
  varint(): number {
    const u = this.uvarint()
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2
  }

  /** Zigzag-encoded signed varlong, within the safe integer range. */
  varlong(): number {
    let result = 0
    let mul = 1
    for (let i = 0; i < 10; i++) {
      this.need(1)
      const b = this.buf[this.pos++]!
      result += (b & 0x7f) * mul
      if ((b & 0x80) === 0) {
        if (!Number.isSafeInteger(result)) throw new DecodeError('varlong out of the safe integer range')
        return result % 2 === 0 ? result / 2 : -(result + 1) / 2
      }
      mul *= 128
    }
    throw new DecodeError('varlong longer than 10 bytes')
  }

  /** A view (no copy) of the next n bytes. */
  slice(n: number): Buffer {
    this.need(n)
    const b = this.buf.subarray(this.pos, this.pos + n)
    this.pos += n
    return b
  }

  utf8(n: number): string {
    this.need(n)
    const s = this.buf.toString('utf8', this.pos, this.pos + n)
    this.pos += n
    return s
  }

  skip(n: number): void {
    this.need(n)
    this.pos += n
  }
}
