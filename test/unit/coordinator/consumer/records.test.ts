// The consumer-protocol group records (src/coordinator/group/consumer/records.ts): byte layouts
// written out by hand from Kafka's ConsumerGroup*Key/Value schemas, and a group carried through
// its records into a second coordinator that continues where the first stopped.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { fromWire, partitionCount, toWire } from '../../../../src/coordinator/group/consumer/assignment.js'
import { ConsumerGroups, type TopicInfo } from '../../../../src/coordinator/group/consumer/consumer-groups.js'
import {
  CurrentAssignmentValue,
  decodeKey,
  encodeKey,
  GroupMetadataValue,
  groupRecords,
  memberTombstones,
  replayGroups,
} from '../../../../src/coordinator/group/consumer/records.js'
import { ManualClock } from '../../../../src/util/clock.js'
import { hex, ID_1_16, ID_1_16_HEX } from '../../../helpers/message-fixtures.js'

describe('consumer group records: layouts', () => {
  it('keys: int16 type, then int16-length strings', () => {
    assert.equal(encodeKey({ type: 3, group: 'g' }).toString('hex'), '0003' + '0001' + '67')
    assert.equal(encodeKey({ type: 8, group: 'g', member: 'm' }).toString('hex'), '0008' + '0001' + '67' + '0001' + '6d')
    assert.deepEqual(decodeKey(hex('0005 0001 67 0002 6d31')), { type: 5, group: 'g', member: 'm1' })
    assert.throws(() => decodeKey(hex('0001 0001 67')))
  })

  it('values: flexible v0 bodies (compact arrays, tagged-field sections)', () => {
    assert.equal(GroupMetadataValue.encode(0, { epoch: 3 }).toString('hex'), '00000003' + '00')
    const v = {
      memberEpoch: 4,
      previousMemberEpoch: 3,
      state: 1,
      assignedPartitions: [{ topicId: ID_1_16, partitions: [0] }],
      partitionsPendingRevocation: [],
    }
    const bytes = hex('00000004', '00000003', '01', '02', ID_1_16_HEX, '02 00000000', '00', '01', '00')
    assert.equal(CurrentAssignmentValue.encode(0, v).toString('hex'), bytes.toString('hex'))
    assert.deepEqual(CurrentAssignmentValue.decode(0, bytes), v)
  })
})

describe('consumer group records: a coordinator taking over', () => {
  const table = new Map<string, TopicInfo>([['T', { id: ID_1_16, partitions: 6 }]])
  const join = (memberId: string, instanceId: string | null = null) => ({
    groupId: 'g',
    memberId,
    memberEpoch: 0,
    instanceId,
    rackId: null,
    rebalanceTimeoutMs: 60000,
    subscribedTopicNames: ['T'],
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: [],
  })
  const client = { clientId: 'c', clientHost: '/h' }

  it('rebuilds epochs, assignments (current, pending, target) and members; they heartbeat on', () => {
    const clock = new ManualClock()
    const first = new ConsumerGroups(clock, () => table)
    first.heartbeat(join('a', 'inst-a'), 1, client)
    const b = first.heartbeat(join('b'), 1, client)
    // a has been asked to revoke half, and has not yet.
    first.heartbeat(
      { ...join('a', 'inst-a'), memberEpoch: 1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: null },
      1,
      client,
    )
    const before = first.image('g')!
    assert.equal(before.members.find((m) => m.memberId === 'a')!.state, 'UNREVOKED_PARTITIONS')

    const records = groupRecords(before, clock.now())
    const images = replayGroups(records)
    const second = new ConsumerGroups(clock, () => table)
    second.restore(images.get('g')!)
    assert.deepEqual(second.describe(['g']), first.describe(['g']))

    // a reports having revoked: it advances; then b gets the released partitions.
    const keep = toWire(second.image('g')!.members.find((m) => m.memberId === 'a')!.assigned)
    const a2 = second.heartbeat(
      { ...join('a', 'inst-a'), memberEpoch: 1, subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: keep },
      1,
      client,
    )
    assert.equal(a2.errorCode, 0)
    assert.equal(a2.memberEpoch, 2)
    const b2 = second.heartbeat(
      { ...join('b'), memberEpoch: b.memberEpoch, subscribedTopicNames: null, rebalanceTimeoutMs: -1, topicPartitions: [] },
      1,
      client,
    )
    assert.equal(partitionCount(fromWire(b2.assignment!.topicPartitions)), 3)
  })

  it('tombstones remove a member; a member gone expires on the new coordinator after the session timeout', () => {
    const clock = new ManualClock()
    const first = new ConsumerGroups(clock, () => table)
    first.heartbeat(join('a'), 1, client)
    first.heartbeat(join('b'), 1, client)
    const records = [...groupRecords(first.image('g')!, clock.now()), ...memberTombstones('g', 'b')]
    assert.deepEqual(
      replayGroups(records)
        .get('g')!
        .members.map((m) => m.memberId),
      ['a'],
    )
    const second = new ConsumerGroups(clock, () => table)
    second.restore(replayGroups(groupRecords(first.image('g')!, clock.now())).get('g')!)
    clock.advance(45001)
    assert.equal(second.groups.get('g')!.members.size, 0)
  })
})
