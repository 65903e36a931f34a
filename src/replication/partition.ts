// One hosted partition replica and its replication state (docs/architecture.md §1.6, Kafka's Partition class).
//
// A replica is the partition's leader or one of its followers, as the partition state in the
// metadata store says (leader id, leader epoch, ISR, partition epoch). The leader:
// - tracks each follower's log end offset from the offsets its replica fetches ask for, and when
//   it last caught up: a follower is caught up when it fetches at the leader's log end offset, or
//   at or past where the log ended at its previous fetch (Kafka's lastCaughtUpTimeMs rule);
// - advances the high watermark to the smallest log end offset over the ISR (itself included),
//   never backwards; a follower whose log end offset is not known yet (right after an election)
//   holds it where it is;
// - asks for the ISR to grow when a follower outside it reaches the high watermark and the start
//   of the current leader epoch, and to shrink when an ISR follower has not caught up for
//   replica.lag.time.max.ms. The change is written to the metadata store conditioned on the
//   partition epoch (replica-sync.ts); until it comes back, the ISR in force is the stored one;
// - completes acks=all appends once the high watermark passes them.
// A follower's high watermark is the leader's, bounded by its own log end offset: the fetcher tells
// the partition (updateFollowerHighWatermark). The log holds the value; only this class moves it up.
//
// Losing leadership fails every acks=all append still waiting with NOT_LEADER_OR_FOLLOWER: the new
// leader may not have those records, so they were not committed.
import { KafkaError } from '../protocol/errors.js'
import type { PartitionState } from '../ports/metadata-store.js'
import type { PartitionLog } from '../storage/partition-log.js'
import type { Clock, Timer } from '../util/clock.js'

import { partitionKey } from '../ports/replicas.js'

export { partitionKey }

export interface ReplicaProgress {
  /** The follower's log end offset as of its last fetch; -1 while unknown. */
  logEndOffset: number
  /** Monotonic ms of the last time the follower was caught up with the leader. */
  lastCaughtUpMs: number
  /** Monotonic ms of its last fetch, and the leader's log end offset at that time. */
  lastFetchMs: number
  lastFetchLeaderLeo: number
}

interface HwWaiter {
  offset: number
  resolve: () => void
  reject: (err: KafkaError) => void
  timer: Timer
}

export type Role = 'leader' | 'follower'

export class Partition {
  // The replication state is written only by this class: the partition state it applies
  // (becomeLeader / becomeFollower) and the ISR change it is told about (begin/endIsrChange).
  private epoch = 0
  private pEpoch = 0
  private leader = -1
  private replicaIds: readonly number[]
  private isrIds: readonly number[]
  private applied: PartitionState | undefined
  private epochStart = 0
  /** The ISR change in flight: its number, 0 for none. */
  private isrChange = 0
  private isrChanges = 0
  private readonly progress = new Map<number, ReplicaProgress>()
  private hwWaiters: HwWaiter[] = []

  /** A replica that leads nothing until its first partition state is applied. */
  constructor(
    readonly topic: string,
    readonly index: number,
    readonly topicId: string,
    readonly log: PartitionLog,
    /** This broker's id. */
    readonly localId: number,
  ) {
    this.replicaIds = [localId]
    this.isrIds = [localId]
  }

  get leaderEpoch(): number {
    return this.epoch
  }

  get partitionEpoch(): number {
    return this.pEpoch
  }

  /** The leader's broker id (-1: none known). */
  get leaderId(): number {
    return this.leader
  }

  get replicas(): readonly number[] {
    return this.replicaIds
  }

  get isr(): readonly number[] {
    return this.isrIds
  }

  /** The state this replica last applied (undefined until the first one is, right after creation or start-up). */
  get state(): PartitionState | undefined {
    return this.applied
  }

  /** The log end offset when this replica became leader in the current epoch. */
  get epochStartOffset(): number {
    return this.epochStart
  }

  /** An ISR change written to the store and not seen back yet (one at a time, as Kafka). */
  get isrChangeInFlight(): boolean {
    return this.isrChange !== 0
  }

  /**
   * Starts an ISR change of this leader (Kafka's pendingState): returns the state to condition it
   * on and a number to end it with, or undefined when one is in flight already or no state is
   * applied. Applying the next state ends it too.
   */
  beginIsrChange(): { expected: PartitionState; change: number } | undefined {
    if (!this.applied || this.isrChange !== 0 || !this.isLeader) return undefined
    this.isrChange = ++this.isrChanges
    return { expected: this.applied, change: this.isrChange }
  }

  /** The store answered change (applied or refused); a later change in flight is left alone. */
  endIsrChange(change: number): void {
    if (this.isrChange === change) this.isrChange = 0
  }

  get key(): string {
    return partitionKey(this.topic, this.index)
  }

  get isLeader(): boolean {
    return this.leaderId === this.localId
  }

  /** FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH when the client's view of the leader is stale or ahead. */
  checkLeaderEpoch(currentLeaderEpoch: number): void {
    if (currentLeaderEpoch < 0 || currentLeaderEpoch === this.leaderEpoch) return
    throw new KafkaError(currentLeaderEpoch < this.leaderEpoch ? 'FENCED_LEADER_EPOCH' : 'UNKNOWN_LEADER_EPOCH')
  }

  /**
   * Applies a state that names this broker leader. A new leader epoch starts at the log end offset
   * and every follower's position is unknown until it fetches (its catch-up clock starts now, so a
   * follower in the ISR gets a full replica.lag.time.max.ms to show up).
   */
  becomeLeader(state: PartitionState, nowMs: number): { newEpoch: boolean } {
    const newEpoch = !this.isLeader || state.leaderEpoch !== this.leaderEpoch || this.state === undefined
    this.applyState(state)
    if (newEpoch) {
      this.epochStart = this.log.logEndOffset
      this.progress.clear()
      for (const id of this.allReplicas()) {
        if (id !== this.localId) this.progress.set(id, { logEndOffset: -1, lastCaughtUpMs: nowMs, lastFetchMs: 0, lastFetchLeaderLeo: -1 })
      }
    } else {
      // Same epoch, new ISR or replicas (e.g. our own ISR change came back): keep what we know.
      for (const id of this.allReplicas()) {
        if (id !== this.localId && !this.progress.has(id)) {
          this.progress.set(id, { logEndOffset: -1, lastCaughtUpMs: nowMs, lastFetchMs: 0, lastFetchLeaderLeo: -1 })
        }
      }
      for (const id of [...this.progress.keys()]) if (!this.allReplicas().includes(id)) this.progress.delete(id)
    }
    this.maybeAdvanceHighWatermark()
    return { newEpoch }
  }

  /** Applies a state that names another broker leader (or none): pending acks=all appends fail. */
  becomeFollower(state: PartitionState): void {
    const wasLeader = this.isLeader
    this.applyState(state)
    this.progress.clear()
    if (wasLeader) this.failWaiters(new KafkaError('NOT_LEADER_OR_FOLLOWER', `${this.key}: leadership moved to broker ${state.leader}`))
  }

  private applyState(state: PartitionState): void {
    this.applied = state
    this.leader = state.leader
    this.epoch = state.leaderEpoch
    this.pEpoch = state.partitionEpoch
    this.replicaIds = state.replicas
    this.isrIds = state.isr
    this.isrChange = 0
  }

  /** Replicas plus those being added by a reassignment. */
  private allReplicas(): readonly number[] {
    const adding = this.state?.addingReplicas ?? []
    return adding.length === 0 ? this.replicas : [...new Set([...this.replicas, ...adding])]
  }

  followerProgress(replicaId: number): ReplicaProgress | undefined {
    return this.progress.get(replicaId)
  }

  /**
   * A follower fetched at fetchOffset (leader only): records its position and catch-up time.
   * NOT_LEADER_OR_FOLLOWER when this replica does not lead or the fetcher is not a replica.
   */
  recordFollowerFetch(replicaId: number, fetchOffset: number, nowMs: number): void {
    if (!this.isLeader) throw new KafkaError('NOT_LEADER_OR_FOLLOWER', `${this.key} is not led by broker ${this.localId}`)
    const prog = this.progress.get(replicaId)
    if (!prog) throw new KafkaError('NOT_LEADER_OR_FOLLOWER', `broker ${replicaId} is not a replica of ${this.key}`)
    const leo = this.log.logEndOffset
    if (fetchOffset >= leo) prog.lastCaughtUpMs = nowMs
    else if (fetchOffset >= prog.lastFetchLeaderLeo && prog.lastFetchLeaderLeo >= 0) {
      prog.lastCaughtUpMs = Math.max(prog.lastCaughtUpMs, prog.lastFetchMs)
    }
    prog.logEndOffset = fetchOffset
    prog.lastFetchMs = nowMs
    prog.lastFetchLeaderLeo = leo
  }

  /** The ISR this leader would like (undefined: no change): a caught-up follower joins. */
  isrToExpand(replicaId: number): readonly number[] | undefined {
    if (!this.isLeader || this.isr.includes(replicaId)) return undefined
    const prog = this.progress.get(replicaId)
    if (!prog || prog.logEndOffset < 0) return undefined
    if (prog.logEndOffset < this.log.highWatermark || prog.logEndOffset < this.epochStartOffset) return undefined
    // Replicas being removed by a reassignment do not rejoin.
    if (this.state?.removingReplicas.includes(replicaId)) return undefined
    return [...this.isr, replicaId]
  }

  /** The ISR without followers that have not caught up within lagMs (undefined: no change). */
  isrToShrink(nowMs: number, lagMs: number): readonly number[] | undefined {
    if (!this.isLeader) return undefined
    const out = this.isr.filter((id) => {
      if (id === this.localId) return false
      const prog = this.progress.get(id)
      return !prog || nowMs - prog.lastCaughtUpMs > lagMs
    })
    return out.length === 0 ? undefined : this.isr.filter((id) => !out.includes(id))
  }

  /**
   * HW = min log end offset over the ISR (unknown positions hold it), never moving back. Wakes the
   * acks=all appends it passes; returns true when it moved.
   */
  maybeAdvanceHighWatermark(): boolean {
    if (!this.isLeader) return false
    let hw = this.log.logEndOffset
    for (const id of this.isr) {
      if (id === this.localId) continue
      const prog = this.progress.get(id)
      const leo = prog ? prog.logEndOffset : -1
      if (leo < 0) return false
      if (leo < hw) hw = leo
    }
    if (!this.log.maybeIncrementHighWatermark(hw)) return false
    this.releaseWaiters()
    return true
  }

  /**
   * A follower learned its leader's high watermark (the fetcher tells it): its own moves up to it,
   * bounded by its log end offset, never down (Kafka's maybeUpdateHighWatermark on the follower).
   * A leader keeps its own rule: a stale answer of the previous leader is ignored.
   */
  updateFollowerHighWatermark(leaderHighWatermark: number): boolean {
    if (this.isLeader) return false
    return this.log.maybeIncrementHighWatermark(leaderHighWatermark)
  }

  /**
   * Resolves once the high watermark reaches `offset` (acks=all); REQUEST_TIMED_OUT after
   * timeoutMs, NOT_LEADER_OR_FOLLOWER if leadership moves first.
   */
  waitForHighWatermark(offset: number, timeoutMs: number, clock: Clock): Promise<void> {
    if (this.log.highWatermark >= offset) return Promise.resolve()
    if (!this.isLeader) return Promise.reject(new KafkaError('NOT_LEADER_OR_FOLLOWER'))
    return new Promise((resolve, reject) => {
      const w: HwWaiter = {
        offset,
        resolve,
        reject,
        timer: clock.setTimeout(
          () => {
            this.hwWaiters = this.hwWaiters.filter((x) => x !== w)
            reject(
              new KafkaError(
                'REQUEST_TIMED_OUT',
                `${this.key}: the in-sync replicas did not reach offset ${offset} within ${timeoutMs} ms`,
              ),
            )
          },
          Math.max(0, timeoutMs),
        ),
      }
      this.hwWaiters.push(w)
    })
  }

  private releaseWaiters(): void {
    if (this.hwWaiters.length === 0) return
    const hw = this.log.highWatermark
    const ready = this.hwWaiters.filter((w) => w.offset <= hw)
    if (ready.length === 0) return
    this.hwWaiters = this.hwWaiters.filter((w) => w.offset > hw)
    for (const w of ready) {
      w.timer.cancel()
      w.resolve()
    }
  }

  /** Fails every waiting acks=all append (leadership lost, partition removed). */
  failWaiters(err: KafkaError): void {
    const all = this.hwWaiters
    this.hwWaiters = []
    for (const w of all) {
      w.timer.cancel()
      w.reject(err)
    }
  }
}
