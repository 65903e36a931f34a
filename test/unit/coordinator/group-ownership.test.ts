// The group coordinator, on one broker as on many: it serves the groups of a
// `__consumer_offsets` partition only once onElection loaded it, answers
// COORDINATOR_LOAD_IN_PROGRESS while it loads and NOT_COORDINATOR for partitions it does not own,
// drops a partition's groups on onResignation (held JoinGroups answered NOT_COORDINATOR, timers
// cancelled, nothing written), and ignores elections and resignations of older epochs. All on a
// ManualClock over the in-memory persistence, which places groups over 3 partitions.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_GROUP_COORDINATOR_CONFIG, GroupCoordinator } from '../../../src/coordinator/group/group-coordinator.js'
import { MemoryGroupPersistence } from '../../../src/coordinator/group/memory-persistence.js'
import type { CommitOffsetsParams } from '../../../src/ports/groups.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { code, commitParams, flush, formGroup, type Harness, joinParams, SESSION_MS, TestMember, track } from './group-helpers.js'

const PARTITIONS = 3

interface ElectedHarness extends Harness {
  persistence: MemoryGroupPersistence
}

function setupElected(persistence = new MemoryGroupPersistence(PARTITIONS)): ElectedHarness {
  const clock = new ManualClock()
  const coordinator = new GroupCoordinator({
    clock,
    logger: silentLogger,
    persistence,
    config: { ...DEFAULT_GROUP_COORDINATOR_CONFIG, initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 },
  })
  return {
    clock,
    persistence,
    coordinator,
    advance: async (ms) => {
      clock.advance(ms)
      await flush()
    },
  }
}

/** A group id that lives in `partition` (Kafka's abs(javaHash(id)) % 3). */
function groupIn(partition: number, tag = 'g'): string {
  const probe = new MemoryGroupPersistence(PARTITIONS)
  for (let i = 0; ; i++) if (probe.partitionFor(`${tag}-${i}`) === partition) return `${tag}-${i}`
}

function commit(h: Harness, groupId: string, offset: number, p: Partial<CommitOffsetsParams> = {}): Promise<number[]> {
  return h.coordinator.commitOffsets(commitParams(groupId, [{ topic: 't', partition: 0, offset, leaderEpoch: -1, metadata: null }], p))
}

const committed = (h: Harness, groupId: string) => h.coordinator.fetchOffsets(groupId, [{ name: 't', partitions: [0] }], false)

/** The error every group API answers for this group now (one code when they agree). */
async function answers(h: Harness, groupId: string): Promise<number> {
  const join = await h.coordinator.joinGroup(joinParams(groupId))
  const codes = new Set([
    join.errorCode,
    (await commit(h, groupId, 1))[0],
    committed(h, groupId).errorCode,
    h.coordinator.heartbeat({ groupId, generationId: 1, memberId: 'm', groupInstanceId: null }),
    h.coordinator.leaveGroup(groupId, [{ memberId: 'm', groupInstanceId: null, reason: null }]).errorCode,
    h.coordinator.describeGroups([groupId])[0]!.errorCode,
    (await h.coordinator.deleteGroups([groupId]))[0]!.errorCode,
  ])
  assert.equal(codes.size, 1, `every group API answers alike, got ${[...codes]}`)
  return [...codes][0]!
}

describe('group coordinator: ownership by __consumer_offsets partition', () => {
  it('serves nothing before an election: every group is NOT_COORDINATOR, nothing is replayed', async () => {
    const persistence = new MemoryGroupPersistence(PARTITIONS)
    await persistence.storeOffsets(groupIn(0), [
      { topic: 't', partition: 0, value: { offset: 5, leaderEpoch: -1, metadata: '', commitTimestampMs: 1, expireTimestampMs: -1 } },
    ])
    const h = setupElected(persistence)
    for (const p of [0, 1, 2]) assert.equal(await answers(h, groupIn(p)), code('NOT_COORDINATOR'), `partition ${p}`)
    assert.deepEqual(persistence.partitionLoads, [])
    assert.deepEqual(h.coordinator.ownedPartitions(), [])
    // Nothing was written for those requests.
    assert.equal(persistence.records.length, 1)
  })

  it('answers COORDINATOR_LOAD_IN_PROGRESS while an elected partition loads, then serves what it replayed; other partitions stay NOT_COORDINATOR', async () => {
    const persistence = new MemoryGroupPersistence(PARTITIONS)
    const mine = groupIn(1)
    const other = groupIn(2)
    // Written by an earlier coordinator of partition 1: offsets and a Stable generation of one member.
    const before = setupElected(persistence)
    await before.coordinator.onElection(1, 0)
    const m = new TestMember(before, mine)
    await formGroup(before, [m])
    assert.deepEqual(await commit(before, mine, 42, { generationId: m.generationId, memberId: m.memberId }), [0])
    before.coordinator.close()

    const h = setupElected(persistence)
    persistence.partitionLoads.length = 0
    persistence.holdLoads()
    const loaded = track(h.coordinator.onElection(1, 3))
    await flush()
    assert.deepEqual(persistence.partitionLoads, [1])
    assert.equal(await answers(h, mine), code('COORDINATOR_LOAD_IN_PROGRESS'))
    assert.equal(await answers(h, other), code('NOT_COORDINATOR'))
    assert.equal(h.coordinator.listGroups({ states: [], types: [] }).errorCode, code('COORDINATOR_LOAD_IN_PROGRESS'))
    assert.equal(loaded.done, false)

    persistence.releaseLoads()
    await loaded.promise
    assert.deepEqual(h.coordinator.ownedPartitions(), [1])
    assert.equal(committed(h, mine).topics[0]!.partitions[0]!.committedOffset, 42)
    assert.equal(h.coordinator.groupState(mine), 'Stable', 'the stored generation comes back')
    // Its member heartbeats on with the generation it had, as if nothing happened.
    assert.equal(h.coordinator.heartbeat({ groupId: mine, generationId: m.generationId, memberId: m.memberId, groupInstanceId: null }), 0)
    assert.deepEqual(h.coordinator.listGroups({ states: [], types: [] }), {
      errorCode: 0,
      groups: [{ groupId: mine, protocolType: 'consumer', groupState: 'Stable', groupType: 'classic' }],
    })
    assert.equal(await answers(h, other), code('NOT_COORDINATOR'))
    // A second election of the same partition and epoch (heard twice) loads nothing again.
    await h.coordinator.onElection(1, 3)
    assert.deepEqual(persistence.partitionLoads, [1])
  })

  it('resignation answers held JoinGroups NOT_COORDINATOR, cancels the timers and writes nothing', async () => {
    const h = setupElected()
    await h.coordinator.onElection(0, 1)
    await h.coordinator.onElection(2, 1)
    const gid = groupIn(0)
    const kept = groupIn(2)
    const [a, b] = [new TestMember(h, gid), new TestMember(h, gid)]
    await formGroup(h, [a, b])
    const k = new TestMember(h, kept)
    await formGroup(h, [k])
    // A third member makes the group rebalance: its JoinGroup, and a's rejoin, are held.
    const c = new TestMember(h, gid)
    const cJoin = await c.joinFully()
    const aJoin = a.join()
    await flush()
    assert.equal(h.coordinator.groupState(gid), 'PreparingRebalance')
    assert.equal(cJoin.done || aJoin.done, false, 'both joins are held')
    const written = h.persistence.records.length

    h.coordinator.onResignation(0, 2)
    await flush()
    assert.equal(cJoin.value?.errorCode, code('NOT_COORDINATOR'))
    assert.equal(aJoin.value?.errorCode, code('NOT_COORDINATOR'))
    assert.equal(h.coordinator.groupState(gid), undefined, 'the group left memory')
    assert.deepEqual(h.coordinator.ownedPartitions(), [2])
    assert.equal(await answers(h, gid), code('NOT_COORDINATOR'))

    // Session and rebalance timeouts pass: nothing fires for the dropped group, nothing is written.
    // (The group of partition 2 heartbeats on and is untouched.)
    for (let i = 0; i < 8; i++) {
      await h.advance(SESSION_MS / 2)
      assert.equal(k.heartbeat(), 0)
    }
    assert.equal(h.persistence.records.length, written)
    assert.equal(h.coordinator.groupState(kept), 'Stable')
  })

  it('a resignation while the partition loads discards the load; a later election loads again', async () => {
    const persistence = new MemoryGroupPersistence(PARTITIONS)
    const gid = groupIn(1)
    await persistence.storeOffsets(gid, [
      { topic: 't', partition: 0, value: { offset: 7, leaderEpoch: -1, metadata: '', commitTimestampMs: 1, expireTimestampMs: -1 } },
    ])
    const h = setupElected(persistence)
    persistence.holdLoads()
    const first = h.coordinator.onElection(1, 1)
    await flush()
    h.coordinator.onResignation(1, 2)
    persistence.releaseLoads()
    await first
    assert.equal(await answers(h, gid), code('NOT_COORDINATOR'))
    assert.deepEqual(h.coordinator.ownedPartitions(), [])
    assert.equal(h.coordinator.groupState(gid), undefined)

    await h.coordinator.onElection(1, 3)
    assert.deepEqual(persistence.partitionLoads, [1, 1])
    assert.equal(committed(h, gid).topics[0]!.partitions[0]!.committedOffset, 7)
  })

  it('ignores elections and resignations of an older epoch than the newest one heard', async () => {
    const h = setupElected()
    const gid = groupIn(1)
    await h.coordinator.onElection(1, 5)
    assert.deepEqual(await commit(h, gid, 10), [0])

    // A late resignation of an earlier epoch does not undo the election at 5.
    h.coordinator.onResignation(1, 4)
    assert.deepEqual(h.coordinator.ownedPartitions(), [1])
    assert.equal(committed(h, gid).topics[0]!.partitions[0]!.committedOffset, 10)
    // Nor does a late election of an earlier epoch reload anything.
    await h.coordinator.onElection(1, 4)
    assert.deepEqual(h.persistence.partitionLoads, [1])

    // Resigned at 7: a late election of 6 must not bring the partition back.
    h.coordinator.onResignation(1, 7)
    assert.equal(await answers(h, gid), code('NOT_COORDINATOR'))
    await h.coordinator.onElection(1, 6)
    assert.equal(await answers(h, gid), code('NOT_COORDINATOR'))
    assert.deepEqual(h.persistence.partitionLoads, [1])

    // Elected again at 8: loaded from the log, with what was committed at epoch 5.
    await h.coordinator.onElection(1, 8)
    assert.deepEqual(h.persistence.partitionLoads, [1, 1])
    assert.equal(committed(h, gid).topics[0]!.partitions[0]!.committedOffset, 10)
    // A newer election of a partition still owned (led here throughout) keeps memory as it is.
    await h.coordinator.onElection(1, 9)
    assert.deepEqual(h.persistence.partitionLoads, [1, 1])
    assert.deepEqual(h.coordinator.ownedPartitions(), [1])
    h.coordinator.onResignation(1, 8)
    assert.deepEqual(h.coordinator.ownedPartitions(), [1], 'a resignation of 8 is older than the election at 9')
  })

  it('a load that fails leaves the partition unserved (NOT_COORDINATOR) until a newer election', async () => {
    const persistence = new MemoryGroupPersistence(PARTITIONS)
    const gid = groupIn(0)
    const original = persistence.loadPartition.bind(persistence)
    let fail = true
    persistence.loadPartition = (partition, sink) => (fail ? Promise.reject(new Error('unreadable log')) : original(partition, sink))
    const h = setupElected(persistence)
    await h.coordinator.onElection(0, 1)
    assert.equal(await answers(h, gid), code('NOT_COORDINATOR'))
    fail = false
    await h.coordinator.onElection(0, 1)
    assert.equal(await answers(h, gid), code('NOT_COORDINATOR'), 'the same epoch is not retried')
    await h.coordinator.onElection(0, 2)
    assert.deepEqual(h.coordinator.ownedPartitions(), [0])
    assert.deepEqual(await commit(h, gid, 3), [0])
  })
})
