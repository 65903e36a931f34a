// The rules of partition states (Kafka's PartitionRegistration) that every MetadataStore keeps the
// same way: a partition never written follows its topic's assignment, a change must start from the
// current state (compare-and-swap on the leader epoch, then the partition epoch), and a state is
// refused when its replicas, ISR or leader do not fit together.
import { KafkaError } from '../protocol/errors.js'
import type { PartitionState, TopicRecord } from '../ports/metadata-store.js'

export const isBrokerList = (v: unknown): v is number[] =>
  Array.isArray(v) && v.every((b) => Number.isSafeInteger(b) && b >= 0) && new Set(v).size === v.length

/** A partition whose state was never written: its assigned replicas, the first leading, all in sync. */
export function initialState(t: TopicRecord, partition: number): PartitionState {
  const replicas = t.assignment?.[partition] ?? []
  return {
    replicas,
    isr: replicas,
    leader: replicas[0] ?? -1,
    leaderEpoch: 0,
    partitionEpoch: 0,
    addingReplicas: [],
    removingReplicas: [],
  }
}

export function checkAssignment(assignment: readonly (readonly number[])[] | undefined, first: number, count: number, rf: number): void {
  if (!assignment || assignment.length !== count) {
    throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `expected replica lists for partitions ${first}..${first + count - 1}`)
  }
  assignment.forEach((a, i) => {
    if (!isBrokerList(a) || a.length !== rf) {
      throw new KafkaError(
        'INVALID_REPLICA_ASSIGNMENT',
        `partition ${first + i}: ${JSON.stringify(a)} is not a list of ${rf} distinct broker ids`,
      )
    }
  })
}

/** What is wrong with a partition state, or undefined. */
export function partitionStateProblem(s: Omit<PartitionState, 'partitionEpoch'>): string | undefined {
  if (!isBrokerList(s.replicas) || s.replicas.length === 0) return 'replicas must be distinct broker ids'
  if (!isBrokerList(s.isr) || s.isr.some((b) => !s.replicas.includes(b))) return 'the ISR must be replicas'
  if (!Number.isSafeInteger(s.leader) || (s.leader !== -1 && !s.isr.includes(s.leader))) return 'the leader must be in the ISR'
  if (!Number.isSafeInteger(s.leaderEpoch) || s.leaderEpoch < 0) return 'invalid leader epoch'
  if (!isBrokerList(s.addingReplicas) || !isBrokerList(s.removingReplicas)) return 'invalid reassignment lists'
  return undefined
}

/** The change must start from the partition's current state (leader epoch first, as Kafka checks). */
export function checkTransition(current: PartitionState, expected: PartitionState): void {
  if (current.leaderEpoch !== expected.leaderEpoch) throw fencedEpoch('', -1, expected.leaderEpoch, current.leaderEpoch)
  if (current.partitionEpoch !== expected.partitionEpoch) {
    throw new KafkaError(
      'INVALID_UPDATE_VERSION',
      `partition epoch ${expected.partitionEpoch} is stale: the partition is at epoch ${current.partitionEpoch}`,
    )
  }
}

export function fencedEpoch(topic: string, partition: number, expected: number, current: number): KafkaError {
  const what = topic ? `${topic}-${partition}` : 'the partition'
  return new KafkaError('FENCED_LEADER_EPOCH', `leader epoch ${expected} of ${what} is stale: it is at ${current}`)
}
