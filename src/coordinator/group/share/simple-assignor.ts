// The share groups' `simple` assignor (KIP-932; Kafka's share SimpleAssignor), pure: which members
// may fetch from which partitions. Unlike a consumer group's assignment, a partition may go to
// several members at once — the share-partition leader hands each record to one of them — so the
// rules are:
//   1. every partition some member subscribes to is assigned to at least one subscriber;
//   2. partitions are spread evenly: a member never holds more than one partition more than any
//      other subscriber of the same topics would (10 partitions × 3 members: 4/3/3);
//   3. when members outnumber a topic set's partitions, the spare members share partitions, each
//      member getting one, the partitions with the fewest members first (1 partition × 5 members:
//      all five hold it).
// Ties go to the member that held the partition in the previous target (so a membership change
// moves as little as it can), then to the member id's order, so the result is deterministic.
import { type Assignment, addPartition, emptyAssignment, hasPartition, partitionCount } from '../consumer/assignment.js'

export interface ShareAssignorMember {
  memberId: string
  /** Ids of the topics the member subscribes to (present in the cluster). */
  topics: ReadonlySet<string>
  /** The member's previous target assignment. */
  previous: Assignment
}

export const SIMPLE_ASSIGNOR = 'simple'

/** topic id → partition count of every subscribed topic; returns member id → target assignment. */
export function assignShare(members: readonly ShareAssignorMember[], partitions: ReadonlyMap<string, number>): Map<string, Assignment> {
  const sorted = [...members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0))
  const out = new Map<string, Assignment>(sorted.map((m) => [m.memberId, emptyAssignment()]))
  const load = new Map<string, number>(sorted.map((m) => [m.memberId, 0]))
  /** `${topic}:${partition}` → how many members hold it. */
  const holders = new Map<string, number>()
  const all: Array<[string, number]> = []
  for (const t of [...partitions.keys()].sort()) for (let p = 0; p < partitions.get(t)!; p++) all.push([t, p])

  // Rule 1 and 2: each partition to its least-loaded subscriber.
  for (const [t, p] of all) {
    let best: ShareAssignorMember | undefined
    for (const m of sorted) {
      if (!m.topics.has(t)) continue
      if (best === undefined) {
        best = m
        continue
      }
      const diff = load.get(m.memberId)! - load.get(best.memberId)!
      if (diff < 0 || (diff === 0 && hasPartition(m.previous, t, p) && !hasPartition(best.previous, t, p))) best = m
    }
    if (best === undefined) continue
    addPartition(out.get(best.memberId)!, t, p)
    load.set(best.memberId, load.get(best.memberId)! + 1)
    holders.set(`${t}:${p}`, 1)
  }

  // Rule 3: a subscriber left with nothing shares the partition of its topics with the fewest holders.
  for (const m of sorted) {
    if (partitionCount(out.get(m.memberId)!) > 0) continue
    let best: [string, number] | undefined
    let bestHolders = Number.POSITIVE_INFINITY
    for (const [t, p] of all) {
      if (!m.topics.has(t)) continue
      const h = holders.get(`${t}:${p}`) ?? 0
      if (h < bestHolders || (h === bestHolders && hasPartition(m.previous, t, p) && !(best && hasPartition(m.previous, ...best)))) {
        best = [t, p]
        bestHolders = h
      }
    }
    if (best === undefined) continue
    addPartition(out.get(m.memberId)!, best[0], best[1])
    holders.set(`${best[0]}:${best[1]}`, bestHolders + 1)
  }
  return out
}
