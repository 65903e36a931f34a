// Partition reassignment (KIP-455) and the admin side of leader election (KIP-460), on the
// metadata store every broker follows (a single broker is a cluster of one: the same path).
//
// A reassignment moves a partition to a target replica list in three steps, each a
// MetadataStore.alterPartition conditioned on the state it was computed from:
//   start     replicas = target ∪ current (target order first, then the replicas leaving),
//             addingReplicas = target − current, removingReplicas = current − target. The ISR and
//             the leader stay. Every broker in `replicas` hosts a replica (ReplicaSync), so the
//             new ones create their logs and fetch from the leader, which adds each to the ISR once
//             it has caught up (replicas being removed never rejoin the ISR).
//   complete  once every target replica is in the ISR: replicas = target, ISR = ISR ∩ target,
//             adding/removing emptied. A leader that is being removed (or is not alive) hands over
//             to the first target replica in the ISR that lives, with leaderEpoch + 1. The brokers
//             left out then remove their logs. The elected controller computes this in its sweep
//             (LeaderElection), which runs on every store change — the ISR expansion of the last
//             new replica included.
//   cancel    (target null) back to the original replicas (current − adding, in the order of the
//             combined list, as Kafka reverts), the ISR restricted to them; refused when none of
//             them is in the ISR (that would need an unclean election).
// A new target while one is in progress starts from the current (combined) replica list, as Kafka
// does; a target equal to the current list is nothing to do; a reordering of it only reorders.
//
// PartitionAdmin is what the AlterPartitionReassignments, ListPartitionReassignments and
// ElectLeaders handlers call (the PartitionAdminService port). Any broker may serve them: every
// write is a compare-and-swap on the shared store, retried from the fresh state when a leader's
// ISR change or the controller got there first. With one broker a partition's only replica is that
// broker: [self] is the one target the live-broker check accepts (a no-op), and no election is
// ever needed.
import type { PartitionAdminService, PartitionReassignment } from '../ports/partition-admin.js'
import { KafkaError } from '../protocol/errors.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { MetadataStore, PartitionState } from '../ports/metadata-store.js'

export type NextState = Omit<PartitionState, 'partitionEpoch'>

/** Attempts of one change that keeps losing compare-and-swap races, and the pause between them. */
const MAX_ATTEMPTS = 20
const RETRY_BACKOFF_MS = 50

export function reassignmentInProgress(state: PartitionState): boolean {
  return state.addingReplicas.length > 0 || state.removingReplicas.length > 0
}

/** The replicas the partition moves to: the current list without those being removed. */
export function targetReplicas(state: PartitionState): number[] {
  return state.replicas.filter((b) => !state.removingReplicas.includes(b))
}

/** The replicas before the reassignment: the current list without those being added. */
export function originalReplicas(state: PartitionState): number[] {
  return state.replicas.filter((b) => !state.addingReplicas.includes(b))
}

const sameList = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i])

/**
 * Starts a reassignment to `target` (already validated: non-empty, distinct). undefined when there
 * is nothing to do (the target is the current list and nothing is in progress).
 */
export function startReassignment(state: PartitionState, target: readonly number[]): NextState | undefined {
  const current = state.replicas
  if (!reassignmentInProgress(state) && sameList(current, target)) return undefined
  const addingReplicas = target.filter((b) => !current.includes(b))
  const removingReplicas = current.filter((b) => !target.includes(b))
  return { ...state, replicas: [...target, ...removingReplicas], addingReplicas, removingReplicas }
}

/**
 * The completed reassignment, once every target replica is in the ISR; undefined while it is not
 * (or nothing is in progress, or no live target replica in the ISR could lead).
 */
export function completeReassignment(state: PartitionState, live: ReadonlySet<number>): NextState | undefined {
  if (!reassignmentInProgress(state)) return undefined
  const target = targetReplicas(state)
  if (target.length === 0 || !target.every((b) => state.isr.includes(b))) return undefined
  const isr = state.isr.filter((b) => target.includes(b))
  let leader = state.leader
  let leaderEpoch = state.leaderEpoch
  if (!target.includes(leader) || !live.has(leader)) {
    const next = target.find((b) => isr.includes(b) && live.has(b))
    if (next === undefined) return undefined
    leader = next
    leaderEpoch++
  }
  return { replicas: target, isr, leader, leaderEpoch, addingReplicas: [], removingReplicas: [] }
}

/**
 * Cancels the reassignment in progress: back to the original replicas. Throws
 * NO_REASSIGNMENT_IN_PROGRESS when there is none, INVALID_REPLICA_ASSIGNMENT when no original
 * replica is in the ISR.
 */
export function cancelReassignment(state: PartitionState, live: ReadonlySet<number>): NextState {
  if (!reassignmentInProgress(state))
    throw new KafkaError('NO_REASSIGNMENT_IN_PROGRESS', 'no reassignment is in progress for this partition')
  const replicas = originalReplicas(state)
  const isr = state.isr.filter((b) => replicas.includes(b))
  if (isr.length === 0) {
    throw new KafkaError(
      'INVALID_REPLICA_ASSIGNMENT',
      'cannot cancel the reassignment: none of the original replicas is in sync, so it would need an unclean leader election',
    )
  }
  let leader = state.leader
  let leaderEpoch = state.leaderEpoch
  if (!replicas.includes(leader)) {
    leader = isr.find((b) => live.has(b)) ?? -1
    leaderEpoch++
  }
  return { replicas, isr, leader, leaderEpoch, addingReplicas: [], removingReplicas: [] }
}

/** Kafka's checks of a target list (validateManualPartitionAssignment) and of KIP-860. */
export function checkTarget(
  state: PartitionState,
  target: readonly number[],
  registered: ReadonlySet<number>,
  allowReplicationFactorChange: boolean,
): void {
  if (target.length === 0)
    throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', 'The manual partition assignment includes an empty replica list.')
  const seen = new Set<number>()
  for (const b of target) {
    if (seen.has(b))
      throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `The manual partition assignment includes the broker ${b} more than once.`)
    seen.add(b)
    if (!registered.has(b)) {
      throw new KafkaError(
        'INVALID_REPLICA_ASSIGNMENT',
        `The manual partition assignment includes broker ${b}, but no such broker is registered.`,
      )
    }
  }
  const before = originalReplicas(state).length
  if (!allowReplicationFactorChange && target.length !== before) {
    throw new KafkaError(
      'INVALID_REPLICATION_FACTOR',
      `The replication factor is changed from ${before} to ${target.length} but allowReplicationFactorChange is false.`,
    )
  }
}

/** Leader elections as the ElectLeaders handler needs them (LeaderElection.elect). */
export interface Elector {
  elect(topic: string, partition: number, unclean: boolean): Promise<KafkaError | null>
}

export interface PartitionAdminDeps {
  store: MetadataStore
  /** The registered (live) broker ids. */
  liveBrokers(): ReadonlySet<number>
  elector: Elector
  clock: Clock
  logger: Logger
}

/** The PartitionAdminService port over the metadata store (see the header comment). */
export class PartitionAdmin implements PartitionAdminService {
  constructor(private readonly deps: PartitionAdminDeps) {}

  async alterReassignment(
    topic: string,
    partition: number,
    target: readonly number[] | null,
    allowReplicationFactorChange: boolean,
  ): Promise<void> {
    const { store, logger } = this.deps
    for (let attempt = 1; ; attempt++) {
      const state = store.partitionState(topic, partition)
      if (!state) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Unable to find partition ${topic}-${partition}.`)
      const live = this.deps.liveBrokers()
      let next: NextState | undefined
      if (target === null) next = cancelReassignment(state, live)
      else {
        checkTarget(state, target, live, allowReplicationFactorChange)
        next = startReassignment(state, target)
        // A move whose target is already in sync (fewer replicas, a reordering) completes at once.
        if (next) next = completeReassignment({ ...next, partitionEpoch: state.partitionEpoch }, live) ?? next
      }
      if (!next) return
      try {
        await store.alterPartition({ topic, partition, expected: state, next })
        logger.info(target === null ? 'reassignment cancelled' : 'reassignment started', {
          partition: `${topic}-${partition}`,
          replicas: next.replicas,
          adding: next.addingReplicas,
          removing: next.removingReplicas,
        })
        return
      } catch (err) {
        if (!isRace(err) || attempt >= MAX_ATTEMPTS) throw err
        await this.sleep(RETRY_BACKOFF_MS * Math.min(attempt, 10))
      }
    }
  }

  listReassignments(topics: ReadonlyArray<{ name: string; partitions: readonly number[] }> | null): PartitionReassignment[] {
    const { store } = this.deps
    const out: PartitionReassignment[] = []
    const add = (topic: string, partition: number) => {
      const s = store.partitionState(topic, partition)
      if (s && reassignmentInProgress(s)) {
        out.push({
          topic,
          partition,
          replicas: [...s.replicas],
          addingReplicas: [...s.addingReplicas],
          removingReplicas: [...s.removingReplicas],
        })
      }
    }
    if (topics === null) {
      for (const t of store.listTopics()) for (let i = 0; i < t.partitions; i++) add(t.name, i)
    } else {
      for (const t of topics) for (const p of t.partitions) add(t.name, p)
    }
    return out
  }

  async electLeader(topic: string, partition: number, unclean: boolean): Promise<KafkaError | null> {
    const { elector } = this.deps
    for (let attempt = 1; ; attempt++) {
      const err = await elector.elect(topic, partition, unclean)
      if (!err || !isRace(err) || attempt >= MAX_ATTEMPTS) return err
      await this.sleep(RETRY_BACKOFF_MS * Math.min(attempt, 10))
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.deps.clock.setTimeout(resolve, ms))
  }
}

/** A compare-and-swap that lost to a newer state: computed again from the fresh one. */
function isRace(err: unknown): boolean {
  return err instanceof KafkaError && (err.errorName === 'INVALID_UPDATE_VERSION' || err.errorName === 'FENCED_LEADER_EPOCH')
}
