// Growable encoder. Large byte fields (record batches) can be spliced in without copying:
// `splice` closes the current chunk and appends the caller's buffer to the chunk list, so a Fetch
// response goes to the socket as [header+fields, stored batches, fields, ...] (docs/architecture.md §4).

const TWO_32 = 4294967296
const SPLICE_MIN = 4096

export class Writer {
  private buf: Buffer
  private pos = 0
  private readonly chunks: Buffer[] = []
  private chunkBytes = 0

  constructor(initialBytes = 256) {
    this.buf = Buffer.allocUnsafe(initialBytes)
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.pos + n) size *= 2
    const next = Buffer.allocUnsafe(size)
    this.buf.copy(next, 0, 0, this.pos)
    this.buf = next
  }

  /** Bytes written so far, spliced chunks included. */
  get length(): number {
    return this.chunkBytes + this.pos
  }

  int8(v: number): this {
    this.ensure(1)
    this.buf.writeInt8(v, this.pos++)
    return this
  }

  bool(v: boolean): this {
    return this.int8(v ? 1 : 0)
  }

  int16(v: number): this {
    this.ensure(2)
    this.buf.writeInt16BE(v, this.pos)
    this.pos += 2
    return this
  }

  uint16(v: number): this {
    this.ensure(2)
    this.buf.writeUInt16BE(v, this.pos)
    this.pos += 2
    return this
  }

  int32(v: number): this {
    this.ensure(4)
    this.buf.writeInt32BE(v, this.pos)
    this.pos += 4
    return this
  }

  uint32(v: number): this {
    this.ensure(4)
    this.buf.writeUInt32BE(v, this.pos)
    this.pos += 4
    return this
  }

  int64(v: number): this {
    this.ensure(8)
    const hi = Math.floor(v / TWO_32)
    const lo = v - hi * TWO_32
    this.buf.writeInt32BE(hi, this.pos)
    this.buf.writeUInt32BE(lo, this.pos + 4)
    this.pos += 8
    return this
  }

  float64(v: number): this {
    this.ensure(8)
    this.buf.writeDoubleBE(v, this.pos)
    this.pos += 8
    return this
  }

  uvarint(v: number): this {
    this.ensure(5)
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80
      v = Math.floor(v / 128)
    }
    this.buf[this.pos++] = v
    return this
  }

  varint(v: number): this {
    return this.uvarint(v >= 0 ? v * 2 : -v * 2 - 1)
  }

  varlong(v: number): this {
    let u = v >= 0 ? v * 2 : -v * 2 - 1
    this.ensure(10)
    while (u >= 0x80) {
      this.buf[this.pos++] = (u % 128) | 0x80
      u = Math.floor(u / 128)
    }
    this.buf[this.pos++] = u
    return this
  }

  utf8(s: string, byteLength: number): this {
    this.ensure(byteLength)
    this.buf.write(s, this.pos, byteLength, 'utf8')
    this.pos += byteLength
    return this
  }

  bytes(b: Uint8Array): this {
    if (b.length >= SPLICE_MIN) return this.splice(b)
    this.ensure(b.length)
    this.buf.set(b, this.pos)
    this.pos += b.length
    return this
  }

  /** Appends b by reference; b must not change until the chunks have been written out. */
  splice(b: Uint8Array): this {
    if (this.pos > 0) {
      this.chunks.push(this.buf.subarray(0, this.pos))
      this.chunkBytes += this.pos
      this.buf = this.buf.subarray(this.pos)
      this.pos = 0
    }
    const chunk = Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.length)
    this.chunks.push(chunk)
    this.chunkBytes += chunk.length
    if (this.buf.length < 64) this.buf = Buffer.allocUnsafe(256)
    return this
  }

  /** The encoded bytes as chunks, in order (no concatenation). */
  toChunks(): Buffer[] {
    if (this.pos > 0 || this.chunks.length === 0) {
      const out = this.chunks.slice()
      out.push(this.buf.subarray(0, this.pos))
      return out
    }
    return this.chunks.slice()
  }

  /** The encoded bytes as one buffer (tests, small messages). */
  toBuffer(): Buffer {
    const chunks = this.toChunks()
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
  }
}
