// Partition sets of the consumer protocol (KIP-848): a member's assignment is a map from topic id
// to a set of partition indexes. Small pure helpers shared by the assignors, the reconciliation
// (reconcile.ts) and the group (consumer-group.ts).

/** topic id → partition indexes. */
export type Assignment = Map<string, Set<number>>

export function emptyAssignment(): Assignment {
  return new Map()
}

export function copyAssignment(a: Assignment): Assignment {
  return new Map([...a].map(([t, ps]) => [t, new Set(ps)]))
}

export function addPartition(a: Assignment, topicId: string, partition: number): void {
  let ps = a.get(topicId)
  if (ps === undefined) {
    ps = new Set()
    a.set(topicId, ps)
  }
  ps.add(partition)
}

export function hasPartition(a: Assignment, topicId: string, partition: number): boolean {
  return a.get(topicId)?.has(partition) ?? false
}

export function partitionCount(a: Assignment): number {
  let n = 0
  for (const ps of a.values()) n += ps.size
  return n
}

/** Every (topic id, partition) of a, in topic then partition order. */
export function* partitionsOf(a: Assignment): Generator<[string, number]> {
  for (const t of [...a.keys()].sort()) for (const p of [...a.get(t)!].sort((x, y) => x - y)) yield [t, p]
}

/** The partitions of a that are also in b. */
export function intersect(a: Assignment, b: Assignment): Assignment {
  const out = emptyAssignment()
  for (const [t, p] of partitionsOf(a)) if (hasPartition(b, t, p)) addPartition(out, t, p)
  return out
}

/** The partitions of a that are not in b. */
export function subtract(a: Assignment, b: Assignment): Assignment {
  const out = emptyAssignment()
  for (const [t, p] of partitionsOf(a)) if (!hasPartition(b, t, p)) addPartition(out, t, p)
  return out
}

export function union(a: Assignment, b: Assignment): Assignment {
  const out = copyAssignment(a)
  for (const [t, p] of partitionsOf(b)) addPartition(out, t, p)
  return out
}

export function sameAssignment(a: Assignment, b: Assignment): boolean {
  return partitionCount(a) === partitionCount(b) && partitionCount(intersect(a, b)) === partitionCount(a)
}

/** The wire form (ConsumerGroupHeartbeat's TopicPartitions), topics and partitions sorted. */
export function toWire(a: Assignment): { topicId: string; partitions: number[] }[] {
  return [...a.keys()]
    .sort()
    .filter((t) => a.get(t)!.size > 0)
    .map((t) => ({ topicId: t, partitions: [...a.get(t)!].sort((x, y) => x - y) }))
}

export function fromWire(tps: readonly { topicId: string; partitions: readonly number[] }[]): Assignment {
  const out = emptyAssignment()
  for (const tp of tps) for (const p of tp.partitions) addPartition(out, tp.topicId, p)
  return out
}
