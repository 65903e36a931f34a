// The producer's batches (producer.ts): what a record costs in a batch, a batch's bookkeeping,
// its encoding — a record batch v2 built with the protocol layer, stamped with the producer's id,
// epoch, first sequence number and transactional bit when the producer has an identity — and its
// split in two halves after MESSAGE_TOO_LARGE.
import { BATCH_HEADER_SIZE, TRANSACTIONAL_MASK } from '../protocol/records/batch.js'
import { buildRecordBatch, type RecordHeader } from '../protocol/records/builder.js'
import type { ClientError } from './errors.js'

export type { RecordHeader }

export interface ProducerRecord {
  key: Buffer | null
  value: Buffer | null
  headers?: RecordHeader[]
  /** CreateTime in ms since the epoch; default: Date.now() when sent. */
  timestamp?: number
  /** Overrides the partitioner. */
  partition?: number
}

export interface Batch<R> {
  partition: number
  records: R[]
  timestamps: number[]
  /** Upper bound of each record's encoded size. */
  sizes: number[]
  /** Header plus the record sizes: what counts against batchSizeBytes. */
  sizeBytes: number
  /** performance.now() when the first record was added: linger and delivery timeout start here. */
  createdAt: number
  attempts: number
  retryAt: number
  lastError: ClientError | null
  /** The encoded batch, built when first sent and resent as is. */
  bytes: Buffer | null
  /** With an identity: the batch's first sequence number, once encoded (-1 before). */
  baseSequence: number
}

const HEADER_UPPER_BYTES = 10
/** attributes 1, timestampDelta ≤10, offsetDelta ≤5, key and value lengths ≤5 each, header count ≤5, length ≤5. */
const RECORD_OVERHEAD_UPPER_BYTES = 1 + 10 + 5 + 5 + 5 + 5 + 5

/** An upper bound of the record's size inside a batch. */
export function recordSizeUpperBound(r: ProducerRecord): number {
  let n = RECORD_OVERHEAD_UPPER_BYTES + (r.key?.length ?? 0) + (r.value?.length ?? 0)
  for (const h of r.headers ?? []) n += HEADER_UPPER_BYTES + Buffer.byteLength(h.key, 'utf8') + (h.value?.length ?? 0)
  return n
}

/** An empty batch of a partition, opened now. */
export function newBatch<R>(partition: number, now: number): Batch<R> {
  return {
    partition,
    records: [],
    timestamps: [],
    sizes: [],
    sizeBytes: BATCH_HEADER_SIZE,
    createdAt: now,
    attempts: 0,
    retryAt: 0,
    lastError: null,
    bytes: null,
    baseSequence: -1,
  }
}

/** Who a batch is written as (null: a plain producer, no id). */
export interface Stamp {
  producerId: number
  producerEpoch: number
  transactionalId: string | null
  baseSequence: number
}

/** The batch's bytes: uncompressed or with `compression`, stamped when `stamp` is given. */
export function encodeBatch<R extends ProducerRecord>(b: Batch<R>, compression: number, stamp: Stamp | null): Buffer {
  return buildRecordBatch({
    compression,
    records: b.records.map((r, i) => ({ key: r.key, value: r.value, headers: r.headers ?? [], timestamp: b.timestamps[i]! })),
    ...(stamp
      ? {
          producerId: stamp.producerId,
          producerEpoch: stamp.producerEpoch,
          baseSequence: stamp.baseSequence,
          attributes: stamp.transactionalId === null ? 0 : TRANSACTIONAL_MASK,
        }
      : {}),
  })
}

/** Two batches with the first and second half of b's records, opened when b was. */
export function splitBatch<R>(b: Batch<R>): [Batch<R>, Batch<R>] {
  const half = Math.ceil(b.records.length / 2)
  const part = (from: number, to: number): Batch<R> => {
    const sizes = b.sizes.slice(from, to)
    return {
      ...newBatch<R>(b.partition, b.createdAt),
      records: b.records.slice(from, to),
      timestamps: b.timestamps.slice(from, to),
      sizes,
      sizeBytes: BATCH_HEADER_SIZE + sizes.reduce((s, x) => s + x, 0),
    }
  }
  return [part(0, half), part(half, b.records.length)]
}
