// Builds a record batch v2 (see batch.ts for the header layout). Each record is:
//   length varint | attributes int8 (0) | timestampDelta varlong | offsetDelta varint |
//   keyLength varint (-1 = null) | key | valueLength varint (-1 = null) | value |
//   headerCount varint | (headerKeyLength varint | key utf8 | headerValueLength varint | value)*
// A compressed batch is the same header followed by the codec's encoding of those records (the
// header itself is never compressed), so recompressing a batch swaps that section and nothing else.
// Used by tests, by the coordinators writing their internal topics, by control markers, by the
// client-side producer and by the broker when a topic's compression.type makes it recompress.
import {
  ATTRIBUTES_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  BATCH_HEADER_SIZE,
  BATCH_LENGTH_OFFSET,
  COMPRESSION_MASK,
  CURRENT_MAGIC,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  NO_TIMESTAMP,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_COUNT_OFFSET,
  setBaseOffset,
  TIMESTAMP_TYPE_MASK,
  writeBatchCrc,
  writeInt64,
} from './batch.js'
import { CompressionType, compress } from './compression.js'
import { sizeOfVarint, sizeOfVarlong, writeVarint, writeVarlong } from './varint.js'

export interface RecordHeader {
  key: string
  value: Buffer | null
}

export interface RecordInput {
  key: Buffer | null
  value: Buffer | null
  headers?: RecordHeader[]
  /** Defaults to the batch's baseTimestamp. */
  timestamp?: number
  /** Defaults to the record's index in the batch. */
  offsetDelta?: number
}

export interface BuildBatchOptions {
  baseOffset?: number
  records: RecordInput[]
  /** Defaults to the smallest record timestamp, else NO_TIMESTAMP (-1). Pass the Clock's time. */
  baseTimestamp?: number
  producerId?: number
  producerEpoch?: number
  baseSequence?: number
  partitionLeaderEpoch?: number
  /** Timestamp type, transactional and control bits; the compression bits must be 0 (use `compression`). */
  attributes?: number
  /** Codec of the records section (CompressionType: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd). */
  compression?: number
  /** The codec's level (KIP-390: compression.gzip.level, compression.zstd.level); codec default when omitted. */
  compressionLevel?: number
}

function bodySize(r: RecordInput, timestampDelta: number, offsetDelta: number): number {
  let n = 1 + sizeOfVarlong(timestampDelta) + sizeOfVarint(offsetDelta)
  n += r.key === null ? 1 : sizeOfVarint(r.key.length) + r.key.length
  n += r.value === null ? 1 : sizeOfVarint(r.value.length) + r.value.length
  const headers = r.headers ?? []
  n += sizeOfVarint(headers.length)
  for (const h of headers) {
    const keyBytes = Buffer.byteLength(h.key, 'utf8')
    n += sizeOfVarint(keyBytes) + keyBytes
    n += h.value === null ? 1 : sizeOfVarint(h.value.length) + h.value.length
  }
  return n
}

function writeNullable(buf: Buffer, b: Buffer | null, pos: number): number {
  if (b === null) return writeVarint(buf, -1, pos)
  pos = writeVarint(buf, b.length, pos)
  b.copy(buf, pos)
  return pos + b.length
}

/** A valid v2 batch with its CRC set, its records compressed with `opts.compression` if given. */
export function buildRecordBatch(opts: BuildBatchOptions): Buffer {
  const { records } = opts
  if (records.length === 0) throw new RangeError('a record batch needs at least one record')
  const attributes = opts.attributes ?? 0
  if ((attributes & COMPRESSION_MASK) !== 0) throw new RangeError('set the codec with the compression option, not in attributes')
  const codec = opts.compression ?? CompressionType.None
  if (codec < CompressionType.None || codec > CompressionType.Zstd) throw new RangeError(`unknown compression codec ${codec}`)

  let baseTimestamp = opts.baseTimestamp
  if (baseTimestamp === undefined) {
    let min = Number.POSITIVE_INFINITY
    for (const r of records) if (r.timestamp !== undefined && r.timestamp < min) min = r.timestamp
    baseTimestamp = min === Number.POSITIVE_INFINITY ? NO_TIMESTAMP : min
  }

  const sizes = new Array<number>(records.length)
  let total = BATCH_HEADER_SIZE
  let maxTimestamp = NO_TIMESTAMP
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!
    const ts = r.timestamp ?? baseTimestamp
    if (ts > maxTimestamp) maxTimestamp = ts
    const body = bodySize(r, ts - baseTimestamp, r.offsetDelta ?? i)
    sizes[i] = body
    total += sizeOfVarint(body) + body
  }
  const lastOffsetDelta = records[records.length - 1]!.offsetDelta ?? records.length - 1

  const buf = Buffer.alloc(total)
  setBaseOffset(buf, 0, opts.baseOffset ?? 0)
  buf.writeInt32BE(total - LOG_OVERHEAD, BATCH_LENGTH_OFFSET)
  buf.writeInt32BE(opts.partitionLeaderEpoch ?? -1, PARTITION_LEADER_EPOCH_OFFSET)
  buf.writeInt8(CURRENT_MAGIC, MAGIC_OFFSET)
  buf.writeInt16BE(attributes, ATTRIBUTES_OFFSET)
  buf.writeInt32BE(lastOffsetDelta, LAST_OFFSET_DELTA_OFFSET)
  writeInt64(buf, baseTimestamp, BASE_TIMESTAMP_OFFSET)
  writeInt64(buf, maxTimestamp, MAX_TIMESTAMP_OFFSET)
  writeInt64(buf, opts.producerId ?? -1, PRODUCER_ID_OFFSET)
  buf.writeInt16BE(opts.producerEpoch ?? -1, PRODUCER_EPOCH_OFFSET)
  buf.writeInt32BE(opts.baseSequence ?? -1, BASE_SEQUENCE_OFFSET)
  buf.writeInt32BE(records.length, RECORD_COUNT_OFFSET)

  let pos = BATCH_HEADER_SIZE
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!
    pos = writeVarint(buf, sizes[i]!, pos)
    pos = buf.writeInt8(0, pos)
    pos = writeVarlong(buf, (r.timestamp ?? baseTimestamp) - baseTimestamp, pos)
    pos = writeVarint(buf, r.offsetDelta ?? i, pos)
    pos = writeNullable(buf, r.key, pos)
    pos = writeNullable(buf, r.value, pos)
    const headers = r.headers ?? []
    pos = writeVarint(buf, headers.length, pos)
    for (const h of headers) {
      pos = writeVarint(buf, Buffer.byteLength(h.key, 'utf8'), pos)
      pos += buf.write(h.key, pos, 'utf8')
      pos = writeNullable(buf, h.value, pos)
    }
  }
  if (codec !== CompressionType.None) {
    return rebuildBatch(
      buf,
      0,
      buf.subarray(BATCH_HEADER_SIZE),
      codec,
      opts.compressionLevel === undefined ? {} : { level: opts.compressionLevel },
    )
  }
  writeBatchCrc(buf, 0)
  return buf
}

export interface RebuildOptions {
  /** The codec's level (KIP-390); codec default when omitted. */
  level?: number
  /** message.timestamp.type=LogAppendTime: the broker's time, stamped as setLogAppendTime does (batch.ts). */
  logAppendTime?: number
}

/**
 * The batch at batch[pos] with its records section replaced by `records` (the batch's records,
 * decompressed) encoded with `codec` (0 = uncompressed), as Kafka's broker rebuilds a batch when
 * the topic's compression.type differs from the producer's codec: the same records, offset deltas
 * and timestamps, the same header fields (base offset, producer id, epoch, sequence, timestamp
 * type, transactional bit), a new length and CRC — computed once, after the LogAppendTime stamp if
 * one is given. The caller decompresses (replication/log-validator.ts does it once per batch, for
 * every rule that needs the records).
 */
export function rebuildBatch(batch: Buffer, pos: number, records: Buffer, codec: number, opts: RebuildOptions = {}): Buffer {
  const section = codec === CompressionType.None ? records : compress(codec, records, opts.level)
  const out = Buffer.allocUnsafe(BATCH_HEADER_SIZE + section.length)
  batch.copy(out, 0, pos, pos + BATCH_HEADER_SIZE)
  section.copy(out, BATCH_HEADER_SIZE)
  out.writeInt32BE(out.length - LOG_OVERHEAD, BATCH_LENGTH_OFFSET)
  let attributes = (out.readInt16BE(ATTRIBUTES_OFFSET) & ~COMPRESSION_MASK) | codec
  if (opts.logAppendTime !== undefined) {
    attributes |= TIMESTAMP_TYPE_MASK
    writeInt64(out, opts.logAppendTime, MAX_TIMESTAMP_OFFSET)
  }
  out.writeInt16BE(attributes, ATTRIBUTES_OFFSET)
  writeBatchCrc(out, 0)
  return out
}
