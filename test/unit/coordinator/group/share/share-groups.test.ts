// Share groups in the group coordinator (src/coordinator/group/share/share-groups.ts through
// GroupCoordinator): ShareGroupHeartbeat's join, leave, fencing and session timeout, epochs, the
// assignment in the response, ShareGroupDescribe, ListGroups/DescribeGroups/DeleteGroups, the
// clashes with classic and consumer groups, and a share group rebuilt from its records.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ErrorCode } from '../../../../../src/protocol/errors.js'
import { code, joinParams } from '../../group-helpers.js'
import { client, hb, shareSetup, T_ID, U_ID } from './share-helpers.js'

const partitionsOf = (r: { assignment: { topicPartitions: Array<{ topicId: string; partitions: number[] }> } | null }) =>
  r.assignment?.topicPartitions.flatMap((tp) => tp.partitions.map((p) => `${tp.topicId === T_ID ? 'T' : 'U'}-${p}`)) ?? null

describe('share groups: ShareGroupHeartbeat', () => {
  it('a member joins at epoch 0 with its own id and gets every partition; heartbeats keep its epoch and omit an unchanged assignment', async () => {
    const { coordinator: c } = await shareSetup()
    const joined = await c.shareGroupHeartbeat(hb('m1', 0), client)
    assert.equal(joined.errorCode, 0)
    assert.equal(joined.memberId, 'm1')
    assert.equal(joined.memberEpoch, 1)
    assert.equal(joined.heartbeatIntervalMs, 5000)
    assert.deepEqual(partitionsOf(joined), ['T-0', 'T-1', 'T-2'])
    const again = await c.shareGroupHeartbeat(hb('m1', 1), client)
    assert.equal(again.errorCode, 0)
    assert.equal(again.memberEpoch, 1)
    assert.equal(again.assignment, null)
  })

  it('a second member bumps the group epoch; the first picks up its new assignment on its next heartbeat', async () => {
    const { coordinator: c } = await shareSetup()
    await c.shareGroupHeartbeat(hb('m1', 0), client)
    const second = await c.shareGroupHeartbeat(hb('m2', 0), client)
    assert.equal(second.memberEpoch, 2)
    const first = await c.shareGroupHeartbeat(hb('m1', 1), client)
    assert.equal(first.memberEpoch, 2)
    const all = [...partitionsOf(first)!, ...partitionsOf(second)!].sort()
    assert.deepEqual(all, ['T-0', 'T-1', 'T-2'])
    assert.deepEqual([partitionsOf(first)!.length, partitionsOf(second)!.length].sort(), [1, 2])
  })

  it('more members than partitions share them: 5 members on a 1-partition topic all get it', async () => {
    const { coordinator: c } = await shareSetup()
    const ids = ['a', 'b', 'c', 'd', 'e']
    for (const id of ids) await c.shareGroupHeartbeat(hb(id, 0, { subscribedTopicNames: ['U'] }), client)
    for (const id of ids) {
      const epoch = c.shareGroupDescribe(['g'])[0]!.members.find((m) => m.memberId === id)!.memberEpoch
      const r = await c.shareGroupHeartbeat(hb(id, epoch), client)
      assert.equal(r.errorCode, 0)
      assert.equal(r.memberEpoch, 5)
      // Each got the partition on joining; sharing it with later members changes nothing for it.
      assert.equal(r.assignment, null)
    }
    for (const m of c.shareGroupDescribe(['g'])[0]!.members)
      assert.deepEqual(m.assignment.topicPartitions, [{ topicId: U_ID, topicName: 'U', partitions: [0] }])
  })

  it('refuses bad requests with INVALID_REQUEST as Kafka does', async () => {
    const { coordinator: c } = await shareSetup()
    const cases: Array<[Parameters<typeof hb>, string]> = [
      [['', 0], "MemberId can't be empty."],
      [['m', 0, { groupId: '' }], "GroupId can't be empty."],
      [['m', 0, { rackId: ' ' }], "RackId can't be empty."],
      [['m', 0, { subscribedTopicNames: null }], 'SubscribedTopicNames must be set in first request.'],
      [['m', 0, { subscribedTopicNames: [] }], 'SubscribedTopicNames must be set in first request.'],
      [['m', -2], 'MemberEpoch is invalid.'],
      [['m'.repeat(256), 0], 'MemberId must be at most 255 characters.'],
    ]
    for (const [args, message] of cases) {
      const r = await c.shareGroupHeartbeat(hb(...args), client)
      assert.equal(r.errorCode, ErrorCode.INVALID_REQUEST.code, message)
      assert.equal(r.errorMessage, message)
    }
  })

  it('a wrong epoch is FENCED_MEMBER_EPOCH; an unknown member UNKNOWN_MEMBER_ID; a rejoin at 0 starts over', async () => {
    const { coordinator: c } = await shareSetup()
    await c.shareGroupHeartbeat(hb('m1', 0), client)
    assert.equal((await c.shareGroupHeartbeat(hb('m1', 7), client)).errorCode, code('FENCED_MEMBER_EPOCH'))
    assert.equal((await c.shareGroupHeartbeat(hb('m1', 0, { subscribedTopicNames: ['T'] }), client)).memberEpoch, 2)
    assert.equal((await c.shareGroupHeartbeat(hb('m1', 1), client)).errorCode, code('FENCED_MEMBER_EPOCH'))
    assert.equal((await c.shareGroupHeartbeat(hb('zz', 1), client)).errorCode, code('UNKNOWN_MEMBER_ID'))
    assert.equal((await c.shareGroupHeartbeat(hb('zz', 1, { groupId: 'other' }), client)).errorCode, code('UNKNOWN_MEMBER_ID'))
  })

  it('leaving (-1) removes the member and bumps the epoch; leaving twice is UNKNOWN_MEMBER_ID, an unknown group GROUP_ID_NOT_FOUND', async () => {
    const { coordinator: c } = await shareSetup()
    await c.shareGroupHeartbeat(hb('m1', 0), client)
    await c.shareGroupHeartbeat(hb('m2', 0), client)
    const left = await c.shareGroupHeartbeat(hb('m2', -1), client)
    assert.equal(left.errorCode, 0)
    assert.equal(left.memberEpoch, -1)
    const d = c.shareGroupDescribe(['g'])[0]!
    assert.equal(d.groupEpoch, 3)
    assert.deepEqual(
      d.members.map((m) => m.memberId),
      ['m1'],
    )
    assert.equal((await c.shareGroupHeartbeat(hb('m2', -1), client)).errorCode, code('UNKNOWN_MEMBER_ID'))
    assert.equal((await c.shareGroupHeartbeat(hb('m2', -1, { groupId: 'nope' }), client)).errorCode, code('GROUP_ID_NOT_FOUND'))
    const back = await c.shareGroupHeartbeat(hb('m1', 1), client)
    assert.equal(back.memberEpoch, 3)
    // It never picked up the split while m2 was there, so its assignment did not change.
    assert.equal(back.assignment, null)
    assert.deepEqual(c.shareGroupDescribe(['g'])[0]!.members[0]!.assignment.topicPartitions[0]!.partitions, [0, 1, 2])
  })

  it('a member whose session times out is removed; heartbeats keep a session alive (virtual clock)', async () => {
    const h = await shareSetup({ sessionTimeoutMs: 45_000 })
    const c = h.coordinator
    await c.shareGroupHeartbeat(hb('m1', 0), client)
    await c.shareGroupHeartbeat(hb('m2', 0), client)
    for (let i = 0; i < 4; i++) {
      await h.advance(20_000)
      const epoch = c.shareGroupDescribe(['g'])[0]!.members.find((m) => m.memberId === 'm1')!.memberEpoch
      assert.equal((await c.shareGroupHeartbeat(hb('m1', epoch), client)).errorCode, 0)
    }
    const d = c.shareGroupDescribe(['g'])[0]!
    assert.deepEqual(
      d.members.map((m) => m.memberId),
      ['m1'],
    )
    await h.advance(45_000)
    assert.equal(c.shareGroupDescribe(['g'])[0]!.groupState, 'Empty')
  })

  it('a subscription change or a topic gaining partitions bumps the group epoch', async () => {
    const h = await shareSetup()
    const c = h.coordinator
    await c.shareGroupHeartbeat(hb('m1', 0), client)
    const changed = await c.shareGroupHeartbeat(hb('m1', 1, { subscribedTopicNames: ['T', 'U'] }), client)
    assert.equal(changed.memberEpoch, 2)
    assert.deepEqual(partitionsOf(changed), ['T-0', 'T-1', 'T-2', 'U-0'])
    h.topics.set('U', { id: U_ID, partitions: 2 })
    const grown = await c.shareGroupHeartbeat(hb('m1', 2), client)
    assert.equal(grown.memberEpoch, 3)
    assert.deepEqual(partitionsOf(grown), ['T-0', 'T-1', 'T-2', 'U-0', 'U-1'])
  })

  it('group.share.max.size: a member beyond it is GROUP_MAX_SIZE_REACHED', async () => {
    const { coordinator: c } = await shareSetup({ maxSize: 2 })
    await c.shareGroupHeartbeat(hb('a', 0), client)
    await c.shareGroupHeartbeat(hb('b', 0), client)
    assert.equal((await c.shareGroupHeartbeat(hb('c', 0), client)).errorCode, code('GROUP_MAX_SIZE_REACHED'))
  })
})

describe('share groups: describe, list, delete and type clashes', () => {
  it('ShareGroupDescribe: Stable with members and topic names; unknown GROUP_ID_NOT_FOUND; another type "is not a share group."', async () => {
    const { coordinator: c } = await shareSetup()
    await c.shareGroupHeartbeat(hb('m1', 0, { rackId: 'r1' }), client)
    const [d, unknown] = c.shareGroupDescribe(['g', 'nope'])
    assert.equal(d!.errorCode, 0)
    assert.equal(d!.groupState, 'Stable')
    assert.equal(d!.assignorName, 'simple')
    assert.equal(d!.groupEpoch, 1)
    assert.equal(d!.assignmentEpoch, 1)
    assert.deepEqual(d!.members[0], {
      memberId: 'm1',
      rackId: 'r1',
      memberEpoch: 1,
      clientId: 'share-client',
      clientHost: '/127.0.0.1',
      subscribedTopicNames: ['T'],
      assignment: { topicPartitions: [{ topicId: T_ID, topicName: 'T', partitions: [0, 1, 2] }] },
    })
    assert.equal(unknown!.errorCode, code('GROUP_ID_NOT_FOUND'))
  })

  it('a classic group id refuses ShareGroupHeartbeat; a share group id refuses JoinGroup and ConsumerGroupHeartbeat', async () => {
    const { coordinator: c } = await shareSetup()
    await c.commitOffsets({
      groupId: 'classic',
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1,
      offsets: [{ topic: 'T', partition: 0, offset: 1, leaderEpoch: -1, metadata: null }],
      apiVersion: 8,
    })
    const r = await c.shareGroupHeartbeat(hb('m', 0, { groupId: 'classic' }), client)
    assert.equal(r.errorCode, code('GROUP_ID_NOT_FOUND'))
    assert.equal(r.errorMessage, 'Group classic is not a share group.')
    assert.equal(c.shareGroupDescribe(['classic'])[0]!.errorMessage, 'Group classic is not a share group.')

    await c.shareGroupHeartbeat(hb('m1', 0), client)
    const join = await c.joinGroup(joinParams('g', { memberId: '' }))
    assert.equal(join.errorCode, code('GROUP_ID_NOT_FOUND'))
    const cg = await c.consumerGroupHeartbeat(
      {
        groupId: 'g',
        memberId: 'x',
        memberEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: 30000,
        subscribedTopicNames: ['T'],
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: [],
      },
      1,
      client,
    )
    assert.equal(cg.errorCode, code('GROUP_ID_NOT_FOUND'))
    assert.deepEqual(c.describeGroups(['g'])[0], {
      errorCode: 0,
      groupId: 'g',
      groupState: 'Dead',
      protocolType: '',
      protocolData: '',
      members: [],
    })
  })

  it('ListGroups shows share groups with type "share", and filters by type and state', async () => {
    const { coordinator: c } = await shareSetup()
    await c.shareGroupHeartbeat(hb('m1', 0), client)
    await c.shareGroupHeartbeat(hb('x', 0, { groupId: 'idle' }), client)
    await c.shareGroupHeartbeat(hb('x', -1, { groupId: 'idle' }), client)
    const all = c.listGroups({ states: [], types: [] }).groups
    assert.deepEqual(
      all.filter((g) => g.groupType === 'share').sort((a, b) => a.groupId.localeCompare(b.groupId)),
      [
        { groupId: 'g', protocolType: 'share', groupState: 'Stable', groupType: 'share' },
        { groupId: 'idle', protocolType: 'share', groupState: 'Empty', groupType: 'share' },
      ],
    )
    assert.deepEqual(
      c.listGroups({ states: ['empty'], types: ['Share'] }).groups.map((g) => g.groupId),
      ['idle'],
    )
    assert.deepEqual(c.listGroups({ states: [], types: ['classic'] }).groups, [])
  })

  it('DeleteGroups: a share group with members is NON_EMPTY_GROUP; an empty one goes, its share state deleted', async () => {
    const h = await shareSetup()
    const c = h.coordinator
    await c.shareGroupHeartbeat(hb('m1', 0), client)
    assert.deepEqual(await c.deleteGroups(['g']), [{ groupId: 'g', errorCode: code('NON_EMPTY_GROUP') }])
    await c.shareGroupHeartbeat(hb('m1', -1), client)
    assert.deepEqual(await c.deleteGroups(['g']), [{ groupId: 'g', errorCode: 0 }])
    assert.deepEqual(
      h.state.calls.sort(),
      [0, 1, 2].map((p) => `delete g:${T_ID}:${p}`),
    )
    assert.equal(c.shareGroupDescribe(['g'])[0]!.errorCode, code('GROUP_ID_NOT_FOUND'))
    // Gone after a restart too (its tombstones were written).
    const again = await h.restart()
    assert.equal(again.shareGroupDescribe(['g'])[0]!.errorCode, code('GROUP_ID_NOT_FOUND'))
  })
})

describe('share groups: records', () => {
  it('a restarted coordinator rebuilds the group from __consumer_offsets: members heartbeat on with their epochs', async () => {
    const h = await shareSetup()
    await h.coordinator.shareGroupHeartbeat(hb('m1', 0), client)
    await h.coordinator.shareGroupHeartbeat(hb('m2', 0, { subscribedTopicNames: ['T', 'U'] }), client)
    const before = h.coordinator.shareGroupDescribe(['g'])[0]!
    const c = await h.restart()
    const after = c.shareGroupDescribe(['g'])[0]!
    assert.deepEqual(after, before)
    const r = await c.shareGroupHeartbeat(hb('m2', 2), client)
    assert.equal(r.errorCode, 0)
    assert.equal(r.assignment, null)
    // Members that are gone expire on the new coordinator's clock.
    await h.advance(45_000)
    assert.equal(c.shareGroupDescribe(['g'])[0]!.groupState, 'Empty')
  })

  it('a load without the share group records knows nothing of the group, and a failed write answers its error', async () => {
    const h = await shareSetup()
    h.persistence.failNext(Object.assign(new Error('not leader'), { errorName: 'NOT_COORDINATOR' }))
    const r = await h.coordinator.shareGroupHeartbeat(hb('m1', 0), client)
    assert.equal(r.errorCode, code('NOT_COORDINATOR'))
    const c = await h.restart()
    assert.equal(c.shareGroupDescribe(['g'])[0]!.errorCode, code('GROUP_ID_NOT_FOUND'))
  })

  it('a coordinator that does not own the partition answers NOT_COORDINATOR', async () => {
    const h = await shareSetup()
    h.coordinator.onResignation(h.persistence.partitionFor('g'), 1)
    assert.equal((await h.coordinator.shareGroupHeartbeat(hb('m1', 0), client)).errorCode, code('NOT_COORDINATOR'))
    assert.equal(h.coordinator.shareGroupDescribe(['g'])[0]!.errorCode, code('NOT_COORDINATOR'))
  })
})
