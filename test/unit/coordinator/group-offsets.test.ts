// Committed offsets: commit rules, fetch, retention, OffsetDelete, DeleteGroups, durability
// through the persistence port, and restoring everything with load().
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { encodeSubscription } from '../../../src/protocol/consumer-protocol.js'
import type { CommitOffsetsParams } from '../../../src/ports/groups.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import { code, commitParams, electAll, flush, formGroup, type Harness, SESSION_MS, setup, TestMember } from './group-helpers.js'

const DAY_MS = 24 * 60 * 60 * 1000

function commit(h: Harness, p: Partial<CommitOffsetsParams> & { groupId: string }, offsets: Array<[string, number, number, string?]>) {
  const list = offsets.map(([topic, partition, offset, metadata]) => ({
    topic,
    partition,
    offset,
    leaderEpoch: 3,
    metadata: metadata ?? null,
  }))
  return h.coordinator.commitOffsets(commitParams(p.groupId, list, p))
}

const committed = (h: Harness, groupId: string, topic: string, partition: number) =>
  h.coordinator.fetchOffsets(groupId, [{ name: topic, partitions: [partition] }], false).topics[0]!.partitions[0]!

describe('group coordinator: offset commits', () => {
  it('commits for an unknown or Empty group with generation -1 (simple consumers, admin resets)', async () => {
    const h = await setup()
    assert.deepEqual(await commit(h, { groupId: 'admin' }, [['t', 0, 42, 'reset']]), [0])
    assert.equal(h.coordinator.groupState('admin'), 'Empty')
    assert.deepEqual(committed(h, 'admin', 't', 0), {
      partitionIndex: 0,
      committedOffset: 42,
      committedLeaderEpoch: 3,
      metadata: 'reset',
      errorCode: 0,
    })
    // A group whose members all left is Empty: resets work there too.
    const m = new TestMember(h, 'g')
    await formGroup(h, [m])
    assert.deepEqual(await commit(h, { groupId: 'g' }, [['t', 0, 7]]), [code('UNKNOWN_MEMBER_ID')], 'not while it has members')
    m.leave()
    await flush()
    assert.deepEqual(await commit(h, { groupId: 'g' }, [['t', 0, 7]]), [0])
    assert.equal(committed(h, 'g', 't', 0).committedOffset, 7)
    assert.equal(committed(h, 'g', 't', 0).metadata, '', 'null metadata is stored as ""')
  })

  it('ILLEGAL_GENERATION for a stale generation; UNKNOWN_MEMBER_ID from a non-member', async () => {
    const h = await setup()
    const a = new TestMember(h, 'g')
    const b = new TestMember(h, 'g')
    const generation = await formGroup(h, [a, b])
    assert.deepEqual(await commit(h, { groupId: 'g', generationId: generation, memberId: a.memberId }, [['t', 0, 1]]), [0])
    assert.deepEqual(await commit(h, { groupId: 'g', generationId: generation - 1, memberId: a.memberId }, [['t', 0, 2]]), [
      code('ILLEGAL_GENERATION'),
    ])
    assert.deepEqual(await commit(h, { groupId: 'g', generationId: generation, memberId: 'stranger' }, [['t', 0, 3]]), [
      code('UNKNOWN_MEMBER_ID'),
    ])
    assert.equal(committed(h, 'g', 't', 0).committedOffset, 1)
    // Unknown group with a generation: ILLEGAL_GENERATION before v9, GROUP_ID_NOT_FOUND from v9.
    assert.deepEqual(await commit(h, { groupId: 'nope', generationId: 3, memberId: 'm', apiVersion: 8 }, [['t', 0, 1]]), [
      code('ILLEGAL_GENERATION'),
    ])
    assert.deepEqual(await commit(h, { groupId: 'nope', generationId: 3, memberId: 'm', apiVersion: 9 }, [['t', 0, 1]]), [
      code('GROUP_ID_NOT_FOUND'),
    ])
  })

  it('REBALANCE_IN_PROGRESS while CompletingRebalance; allowed while PreparingRebalance', async () => {
    const h = await setup()
    const a = new TestMember(h, 'g')
    const generation = await formGroup(h, [a])
    const b = new TestMember(h, 'g')
    await b.joinFully()
    assert.equal(h.coordinator.groupState('g'), 'PreparingRebalance')
    assert.deepEqual(await commit(h, { groupId: 'g', generationId: generation, memberId: a.memberId }, [['t', 0, 5]]), [0])
    a.join()
    await flush()
    assert.equal(h.coordinator.groupState('g'), 'CompletingRebalance')
    assert.deepEqual(await commit(h, { groupId: 'g', generationId: a.generationId, memberId: a.memberId }, [['t', 0, 6]]), [
      code('REBALANCE_IN_PROGRESS'),
    ])
  })

  it('OFFSET_METADATA_TOO_LARGE past offset.metadata.max.bytes, for that partition only', async () => {
    const h = await setup({ offsetMetadataMaxBytes: 10 })
    const codes = await commit(h, { groupId: 'g' }, [
      ['t', 0, 1, 'x'.repeat(10)],
      ['t', 1, 1, 'x'.repeat(11)],
    ])
    assert.deepEqual(codes, [0, code('OFFSET_METADATA_TOO_LARGE')])
    assert.equal(committed(h, 'g', 't', 0).metadata, 'x'.repeat(10))
    assert.equal(committed(h, 'g', 't', 1).committedOffset, -1)
  })

  it('persists a commit with one storeOffsets before answering; a failed write answers its code', async () => {
    const h = await setup()
    h.persistence.pause()
    let answered = false
    const p = commit(h, { groupId: 'g' }, [
      ['t', 0, 10],
      ['t', 1, 11],
    ]).then((r) => {
      answered = true
      return r
    })
    await flush()
    assert.equal(answered, false)
    assert.equal(committed(h, 'g', 't', 0).committedOffset, -1, 'not visible before it is durable')
    h.persistence.resume()
    assert.deepEqual(await p, [0, 0])
    const writes = h.persistence.records.filter((r) => r.kind === 'offsets')
    assert.equal(writes.length, 1)
    h.persistence.failNext(new KafkaError('NOT_COORDINATOR'))
    assert.deepEqual(await commit(h, { groupId: 'g' }, [['t', 0, 12]]), [code('NOT_COORDINATOR')])
    assert.equal(committed(h, 'g', 't', 0).committedOffset, 10)
  })

  it('OffsetFetch: -1 for partitions without a commit; null topics = everything committed', async () => {
    const h = await setup()
    await commit(h, { groupId: 'g' }, [
      ['b', 1, 5],
      ['a', 0, 3],
      ['b', 0, 4],
    ])
    assert.deepEqual(committed(h, 'g', 'c', 0), {
      partitionIndex: 0,
      committedOffset: -1,
      committedLeaderEpoch: -1,
      metadata: '',
      errorCode: 0,
    })
    const all = h.coordinator.fetchOffsets('g', null, true)
    assert.equal(all.errorCode, 0)
    assert.deepEqual(
      all.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.committedOffset])]),
      [
        ['a', [[0, 3]]],
        [
          'b',
          [
            [0, 4],
            [1, 5],
          ],
        ],
      ],
    )
    assert.deepEqual(h.coordinator.fetchOffsets('unknown', null, false), { errorCode: 0, topics: [] })
  })
})

describe('group coordinator: retention, deletion, restore', () => {
  it('expires the offsets of a group empty for offsets.retention.minutes, on the periodic check', async () => {
    const HOUR_MS = 60 * 60 * 1000
    const h = await setup({ offsetsRetentionMs: HOUR_MS, offsetsRetentionCheckIntervalMs: 60_000 })
    const m = new TestMember(h, 'g')
    const generation = await formGroup(h, [m])
    await commit(h, { groupId: 'g', generationId: generation, memberId: m.memberId }, [['t', 0, 9]])
    // While it has members, the group keeps its offsets however old the commit.
    for (let t = 0; t < 2 * HOUR_MS; t += SESSION_MS / 2) {
      assert.equal(m.heartbeat(), 0)
      await h.advance(SESSION_MS / 2)
    }
    assert.equal(committed(h, 'g', 't', 0).committedOffset, 9)
    m.leave()
    await flush()
    await h.advance(HOUR_MS - 60_000)
    assert.equal(committed(h, 'g', 't', 0).committedOffset, 9, 'not yet: empty for less than the retention')
    await h.advance(2 * 60_000)
    assert.equal(committed(h, 'g', 't', 0).committedOffset, -1)
    const last = h.persistence.records.filter((r) => r.kind === 'offsets').at(-1)
    assert.deepEqual(last && last.kind === 'offsets' && last.entries, [{ topic: 't', partition: 0, value: null }])
    // An empty group left without offsets is forgotten, with a tombstone.
    assert.equal(h.coordinator.groupState('g'), undefined)
    assert.equal(h.persistence.lastGroup('g'), null)
  })

  it('expires a simple consumer group’s offsets retention after each commit', async () => {
    const h = await setup({ offsetsRetentionMs: DAY_MS, offsetsRetentionCheckIntervalMs: 60_000 })
    await commit(h, { groupId: 's' }, [['t', 0, 1]])
    await h.advance(DAY_MS / 2)
    await commit(h, { groupId: 's' }, [['t', 1, 1]])
    await h.advance(DAY_MS / 2 + 60_000)
    assert.equal(committed(h, 's', 't', 0).committedOffset, -1)
    assert.equal(committed(h, 's', 't', 1).committedOffset, 1)
    assert.equal(await h.coordinator.expireOffsets(), 0)
  })

  it('DeleteGroups: NON_EMPTY_GROUP with members, GROUP_ID_NOT_FOUND when unknown, tombstones when Empty', async () => {
    const h = await setup()
    const m = new TestMember(h, 'g')
    const generation = await formGroup(h, [m])
    await commit(h, { groupId: 'g', generationId: generation, memberId: m.memberId }, [
      ['t', 0, 1],
      ['u', 0, 2],
    ])
    assert.deepEqual(await h.coordinator.deleteGroups(['g', 'nope']), [
      { groupId: 'g', errorCode: code('NON_EMPTY_GROUP') },
      { groupId: 'nope', errorCode: code('GROUP_ID_NOT_FOUND') },
    ])
    m.leave()
    await flush()
    const before = h.persistence.records.length
    assert.deepEqual(await h.coordinator.deleteGroups(['g']), [{ groupId: 'g', errorCode: 0 }])
    assert.equal(h.coordinator.groupState('g'), undefined)
    assert.equal(committed(h, 'g', 't', 0).committedOffset, -1)
    const written = h.persistence.records.slice(before)
    assert.deepEqual(
      written.map((r) =>
        r.kind === 'offsets'
          ? r.entries.map((e) => `${e.topic}-${e.partition}:${e.value}`)
          : r.kind === 'group'
            ? `group:${r.snapshot}`
            : r.kind,
      ),
      [['t-0:null', 'u-0:null'], 'group:null'],
    )
    assert.equal(h.coordinator.describeGroups(['g'])[0]!.groupState, 'Dead')
    assert.deepEqual(await h.coordinator.deleteGroups(['g']), [{ groupId: 'g', errorCode: code('GROUP_ID_NOT_FOUND') }])
  })

  it('OffsetDelete: GROUP_ID_NOT_FOUND; GROUP_SUBSCRIBED_TO_TOPIC for subscribed topics of a live group', async () => {
    const h = await setup()
    assert.equal((await h.coordinator.deleteOffsets('nope', [{ name: 't', partitions: [0] }])).errorCode, code('GROUP_ID_NOT_FOUND'))
    const m = new TestMember(h, 'g', { protocols: [{ name: 'range', metadata: encodeSubscription(['t', 'v']) }] })
    const generation = await formGroup(h, [m])
    await commit(h, { groupId: 'g', generationId: generation, memberId: m.memberId }, [
      ['t', 0, 1],
      ['u', 0, 2],
      ['u', 1, 3],
    ])
    const r = await h.coordinator.deleteOffsets('g', [
      { name: 't', partitions: [0] },
      { name: 'u', partitions: [0] },
    ])
    assert.deepEqual(r, {
      errorCode: 0,
      topics: [
        { name: 't', partitions: [{ partitionIndex: 0, errorCode: code('GROUP_SUBSCRIBED_TO_TOPIC') }] },
        { name: 'u', partitions: [{ partitionIndex: 0, errorCode: 0 }] },
      ],
    })
    assert.equal(committed(h, 'g', 't', 0).committedOffset, 1)
    assert.equal(committed(h, 'g', 'u', 0).committedOffset, -1)
    assert.equal(committed(h, 'g', 'u', 1).committedOffset, 3)
    // Once the group is empty, every offset may go.
    m.leave()
    await flush()
    const r2 = await h.coordinator.deleteOffsets('g', [{ name: 't', partitions: [0] }])
    assert.equal(r2.topics[0]!.partitions[0]!.errorCode, 0)
    assert.equal(committed(h, 'g', 't', 0).committedOffset, -1)
  })

  it('OffsetDelete: NON_EMPTY_GROUP for a live group of another protocol type', async () => {
    const h = await setup()
    const m = new TestMember(h, 'c', { protocolType: 'connect', protocols: [{ name: 'default', metadata: Buffer.from('x') }] })
    await formGroup(h, [m])
    assert.equal((await h.coordinator.deleteOffsets('c', [{ name: 't', partitions: [0] }])).errorCode, code('NON_EMPTY_GROUP'))
  })

  it('load() restores groups and offsets from the persistence: Stable with fresh sessions, Empty, offsets only', async () => {
    const h = await setup()
    const a = new TestMember(h, 'live', { groupInstanceId: 'ia' })
    const b = new TestMember(h, 'live')
    const generation = await formGroup(h, [a, b])
    await commit(h, { groupId: 'live', generationId: generation, memberId: a.memberId }, [['t', 0, 100, 'meta']])
    const e = new TestMember(h, 'emptied')
    await formGroup(h, [e])
    await commit(h, { groupId: 'emptied', generationId: e.generationId, memberId: e.memberId }, [['t', 1, 5]])
    e.leave()
    await commit(h, { groupId: 'simple' }, [
      ['t', 2, 7],
      ['t', 3, 8],
    ])
    await h.coordinator.deleteOffsets('simple', [{ name: 't', partitions: [3] }])
    await flush()
    h.coordinator.close()

    const h2 = await setup({}, h.persistence)
    assert.equal(h2.coordinator.groupState('live'), 'Stable')
    assert.equal(h2.coordinator.groupState('emptied'), 'Empty')
    assert.equal(h2.coordinator.groupState('simple'), 'Empty')
    assert.deepEqual(committed(h2, 'live', 't', 0), {
      partitionIndex: 0,
      committedOffset: 100,
      committedLeaderEpoch: 3,
      metadata: 'meta',
      errorCode: 0,
    })
    assert.equal(committed(h2, 'emptied', 't', 1).committedOffset, 5)
    assert.equal(committed(h2, 'simple', 't', 2).committedOffset, 7)
    assert.equal(committed(h2, 'simple', 't', 3).committedOffset, -1, 'a tombstone replays as a deletion')
    const d = h2.coordinator.describeGroups(['live'])[0]!
    assert.equal(d.protocolData, 'range')
    assert.deepEqual(new Set(d.members.map((m) => m.memberId)), new Set([a.memberId, b.memberId]))
    for (const m of d.members) assert.deepEqual(m.memberAssignment, Buffer.from(`assigned:${m.memberId}`))
    // The members carry on with the same generation...
    const a2 = new TestMember(h2, 'live', { groupInstanceId: 'ia' })
    Object.assign(a2, { memberId: a.memberId, generationId: generation })
    assert.equal(a2.heartbeat(), 0)
    const s = a2.sync()
    await flush()
    assert.deepEqual(s.value!.assignment, Buffer.from(`assigned:${a.memberId}`))
    // ...and the one that did not come back times out, which rebalances the group.
    await h2.advance(SESSION_MS / 2)
    assert.equal(a2.heartbeat(), 0)
    await h2.advance(SESSION_MS / 2 + 1)
    assert.equal(a2.heartbeat(), code('REBALANCE_IN_PROGRESS'))
  })

  it('answers COORDINATOR_LOAD_IN_PROGRESS while loading and NOT_COORDINATOR after close()', async () => {
    const h = await setup()
    await commit(h, { groupId: 'g' }, [['t', 0, 1]])
    const h2 = await setup({}, h.persistence, { elect: false })
    h.persistence.holdLoads()
    const loading = electAll(h2.coordinator, h.persistence)
    assert.equal(h2.coordinator.fetchOffsets('g', null, false).errorCode, code('COORDINATOR_LOAD_IN_PROGRESS'))
    h.persistence.releaseLoads()
    await loading
    assert.equal(h2.coordinator.fetchOffsets('g', null, false).errorCode, 0)
    // close(): held requests are released with NOT_COORDINATOR.
    const h3 = await setup()
    const n = new TestMember(h3, 'g')
    const j = await n.joinFully()
    h3.coordinator.close()
    await flush()
    assert.equal(j.value!.errorCode, code('NOT_COORDINATOR'))
    assert.equal(
      h3.coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: n.memberId, groupInstanceId: null }),
      code('NOT_COORDINATOR'),
    )
  })

  it('a failed store of the leader’s assignment answers its code to everyone held and starts a rebalance', async () => {
    const h = await setup()
    const a = new TestMember(h, 'g')
    const b = new TestMember(h, 'g')
    const ja = await a.joinFully()
    const jb = await b.joinFully()
    await h.advance(0)
    assert.ok(ja.done && jb.done)
    const [leader, follower] = a.isLeader ? [a, b] : [b, a]
    const fs = follower.sync()
    h.persistence.failNext(new KafkaError('NOT_COORDINATOR'))
    const ls = leader.sync([{ memberId: follower.memberId, assignment: Buffer.from('x') }])
    await flush()
    assert.equal(ls.value!.errorCode, code('NOT_COORDINATOR'))
    assert.equal(fs.value!.errorCode, code('NOT_COORDINATOR'))
    assert.equal(h.coordinator.groupState('g'), 'PreparingRebalance')
  })
})
