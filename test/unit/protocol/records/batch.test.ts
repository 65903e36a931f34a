import assert from 'node:assert/strict'
import { test } from 'node:test'
import { KafkaError } from '../../../../src/protocol/errors.js'
import {
  ATTRIBUTES_OFFSET,
  BATCH_LENGTH_OFFSET,
  CONTROL_MASK,
  LAST_OFFSET_DELTA_OFFSET,
  MAGIC_OFFSET,
  RECORD_COUNT_OFFSET,
  readBatchHeader,
  setBaseOffset,
  setPartitionLeaderEpoch,
  validateProducedBatches,
  writeBatchCrc,
  writeInt64,
} from '../../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../../src/protocol/records/builder.js'
import { crc32c } from '../../../../src/protocol/records/crc32c.js'

const opts = { maxBatchBytes: 1 << 20 }

function batch(n = 3, baseTimestamp = 1_700_000_000_000): Buffer {
  return buildRecordBatch({
    baseTimestamp,
    records: Array.from({ length: n }, (_, i) => ({
      key: Buffer.from(`k${i}`),
      value: Buffer.from(`value-${i}`),
      timestamp: baseTimestamp + i,
    })),
  })
}

function code(name: string) {
  return (err: unknown) => err instanceof KafkaError && err.errorName === name
}

test('hand-checked bytes of a one-record batch', () => {
  const b = buildRecordBatch({ records: [{ key: null, value: Buffer.from('a'), timestamp: 1000 }] })
  const expectedHeader = Buffer.from(
    [
      '0000000000000000', // baseOffset 0
      '00000039', // batchLength 57 = 69 - 12
      'ffffffff', // partitionLeaderEpoch -1
      '02', // magic
      'XXXXXXXX', // crc (checked below)
      '0000', // attributes
      '00000000', // lastOffsetDelta
      '00000000000003e8', // baseTimestamp 1000
      '00000000000003e8', // maxTimestamp 1000
      'ffffffffffffffff', // producerId -1
      'ffff', // producerEpoch -1
      'ffffffff', // baseSequence -1
      '00000001', // recordCount
    ]
      .join('')
      .replace('XXXXXXXX', b.subarray(17, 21).toString('hex')),
    'hex',
  )
  // length 7 (zigzag 14), attributes, tsDelta 0, offsetDelta 0, key null (-1 → 1), value len 1 (→ 2), 'a', 0 headers
  const expectedRecord = Buffer.from('0e00000001026100', 'hex')
  assert.equal(b.length, 69)
  assert.deepEqual(b, Buffer.concat([expectedHeader, expectedRecord]))
  assert.equal(b.readUInt32BE(17), crc32c(b, 21))
})

test('readBatchHeader decodes every field', () => {
  const b = buildRecordBatch({
    baseOffset: 42,
    baseTimestamp: 5000,
    producerId: 77,
    producerEpoch: 3,
    baseSequence: 9,
    partitionLeaderEpoch: 4,
    attributes: 0x10, // transactional
    records: [
      { key: null, value: Buffer.from('x'), timestamp: 5000 },
      { key: null, value: Buffer.from('y'), timestamp: 7000 },
    ],
  })
  const h = readBatchHeader(b, 0)
  assert.deepEqual(h, {
    position: 0,
    sizeBytes: b.length,
    baseOffset: 42,
    lastOffsetDelta: 1,
    partitionLeaderEpoch: 4,
    magic: 2,
    crc: crc32c(b, 21),
    attributes: 0x10,
    compression: 0,
    timestampType: 0,
    isTransactional: true,
    isControl: false,
    baseTimestamp: 5000,
    maxTimestamp: 7000,
    producerId: 77,
    producerEpoch: 3,
    baseSequence: 9,
    recordCount: 2,
  })
})

test('setBaseOffset and setPartitionLeaderEpoch patch in place and keep the CRC valid', () => {
  const b = batch()
  setBaseOffset(b, 0, 2 ** 40 + 5)
  setPartitionLeaderEpoch(b, 0, 12)
  const h = readBatchHeader(b, 0)
  assert.equal(h.baseOffset, 2 ** 40 + 5)
  assert.equal(h.partitionLeaderEpoch, 12)
  assert.equal(validateProducedBatches(b, opts).length, 1)
})

test('int64 fields outside the safe range are rejected', () => {
  const b = batch()
  b.writeBigInt64BE(2n ** 60n, 0)
  assert.throws(() => readBatchHeader(b, 0), code('INVALID_RECORD'))
  b.writeBigInt64BE(-(2n ** 60n), 0)
  assert.throws(() => readBatchHeader(b, 0), code('INVALID_RECORD'))
  writeInt64(b, -(2 ** 53 - 1), 0)
  assert.equal(readBatchHeader(b, 0).baseOffset, -(2 ** 53 - 1))
})

test('validateProducedBatches returns the headers of several batches', () => {
  const a = batch(2)
  const b = batch(5)
  const hs = validateProducedBatches(Buffer.concat([a, b]), opts)
  assert.deepEqual(
    hs.map((h) => [h.position, h.sizeBytes, h.recordCount]),
    [
      [0, a.length, 2],
      [a.length, b.length, 5],
    ],
  )
})

test('validateProducedBatches: CORRUPT_MESSAGE cases', () => {
  const b = batch()
  const flipped = Buffer.from(b)
  flipped[b.length - 1]! ^= 1
  assert.throws(() => validateProducedBatches(flipped, opts), code('CORRUPT_MESSAGE'))
  assert.throws(() => validateProducedBatches(b.subarray(0, b.length - 1), opts), code('CORRUPT_MESSAGE'))
  assert.throws(() => validateProducedBatches(Buffer.concat([b, Buffer.alloc(5)]), opts), code('CORRUPT_MESSAGE'))
  assert.throws(() => validateProducedBatches(Buffer.concat([b, b.subarray(0, 30)]), opts), code('CORRUPT_MESSAGE'))
})

test('validateProducedBatches: INVALID_RECORD cases', () => {
  assert.throws(() => validateProducedBatches(Buffer.alloc(0), opts), code('INVALID_RECORD'))

  const magic = batch()
  magic.writeInt8(1, MAGIC_OFFSET)
  assert.throws(() => validateProducedBatches(magic, opts), code('INVALID_RECORD'))

  const short = batch()
  short.writeInt32BE(48, BATCH_LENGTH_OFFSET)
  assert.throws(() => validateProducedBatches(short, opts), code('INVALID_RECORD'))

  const noRecords = batch()
  noRecords.writeInt32BE(0, RECORD_COUNT_OFFSET)
  writeBatchCrc(noRecords, 0)
  assert.throws(() => validateProducedBatches(noRecords, opts), code('INVALID_RECORD'))

  const delta = batch()
  delta.writeInt32BE(7, LAST_OFFSET_DELTA_OFFSET)
  writeBatchCrc(delta, 0)
  assert.throws(() => validateProducedBatches(delta, opts), code('INVALID_RECORD'))

  // A count the bytes cannot hold, kept consistent with lastOffsetDelta so only the size check can catch it.
  const inflated = batch(1)
  inflated.writeInt32BE(1_000_000_000, RECORD_COUNT_OFFSET)
  inflated.writeInt32BE(999_999_999, LAST_OFFSET_DELTA_OFFSET)
  writeBatchCrc(inflated, 0)
  assert.throws(() => validateProducedBatches(inflated, opts), code('INVALID_RECORD'))

  const control = batch(1)
  control.writeInt16BE(CONTROL_MASK, ATTRIBUTES_OFFSET)
  writeBatchCrc(control, 0)
  assert.throws(() => validateProducedBatches(control, opts), code('INVALID_RECORD'))
})

test('validateProducedBatches: MESSAGE_TOO_LARGE per batch', () => {
  const b = batch(3)
  assert.equal(validateProducedBatches(Buffer.concat([b, b]), { maxBatchBytes: b.length }).length, 2)
  assert.throws(() => validateProducedBatches(b, { maxBatchBytes: b.length - 1 }), code('MESSAGE_TOO_LARGE'))
})
