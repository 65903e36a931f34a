// Acknowledgements of a share-group member (KIP-932): what the member says about each record it
// acquired, and how those words travel in ShareFetch (78) and ShareAcknowledge (79).
//
// Types on the wire: 0 GAP (an acquired offset with no record to deliver: a control record, a
// compacted-away or aborted one), 1 ACCEPT, 2 RELEASE (deliver again, to anyone), 3 REJECT
// (never again, an archived record), 4 RENEW (keep the lock, ShareFetch/ShareAcknowledge v2,
// KIP-1222 — the record stays acquired and still needs one of the other types later).
//
// AcknowledgementBatches, as Kafka's consumer builds them (its Acknowledgements class): offsets
// sorted; a new batch starts wherever offsets stop being contiguous; a batch whose offsets all
// share one type carries that type once, otherwise one type per offset. Inside a contiguous run of
// mixed types, a stretch of at least SAME_TYPE_RUN offsets of one type is cut out as a batch of
// its own with a single type, so a long accepted range with one released record costs three
// short batches rather than thousands of bytes.
//
// The set is bounded by what was acquired: entries are only made for offsets a ShareFetch
// returned to this member, and taken out when they are sent.

export const AcknowledgeType = { Gap: 0, Accept: 1, Release: 2, Reject: 3, Renew: 4 } as const
export type AcknowledgeTypeId = (typeof AcknowledgeType)[keyof typeof AcknowledgeType]

/** The types an application gives (GAP is the client's own; RENEW goes through renew()). */
export type AckKind = 'accept' | 'release' | 'reject'

export const ACK_KINDS: readonly AckKind[] = ['accept', 'release', 'reject']

const TYPE_OF_KIND: Readonly<Record<AckKind, AcknowledgeTypeId>> = {
  accept: AcknowledgeType.Accept,
  release: AcknowledgeType.Release,
  reject: AcknowledgeType.Reject,
}

/** The wire type of an application's acknowledgement; undefined for anything else. */
export const ackTypeOf = (kind: string): AcknowledgeTypeId | undefined =>
  Object.hasOwn(TYPE_OF_KIND, kind) ? TYPE_OF_KIND[kind as AckKind] : undefined

/** Kafka's consumer uses the same threshold (MAX_RECORDS_WITH_SAME_ACKNOWLEDGE_TYPE). */
export const SAME_TYPE_RUN = 10

export interface AcknowledgementBatch {
  firstOffset: number
  lastOffset: number
  /** One type for the whole range, or one per offset (lastOffset − firstOffset + 1 of them). */
  acknowledgeTypes: number[]
}

/**
 * The batches for a set of (offset → type). Offsets may come in any order; a repeated offset
 * keeps its last type (as a Map does).
 */
export function acknowledgementBatches(acks: ReadonlyMap<number, AcknowledgeTypeId>): AcknowledgementBatch[] {
  const offsets = [...acks.keys()].sort((a, b) => a - b)
  const out: AcknowledgementBatch[] = []
  let i = 0
  while (i < offsets.length) {
    let j = i
    while (j + 1 < offsets.length && offsets[j + 1] === offsets[j]! + 1) j++
    splitRun(
      offsets[i]!,
      offsets.slice(i, j + 1).map((o) => acks.get(o)!),
      out,
    )
    i = j + 1
  }
  return out
}

/** One contiguous run starting at `first`, with a type per offset, into batches. */
function splitRun(first: number, types: number[], out: AcknowledgementBatch[]): void {
  let pendingStart = 0 // start of the mixed stretch not yet emitted
  let k = 0
  while (k < types.length) {
    let end = k
    while (end + 1 < types.length && types[end + 1] === types[k]) end++
    const length = end - k + 1
    if (length >= SAME_TYPE_RUN || (pendingStart === k && end === types.length - 1)) {
      if (pendingStart < k) out.push(batchOf(first + pendingStart, types.slice(pendingStart, k)))
      out.push({ firstOffset: first + k, lastOffset: first + end, acknowledgeTypes: [types[k]!] })
      pendingStart = end + 1
    }
    k = end + 1
  }
  if (pendingStart < types.length) out.push(batchOf(first + pendingStart, types.slice(pendingStart)))
}

function batchOf(first: number, types: number[]): AcknowledgementBatch {
  const single = types.every((t) => t === types[0])
  return { firstOffset: first, lastOffset: first + types.length - 1, acknowledgeTypes: single ? [types[0]!] : types }
}

/**
 * The type of each offset a batch list says, expanded (for checks and tests); throws on a batch
 * whose type count is neither 1 nor its length — a request Kafka refuses with INVALID_REQUEST.
 */
export function expandBatches(batches: readonly AcknowledgementBatch[]): Map<number, number> {
  const out = new Map<number, number>()
  for (const b of batches) {
    const n = b.lastOffset - b.firstOffset + 1
    if (b.acknowledgeTypes.length !== 1 && b.acknowledgeTypes.length !== n) {
      throw new RangeError(`batch ${b.firstOffset}-${b.lastOffset} has ${b.acknowledgeTypes.length} types`)
    }
    for (let o = b.firstOffset; o <= b.lastOffset; o++) {
      out.set(o, b.acknowledgeTypes.length === 1 ? b.acknowledgeTypes[0]! : b.acknowledgeTypes[o - b.firstOffset]!)
    }
  }
  return out
}
