// Record batch v2 header (magic 2, KIP-98). Layout, all big-endian:
//
//   @0  baseOffset            int64   patched by the broker on append (not covered by the CRC)
//   @8  batchLength           int32   bytes after this field, so the batch is 12 + batchLength bytes
//   @12 partitionLeaderEpoch  int32   patched by the broker on append (not covered by the CRC)
//   @16 magic                 int8    2
//   @17 crc                   uint32  CRC-32C of bytes @21..end
//   @21 attributes            int16   bits 0-2 compression, 3 timestamp type, 4 transactional, 5 control
//   @23 lastOffsetDelta       int32
//   @27 baseTimestamp         int64
//   @35 maxTimestamp          int64
//   @43 producerId            int64
//   @51 producerEpoch         int16
//   @53 baseSequence          int32
//   @57 recordCount           int32
//   @61 records...
//
// Offsets and timestamps are JS numbers (docs/architecture.md §1.4): an int64 field outside the safe-integer range
// is rejected rather than silently rounded.
import { KafkaError } from '../errors.js'
import { CompressionType } from './compression.js'
import { crc32c } from './crc32c.js'

export const BASE_OFFSET_OFFSET = 0
export const BATCH_LENGTH_OFFSET = 8
export const PARTITION_LEADER_EPOCH_OFFSET = 12
export const MAGIC_OFFSET = 16
export const CRC_OFFSET = 17
export const ATTRIBUTES_OFFSET = 21
export const LAST_OFFSET_DELTA_OFFSET = 23
export const BASE_TIMESTAMP_OFFSET = 27
export const MAX_TIMESTAMP_OFFSET = 35
export const PRODUCER_ID_OFFSET = 43
export const PRODUCER_EPOCH_OFFSET = 51
export const BASE_SEQUENCE_OFFSET = 53
export const RECORD_COUNT_OFFSET = 57
/** Size of the v2 batch header, i.e. of a batch with no records. */
export const BATCH_HEADER_SIZE = 61
/** baseOffset + batchLength: the bytes not counted by batchLength (Kafka's LOG_OVERHEAD). */
export const LOG_OVERHEAD = 12
/** Smallest legal batchLength: a header with no records. */
export const MIN_BATCH_LENGTH = BATCH_HEADER_SIZE - LOG_OVERHEAD
export const CURRENT_MAGIC = 2
/** The smallest possible record inside a v2 batch: 7 fields of at least one byte each (see validateProducedBatches). */
export const MIN_RECORD_BYTES = 7

export const COMPRESSION_MASK = 0x07
export const TIMESTAMP_TYPE_MASK = 0x08
export const TRANSACTIONAL_MASK = 0x10
export const CONTROL_MASK = 0x20

/** Codec ids of the attributes' low 3 bits (declared with the codecs, in compression.ts). */
export { CompressionType }

/** Attributes bit 3: 0 = CreateTime (producer's clock), 1 = LogAppendTime (broker's clock). */
export const TimestampType = { CreateTime: 0, LogAppendTime: 1 } as const
export type TimestampType = (typeof TimestampType)[keyof typeof TimestampType]

/** Kafka's RecordBatch.NO_TIMESTAMP. */
export const NO_TIMESTAMP = -1

export interface BatchHeader {
  /** Position of the batch in the buffer it was read from. */
  position: number
  /** Whole batch size: 12 + batchLength. */
  sizeBytes: number
  baseOffset: number
  lastOffsetDelta: number
  partitionLeaderEpoch: number
  magic: number
  crc: number
  attributes: number
  compression: number
  timestampType: TimestampType
  isTransactional: boolean
  isControl: boolean
  baseTimestamp: number
  maxTimestamp: number
  producerId: number
  producerEpoch: number
  baseSequence: number
  recordCount: number
}

const TWO_32 = 4294967296

/** Reads a signed int64 as a JS number; throws when it is outside the safe-integer range. */
export function readInt64(buf: Buffer, pos: number, field = 'int64'): number {
  const v = buf.readInt32BE(pos) * TWO_32 + buf.readUInt32BE(pos + 4)
  // Rounding is monotonic and 2^53 is representable, so an unsafe true value never looks safe.
  if (!Number.isSafeInteger(v)) {
    throw new KafkaError('INVALID_RECORD', `${field} at ${pos} is outside the safe integer range`)
  }
  return v
}

/** Writes a safe integer as a signed int64. */
export function writeInt64(buf: Buffer, value: number, pos: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`int64 value ${value} is not a safe integer`)
  const hi = Math.floor(value / TWO_32)
  buf.writeInt32BE(hi, pos)
  buf.writeUInt32BE(value - hi * TWO_32, pos + 4)
}

/**
 * Reads the header of the batch at buf[pos]. Needs the 61 header bytes to be present (throws
 * CORRUPT_MESSAGE otherwise); does not check the CRC or that the whole batch is in buf.
 */
export function readBatchHeader(buf: Buffer, pos: number): BatchHeader {
  if (pos < 0 || pos + BATCH_HEADER_SIZE > buf.length) {
    throw new KafkaError('CORRUPT_MESSAGE', `truncated batch header at ${pos}`)
  }
  const attributes = buf.readInt16BE(pos + ATTRIBUTES_OFFSET)
  return {
    position: pos,
    sizeBytes: LOG_OVERHEAD + buf.readInt32BE(pos + BATCH_LENGTH_OFFSET),
    baseOffset: readInt64(buf, pos + BASE_OFFSET_OFFSET, 'baseOffset'),
    lastOffsetDelta: buf.readInt32BE(pos + LAST_OFFSET_DELTA_OFFSET),
    partitionLeaderEpoch: buf.readInt32BE(pos + PARTITION_LEADER_EPOCH_OFFSET),
    magic: buf.readInt8(pos + MAGIC_OFFSET),
    crc: buf.readUInt32BE(pos + CRC_OFFSET),
    attributes,
    compression: attributes & COMPRESSION_MASK,
    timestampType: attributes & TIMESTAMP_TYPE_MASK ? TimestampType.LogAppendTime : TimestampType.CreateTime,
    isTransactional: (attributes & TRANSACTIONAL_MASK) !== 0,
    isControl: (attributes & CONTROL_MASK) !== 0,
    baseTimestamp: readInt64(buf, pos + BASE_TIMESTAMP_OFFSET, 'baseTimestamp'),
    maxTimestamp: readInt64(buf, pos + MAX_TIMESTAMP_OFFSET, 'maxTimestamp'),
    producerId: readInt64(buf, pos + PRODUCER_ID_OFFSET, 'producerId'),
    producerEpoch: buf.readInt16BE(pos + PRODUCER_EPOCH_OFFSET),
    baseSequence: buf.readInt32BE(pos + BASE_SEQUENCE_OFFSET),
    recordCount: buf.readInt32BE(pos + RECORD_COUNT_OFFSET),
  }
}

/** Last offset of a batch (baseOffset + lastOffsetDelta). */
export function lastOffsetOf(h: BatchHeader): number {
  return h.baseOffset + h.lastOffsetDelta
}

/** Patches baseOffset in place (not covered by the CRC, so the CRC stays valid). */
export function setBaseOffset(buf: Buffer, pos: number, offset: number): void {
  writeInt64(buf, offset, pos + BASE_OFFSET_OFFSET)
}

/** Patches partitionLeaderEpoch in place (not covered by the CRC). */
export function setPartitionLeaderEpoch(buf: Buffer, pos: number, epoch: number): void {
  buf.writeInt32BE(epoch, pos + PARTITION_LEADER_EPOCH_OFFSET)
}

/**
 * Stamps a batch with the broker's clock (message.timestamp.type=LogAppendTime), as Kafka's
 * DefaultRecordBatch.setMaxTimestamp does: sets the timestamp-type attribute bit and maxTimestamp,
 * then recomputes the CRC (both fields are covered by it). Records keep their own timestamp
 * deltas; readers of a LogAppendTime batch take maxTimestamp for every record. Updates `h` to match.
 */
export function setLogAppendTime(buf: Buffer, h: BatchHeader, timestamp: number): void {
  const pos = h.position
  const attributes = h.attributes | TIMESTAMP_TYPE_MASK
  if (h.attributes === attributes && h.maxTimestamp === timestamp) return
  buf.writeInt16BE(attributes, pos + ATTRIBUTES_OFFSET)
  writeInt64(buf, timestamp, pos + MAX_TIMESTAMP_OFFSET)
  writeBatchCrc(buf, pos)
  h.attributes = attributes
  h.timestampType = TimestampType.LogAppendTime
  h.maxTimestamp = timestamp
  h.crc = buf.readUInt32BE(pos + CRC_OFFSET)
}

/** Computes the CRC of the batch at pos (whose length field must be set) and writes it. */
export function writeBatchCrc(buf: Buffer, pos: number): void {
  const size = LOG_OVERHEAD + buf.readInt32BE(pos + BATCH_LENGTH_OFFSET)
  buf.writeUInt32BE(crc32c(buf, pos + ATTRIBUTES_OFFSET, pos + size), pos + CRC_OFFSET)
}

/** True when the stored CRC of the complete batch at pos matches its bytes. */
export function batchCrcMatches(buf: Buffer, pos: number, sizeBytes: number): boolean {
  return crc32c(buf, pos + ATTRIBUTES_OFFSET, pos + sizeBytes) === buf.readUInt32BE(pos + CRC_OFFSET)
}

export interface ValidateOptions {
  /** Largest allowed batch, header included (Kafka's max.message.bytes, per batch). */
  maxBatchBytes: number
  /** The Produce request's version: zstd needs v7+ (KIP-110). Omitted: no version rule. */
  produceVersion?: number
}

/**
 * Walks every batch of a Produce partition's records buffer and returns their headers, checking
 * what can be checked without decoding a record — Kafka's UnifiedLog.analyzeAndValidateRecords and
 * the batch-level part of LogValidator.validateBatch. The records themselves (structure of a
 * compressed batch's records, timestamps, keys) are the produce path's single walk
 * (replication/log-validator.ts), which runs after this on every batch. Errors, as Kafka reports them:
 * - CORRUPT_MESSAGE: CRC mismatch, a batch running past the buffer, trailing partial bytes;
 * - INVALID_RECORD: empty buffer, magic ≠ 2, batchLength < 49, recordCount ≤ 0,
 *   lastOffsetDelta ≠ recordCount − 1 (for compressed batches too, as Kafka checks), an
 *   uncompressed batch too small for its record count, a control batch written by a client, an
 *   int64 field outside the safe range;
 * - UNSUPPORTED_COMPRESSION_TYPE: codec ids 5-7, zstd in a Produce request older than v7;
 * - MESSAGE_TOO_LARGE: a batch larger than maxBatchBytes.
 */
export function validateProducedBatches(records: Buffer, opts: ValidateOptions): BatchHeader[] {
  const len = records.length
  if (len === 0) throw new KafkaError('INVALID_RECORD', 'produce request has no record batches')
  const out: BatchHeader[] = []
  let pos = 0
  while (pos < len) {
    if (len - pos < LOG_OVERHEAD) {
      throw new KafkaError('CORRUPT_MESSAGE', `${len - pos} trailing bytes after the last batch`)
    }
    const batchLength = records.readInt32BE(pos + BATCH_LENGTH_OFFSET)
    if (batchLength < MIN_BATCH_LENGTH) {
      throw new KafkaError('INVALID_RECORD', `batch length ${batchLength} is below the v2 minimum ${MIN_BATCH_LENGTH}`)
    }
    const sizeBytes = LOG_OVERHEAD + batchLength
    if (sizeBytes > len - pos) {
      throw new KafkaError('CORRUPT_MESSAGE', `batch of ${sizeBytes} bytes at ${pos} runs past the ${len}-byte buffer`)
    }
    const magic = records.readInt8(pos + MAGIC_OFFSET)
    if (magic !== CURRENT_MAGIC) throw new KafkaError('INVALID_RECORD', `unsupported batch magic ${magic}`)
    if (sizeBytes > opts.maxBatchBytes) {
      throw new KafkaError('MESSAGE_TOO_LARGE', `batch of ${sizeBytes} bytes exceeds ${opts.maxBatchBytes}`)
    }
    if (!batchCrcMatches(records, pos, sizeBytes)) {
      throw new KafkaError('CORRUPT_MESSAGE', `batch at ${pos} fails its CRC-32C`)
    }
    const h = readBatchHeader(records, pos)
    if (h.recordCount <= 0) throw new KafkaError('INVALID_RECORD', `batch has ${h.recordCount} records`)
    if (h.lastOffsetDelta !== h.recordCount - 1) {
      throw new KafkaError('INVALID_RECORD', `inconsistent batch: lastOffsetDelta ${h.lastOffsetDelta} with ${h.recordCount} records`)
    }
    if (h.isControl) throw new KafkaError('INVALID_RECORD', 'clients may not write control batches')
    checkCodec(h.compression, opts.produceVersion)
    // An uncompressed record takes at least 7 bytes (length, attributes, timestamp and offset
    // deltas, key and value lengths, header count: one varint byte each), so a count the batch
    // cannot hold is a lie that would burn offsets. (A compressed batch's count is checked against
    // its records when they are decompressed.)
    if (h.compression === CompressionType.None && h.recordCount > (sizeBytes - BATCH_HEADER_SIZE) / MIN_RECORD_BYTES) {
      throw new KafkaError('INVALID_RECORD', `batch of ${sizeBytes} bytes cannot hold ${h.recordCount} records`)
    }
    out.push(h)
    pos += sizeBytes
  }
  return out
}

/** UNSUPPORTED_COMPRESSION_TYPE for codec ids 5-7, and for zstd before Produce v7 (Kafka's ProduceRequest rule). */
export function checkCodec(codec: number, produceVersion: number | undefined): void {
  if (codec > CompressionType.Zstd) {
    throw new KafkaError('UNSUPPORTED_COMPRESSION_TYPE', `unknown compression codec ${codec}`)
  }
  if (codec === CompressionType.Zstd && produceVersion !== undefined && produceVersion < 7) {
    throw new KafkaError(
      'UNSUPPORTED_COMPRESSION_TYPE',
      `Produce requests with version ${produceVersion} are not allowed to use ZStandard compression (v7+ needed)`,
    )
  }
}
