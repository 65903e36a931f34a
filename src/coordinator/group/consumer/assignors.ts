// The server-side assignors of the consumer protocol (KIP-848; group.consumer.assignors, the first
// is the default): `uniform` and `range`. Each computes a group's target assignment from its
// members' subscriptions and the subscribed topics' partition counts, in one pure call.
//
// uniform: balances the number of partitions across members (counts differ by at most one among
//   members that could take the same partitions), keeping every partition with its previous target
//   owner where balance allows, so a rebalance moves as few partitions as possible. Subscriptions
//   may differ between members; a partition only goes to a member subscribed to its topic.
// range: per topic, the subscribed members in member-id order get contiguous ranges, the first
//   (partitions % members) of them one partition more (Kafka's RangeAssignor). It does not try to
//   be sticky: a change of membership may move ranges.
import { addPartition, type Assignment, emptyAssignment, hasPartition } from './assignment.js'

export interface AssignorMember {
  memberId: string
  /** Topic ids the member subscribes to (resolved from names or a regex). */
  topics: ReadonlySet<string>
  /** The member's previous target assignment (for stickiness). */
  previous: Assignment
}

export interface Assignor {
  readonly name: string
  /** Target assignment per member id; every member appears, possibly with nothing. */
  assign(members: readonly AssignorMember[], partitions: ReadonlyMap<string, number>): Map<string, Assignment>
}

export const uniformAssignor: Assignor = {
  name: 'uniform',
  assign(members, partitions) {
    const out = new Map<string, Assignment>(members.map((m) => [m.memberId, emptyAssignment()]))
    const count = new Map<string, number>(members.map((m) => [m.memberId, 0]))
    const subscribers = subscribersByTopic(members, partitions)
    const give = (memberId: string, t: string, p: number) => {
      addPartition(out.get(memberId)!, t, p)
      count.set(memberId, count.get(memberId)! + 1)
    }
    // Keep each partition with its previous owner while that owner is still subscribed.
    const free: [string, number][] = []
    for (const t of [...partitions.keys()].sort()) {
      for (let p = 0; p < partitions.get(t)!; p++) {
        const keeper = subscribers.get(t)!.find((m) => hasPartition(m.previous, t, p))
        if (keeper !== undefined) give(keeper.memberId, t, p)
        else if (subscribers.get(t)!.length > 0) free.push([t, p])
      }
    }
    // Hand each free partition to the least-loaded member that subscribes to its topic.
    for (const [t, p] of free) give(leastLoaded(subscribers.get(t)!, count).memberId, t, p)
    // Then move partitions from the most to the least loaded eligible member until no move narrows
    // the gap (each move lowers the sum of squared counts, so this ends).
    for (let moved = true; moved; ) {
      moved = false
      for (const t of [...partitions.keys()].sort()) {
        const subs = subscribers.get(t)!
        if (subs.length < 2) continue
        for (let p = 0; p < partitions.get(t)!; p++) {
          const owner = subs.find((m) => hasPartition(out.get(m.memberId)!, t, p))!
          const target = leastLoaded(subs, count)
          if (count.get(target.memberId)! + 1 < count.get(owner.memberId)!) {
            out.get(owner.memberId)!.get(t)!.delete(p)
            count.set(owner.memberId, count.get(owner.memberId)! - 1)
            give(target.memberId, t, p)
            moved = true
          }
        }
      }
    }
    return out
  },
}

export const rangeAssignor: Assignor = {
  name: 'range',
  assign(members, partitions) {
    const out = new Map<string, Assignment>(members.map((m) => [m.memberId, emptyAssignment()]))
    for (const [t, subs] of subscribersByTopic(members, partitions)) {
      if (subs.length === 0) continue
      const n = partitions.get(t)!
      const per = Math.floor(n / subs.length)
      const extra = n % subs.length
      let next = 0
      subs.forEach((m, i) => {
        const take = per + (i < extra ? 1 : 0)
        for (let k = 0; k < take; k++) addPartition(out.get(m.memberId)!, t, next++)
      })
    }
    return out
  },
}

export const ASSIGNORS: ReadonlyMap<string, Assignor> = new Map([
  [uniformAssignor.name, uniformAssignor],
  [rangeAssignor.name, rangeAssignor],
])

/** Subscribed members of each existing topic, in member-id order. */
function subscribersByTopic(members: readonly AssignorMember[], partitions: ReadonlyMap<string, number>): Map<string, AssignorMember[]> {
  const sorted = [...members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0))
  return new Map([...partitions.keys()].map((t) => [t, sorted.filter((m) => m.topics.has(t))]))
}

function leastLoaded(candidates: readonly AssignorMember[], count: ReadonlyMap<string, number>): AssignorMember {
  let best = candidates[0]!
  for (const m of candidates) if (count.get(m.memberId)! < count.get(best.memberId)!) best = m
  return best
}
