// Kafka's framing, decoded incrementally, without I/O: every request is an int32 big-endian size
// followed by that many bytes.
//
// Why a pull decoder (push chunks, take frames with next()): the connection takes a frame only when
// it has room for one more in-flight request, so frames that arrived together in one TCP chunk wait
// here, as views on that chunk, rather than in a second queue.
//
// Why chunks are kept in a list: appending every 'data' chunk to the pending bytes with
// Buffer.concat copies the partial frame again on each chunk, O(n²) for a large frame read in small
// pieces. Here each byte is copied at most once, into a buffer allocated only when the whole frame
// has arrived, so a client declaring 100 MB and sending 10 bytes costs 10 bytes (CVE-2022-34917).
// A frame that lies inside one chunk is returned as a view on it, without a copy.

/** A size prefix Kafka would refuse (size < 0 or > socket.request.max.bytes), or 0: no request is empty. */
export class FrameSizeError extends Error {
  override name = 'FrameSizeError'
  constructor(
    readonly sizeBytes: number,
    readonly maxBytes: number,
  ) {
    super(`invalid frame size ${sizeBytes} (allowed 1..${maxBytes})`)
  }
}

const SIZE_PREFIX_BYTES = 4

export class FrameDecoder {
  private chunks: Buffer[] = []
  /** Index in `chunks` of the first chunk with unconsumed bytes. */
  private head = 0
  /** Bytes of chunks[head] already consumed. */
  private headOffset = 0
  private buffered = 0
  /** Size of the frame being assembled once its prefix has been read, else -1. */
  private frameSize = -1

  constructor(private readonly maxFrameBytes: number) {
    if (!Number.isInteger(maxFrameBytes) || maxFrameBytes < 1 || maxFrameBytes > 0x7fffffff) {
      throw new RangeError(`maxFrameBytes must be an integer in 1..2147483647, got ${maxFrameBytes}`)
    }
  }

  /** Bytes received and not yet returned in a frame (size prefixes included until read). */
  get bufferedBytes(): number {
    return this.buffered
  }

  /** True when part of a frame (or of its size prefix) has arrived but not all of it. */
  get hasPartialFrame(): boolean {
    return this.buffered > 0 || this.frameSize >= 0
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return
    this.chunks.push(chunk)
    this.buffered += chunk.length
  }

  /**
   * The next complete frame (without its size prefix), or undefined until more bytes arrive.
   * Throws FrameSizeError as soon as a bad size prefix is seen; the decoder is unusable after that.
   * `maxFrameBytes` lowers the limit for this frame (a SASL connection before authentication).
   */
  next(maxFrameBytes = this.maxFrameBytes): Buffer | undefined {
    if (this.frameSize < 0) {
      if (this.buffered < SIZE_PREFIX_BYTES) return undefined
      const size = this.readSize()
      if (size <= 0 || size > maxFrameBytes) throw new FrameSizeError(size, maxFrameBytes)
      this.frameSize = size
    }
    if (this.buffered < this.frameSize) return undefined
    const frame = this.take(this.frameSize)
    this.frameSize = -1
    return frame
  }

  private readSize(): number {
    const first = this.chunks[this.head]!
    if (first.length - this.headOffset >= SIZE_PREFIX_BYTES) {
      const size = first.readInt32BE(this.headOffset)
      this.consume(SIZE_PREFIX_BYTES)
      return size
    }
    return this.take(SIZE_PREFIX_BYTES).readInt32BE(0)
  }

  /** Removes n ≤ buffered bytes from the front: a view if they lie in one chunk, else one copy. */
  private take(n: number): Buffer {
    const first = this.chunks[this.head]!
    if (first.length - this.headOffset >= n) {
      const view = first.subarray(this.headOffset, this.headOffset + n)
      this.consume(n)
      return view
    }
    const out = Buffer.allocUnsafe(n)
    let filled = 0
    while (filled < n) {
      const chunk = this.chunks[this.head]!
      const count = Math.min(n - filled, chunk.length - this.headOffset)
      chunk.copy(out, filled, this.headOffset, this.headOffset + count)
      filled += count
      this.consume(count)
    }
    return out
  }

  /** Advances past n bytes of the head chunk (n ≤ what remains of it) and drops spent chunks. */
  private consume(n: number): void {
    this.buffered -= n
    this.headOffset += n
    if (this.headOffset < this.chunks[this.head]!.length) return
    this.chunks[this.head] = EMPTY // let the spent chunk be collected
    this.head++
    this.headOffset = 0
    if (this.head === this.chunks.length) {
      this.chunks = []
      this.head = 0
    } else if (this.head >= 1024 && this.head * 2 >= this.chunks.length) {
      this.chunks = this.chunks.slice(this.head)
      this.head = 0
    }
  }
}

const EMPTY = Buffer.alloc(0)
