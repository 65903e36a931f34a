import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isValidUuid, METADATA_TOPIC_ID, randomTopicId, uuidFromBytes, uuidToBytes, ZERO_UUID } from '../../../src/cluster/uuid.js'

describe('topic ids', () => {
  it('are 22 base64url characters that round-trip through 16 bytes', () => {
    for (let i = 0; i < 200; i++) {
      const id = randomTopicId()
      assert.equal(id.length, 22)
      assert.ok(isValidUuid(id), id)
      assert.equal(uuidToBytes(id).length, 16)
      assert.equal(uuidFromBytes(uuidToBytes(id)), id)
      assert.ok(!id.startsWith('-'))
    }
  })

  it('are version-4 UUIDs, like java.util.UUID.randomUUID()', () => {
    const b = uuidToBytes(randomTopicId())
    assert.equal(b[6]! >> 4, 4)
    assert.equal(b[8]! >> 6, 2)
  })

  it('skips ids starting with "-"', () => {
    const dash = Buffer.alloc(16, 0)
    dash[0] = 0xf8 // 111110 00… → '-'
    let calls = 0
    const id = randomTopicId(() => (calls++ === 0 ? Buffer.from(dash) : Buffer.alloc(16, 0x22)))
    assert.equal(calls, 2)
    assert.ok(!id.startsWith('-'))
  })

  it('validates strings', () => {
    assert.ok(isValidUuid(ZERO_UUID))
    assert.ok(isValidUuid(METADATA_TOPIC_ID))
    assert.equal(uuidFromBytes(Buffer.from([...Array(15).fill(0), 1])), METADATA_TOPIC_ID)
    assert.ok(!isValidUuid('short'))
    assert.ok(!isValidUuid('AAAAAAAAAAAAAAAAAAAAA+'))
    assert.ok(!isValidUuid('AAAAAAAAAAAAAAAAAAAAAB'), 'non-zero padding bits do not round-trip')
  })
})
