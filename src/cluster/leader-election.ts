// Leader election and failover (docs/architecture.md §1.6): the part of Kafka's controller that keeps every
// partition led by a live in-sync replica. Runs on the broker elected controller (EtcdMembership);
// every change it makes is a MetadataStore.alterPartition conditioned on the state it read, so a
// controller that lost its seat, or raced a leader's ISR change, changes nothing.
//
// When the set of live brokers changes (a lease expired or was revoked, a broker registered), and
// on becoming controller, every partition is checked:
// - its leader is gone (or there is none): the first replica, in preferred order, that is alive and
//   in the ISR becomes leader, the leader epoch grows, and the dead replicas leave the ISR. With no
//   live ISR member the partition stays leaderless and keeps its last ISR (so the replica that
//   has every committed record can lead again when it returns) — unless the topic's
//   unclean.leader.election.enable allows any live replica to lead, losing what it lacks;
// - its leader lives but some ISR member died: it leaves the ISR (same leader epoch), so acks=all
//   writes are not held for replica.lag.time.max.ms by a replica that will not fetch;
// - auto.leader.rebalance.enable: every leader.imbalance.check.interval.seconds, a partition whose
//   preferred replica (the first) is alive and in the ISR but does not lead gets it back as leader,
//   when more than leader.imbalance.per.broker.percentage of that broker's preferred partitions are
//   led elsewhere (Kafka's rule);
// - a reassignment in progress whose target replicas are all in the ISR completes (reassignment.ts).
import { KafkaError } from '../protocol/errors.js'
import type { Clock, Timer } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { MetadataStore, PartitionChange, PartitionState, TopicRecord } from '../ports/metadata-store.js'
import { completeReassignment } from './reassignment.js'

export interface ElectionConfig {
  autoLeaderRebalance: boolean
  imbalanceCheckIntervalMs: number
  /** leader.imbalance.per.broker.percentage */
  imbalancePercentage: number
  /** The topic's unclean.leader.election.enable. */
  uncleanElection(topic: TopicRecord): boolean
}

/** The new state of a partition whose leader or ISR must change for the live brokers, or undefined. */
export function failoverState(
  state: PartitionState,
  live: ReadonlySet<number>,
  unclean: boolean,
): Omit<PartitionState, 'partitionEpoch'> | undefined {
  const liveIsr = state.isr.filter((b) => live.has(b))
  const leaderAlive = state.leader >= 0 && live.has(state.leader)
  if (leaderAlive) {
    if (liveIsr.length === state.isr.length) return undefined
    return { ...state, isr: liveIsr }
  }
  const candidates = [...state.replicas, ...state.addingReplicas].filter((b) => liveIsr.includes(b))
  let leader = candidates[0] ?? -1
  let isr = liveIsr
  if (leader < 0 && unclean) {
    leader = state.replicas.find((b) => live.has(b)) ?? -1
    if (leader >= 0) isr = [leader]
  }
  if (leader < 0) {
    // Nobody can lead: keep the ISR as it was, so its last member can take over when it returns.
    if (state.leader === -1) return undefined
    return { ...state, leader: -1, leaderEpoch: state.leaderEpoch + 1 }
  }
  return { ...state, leader, isr, leaderEpoch: state.leaderEpoch + 1 }
}

/** The preferred replica as leader, when it is alive and in sync and does not lead; else undefined. */
export function preferredLeaderState(state: PartitionState, live: ReadonlySet<number>): Omit<PartitionState, 'partitionEpoch'> | undefined {
  const preferred = state.replicas[0]
  if (preferred === undefined || preferred === state.leader || !live.has(preferred) || !state.isr.includes(preferred)) return undefined
  return { ...state, leader: preferred, leaderEpoch: state.leaderEpoch + 1 }
}

export class LeaderElection {
  private active = false
  private sweeping: Promise<void> | undefined
  private again = false
  private rebalanceTimer: Timer | undefined
  private retryTimer: Timer | undefined

  constructor(
    private readonly store: MetadataStore,
    private readonly liveBrokers: () => ReadonlySet<number>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly config: ElectionConfig,
  ) {}

  /** This broker became (true) or stopped being (false) the controller. */
  setActive(active: boolean): void {
    if (active === this.active) return
    this.active = active
    this.rebalanceTimer?.cancel()
    this.retryTimer?.cancel()
    if (!active) return
    this.logger.info('controller: checking every partition leader')
    this.trigger()
    this.scheduleRebalance()
  }

  /** Live brokers or partition states changed: check again (coalesced). */
  trigger(): void {
    if (!this.active) return
    if (this.sweeping) {
      this.again = true
      return
    }
    this.sweeping = this.sweep().finally(() => {
      this.sweeping = undefined
      if (this.again) {
        this.again = false
        this.trigger()
      }
    })
  }

  private async sweep(): Promise<void> {
    const live = this.liveBrokers()
    const changes: PartitionChange[] = []
    const completions: PartitionChange[] = []
    for (const t of this.store.listTopics()) {
      const unclean = this.config.uncleanElection(t)
      for (let i = 0; i < t.partitions; i++) {
        const state = this.store.partitionState(t.name, i)
        if (!state) continue
        const next = failoverState(state, live, unclean)
        if (next) changes.push({ topic: t.name, partition: i, expected: state, next })
        else {
          // reassignment.ts: a move whose target replicas are all in sync now completes.
          const done = completeReassignment(state, live)
          if (done) completions.push({ topic: t.name, partition: i, expected: state, next: done })
        }
      }
    }
    if (changes.length === 0 && completions.length === 0) return
    const failed = (await this.applyAll(changes, 'failover')) + (await this.applyAll(completions, 'reassignment completed'))
    // A change that lost a race (e.g. with a leader's ISR change) is computed again from the new state.
    if (failed > 0 && this.active) {
      this.retryTimer?.cancel()
      this.retryTimer = this.clock.setTimeout(() => this.trigger(), 200)
    }
  }

  /** Writes the changes (a few at a time); returns how many failed. */
  async applyAll(changes: PartitionChange[], why: string): Promise<number> {
    let failed = 0
    const CONCURRENCY = 16
    for (let i = 0; i < changes.length; i += CONCURRENCY) {
      await Promise.all(
        changes.slice(i, i + CONCURRENCY).map(async (c) => {
          try {
            await this.store.alterPartition(c)
            this.logger.info(`controller: ${why}`, {
              partition: `${c.topic}-${c.partition}`,
              leader: c.next.leader,
              leaderEpoch: c.next.leaderEpoch,
              isr: c.next.isr,
            })
          } catch (err) {
            failed++
            this.logger.info(`controller: ${why} not applied`, { partition: `${c.topic}-${c.partition}`, err: (err as Error).message })
          }
        }),
      )
    }
    return failed
  }

  /**
   * ElectLeaders: the preferred replica (type 0) or, when no in-sync replica lives, any live replica
   * (type 1, unclean) for each partition. Resolves per partition with null (done) or a KafkaError:
   * ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE,
   * UNKNOWN_TOPIC_OR_PARTITION.
   */
  async elect(topic: string, partition: number, unclean: boolean): Promise<KafkaError | null> {
    const state = this.store.partitionState(topic, partition)
    if (!state) return new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
    const live = this.liveBrokers()
    let next: Omit<PartitionState, 'partitionEpoch'> | undefined
    if (unclean) {
      if (state.leader >= 0 && live.has(state.leader)) return new KafkaError('ELECTION_NOT_NEEDED', 'the partition has a live leader')
      next = failoverState(state, live, true)
      if (!next || next.leader < 0) return new KafkaError('ELIGIBLE_LEADERS_NOT_AVAILABLE', 'no live replica can lead')
    } else {
      if (state.leader === state.replicas[0]) return new KafkaError('ELECTION_NOT_NEEDED', 'the preferred replica already leads')
      next = preferredLeaderState(state, live)
      if (!next) return new KafkaError('PREFERRED_LEADER_NOT_AVAILABLE', `preferred replica ${state.replicas[0]} is not alive and in sync`)
    }
    try {
      await this.store.alterPartition({ topic, partition, expected: state, next })
      return null
    } catch (err) {
      return err instanceof KafkaError ? err : new KafkaError('UNKNOWN_SERVER_ERROR', (err as Error).message)
    }
  }

  private scheduleRebalance(): void {
    if (!this.config.autoLeaderRebalance || !this.active) return
    this.rebalanceTimer = this.clock.setTimeout(() => {
      void this.rebalance().finally(() => this.scheduleRebalance())
    }, this.config.imbalanceCheckIntervalMs)
  }

  /** Kafka's checkAndTriggerAutoLeaderRebalance. */
  async rebalance(): Promise<void> {
    const live = this.liveBrokers()
    const byPreferred = new Map<number, { total: number; elsewhere: number; moves: PartitionChange[] }>()
    for (const t of this.store.listTopics()) {
      for (let i = 0; i < t.partitions; i++) {
        const state = this.store.partitionState(t.name, i)
        const preferred = state?.replicas[0]
        if (!state || preferred === undefined) continue
        let entry = byPreferred.get(preferred)
        if (!entry) byPreferred.set(preferred, (entry = { total: 0, elsewhere: 0, moves: [] }))
        entry.total++
        if (state.leader !== preferred) entry.elsewhere++
        const next = preferredLeaderState(state, live)
        if (next) entry.moves.push({ topic: t.name, partition: i, expected: state, next })
      }
    }
    const changes: PartitionChange[] = []
    // The imbalance counts every partition led elsewhere; only those that can move do.
    for (const { total, elsewhere, moves } of byPreferred.values()) {
      if (moves.length > 0 && (elsewhere * 100) / total > this.config.imbalancePercentage) changes.push(...moves)
    }
    if (changes.length > 0) await this.applyAll(changes, 'preferred leader restored')
  }
}
