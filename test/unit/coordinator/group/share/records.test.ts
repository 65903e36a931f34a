// The share group records of `__consumer_offsets` (src/coordinator/group/share/records.ts): key
// and value bytes as Kafka lays them out, an image's round trip, tombstones, and the offsets
// topic's replay routing them (key types 10–15) to the share replay.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { fromWire } from '../../../../../src/coordinator/group/consumer/assignment.js'
import {
  decodeShareKey,
  encodeShareKey,
  type ShareGroupImage,
  shareGroupRecords,
  ShareGroupReplay,
  shareGroupTombstones,
  shareMemberTombstones,
  shareRecordGroup,
} from '../../../../../src/coordinator/group/share/records.js'
import { T_ID } from './share-helpers.js'

const image: ShareGroupImage = {
  groupId: 'g',
  groupEpoch: 4,
  targetAssignmentEpoch: 4,
  stateTopics: [{ topicId: T_ID, topicName: 'T', partitions: [0, 1] }],
  members: [
    {
      memberId: 'm1',
      rackId: null,
      clientId: 'c',
      clientHost: '/h',
      subscribedTopicNames: ['T'],
      memberEpoch: 4,
      previousMemberEpoch: 3,
      assigned: fromWire([{ topicId: T_ID, partitions: [0, 1] }]),
      target: fromWire([{ topicId: T_ID, partitions: [0, 1] }]),
    },
  ],
}

describe('share group records', () => {
  it('keys: int16 type then int16-length strings, as Kafka writes them', () => {
    assert.deepEqual(encodeShareKey({ type: 11, group: 'g' }), Buffer.from([0, 11, 0, 1, 0x67]))
    assert.deepEqual(encodeShareKey({ type: 10, group: 'g', member: 'm' }), Buffer.from([0, 10, 0, 1, 0x67, 0, 1, 0x6d]))
    assert.deepEqual(decodeShareKey(Buffer.from([0, 14, 0, 1, 0x67, 0, 1, 0x6d])), { type: 14, group: 'g', member: 'm' })
    // Offset commits (0, 1), classic groups (2) and consumer groups (3–8) are not share records.
    for (const t of [0, 1, 2, 3, 8, 16]) assert.equal(shareRecordGroup(Buffer.from([0, t, 0, 1, 0x67])), null)
  })

  it('ShareGroupMetadataValue: version 0, epoch, metadata hash', () => {
    const meta = shareGroupRecords(image, 0).find((r) => r.key.readInt16BE(0) === 11)!
    assert.deepEqual(meta.value, Buffer.from([0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0]))
  })

  it('the records rebuild the image; member tombstones remove a member, the group tombstones the group', () => {
    const replay = new ShareGroupReplay()
    for (const r of shareGroupRecords(image, 1000)) replay.apply(r.key, r.value)
    assert.deepEqual(replay.images().get('g'), image)
    for (const r of shareMemberTombstones('g', 'm1')) replay.apply(r.key, r.value)
    assert.deepEqual(replay.images().get('g')!.members, [])
    for (const r of shareGroupTombstones('g', [])) replay.apply(r.key, r.value)
    assert.equal(replay.images().has('g'), false)
  })
})
