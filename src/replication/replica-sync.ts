// Makes this broker's replicas match the partition states in the metadata store (Kafka's
// ReplicaManager.applyDelta) — on every broker, a single one included (a cluster of one: its
// partitions' only replica, which leads). For each partition:
// - this broker is not among its replicas (or the topic is gone): stop fetching, remove the log;
// - it is the leader: stop fetching, become leader at the stored leader epoch (the epoch's start
//   is recorded in the leader-epoch checkpoint before any write of the epoch);
// - another broker leads: become follower, fetch from that leader (truncating first).
// Partitions are applied one change at a time each, always from the newest state in the store, so
// a burst of changes collapses into the last one.
//
// ISR changes are the leader's (docs/architecture.md §1.6): a follower that caught up is added at once (on its
// fetch), followers that have not caught up for replica.lag.time.max.ms are removed by a periodic
// check. Each change is written with MetadataStore.alterPartition, conditioned on the state the
// leader holds: if a controller elected another leader meanwhile, the write fails and the new
// state reaches this broker through the watch instead — a deposed leader can never shrink the ISR
// to itself and go on acknowledging writes alone.
import type { MetadataStore, TopicRecord } from '../ports/metadata-store.js'
import type { LogConfig } from '../storage/log-config.js'
import type { Clock, Timer } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { Partition } from './partition.js'
import { partitionKey } from './partition.js'
import type { FetcherManager } from './replica-fetcher.js'
import type { ReplicaManager } from './replica-manager.js'

export interface ReplicaSyncDeps {
  nodeId: number
  store: MetadataStore
  replicas: ReplicaManager
  fetchers: FetcherManager
  clock: Clock
  logger: Logger
  logConfigOf(topic: TopicRecord): LogConfig
  /** replica.lag.time.max.ms */
  replicaLagTimeMaxMs: number
}

/** Told when this broker starts or stops leading a partition (coordinators load and unload). */
export type LeadershipListener = (topic: string, partition: number, leading: boolean, leaderEpoch: number) => void

export class ReplicaSync {
  private readonly queues = new Map<string, Promise<void>>()
  private readonly listeners: LeadershipListener[] = []
  private shrinkTimer: Timer | undefined
  private closed = false

  constructor(private readonly deps: ReplicaSyncDeps) {
    deps.replicas.onFollowerProgress = (p, replicaId) => this.maybeExpandIsr(p, replicaId)
  }

  onLeadershipChange(listener: LeadershipListener): void {
    this.listeners.push(listener)
  }

  /** Applies every partition of the store, removes logs of partitions this broker no longer hosts. */
  async start(): Promise<void> {
    await this.reconcileAll()
    this.scheduleShrinkCheck()
  }

  async reconcileAll(): Promise<void> {
    const { store, replicas } = this.deps
    const work: Promise<void>[] = []
    for (const t of store.listTopics()) for (let i = 0; i < t.partitions; i++) work.push(this.schedule(t.name, i))
    for (const p of [...replicas.all()]) {
      const t = store.getTopic(p.topic)
      if (!t || t.topicId !== p.topicId || p.index >= t.partitions) work.push(this.schedule(p.topic, p.index))
    }
    await Promise.all(work)
  }

  /** A topic changed in the store: apply each of its partitions (and any local one beyond its count). */
  topicChanged(name: string): void {
    const t = this.deps.store.getTopic(name)
    const count = t?.partitions ?? 0
    for (let i = 0; i < count; i++) void this.schedule(name, i)
    for (const p of [...this.deps.replicas.all()])
      if (p.topic === name && (p.index >= count || p.topicId !== t?.topicId)) void this.schedule(name, p.index)
  }

  /**
   * Resolves once every change of the topic's partitions queued so far has been applied (the
   * controller answers a creation only then, so the topic is led here when the client next asks).
   */
  async settled(topic: string): Promise<void> {
    const prefix = partitionKey(topic, 0).slice(0, -1)
    const pending = [...this.queues].filter(([k]) => k.startsWith(prefix) && /^\d+$/.test(k.slice(prefix.length)))
    await Promise.all(pending.map(([, p]) => p))
  }

  /** Runs apply(topic, partition) after any apply of the same partition already queued. */
  schedule(topic: string, partition: number): Promise<void> {
    const key = partitionKey(topic, partition)
    const prev = this.queues.get(key) ?? Promise.resolve()
    const run = prev.then(() => this.apply(topic, partition))
    const tail = run.catch((err) => this.deps.logger.error('applying a partition state failed', { partition: key, err }))
    this.queues.set(key, tail)
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key)
    })
    return tail
  }

  private async apply(topic: string, index: number): Promise<void> {
    if (this.closed) return
    const { store, replicas, fetchers, nodeId, clock, logger } = this.deps
    const t = store.getTopic(topic)
    const state = store.partitionState(topic, index)
    let local = replicas.get(topic, index)
    if (local && (!t || local.topicId !== t.topicId)) {
      await this.remove(local, 'its topic was deleted')
      local = undefined
    }
    if (!t || !state) return
    const hosted = state.replicas.includes(nodeId) || state.addingReplicas.includes(nodeId)
    if (!hosted) {
      if (local) await this.remove(local, 'this broker is no longer one of its replicas')
      return
    }
    // A new replica is created with the topic's settings; one that exists takes them too (it was
    // reopened at start-up with the broker defaults, or the topic's config changed since).
    if (!local) local = await replicas.createPartition(topic, index, t.topicId, this.deps.logConfigOf(t))
    else local.log.updateConfig(this.deps.logConfigOf(t))
    const wasLeader = local.isLeader && local.state !== undefined
    if (state.leader === nodeId) {
      fetchers.unfollow(local)
      const { newEpoch } = local.becomeLeader(state, clock.monotonic())
      if (newEpoch) {
        await local.log.assignLeaderEpoch(state.leaderEpoch)
        logger.info('leading partition', {
          partition: local.key,
          leaderEpoch: state.leaderEpoch,
          isr: state.isr,
          logEndOffset: local.log.logEndOffset,
        })
        this.tell(topic, index, true, state.leaderEpoch)
      }
      replicas.waiters.notify(local.key)
    } else {
      local.becomeFollower(state)
      if (state.leader >= 0) fetchers.follow(local, state.leader, state.leaderEpoch)
      else fetchers.unfollow(local)
      replicas.waiters.notify(local.key)
      if (wasLeader) {
        logger.info('no longer leading partition', { partition: local.key, leader: state.leader, leaderEpoch: state.leaderEpoch })
        this.tell(topic, index, false, state.leaderEpoch)
      }
    }
  }

  private async remove(p: Partition, reason: string): Promise<void> {
    const wasLeader = p.isLeader && p.state !== undefined
    this.deps.fetchers.unfollow(p)
    this.deps.logger.info('removing replica', { partition: p.key, reason })
    await this.deps.replicas.deletePartition(p.topic, p.index)
    if (wasLeader) this.tell(p.topic, p.index, false, p.leaderEpoch)
  }

  private tell(topic: string, partition: number, leading: boolean, leaderEpoch: number): void {
    for (const l of this.listeners) {
      try {
        l(topic, partition, leading, leaderEpoch)
      } catch (err) {
        this.deps.logger.error('a leadership listener failed', { err })
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // ISR changes (leader only)

  private maybeExpandIsr(p: Partition, replicaId: number): void {
    const next = p.isrToExpand(replicaId)
    if (next) this.alterIsr(p, next, 'caught up')
  }

  private scheduleShrinkCheck(): void {
    if (this.closed) return
    const every = Math.max(100, Math.floor(this.deps.replicaLagTimeMaxMs / 2))
    this.shrinkTimer = this.deps.clock.setTimeout(() => {
      this.checkShrink()
      this.scheduleShrinkCheck()
    }, every)
  }

  /** Kafka's maybeShrinkIsr: removes ISR followers that have not caught up within replica.lag.time.max.ms. */
  checkShrink(): void {
    const now = this.deps.clock.monotonic()
    for (const p of this.deps.replicas.all()) {
      if (!p.isLeader || !p.state) continue
      const next = p.isrToShrink(now, this.deps.replicaLagTimeMaxMs)
      if (next) this.alterIsr(p, next, 'lagging followers')
    }
  }

  private alterIsr(p: Partition, isr: readonly number[], reason: string): void {
    if (this.closed) return
    const begun = p.beginIsrChange()
    if (!begun) return
    const { expected: state, change } = begun
    const { store, logger } = this.deps
    logger.info('changing ISR', { partition: p.key, from: state.isr, to: isr, reason })
    store
      .alterPartition({ topic: p.topic, partition: p.index, expected: state, next: { ...state, isr: [...isr] } })
      .then(() => this.deps.replicas.metrics?.isrChanged(isr.length < state.isr.length))
      .catch((err) => {
        logger.info('ISR change not applied; the partition state moved on', { partition: p.key, err: (err as Error).message })
      })
      .finally(() => {
        p.endIsrChange(change)
        void this.schedule(p.topic, p.index)
      })
  }

  async close(): Promise<void> {
    this.closed = true
    this.shrinkTimer?.cancel()
    await Promise.all([...this.queues.values()])
  }
}
