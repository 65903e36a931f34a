// Bad input to the group APIs, each answered with the code Kafka clients expect.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { encodeSubscription } from '../../../src/protocol/consumer-protocol.js'
import { MAX_GROUP_ID_LENGTH } from '../../../src/coordinator/group/limits.js'
import { code, flush, formGroup, joinParams, setup, TestMember, track } from './group-helpers.js'

describe('group coordinator: bad input', () => {
  it('INCONSISTENT_GROUP_PROTOCOL: another protocol type, no protocol in common, or none at all', async () => {
    const h = await setup()
    await formGroup(h, [new TestMember(h, 'g')])
    const otherType = await h.coordinator.joinGroup(joinParams('g', { protocolType: 'connect' }))
    assert.equal(otherType.errorCode, code('INCONSISTENT_GROUP_PROTOCOL'))
    const otherProtocol = await h.coordinator.joinGroup(
      joinParams('g', { protocols: [{ name: 'roundrobin', metadata: encodeSubscription(['t']) }] }),
    )
    assert.equal(otherProtocol.errorCode, code('INCONSISTENT_GROUP_PROTOCOL'))
    const none = await h.coordinator.joinGroup(joinParams('new', { protocols: [] }))
    assert.equal(none.errorCode, code('INCONSISTENT_GROUP_PROTOCOL'))
    const noType = await h.coordinator.joinGroup(joinParams('new', { protocolType: '' }))
    assert.equal(noType.errorCode, code('INCONSISTENT_GROUP_PROTOCOL'))
    assert.equal(h.coordinator.groupState('new'), undefined, 'a refused join creates no group')
    // SyncGroup v5 checks the type and name too.
    const m = new TestMember(h, 'h')
    await formGroup(h, [m])
    const bad = await h.coordinator.syncGroup({
      groupId: 'h',
      generationId: m.generationId,
      memberId: m.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: 'roundrobin',
      assignments: [],
    })
    assert.equal(bad.errorCode, code('INCONSISTENT_GROUP_PROTOCOL'))
  })

  it('INVALID_SESSION_TIMEOUT outside [group.min.session.timeout.ms, group.max.session.timeout.ms]', async () => {
    const h = await setup({ minSessionTimeoutMs: 6000, maxSessionTimeoutMs: 60_000 })
    for (const sessionTimeoutMs of [5999, 60_001, 0, -1]) {
      const r = await h.coordinator.joinGroup(joinParams('g', { sessionTimeoutMs }))
      assert.equal(r.errorCode, code('INVALID_SESSION_TIMEOUT'), `session ${sessionTimeoutMs}`)
    }
    for (const sessionTimeoutMs of [6000, 60_000]) {
      const r = await h.coordinator.joinGroup(joinParams('g', { sessionTimeoutMs }))
      assert.equal(r.errorCode, code('MEMBER_ID_REQUIRED'), `session ${sessionTimeoutMs}`)
    }
  })

  it('GROUP_MAX_SIZE_REACHED past group.max.size; a known static instance still gets back in', async () => {
    const h = await setup({ maxGroupSize: 2 })
    const a = new TestMember(h, 'g', { groupInstanceId: 'a' })
    const b = new TestMember(h, 'g')
    await formGroup(h, [a, b])
    const third = await h.coordinator.joinGroup(joinParams('g'))
    assert.equal(third.errorCode, code('GROUP_MAX_SIZE_REACHED'))
    assert.equal(third.memberId, '')
    assert.equal(h.coordinator.groupState('g'), 'Stable', 'the refused member changes nothing')
    const aAgain = await h.coordinator.joinGroup(joinParams('g', { groupInstanceId: 'a' }))
    assert.equal(aAgain.errorCode, 0)
    // During a rebalance, new members count against the members that have rejoined.
    assert.equal(b.leave(), 0)
    const c = new TestMember(h, 'g')
    const d = new TestMember(h, 'g')
    const e = new TestMember(h, 'g')
    const joins = [await c.joinFully(), await d.joinFully(), await e.joinFully()]
    await flush()
    const codes = joins.map((j) => j.value?.errorCode)
    assert.equal(codes.filter((x) => x === code('GROUP_MAX_SIZE_REACHED')).length, 1, `codes ${codes}`)
  })

  it('INVALID_REQUEST for oversized member metadata or too many protocols (our limits)', async () => {
    const h = await setup()
    const big = await h.coordinator.joinGroup(joinParams('g', { protocols: [{ name: 'range', metadata: Buffer.alloc((1 << 20) + 1) }] }))
    assert.equal(big.errorCode, code('INVALID_REQUEST'))
    const atLimit = await h.coordinator.joinGroup(joinParams('g', { protocols: [{ name: 'range', metadata: Buffer.alloc(1 << 20) }] }))
    assert.equal(atLimit.errorCode, code('MEMBER_ID_REQUIRED'))
    const many = Array.from({ length: 101 }, (_, i) => ({ name: `p${i}`, metadata: Buffer.alloc(1) }))
    const tooMany = await h.coordinator.joinGroup(joinParams('g', { protocols: many }))
    assert.equal(tooMany.errorCode, code('INVALID_REQUEST'))
  })

  it('INVALID_GROUP_ID for an empty group id (group APIs) and for one longer than 255 characters (all)', async () => {
    const h = await setup()
    const long = 'x'.repeat(MAX_GROUP_ID_LENGTH + 1)
    const ok = 'x'.repeat(MAX_GROUP_ID_LENGTH)
    const invalid = code('INVALID_GROUP_ID')
    for (const id of ['', long]) {
      assert.equal((await h.coordinator.joinGroup(joinParams(id))).errorCode, invalid)
      assert.equal(
        (
          await h.coordinator.syncGroup({
            groupId: id,
            generationId: 1,
            memberId: 'm',
            groupInstanceId: null,
            protocolType: null,
            protocolName: null,
            assignments: [],
          })
        ).errorCode,
        invalid,
      )
      assert.equal(h.coordinator.heartbeat({ groupId: id, generationId: 1, memberId: 'm', groupInstanceId: null }), invalid)
      assert.equal(h.coordinator.leaveGroup(id, [{ memberId: 'm', groupInstanceId: null, reason: null }]).errorCode, invalid)
      assert.equal((await h.coordinator.deleteOffsets(id, [])).errorCode, invalid)
    }
    assert.equal((await h.coordinator.joinGroup(joinParams(ok))).errorCode, code('MEMBER_ID_REQUIRED'))
    // The offset and admin APIs accept "" (as Kafka, for old tools), but not an absurd id.
    const commit = (groupId: string) =>
      h.coordinator.commitOffsets({
        groupId,
        generationId: -1,
        memberId: '',
        groupInstanceId: null,
        retentionTimeMs: -1,
        offsets: [{ topic: 't', partition: 0, offset: 5, leaderEpoch: -1, metadata: null }],
        apiVersion: 8,
      })
    assert.deepEqual(await commit(''), [0])
    assert.deepEqual(await commit(long), [invalid])
    assert.equal(h.coordinator.fetchOffsets('', null, false).topics[0]!.partitions[0]!.committedOffset, 5)
    assert.equal(h.coordinator.fetchOffsets(long, null, false).errorCode, invalid)
    assert.equal(h.coordinator.describeGroups([long])[0]!.errorCode, invalid)
    assert.deepEqual(await h.coordinator.deleteGroups([long]), [{ groupId: long, errorCode: invalid }])
  })

  it('unknown groups: Heartbeat/SyncGroup/JoinGroup with a member id → UNKNOWN_MEMBER_ID; DescribeGroups → Dead', async () => {
    const h = await setup()
    const unknown = code('UNKNOWN_MEMBER_ID')
    assert.equal(h.coordinator.heartbeat({ groupId: 'nope', generationId: 1, memberId: 'm', groupInstanceId: null }), unknown)
    const s = await h.coordinator.syncGroup({
      groupId: 'nope',
      generationId: 1,
      memberId: 'm',
      groupInstanceId: null,
      protocolType: null,
      protocolName: null,
      assignments: [],
    })
    assert.equal(s.errorCode, unknown)
    assert.equal((await h.coordinator.joinGroup(joinParams('nope', { memberId: 'm' }))).errorCode, unknown)
    const leave = h.coordinator.leaveGroup('nope', [{ memberId: 'm', groupInstanceId: null, reason: null }])
    assert.deepEqual([leave.errorCode, leave.members[0]!.errorCode], [0, unknown])
    assert.deepEqual(h.coordinator.describeGroups(['nope']), [
      { errorCode: 0, groupId: 'nope', groupState: 'Dead', protocolType: '', protocolData: '', members: [] },
    ])
    assert.equal(h.coordinator.groupState('nope'), undefined)
  })

  it('ILLEGAL_GENERATION and UNKNOWN_MEMBER_ID on Heartbeat and SyncGroup', async () => {
    const h = await setup()
    const m = new TestMember(h, 'g')
    await formGroup(h, [m])
    assert.equal(
      h.coordinator.heartbeat({ groupId: 'g', generationId: m.generationId + 1, memberId: m.memberId, groupInstanceId: null }),
      code('ILLEGAL_GENERATION'),
    )
    assert.equal(
      h.coordinator.heartbeat({ groupId: 'g', generationId: m.generationId, memberId: 'stranger', groupInstanceId: null }),
      code('UNKNOWN_MEMBER_ID'),
    )
    const s = await h.coordinator.syncGroup({
      groupId: 'g',
      generationId: 0,
      memberId: m.memberId,
      groupInstanceId: null,
      protocolType: null,
      protocolName: null,
      assignments: [],
    })
    assert.equal(s.errorCode, code('ILLEGAL_GENERATION'))
  })

  it('copies metadata and assignments: reusing the request buffers changes nothing', async () => {
    const h = await setup()
    const metadata = encodeSubscription(['t'])
    const p = track(h.coordinator.joinGroup(joinParams('g', { requireKnownMemberId: false, protocols: [{ name: 'range', metadata }] })))
    await h.advance(0)
    const j = p.value!
    metadata.fill(0)
    const assignment = Buffer.from('mine')
    const s = await h.coordinator.syncGroup({
      groupId: 'g',
      generationId: j.generationId,
      memberId: j.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [{ memberId: j.memberId, assignment }],
    })
    assignment.fill(0)
    assert.deepEqual(s.assignment, Buffer.from('mine'))
    const d = h.coordinator.describeGroups(['g'])[0]!
    assert.deepEqual(d.members[0]!.memberMetadata, encodeSubscription(['t']))
    assert.deepEqual(d.members[0]!.memberAssignment, Buffer.from('mine'))
  })
})
