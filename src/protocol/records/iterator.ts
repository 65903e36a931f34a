// Decoding of stored batches: iterateBatches walks a buffer of concatenated batches by header only;
// iterateRecords decodes the records of one batch (record layout in builder.ts), decompressing a
// compressed batch's records first — bounded, so a compression bomb read back from a log or a fetch
// is refused (INVALID_RECORD) rather than followed (compression.ts). Used off the hot paths only
// (timestamp lookups, coordinators, the cleaner, clients, tests, the console) — docs/architecture.md §1.3.
// Keys, values and header values are views into the batch buffer (or into the decompressed
// records of a compressed batch), not copies.
import { KafkaError } from '../errors.js'
import {
  BATCH_HEADER_SIZE,
  BATCH_LENGTH_OFFSET,
  type BatchHeader,
  LOG_OVERHEAD,
  MIN_BATCH_LENGTH,
  readBatchHeader,
  TimestampType,
} from './batch.js'
import { CompressionType, DEFAULT_MAX_DECOMPRESSED_BYTES, decompress } from './compression.js'
import { RecordReader } from './varint.js'

export interface RecordView {
  offset: number
  timestamp: number
  key: Buffer | null
  value: Buffer | null
  headers: Array<{ key: string; value: Buffer | null }>
}

/**
 * Headers of the complete batches in buf, in order. Stops cleanly at a trailing partial batch (a
 * fetch response may end with one, KIP-74); throws CORRUPT_MESSAGE on an impossible batch length.
 */
export function* iterateBatches(buf: Buffer, start = 0): Generator<BatchHeader> {
  let pos = start
  while (buf.length - pos >= BATCH_HEADER_SIZE) {
    const batchLength = buf.readInt32BE(pos + BATCH_LENGTH_OFFSET)
    if (batchLength < MIN_BATCH_LENGTH) {
      throw new KafkaError('CORRUPT_MESSAGE', `batch length ${batchLength} at ${pos} is below the minimum`)
    }
    if (LOG_OVERHEAD + batchLength > buf.length - pos) return
    const h = readBatchHeader(buf, pos)
    yield h
    pos += h.sizeBytes
  }
}

/**
 * The records section of the batch at batch[pos]: a view for an uncompressed batch, the decompressed
 * records of a compressed one (at most maxDecompressedBytes, else INVALID_RECORD; undecodable data is
 * CORRUPT_MESSAGE; codecs 5-7 UNSUPPORTED_COMPRESSION_TYPE).
 */
export function recordsSection(batch: Buffer, h: BatchHeader, maxDecompressedBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): Buffer {
  const pos = h.position
  if (h.sizeBytes < BATCH_HEADER_SIZE || pos + h.sizeBytes > batch.length) {
    throw new KafkaError('CORRUPT_MESSAGE', `batch at ${pos} of ${h.sizeBytes} bytes runs past the buffer`)
  }
  const stored = batch.subarray(pos + BATCH_HEADER_SIZE, pos + h.sizeBytes)
  return h.compression === CompressionType.None ? stored : decompress(h.compression, stored, maxDecompressedBytes)
}

/**
 * The records of the batch at batch[pos], compressed or not. maxDecompressedBytes bounds a
 * compressed batch's records (the broker passes tributary.max.decompressed.batch.bytes).
 */
export function* iterateRecords(batch: Buffer, pos = 0, maxDecompressedBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): Generator<RecordView> {
  const h = readBatchHeader(batch, pos)
  const section = recordsSection(batch, h, maxDecompressedBytes)
  const batchEnd = section.length
  const r = new RecordReader(section, 0, batchEnd)
  const logAppendTime = h.timestampType === TimestampType.LogAppendTime
  for (let i = 0; i < h.recordCount; i++) {
    const length = r.readVarint()
    if (length < 0 || length > batchEnd - r.pos) {
      throw new KafkaError('CORRUPT_MESSAGE', `record ${i} length ${length} runs past the batch`)
    }
    const recordEnd = r.pos + length
    r.end = recordEnd
    r.readInt8() // record attributes: unused in v2
    const timestampDelta = r.readVarlong()
    const offsetDelta = r.readVarint()
    const key = r.readNullableBytes()
    const value = r.readNullableBytes()
    const headerCount = r.readVarint()
    // Each header takes at least 2 bytes, which bounds the count before anything is allocated.
    if (headerCount < 0 || headerCount * 2 > r.remaining) {
      throw new KafkaError('CORRUPT_MESSAGE', `record ${i} header count ${headerCount} is invalid`)
    }
    const headers: RecordView['headers'] = []
    for (let j = 0; j < headerCount; j++) {
      const keyLength = r.readVarint()
      const hk = r.readBytes(keyLength).toString('utf8')
      headers.push({ key: hk, value: r.readNullableBytes() })
    }
    if (r.pos !== recordEnd) throw new KafkaError('CORRUPT_MESSAGE', `record ${i} has ${recordEnd - r.pos} extra bytes`)
    r.end = batchEnd
    yield {
      offset: h.baseOffset + offsetDelta,
      timestamp: logAppendTime ? h.maxTimestamp : h.baseTimestamp + timestampDelta,
      key,
      value,
      headers,
    }
  }
}
