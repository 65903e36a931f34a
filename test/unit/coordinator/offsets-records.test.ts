import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  decodeGroupMetadataValue,
  decodeKey,
  decodeOffsetCommitValue,
  decodeRecord,
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
  encodeOffsetCommitKey,
  encodeOffsetCommitValue,
  groupMetadataRecord,
  keyVersionOf,
  OffsetsRecordError,
  offsetCommitRecord,
} from '../../../src/coordinator/group/offsets-records.js'
import type { CommittedOffset, GroupSnapshot } from '../../../src/coordinator/group/persistence.js'

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex')
const isFormatError = (e: unknown) => e instanceof OffsetsRecordError

const commit: CommittedOffset = {
  offset: 42,
  leaderEpoch: 7,
  metadata: 'm',
  commitTimestampMs: 1_700_000_000_000,
  expireTimestampMs: -1,
}

const stable: GroupSnapshot = {
  protocolType: 'consumer',
  generationId: 3,
  protocolName: 'range',
  leaderId: 'consumer-1-aaa',
  currentStateTimestampMs: 1_700_000_000_123,
  members: [
    {
      memberId: 'consumer-1-aaa',
      groupInstanceId: null,
      clientId: 'consumer-1',
      clientHost: '/127.0.0.1',
      rebalanceTimeoutMs: 300_000,
      sessionTimeoutMs: 45_000,
      subscription: Buffer.from([0, 1, 2, 3]),
      assignment: Buffer.from([9, 8]),
    },
    {
      memberId: 'static-bbb',
      groupInstanceId: 'instance-é',
      clientId: '',
      clientHost: '/10.0.0.2',
      rebalanceTimeoutMs: 60_000,
      sessionTimeoutMs: 10_000,
      subscription: Buffer.alloc(0),
      assignment: Buffer.alloc(5000, 7),
    },
  ],
}

describe('offsets topic record format', () => {
  it('writes an offset commit key byte for byte (version 1: group, topic, partition)', () => {
    assert.deepEqual(encodeOffsetCommitKey('g1', 't', 3), hex('0001' + '0002 6731' + '0001 74' + '00000003'))
    assert.deepEqual(decodeKey(hex('0001 0002 6731 0001 74 00000003')), { type: 'offset', group: 'g1', topic: 't', partition: 3 })
  })

  it('writes a group metadata key byte for byte (version 2: group)', () => {
    assert.deepEqual(encodeGroupMetadataKey('g1'), hex('0002 0002 6731'))
    assert.deepEqual(decodeKey(hex('0002 0002 6731')), { type: 'group', group: 'g1' })
    assert.equal(keyVersionOf(encodeGroupMetadataKey('g1')), 2)
    assert.equal(keyVersionOf(Buffer.from([1])), -1)
  })

  it('writes an offset commit value byte for byte (v3: offset, leader epoch, metadata, commit time)', () => {
    const bytes = hex('0003' + '000000000000002a' + '00000007' + '0001 6d' + '0000018bcfe56800')
    assert.deepEqual(encodeOffsetCommitValue(commit), bytes)
    assert.deepEqual(decodeOffsetCommitValue(bytes), commit)
  })

  it('writes v1 when an expire timestamp is set (no leader epoch in v1, as in Kafka)', () => {
    const v = { ...commit, leaderEpoch: -1, expireTimestampMs: 1_700_000_600_000 }
    const bytes = encodeOffsetCommitValue(v)
    assert.equal(bytes.readInt16BE(0), 1)
    assert.equal(bytes.length, 2 + 8 + 3 + 8 + 8)
    assert.deepEqual(decodeOffsetCommitValue(bytes), v)
  })

  it('stores a null offset metadata as the empty string (the field is not nullable)', () => {
    const back = decodeOffsetCommitValue(encodeOffsetCommitValue({ ...commit, metadata: null }))
    assert.equal(back.metadata, '')
  })

  it('writes an empty group value byte for byte (v3)', () => {
    const empty: GroupSnapshot = {
      protocolType: 'consumer',
      generationId: 0,
      protocolName: null,
      leaderId: null,
      currentStateTimestampMs: 5,
      members: [],
    }
    const bytes = hex('0003' + '0008 636f6e73756d6572' + '00000000' + 'ffff' + 'ffff' + '0000000000000005' + '00000000')
    assert.deepEqual(encodeGroupMetadataValue(empty), bytes)
    assert.deepEqual(decodeGroupMetadataValue(bytes), empty)
  })

  it('round-trips a group with members, static and dynamic, and large assignments', () => {
    const back = decodeGroupMetadataValue(encodeGroupMetadataValue(stable))
    assert.deepEqual(back, stable)
    // Decoded byte fields are copies, not views into the (reused) read buffer.
    const enc = encodeGroupMetadataValue(stable)
    const decoded = decodeGroupMetadataValue(enc)
    enc.fill(0)
    assert.deepEqual(decoded.members[0]!.subscription, Buffer.from([0, 1, 2, 3]))
  })

  it('builds records and decodes them back, tombstones included', () => {
    const o = offsetCommitRecord('g', 'orders', 2, commit)
    assert.deepEqual(decodeRecord(o.key, o.value), { type: 'offset', group: 'g', topic: 'orders', partition: 2, value: commit })
    const ot = offsetCommitRecord('g', 'orders', 2, null)
    assert.equal(ot.value, null)
    assert.deepEqual(decodeRecord(ot.key, null), { type: 'offset', group: 'g', topic: 'orders', partition: 2, value: null })
    const g = groupMetadataRecord('g', stable)
    assert.deepEqual(decodeRecord(g.key, g.value), { type: 'group', group: 'g', snapshot: stable })
    const gt = groupMetadataRecord('g', null)
    assert.deepEqual(decodeRecord(gt.key, gt.value), { type: 'group', group: 'g', snapshot: null })
  })

  it('keys are deterministic: the same identity gives the same bytes whatever the value', () => {
    assert.deepEqual(offsetCommitRecord('g', 't', 0, commit).key, offsetCommitRecord('g', 't', 0, null).key)
    assert.deepEqual(groupMetadataRecord('g', stable).key, groupMetadataRecord('g', null).key)
    assert.notDeepEqual(offsetCommitRecord('g', 't', 0, null).key, offsetCommitRecord('g', 't', 1, null).key)
  })

  it('reads the older versions Kafka may have written', () => {
    // Offset value v0/v2: offset, metadata, commit timestamp.
    for (const v of ['0000', '0002']) {
      assert.deepEqual(decodeOffsetCommitValue(hex(`${v} 0000000000000010 0000 0000000000000064`)), {
        offset: 16,
        leaderEpoch: -1,
        metadata: '',
        commitTimestampMs: 100,
        expireTimestampMs: -1,
      })
    }
    // Offset key v0 has the same layout as v1.
    assert.deepEqual(decodeKey(hex('0000 0001 67 0001 74 00000000')), { type: 'offset', group: 'g', topic: 't', partition: 0 })
    // Group value v0: no current-state timestamp, no rebalance timeout, no instance id.
    const member0 = '0001 6d' + '0001 63' + '0001 68' + '00002710' + '00000001 aa' + '00000000'
    assert.deepEqual(decodeGroupMetadataValue(hex(`0000 0001 63 00000002 0001 72 0001 6d 00000001 ${member0}`)), {
      protocolType: 'c',
      generationId: 2,
      protocolName: 'r',
      leaderId: 'm',
      currentStateTimestampMs: -1,
      members: [
        {
          memberId: 'm',
          groupInstanceId: null,
          clientId: 'c',
          clientHost: 'h',
          rebalanceTimeoutMs: 10_000,
          sessionTimeoutMs: 10_000,
          subscription: Buffer.from([0xaa]),
          assignment: Buffer.alloc(0),
        },
      ],
    })
    // v1 adds the rebalance timeout, v2 the current-state timestamp.
    const member1 = '0001 6d' + '0001 63' + '0001 68' + '00007530' + '00002710' + '00000000' + '00000000'
    const v2 = decodeGroupMetadataValue(hex(`0002 0001 63 00000002 ffff ffff 0000000000000009 00000001 ${member1}`))
    assert.equal(v2.currentStateTimestampMs, 9)
    assert.equal(v2.members[0]!.rebalanceTimeoutMs, 30_000)
    assert.equal(v2.members[0]!.sessionTimeoutMs, 10_000)
  })

  it('refuses malformed bytes with OffsetsRecordError, never reading out of bounds', () => {
    const key = encodeOffsetCommitKey('group', 'topic', 1)
    const value = encodeOffsetCommitValue(commit)
    const group = encodeGroupMetadataValue(stable)
    for (let n = 0; n < key.length; n++) assert.throws(() => decodeKey(key.subarray(0, n)), isFormatError)
    for (let n = 0; n < value.length; n++) assert.throws(() => decodeOffsetCommitValue(value.subarray(0, n)), isFormatError)
    for (let n = 0; n < group.length; n += 97) assert.throws(() => decodeGroupMetadataValue(group.subarray(0, n)), isFormatError)
    assert.throws(() => decodeKey(Buffer.concat([key, Buffer.from([0])])), /trailing/)
    assert.throws(() => decodeOffsetCommitValue(Buffer.concat([value, Buffer.from([0])])), /trailing/)
    assert.throws(() => decodeKey(hex('0003 0001 67')), /unknown key version 3/)
    assert.throws(() => decodeKey(hex('ffff')), /unknown key version -1/)
    assert.throws(() => decodeOffsetCommitValue(hex('0004 0000000000000001')), /version 4/)
    assert.throws(() => decodeGroupMetadataValue(hex('0004 0001 63')), /version 4/)
    // A null where a string is required, a negative length, a hostile member count.
    assert.throws(() => decodeKey(hex('0002 ffff')), isFormatError)
    assert.throws(() => decodeKey(hex('0002 fffe')), isFormatError)
    assert.throws(() => decodeGroupMetadataValue(hex('0003 0001 63 00000001 ffff ffff 0000000000000000 7fffffff')), /member count/)
    assert.throws(() => decodeGroupMetadataValue(hex('0003 0001 63 00000001 fffe ffff 0000000000000000 00000000')), isFormatError)
    // An int64 outside the safe range.
    assert.throws(() => decodeOffsetCommitValue(hex('0003 7fffffffffffffff 00000000 0000 0000000000000000')), isFormatError)
    assert.throws(() => decodeRecord(null, value), /null key/)
  })

  it('refuses to encode what the format cannot hold', () => {
    assert.throws(() => encodeOffsetCommitKey('g'.repeat(40_000), 't', 0), /int16-length string/)
    assert.throws(() => encodeOffsetCommitValue({ ...commit, metadata: 'é'.repeat(20_000) }), /offset metadata is 40000 bytes/)
    assert.throws(() => encodeOffsetCommitValue({ ...commit, offset: 2 ** 60 }), isFormatError)
    assert.throws(() => encodeOffsetCommitKey('g', 't', 2 ** 31), isFormatError)
  })
})
