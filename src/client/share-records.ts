// The records of one partition of a ShareFetch answer (KIP-932), as Kafka's share consumer reads
// them (ShareCompletedFetch): the leader sends whole record batches, plus the offset ranges this
// member acquired in them (AcquiredRecords: first, last, delivery count). Only records inside an
// acquired range are the member's; every other record of those batches belongs to someone else or
// to nobody and is dropped.
//
// An acquired offset with no data record behind it — a control record (transaction marker), a
// record of an aborted transaction, a compacted-away offset — is a GAP: it is acknowledged with
// type 0 at once so the leader can move past it. A batch whose CRC does not match is REJECTED for
// the offsets acquired in it (the bytes are corrupt; delivering them again would not help), and
// the poll reports CORRUPT_MESSAGE to the caller through `errors`.
import type { ErrorName } from '../protocol/errors.js'
import { KafkaError } from '../protocol/errors.js'
import { batchCrcMatches } from '../protocol/records/batch.js'
import { iterateBatches, iterateRecords } from '../protocol/records/iterator.js'
import type { ConsumedRecord } from './consumer.js'
import { AcknowledgeType, type AcknowledgeTypeId } from './share-acks.js'

export interface AcquiredRange {
  firstOffset: number
  lastOffset: number
  deliveryCount: number
}

/** A record delivered to a share-group member. */
export interface ShareRecord extends ConsumedRecord {
  /** How many times the record has been delivered, this time included (1 the first time). */
  deliveryCount: number
}

export interface DecodedShareRecords {
  records: ShareRecord[]
  /** Acknowledgements the client makes by itself: GAP for empty offsets, REJECT for corrupt batches. */
  automatic: Map<number, AcknowledgeTypeId>
  /** A problem worth reporting (CORRUPT_MESSAGE, UNSUPPORTED_COMPRESSION_TYPE), or null. */
  error: { code: ErrorName; message: string } | null
}

/** Sorted, non-overlapping copy of the ranges (a broker sends them in order; be safe anyway). */
function normalise(ranges: readonly AcquiredRange[]): AcquiredRange[] {
  return [...ranges].filter((r) => r.lastOffset >= r.firstOffset).sort((a, b) => a.firstOffset - b.firstOffset)
}

/**
 * The member's records from one partition's bytes and acquired ranges. Offsets acquired but not
 * found in the bytes become GAP acknowledgements, except when a batch could not be read, in
 * which case the unread offsets are left to the acquisition lock (they come back to someone).
 */
export function decodeShareRecords(
  topic: string,
  partition: number,
  buf: Buffer | null,
  acquired: readonly AcquiredRange[],
): DecodedShareRecords {
  const ranges = normalise(acquired)
  const records: ShareRecord[] = []
  const automatic = new Map<number, AcknowledgeTypeId>()
  const seen = new Set<number>()
  let error: DecodedShareRecords['error'] = null
  if (ranges.length === 0) return { records, automatic, error }
  let r = 0 // ranges[r] is the first range that may still hold an offset ≥ the current one
  const countAt = (offset: number): number | undefined => {
    while (r < ranges.length && ranges[r]!.lastOffset < offset) r++
    const range = ranges[r]
    return range && range.firstOffset <= offset ? range.deliveryCount : undefined
  }
  const inRanges = (first: number, last: number): number[] => {
    const out: number[] = []
    for (const range of ranges) {
      for (let o = Math.max(first, range.firstOffset); o <= Math.min(last, range.lastOffset); o++) out.push(o)
    }
    return out
  }
  let readAll = true
  try {
    for (const h of iterateBatches(buf ?? Buffer.alloc(0))) {
      const last = h.baseOffset + h.lastOffsetDelta
      if (!batchCrcMatches(buf!, h.position, h.sizeBytes)) {
        for (const o of inRanges(h.baseOffset, last)) {
          automatic.set(o, AcknowledgeType.Reject)
          seen.add(o)
        }
        error ??= { code: 'CORRUPT_MESSAGE', message: `${topic}-${partition}: batch at offset ${h.baseOffset} fails its CRC check` }
        continue
      }
      if (h.isControl) continue // its offsets stay unseen: GAPs below
      for (const rec of iterateRecords(buf!, h.position)) {
        const deliveryCount = countAt(rec.offset)
        if (deliveryCount === undefined) continue
        seen.add(rec.offset)
        records.push({
          topic,
          partition,
          offset: rec.offset,
          timestamp: rec.timestamp,
          key: rec.key,
          value: rec.value,
          headers: rec.headers,
          deliveryCount,
        })
      }
    }
  } catch (err) {
    if (!(err instanceof KafkaError)) throw err
    readAll = false
    error ??= { code: err.errorName, message: `${topic}-${partition}: ${err.message}` }
  }
  if (readAll) {
    for (const o of inRanges(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY)) if (!seen.has(o)) automatic.set(o, AcknowledgeType.Gap)
  }
  return { records, automatic, error }
}
