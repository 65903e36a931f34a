// Decoding is exactly as tolerant as Kafka's generated readers, each case built from bytes: what
// Kafka accepts decodes, what it refuses is refused, and every length stays bounded by the bytes
// that are there.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeRequestHeader } from '../../../src/protocol/header.js'
import { ListOffsetsRequest } from '../../../src/protocol/messages/02-list-offsets.js'
import { DecodeError, Reader } from '../../../src/protocol/primitives/reader.js'
import { f, message } from '../../../src/protocol/schema.js'

// A flexible message with two tagged fields, to drive the tagged-field reader directly.
const Tagged = message({
  apiKey: 1000,
  name: 'Tagged',
  versions: '0',
  flexible: '0+',
  fields: {
    id: f.int32('0+'),
    label: f.string('0+', { tagged: '0+', tag: 0, default: '' }),
    count: f.int32('0+', { tagged: '0+', tag: 1, default: -1 }),
  },
})

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex')

describe('bytes after a body', () => {
  it('are ignored, as Kafka ignores them', () => {
    const body = Buffer.concat([Tagged.encode(0, { id: 7 }), hex('01 00 00')])
    assert.deepEqual(Tagged.decode(0, body), { id: 7, label: '', count: -1 })
  })
})

describe('tagged fields', () => {
  it('may come in any order', () => {
    // id=7; 2 tags: tag 1 (4 bytes: count=5), then tag 0 (2 bytes: compact string "a")
    const v = Tagged.decode(0, hex('00000007 02  01 04 00000005  00 02 02 61'))
    assert.deepEqual(v, { id: 7, label: 'a', count: 5 })
  })

  it('a repeated tag: the last one wins', () => {
    const v = Tagged.decode(0, hex('00000007 02  01 04 00000005  01 04 00000009'))
    assert.equal(v.count, 9)
  })

  it('unknown tags are skipped, whatever their size', () => {
    const v = Tagged.decode(0, hex('00000007 02  07 03 aabbcc  01 04 00000002'))
    assert.deepEqual(v, { id: 7, label: '', count: 2 })
  })

  it("bytes of a known field past what its type needs are skipped with the field's size", () => {
    const v = Tagged.decode(0, hex('00000007 02  01 06 00000003 ffff  00 02 02 62'))
    assert.deepEqual(v, { id: 7, label: 'b', count: 3 })
  })

  it('a tag whose size runs past the frame is refused', () => {
    assert.throws(() => Tagged.decode(0, hex('00000007 01  07 10 aabb')), DecodeError)
  })
})

describe('lengths and counts', () => {
  it('a compact length read as a negative 32-bit int (varint ≥ 2^31) is null, as in Kafka', () => {
    // Nullable compact string whose length varint is 0xffffffff (5 bytes, top bits dropped).
    const N = message({
      apiKey: 1001,
      name: 'N',
      versions: '0',
      flexible: '0+',
      fields: { s: f.string('0+', { nullable: '0+' }) },
    })
    assert.deepEqual(N.decode(0, hex('ffffffff7f 00')), { s: null })
    assert.throws(() => N.decode(0, hex('ffffffffff01 00')), /varint longer than 5 bytes/)
  })

  it('a compact string longer than 32767 bytes is refused, as Kafka refuses it', () => {
    const big = Buffer.alloc(40_000, 0x61)
    const len = hex('c1b802') // uvarint 40001 = length 40000 + 1
    const S = message({ apiKey: 1002, name: 'S', versions: '0', flexible: '0+', fields: { s: f.string('0+') } })
    assert.throws(() => S.decode(0, Buffer.concat([len, big, hex('00')])), /exceeds 32767/)
  })

  it('null in a non-nullable string or array is refused, as Kafka refuses it', () => {
    assert.throws(() => Tagged.decode(0, hex('00000007 01  00 01 00')), /null in a non-nullable string/)
  })

  it('an array count beyond the bytes remaining is refused before allocating', () => {
    // ListOffsets v1: replica id, then a topics array claiming 2^31-1 entries.
    assert.throws(() => ListOffsetsRequest.decode(1, hex('ffffffff 7fffffff')), /exceeds the remaining/)
  })
})

describe('int64 fields', () => {
  it('Long.MAX_VALUE and Long.MIN_VALUE are accepted, clamped to the safe integer range', () => {
    const bytes = hex('ffffffff 00000001 0004 74657374 00000001 00000000 7fffffffffffffff')
    const req = ListOffsetsRequest.decode(1, bytes)
    assert.equal(req.topics[0]!.partitions[0]!.timestamp, Number.MAX_SAFE_INTEGER)
    const min = hex('ffffffff 00000001 0004 74657374 00000001 00000000 8000000000000000')
    assert.equal(ListOffsetsRequest.decode(1, min).topics[0]!.partitions[0]!.timestamp, -Number.MAX_SAFE_INTEGER)
  })

  it('storage readers stay strict', () => {
    assert.throws(() => new Reader(hex('7fffffffffffffff')).int64(), /safe integer range/)
  })
})

describe('request header', () => {
  const isFlexible = () => false
  it('a client id of length -1 is null', () => {
    assert.equal(decodeRequestHeader(hex('0003 0001 00000009 ffff'), isFlexible).clientId, null)
  })
  it('any negative client id length is null, as in Kafka', () => {
    assert.equal(decodeRequestHeader(hex('0003 0001 00000009 8000'), isFlexible).clientId, null)
  })
  it('an empty client id is the empty string', () => {
    assert.equal(decodeRequestHeader(hex('0003 0001 00000009 0000'), isFlexible).clientId, '')
  })
  it('a client id that is not UTF-8 decodes with replacement characters, as Java does', () => {
    assert.equal(decodeRequestHeader(hex('0003 0001 00000009 0002 c328'), isFlexible).clientId, '\ufffd(')
  })
  it('unknown tags in a v2 header are skipped', () => {
    const h = decodeRequestHeader(hex('0003 000c 00000009 0001 61 02 05 01 aa 06 00'), () => true)
    assert.equal(h.clientId, 'a')
    assert.equal(h.bodyOffset, 17)
  })
})
