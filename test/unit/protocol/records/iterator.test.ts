import assert from 'node:assert/strict'
import { test } from 'node:test'
import { KafkaError } from '../../../../src/protocol/errors.js'
import { ATTRIBUTES_OFFSET, setBaseOffset, TimestampType, writeBatchCrc } from '../../../../src/protocol/records/batch.js'
import { buildRecordBatch, type RecordInput } from '../../../../src/protocol/records/builder.js'
import { iterateBatches, iterateRecords } from '../../../../src/protocol/records/iterator.js'

function code(name: string) {
  return (err: unknown) => err instanceof KafkaError && err.errorName === name
}

test('build → iterate round-trip with keys, nulls, headers and timestamps', () => {
  const base = 1_700_000_000_000
  const records: RecordInput[] = [
    { key: Buffer.from('k1'), value: Buffer.from('v1'), timestamp: base },
    { key: null, value: null, timestamp: base - 5000 },
    {
      key: Buffer.alloc(0),
      value: Buffer.alloc(300, 7),
      headers: [
        { key: 'trace-id', value: Buffer.from('abc') },
        { key: 'ключ', value: null },
      ],
      timestamp: base + 2 ** 35,
    },
  ]
  const b = buildRecordBatch({ baseOffset: 100, baseTimestamp: base, records })
  const got = [...iterateRecords(b)]
  assert.equal(got.length, 3)
  assert.deepEqual(
    got.map((r) => [r.offset, r.timestamp, r.key, r.value]),
    [
      [100, base, Buffer.from('k1'), Buffer.from('v1')],
      [101, base - 5000, null, null],
      [102, base + 2 ** 35, Buffer.alloc(0), Buffer.alloc(300, 7)],
    ],
  )
  assert.deepEqual(got[2]!.headers, [
    { key: 'trace-id', value: Buffer.from('abc') },
    { key: 'ключ', value: null },
  ])
})

test('iterateRecords applies offset deltas and LogAppendTime', () => {
  const b = buildRecordBatch({
    records: [
      { key: null, value: Buffer.from('a'), timestamp: 10, offsetDelta: 0 },
      { key: null, value: Buffer.from('b'), timestamp: 20, offsetDelta: 3 },
    ],
    attributes: 0x08,
  })
  setBaseOffset(b, 0, 50)
  const got = [...iterateRecords(b)]
  assert.deepEqual(
    got.map((r) => [r.offset, r.timestamp]),
    [
      [50, 20],
      [53, 20],
    ],
  )
})

test('iterateBatches walks concatenated batches and stops at a trailing partial batch', () => {
  const a = buildRecordBatch({ baseOffset: 0, records: [{ key: null, value: Buffer.from('x') }] })
  const b = buildRecordBatch({ baseOffset: 1, records: [{ key: null, value: Buffer.from('yy') }] })
  const buf = Buffer.concat([a, b, a.subarray(0, 20)])
  const hs = [...iterateBatches(buf)]
  assert.deepEqual(
    hs.map((h) => [h.position, h.baseOffset]),
    [
      [0, 0],
      [a.length, 1],
    ],
  )
  assert.deepEqual([...iterateBatches(Buffer.concat([a, b.subarray(0, b.length - 1)]))].length, 1)
  assert.equal(hs[0]!.timestampType, TimestampType.CreateTime)
  // records of the second batch through its position
  assert.deepEqual(
    [...iterateRecords(buf, hs[1]!.position)].map((r) => r.value),
    [Buffer.from('yy')],
  )
})

test('iterateRecords rejects unknown codecs, undecodable compressed records and corrupt lengths', () => {
  const b = buildRecordBatch({ records: [{ key: Buffer.from('k'), value: Buffer.from('v') }] })
  // gzip bit set over records that are not gzip data
  const gz = Buffer.from(b)
  gz.writeInt16BE(1, ATTRIBUTES_OFFSET)
  writeBatchCrc(gz, 0)
  assert.throws(() => [...iterateRecords(gz)], code('CORRUPT_MESSAGE'))
  // codec id 5 does not exist
  const five = Buffer.from(b)
  five.writeInt16BE(5, ATTRIBUTES_OFFSET)
  writeBatchCrc(five, 0)
  assert.throws(() => [...iterateRecords(five)], code('UNSUPPORTED_COMPRESSION_TYPE'))

  // key length claims more bytes than the record has
  const bad = Buffer.from(b)
  bad[61 + 4] = 0x7e // key length varint: zigzag 126 → 63
  assert.throws(() => [...iterateRecords(bad)], code('CORRUPT_MESSAGE'))

  // record length past the batch
  const bad2 = Buffer.from(b)
  bad2[61] = 0x7e
  assert.throws(() => [...iterateRecords(bad2)], code('CORRUPT_MESSAGE'))

  // batch shorter than its header says
  assert.throws(() => [...iterateRecords(b.subarray(0, b.length - 2))], code('CORRUPT_MESSAGE'))
})
