// How a share-partition's stored state batches combine with the batches a write brings, as Kafka's
// share coordinator combines them (its PersisterStateBatchCombiner, KIP-932):
//
// - every batch is cut to the start offset: a batch wholly below it is dropped, one across it
//   keeps [startOffset, lastOffset] (a start offset of -1 cuts nothing);
// - where batches overlap, each offset takes the state of the batch of higher priority — the
//   higher delivery count, and at equal counts the higher delivery state (ACKNOWLEDGED 2 and
//   ARCHIVED 4 over AVAILABLE 0) — whichever of the two is the newer: a record's delivery only
//   moves forward, so a late or repeated write cannot undo it;
// - contiguous batches of the same state and delivery count become one.
// The result is sorted by offset and non-overlapping. A batch whose last offset is below its
// first is ignored. Pure; O(n log n) in the number of batches.
import type { ShareStateBatch } from '../../ports/shares.js'

/** Positive when a has priority over b (Kafka: delivery count, then delivery state). */
function priority(a: ShareStateBatch, b: ShareStateBatch): number {
  return a.deliveryCount !== b.deliveryCount ? a.deliveryCount - b.deliveryCount : a.deliveryState - b.deliveryState
}

function sameDelivery(a: ShareStateBatch, b: ShareStateBatch): boolean {
  return a.deliveryCount === b.deliveryCount && a.deliveryState === b.deliveryState
}

/** The batches of `stored` and `changes` combined (see the header). */
export function combineStateBatches(
  stored: readonly ShareStateBatch[],
  changes: readonly ShareStateBatch[],
  startOffset: number,
): ShareStateBatch[] {
  const all: ShareStateBatch[] = []
  for (const b of [...stored, ...changes]) {
    if (b.lastOffset < b.firstOffset) continue
    if (startOffset >= 0 && b.lastOffset < startOffset) continue
    const firstOffset = startOffset >= 0 && b.firstOffset < startOffset ? startOffset : b.firstOffset
    all.push({ firstOffset, lastOffset: b.lastOffset, deliveryState: b.deliveryState, deliveryCount: b.deliveryCount })
  }
  if (all.length <= 1) return all

  // Sweep the boundaries; between two of them the covering batch of highest priority decides.
  const bounds = new Set<number>()
  for (const b of all) {
    bounds.add(b.firstOffset)
    bounds.add(b.lastOffset + 1)
  }
  const points = [...bounds].sort((x, y) => x - y)
  const byStart = [...all].sort((x, y) => x.firstOffset - y.firstOffset)
  const out: ShareStateBatch[] = []
  let active: ShareStateBatch[] = []
  let next = 0
  for (let i = 0; i + 1 < points.length; i++) {
    const from = points[i]!
    const to = points[i + 1]! - 1
    active = active.filter((b) => b.lastOffset >= from)
    while (next < byStart.length && byStart[next]!.firstOffset <= from) active.push(byStart[next++]!)
    let best: ShareStateBatch | undefined
    for (const b of active) if (!best || priority(b, best) > 0) best = b
    if (!best) continue // a gap between batches
    const last = out[out.length - 1]
    if (last && last.lastOffset + 1 === from && sameDelivery(last, best)) last.lastOffset = to
    else out.push({ firstOffset: from, lastOffset: to, deliveryState: best.deliveryState, deliveryCount: best.deliveryCount })
  }
  return out
}
