// Record batch compression codecs (attributes bits 0-2), in the byte formats Kafka's clients write:
//
//   1 gzip    an RFC 1952 stream (node:zlib)
//   2 snappy  the xerial snappy-java framing the Java client writes — magic 82 'SNAPPY' 00, int32
//             version, int32 compatible version, then [int32 length, raw snappy block]* — or, as
//             librdkafka and kafkajs write it, one raw snappy block (the `snappy` package, napi-rs)
//   3 lz4     the LZ4 frame format with the correct header checksum (KIP-57; magic v2 batches never
//             use the old broken one) (frames parsed here, blocks by the `lz4-napi` package)
//   4 zstd    zstd frames (libzstd compiled to WebAssembly, the `@bokuweb/zstd-wasm` package)
// Codecs 5-7 do not exist: UNSUPPORTED_COMPRESSION_TYPE.
//
// Decompression is bounded: `decompress(codec, data, maxBytes)` never produces, nor allocates for,
// more than maxBytes of output — a compression bomb (a few KB expanding to gigabytes) is refused
// with INVALID_RECORD, not followed. Each codec enforces the bound while decoding, not afterwards:
// gzip through zlib's maxOutputLength (output is produced in chunks and counted); snappy by each
// block's declared length, checked against what is left before the block is decoded; lz4 block by
// block with a running total (each block's output is capped at the frame's declared block size);
// zstd by walking the frames' block headers first (every block declares its size or an upper bound
// of 128 KiB) and decoding into an output buffer of min(that bound, maxBytes), which libzstd cannot
// overrun. Undecodable data is CORRUPT_MESSAGE, as Kafka answers for a batch it cannot read. LZ4
// block and content checksums are skipped, not verified: the batch's CRC-32C already covers them.
//
// The packages were chosen because they install from the npm registry without downloading or
// building anything at install time and work on Node 20 (see the README's Compression section).
// The native snappy and lz4 addons are loaded on first use (a process that never meets those codecs
// does not pay for them, and a platform without a prebuilt binary still runs, answering
// UNSUPPORTED_COMPRESSION_TYPE for that codec); the zstd WebAssembly module is instantiated when
// this module loads (top-level await: its API is synchronous once instantiated).
import { createRequire } from 'node:module'
import { gunzipSync, gzipSync } from 'node:zlib'
import { KafkaError } from '../errors.js'

/**
 * Codec ids of the batch attributes' low 3 bits (batch.ts re-exports them as CompressionType; they
 * are declared here so that this module imports nothing else of the records layer).
 */
export const CompressionType = { None: 0, Gzip: 1, Snappy: 2, Lz4: 3, Zstd: 4 } as const

const require = createRequire(import.meta.url)

interface SnappyLib {
  compressSync(input: Uint8Array): Buffer
  uncompressSync(input: Uint8Array, options: { asBuffer: true }): Buffer | string
}
interface Lz4Lib {
  compressFrameSync(data: Buffer): Buffer
  uncompressSync(data: Uint8Array, dict?: Uint8Array): Buffer
}
interface ZstdLib {
  init(): Promise<void>
  compress(buf: Uint8Array, level?: number): Uint8Array
  decompress(buf: Uint8Array, opts?: { defaultHeapSize: number }): Uint8Array
}

const libraries = new Map<string, unknown>()

/** The codec's package, loaded on first use; UNSUPPORTED_COMPRESSION_TYPE if it cannot load here. */
function library<T>(name: string): T {
  let lib = libraries.get(name)
  if (lib === undefined) {
    try {
      lib = require(name) as T
    } catch (err) {
      lib = err instanceof Error ? err : new Error(String(err))
    }
    libraries.set(name, lib)
  }
  if (lib instanceof Error) {
    throw new KafkaError('UNSUPPORTED_COMPRESSION_TYPE', `the ${name} package cannot be loaded on this platform: ${lib.message}`)
  }
  return lib as T
}

const snappyLib = () => library<SnappyLib>('snappy')
const lz4Lib = () => library<Lz4Lib>('lz4-napi')

const zstdLoaded: ZstdLib | Error = await (async () => {
  try {
    const lib = require('@bokuweb/zstd-wasm') as ZstdLib
    await lib.init()
    return lib
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  }
})()

function zstdLib(): ZstdLib {
  if (zstdLoaded instanceof Error) {
    throw new KafkaError('UNSUPPORTED_COMPRESSION_TYPE', `the zstd WebAssembly module cannot be loaded: ${zstdLoaded.message}`)
  }
  return zstdLoaded
}

/** Codec names as Kafka's compression.type spells them (none = `uncompressed` in topic configs). */
export const CODEC_NAMES: Readonly<Record<number, string>> = { 0: 'none', 1: 'gzip', 2: 'snappy', 3: 'lz4', 4: 'zstd' }

/** The codec id of a compression.type / CLI name (`none` and `uncompressed` are 0); undefined otherwise. */
export function codecByName(name: string): number | undefined {
  switch (name) {
    case 'none':
    case 'uncompressed':
      return CompressionType.None
    case 'gzip':
      return CompressionType.Gzip
    case 'snappy':
      return CompressionType.Snappy
    case 'lz4':
      return CompressionType.Lz4
    case 'zstd':
      return CompressionType.Zstd
    default:
      return undefined
  }
}

/** Default bound on one batch's decompressed records when a caller has no configured one (64 MiB). */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024

function unsupported(codec: number): KafkaError {
  return new KafkaError('UNSUPPORTED_COMPRESSION_TYPE', `unknown compression codec ${codec}`)
}

function corrupt(codec: number, what: string): KafkaError {
  return new KafkaError('CORRUPT_MESSAGE', `${CODEC_NAMES[codec] ?? codec} data is corrupt: ${what}`)
}

function tooLarge(codec: number, maxBytes: number): KafkaError {
  return new KafkaError(
    'INVALID_RECORD',
    `${CODEC_NAMES[codec] ?? codec} batch decompresses to more than the ${maxBytes}-byte limit (tributary.max.decompressed.batch.bytes)`,
  )
}

/**
 * Compresses a batch's records section with the codec (1-4). `level` is the KIP-390 level
 * (compression.gzip.level: -1 or 1-9, compression.zstd.level); undefined takes the codec's default;
 * snappy and lz4 (lz4_flex has a single, fast mode) take no level.
 */
export function compress(codec: number, data: Buffer, level?: number): Buffer {
  switch (codec) {
    case CompressionType.None:
      return data
    case CompressionType.Gzip:
      return gzipSync(data, level === undefined ? {} : { level }) // -1 is zlib's default level
    case CompressionType.Snappy:
      return snappyXerialCompress(data)
    case CompressionType.Lz4:
      return lz4Lib().compressFrameSync(data)
    case CompressionType.Zstd: {
      const out = zstdLib().compress(data, level ?? 3)
      return Buffer.from(out.buffer, out.byteOffset, out.byteLength)
    }
    default:
      throw unsupported(codec)
  }
}

/**
 * Decompresses a batch's records section. Throws KafkaError CORRUPT_MESSAGE when the data cannot be
 * decoded, INVALID_RECORD when the output would exceed maxBytes (checked while decoding, see the
 * header), UNSUPPORTED_COMPRESSION_TYPE for codecs 5-7.
 */
export function decompress(codec: number, data: Buffer, maxBytes: number): Buffer {
  switch (codec) {
    case CompressionType.None:
      if (data.length > maxBytes) throw tooLarge(codec, maxBytes)
      return data
    case CompressionType.Gzip:
      return gunzipBounded(data, maxBytes)
    case CompressionType.Snappy:
      return snappyDecompress(data, maxBytes)
    case CompressionType.Lz4:
      return lz4Decompress(data, maxBytes)
    case CompressionType.Zstd:
      return zstdDecompress(data, maxBytes)
    default:
      throw unsupported(codec)
  }
}

// ---------------------------------------------------------------------------------------------
// gzip
// ---------------------------------------------------------------------------------------------

function gunzipBounded(data: Buffer, maxBytes: number): Buffer {
  try {
    // zlib inflates in chunks and stops with ERR_BUFFER_TOO_LARGE once their total passes the limit.
    return gunzipSync(data, { maxOutputLength: Math.max(1, maxBytes) })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(CompressionType.Gzip, maxBytes)
    throw corrupt(CompressionType.Gzip, (err as Error).message)
  }
}

// ---------------------------------------------------------------------------------------------
// snappy
// ---------------------------------------------------------------------------------------------

/** 0x82 'SNAPPY' 0x00: snappy-java's stream header magic. */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00])
/** Magic + int32 version + int32 minimum compatible version. */
const XERIAL_HEADER_SIZE = 16
/** snappy-java's SnappyOutputStream default block size, as Kafka's producer uses it. */
const XERIAL_BLOCK_SIZE = 32 * 1024

function isXerial(data: Buffer, pos: number): boolean {
  return data.length - pos >= XERIAL_HEADER_SIZE && data.compare(XERIAL_MAGIC, 0, 8, pos, pos + 8) === 0
}

/** snappy-java framing, version 1 / compatible 1, blocks of 32 KiB, as the Java producer writes. */
function snappyXerialCompress(data: Buffer): Buffer {
  const parts: Buffer[] = []
  const header = Buffer.alloc(XERIAL_HEADER_SIZE)
  XERIAL_MAGIC.copy(header, 0)
  header.writeInt32BE(1, 8)
  header.writeInt32BE(1, 12)
  parts.push(header)
  for (let pos = 0; pos < data.length; pos += XERIAL_BLOCK_SIZE) {
    const block = snappyLib().compressSync(data.subarray(pos, Math.min(data.length, pos + XERIAL_BLOCK_SIZE)))
    const len = Buffer.alloc(4)
    len.writeInt32BE(block.length, 0)
    parts.push(len, block)
  }
  return Buffer.concat(parts)
}

/** The uncompressed length a raw snappy block declares (its leading varint, ≤ 32 bits). */
function snappyDeclaredLength(block: Buffer): number {
  let result = 0
  for (let i = 0; i < 5; i++) {
    if (i >= block.length) throw corrupt(CompressionType.Snappy, 'truncated block length')
    const b = block[i]!
    result += (b & 0x7f) * 2 ** (7 * i)
    if ((b & 0x80) === 0) {
      if (result > 0xffffffff) break
      return result
    }
  }
  throw corrupt(CompressionType.Snappy, 'invalid block length')
}

function snappyBlock(block: Buffer, room: number, maxBytes: number): Buffer {
  // The declared length is checked before the block is decoded: the decoder allocates exactly it,
  // and fails if the block does not produce exactly it.
  if (snappyDeclaredLength(block) > room) throw tooLarge(CompressionType.Snappy, maxBytes)
  const lib = snappyLib()
  try {
    return lib.uncompressSync(block, { asBuffer: true }) as Buffer
  } catch (err) {
    throw corrupt(CompressionType.Snappy, (err as Error).message)
  }
}

function snappyDecompress(data: Buffer, maxBytes: number): Buffer {
  if (!isXerial(data, 0)) return snappyBlock(data, maxBytes, maxBytes)
  const parts: Buffer[] = []
  let total = 0
  let pos = 0
  while (pos < data.length) {
    // snappy-java reads concatenated streams: a header may start again at any block boundary.
    if (isXerial(data, pos)) {
      pos += XERIAL_HEADER_SIZE
      continue
    }
    if (data.length - pos < 4) throw corrupt(CompressionType.Snappy, 'truncated block header')
    const len = data.readInt32BE(pos)
    pos += 4
    if (len < 0 || len > data.length - pos) throw corrupt(CompressionType.Snappy, `block of ${len} bytes runs past the data`)
    const out = snappyBlock(data.subarray(pos, pos + len), maxBytes - total, maxBytes)
    total += out.length
    parts.push(out)
    pos += len
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total)
}

// ---------------------------------------------------------------------------------------------
// lz4 (frame format: https://github.com/lz4/lz4/blob/dev/doc/lz4_Frame_format.md)
// ---------------------------------------------------------------------------------------------

const LZ4_MAGIC = 0x184d2204
const SKIPPABLE_MAGIC_MASK = 0xfffffff0
const SKIPPABLE_MAGIC = 0x184d2a50
/** Block maximum sizes by the BD byte's id (4-7). */
const LZ4_BLOCK_MAX: Readonly<Record<number, number>> = { 4: 64 * 1024, 5: 256 * 1024, 6: 1024 * 1024, 7: 4 * 1024 * 1024 }
/** Linked blocks may refer to the previous 64 KiB of output. */
const LZ4_WINDOW = 64 * 1024

function lz4Decompress(data: Buffer, maxBytes: number): Buffer {
  const frames: Buffer[] = []
  let total = 0
  let pos = 0
  if (data.length === 0) throw corrupt(CompressionType.Lz4, 'no frame')
  while (pos < data.length) {
    if (data.length - pos < 4) throw corrupt(CompressionType.Lz4, 'truncated frame magic')
    const magic = data.readUInt32LE(pos)
    if ((magic & SKIPPABLE_MAGIC_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      if (data.length - pos < 8) throw corrupt(CompressionType.Lz4, 'truncated skippable frame')
      pos += 8 + data.readUInt32LE(pos + 4)
      if (pos > data.length) throw corrupt(CompressionType.Lz4, 'skippable frame runs past the data')
      continue
    }
    if (magic !== LZ4_MAGIC) throw corrupt(CompressionType.Lz4, `bad frame magic 0x${magic.toString(16)}`)
    const frame = lz4Frame(data, pos + 4, maxBytes - total, maxBytes)
    total += frame.out.length
    frames.push(frame.out)
    pos = frame.end
  }
  return frames.length === 1 ? frames[0]! : Buffer.concat(frames, total)
}

/** Decodes one frame whose descriptor starts at `pos`; its output may not exceed `room`. */
function lz4Frame(data: Buffer, pos: number, room: number, maxBytes: number): { out: Buffer; end: number } {
  const C = CompressionType.Lz4
  if (data.length - pos < 3) throw corrupt(C, 'truncated frame descriptor')
  const flg = data[pos]!
  const bd = data[pos + 1]!
  if (flg >> 6 !== 1) throw corrupt(C, `unsupported frame version ${flg >> 6}`)
  if ((flg & 0x02) !== 0 || (bd & 0x8f) !== 0) throw corrupt(C, 'reserved descriptor bits are set')
  const blockIndependent = (flg & 0x20) !== 0
  const blockChecksum = (flg & 0x10) !== 0
  const hasContentSize = (flg & 0x08) !== 0
  const contentChecksum = (flg & 0x04) !== 0
  const hasDictId = (flg & 0x01) !== 0
  const blockMax = LZ4_BLOCK_MAX[(bd >> 4) & 0x07]
  if (blockMax === undefined) throw corrupt(C, `invalid block maximum size id ${(bd >> 4) & 0x07}`)
  const descriptorSize = 2 + (hasContentSize ? 8 : 0) + (hasDictId ? 4 : 0)
  if (data.length - pos < descriptorSize + 1) throw corrupt(C, 'truncated frame descriptor')
  // KIP-57: the header checksum is the second byte of xxHash32 over the descriptor (magic excluded).
  const hc = (xxh32(data, pos, pos + descriptorSize, 0) >>> 8) & 0xff
  if (hc !== data[pos + descriptorSize]) throw corrupt(C, 'frame descriptor checksum mismatch')
  if (hasDictId) throw corrupt(C, 'frames with a dictionary id are not supported')
  if (hasContentSize) {
    const size = data.readUInt32LE(pos + 2) + data.readUInt32LE(pos + 6) * 2 ** 32
    if (size > room) throw tooLarge(C, maxBytes)
  }
  pos += descriptorSize + 1

  // Output buffer: grown by doubling as blocks arrive, never past `room`.
  let out = Buffer.allocUnsafe(Math.min(room, blockMax))
  let length = 0
  for (;;) {
    if (data.length - pos < 4) throw corrupt(C, 'truncated block header')
    const word = data.readUInt32LE(pos)
    pos += 4
    if (word === 0) break // EndMark
    const uncompressed = (word & 0x80000000) !== 0
    const size = word & 0x7fffffff
    if (size > blockMax) throw corrupt(C, `block of ${size} bytes exceeds the frame's ${blockMax}-byte maximum`)
    if (size > data.length - pos) throw corrupt(C, 'block runs past the data')
    const block = data.subarray(pos, pos + size)
    pos += size + (blockChecksum ? 4 : 0)
    if (pos > data.length) throw corrupt(C, 'truncated block checksum')
    // A block never yields more than blockMax bytes, so the bound holds before it is decoded when
    // there is room for a whole block; otherwise the block is decoded with a capacity of the room left.
    const capacity = Math.min(blockMax, room - length)
    const decoded = uncompressed
      ? block
      : lz4Block(
          block,
          capacity,
          blockIndependent ? null : out.subarray(Math.max(0, length - LZ4_WINDOW), length),
          room - length < blockMax,
          maxBytes,
        )
    if (decoded.length > room - length) throw tooLarge(C, maxBytes)
    if (length + decoded.length > out.length) {
      const grown = Buffer.allocUnsafe(Math.min(room, Math.max(out.length * 2, length + decoded.length)))
      out.copy(grown, 0, 0, length)
      out = grown
    }
    decoded.copy(out, length)
    length += decoded.length
  }
  if (contentChecksum) {
    if (data.length - pos < 4) throw corrupt(C, 'truncated content checksum')
    pos += 4
  }
  return { out: out.subarray(0, length), end: pos }
}

/**
 * One compressed block. lz4-napi takes lz4_flex's size-prepended block, where the prefix is the
 * output capacity: decoding fails rather than write past it.
 */
function lz4Block(block: Buffer, capacity: number, dict: Buffer | null, capped: boolean, maxBytes: number): Buffer {
  const input = Buffer.allocUnsafe(block.length + 4)
  input.writeUInt32LE(capacity, 0)
  block.copy(input, 4)
  const lib = lz4Lib()
  try {
    return dict && dict.length > 0 ? lib.uncompressSync(input, dict) : lib.uncompressSync(input)
  } catch (err) {
    const message = (err as Error).message
    if (capped && /too small/.test(message)) throw tooLarge(CompressionType.Lz4, maxBytes)
    throw corrupt(CompressionType.Lz4, message)
  }
}

const PRIME32_1 = 0x9e3779b1
const PRIME32_2 = 0x85ebca77
const PRIME32_3 = 0xc2b2ae3d
const PRIME32_4 = 0x27d4eb2f
const PRIME32_5 = 0x165667b1

const rotl32 = (x: number, r: number) => ((x << r) | (x >>> (32 - r))) >>> 0

function xxh32Round(acc: number, lane: number): number {
  acc = (acc + Math.imul(lane, PRIME32_2)) >>> 0
  return Math.imul(rotl32(acc, 13), PRIME32_1) >>> 0
}

/** xxHash32 of buf[start, end) (the LZ4 frame checksums). */
export function xxh32(buf: Buffer, start: number, end: number, seed: number): number {
  let p = start
  let h: number
  if (end - start >= 16) {
    let v1 = (seed + PRIME32_1 + PRIME32_2) >>> 0
    let v2 = (seed + PRIME32_2) >>> 0
    let v3 = seed >>> 0
    let v4 = (seed - PRIME32_1) >>> 0
    for (; p + 16 <= end; p += 16) {
      v1 = xxh32Round(v1, buf.readUInt32LE(p))
      v2 = xxh32Round(v2, buf.readUInt32LE(p + 4))
      v3 = xxh32Round(v3, buf.readUInt32LE(p + 8))
      v4 = xxh32Round(v4, buf.readUInt32LE(p + 12))
    }
    h = (rotl32(v1, 1) + rotl32(v2, 7) + rotl32(v3, 12) + rotl32(v4, 18)) >>> 0
  } else {
    h = (seed + PRIME32_5) >>> 0
  }
  h = (h + (end - start)) >>> 0
  for (; p + 4 <= end; p += 4) {
    h = (h + Math.imul(buf.readUInt32LE(p), PRIME32_3)) >>> 0
    h = Math.imul(rotl32(h, 17), PRIME32_4) >>> 0
  }
  for (; p < end; p++) {
    h = (h + Math.imul(buf[p]!, PRIME32_5)) >>> 0
    h = Math.imul(rotl32(h, 11), PRIME32_1) >>> 0
  }
  h ^= h >>> 15
  h = Math.imul(h, PRIME32_2) >>> 0
  h ^= h >>> 13
  h = Math.imul(h, PRIME32_3) >>> 0
  h ^= h >>> 16
  return h >>> 0
}

// ---------------------------------------------------------------------------------------------
// zstd (frame format: RFC 8878)
// ---------------------------------------------------------------------------------------------

const ZSTD_MAGIC = 0xfd2fb528
/** RFC 8878 §3.1.1.2: no block regenerates more than 128 KiB. */
const ZSTD_BLOCK_MAX = 128 * 1024
/** libzstd's ZSTD_error_dstSize_tooSmall, as ZSTD_decompress returns it (negated). */
const ZSTD_DST_SIZE_TOO_SMALL = -70

interface ZstdFrame {
  start: number
  end: number
  /** Frame_Content_Size when declared. */
  contentSize: number | undefined
  /** Largest possible output: declared block sizes, 128 KiB per compressed block. */
  bound: number
}

/** Walks frames and block headers only (no decoding) to find each frame and bound its output. */
function zstdFrames(data: Buffer): ZstdFrame[] {
  const C = CompressionType.Zstd
  const frames: ZstdFrame[] = []
  let pos = 0
  if (data.length === 0) throw corrupt(C, 'no frame')
  while (pos < data.length) {
    const start = pos
    if (data.length - pos < 4) throw corrupt(C, 'truncated frame magic')
    const magic = data.readUInt32LE(pos)
    if ((magic & SKIPPABLE_MAGIC_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      if (data.length - pos < 8) throw corrupt(C, 'truncated skippable frame')
      pos += 8 + data.readUInt32LE(pos + 4)
      if (pos > data.length) throw corrupt(C, 'skippable frame runs past the data')
      continue
    }
    if (magic !== ZSTD_MAGIC) throw corrupt(C, `bad frame magic 0x${magic.toString(16)}`)
    pos += 4
    if (pos >= data.length) throw corrupt(C, 'truncated frame header')
    const fhd = data[pos++]!
    const fcsFlag = fhd >> 6
    const singleSegment = (fhd & 0x20) !== 0
    if ((fhd & 0x08) !== 0) throw corrupt(C, 'reserved frame header bit is set')
    const checksum = (fhd & 0x04) !== 0
    const dictIdSize = [0, 1, 2, 4][fhd & 0x03]!
    const fcsSize = fcsFlag === 0 ? (singleSegment ? 1 : 0) : 1 << fcsFlag
    const headerRest = (singleSegment ? 0 : 1) + dictIdSize + fcsSize
    if (data.length - pos < headerRest) throw corrupt(C, 'truncated frame header')
    pos += (singleSegment ? 0 : 1) + dictIdSize
    let contentSize: number | undefined
    if (fcsSize === 1) contentSize = data[pos]!
    else if (fcsSize === 2) contentSize = data.readUInt16LE(pos) + 256
    else if (fcsSize === 4) contentSize = data.readUInt32LE(pos)
    else if (fcsSize === 8) contentSize = data.readUInt32LE(pos) + data.readUInt32LE(pos + 4) * 2 ** 32
    pos += fcsSize
    let bound = 0
    for (;;) {
      if (data.length - pos < 3) throw corrupt(C, 'truncated block header')
      const header = data[pos]! | (data[pos + 1]! << 8) | (data[pos + 2]! << 16)
      pos += 3
      const last = (header & 1) !== 0
      const type = (header >> 1) & 3
      const size = header >>> 3
      if (type === 3) throw corrupt(C, 'reserved block type')
      if (size > ZSTD_BLOCK_MAX) throw corrupt(C, `block size ${size} exceeds 128 KiB`)
      const stored = type === 1 ? 1 : size // RLE blocks store one byte repeated `size` times
      if (stored > data.length - pos) throw corrupt(C, 'block runs past the data')
      pos += stored
      bound += type === 2 ? ZSTD_BLOCK_MAX : size
      if (last) break
    }
    if (checksum) {
      if (data.length - pos < 4) throw corrupt(C, 'truncated content checksum')
      pos += 4
    }
    frames.push({ start, end: pos, contentSize, bound: contentSize === undefined ? bound : Math.min(bound, contentSize) })
  }
  return frames
}

function zstdDecompress(data: Buffer, maxBytes: number): Buffer {
  const C = CompressionType.Zstd
  const lib = zstdLib()
  const parts: Buffer[] = []
  let total = 0
  for (const f of zstdFrames(data)) {
    const room = maxBytes - total
    if (f.contentSize !== undefined && f.contentSize > room) throw tooLarge(C, maxBytes)
    // Without a declared content size the output buffer is the frame's bound, capped by the room
    // left: libzstd stops with dstSize_tooSmall rather than write past it. With one, libzstd sizes
    // the output by it and fails if the frame regenerates a different amount.
    const capacity = Math.max(1, Math.min(f.bound, room))
    let out: Uint8Array
    try {
      out = lib.decompress(data.subarray(f.start, f.end), { defaultHeapSize: capacity })
    } catch (err) {
      const code = Number(/code (-?\d+)/.exec((err as Error).message)?.[1])
      if (code === ZSTD_DST_SIZE_TOO_SMALL && f.bound > room) throw tooLarge(C, maxBytes)
      throw corrupt(C, code ? `libzstd error ${-code}` : (err as Error).message)
    }
    if (out.length > room) throw tooLarge(C, maxBytes)
    total += out.length
    parts.push(Buffer.from(out.buffer, out.byteOffset, out.byteLength))
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total)
}
