// Reusable buffers for segment reads (docs/architecture.md §4: no per-request garbage on hot paths).
//
// A consumer reading at full speed makes the broker read about a megabyte per partition per Fetch;
// with a fresh Buffer for each read, V8 spends its time collecting them (measured: 44 % of the
// broker's busy time under Kafka's ConsumerPerformance, in mark-compact collections driven by
// external memory). Reads of 64 KiB or more therefore take a buffer from size classes (powers of
// two up to 16 MiB), and the Fetch path gives it back once the socket has taken the response
// (RequestContext.afterResponse). A buffer that is never given back — any other reader, a response
// never written — is simply collected as before: giving back is an optimisation, never needed.
//
// Safety: release() accepts only buffers this pool handed out and not yet returned (a view of one
// — the records a read returns are a subarray — names it by its ArrayBuffer); anything else, or a
// second release, is ignored. The pool keeps at most MAX_POOLED_BYTES of free buffers.

const MIN_CLASS_BYTES = 64 * 1024
const MAX_CLASS_BYTES = 16 * 1024 * 1024
const MAX_POOLED_BYTES = 64 * 1024 * 1024

export class ReadBufferPool {
  private readonly free = new Map<number, ArrayBuffer[]>()
  /** Buffers handed out and not yet returned, with their class size. */
  private readonly out = new WeakMap<ArrayBuffer, number>()
  private pooledBytes = 0

  constructor(private readonly maxPooledBytes = MAX_POOLED_BYTES) {}

  /** A buffer of exactly `length` bytes (contents undefined). */
  acquire(length: number): Buffer {
    if (length < MIN_CLASS_BYTES || length > MAX_CLASS_BYTES) return Buffer.allocUnsafe(length)
    const size = classOf(length)
    const list = this.free.get(size)
    let ab = list?.pop()
    if (ab) this.pooledBytes -= size
    else ab = new ArrayBuffer(size)
    this.out.set(ab, size)
    return Buffer.from(ab, 0, length)
  }

  /** Gives back the buffer behind `view` (see the header); no effect for any other buffer. */
  release(view: Uint8Array): void {
    const ab = view.buffer
    if (!(ab instanceof ArrayBuffer)) return
    const size = this.out.get(ab)
    if (size === undefined) return
    this.out.delete(ab)
    if (this.pooledBytes + size > this.maxPooledBytes) return
    let list = this.free.get(size)
    if (!list) this.free.set(size, (list = []))
    list.push(ab)
    this.pooledBytes += size
  }

  /** Free bytes held (tests). */
  get pooled(): number {
    return this.pooledBytes
  }
}

function classOf(length: number): number {
  let size = MIN_CLASS_BYTES
  while (size < length) size *= 2
  return size
}

/** The pool segment reads use. */
export const readBuffers = new ReadBufferPool()
