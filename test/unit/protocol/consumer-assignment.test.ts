import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeAssignment, encodeAssignment } from '../../../src/protocol/consumer-assignment.js'

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
})
