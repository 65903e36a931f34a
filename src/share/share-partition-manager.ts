// The share-partitions this broker holds as a partition leader (Kafka's SharePartitionManager):
// one SharePartition per (share group, topic id, partition) it leads, loaded on first use, dropped
// when it stops leading the partition, and the log reads that acquire records in them.
//
// Loading (Kafka's SharePartition.maybeInitialize): persister.read at the replica's leader epoch;
// a share-partition never initialized (start offset −1) starts where share.auto.offset.reset
// says — latest: the high watermark (the LSO for read_committed), earliest: the log start,
// by_duration:<ISO-8601 duration>: the first offset whose timestamp is at or after now − duration
// (latest when there is none) — and that start is stored (persister.initialize). Concurrent
// fetches of a share-partition being loaded wait for the one load. A share-partition read at an
// older leader epoch than the replica's now (leadership moved away and back) is loaded again.
//
// Bounds: at most maxSharePartitions share-partitions (group ids are the client's to choose, and
// the leader does not check membership, as in Kafka): past it, one holding no ACQUIRED record is
// dropped (its state is durable), else the oldest (its locks are lost: its records are delivered
// again after their reload, which at-least-once delivery allows).
import { ErrorCode, type ErrorName, errorByCode, KafkaError } from '../protocol/errors.js'
import { iterateBatches, iterateRecords } from '../protocol/records/iterator.js'
import type { HostedReplica, PartitionRead, ReplicaService } from '../ports/replicas.js'
import {
  type DeadLetter,
  type DeadLetterSink,
  type ShareGroupSettingsSource,
  type SharePartitionKey,
  sharePartitionKeyString,
  type ShareStatePersister,
} from '../ports/shares.js'
import type { TopicService } from '../ports/topics.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import { type AcquiredRange, type BatchInfo, describeBatches } from './acquire.js'
import { DEFAULT_MAX_IN_FLIGHT_RECORDS, SharePartition } from './share-partition.js'

/** A bound of Tributary's own on the share-partitions held in memory. */
export const DEFAULT_MAX_SHARE_PARTITIONS = 20_000
/** Bytes read to find one record for a dead letter's copy. */
const DEAD_LETTER_READ_BYTES = 1024 * 1024
/** A share-partition's assumed stored bytes per record before its first read (then learnt). */
const INITIAL_RECORD_BYTES = 1024
/** Added to every fetch's read, so a batch straddling the estimate is read whole. */
const READ_MARGIN_BYTES = 64 * 1024

export interface SharePartitionManagerOptions {
  replicas: ReplicaService
  topics: Pick<TopicService, 'getById' | 'get' | 'effectiveConfig'>
  persister: ShareStatePersister
  settings: ShareGroupSettingsSource
  deadLetters: DeadLetterSink | null
  /**
   * tributary.share.delete.acknowledged: the smallest start offset every share group of the
   * cluster has stored for a topic-partition (cluster-share-starts.ts); without it only the
   * share-partitions held here count.
   */
  clusterStart?: (topic: string, partition: number) => Promise<number>
  clock: Clock
  logger: Logger
  maxInFlightRecords?: number
  maxSharePartitions?: number
}

/** A share-partition with the replica and topic it was reached through. */
export interface HeldPartition {
  sp: SharePartition
  replica: HostedReplica
  topic: string
}

export interface PartitionFetch {
  records: Buffer
  acquired: AcquiredRange[]
  release(): void
}

const EMPTY = Buffer.alloc(0)

export class SharePartitionManager {
  private readonly held = new Map<string, SharePartition>()
  /** Stored bytes per record, by share-partition (readBudget). */
  private readonly recordBytes = new WeakMap<SharePartition, number>()
  private readonly loading = new Map<string, Promise<SharePartition>>()
  private readonly listeners = new Map<string, Set<() => void>>()
  /** Partitions with a deletion of consumed records under way; true: run again when it ends. */
  private readonly deleting = new Map<string, boolean>()
  private readonly maxPartitions: number

  constructor(private readonly o: SharePartitionManagerOptions) {
    this.maxPartitions = o.maxSharePartitions ?? DEFAULT_MAX_SHARE_PARTITIONS
  }

  get size(): number {
    return this.held.size
  }

  /**
   * The share-partition of a group on a partition this broker leads: UNKNOWN_TOPIC_ID for an
   * unknown topic id, NOT_LEADER_OR_FOLLOWER / UNKNOWN_TOPIC_OR_PARTITION as the replicas say,
   * or the persister's error while loading.
   */
  async partition(groupId: string, topicId: string, partition: number): Promise<HeldPartition> {
    const record = this.o.topics.getById(topicId)
    if (!record) throw new KafkaError('UNKNOWN_TOPIC_ID')
    if (partition < 0 || partition >= record.partitions) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
    const key: SharePartitionKey = { groupId, topicId, partition }
    const k = sharePartitionKeyString(key)
    for (let attempt = 0; ; attempt++) {
      const replica = this.o.replicas.require(record.name, partition)
      const cur = this.held.get(k)
      if (cur && cur.leaderEpoch === replica.leaderEpoch) return { sp: cur, replica, topic: record.name }
      if (cur) this.drop(k)
      let load = this.loading.get(k)
      if (!load) {
        load = this.load(key, record.name, replica).finally(() => this.loading.delete(k))
        this.loading.set(k, load)
      }
      const sp = await load
      // Leadership may have moved while loading: the replica decides again.
      if (attempt >= 2) throw new KafkaError('NOT_LEADER_OR_FOLLOWER', 'leadership changed while loading the share-partition')
      if (sp.leaderEpoch === this.o.replicas.require(record.name, partition).leaderEpoch && this.held.get(k) === sp) {
        return { sp, replica: this.o.replicas.require(record.name, partition), topic: record.name }
      }
    }
  }

  /** The share-partition if it is held now (no load). */
  peek(key: SharePartitionKey): SharePartition | undefined {
    return this.held.get(sharePartitionKeyString(key))
  }

  /**
   * Reads the log from where the share-partition hands out records next and acquires up to
   * maxRecords of them for memberId; the records answered are the whole batches holding them.
   */
  async fetch(
    h: HeldPartition,
    memberId: string,
    maxRecords: number,
    maxBytes: number,
    minOneBatch: boolean,
    wholeBatches = false,
  ): Promise<PartitionFetch> {
    const { sp, replica } = h
    const settings = this.o.settings(sp.key.groupId)
    const readCommitted = settings.isolationLevel === 'read_committed'
    sp.syncLogStart(replica.log.logStartOffset)
    const from = sp.nextFetchOffset()
    const limit = readCommitted ? replica.log.lastStableOffset : replica.log.highWatermark
    if (from < 0 || from >= limit || maxRecords <= 0 || (maxBytes <= 0 && !minOneBatch))
      return { records: EMPTY, acquired: [], release: () => {} }
    let read: PartitionRead
    try {
      read = await this.o.replicas.read(replica, from, this.readBudget(sp, maxRecords, maxBytes), minOneBatch, readCommitted)
    } catch (err) {
      if (err instanceof KafkaError && err.code === ErrorCode.OFFSET_OUT_OF_RANGE.code) {
        sp.syncLogStart(replica.log.logStartOffset)
        return { records: EMPTY, acquired: [], release: () => {} }
      }
      throw err
    }
    const batches = describeBatches(read.records, read.abortedTransactions)
    this.learnRecordSize(sp, batches)
    const res = sp.acquire(memberId, batches, maxRecords, wholeBatches)
    if (res.ranges.length === 0) {
      read.release()
      return { records: EMPTY, acquired: [], release: () => {} }
    }
    return { records: read.records.subarray(res.firstPosition, res.endPosition), acquired: res.ranges, release: read.release }
  }

  /**
   * The bytes a fetch reads: enough for maxRecords records at the share-partition's recent record
   * size (and a margin), never more than the request's maxBytes. A share fetch acquires records,
   * not bytes — Java's share consumer asks for fetch.max.bytes (50 MiB) to get max.poll.records
   * (500) — so reading maxBytes each time would copy megabytes to hand out a few batches.
   */
  private readBudget(sp: SharePartition, maxRecords: number, maxBytes: number): number {
    const perRecord = this.recordBytes.get(sp) ?? INITIAL_RECORD_BYTES
    return Math.max(0, Math.min(maxBytes, Math.ceil(maxRecords * perRecord * 1.25) + READ_MARGIN_BYTES))
  }

  /** Keeps the average stored bytes per record of the batches read (smoothed over reads). */
  private learnRecordSize(sp: SharePartition, batches: readonly BatchInfo[]): void {
    let bytes = 0
    let records = 0
    for (const b of batches) {
      bytes += b.sizeBytes
      records += b.lastOffset - b.baseOffset + 1
    }
    if (records === 0) return
    const prev = this.recordBytes.get(sp)
    const now = bytes / records
    this.recordBytes.set(sp, prev === undefined ? now : prev * 0.75 + now * 0.25)
  }

  /** Takes back records acquired for an answer that was not sent (SharePartition.unacquire). */
  unacquire(key: SharePartitionKey, memberId: string, ranges: readonly AcquiredRange[]): void {
    this.held.get(sharePartitionKeyString(key))?.unacquire(memberId, ranges)
  }

  /** Releases what memberId holds in the given share-partitions (those held here). */
  async releaseMember(groupId: string, memberId: string, partitions: Iterable<{ topicId: string; partition: number }>): Promise<void> {
    const work: Promise<void>[] = []
    for (const p of partitions) {
      const sp = this.held.get(sharePartitionKeyString({ groupId, topicId: p.topicId, partition: p.partition }))
      if (sp) work.push(sp.releaseMember(memberId))
    }
    await Promise.all(work)
  }

  /** This broker no longer leads topic-partition: its share-partitions go (the next leader reads their state). */
  onResignation(topic: string, partition: number): void {
    const topicId = this.o.topics.get(topic)?.topicId
    for (const [k, sp] of this.held) {
      if (sp.key.partition !== partition) continue
      // A deleted topic's name no longer resolves: its share-partitions go with any unknown id.
      if (topicId !== undefined ? sp.key.topicId === topicId : !this.o.topics.getById(sp.key.topicId)) this.drop(k)
    }
  }

  /**
   * Resolves when records may have become acquirable in one of the share-partitions (by key
   * string), or when signal aborts. The caller checks again either way.
   */
  whenAvailable(keys: readonly string[], signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve()
      const done = () => {
        for (const k of keys) {
          const set = this.listeners.get(k)
          set?.delete(done)
          if (set?.size === 0) this.listeners.delete(k)
        }
        signal.removeEventListener('abort', done)
        resolve()
      }
      for (const k of keys) {
        let set = this.listeners.get(k)
        if (!set) this.listeners.set(k, (set = new Set()))
        set.add(done)
      }
      signal.addEventListener('abort', done, { once: true })
    })
  }

  close(): void {
    for (const k of [...this.held.keys()]) this.drop(k)
  }

  private drop(k: string): void {
    this.held.get(k)?.close()
    this.held.delete(k)
  }

  private notify(k: string): void {
    const set = this.listeners.get(k)
    if (!set) return
    this.listeners.delete(k)
    for (const fn of set) fn()
  }

  private async load(key: SharePartitionKey, topic: string, replica: HostedReplica): Promise<SharePartition> {
    const settings = this.o.settings(key.groupId)
    const state = await this.o.persister.read(key, replica.leaderEpoch)
    throwIfError(state.errorCode, state.errorMessage)
    let startOffset = state.startOffset
    if (startOffset < 0) {
      startOffset = await this.initialOffset(replica, settings.autoOffsetReset, settings.isolationLevel === 'read_committed')
      const init = await this.o.persister.initialize(key, state.stateEpoch, startOffset)
      throwIfError(init.errorCode, init.errorMessage)
    }
    this.admit()
    const k = sharePartitionKeyString(key)
    const sp = new SharePartition({
      key,
      topic,
      clock: this.o.clock,
      logger: this.o.logger,
      persister: this.o.persister,
      settings: () => this.o.settings(key.groupId),
      deadLetters: this.o.deadLetters,
      readRecord: (offset) => this.readRecord(replica, offset),
      maxInFlightRecords: this.o.maxInFlightRecords ?? DEFAULT_MAX_IN_FLIGHT_RECORDS,
      leaderEpoch: replica.leaderEpoch,
      stateEpoch: state.stateEpoch,
      startOffset,
      stateBatches: state.startOffset < 0 ? [] : state.stateBatches,
      onAvailable: () => this.notify(k),
      onStartAdvanced: () => this.maybeDeleteConsumed(key.topicId, key.partition),
    })
    this.held.set(k, sp)
    return sp
  }

  /**
   * tributary.share.delete.acknowledged: once every share group is past some records, they are
   * deleted (DeleteRecords up to the smallest start offset): the share-partitions held here, and —
   * with clusterStart — every share group's stored start offset on the partition, so a group whose
   * state this leader does not hold (it has not fetched since the leader took over) holds records
   * back too. A failed lookup deletes nothing. One deletion per partition at a time; a start offset
   * that moves meanwhile is taken up by the next one.
   */
  private maybeDeleteConsumed(topicId: string, partition: number): void {
    const record = this.o.topics.getById(topicId)
    if (!record) return
    const config = this.o.topics.effectiveConfig(record)
    if (!config['tributary.share.delete.acknowledged']) return
    const k = `${topicId}:${partition}`
    if (this.deleting.has(k)) {
      this.deleting.set(k, true)
      return
    }
    // A group being loaded has a start offset not known yet: nothing is deleted before it is.
    const suffix = `:${topicId}:${partition}`
    for (const loading of this.loading.keys()) if (loading.endsWith(suffix)) return
    let min = Number.POSITIVE_INFINITY
    for (const sp of this.held.values()) {
      if (sp.key.topicId === topicId && sp.key.partition === partition && sp.startOffset < min) min = sp.startOffset
    }
    const replica = this.o.replicas.get(record.name, partition)
    if (!replica || !Number.isFinite(min) || min <= replica.log.logStartOffset) return
    this.deleting.set(k, false)
    const elsewhere = this.o.clusterStart ? this.o.clusterStart(record.name, partition) : Promise.resolve(Number.POSITIVE_INFINITY)
    elsewhere
      .then((cluster) => {
        const upTo = Math.min(min, cluster, replica.log.highWatermark)
        if (upTo <= replica.log.logStartOffset) return
        return this.o.replicas.deleteRecords(replica, upTo, config['file.delete.delay.ms'])
      })
      .catch((err) => this.o.logger.warn('deleting consumed records failed', { topic: record.name, partition, err }))
      .finally(() => {
        const again = this.deleting.get(k)
        this.deleting.delete(k)
        if (again) this.maybeDeleteConsumed(topicId, partition)
      })
  }

  /** Makes room for one more share-partition: drops one that holds no ACQUIRED record, else the oldest. */
  private admit(): void {
    if (this.held.size < this.maxPartitions) return
    for (const [k, sp] of this.held) {
      if (sp.acquiredCount === 0) {
        this.drop(k)
        return
      }
    }
    const oldest = this.held.keys().next().value
    if (oldest !== undefined) this.drop(oldest)
  }

  private async initialOffset(replica: HostedReplica, reset: string, readCommitted: boolean): Promise<number> {
    if (reset === 'earliest') return (await this.o.replicas.listOffset(replica, -2, readCommitted)).offset
    const durationMs = reset.startsWith('by_duration:') ? parseDurationMs(reset.slice('by_duration:'.length)) : null
    if (durationMs !== null) {
      const found = await this.o.replicas.listOffset(replica, Math.max(0, this.o.clock.now() - durationMs), readCommitted)
      if (found.offset >= 0) return found.offset
    }
    return (await this.o.replicas.listOffset(replica, -1, readCommitted)).offset
  }

  private async readRecord(replica: HostedReplica, offset: number): Promise<DeadLetter['record']> {
    const read = await this.o.replicas.read(replica, offset, DEAD_LETTER_READ_BYTES, true, false).catch(() => null)
    if (!read) return null
    try {
      for (const h of iterateBatches(read.records)) {
        if (offset < h.baseOffset || offset > h.baseOffset + h.lastOffsetDelta) continue
        for (const r of iterateRecords(read.records, h.position)) {
          if (r.offset !== offset) continue
          return {
            key: r.key ? Buffer.from(r.key) : null,
            value: r.value ? Buffer.from(r.value) : null,
            headers: r.headers.map((x) => ({ key: x.key, value: x.value ? Buffer.from(x.value) : null })),
            timestamp: r.timestamp,
          }
        }
      }
      return null
    } finally {
      read.release()
    }
  }
}

function throwIfError(errorCode: number, message: string | null | undefined): void {
  if (errorCode === 0) return
  const known = errorByCode(errorCode)
  throw new KafkaError(known ? (known.name as ErrorName) : 'UNKNOWN_SERVER_ERROR', message ?? undefined)
}

/** An ISO-8601 duration as share.auto.offset.reset's by_duration takes it (Java's Duration.parse: PnDTnHnMnS). */
export function parseDurationMs(text: string): number | null {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,9})?)S)?)?$/i.exec(text)
  if (!m || text.toUpperCase() === 'P' || /T$/i.test(text)) return null
  const [, d, h, min, s] = m
  return ((Number(d ?? 0) * 24 + Number(h ?? 0)) * 60 + Number(min ?? 0)) * 60_000 + Math.round(Number(s ?? 0) * 1000)
}
