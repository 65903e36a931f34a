import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  decodeAssignment,
  decodeAssignmentMessage,
  decodeSubscription,
  decodeSubscriptionTopics,
  encodeAssignment,
  encodeAssignmentMessage,
  encodeSubscription,
  encodeSubscriptionMessage,
} from '../../../src/protocol/consumer-protocol.js'

describe('consumer assignment', () => {
  it('round-trips topics and partitions', () => {
    const a = [
      { topic: 'orders', partitions: [0, 2, 5] },
      { topic: 'é', partitions: [] },
    ]
    assert.deepEqual(decodeAssignment(encodeAssignment(a)), a)
  })

  it('reads an empty buffer as no partitions and refuses garbage', () => {
    assert.deepEqual(decodeAssignment(Buffer.alloc(0)), [])
    assert.equal(decodeAssignment(Buffer.from([0, 0, 0x7f, 0xff, 0xff, 0xff])), null)
    assert.equal(decodeAssignment(Buffer.from([0xff, 0xff, 0, 0, 0, 0])), null)
    const truncated = encodeAssignment([{ topic: 'orders', partitions: [1, 2] }]).subarray(0, 12)
    assert.equal(decodeAssignment(truncated), null)
  })

  it('round-trips every version 0–3 with user data', () => {
    const value = { assignedPartitions: [{ topic: 't', partitions: [3, 1] }], userData: Buffer.from([9, 8]) }
    for (let v = 0; v <= 3; v++) {
      const bytes = encodeAssignmentMessage(v, value)
      assert.equal(bytes.readInt16BE(0), v)
      assert.deepEqual(decodeAssignmentMessage(bytes), value)
    }
  })

  it('encodes v0 as the hand-built layout', () => {
    // int16 version 0, one topic "ab" with partitions [7], null user data
    const expected = Buffer.from([0, 0, 0, 0, 0, 1, 0, 2, 0x61, 0x62, 0, 0, 0, 1, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0xff])
    assert.deepEqual(encodeAssignment([{ topic: 'ab', partitions: [7] }]), expected)
    assert.deepEqual(decodeAssignmentMessage(expected), { assignedPartitions: [{ topic: 'ab', partitions: [7] }], userData: null })
  })

  it('reads a newer version with extra bytes after the known fields as the newest known', () => {
    const bytes = Buffer.concat([
      encodeAssignmentMessage(3, { assignedPartitions: [{ topic: 'x', partitions: [0] }] }),
      Buffer.from([1, 2, 3]),
    ])
    bytes.writeInt16BE(4, 0)
    assert.deepEqual(decodeAssignmentMessage(bytes), { assignedPartitions: [{ topic: 'x', partitions: [0] }], userData: null })
    assert.deepEqual(decodeAssignment(bytes), [{ topic: 'x', partitions: [0] }])
  })
})

describe('consumer subscription', () => {
  it('round-trips every version 0–3, each field from its version', () => {
    const full = {
      topics: ['a', 'b'],
      userData: Buffer.from('u'),
      ownedPartitions: [{ topic: 'a', partitions: [0, 1] }],
      generationId: 12,
      rackId: 'r1',
    }
    const expected = [
      { ...full, ownedPartitions: [], generationId: -1, rackId: null },
      { ...full, generationId: -1, rackId: null },
      { ...full, rackId: null },
      full,
    ]
    for (let v = 0; v <= 3; v++) {
      const bytes = encodeSubscriptionMessage(v, full)
      assert.equal(bytes.readInt16BE(0), v)
      assert.deepEqual(decodeSubscription(bytes), expected[v])
      assert.deepEqual(decodeSubscriptionTopics(bytes), ['a', 'b'])
    }
  })

  it('encodes v0 as the hand-built layout', () => {
    // int16 version 0, topics ["ab"], null user data
    const expected = Buffer.from([0, 0, 0, 0, 0, 1, 0, 2, 0x61, 0x62, 0xff, 0xff, 0xff, 0xff])
    assert.deepEqual(encodeSubscription(['ab']), expected)
    assert.deepEqual(decodeSubscriptionTopics(expected), ['ab'])
  })

  it('reads a newer version with extra bytes after the known fields', () => {
    const v3 = encodeSubscriptionMessage(3, { topics: ['t'], generationId: 4, rackId: 'z' })
    const bytes = Buffer.concat([v3, Buffer.from([0, 0, 0, 0, 5])])
    bytes.writeInt16BE(7, 0)
    assert.deepEqual(decodeSubscription(bytes), { topics: ['t'], userData: null, ownedPartitions: [], generationId: 4, rackId: 'z' })
    assert.deepEqual(decodeSubscriptionTopics(bytes), ['t'])
  })

  it('reads the topics of a subscription that ends after them, and refuses what is not one', () => {
    assert.deepEqual(decodeSubscriptionTopics(Buffer.from([0, 1, 0, 0, 0, 1, 0, 1, 0x71])), ['q'])
    assert.equal(decodeSubscription(Buffer.from([0, 1, 0, 0, 0, 1, 0, 1, 0x71])), null)
    assert.equal(decodeSubscriptionTopics(Buffer.alloc(5)), null)
    assert.equal(decodeSubscriptionTopics(Buffer.from([0xff, 0xff, 0, 0, 0, 0])), null)
    assert.equal(decodeSubscriptionTopics(Buffer.from([0, 0, 0x7f, 0xff, 0xff, 0xff])), null)
    assert.equal(decodeSubscriptionTopics(Buffer.from([0, 0, 0, 0, 0, 1, 0, 5, 0x61])), null)
    assert.equal(decodeSubscriptionTopics(Buffer.from([0, 0, 0, 0, 0, 1, 0xff, 0xff])), null)
  })
})
