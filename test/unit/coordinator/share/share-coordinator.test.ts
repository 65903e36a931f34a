// The share coordinator (src/coordinator/share/share-coordinator.ts) over a log kept in memory:
// the persister contract, the records it writes (a ShareSnapshot first, ShareUpdates after, a
// snapshot again every updatesPerSnapshot updates), replay after a restart giving the same state,
// ownership (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, resignation), a failed append leaving
// memory as it was, a read of a newer leader epoch being recorded, and pruning of the records no
// key needs.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ShareCoordinator } from '../../../../src/coordinator/share/share-coordinator.js'
import {
  decodeShareRecord,
  encodeShareRecord,
  SHARE_SNAPSHOT_TYPE,
  SHARE_UPDATE_TYPE,
  type ShareRecord,
} from '../../../../src/coordinator/share/share-records.js'
import { partitionForShareKey, type ShareStateLog } from '../../../../src/coordinator/share/share-state-topic.js'
import { DeliveryState, type SharePartitionKey } from '../../../../src/ports/shares.js'
import { ErrorCode, KafkaError } from '../../../../src/protocol/errors.js'
import { ManualClock } from '../../../../src/util/clock.js'
import { silentLogger } from '../../../../src/util/logger.js'
import { shareStatePersisterContract } from '../../share-state-contract.js'

const E = (name: keyof typeof ErrorCode) => ErrorCode[name].code
const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ'
const PARTITIONS = 3

/** `__share_group_state` in memory: each partition a list of encoded records from its log start. */
class MemoryShareLog implements ShareStateLog {
  readonly logs = new Map<number, { start: number; records: Array<{ key: Buffer; value: Buffer | null }> }>()
  /** Set: the next appends reject with it. */
  failWith: KafkaError | undefined
  /** Set: loads wait for it. */
  loadGate: Promise<void> | undefined

  partitionFor(key: SharePartitionKey): number {
    return partitionForShareKey(key, PARTITIONS)
  }
  async ensureTopic(): Promise<void> {}
  private log(partition: number) {
    let l = this.logs.get(partition)
    if (!l) this.logs.set(partition, (l = { start: 0, records: [] }))
    return l
  }
  async append(partition: number, records: ShareRecord[]): Promise<number> {
    if (this.failWith) throw this.failWith
    const l = this.log(partition)
    const offset = l.start + l.records.length
    for (const r of records) l.records.push(encodeShareRecord(r))
    return offset
  }
  async loadPartition(partition: number, sink: (r: ShareRecord, offset: number) => void): Promise<number> {
    await this.loadGate
    const l = this.log(partition)
    for (const [i, r] of l.records.entries()) sink(decodeShareRecord(r.key, r.value), l.start + i)
    return l.records.length
  }
  async deleteRecordsBelow(partition: number, offset: number): Promise<void> {
    const l = this.log(partition)
    const upTo = Math.min(offset, l.start + l.records.length)
    if (upTo <= l.start) return
    l.records.splice(0, upTo - l.start)
    l.start = upTo
  }
  types(partition: number): number[] {
    return this.log(partition).records.map((r) => r.key.readInt16BE(0))
  }
}

function coordinatorOn(log: ShareStateLog, clock = new ManualClock(), updatesPerSnapshot = 500, pruneIntervalMs = 0) {
  return new ShareCoordinator({ clock, logger: silentLogger, log, config: { updatesPerSnapshot, pruneIntervalMs } })
}

async function elected(c: ShareCoordinator, epoch = 0): Promise<void> {
  for (let p = 0; p < PARTITIONS; p++) await c.onElection(p, epoch)
}

shareStatePersisterContract('ShareCoordinator over a memory log', async () => {
  const c = coordinatorOn(new MemoryShareLog())
  await elected(c)
  return { persister: c, topicId: TOPIC_ID, close: async () => c.close() }
})

const KEY: SharePartitionKey = { groupId: 'g', topicId: TOPIC_ID, partition: 0 }
const ack = (first: number, last = first) => ({
  firstOffset: first,
  lastOffset: last,
  deliveryState: DeliveryState.ACKNOWLEDGED,
  deliveryCount: 1,
})
const write = (first: number, leaderEpoch = 0) => ({
  stateEpoch: 0,
  leaderEpoch,
  startOffset: -1,
  deliveryCompleteCount: -1,
  stateBatches: [ack(first)],
})

describe('ShareCoordinator', () => {
  it('initializes a start offset with nothing delivered past it (lag from there), an uninitialized one with the count unknown', async () => {
    const c = coordinatorOn(new MemoryShareLog())
    await elected(c)
    await c.initialize(KEY, 0, 12)
    const s = await c.readSummary(KEY, 0)
    assert.deepEqual([s.startOffset, s.deliveryCompleteCount], [12, 0])
    const other = { ...KEY, partition: 1 }
    await c.initialize(other, 0, -1)
    const u = await c.readSummary(other, 0)
    assert.deepEqual([u.startOffset, u.deliveryCompleteCount], [-1, -1])
  })

  it('writes a snapshot first, then updates, then a snapshot again every updatesPerSnapshot updates', async () => {
    const log = new MemoryShareLog()
    const c = coordinatorOn(log, new ManualClock(), 3)
    await elected(c)
    await c.initialize(KEY, 0, 0)
    for (let i = 0; i < 8; i++) assert.equal((await c.write(KEY, write(i))).errorCode, 0)
    const S = SHARE_SNAPSHOT_TYPE
    const U = SHARE_UPDATE_TYPE
    assert.deepEqual(log.types(log.partitionFor(KEY)), [S, U, U, U, S, U, U, U, S])
    const last = log.logs.get(log.partitionFor(KEY))!.records.at(-1)!
    const snap = decodeShareRecord(last.key, last.value)
    assert.equal(snap.type, S)
    assert.equal(snap.value && 'snapshotEpoch' in snap.value ? snap.value.snapshotEpoch : -1, 2)
    // The snapshot holds the whole state: one batch [0, 7].
    assert.deepEqual(snap.value?.stateBatches, [ack(0, 7)])
  })

  it('replays the log after a restart to the same state', async () => {
    const log = new MemoryShareLog()
    const c1 = coordinatorOn(log, new ManualClock(), 2)
    await elected(c1)
    await c1.initialize(KEY, 3, 0)
    for (let i = 0; i < 5; i++) await c1.write(KEY, { ...write(i * 2, 7), stateEpoch: 3 })
    await c1.write(KEY, { stateEpoch: 3, leaderEpoch: 7, startOffset: 4, deliveryCompleteCount: 3, stateBatches: [] })
    const other = { ...KEY, partition: 1 }
    await c1.initialize(other, 1, 9)
    await c1.delete(other)
    const before = await c1.read(KEY, 7)
    c1.close()

    const c2 = coordinatorOn(log)
    await elected(c2, 1)
    assert.deepEqual(await c2.read(KEY, 7), before)
    assert.deepEqual(
      before.stateBatches.map((b) => b.firstOffset),
      [4, 6, 8],
    )
    assert.equal((await c2.read(other, 0)).startOffset, -1)
    const s = await c2.readSummary(KEY, 0)
    assert.equal(s.leaderEpoch, 7)
    assert.equal(s.deliveryCompleteCount, 3)
    // The leader epoch survives the replay: an older leader stays fenced.
    assert.equal((await c2.write(KEY, { ...write(20, 6), stateEpoch: 3 })).errorCode, E('FENCED_LEADER_EPOCH'))
  })

  it('answers NOT_COORDINATOR for a partition not led here, COORDINATOR_LOAD_IN_PROGRESS while loading, NOT_COORDINATOR after resigning', async () => {
    const log = new MemoryShareLog()
    const c = coordinatorOn(log)
    const p = log.partitionFor(KEY)
    assert.equal((await c.read(KEY, 0)).errorCode, E('NOT_COORDINATOR'))
    let open!: () => void
    log.loadGate = new Promise((r) => (open = r))
    const loading = c.onElection(p, 1)
    assert.equal((await c.write(KEY, write(0))).errorCode, E('COORDINATOR_LOAD_IN_PROGRESS'))
    open()
    await loading
    assert.equal((await c.write(KEY, write(0))).errorCode, 0)
    c.onResignation(p, 2)
    assert.equal((await c.readSummary(KEY, 0)).errorCode, E('NOT_COORDINATOR'))
    // Elected again: loaded from the log.
    await c.onElection(p, 3)
    assert.deepEqual((await c.read(KEY, 0)).stateBatches, [ack(0)])
  })

  it('a failed append answers the store’s code and changes nothing', async () => {
    const log = new MemoryShareLog()
    const c = coordinatorOn(log)
    await elected(c)
    await c.write(KEY, write(0))
    log.failWith = new KafkaError('COORDINATOR_NOT_AVAILABLE', 'too few in-sync replicas')
    assert.equal((await c.write(KEY, write(1))).errorCode, E('COORDINATOR_NOT_AVAILABLE'))
    log.failWith = undefined
    assert.deepEqual((await c.read(KEY, 0)).stateBatches, [ack(0)])
  })

  it('records a newer leader epoch seen by a read, so the older leader is fenced', async () => {
    const log = new MemoryShareLog()
    const c = coordinatorOn(log)
    await elected(c)
    await c.write(KEY, write(0, 1))
    const n = log.types(log.partitionFor(KEY)).length
    assert.equal((await c.read(KEY, 2)).errorCode, 0)
    assert.equal(log.types(log.partitionFor(KEY)).length, n + 1, 'the new leader epoch is written')
    assert.equal((await c.write(KEY, write(1, 1))).errorCode, E('FENCED_LEADER_EPOCH'))
    assert.equal((await c.read(KEY, 2)).errorCode, 0)
    assert.equal(log.types(log.partitionFor(KEY)).length, n + 1, 'the same epoch again writes nothing')
  })

  it('refuses a negative partition with INVALID_REQUEST', async () => {
    const c = coordinatorOn(new MemoryShareLog())
    await elected(c)
    const r = await c.write({ ...KEY, partition: -1 }, write(0))
    // A negative partition hashes to some coordinator partition; all are led here, so it is refused.
    assert.equal(r.errorCode, E('INVALID_REQUEST'))
  })

  it('prunes the records before the oldest last snapshot of the partition’s keys, on the clock', async () => {
    const log = new MemoryShareLog()
    const clock = new ManualClock()
    const c = coordinatorOn(log, clock, 2, 1000)
    await elected(c)
    const p = log.partitionFor(KEY)
    for (let i = 0; i < 7; i++) await c.write(KEY, write(i)) // S U U S U U S
    const before = await c.read(KEY, 0)
    clock.advance(1000)
    await new Promise((r) => setImmediate(r))
    assert.equal(log.logs.get(p)!.start, 6, 'everything before the last snapshot is gone')
    c.close()
    const again = coordinatorOn(log)
    await elected(again, 1)
    assert.deepEqual(await again.read(KEY, 0), before)
  })

  it('tombstones the state of a deleted topic’s share-partitions at the next prune, and prunes past it', async () => {
    const log = new MemoryShareLog()
    const clock = new ManualClock()
    const deleted = new Set<string>()
    const c = new ShareCoordinator({
      clock,
      logger: silentLogger,
      log,
      config: { updatesPerSnapshot: 500, pruneIntervalMs: 1000 },
      partitionExists: (topicId) => !deleted.has(topicId),
    })
    await elected(c)
    const gone = { ...KEY, topicId: 'AAAAAAAAAAAAAAAAAAAAAg' }
    await c.initialize(gone, 0, 0)
    await c.initialize(KEY, 0, 0)
    deleted.add(gone.topicId)
    assert.equal((await c.read(gone, 0)).errorCode, E('UNKNOWN_TOPIC_OR_PARTITION'))
    clock.advance(1000)
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r))
    deleted.delete(gone.topicId) // a topic of that id again: nothing of the old state is left
    assert.equal((await c.read(gone, 0)).startOffset, -1)
    assert.equal((await c.read(KEY, 0)).startOffset, 0)
    // Its snapshot is pruned away with the tombstone after it; a reload finds nothing of it.
    const l = log.logs.get(log.partitionFor(gone))!
    assert.ok(l.start > 0)
    const left = l.records.map((r) => decodeShareRecord(r.key, r.value)).filter((r) => r.key.topicId === gone.topicId && r.value !== null)
    assert.deepEqual(left, [])
    c.close()
    const again = coordinatorOn(log)
    await elected(again, 1)
    assert.equal((await again.read(gone, 0)).startOffset, -1)
    assert.equal((await again.read(KEY, 0)).startOffset, 0)
  })

  it('snapshots a key with updates and no write for the cold interval, so pruning can pass its old records', async () => {
    const log = new MemoryShareLog()
    const clock = new ManualClock()
    const c = new ShareCoordinator({
      clock,
      logger: silentLogger,
      log,
      config: { updatesPerSnapshot: 500, pruneIntervalMs: 0, coldSnapshotIntervalMs: 1000 },
    })
    await elected(c)
    const p = log.partitionFor(KEY)
    await c.initialize(KEY, 0, 0)
    await c.write(KEY, write(0))
    await c.write(KEY, write(1))
    const before = await c.read(KEY, 0)
    assert.deepEqual(log.types(p), [SHARE_SNAPSHOT_TYPE, SHARE_UPDATE_TYPE, SHARE_UPDATE_TYPE])
    clock.advance(1000)
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r))
    assert.deepEqual(log.types(p), [SHARE_SNAPSHOT_TYPE, SHARE_UPDATE_TYPE, SHARE_UPDATE_TYPE, SHARE_SNAPSHOT_TYPE])
    clock.advance(1000)
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r))
    assert.equal(log.types(p).length, 4, 'no updates since: no new snapshot')
    await c.prune()
    assert.equal(log.logs.get(p)!.start, 3)
    c.close()
    const again = coordinatorOn(log)
    await elected(again, 1)
    assert.deepEqual(await again.read(KEY, 0), before)
  })
})
