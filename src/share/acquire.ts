// What a share-partition leader learns from the batches a log read returned before it acquires
// records in them (Kafka's ShareFetchUtils): each whole batch's offsets, timestamp and byte range,
// and — for a read_committed share group — whether the batch belongs to an aborted transaction.
// Records of aborted transactions are never handed out: the share-partition archives them
// (Kafka's filterAbortedTransactionalAcquiredRecords). Control batches are acquired like records;
// the share consumer acknowledges them as GAP, as it does for offsets a compacted batch lacks.
//
// The walk is the one a read_committed consumer makes (KIP-98): an aborted transaction listed by
// the read starts at its first offset; from there its producer's transactional batches are
// aborted until the producer's ABORT marker.
import { type BatchHeader, lastOffsetOf } from '../protocol/records/batch.js'
import { readMarker } from '../protocol/records/control-record.js'
import { iterateBatches } from '../protocol/records/iterator.js'
import type { AbortedTransaction } from '../ports/replicas.js'

export interface BatchInfo {
  baseOffset: number
  lastOffset: number
  /** The batch's max timestamp (the delivery delay counts from it). */
  timestamp: number
  /** Byte range of the whole batch in the read's buffer. */
  position: number
  sizeBytes: number
  /** A data batch of an aborted transaction (read_committed only): its records are archived, never delivered. */
  aborted: boolean
}

/** The complete batches of a read, in order; `aborted` null for read_uncommitted. */
export function describeBatches(records: Buffer, aborted: AbortedTransaction[] | null): BatchInfo[] {
  const pendingAborts = aborted ? [...aborted].sort((a, b) => a.firstOffset - b.firstOffset) : []
  const abortedProducers = new Set<number>()
  let next = 0
  const out: BatchInfo[] = []
  for (const h of iterateBatches(records)) {
    let isAborted = false
    if (aborted) {
      while (next < pendingAborts.length && pendingAborts[next]!.firstOffset <= lastOffsetOf(h)) {
        abortedProducers.add(pendingAborts[next]!.producerId)
        next++
      }
      if (h.isControl) {
        if (isAbortMarker(records, h)) abortedProducers.delete(h.producerId)
      } else if (h.isTransactional && abortedProducers.has(h.producerId)) {
        isAborted = true
      }
    }
    out.push({
      baseOffset: h.baseOffset,
      lastOffset: lastOffsetOf(h),
      timestamp: h.maxTimestamp,
      position: h.position,
      sizeBytes: h.sizeBytes,
      aborted: isAborted,
    })
  }
  return out
}

function isAbortMarker(records: Buffer, h: BatchHeader): boolean {
  if (h.position + h.sizeBytes > records.length) return false
  const marker = readMarker(records, h)
  return marker !== null && !marker.commit
}

/** A run of acquired offsets with one delivery count, as ShareFetch's AcquiredRecords carries it. */
export interface AcquiredRange {
  firstOffset: number
  lastOffset: number
  deliveryCount: number
}

/** Appends offset (with its delivery count) to ranges, extending the last range when contiguous. */
export function addAcquired(ranges: AcquiredRange[], offset: number, deliveryCount: number): void {
  const last = ranges[ranges.length - 1]
  if (last && last.lastOffset === offset - 1 && last.deliveryCount === deliveryCount) last.lastOffset = offset
  else ranges.push({ firstOffset: offset, lastOffset: offset, deliveryCount })
}
