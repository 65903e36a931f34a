// Consumer-protocol groups made durable (src/coordinator/group/consumer/durable-groups.ts,
// group-log.ts) through the group coordinator over the in-memory persistence, on a ManualClock:
// heartbeats answered once their records are written, a second coordinator that loads the same
// records carrying on with the members' epochs, tombstones for members gone and deleted groups,
// DeleteGroups/OffsetDelete on a consumer group, and the conversions between empty classic and
// empty consumer groups.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { toWire } from '../../../../src/coordinator/group/consumer/assignment.js'
import { ConsumerGroupLog, ConsumerGroupReplay } from '../../../../src/coordinator/group/consumer/group-log.js'
import { decodeKey, encodeKey, replayGroups } from '../../../../src/coordinator/group/consumer/records.js'
import { DurableConsumerGroups } from '../../../../src/coordinator/group/consumer/durable-groups.js'
import { DEFAULT_GROUP_COORDINATOR_CONFIG, GroupCoordinator } from '../../../../src/coordinator/group/group-coordinator.js'
import { MemoryGroupPersistence } from '../../../../src/coordinator/group/memory-persistence.js'
import { ConsumerGroups } from '../../../../src/coordinator/group/consumer/consumer-groups.js'
import { KafkaError } from '../../../../src/protocol/errors.js'
import type { ConsumerGroupHeartbeatRequestData } from '../../../../src/protocol/messages/68-consumer-group-heartbeat.js'
import { ManualClock } from '../../../../src/util/clock.js'
import { silentLogger } from '../../../../src/util/logger.js'
import { decodeAssignment, encodeAssignment, encodeSubscription } from '../../../../src/protocol/consumer-protocol.js'
import { code, commitParams, electAll, flush, joinParams, TestMember, track } from '../group-helpers.js'

const T_ID = 'AQIDBAUGBwgJCgsMDQ4PEA'
const U_ID = 'EBAPDg0MCwoJCAcGBQQDAg'
const topics = () =>
  new Map([
    ['T', { id: T_ID, partitions: 4 }],
    ['U', { id: U_ID, partitions: 1 }],
  ])
const client = { clientId: 'c', clientHost: '/h' }

const join = (memberId: string, o: Partial<ConsumerGroupHeartbeatRequestData> = {}): ConsumerGroupHeartbeatRequestData => ({
  groupId: 'g',
  memberId,
  memberEpoch: 0,
  instanceId: null,
  rackId: null,
  rebalanceTimeoutMs: 30000,
  subscribedTopicNames: ['T'],
  subscribedTopicRegex: null,
  serverAssignor: null,
  topicPartitions: [],
  ...o,
})

/** A heartbeat that changes nothing but reports what the member owns. */
const beat = (memberId: string, memberEpoch: number, owned: ReturnType<typeof toWire>): ConsumerGroupHeartbeatRequestData => ({
  ...join(memberId),
  memberEpoch,
  rebalanceTimeoutMs: -1,
  subscribedTopicNames: null,
  topicPartitions: owned,
})

async function coordinator(persistence = new MemoryGroupPersistence(), clock = new ManualClock()) {
  const c = new GroupCoordinator({ clock, logger: silentLogger, persistence, config: DEFAULT_GROUP_COORDINATOR_CONFIG, topics })
  await electAll(c, persistence)
  return { c, clock, persistence }
}

/** The consumer-group records written so far, as [type, member, tombstone?]. */
function written(p: MemoryGroupPersistence): Array<[number, string | undefined, boolean]> {
  const out: Array<[number, string | undefined, boolean]> = []
  for (const r of p.records) {
    if (r.kind !== 'consumer') continue
    for (const rec of r.records) {
      const k = decodeKey(rec.key)
      out.push([k.type, k.member, rec.value === null])
    }
  }
  return out
}

/** Joins members a and b and lets them reconcile until both are stable at the same epoch. */
async function twoStable(c: GroupCoordinator) {
  const a1 = await c.consumerGroupHeartbeat(join('a'), 1, client)
  const b1 = await c.consumerGroupHeartbeat(join('b'), 1, client)
  // a must give up half; it reports owning only what it keeps, then b picks those up.
  const a2 = await c.consumerGroupHeartbeat(beat('a', a1.memberEpoch, a1.assignment!.topicPartitions), 1, client)
  const a3 = await c.consumerGroupHeartbeat(beat('a', a2.memberEpoch, a2.assignment!.topicPartitions), 1, client)
  const b2 = await c.consumerGroupHeartbeat(beat('b', b1.memberEpoch, []), 1, client)
  return { a: a3, b: b2 }
}

describe('durable consumer groups: write, then answer', () => {
  it('a join writes the member, its target and current assignment, then the group; a heartbeat changing nothing writes nothing', async () => {
    const { c, persistence } = await coordinator()
    const r = await c.consumerGroupHeartbeat(join('a'), 1, client)
    assert.equal(r.errorCode, 0)
    assert.deepEqual(written(persistence), [
      [5, 'a', false],
      [7, 'a', false],
      [8, 'a', false],
      [6, undefined, false],
      [3, undefined, false],
    ])
    const n = persistence.records.length
    const again = await c.consumerGroupHeartbeat(beat('a', r.memberEpoch, r.assignment!.topicPartitions), 1, client)
    assert.equal(again.errorCode, 0)
    assert.equal(persistence.records.length, n)
  })

  it('answers only once the records are durable', async () => {
    const { c, persistence } = await coordinator()
    persistence.pause()
    const pending = track(c.consumerGroupHeartbeat(join('a'), 1, client))
    await flush()
    assert.equal(pending.done, false)
    persistence.resume()
    assert.equal((await pending.promise).memberEpoch, 1)
  })

  it('a failed write is answered with the store error, and its records are written again with the next change', async () => {
    const { c, persistence } = await coordinator()
    persistence.failNext(new KafkaError('NOT_COORDINATOR', 'moved'))
    const r = await c.consumerGroupHeartbeat(join('a'), 1, client)
    assert.equal(r.errorCode, code('NOT_COORDINATOR'))
    assert.equal(written(persistence).length, 0)
    // The retry at epoch 0 starts the member over; everything is written this time.
    const retry = await c.consumerGroupHeartbeat(join('a'), 1, client)
    assert.equal(retry.errorCode, 0)
    const types = written(persistence).map(([t]) => t)
    assert.deepEqual(types.sort(), [3, 5, 6, 7, 8])
  })
})

describe('durable consumer groups: another coordinator carries on', () => {
  it('members keep their epochs and assignments and heartbeat on without rejoining', async () => {
    const clock = new ManualClock()
    const first = await coordinator(new MemoryGroupPersistence(), clock)
    const { a, b } = await twoStable(first.c)
    assert.equal(a.memberEpoch, b.memberEpoch)
    const before = first.c.consumerGroupDescribe(['g'])[0]!
    first.c.close()

    const second = await coordinator(first.persistence, clock)
    const after = second.c.consumerGroupDescribe(['g'])[0]!
    assert.deepEqual(after, before)
    const n = first.persistence.records.length
    const ra = await second.c.consumerGroupHeartbeat(beat('a', a.memberEpoch, a.assignment!.topicPartitions), 1, client)
    assert.equal(ra.errorCode, 0)
    assert.equal(ra.memberEpoch, a.memberEpoch)
    assert.equal(first.persistence.records.length, n, 'nothing changed, nothing written')
    // A commit at the member's epoch is accepted by the new coordinator.
    const committed = await second.c.commitOffsets(
      commitParams('g', [{ topic: 'T', partition: 0, offset: 7, leaderEpoch: -1, metadata: null }], {
        memberId: 'a',
        generationId: a.memberEpoch,
        apiVersion: 9,
      }),
    )
    assert.deepEqual(committed, [0])
  })

  it('a member that is gone times out on the new coordinator: tombstoned, and its partitions go to the other', async () => {
    const clock = new ManualClock()
    const first = await coordinator(new MemoryGroupPersistence(), clock)
    const { a } = await twoStable(first.c)
    first.c.close()
    const second = await coordinator(first.persistence, clock)
    // a heartbeats on, b does not.
    for (let t = 0; t < 50_000; t += 5000) {
      clock.advance(5000)
      await second.c.consumerGroupHeartbeat(beat('a', a.memberEpoch, a.assignment!.topicPartitions), 1, client)
    }
    await flush()
    const tombstones = written(first.persistence).filter(([, m, dead]) => dead && m === 'b')
    assert.deepEqual(tombstones.map(([t]) => t).sort(), [5, 7, 8])
    const r = await second.c.consumerGroupHeartbeat(beat('a', a.memberEpoch, a.assignment!.topicPartitions), 1, client)
    assert.equal(r.assignment!.topicPartitions[0]!.partitions.length, 4)

    // A third coordinator sees only a.
    second.c.close()
    const third = await coordinator(first.persistence, clock)
    assert.deepEqual(
      third.c.consumerGroupDescribe(['g'])[0]!.members.map((m) => m.memberId),
      ['a'],
    )
  })

  it('a static member that left keeps its assignment across the move and gets it back when it rejoins', async () => {
    const clock = new ManualClock()
    const first = await coordinator(new MemoryGroupPersistence(), clock)
    const s1 = await first.c.consumerGroupHeartbeat(join('s1', { instanceId: 'i' }), 1, client)
    const held = s1.assignment!.topicPartitions
    await first.c.consumerGroupHeartbeat({ ...beat('s1', -2, held), instanceId: 'i' }, 1, client)
    first.c.close()
    const second = await coordinator(first.persistence, clock)
    const s2 = await second.c.consumerGroupHeartbeat(join('s2', { instanceId: 'i' }), 1, client)
    assert.equal(s2.errorCode, 0)
    assert.equal(s2.memberEpoch, s1.memberEpoch)
    assert.deepEqual(s2.assignment!.topicPartitions, held)
  })
})

describe('durable consumer groups: admin', () => {
  it('DeleteGroups: NON_EMPTY_GROUP with members; once empty, its records and offsets are tombstoned', async () => {
    const { c, persistence, clock } = await coordinator()
    const a = await c.consumerGroupHeartbeat(join('a'), 1, client)
    const commit = commitParams('g', [{ topic: 'T', partition: 0, offset: 3, leaderEpoch: -1, metadata: null }], {
      memberId: 'a',
      generationId: a.memberEpoch,
      apiVersion: 9,
    })
    assert.deepEqual(await c.commitOffsets(commit), [0])
    assert.deepEqual(await c.deleteGroups(['g']), [{ groupId: 'g', errorCode: code('NON_EMPTY_GROUP') }])
    await c.consumerGroupHeartbeat({ ...beat('a', -1, []), topicPartitions: null }, 1, client)
    assert.equal(c.listGroups({ states: ['empty'], types: ['consumer'] }).groups.length, 1)
    assert.deepEqual(await c.deleteGroups(['g']), [{ groupId: 'g', errorCode: 0 }])
    const last = written(persistence).slice(-2)
    assert.deepEqual(last, [
      [6, undefined, true],
      [3, undefined, true],
    ])
    assert.deepEqual(c.listGroups({ states: [], types: [] }).groups, [])
    assert.deepEqual(await c.deleteGroups(['g']), [{ groupId: 'g', errorCode: code('GROUP_ID_NOT_FOUND') }])
    c.close()
    const again = await coordinator(persistence, clock)
    assert.equal(again.c.consumerGroupDescribe(['g'])[0]!.errorCode, code('GROUP_ID_NOT_FOUND'))
    assert.equal(again.c.fetchOffsets('g', [{ name: 'T', partitions: [0] }], false).topics[0]!.partitions[0]!.committedOffset, -1)
  })

  it('OffsetDelete: GROUP_SUBSCRIBED_TO_TOPIC for a subscribed topic, deleted for another', async () => {
    const { c } = await coordinator()
    const a = await c.consumerGroupHeartbeat(join('a'), 1, client)
    const offsets = [
      { topic: 'T', partition: 0, offset: 3, leaderEpoch: -1, metadata: null },
      { topic: 'U', partition: 0, offset: 5, leaderEpoch: -1, metadata: null },
    ]
    assert.deepEqual(
      await c.commitOffsets(commitParams('g', offsets, { memberId: 'a', generationId: a.memberEpoch, apiVersion: 9 })),
      [0, 0],
    )
    const r = await c.deleteOffsets('g', [
      { name: 'T', partitions: [0] },
      { name: 'U', partitions: [0] },
    ])
    assert.equal(r.errorCode, 0)
    assert.deepEqual(
      r.topics.map((t) => [t.name, t.partitions[0]!.errorCode]),
      [
        ['T', code('GROUP_SUBSCRIBED_TO_TOPIC')],
        ['U', 0],
      ],
    )
    const fetched = c.fetchOffsets('g', null, false).topics.map((t) => t.name)
    assert.deepEqual(fetched, ['T'])
  })

  it('ListGroups types and states; DescribeGroups answers a consumer group as not a classic one', async () => {
    const { c } = await coordinator()
    await c.consumerGroupHeartbeat(join('a'), 1, client)
    assert.deepEqual(c.listGroups({ states: ['stable'], types: ['consumer'] }).groups, [
      { groupId: 'g', protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' },
    ])
    assert.deepEqual(c.listGroups({ states: ['empty'], types: [] }).groups, [])
    const d = c.describeGroups(['g'])[0]!
    assert.equal(d.errorCode, code('GROUP_ID_NOT_FOUND'))
    assert.equal(d.groupState, 'Dead')
  })
})

describe('durable consumer groups: classic ↔ consumer', () => {
  it('an empty classic group with offsets becomes a consumer group on the first heartbeat; its offsets stay', async () => {
    const { c } = await coordinator()
    await c.commitOffsets(commitParams('g', [{ topic: 'T', partition: 1, offset: 9, leaderEpoch: -1, metadata: null }]))
    assert.equal(c.groupState('g'), 'Empty')
    const a = await c.consumerGroupHeartbeat(join('a'), 1, client)
    assert.equal(a.errorCode, 0)
    const fetched = c.fetchOffsets('g', [{ name: 'T', partitions: [1] }], false, { memberId: 'a', memberEpoch: a.memberEpoch })
    assert.equal(fetched.topics[0]!.partitions[0]!.committedOffset, 9)
  })

  it('a classic group of another protocol type, or a heartbeat at a non-zero epoch, is refused (GROUP_ID_NOT_FOUND)', async () => {
    const { c, clock } = await coordinator()
    const joined = c.joinGroup(joinParams('g', { requireKnownMemberId: false, protocolType: 'connect' }))
    clock.advance(3000)
    assert.equal((await joined).errorCode, 0)
    assert.equal((await c.consumerGroupHeartbeat(join('a'), 1, client)).errorCode, code('GROUP_ID_NOT_FOUND'))
  })

  it('an invalid first heartbeat on a classic consumer group is refused before anything converts', async () => {
    const { c, clock } = await coordinator()
    const joined = c.joinGroup(joinParams('g', { requireKnownMemberId: false }))
    clock.advance(3000)
    assert.equal((await joined).errorCode, 0)
    const r = await c.consumerGroupHeartbeat({ ...join('a'), rebalanceTimeoutMs: -1 }, 1, client)
    assert.equal(r.errorCode, code('INVALID_REQUEST'))
    assert.notEqual(c.groupState('g'), 'Empty')
    assert.equal(c.consumerGroupDescribe(['g'])[0]!.errorCode, code('GROUP_ID_NOT_FOUND'))
  })

  it('upgrade, then downgrade: a classic group gets a consumer-protocol member, its classic members hand partitions over on REBALANCE_IN_PROGRESS; when that member leaves, a classic group rebalances', async () => {
    const { c, clock, persistence } = await coordinator()
    const h = {
      clock,
      persistence,
      coordinator: c,
      advance: async (ms: number) => {
        clock.advance(ms)
        await flush()
      },
    }
    const a = new TestMember(h, 'g', { topics: ['T'] })
    const b = new TestMember(h, 'g', { topics: ['T'] })
    const ja = await a.joinFully()
    const jb = await b.joinFully()
    for (let i = 0; i < 10 && !(ja.done && jb.done); i++) {
      clock.advance(3000)
      await flush()
    }
    assert.deepEqual([ja.value?.errorCode, jb.value?.errorCode], [0, 0])
    const leader = [a, b].find((m) => m.isLeader)!
    const other = leader === a ? b : a
    const assign = [
      { memberId: leader.memberId, assignment: encodeAssignment([{ topic: 'T', partitions: [0, 1] }]) },
      { memberId: other.memberId, assignment: encodeAssignment([{ topic: 'T', partitions: [2, 3] }]) },
    ]
    assert.equal(ja.done && jb.done, true)
    const syncs = [leader.sync(assign), other.sync()]
    await flush()
    assert.deepEqual(
      syncs.map((x) => x.value!.errorCode),
      [0, 0],
    )
    const generation = a.generationId

    // A consumer-protocol member joins: the group is converted, the classic members keep their partitions for now.
    const n1 = await c.consumerGroupHeartbeat(join('n'), 1, client)
    assert.equal(n1.errorCode, 0)
    assert.equal(c.groupState('g'), 'Empty')
    const described = c.consumerGroupDescribe(['g'])[0]!
    assert.equal(described.errorCode, 0)
    assert.deepEqual(described.members.map((m) => m.memberType).sort(), [0, 0, 1])
    assert.equal(n1.assignment!.topicPartitions.length, 0, 'nothing free yet')
    assert.ok(written(persistence).length > 0)
    assert.equal(persistence.lastGroup('g'), null, 'the classic group metadata is tombstoned')

    // Classic heartbeats: behind the target, they are told to rejoin; they do, and sync.
    const owned = new Map<string, number[]>()
    for (const m of [a, b]) {
      assert.equal(m.heartbeat(), code('REBALANCE_IN_PROGRESS'))
      const j = m.join()
      await flush()
      assert.equal(j.value!.errorCode, 0)
      assert.ok(j.value!.generationId > generation)
      assert.equal(j.value!.leader, '')
      const s = m.sync()
      await flush()
      assert.equal(s.value!.errorCode, 0)
      owned.set(
        m.memberId,
        decodeAssignment(s.value!.assignment)!.flatMap((t) => t.partitions),
      )
      assert.equal(m.heartbeat(), 0)
    }
    const n2 = await c.consumerGroupHeartbeat(beat('n', n1.memberEpoch, []), 1, client)
    const mine = n2.assignment!.topicPartitions.flatMap((t) => t.partitions)
    const all = [...mine, ...[...owned.values()].flat()].sort()
    assert.deepEqual(all, [0, 1, 2, 3], 'every partition owned once')
    assert.ok(mine.length >= 1)
    // A classic member commits at its epoch (the generation it got); another generation is ILLEGAL_GENERATION.
    const commit = (generationId: number) =>
      c.commitOffsets(
        commitParams('g', [{ topic: 'T', partition: 0, offset: 1, leaderEpoch: -1, metadata: null }], {
          memberId: a.memberId,
          generationId,
        }),
      )
    assert.deepEqual(await commit(a.generationId), [0])
    assert.deepEqual(await commit(generation), [code('ILLEGAL_GENERATION')])
    // A classic member leaves: it is removed, and its partitions go to the others.
    assert.equal(b.leave(), 0)
    assert.equal(c.consumerGroupDescribe(['g'])[0]!.members.length, 2)

    // Downgrade: the last consumer-protocol member leaves; a classic group is left, rebalancing.
    const left = await c.consumerGroupHeartbeat({ ...beat('n', n2.memberEpoch, []), memberEpoch: -1, topicPartitions: null }, 1, client)
    assert.equal(left.errorCode, 0)
    await flush()
    assert.equal(c.consumerGroupDescribe(['g'])[0]!.errorCode, code('GROUP_ID_NOT_FOUND'))
    assert.equal(c.groupState('g'), 'PreparingRebalance')
    assert.deepEqual(written(persistence).slice(-1), [[3, undefined, true]], 'the consumer group is tombstoned')
    const rejoin = a.join()
    await flush()
    clock.advance(3000)
    await flush()
    assert.equal(rejoin.value?.errorCode, 0)
    assert.equal(rejoin.value!.leader, a.memberId)
    assert.equal(c.fetchOffsets('g', [{ name: 'T', partitions: [0] }], false).topics[0]!.partitions[0]!.committedOffset, 1, 'offsets kept')
  })

  it('JoinGroup: an empty consumer group becomes classic (records tombstoned, offsets kept)', async () => {
    const { c, persistence, clock } = await coordinator()
    const a = await c.consumerGroupHeartbeat(join('a'), 1, client)
    await c.commitOffsets(
      commitParams('g', [{ topic: 'T', partition: 2, offset: 11, leaderEpoch: -1, metadata: null }], {
        memberId: 'a',
        generationId: a.memberEpoch,
        apiVersion: 9,
      }),
    )
    await c.consumerGroupHeartbeat({ ...beat('a', -1, []), topicPartitions: null }, 1, client)
    const joined = c.joinGroup(joinParams('g', { requireKnownMemberId: false }))
    await flush()
    clock.advance(3000)
    assert.equal((await joined).errorCode, 0)
    assert.equal(c.consumerGroupDescribe(['g'])[0]!.errorCode, code('GROUP_ID_NOT_FOUND'))
    assert.equal(c.fetchOffsets('g', [{ name: 'T', partitions: [2] }], false).topics[0]!.partitions[0]!.committedOffset, 11)
    assert.deepEqual(written(persistence).slice(-1), [[3, undefined, true]])
  })

  it('JoinGroup of a new classic member into a consumer group with members: MEMBER_ID_REQUIRED, then a member the server assignor gives partitions', async () => {
    const { c, clock, persistence } = await coordinator()
    const h = { clock, persistence, coordinator: c, advance: async () => {} }
    const a1 = await c.consumerGroupHeartbeat(join('a'), 1, client)
    assert.equal(a1.assignment!.topicPartitions[0]!.partitions.length, 4)
    // Another protocol type, or no protocol, is refused; a consumer one is not.
    const other = await c.joinGroup(joinParams('g', { protocolType: 'connect', topics: ['T'] }))
    assert.equal(other.errorCode, code('INCONSISTENT_GROUP_PROTOCOL'))
    assert.equal((await c.joinGroup(joinParams('g', { protocols: [] }))).errorCode, code('INCONSISTENT_GROUP_PROTOCOL'))

    const k = new TestMember(h, 'g', { topics: ['T'] })
    const first = k.join()
    await flush()
    assert.equal(first.value!.errorCode, code('MEMBER_ID_REQUIRED'))
    assert.notEqual(k.memberId, '')
    const joined = k.join()
    await flush()
    assert.equal(joined.value!.errorCode, 0)
    assert.equal(joined.value!.leader, '', 'no client-side assignment')
    assert.equal(joined.value!.members.length, 0)
    const epoch = joined.value!.generationId
    assert.ok(epoch > a1.memberEpoch, 'the group epoch moved')
    assert.deepEqual(
      c
        .consumerGroupDescribe(['g'])[0]!
        .members.map((m) => [m.memberId === k.memberId ? 'k' : m.memberId, m.memberType])
        .sort(),
      [
        ['a', 1],
        ['k', 0],
      ],
    )
    // Nothing is free yet: a still owns it all. k syncs to nothing, then is told to rejoin.
    const s1 = k.sync()
    await flush()
    assert.equal(s1.value!.errorCode, 0)
    assert.deepEqual(decodeAssignment(s1.value!.assignment), [])
    assert.equal(k.heartbeat(), code('REBALANCE_IN_PROGRESS'))
    // a gives up half.
    const a2 = await c.consumerGroupHeartbeat(beat('a', a1.memberEpoch, a1.assignment!.topicPartitions), 1, client)
    const kept = a2.assignment!.topicPartitions.flatMap((t) => t.partitions)
    assert.equal(kept.length, 2)
    await c.consumerGroupHeartbeat(beat('a', a2.memberEpoch, a2.assignment!.topicPartitions), 1, client)
    const again = k.join()
    await flush()
    assert.equal(again.value!.errorCode, 0)
    const s2 = k.sync()
    await flush()
    const mine = decodeAssignment(s2.value!.assignment)!.flatMap((t) => t.partitions)
    assert.deepEqual([...kept, ...mine].sort(), [0, 1, 2, 3], 'every partition owned once')
    assert.equal(k.heartbeat(), 0)
    // Its records are written as a classic member of the consumer group.
    assert.ok(written(persistence).some(([type, member]) => type === 5 && member === k.memberId))
  })

  it('JoinGroup: a protocol the classic members do not all support is INCONSISTENT_GROUP_PROTOCOL; a static classic member restarting takes its instance id over', async () => {
    const { c, clock, persistence } = await coordinator()
    const h = { clock, persistence, coordinator: c, advance: async () => {} }
    await c.consumerGroupHeartbeat(join('a'), 1, client)
    const s = new TestMember(h, 'g', { topics: ['T'], groupInstanceId: 'i1' })
    const j = s.join()
    await flush()
    assert.equal(j.value!.errorCode, 0, 'a static member gets its id at once')
    const id1 = s.memberId
    const differing = await c.joinGroup(
      joinParams('g', { protocols: [{ name: 'roundrobin', metadata: encodeSubscription(['T']) }], requireKnownMemberId: false }),
    )
    assert.equal(differing.errorCode, code('INCONSISTENT_GROUP_PROTOCOL'))
    // The same instance id with another known member id is fenced; without a member id it replaces.
    const fenced = await c.joinGroup(joinParams('g', { groupInstanceId: 'i1', memberId: 'someone-else', topics: ['T'] }))
    assert.equal(fenced.errorCode, code('FENCED_INSTANCE_ID'))
    const restarted = await c.joinGroup(joinParams('g', { groupInstanceId: 'i1', topics: ['T'] }))
    assert.equal(restarted.errorCode, 0)
    assert.notEqual(restarted.memberId, id1)
    const ids = c.consumerGroupDescribe(['g'])[0]!.members.map((m) => m.memberId)
    assert.deepEqual(ids.sort(), ['a', restarted.memberId].sort())
    assert.equal(s.heartbeat(), code('UNKNOWN_MEMBER_ID'), 'the replaced member id is gone')
  })
})

describe('durable consumer groups: classic members across a coordinator move', () => {
  it('a converted group reloaded elsewhere keeps its classic member as classic: its heartbeat at its generation is served', async () => {
    const first = await coordinator()
    const h = {
      clock: first.clock,
      persistence: first.persistence,
      coordinator: first.c,
      advance: async (ms: number) => {
        first.clock.advance(ms)
        await flush()
      },
    }
    const a = new TestMember(h, 'g', { topics: ['T'] })
    const ja = await a.joinFully()
    for (let i = 0; i < 10 && !ja.done; i++) await h.advance(3000)
    const s = a.sync([{ memberId: a.memberId, assignment: encodeAssignment([{ topic: 'T', partitions: [0, 1, 2, 3] }]) }])
    await flush()
    assert.equal(s.value?.errorCode, 0)
    assert.equal((await first.c.consumerGroupHeartbeat(join('n'), 1, client)).errorCode, 0)
    first.c.close()
    const second = await coordinator(first.persistence, first.clock)
    const types = second.c.consumerGroupDescribe(['g'])[0]!.members.map((m) => [m.memberId, m.memberType])
    assert.deepEqual(types.sort(), [
      [a.memberId, 0],
      ['n', 1],
    ])
    const beatCode = second.c.heartbeat({ groupId: 'g', generationId: a.generationId, memberId: a.memberId, groupInstanceId: null })
    assert.equal(beatCode, code('REBALANCE_IN_PROGRESS'), 'a known classic member, told to rejoin for the new target')
  })
})

describe('consumer group log: image → records → replay → restore', () => {
  it('the replayed group equals the one written, and a log seeded from it has nothing to write', () => {
    const clock = new ManualClock()
    const groups = new ConsumerGroups(clock, topics)
    const log = new ConsumerGroupLog()
    const replay = new ConsumerGroupReplay()
    const write = () => {
      const recs = log.recordsFor('g', groups.image('g'), clock.now())
      log.written('g', recs)
      for (const r of recs) replay.apply(r.key, r.value)
    }
    groups.heartbeat(join('a', { instanceId: 'ia', rackId: 'r1' }), 1, client)
    write()
    groups.heartbeat(join('b', { subscribedTopicNames: [], subscribedTopicRegex: 'T|U' }), 1, client)
    write()
    groups.heartbeat(join('c'), 1, client)
    write()
    groups.heartbeat({ ...beat('c', 0, []), memberEpoch: -1, topicPartitions: null }, 1, client)
    write()
    const image = replayGroups(replay.groups.get('g')!.values()).get('g')!
    const restored = new ConsumerGroups(clock, topics)
    restored.restore(image)
    assert.deepEqual(restored.image('g'), groups.image('g'))
    assert.deepEqual(restored.describe(['g']), groups.describe(['g']))
    const seeded = new ConsumerGroupLog()
    seeded.seed('g', replay.groups.get('g')!.values())
    assert.deepEqual(seeded.recordsFor('g', restored.image('g'), clock.now() + 1000), [])
    // The member that left has no live key.
    assert.ok(![...replay.groups.get('g')!.values()].some((r) => decodeKey(r.key).member === 'c'))
  })
})

describe('durable consumer groups: a record that does not decode', () => {
  it('leaves that group out and installs the others', async () => {
    const clock = new ManualClock()
    const durable = new DurableConsumerGroups({ clock, logger: silentLogger, persistence: new MemoryGroupPersistence(), topics })
    const source = new ConsumerGroups(clock, topics)
    source.heartbeat(join('a', { groupId: 'good' }), 1, client)
    const replay = new ConsumerGroupReplay()
    const log = new ConsumerGroupLog()
    for (const r of log.recordsFor('good', source.image('good'), 0)) replay.apply(r.key, r.value)
    replay.apply(encodeKey({ type: 5, group: 'bad', member: 'm' }), Buffer.from([0, 0, 0xff]))
    assert.equal(durable.install(replay), 1)
    assert.deepEqual([...durable.groups.groups.keys()], ['good'])
  })
})
