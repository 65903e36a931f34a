// One share-partition (KIP-932) at its partition leader: the in-flight records of one share group
// on one topic-partition, as Kafka's SharePartition keeps them.
//
// State: the start offset (every record below it is delivered or given up) and, for each offset in
// [startOffset, endOffset), its delivery state — AVAILABLE, ACQUIRED (by one member, under a
// time lock), ACKNOWLEDGED or ARCHIVED — and its delivery count. Offsets at or past endOffset have
// never been acquired (AVAILABLE, count 0). The window endOffset − startOffset never exceeds
// maxInFlightRecords (Kafka's group.share.partition.max.record.locks, 2000): past it nothing more is
// acquired until the start offset moves, so no client can make this state grow without bound.
//
// Transitions (Kafka 4.4):
//   acquire               AVAILABLE → ACQUIRED, delivery count + 1, lock = share.record.lock.duration.ms
//   ACCEPT                ACQUIRED → ACKNOWLEDGED
//   RELEASE               ACQUIRED → AVAILABLE, or ARCHIVED once the count reached share.delivery.count.limit
//   REJECT, GAP           ACQUIRED → ARCHIVED
//   RENEW (KIP-1222)      ACQUIRED → ACQUIRED, lock restarted
//   lock expiry           as RELEASE
//   member gone           as RELEASE (Kafka 4.1+: on disconnect and on a session's final epoch)
// The start offset then advances over the prefix of ACKNOWLEDGED/ARCHIVED offsets.
// Tributary's opt-in queue settings: a RELEASEd record is acquirable again only after
// tributary.share.release.backoff.ms; a record only once its batch's timestamp plus
// tributary.share.delivery.delay.ms has passed. Dead letters (KIP-1191): a record archived by
// REJECT or by the delivery limit goes to the DeadLetterSink before its archive is persisted.
//
// Durability: every transition out of ACQUIRED (acquisition itself is not stored, as in Kafka) is
// written through ShareStatePersister.write before it takes effect; while the write is under way
// the offsets are pending (no other acknowledgement or expiry touches them); a failed write leaves
// them ACQUIRED and answers the acknowledgement with the write's error. Writes of one
// share-partition are made one after the other, so each carries the start offset it implies.
import { ErrorCode, toErrorCode } from '../protocol/errors.js'
import {
  AcknowledgeType,
  type DeadLetter,
  type DeadLetterSink,
  DeliveryState,
  type ShareGroupSettings,
  type SharePartitionKey,
  type ShareStateBatch,
  type ShareStatePersister,
} from '../ports/shares.js'
import type { Clock, Timer } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import { type AcquiredRange, addAcquired, type BatchInfo } from './acquire.js'

/** Kafka's group.share.partition.max.record.locks default (4.1+). */
export const DEFAULT_MAX_IN_FLIGHT_RECORDS = 2000
/** How soon a lock-expiry archive is retried when its dead letter could not be stored. */
const DEAD_LETTER_RETRY_MS = 1000

interface InFlight {
  state: number
  deliveryCount: number
  memberId: string | null
  /** Monotonic ms; ACQUIRED only. */
  lockExpiresAt: number
  /** Monotonic ms before which an AVAILABLE record is not handed out (release backoff). */
  availableAt: number
  /** A transition of this offset is being persisted. */
  pending: boolean
}

/** One acknowledgement batch of ShareFetch/ShareAcknowledge. */
export interface AckBatch {
  firstOffset: number
  lastOffset: number
  /** One type for the whole range, or one per offset. */
  acknowledgeTypes: number[]
}

interface Change {
  offset: number
  state: number
  reason: DeadLetter['reason'] | null
  backoff: boolean
}

export interface SharePartitionOptions {
  key: SharePartitionKey
  /** The topic's name (dead letters name their source by it). */
  topic: string
  clock: Clock
  logger: Logger
  persister: ShareStatePersister
  settings: () => ShareGroupSettings
  deadLetters: DeadLetterSink | null
  /** The record at offset, for a dead letter that copies it (null when it is gone from the log). */
  readRecord: (offset: number) => Promise<DeadLetter['record']>
  maxInFlightRecords?: number
  leaderEpoch: number
  stateEpoch: number
  startOffset: number
  stateBatches: readonly ShareStateBatch[]
  /** Called when records may have become acquirable (released, expired, backoff or delay over). */
  onAvailable: () => void
  /** Called when the start offset moved (the delivery of every record below it is complete). */
  onStartAdvanced?: (startOffset: number) => void
}

export interface AcquireResult {
  ranges: AcquiredRange[]
  /** Byte range of the read's buffer holding the batches with acquired records (empty: start = end). */
  firstPosition: number
  endPosition: number
}

export class SharePartition {
  readonly key: SharePartitionKey
  readonly leaderEpoch: number
  private readonly o: SharePartitionOptions
  private readonly maxInFlight: number
  private readonly inFlight = new Map<number, InFlight>()
  private start: number
  private end: number
  private stateEpoch: number
  private chain: Promise<unknown> = Promise.resolve()
  private timer: Timer | undefined
  private timerAt = Number.POSITIVE_INFINITY
  /** Monotonic ms at which a delayed batch becomes deliverable (Infinity: none waiting). */
  private delayWakeAt = Number.POSITIVE_INFINITY
  private closed = false
  /** Set once constructed: the state read at load is no news to onStartAdvanced. */
  private ready = false

  constructor(o: SharePartitionOptions) {
    this.o = o
    this.key = o.key
    this.leaderEpoch = o.leaderEpoch
    this.maxInFlight = o.maxInFlightRecords ?? DEFAULT_MAX_IN_FLIGHT_RECORDS
    this.stateEpoch = o.stateEpoch
    this.start = o.startOffset
    this.end = o.startOffset
    // A persisted state: the records past the start offset whose delivery was attempted or is
    // complete; offsets between them were never acquired. ACQUIRED is never stored, but a lock
    // does not survive a change of leader anyway: such a record is AVAILABLE again.
    const stored = [...o.stateBatches].filter((b) => b.lastOffset >= this.start).sort((a, b) => a.firstOffset - b.firstOffset)
    const limit = this.start + this.maxInFlight
    for (const b of stored) {
      for (let off = Math.max(b.firstOffset, this.start); off <= b.lastOffset && off < limit; off++) {
        while (this.end < off) this.inFlight.set(this.end++, fresh(DeliveryState.AVAILABLE, 0))
        const state = b.deliveryState === DeliveryState.ACQUIRED ? DeliveryState.AVAILABLE : b.deliveryState
        this.inFlight.set(off, fresh(state, b.deliveryCount))
        this.end = off + 1
      }
    }
    this.advanceStart()
    this.ready = true
  }

  get startOffset(): number {
    return this.start
  }

  get endOffset(): number {
    return this.end
  }

  /** The state of an offset in flight (undefined outside [startOffset, endOffset)). */
  stateOf(offset: number): { state: number; deliveryCount: number; memberId: string | null } | undefined {
    const e = this.inFlight.get(offset)
    return e ? { state: e.state, deliveryCount: e.deliveryCount, memberId: e.memberId } : undefined
  }

  /** Records ACQUIRED (by anyone) now. */
  get acquiredCount(): number {
    let n = 0
    for (const e of this.inFlight.values()) if (e.state === DeliveryState.ACQUIRED) n++
    return n
  }

  /**
   * Where the next log read starts: the first AVAILABLE offset in flight that may be handed out
   * now, else the end offset; -1 when the window is full and nothing in it is available.
   */
  nextFetchOffset(): number {
    const now = this.o.clock.monotonic()
    for (let off = this.start; off < this.end; off++) {
      const e = this.inFlight.get(off)!
      if (e.state === DeliveryState.AVAILABLE && !e.pending && e.availableAt <= now) return off
    }
    return this.end < this.start + this.maxInFlight ? this.end : -1
  }

  /**
   * Acquires for memberId up to maxRecords records of the batches a read returned (whole batches,
   * in log order, below the high watermark or LSO): AVAILABLE records in flight, then records past
   * the end offset, within the window. Records of aborted transactions are archived instead.
   * wholeBatches (KIP-1206 batch-optimized mode, Kafka's default): maxRecords is reached at a batch
   * boundary — the batch in which it is reached is acquired to its end; else it is exact.
   */
  acquire(memberId: string, batches: readonly BatchInfo[], maxRecords: number, wholeBatches = false): AcquireResult {
    const ranges: AcquiredRange[] = []
    let firstPosition = -1
    let endPosition = -1
    if (this.closed) return { ranges, firstPosition: 0, endPosition: 0 }
    const settings = this.o.settings()
    const now = this.o.clock.monotonic()
    const lockUntil = now + settings.recordLockDurationMs
    let acquired = 0
    outer: for (const b of batches) {
      let inBatch = 0
      for (let off = Math.max(b.baseOffset, this.start); off <= b.lastOffset; off++) {
        if (acquired >= maxRecords && !(wholeBatches && inBatch > 0)) break outer
        let e = this.inFlight.get(off)
        if (!e) {
          if (off < this.end) continue
          if (off >= this.start + this.maxInFlight) break outer
          if (!b.aborted && settings.deliveryDelayMs > 0) {
            const waitMs = b.timestamp + settings.deliveryDelayMs - this.o.clock.now()
            if (waitMs > 0) {
              this.delayWakeAt = Math.min(this.delayWakeAt, now + waitMs)
              break outer
            }
          }
          // Offsets a batch boundary skipped (a compacted log) hold no record: nothing to deliver.
          while (this.end < off) this.inFlight.set(this.end++, fresh(DeliveryState.ARCHIVED, 0))
          e = fresh(DeliveryState.AVAILABLE, 0)
          this.inFlight.set(off, e)
          this.end = off + 1
        }
        if (e.state !== DeliveryState.AVAILABLE || e.pending || e.availableAt > now) continue
        if (b.aborted) {
          e.state = DeliveryState.ARCHIVED
          continue
        }
        e.state = DeliveryState.ACQUIRED
        e.deliveryCount++
        e.memberId = memberId
        e.lockExpiresAt = lockUntil
        addAcquired(ranges, off, e.deliveryCount)
        acquired++
        inBatch++
        // The batch is answered whole, even when only some of its records were acquired.
        if (firstPosition < 0) firstPosition = b.position
        endPosition = b.position + b.sizeBytes
      }
    }
    this.advanceStart()
    this.arm()
    return firstPosition < 0 ? { ranges, firstPosition: 0, endPosition: 0 } : { ranges, firstPosition, endPosition }
  }

  /**
   * Applies one member's acknowledgements; resolves with 0 once they are durable, or with the
   * error code of the whole set: INVALID_REQUEST for a malformed batch or a type this request may
   * not carry, INVALID_RECORD_STATE when an offset is not ACQUIRED by this member, else the
   * persister's or the dead-letter topic's error (the records stay ACQUIRED then).
   */
  acknowledge(memberId: string, batches: readonly AckBatch[], allowRenew: boolean): Promise<number> {
    // The batches as Kafka 4.4 validates them before any state is looked at: a range, in order (a
    // batch starting below the previous one's last offset is refused; one starting at it is not,
    // and its offset seen twice is INVALID_RECORD_STATE), one type or one per offset, known types,
    // RENEW only in a request marked isRenewAck.
    let prevLast = Number.NEGATIVE_INFINITY
    for (const b of batches) {
      const types = b.acknowledgeTypes
      if (b.lastOffset < b.firstOffset || b.firstOffset < prevLast || types.length === 0) return Promise.resolve(code('INVALID_REQUEST'))
      prevLast = b.lastOffset
      if (types.length !== 1 && types.length !== b.lastOffset - b.firstOffset + 1) return Promise.resolve(code('INVALID_REQUEST'))
      for (const t of types) {
        if (t < AcknowledgeType.GAP || t > AcknowledgeType.RENEW || (t === AcknowledgeType.RENEW && !allowRenew)) {
          return Promise.resolve(code('INVALID_REQUEST'))
        }
      }
    }
    const changes: Change[] = []
    const renews: number[] = []
    const seen = new Set<number>()
    const limit = this.o.settings().deliveryCountLimit
    for (const b of batches) {
      const types = b.acknowledgeTypes
      // Checked before walking the range, so a huge range costs nothing.
      if (this.closed || b.firstOffset < this.start || b.lastOffset >= this.end) return Promise.resolve(code('INVALID_RECORD_STATE'))
      for (let off = b.firstOffset; off <= b.lastOffset; off++) {
        const e = this.inFlight.get(off)!
        if (e.state !== DeliveryState.ACQUIRED || e.memberId !== memberId || e.pending || seen.has(off)) {
          return Promise.resolve(code('INVALID_RECORD_STATE'))
        }
        seen.add(off)
        const t = types.length === 1 ? types[0]! : types[off - b.firstOffset]!
        if (t === AcknowledgeType.RENEW) renews.push(off)
        else changes.push(this.changeFor(off, e, t, limit))
      }
    }
    if (renews.length > 0) {
      const until = this.o.clock.monotonic() + this.o.settings().recordLockDurationMs
      for (const off of renews) this.inFlight.get(off)!.lockExpiresAt = until
      this.arm()
    }
    if (changes.length === 0) return Promise.resolve(0)
    return this.transition(changes, false)
  }

  /**
   * Takes back records acquire() handed to memberId for an answer that was never sent (a ShareFetch
   * throttled by its quota is answered without records): they become AVAILABLE with the delivery
   * count they had, as if never acquired — nothing was persisted when they were acquired, and the
   * member never saw them, so this delivery does not count toward the delivery limit. Offsets no
   * longer held by memberId at that delivery count (acknowledged, expired, moved) are left alone.
   */
  unacquire(memberId: string, ranges: readonly AcquiredRange[]): void {
    if (this.closed) return
    let any = false
    for (const r of ranges) {
      for (let off = Math.max(r.firstOffset, this.start); off <= r.lastOffset && off < this.end; off++) {
        const e = this.inFlight.get(off)
        if (!e || e.state !== DeliveryState.ACQUIRED || e.memberId !== memberId || e.pending || e.deliveryCount !== r.deliveryCount)
          continue
        e.state = DeliveryState.AVAILABLE
        e.deliveryCount--
        e.memberId = null
        e.lockExpiresAt = 0
        any = true
      }
    }
    if (!any) return
    this.arm()
    this.o.onAvailable()
  }

  /** Releases every record memberId holds (its session closed or its connection went away). */
  releaseMember(memberId: string): Promise<void> {
    const changes: Change[] = []
    const limit = this.o.settings().deliveryCountLimit
    for (const [off, e] of this.inFlight) {
      if (e.state === DeliveryState.ACQUIRED && e.memberId === memberId && !e.pending) {
        const c = this.changeFor(off, e, AcknowledgeType.RELEASE, limit)
        changes.push({ ...c, backoff: false })
      }
    }
    if (changes.length === 0) return Promise.resolve()
    return this.transition(changes, true).then(() => {})
  }

  /**
   * The log's start offset moved past records in flight (retention, DeleteRecords): they are gone,
   * so the share-partition starts at the log's start (Kafka: on OFFSET_OUT_OF_RANGE).
   */
  syncLogStart(logStartOffset: number): void {
    if (logStartOffset <= this.start || this.closed) return
    for (let off = this.start; off < Math.min(logStartOffset, this.end); off++) this.inFlight.delete(off)
    this.start = logStartOffset
    if (this.end < this.start) this.end = this.start
    this.advanceStart()
    this.enqueue(() => this.persist([]))
  }

  /** Drops the state (leadership lost): timers stop, pending writes no longer apply. */
  close(): void {
    this.closed = true
    this.timer?.cancel()
    this.timer = undefined
    this.timerAt = Number.POSITIVE_INFINITY
  }

  /** Waits for the transitions under way (tests, shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      const c = this.chain
      await c
      if (c === this.chain) return
    }
  }

  private changeFor(offset: number, e: InFlight, type: number, limit: number): Change {
    switch (type) {
      case AcknowledgeType.ACCEPT:
        return { offset, state: DeliveryState.ACKNOWLEDGED, reason: null, backoff: false }
      case AcknowledgeType.RELEASE:
        return e.deliveryCount >= limit
          ? { offset, state: DeliveryState.ARCHIVED, reason: 'delivery-limit', backoff: false }
          : { offset, state: DeliveryState.AVAILABLE, reason: null, backoff: true }
      case AcknowledgeType.REJECT:
        return { offset, state: DeliveryState.ARCHIVED, reason: 'rejected', backoff: false }
      default:
        return { offset, state: DeliveryState.ARCHIVED, reason: null, backoff: false }
    }
  }

  /**
   * Marks the offsets pending, then (after the transitions before it) stores their dead letters,
   * writes the new state and applies it. `expiry`: a failed write still applies (a lock that
   * expired must not hold the record), and offsets whose dead letter failed are retried later.
   */
  private transition(changes: Change[], expiry: boolean): Promise<number> {
    for (const c of changes) this.inFlight.get(c.offset)!.pending = true
    return this.enqueue(async () => {
      let todo = changes
      const dlqError = await this.sendDeadLetters(todo)
      if (dlqError !== 0) {
        if (!expiry) return this.abandon(todo, dlqError)
        const retryAt = this.o.clock.monotonic() + DEAD_LETTER_RETRY_MS
        const failed = todo.filter((c) => c.reason !== null && this.o.settings().deadLetterTopic !== null)
        for (const c of failed) {
          const e = this.inFlight.get(c.offset)
          if (e) {
            e.pending = false
            e.lockExpiresAt = retryAt
          }
        }
        todo = todo.filter((c) => !failed.includes(c))
        this.arm()
      }
      if (this.closed) return code('NOT_LEADER_OR_FOLLOWER')
      const writeError = await this.persist(todo)
      if (writeError !== 0 && !expiry) return this.abandon(todo, writeError)
      if (writeError !== 0) this.o.logger.warn('share state write failed after lock expiry', { key: this.key, errorCode: writeError })
      this.apply(todo)
      return 0
    }) as Promise<number>
  }

  private abandon(changes: Change[], errorCode: number): number {
    for (const c of changes) {
      const e = this.inFlight.get(c.offset)
      if (e) e.pending = false
    }
    this.arm()
    return errorCode
  }

  private apply(changes: Change[]): void {
    if (this.closed) return
    const now = this.o.clock.monotonic()
    const backoffMs = this.o.settings().releaseBackoffMs
    let available = false
    for (const c of changes) {
      const e = this.inFlight.get(c.offset)
      if (!e) continue
      e.pending = false
      e.state = c.state
      e.memberId = null
      e.lockExpiresAt = 0
      e.availableAt = c.backoff && backoffMs > 0 ? now + backoffMs : 0
      if (c.state === DeliveryState.AVAILABLE && e.availableAt === 0) available = true
    }
    this.advanceStart()
    this.arm()
    if (available) this.o.onAvailable()
  }

  private async sendDeadLetters(changes: readonly Change[]): Promise<number> {
    const settings = this.o.settings()
    const topic = settings.deadLetterTopic
    const sink = this.o.deadLetters
    if (topic === null || sink === null) return 0
    const letters: DeadLetter[] = []
    try {
      for (const c of changes) {
        if (c.reason === null) continue
        const e = this.inFlight.get(c.offset)
        letters.push({
          groupId: this.key.groupId,
          topic,
          source: { topic: this.o.topic, partition: this.key.partition, offset: c.offset },
          deliveryCount: e?.deliveryCount ?? 0,
          reason: c.reason,
          record: settings.deadLetterCopyRecord ? await this.o.readRecord(c.offset) : null,
        })
      }
      if (letters.length > 0) await sink.send(letters)
      return 0
    } catch (err) {
      this.o.logger.warn('dead letters not stored', { key: this.key, topic, err })
      return toErrorCode(err)
    }
  }

  /** Writes the changed offsets' states and the start offset they imply; resolves with the error code. */
  private async persist(changes: readonly Change[]): Promise<number> {
    const target = new Map<number, number>()
    for (const c of changes) target.set(c.offset, c.state)
    const done = (off: number) => {
      const s = target.get(off) ?? this.inFlight.get(off)?.state
      return s === DeliveryState.ACKNOWLEDGED || s === DeliveryState.ARCHIVED
    }
    let start = this.start
    while (start < this.end && done(start)) start++
    let complete = 0
    for (let off = start; off < this.end; off++) if (done(off)) complete++
    const batches: ShareStateBatch[] = []
    for (const c of [...changes].sort((a, b) => a.offset - b.offset)) {
      if (c.offset < start) continue
      const count = this.inFlight.get(c.offset)?.deliveryCount ?? 0
      const last = batches[batches.length - 1]
      if (last && last.lastOffset === c.offset - 1 && last.deliveryState === c.state && last.deliveryCount === count)
        last.lastOffset = c.offset
      else batches.push({ firstOffset: c.offset, lastOffset: c.offset, deliveryState: c.state, deliveryCount: count })
    }
    try {
      const res = await this.o.persister.write(this.key, {
        stateEpoch: this.stateEpoch,
        leaderEpoch: this.leaderEpoch,
        startOffset: start,
        deliveryCompleteCount: complete,
        stateBatches: batches,
      })
      return res.errorCode
    } catch (err) {
      this.o.logger.warn('share state write failed', { key: this.key, err })
      return toErrorCode(err)
    }
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn)
    this.chain = run.catch(() => {})
    return run
  }

  private advanceStart(): void {
    const before = this.start
    while (this.start < this.end) {
      const e = this.inFlight.get(this.start)!
      if (e.state !== DeliveryState.ACKNOWLEDGED && e.state !== DeliveryState.ARCHIVED) break
      this.inFlight.delete(this.start++)
    }
    if (this.start === before || !this.ready || this.closed) return
    // The window moved: a fetch that found it full may acquire now.
    if (before + this.maxInFlight <= this.end) this.o.onAvailable()
    this.o.onStartAdvanced?.(this.start)
  }

  /** Sets the one timer to the next lock expiry, backoff end or delayed batch. */
  private arm(): void {
    if (this.closed) return
    const now = this.o.clock.monotonic()
    let at = this.delayWakeAt
    for (const e of this.inFlight.values()) {
      if (e.pending) continue
      if (e.state === DeliveryState.ACQUIRED && e.lockExpiresAt < at) at = e.lockExpiresAt
      else if (e.state === DeliveryState.AVAILABLE && e.availableAt > now && e.availableAt < at) at = e.availableAt
    }
    if (at === this.timerAt) return
    this.timer?.cancel()
    this.timer = undefined
    this.timerAt = at
    if (at === Number.POSITIVE_INFINITY) return
    this.timer = this.o.clock.setTimeout(() => this.onTimer(), Math.max(0, at - now))
  }

  private onTimer(): void {
    this.timer = undefined
    this.timerAt = Number.POSITIVE_INFINITY
    if (this.closed) return
    const now = this.o.clock.monotonic()
    let wake = false
    if (this.delayWakeAt <= now) {
      this.delayWakeAt = Number.POSITIVE_INFINITY
      wake = true
    }
    const expired: Change[] = []
    const limit = this.o.settings().deliveryCountLimit
    for (const [off, e] of this.inFlight) {
      if (e.pending) continue
      if (e.state === DeliveryState.ACQUIRED && e.lockExpiresAt <= now) {
        expired.push({ ...this.changeFor(off, e, AcknowledgeType.RELEASE, limit), backoff: false })
      } else if (e.state === DeliveryState.AVAILABLE && e.availableAt !== 0 && e.availableAt <= now) {
        e.availableAt = 0
        wake = true
      }
    }
    if (expired.length > 0) void this.transition(expired, true)
    this.arm()
    if (wake) this.o.onAvailable()
  }
}

function fresh(state: number, deliveryCount: number): InFlight {
  return { state, deliveryCount, memberId: null, lockExpiresAt: 0, availableAt: 0, pending: false }
}

function code(name: 'INVALID_REQUEST' | 'INVALID_RECORD_STATE' | 'NOT_LEADER_OR_FOLLOWER'): number {
  return ErrorCode[name].code
}
