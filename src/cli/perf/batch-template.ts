// Record batches for the perf producer, built once and filled in place.
//
// Every record the perf tools send has the same shape — no key, a value of --record-size bytes, no
// headers, timestamp delta 0 — so a batch of k records is byte for byte the first k records of a
// batch of n ≥ k records, and only the header differs (batchLength, lastOffsetDelta, timestamps,
// recordCount, CRC). We build one full batch with buildRecordBatch and remember where each record
// ends and where each value starts. Producing a batch is then a copy of the template, optionally a
// send time written into each value (e2e), a few header fields and the CRC-32C — no per-record
// encoding. The payload is the same random bytes in every record, as in Kafka's ProducerPerformance.
import { randomBytes } from 'node:crypto'
import {
  BASE_TIMESTAMP_OFFSET,
  BATCH_HEADER_SIZE,
  BATCH_LENGTH_OFFSET,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAX_TIMESTAMP_OFFSET,
  RECORD_COUNT_OFFSET,
  writeBatchCrc,
  writeInt64,
} from '../../protocol/records/batch.js'
import { buildRecordBatch } from '../../protocol/records/builder.js'
import { sizeOfVarint } from '../../protocol/records/varint.js'

export interface BatchTemplate {
  readonly recordSize: number
  /** Records in a full batch: as many as fit in the batch size (at least one). */
  readonly recordsPerBatch: number
  /** A full batch; header fields other than the constant ones are rewritten by finishBatch. */
  readonly bytes: Buffer
  /** ends[k]: size of a batch holding the first k records (ends[0] = the header size). */
  readonly ends: Int32Array
  /** valueOffsets[i]: where record i's value starts. */
  readonly valueOffsets: Int32Array
}

/** Bytes of record i (offset delta i) with a value of recordSize bytes, its length prefix included. */
function recordBytes(i: number, recordSize: number): number {
  // attributes, timestampDelta (0), offsetDelta, key length (-1), value length, value, header count
  const body = 1 + 1 + sizeOfVarint(i) + 1 + sizeOfVarint(recordSize) + recordSize + 1
  return sizeOfVarint(body) + body
}

export function makeBatchTemplate(recordSize: number, batchSizeBytes: number, payload?: Buffer): BatchTemplate {
  if (!Number.isInteger(recordSize) || recordSize < 0) throw new RangeError(`bad record size ${recordSize}`)
  let n = 0
  let size = BATCH_HEADER_SIZE
  do {
    size += recordBytes(n, recordSize)
    n++
  } while (size + recordBytes(n, recordSize) <= batchSizeBytes)
  const value = payload ?? randomPayload(recordSize)
  const bytes = buildRecordBatch({ records: Array.from({ length: n }, () => ({ key: null, value })), baseTimestamp: 0 })
  const ends = new Int32Array(n + 1)
  const valueOffsets = new Int32Array(n)
  let pos = BATCH_HEADER_SIZE
  ends[0] = pos
  for (let i = 0; i < n; i++) {
    const len = recordBytes(i, recordSize)
    valueOffsets[i] = pos + len - 1 - recordSize // the value is followed by the 1-byte header count
    pos += len
    ends[i + 1] = pos
  }
  if (pos !== bytes.length) throw new Error(`batch template size mismatch: ${pos} != ${bytes.length}`)
  return { recordSize, recordsPerBatch: n, bytes, ends, valueOffsets }
}

/** Printable random bytes, like ProducerPerformance's payload. */
function randomPayload(size: number): Buffer {
  const b = randomBytes(size)
  for (let i = 0; i < size; i++) b[i] = 65 + (b[i]! % 26)
  return b
}

/** A fresh copy of the full template, to be filled and finished. */
export function newBatchBuffer(t: BatchTemplate): Buffer {
  const buf = Buffer.allocUnsafe(t.bytes.length)
  t.bytes.copy(buf)
  return buf
}

/** Sets the header of a batch of the first `count` records in buf and returns it (a view of buf). */
export function finishBatch(t: BatchTemplate, buf: Buffer, count: number, timestampMs: number): Buffer {
  const end = t.ends[count]!
  const b = buf.subarray(0, end)
  b.writeInt32BE(end - LOG_OVERHEAD, BATCH_LENGTH_OFFSET)
  b.writeInt32BE(count - 1, LAST_OFFSET_DELTA_OFFSET)
  writeInt64(b, timestampMs, BASE_TIMESTAMP_OFFSET)
  writeInt64(b, timestampMs, MAX_TIMESTAMP_OFFSET)
  b.writeInt32BE(count, RECORD_COUNT_OFFSET)
  writeBatchCrc(b, 0)
  return b
}
