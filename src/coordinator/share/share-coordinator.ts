// The share coordinator (KIP-932; Kafka's ShareCoordinatorService and ShareCoordinatorShard): the
// durable state of share-partitions — (group, topic id, partition) — kept in `__share_group_state`
// (ShareStateLog, share-state-topic.ts). Pure logic on a Clock; what is durable goes through the
// log; the answers are ShareStatePersister's (ports/shares.ts), errors as Kafka's codes, never
// thrown.
//
// Ownership: a key belongs to one `__share_group_state` partition and is served by that
// partition's leader only after onElection(partition, leaderEpoch) replayed it (meanwhile
// COORDINATOR_LOAD_IN_PROGRESS; not led here: NOT_COORDINATOR); onResignation drops the
// partition's state. A replay applies the records in log order: a ShareSnapshot replaces the key's
// state, a ShareUpdate is combined into it (state-batches.ts: cut to the start offset, overlapping
// offsets take the further delivery), a tombstone removes it. The same apply() runs after each of
// this coordinator's own writes, so memory is what a replay of the log gives.
//
// Operations on one key run one after another (a chain per key); each answers only once its record
// is durable (append: acks=-1 within share.coordinator.write.timeout.ms), and changes memory only
// then — a failed write leaves memory as it was and answers the store's code.
//   initialize(stateEpoch, startOffset): a stored state epoch above the request's is
//     FENCED_STATE_EPOCH; else a ShareSnapshot with that state epoch, start offset, no batches.
//   write: a stored leader epoch above the request's is FENCED_LEADER_EPOCH, a stored state epoch
//     above the request's FENCED_STATE_EPOCH (Kafka 4.4's checks, in that order). The first write
//     of a key is a ShareSnapshot; then ShareUpdates with only the request's batches, until
//     share.coordinator.snapshot.update.records.per.snapshot of them follow the last snapshot —
//     the next write is the whole state again as a ShareSnapshot of the next snapshot epoch.
//   read(leaderEpoch): a stored leader epoch above it is FENCED_LEADER_EPOCH; a newer one is
//     recorded (a ShareUpdate carrying only it) before the state is answered, so the older leader
//     is fenced from then on. A key without state answers startOffset -1, state epoch 0, no error
//     (the port's "uninitialized"; Kafka 4.4's coordinator answers INVALID_REQUEST there, its group
//     coordinator initializing every share-partition before a leader reads it).
//   readSummary: the state epoch, leader epoch, start offset and delivery-complete count; not
//     fenced (the group coordinator asks it with no leader epoch of its own).
//   delete: a tombstone when there is state; NONE either way.
// As Kafka's coordinator refuses them: a negative partition, leader epoch (write, read) or state
// epoch (write, initialize) is INVALID_REQUEST; a topic id or partition the cluster does not have
// UNKNOWN_TOPIC_OR_PARTITION.
// A partition's records below the oldest last-snapshot of its keys are not needed by a replay;
// every share.coordinator.state.topic.prune.interval.ms they are deleted (Kafka prunes so), when
// no write of the partition is in flight — after the keys of topics the cluster no longer has are
// tombstoned (Kafka does that when it sees the topics deleted). So that a key written rarely does
// not hold pruning back, a key with updates after its snapshot and no write for
// share.coordinator.cold.partition.snapshot.interval.ms gets a new snapshot (Kafka's cold
// partition snapshots).
import type {
  SharePartitionKey,
  ShareStateBatch,
  ShareStatePersister,
  ShareStateRead,
  ShareStateResult,
  ShareStateSummary,
  ShareStateWrite,
} from '../../ports/shares.js'
import { mustLoadOnElection } from '../internal-topic.js'
import { sharePartitionKeyString } from '../../ports/shares.js'
import { ErrorCode, type ErrorName, KafkaError } from '../../protocol/errors.js'
import type { Clock, Timer } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import { SHARE_SNAPSHOT_TYPE, SHARE_UPDATE_TYPE, type ShareRecord, type ShareSnapshot } from './share-records.js'
import type { ShareStateLog } from './share-state-topic.js'
import { combineStateBatches } from './state-batches.js'

export interface ShareCoordinatorConfig {
  /** share.coordinator.snapshot.update.records.per.snapshot (500). */
  updatesPerSnapshot: number
  /** share.coordinator.state.topic.prune.interval.ms (300000); 0: never. */
  pruneIntervalMs: number
  /** share.coordinator.cold.partition.snapshot.interval.ms (300000); 0: never. */
  coldSnapshotIntervalMs?: number
}

export interface ShareCoordinatorOptions {
  clock: Clock
  logger: Logger
  log: ShareStateLog
  config: ShareCoordinatorConfig
  /** Whether the topic (by id) has the partition; omitted: every one. A write or read of another is UNKNOWN_TOPIC_OR_PARTITION. */
  partitionExists?: (topicId: string, partition: number) => boolean
}

/** One key's state: its last snapshot with the updates since applied. */
interface KeyState extends ShareSnapshot {
  key: SharePartitionKey
  /** ShareUpdates applied since the last ShareSnapshot. */
  updatesSinceSnapshot: number
  /** When a record of the key was last applied (the clock's monotonic time). */
  lastWriteMs: number
  /** Offset of the last ShareSnapshot in the partition (what a replay needs from). */
  snapshotOffset: number
}

interface Ownership {
  epoch: number
  state: 'loading' | 'owned' | 'failed' | 'resigned'
  keys: Map<string, KeyState>
  /** The tail of each key's operation chain (removed when it runs dry). */
  chains: Map<string, Promise<unknown>>
  /** Appends issued and not yet answered. */
  appending: number
}

type Lookup = { error: ErrorName } | { part: Ownership; partition: number }

const code = (name: ErrorName): number => ErrorCode[name].code
const errorNameOf = (err: unknown): ErrorName => (err instanceof KafkaError ? err.errorName : 'UNKNOWN_SERVER_ERROR')
const result = (name: ErrorName | null, message?: string): ShareStateResult =>
  name === null ? { errorCode: 0, errorMessage: null } : { errorCode: code(name), errorMessage: message ?? null }

/** A state epoch of an uninitialized share-partition (Kafka's PartitionFactory defaults). */
const DEFAULT_STATE_EPOCH = 0
const DEFAULT_LEADER_EPOCH = 0
const UNINITIALIZED_START_OFFSET = -1

export class ShareCoordinator implements ShareStatePersister {
  private readonly partitions = new Map<number, Ownership>()
  private closed = false
  private pruneTimer: Timer | undefined
  private coldTimer: Timer | undefined

  constructor(private readonly opts: ShareCoordinatorOptions) {
    this.schedulePrune()
    this.scheduleColdSnapshots()
  }

  // -------------------------------------------------------------------------------------------
  // Ownership

  partitionFor(key: SharePartitionKey): number {
    return this.opts.log.partitionFor(key)
  }

  ensureCoordinatorTopic(): Promise<void> {
    return this.opts.log.ensureTopic()
  }

  /** This broker now leads `__share_group_state` partition `partition`: its keys are loaded, then served. Never rejects. */
  onElection(partition: number, leaderEpoch: number): Promise<void> {
    if (this.closed) return Promise.resolve()
    if (!mustLoadOnElection(this.partitions.get(partition), leaderEpoch)) return Promise.resolve()
    const entry: Ownership = { epoch: leaderEpoch, state: 'loading', keys: new Map(), chains: new Map(), appending: 0 }
    this.partitions.set(partition, entry)
    return this.load(partition, entry)
  }

  /** This broker no longer leads the partition: its keys leave memory (an older epoch's resignation is ignored). */
  onResignation(partition: number, leaderEpoch: number): void {
    if (this.closed) return
    const current = this.partitions.get(partition)
    if (current && leaderEpoch < current.epoch) return
    this.partitions.set(partition, { epoch: leaderEpoch, state: 'resigned', keys: new Map(), chains: new Map(), appending: 0 })
    if (current?.state === 'owned' || current?.state === 'loading') {
      this.opts.logger.info('resigned as coordinator of a share group state partition', { partition, leaderEpoch, keys: current.keys.size })
    }
  }

  close(): void {
    this.closed = true
    this.pruneTimer?.cancel()
    this.coldTimer?.cancel()
    this.partitions.clear()
  }

  private async load(partition: number, entry: Ownership): Promise<void> {
    const current = () => this.partitions.get(partition) === entry && !this.closed
    const loaded = new Map<string, KeyState>()
    try {
      await this.opts.log.loadPartition(partition, (record, offset) => this.apply(loaded, record, offset))
    } catch (err) {
      if (!current()) return
      entry.state = 'failed'
      this.opts.logger.error('loading a share group state partition failed; its keys are not served here', { partition, err })
      return
    }
    if (!current()) return
    entry.keys = loaded
    entry.state = 'owned'
    this.opts.logger.info('loaded a share group state partition', { partition, leaderEpoch: entry.epoch, keys: loaded.size })
  }

  private lookup(key: SharePartitionKey): Lookup {
    if (this.closed) return { error: 'NOT_COORDINATOR' }
    const partition = this.opts.log.partitionFor(key)
    const part = this.partitions.get(partition)
    switch (part?.state) {
      case 'owned':
        return { part, partition }
      case 'loading':
        return { error: 'COORDINATOR_LOAD_IN_PROGRESS' }
      default:
        return { error: 'NOT_COORDINATOR' }
    }
  }

  /** Runs op after the key's earlier operations; the lookup is made when its turn comes. */
  private serialized<R>(
    key: SharePartitionKey,
    fail: (name: ErrorName, message?: string) => R,
    op: (part: Ownership, partition: number, id: string) => Promise<R> | R,
  ): Promise<R> {
    const first = this.lookup(key)
    if ('error' in first) return Promise.resolve(fail(first.error))
    if (key.partition < 0) return Promise.resolve(fail('INVALID_REQUEST', 'the partition is negative'))
    if (!key.topicId) return Promise.resolve(fail('INVALID_REQUEST', 'the topic id is missing'))
    const id = sharePartitionKeyString(key)
    const chains = first.part.chains
    const run = async (): Promise<R> => {
      const now = this.lookup(key)
      if ('error' in now) return fail(now.error)
      if (now.part !== first.part) return fail('NOT_COORDINATOR')
      try {
        return await op(now.part, now.partition, id)
      } catch (err) {
        this.opts.logger.error('share coordinator operation failed', { key: id, err })
        return fail('UNKNOWN_SERVER_ERROR', (err as Error).message)
      }
    }
    const tail = (chains.get(id) ?? Promise.resolve()).then(run)
    const settled = tail.then(
      () => {},
      () => {},
    )
    chains.set(id, settled)
    void settled.then(() => {
      if (chains.get(id) === settled) chains.delete(id)
    })
    return tail
  }

  /** Appends one record and applies it once durable; the error to answer, or null. */
  private async store(part: Ownership, partition: number, record: ShareRecord): Promise<{ error: ErrorName; message: string } | null> {
    part.appending++
    let offset: number
    try {
      offset = await this.opts.log.append(partition, [record])
    } catch (err) {
      return { error: errorNameOf(err), message: (err as Error).message }
    } finally {
      part.appending--
    }
    if (this.partitions.get(partition) !== part || part.state !== 'owned')
      return { error: 'NOT_COORDINATOR', message: 'no longer the coordinator' }
    this.apply(part.keys, record, offset)
    return null
  }

  /** One record's effect on a partition's keys (the replay and this coordinator's own writes alike). */
  private apply(keys: Map<string, KeyState>, record: ShareRecord, offset: number): void {
    const id = sharePartitionKeyString(record.key)
    const prev = keys.get(id)
    if (record.value === null) {
      keys.delete(id)
      return
    }
    if (record.type === SHARE_SNAPSHOT_TYPE) {
      const v = record.value
      keys.set(id, {
        ...v,
        key: record.key,
        leaderEpoch: Math.max(v.leaderEpoch, prev?.leaderEpoch ?? -1),
        stateBatches: v.stateBatches.map((b) => ({ ...b })),
        updatesSinceSnapshot: 0,
        lastWriteMs: this.opts.clock.monotonic(),
        snapshotOffset: offset,
      })
      return
    }
    const u = record.value
    if (!prev) {
      // An update without a snapshot before it (its snapshot was pruned away): what it says.
      keys.set(id, {
        key: record.key,
        snapshotEpoch: u.snapshotEpoch,
        stateEpoch: DEFAULT_STATE_EPOCH,
        leaderEpoch: u.leaderEpoch,
        startOffset: u.startOffset,
        deliveryCompleteCount: u.deliveryCompleteCount,
        createTimestamp: -1,
        writeTimestamp: -1,
        stateBatches: combineStateBatches([], u.stateBatches, u.startOffset),
        updatesSinceSnapshot: 1,
        lastWriteMs: this.opts.clock.monotonic(),
        snapshotOffset: offset,
      })
      return
    }
    const startOffset = u.startOffset === -1 ? prev.startOffset : u.startOffset
    prev.startOffset = startOffset
    prev.leaderEpoch = Math.max(prev.leaderEpoch, u.leaderEpoch)
    prev.deliveryCompleteCount = u.deliveryCompleteCount
    prev.stateBatches = combineStateBatches(prev.stateBatches, u.stateBatches, startOffset)
    prev.updatesSinceSnapshot++
    prev.lastWriteMs = this.opts.clock.monotonic()
  }

  /** The record a change of the key makes: an update, or the whole state once enough updates follow the snapshot. */
  private changeRecord(key: SharePartitionKey, s: KeyState | undefined, w: ShareStateWrite, snapshot = false): ShareRecord {
    const now = this.opts.clock.now()
    if (!s) {
      return {
        type: SHARE_SNAPSHOT_TYPE,
        key,
        value: {
          snapshotEpoch: 0,
          stateEpoch: w.stateEpoch,
          leaderEpoch: w.leaderEpoch,
          startOffset: w.startOffset,
          deliveryCompleteCount: w.deliveryCompleteCount,
          createTimestamp: now,
          writeTimestamp: now,
          stateBatches: combineStateBatches([], w.stateBatches, w.startOffset),
        },
      }
    }
    if (snapshot || s.updatesSinceSnapshot >= this.opts.config.updatesPerSnapshot) {
      const startOffset = w.startOffset === -1 ? s.startOffset : w.startOffset
      return {
        type: SHARE_SNAPSHOT_TYPE,
        key,
        value: {
          snapshotEpoch: s.snapshotEpoch + 1,
          stateEpoch: s.stateEpoch,
          leaderEpoch: Math.max(s.leaderEpoch, w.leaderEpoch),
          startOffset,
          deliveryCompleteCount: w.deliveryCompleteCount,
          createTimestamp: s.createTimestamp,
          writeTimestamp: now,
          stateBatches: combineStateBatches(s.stateBatches, w.stateBatches, startOffset),
        },
      }
    }
    return {
      type: SHARE_UPDATE_TYPE,
      key,
      value: {
        snapshotEpoch: s.snapshotEpoch,
        leaderEpoch: w.leaderEpoch,
        startOffset: w.startOffset,
        deliveryCompleteCount: w.deliveryCompleteCount,
        stateBatches: combineStateBatches([], w.stateBatches, w.startOffset),
      },
    }
  }

  private unknownPartition(key: SharePartitionKey): boolean {
    return this.opts.partitionExists !== undefined && !this.opts.partitionExists(key.topicId, key.partition)
  }

  // -------------------------------------------------------------------------------------------
  // ShareStatePersister, on the keys this broker coordinates

  initialize(key: SharePartitionKey, stateEpoch: number, startOffset: number): Promise<ShareStateResult> {
    return this.serialized(key, result, async (part, partition, id) => {
      if (stateEpoch < 0) return result('INVALID_REQUEST', 'The state epoch cannot be a negative number.')
      if (this.unknownPartition(key)) return result('UNKNOWN_TOPIC_OR_PARTITION')
      const s = part.keys.get(id)
      if (s && s.stateEpoch > stateEpoch) return result('FENCED_STATE_EPOCH', `the stored state epoch is ${s.stateEpoch}`)
      const now = this.opts.clock.now()
      const failed = await this.store(part, partition, {
        type: SHARE_SNAPSHOT_TYPE,
        key,
        value: {
          snapshotEpoch: s ? s.snapshotEpoch + 1 : 0,
          stateEpoch,
          leaderEpoch: s?.leaderEpoch ?? -1,
          startOffset,
          // As Kafka: unknown (-1) while the start offset is; an altered start offset has nothing
          // delivered past it yet (0), so the lag counts from there.
          deliveryCompleteCount: startOffset === UNINITIALIZED_START_OFFSET ? -1 : 0,
          createTimestamp: now,
          writeTimestamp: now,
          stateBatches: [],
        },
      })
      return failed ? result(failed.error, failed.message) : result(null)
    })
  }

  write(key: SharePartitionKey, w: ShareStateWrite): Promise<ShareStateResult> {
    return this.serialized(key, result, async (part, partition, id) => {
      if (w.leaderEpoch < 0) return result('INVALID_REQUEST', 'The leader epoch cannot be a negative number.')
      if (w.stateEpoch < 0) return result('INVALID_REQUEST', 'The state epoch cannot be a negative number.')
      const s = part.keys.get(id)
      if (s && s.leaderEpoch > w.leaderEpoch) return result('FENCED_LEADER_EPOCH', `the stored leader epoch is ${s.leaderEpoch}`)
      if (s && s.stateEpoch > w.stateEpoch) return result('FENCED_STATE_EPOCH', `the stored state epoch is ${s.stateEpoch}`)
      if (this.unknownPartition(key)) return result('UNKNOWN_TOPIC_OR_PARTITION')
      const failed = await this.store(part, partition, this.changeRecord(key, s, w))
      return failed ? result(failed.error, failed.message) : result(null)
    })
  }

  read(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateRead> {
    const fail = (name: ErrorName, message?: string): ShareStateRead => ({
      ...result(name, message),
      stateEpoch: DEFAULT_STATE_EPOCH,
      startOffset: UNINITIALIZED_START_OFFSET,
      stateBatches: [],
    })
    return this.serialized(key, fail, async (part, partition, id) => {
      if (leaderEpoch < 0) return fail('INVALID_REQUEST', 'The leader epoch cannot be a negative number.')
      const s = part.keys.get(id)
      if (s && s.leaderEpoch > leaderEpoch) return fail('FENCED_LEADER_EPOCH', `the stored leader epoch is ${s.leaderEpoch}`)
      if (this.unknownPartition(key)) return fail('UNKNOWN_TOPIC_OR_PARTITION')
      if (!s) return { ...result(null), stateEpoch: DEFAULT_STATE_EPOCH, startOffset: UNINITIALIZED_START_OFFSET, stateBatches: [] }
      if (leaderEpoch !== s.leaderEpoch) {
        const epochOnly: ShareStateWrite = {
          stateEpoch: s.stateEpoch,
          leaderEpoch,
          startOffset: -1,
          deliveryCompleteCount: s.deliveryCompleteCount,
          stateBatches: [],
        }
        const failed = await this.store(part, partition, this.changeRecord(key, s, epochOnly))
        if (failed) return fail(failed.error, failed.message)
      }
      const now = part.keys.get(id)!
      return { ...result(null), stateEpoch: now.stateEpoch, startOffset: now.startOffset, stateBatches: now.stateBatches.map(copyBatch) }
    })
  }

  readSummary(key: SharePartitionKey, _leaderEpoch: number): Promise<ShareStateSummary> {
    const fail = (name: ErrorName, message?: string): ShareStateSummary => ({
      ...result(name, message),
      stateEpoch: DEFAULT_STATE_EPOCH,
      leaderEpoch: DEFAULT_LEADER_EPOCH,
      startOffset: UNINITIALIZED_START_OFFSET,
      deliveryCompleteCount: -1,
    })
    return this.serialized(key, fail, (part, _partition, id) => {
      if (this.unknownPartition(key)) return fail('UNKNOWN_TOPIC_OR_PARTITION')
      const s = part.keys.get(id)
      if (!s) return { ...fail('NONE'), errorCode: 0, errorMessage: null } // uninitialized: the defaults, no error
      return {
        ...result(null),
        stateEpoch: s.stateEpoch,
        leaderEpoch: s.leaderEpoch,
        startOffset: s.startOffset,
        deliveryCompleteCount: s.deliveryCompleteCount,
      }
    })
  }

  delete(key: SharePartitionKey): Promise<ShareStateResult> {
    return this.serialized(key, result, async (part, partition, id) => {
      if (this.unknownPartition(key)) return result('UNKNOWN_TOPIC_OR_PARTITION')
      if (!part.keys.has(id)) return result(null)
      const failed = await this.store(part, partition, { type: SHARE_SNAPSHOT_TYPE, key, value: null })
      return failed ? result(failed.error, failed.message) : result(null)
    })
  }

  // -------------------------------------------------------------------------------------------
  // Pruning

  private schedulePrune(): void {
    const interval = this.opts.config.pruneIntervalMs
    if (this.closed || !(interval > 0)) return
    this.pruneTimer = this.opts.clock.setTimeout(() => {
      void this.prune().finally(() => this.schedulePrune())
    }, interval)
  }

  /** Deletes, in each partition led here with no write in flight, the records before its keys' oldest last snapshot. */
  async prune(): Promise<void> {
    await this.dropDeletedTopics()
    for (const [partition, part] of this.partitions) {
      if (part.state !== 'owned' || part.appending > 0) continue
      let below = Number.MAX_SAFE_INTEGER
      for (const s of part.keys.values()) below = Math.min(below, s.snapshotOffset)
      try {
        await this.opts.log.deleteRecordsBelow(partition, below)
      } catch (err) {
        this.opts.logger.warn('pruning a share group state partition failed', { partition, err })
      }
    }
  }

  private scheduleColdSnapshots(): void {
    const interval = this.opts.config.coldSnapshotIntervalMs ?? 0
    if (this.closed || !(interval > 0)) return
    this.coldTimer = this.opts.clock.setTimeout(() => {
      void this.snapshotColdKeys().finally(() => this.scheduleColdSnapshots())
    }, interval)
  }

  /**
   * Writes the whole state again as a ShareSnapshot for the keys with updates after their last
   * snapshot and no write for share.coordinator.cold.partition.snapshot.interval.ms (Kafka's
   * snapshotColdPartitions): a key written rarely would otherwise hold its old snapshot, and every
   * record after it, from pruning.
   */
  async snapshotColdKeys(): Promise<void> {
    const interval = this.opts.config.coldSnapshotIntervalMs ?? 0
    const now = this.opts.clock.monotonic()
    const cold: SharePartitionKey[] = []
    for (const part of this.partitions.values()) {
      if (part.state !== 'owned') continue
      for (const s of part.keys.values()) if (s.updatesSinceSnapshot > 0 && now - s.lastWriteMs >= interval) cold.push(s.key)
    }
    for (const key of cold) {
      await this.serialized(key, result, async (part, partition, id) => {
        const s = part.keys.get(id)
        if (!s || s.updatesSinceSnapshot === 0) return result(null)
        const same: ShareStateWrite = {
          stateEpoch: s.stateEpoch,
          leaderEpoch: s.leaderEpoch,
          startOffset: -1,
          deliveryCompleteCount: s.deliveryCompleteCount,
          stateBatches: [],
        }
        const failed = await this.store(part, partition, this.changeRecord(key, s, same, true))
        return failed ? result(failed.error, failed.message) : result(null)
      })
    }
  }

  /**
   * Tombstones the state of share-partitions whose topic (or partition) the cluster no longer has,
   * as Kafka's share coordinator does when topics are deleted: nothing can read it again, and it
   * would hold back the pruning of its partition.
   */
  private async dropDeletedTopics(): Promise<void> {
    const exists = this.opts.partitionExists
    if (!exists) return
    const gone: SharePartitionKey[] = []
    for (const part of this.partitions.values()) {
      if (part.state !== 'owned') continue
      for (const s of part.keys.values()) if (!exists(s.key.topicId, s.key.partition)) gone.push(s.key)
    }
    for (const key of gone) {
      const r = await this.serialized(key, result, async (part, partition, id) => {
        if (!part.keys.has(id) || exists(key.topicId, key.partition)) return result(null)
        const failed = await this.store(part, partition, { type: SHARE_SNAPSHOT_TYPE, key, value: null })
        return failed ? result(failed.error, failed.message) : result(null)
      })
      if (r.errorCode !== 0)
        this.opts.logger.warn('dropping the state of a deleted topic’s share-partition failed', {
          key: sharePartitionKeyString(key),
          code: r.errorCode,
        })
    }
    if (gone.length > 0) this.opts.logger.info('dropped the state of share-partitions of deleted topics', { keys: gone.length })
  }
}

function copyBatch(b: ShareStateBatch): ShareStateBatch {
  return { firstOffset: b.firstOffset, lastOffset: b.lastOffset, deliveryState: b.deliveryState, deliveryCount: b.deliveryCount }
}
