// Replica placement and rebalance proposals. Pure functions: no I/O, no clock; randomness only
// through an injectable source.
//
// assignReplicas() is Kafka's placement for partitions created without an explicit assignment
// (AdminUtils.assignReplicasToBrokers, still what `kafka-reassign-partitions --generate` uses), so
// a topic gets the layout an operator who knows Kafka expects:
//   - rack-unaware (no broker has a rack): brokers sorted by id; a random start index and a random
//     replica shift; partition p's first replica (the preferred leader) is broker (start + p) % n,
//     its followers are spread by replicaIndex() with that shift, and the shift grows by one every n
//     partitions so that large topics do not repeat the same follower sets.
//   - rack-aware (every broker has a rack): the same round robin over a broker list that alternates
//     racks (getRackAlternatedBrokerList); followers skip brokers whose rack already holds a replica
//     until every rack has one, so each partition spans min(RF, racks) racks.
//   - some brokers with a rack and some without is refused, as Kafka refuses it.
// CreatePartitions passes the topic's current assignment (`existing`): like Kafka's addPartitions,
// the start index is fixed at the broker of partition 0's first replica and new partitions continue
// the pattern from the current partition count.
//
// proposeRebalance() is ours (Kafka leaves rebalancing to external tools): given the current
// assignment and the live brokers it proposes the fewest replica moves that leave every broker within
// one replica and one preferred leader of every other, evacuating brokers that left. Leadership is
// balanced by reordering replica lists (no data moves), replicas by greedy moves from the most to the
// least loaded broker. Deterministic: the same input always gives the same proposal, and a proposal
// applied and fed back proposes nothing.
import { KafkaError } from '../protocol/errors.js'

export interface PlacementBroker {
  readonly id: number
  /** `broker.rack`; null when the broker has none. */
  readonly rack: string | null
}

export interface AssignOptions {
  /** Id of the first partition to place (CreatePartitions: the topic's current partition count). */
  startPartition?: number
  /** Source of Kafka's two random draws (start index, then replica shift); values in [0, 1). */
  random?: () => number
  /**
   * The topic's current assignment, for CreatePartitions: fixes the start index (and the shift) at
   * the broker of partition 0's first replica, and startPartition defaults to its length.
   */
  existing?: ReadonlyArray<readonly number[]>
}

/**
 * Replica lists for `partitions` partitions (index i is partition startPartition + i); each list's
 * first broker is the partition's preferred leader.
 */
export function assignReplicas(
  brokers: ReadonlyArray<PlacementBroker>,
  partitions: number,
  replicationFactor: number,
  opts: AssignOptions = {},
): number[][] {
  if (!Number.isInteger(partitions) || partitions <= 0) {
    throw new KafkaError('INVALID_PARTITIONS', 'Number of partitions must be larger than 0.')
  }
  if (!Number.isInteger(replicationFactor) || replicationFactor <= 0) {
    throw new KafkaError('INVALID_REPLICATION_FACTOR', 'Replication factor must be larger than 0.')
  }
  if (replicationFactor > brokers.length) {
    throw new KafkaError(
      'INVALID_REPLICATION_FACTOR',
      `Replication factor: ${replicationFactor} larger than available brokers: ${brokers.length}.`,
    )
  }
  const sorted = [...brokers].sort((a, b) => a.id - b.id)
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.id === sorted[i - 1]!.id) {
      throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `Broker ${sorted[i]!.id} is listed twice.`)
    }
  }
  const withRack = sorted.filter((b) => b.rack !== null).length
  if (withRack > 0 && withRack < sorted.length) {
    throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', 'Not all brokers have rack information for replica rack aware assignment.')
  }
  const start = startingPoint(sorted, opts)
  const firstPartition = Math.max(0, opts.startPartition ?? opts.existing?.length ?? 0)
  const plan: Plan = { partitions, replicationFactor, firstPartition, ...start }
  return withRack === 0
    ? placeRackUnaware(
        sorted.map((b) => b.id),
        plan,
      )
    : placeRackAware(sorted, plan)
}

interface Plan {
  partitions: number
  replicationFactor: number
  firstPartition: number
  startIndex: number
  replicaShift: number
}

/** Kafka's start index and initial replica shift: two random draws, or fixed by partition 0's leader. */
function startingPoint(sorted: PlacementBroker[], opts: AssignOptions): { startIndex: number; replicaShift: number } {
  const leaderOfPartition0 = opts.existing?.[0]?.[0]
  if (leaderOfPartition0 !== undefined) {
    // addPartitions: the first broker (by id) at or above partition 0's leader, else the first.
    const fixed = Math.max(
      0,
      sorted.findIndex((b) => b.id >= leaderOfPartition0),
    )
    return { startIndex: fixed, replicaShift: fixed }
  }
  const random = opts.random ?? Math.random
  const nextInt = (n: number) => Math.min(n - 1, Math.floor(random() * n))
  const startIndex = nextInt(sorted.length)
  return { startIndex, replicaShift: nextInt(sorted.length) }
}

/** Position of follower j of a partition whose first replica is at `first` (Kafka's replicaIndex). */
function replicaIndex(first: number, replicaShift: number, j: number, n: number): number {
  const shift = 1 + ((replicaShift + j) % (n - 1))
  return (first + shift) % n
}

function placeRackUnaware(ids: readonly number[], plan: Plan): number[][] {
  const n = ids.length
  let shift = plan.replicaShift
  const out: number[][] = []
  for (let p = plan.firstPartition; p < plan.firstPartition + plan.partitions; p++) {
    if (p > 0 && p % n === 0) shift++
    const first = (p + plan.startIndex) % n
    const replicas = [ids[first]!]
    for (let j = 0; j < plan.replicationFactor - 1; j++) replicas.push(ids[replicaIndex(first, shift, j, n)]!)
    out.push(replicas)
  }
  return out
}

function placeRackAware(sorted: readonly PlacementBroker[], plan: Plan): number[][] {
  const rackOf = new Map(sorted.map((b) => [b.id, b.rack!]))
  const numRacks = new Set(rackOf.values()).size
  const list = rackAlternatedBrokerList(sorted)
  const n = list.length
  let shift = plan.replicaShift
  const out: number[][] = []
  for (let p = plan.firstPartition; p < plan.firstPartition + plan.partitions; p++) {
    if (p > 0 && p % n === 0) shift++
    const first = (p + plan.startIndex) % n
    const leader = list[first]!
    const replicas = [leader]
    const racks = new Set([rackOf.get(leader)!])
    const taken = new Set([leader])
    let k = 0
    while (replicas.length < plan.replicationFactor) {
      const broker = list[replicaIndex(first, shift * numRacks, k++, n)]!
      const rack = rackOf.get(broker)!
      // Skip a broker on a rack that already has a replica while some rack has none, and a broker
      // that already has one while some broker has none.
      if ((!racks.has(rack) || racks.size === numRacks) && (!taken.has(broker) || taken.size === n)) {
        replicas.push(broker)
        racks.add(rack)
        taken.add(broker)
      }
    }
    out.push(replicas)
  }
  return out
}

/**
 * Brokers alternated by rack (racks in name order, each rack's brokers by id): racks a:{0,1,2},
 * b:{3,4}, c:{5} give 0, 3, 5, 1, 4, 2. A round robin over this list visits every rack in turn.
 */
export function rackAlternatedBrokerList(brokers: ReadonlyArray<PlacementBroker>): number[] {
  const byRack = new Map<string, number[]>()
  for (const b of [...brokers].sort((x, y) => x.id - y.id)) {
    const rack = b.rack ?? ''
    const ids = byRack.get(rack)
    if (ids) ids.push(b.id)
    else byRack.set(rack, [b.id])
  }
  const racks = [...byRack.keys()].sort(compareStrings).map((r) => byRack.get(r)!)
  const out: number[] = []
  for (let round = 0; out.length < brokers.length; round++) {
    for (const ids of racks) if (round < ids.length) out.push(ids[round]!)
  }
  return out
}

// ---- Rebalance proposals ----------------------------------------------------------------------

/** "topic:partition" keys in (topic, partition number) order, so proposals do not depend on Map order. */
export function compareTopicPartitionKeys(a: string, b: string): number {
  const ia = a.lastIndexOf(':')
  const ib = b.lastIndexOf(':')
  const ta = ia < 0 ? a : a.slice(0, ia)
  const tb = ib < 0 ? b : b.slice(0, ib)
  if (ta !== tb) return compareStrings(ta, tb)
  const pa = Number(a.slice(ia + 1))
  const pb = Number(b.slice(ib + 1))
  if (ia >= 0 && ib >= 0 && Number.isFinite(pa) && Number.isFinite(pb) && pa !== pb) return pa - pb
  return compareStrings(a, b)
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Replica and preferred-leader counts of the live brokers, kept up to date while a proposal is built. */
class Loads {
  readonly replicas = new Map<number, number>()
  readonly leaders = new Map<number, number>()

  constructor(readonly brokers: readonly number[]) {
    for (const b of brokers) {
      this.replicas.set(b, 0)
      this.leaders.set(b, 0)
    }
  }

  add(map: Map<number, number>, broker: number, delta: number): void {
    if (map.has(broker)) map.set(broker, map.get(broker)! + delta)
  }

  /** The broker with the most (mostLoaded) or fewest replicas; ties go to the lowest id. */
  pick(mostLoaded: boolean): number {
    let best = this.brokers[0]!
    for (const b of this.brokers) {
      const d = this.replicas.get(b)! - this.replicas.get(best)!
      if (mostLoaded ? d > 0 : d < 0) best = b
    }
    return best
  }
}

/**
 * The replica lists that should change so that every partition lives on `brokers` (replicas on any
 * other broker move), each broker holds within one replica and within one preferred leader of every
 * other where the lists allow it, and as few replicas as possible move. Partitions that keep their
 * list are not in the result. A list keeps its length, its brokers stay distinct and surviving
 * replicas keep their positions; a leader change is a reorder of the list (the new leader moves to
 * the front, the old one becomes the first follower).
 */
export function proposeRebalance(current: ReadonlyMap<string, readonly number[]>, brokers: readonly number[]): Map<string, number[]> {
  const live = [...new Set(brokers)].sort((a, b) => a - b)
  const keys = [...current.keys()].sort(compareTopicPartitionKeys)
  const work = new Map<string, number[]>(keys.map((k) => [k, [...current.get(k)!]]))
  const loads = new Loads(live)
  evacuate(work, keys, loads)
  balanceReplicas(work, keys, loads, current)
  balanceLeaders(work, keys, loads)
  const out = new Map<string, number[]>()
  for (const k of keys) {
    const next = work.get(k)!
    if (!sameList(current.get(k)!, next)) out.set(k, next)
  }
  return out
}

/** Counts the replicas that stay, then moves every replica on a broker not in `brokers` (or listed twice). */
function evacuate(work: Map<string, number[]>, keys: readonly string[], loads: Loads): void {
  const liveSet = new Set(loads.brokers)
  const vacant = new Map<string, number[]>()
  for (const k of keys) {
    const list = work.get(k)!
    if (list.length > liveSet.size) {
      throw new KafkaError(
        'INVALID_REPLICATION_FACTOR',
        `Partition ${k} has ${list.length} replicas but only ${liveSet.size} brokers are available.`,
      )
    }
    const seen = new Set<number>()
    list.forEach((b, slot) => {
      if (liveSet.has(b) && !seen.has(b)) {
        seen.add(b)
        loads.add(loads.replicas, b, 1)
        if (slot === 0) loads.add(loads.leaders, b, 1)
      } else {
        list[slot] = -1
        const slots = vacant.get(k)
        if (slots) slots.push(slot)
        else vacant.set(k, [slot])
      }
    })
  }
  for (const k of keys) {
    const list = work.get(k)!
    for (const slot of vacant.get(k) ?? []) {
      const target = leastLoadedOutside(loads, list)
      list[slot] = target
      loads.add(loads.replicas, target, 1)
      if (slot === 0) loads.add(loads.leaders, target, 1)
    }
  }
}

/** The live broker not in `list` with the fewest replicas, then the fewest leaders, then lowest id. */
function leastLoadedOutside(loads: Loads, list: readonly number[]): number {
  let best = -1
  for (const b of loads.brokers) {
    if (list.includes(b)) continue
    if (best < 0) {
      best = b
      continue
    }
    const d = loads.replicas.get(b)! - loads.replicas.get(best)!
    if (d < 0 || (d === 0 && loads.leaders.get(b)! < loads.leaders.get(best)!)) best = b
  }
  return best
}

/**
 * While the most loaded broker holds two or more replicas than the least loaded one, move replicas.
 * First choice: send replicas that evacuate() just placed elsewhere, which costs no extra move —
 * along a chain (broker a gives a new replica to b, b gives one of its new replicas to c, …) from a
 * broker to one holding two or more fewer. Otherwise move one replica from the most to the least
 * loaded broker: such a partition always exists (the source holds more partitions than the target,
 * so one of them lacks the target); a leader replica is preferred when the source also leads two or
 * more partitions than the target, a follower otherwise, so fewer reorders follow. Every step lowers
 * the sum of squared counts, so this ends.
 */
function balanceReplicas(
  work: Map<string, number[]>,
  keys: readonly string[],
  loads: Loads,
  original: ReadonlyMap<string, readonly number[]>,
): void {
  if (loads.brokers.length === 0) return
  for (;;) {
    const src = loads.pick(true)
    const dst = loads.pick(false)
    if (loads.replicas.get(src)! - loads.replicas.get(dst)! <= 1) return
    const placed = new Map<number, Hop[]>()
    for (const k of keys) {
      const list = work.get(k)!
      const before = original.get(k)!
      for (const from of list) {
        if (before.includes(from)) continue
        const hops = hopList(placed, from)
        for (const to of loads.brokers) if (!list.includes(to)) hops.push({ from, to, key: k })
      }
    }
    const path = findChain(loads.brokers, loads.replicas, (b) => placed.get(b) ?? []) ?? [greedyMove(work, keys, loads, src, dst)]
    for (const hop of path) {
      const list = work.get(hop.key)!
      const slot = list.indexOf(hop.from)
      list[slot] = hop.to
      if (slot === 0) {
        loads.add(loads.leaders, hop.from, -1)
        loads.add(loads.leaders, hop.to, 1)
      }
    }
    loads.add(loads.replicas, path[0]!.from, -1)
    loads.add(loads.replicas, path[path.length - 1]!.to, 1)
  }
}

function greedyMove(work: Map<string, number[]>, keys: readonly string[], loads: Loads, src: number, dst: number): Hop {
  const wantLeader = loads.leaders.get(src)! - loads.leaders.get(dst)! >= 2
  let chosen: string | undefined
  for (const k of keys) {
    const list = work.get(k)!
    if (!list.includes(src) || list.includes(dst)) continue
    chosen ??= k
    if ((list[0] === src) === wantLeader) {
      chosen = k
      break
    }
  }
  return { from: src, to: dst, key: chosen! }
}

/** One step of a chain: partition `key`'s replica (or leadership) passes from one broker to another. */
interface Hop {
  readonly from: number
  readonly to: number
  readonly key: string
}

function hopList(index: Map<number, Hop[]>, from: number): Hop[] {
  let hops = index.get(from)
  if (!hops) index.set(from, (hops = []))
  return hops
}

/**
 * Moves preferred leadership by reordering lists, along chains: a broker leading too many partitions
 * hands one to a follower of it, which may hand one of its own on, and so on until a broker leading
 * two or more fewer than the first gains one. The new leader goes to the front of the list and the
 * old one becomes the first follower. Each chain lowers the sum of squared leader counts, so this
 * ends; it stops when no chain exists.
 */
function balanceLeaders(work: Map<string, number[]>, keys: readonly string[], loads: Loads): void {
  for (;;) {
    const led = new Map<number, Hop[]>()
    for (const k of keys) {
      const [from, ...followers] = work.get(k)!
      if (from === undefined) continue
      const hops = hopList(led, from)
      for (const to of followers) hops.push({ from, to, key: k })
    }
    const path = findChain(loads.brokers, loads.leaders, (b) => led.get(b) ?? [])
    if (!path) return
    for (const hop of path) {
      const list = work.get(hop.key)!
      list.splice(list.indexOf(hop.to), 1)
      list.unshift(hop.to)
    }
    loads.add(loads.leaders, path[0]!.from, -1)
    loads.add(loads.leaders, path[path.length - 1]!.to, 1)
  }
}

/**
 * A chain of hops from some broker to one whose count is two or more lower, found breadth-first from
 * each broker in turn (the highest counts first, then by id), ending at the lowest count reachable.
 * Each broker appears once in a chain, so the brokers in between keep their counts.
 */
function findChain(
  brokers: readonly number[],
  count: ReadonlyMap<number, number>,
  hopsFrom: (broker: number) => readonly Hop[],
): Hop[] | undefined {
  const bySurplus = [...brokers].sort((a, b) => count.get(b)! - count.get(a)! || a - b)
  for (const src of bySurplus) {
    const via = new Map<number, Hop | null>([[src, null]])
    const queue = [src]
    let best = src
    for (let i = 0; i < queue.length; i++) {
      for (const hop of hopsFrom(queue[i]!)) {
        if (via.has(hop.to) || !count.has(hop.to)) continue
        via.set(hop.to, hop)
        queue.push(hop.to)
        if (count.get(hop.to)! < count.get(best)!) best = hop.to
      }
    }
    if (count.get(best)! > count.get(src)! - 2) continue
    const path: Hop[] = []
    for (let hop = via.get(best); hop; hop = via.get(hop.from)) path.unshift(hop)
    return path
  }
  return undefined
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i])
}

// ---- Summaries (for the CLI) ------------------------------------------------------------------

export interface BrokerLoad {
  readonly broker: number
  readonly replicas: number
  readonly leaders: number
}

/**
 * Replica and preferred-leader counts per broker: every broker in `brokers` (even with nothing) and
 * every broker the assignment names, by id.
 */
export function brokerLoads(assignment: ReadonlyMap<string, readonly number[]>, brokers: readonly number[] = []): BrokerLoad[] {
  const replicas = new Map<number, number>(brokers.map((b) => [b, 0]))
  const leaders = new Map<number, number>(brokers.map((b) => [b, 0]))
  for (const list of assignment.values()) {
    list.forEach((b, slot) => {
      replicas.set(b, (replicas.get(b) ?? 0) + 1)
      leaders.set(b, (leaders.get(b) ?? 0) + (slot === 0 ? 1 : 0))
    })
  }
  return [...replicas.keys()].sort((a, b) => a - b).map((b) => ({ broker: b, replicas: replicas.get(b)!, leaders: leaders.get(b)! }))
}

/** The assignment after a proposal: the current lists with the proposed ones replacing theirs. */
export function applyProposal(
  current: ReadonlyMap<string, readonly number[]>,
  proposal: ReadonlyMap<string, readonly number[]>,
): Map<string, number[]> {
  const out = new Map<string, number[]>()
  for (const [k, list] of current) out.set(k, [...(proposal.get(k) ?? list)])
  return out
}

export interface ImbalanceSummary {
  readonly before: BrokerLoad[]
  readonly after: BrokerLoad[]
  /** Partitions whose replica list changes (moves or reorders). */
  readonly changedPartitions: number
  /** Replicas that land on a broker that did not hold the partition. */
  readonly movedReplicas: number
  /** Partitions whose preferred leader changes. */
  readonly leaderChanges: number
}

/** Per-broker counts before and after a proposal, and what it costs. */
export function describeImbalance(
  current: ReadonlyMap<string, readonly number[]>,
  proposal: ReadonlyMap<string, readonly number[]>,
  brokers: readonly number[],
): ImbalanceSummary {
  let movedReplicas = 0
  let leaderChanges = 0
  let changedPartitions = 0
  for (const [k, next] of proposal) {
    const before = current.get(k) ?? []
    if (sameList(before, next)) continue
    changedPartitions++
    movedReplicas += next.filter((b) => !before.includes(b)).length
    if (before[0] !== next[0]) leaderChanges++
  }
  // Brokers that are leaving show in both tables, with nothing left after.
  const all = brokerLoads(current, brokers).map((l) => l.broker)
  return {
    before: brokerLoads(current, all),
    after: brokerLoads(applyProposal(current, proposal), all),
    changedPartitions,
    movedReplicas,
    leaderChanges,
  }
}
