// Transaction markers: the control batches that end a producer's transaction in a partition (KIP-98,
// Kafka's EndTransactionMarker and ControlRecordType). A marker is a batch with the transactional
// and control attributes, the producer's id and epoch, baseSequence -1 and one record:
//   key   = int16 version (0) | int16 type (0 ABORT, 1 COMMIT)
//   value = int16 version (0) | int32 coordinatorEpoch
// Control batches are written uncompressed (Kafka's MemoryRecords.withEndTransactionMarker); a
// control batch the cleaner emptied (no record) ends nothing.
import { BATCH_HEADER_SIZE, type BatchHeader, CONTROL_MASK, TRANSACTIONAL_MASK } from './batch.js'
import { buildRecordBatch } from './builder.js'
import { iterateRecords } from './iterator.js'

/** Kafka's ControlRecordType ids of the transaction markers. */
export const ControlRecordType = { Abort: 0, Commit: 1 } as const

export interface EndTxnMarker {
  commit: boolean
  coordinatorEpoch: number
}

export interface MarkerBatchOptions {
  producerId: number
  producerEpoch: number
  coordinatorEpoch: number
  commit: boolean
  /** The record's timestamp (the broker's clock). */
  timestamp: number
  partitionLeaderEpoch?: number
}

/** One marker control batch (offset 0: the log assigns it). */
export function buildMarkerBatch(opts: MarkerBatchOptions): Buffer {
  const key = Buffer.alloc(4)
  key.writeInt16BE(0, 0)
  key.writeInt16BE(opts.commit ? ControlRecordType.Commit : ControlRecordType.Abort, 2)
  const value = Buffer.alloc(6)
  value.writeInt16BE(0, 0)
  value.writeInt32BE(opts.coordinatorEpoch, 2)
  return buildRecordBatch({
    records: [{ key, value, timestamp: opts.timestamp }],
    producerId: opts.producerId,
    producerEpoch: opts.producerEpoch,
    baseSequence: -1,
    partitionLeaderEpoch: opts.partitionLeaderEpoch ?? -1,
    attributes: TRANSACTIONAL_MASK | CONTROL_MASK,
  })
}

/**
 * The marker of the control batch whose header is h (h.position within buf, the batch whole in
 * buf); null for an emptied control batch or a control record that is no transaction marker.
 */
export function readMarker(buf: Buffer, h: BatchHeader): EndTxnMarker | null {
  if (!h.isControl || h.recordCount === 0 || h.sizeBytes <= BATCH_HEADER_SIZE) return null
  for (const r of iterateRecords(buf, h.position)) {
    if (r.key === null || r.key.length < 4) return null
    const type = r.key.readInt16BE(2)
    if (type !== ControlRecordType.Abort && type !== ControlRecordType.Commit) return null
    const coordinatorEpoch = r.value !== null && r.value.length >= 6 ? r.value.readInt32BE(2) : -1
    return { commit: type === ControlRecordType.Commit, coordinatorEpoch }
  }
  return null
}
