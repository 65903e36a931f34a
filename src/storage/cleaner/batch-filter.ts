// What the cleaner keeps of one record batch (Kafka's MemoryRecords.filterTo with the cleaner's
// RecordFilter, Cleaner.shouldRetainRecord).
//
// A record is kept when its offset is past the key map's latest offset (the map knows nothing of
// it yet), or when it is the latest record of its key (offset ≥ the mapped one) and either has a
// value or is a tombstone still within its delete horizon. Records without a key are dropped (a
// compacted topic refuses them at produce time; they can only come from a topic that became
// compacted later), as Kafka does.
//
// Tombstones (KIP-534): the first pass that keeps a batch holding tombstones stamps it with a
// delete horizon — now + delete.retention.ms, stored in the batch's base timestamp with attribute
// bit 6 set; records keep their absolute timestamps through their deltas — and a later pass drops
// the tombstones once the horizon has passed. Consumers that read the topic from the start within
// delete.retention.ms of a delete therefore see the tombstone.
//
// Output: a batch whose records are all kept, and that needs no horizon, is copied verbatim; one
// that lost records is rebuilt with its original base offset, offset deltas, last offset delta
// (so its offsets and the producer's last sequence survive, as Kafka's overrideLastOffset),
// timestamps, headers, producer id/epoch/base sequence, leader epoch and codec (recompressed at
// the codec's default level). A batch that loses every record goes, unless the caller needs its
// offsets kept (emptyBatchOf). A compressed batch that cannot be decoded — an unknown codec, or
// records larger than tributary.max.decompressed.batch.bytes once decompressed — is kept whole,
// never dropped.
//
// Transactions (the caller's verdict, cleaner/transactions.ts): a batch of an aborted transaction
// loses all its records; a control batch keeps its records, and a marker that may go is stamped
// with a delete horizon as a tombstone batch is (Kafka piggy-backs markers on tombstone
// retention), so it stays delete.retention.ms more; the caller drops its records once the horizon
// has passed.
import { KafkaError } from '../../protocol/errors.js'
import {
  ATTRIBUTES_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  BATCH_HEADER_SIZE,
  BATCH_LENGTH_OFFSET,
  type BatchHeader,
  COMPRESSION_MASK,
  CURRENT_MAGIC,
  CONTROL_MASK,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_COUNT_OFFSET,
  readInt64,
  setBaseOffset,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_MASK,
  writeBatchCrc,
  writeInt64,
} from '../../protocol/records/batch.js'
import { buildRecordBatch, type RecordInput } from '../../protocol/records/builder.js'
import { iterateRecords, type RecordView } from '../../protocol/records/iterator.js'
import type { SkimpyOffsetMap } from './offset-map.js'

/** Attributes bit 6 (KIP-534): the base timestamp holds the batch's delete horizon. */
export const DELETE_HORIZON_MASK = 0x40

export interface FilterContext {
  map: SkimpyOffsetMap
  nowMs: number
  deleteRetentionMs: number
  /** Bound on a compressed batch's records once decompressed. */
  maxDecompressedBytes: number
}

export interface FilteredBatch {
  /** The batch to write (the original bytes or a rebuilt batch); null when nothing is kept. */
  bytes: Buffer | null
  recordsRead: number
  recordsKept: number
  /** The written batch's max timestamp. */
  maxTimestamp: number
  /** Delete horizon of a written batch holding tombstones, else -1. */
  deleteHorizonMs: number
  /** The batch could not be decoded (no codec) and was kept whole. */
  undecodable: boolean
}

/** What the batch's transaction says (cleaner/transactions.ts). */
export interface TxnVerdict {
  /** Drop every record (an aborted transaction's batch, a marker past its delete horizon). */
  discardRecords: boolean
  /** A control batch that may go once a delete horizon has passed. */
  markerRemovable: boolean
}

const KEEP: TxnVerdict = { discardRecords: false, markerRemovable: false }

export function hasDeleteHorizon(h: BatchHeader): boolean {
  return (h.attributes & DELETE_HORIZON_MASK) !== 0
}

/**
 * The records of the batch at buf[h.position], or null when they cannot be decoded (an unknown
 * codec, or more than maxDecompressedBytes of records). Other errors propagate: the segment is corrupt.
 */
export function decodeRecords(buf: Buffer, h: BatchHeader, maxDecompressedBytes: number): RecordView[] | null {
  try {
    return [...iterateRecords(buf, h.position, maxDecompressedBytes)]
  } catch (err) {
    if (
      err instanceof KafkaError &&
      h.compression !== 0 &&
      (err.errorName === 'UNSUPPORTED_COMPRESSION_TYPE' || err.errorName === 'INVALID_RECORD')
    ) {
      return null
    }
    throw err
  }
}

function shouldRetain(r: RecordView, h: BatchHeader, ctx: FilterContext): boolean {
  if (r.offset > ctx.map.latestOffset) return true
  if (r.key === null) return false
  if (r.offset < ctx.map.get(r.key)) return false
  if (r.value !== null) return true
  return !hasDeleteHorizon(h) || ctx.nowMs < h.baseTimestamp
}

export function filterBatch(buf: Buffer, h: BatchHeader, ctx: FilterContext, txn: TxnVerdict = KEEP): FilteredBatch {
  const original = buf.subarray(h.position, h.position + h.sizeBytes)
  const whole = (undecodable: boolean, recordsRead: number): FilteredBatch => ({
    bytes: original,
    recordsRead,
    recordsKept: recordsRead,
    maxTimestamp: h.maxTimestamp,
    deleteHorizonMs: -1,
    undecodable,
  })
  if (txn.discardRecords) {
    return {
      bytes: null,
      recordsRead: h.recordCount,
      recordsKept: 0,
      maxTimestamp: h.maxTimestamp,
      deleteHorizonMs: -1,
      undecodable: false,
    }
  }
  if ((h.attributes & CONTROL_MASK) !== 0) {
    if (!txn.markerRemovable) return whole(false, h.recordCount)
    // An emptied control batch has nothing left to wait for (kept empty only if the caller must).
    if (h.recordCount === 0) return { ...whole(false, 0), bytes: null }
    if (hasDeleteHorizon(h)) return { ...whole(false, h.recordCount), deleteHorizonMs: h.baseTimestamp }
    const horizon = ctx.nowMs + ctx.deleteRetentionMs
    const bytes = rebuild(h, [...iterateRecords(buf, h.position, ctx.maxDecompressedBytes)], horizon)
    return { ...whole(false, h.recordCount), bytes, deleteHorizonMs: horizon }
  }
  const records = decodeRecords(buf, h, ctx.maxDecompressedBytes)
  if (records === null) return whole(true, h.recordCount)
  const kept: RecordView[] = []
  let tombstones = false
  for (const r of records) {
    if (!shouldRetain(r, h, ctx)) continue
    kept.push(r)
    if (r.value === null) tombstones = true
  }
  const base = { recordsRead: records.length, recordsKept: kept.length, undecodable: false }
  if (kept.length === 0) return { ...base, bytes: null, maxTimestamp: h.maxTimestamp, deleteHorizonMs: -1 }
  const needHorizon = tombstones && !hasDeleteHorizon(h)
  const horizon = needHorizon ? ctx.nowMs + ctx.deleteRetentionMs : hasDeleteHorizon(h) ? h.baseTimestamp : -1
  if (kept.length === records.length && !needHorizon) {
    return { ...base, bytes: original, maxTimestamp: h.maxTimestamp, deleteHorizonMs: tombstones ? horizon : -1 }
  }
  const bytes = rebuild(h, kept, horizon)
  return { ...base, bytes, maxTimestamp: readInt64(bytes, MAX_TIMESTAMP_OFFSET), deleteHorizonMs: tombstones ? horizon : -1 }
}

/** Kafka's buildRetainedRecordsInto: the kept records under the original batch's header fields. */
function rebuild(h: BatchHeader, kept: RecordView[], horizon: number): Buffer {
  const records: RecordInput[] = kept.map((r) => ({
    key: r.key,
    value: r.value,
    headers: r.headers,
    timestamp: r.timestamp,
    offsetDelta: r.offset - h.baseOffset,
  }))
  let attributes = h.attributes & ~COMPRESSION_MASK
  if (horizon >= 0) attributes |= DELETE_HORIZON_MASK
  const out = buildRecordBatch({
    baseOffset: h.baseOffset,
    records,
    baseTimestamp: horizon >= 0 ? horizon : undefined,
    producerId: h.producerId,
    producerEpoch: h.producerEpoch,
    baseSequence: h.baseSequence,
    partitionLeaderEpoch: h.partitionLeaderEpoch,
    attributes,
    compression: h.compression,
  })
  if (out.readInt32BE(LAST_OFFSET_DELTA_OFFSET) !== h.lastOffsetDelta) {
    out.writeInt32BE(h.lastOffsetDelta, LAST_OFFSET_DELTA_OFFSET)
    writeBatchCrc(out, 0)
  }
  return out
}

/**
 * A batch with the header of h and no records (Kafka's writeEmptyHeader): it keeps h's offsets
 * [base, last] covered when all its records went, so a cleaned segment still ends where the
 * segments it replaced ended.
 */
export function emptyBatchOf(h: BatchHeader): Buffer {
  const buf = Buffer.alloc(BATCH_HEADER_SIZE)
  setBaseOffset(buf, 0, h.baseOffset)
  buf.writeInt32BE(BATCH_HEADER_SIZE - LOG_OVERHEAD, BATCH_LENGTH_OFFSET)
  buf.writeInt32BE(h.partitionLeaderEpoch, PARTITION_LEADER_EPOCH_OFFSET)
  buf.writeInt8(CURRENT_MAGIC, MAGIC_OFFSET)
  buf.writeInt16BE(h.attributes & (TIMESTAMP_TYPE_MASK | TRANSACTIONAL_MASK | CONTROL_MASK), ATTRIBUTES_OFFSET)
  buf.writeInt32BE(h.lastOffsetDelta, LAST_OFFSET_DELTA_OFFSET)
  writeInt64(buf, h.maxTimestamp, BASE_TIMESTAMP_OFFSET)
  writeInt64(buf, h.maxTimestamp, MAX_TIMESTAMP_OFFSET)
  writeInt64(buf, h.producerId, PRODUCER_ID_OFFSET)
  buf.writeInt16BE(h.producerEpoch, PRODUCER_EPOCH_OFFSET)
  buf.writeInt32BE(h.baseSequence, BASE_SEQUENCE_OFFSET)
  buf.writeInt32BE(0, RECORD_COUNT_OFFSET)
  writeBatchCrc(buf, 0)
  return buf
}
