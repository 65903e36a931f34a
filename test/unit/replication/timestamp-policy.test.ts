// The produce path's timestamp rules (message.timestamp.type, KIP-937 bounds) on batches alone.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { KafkaError } from '../../../src/protocol/errors.js'
import {
  ATTRIBUTES_OFFSET,
  batchCrcMatches,
  CompressionType,
  readBatchHeader,
  TimestampType,
  validateProducedBatches,
  writeBatchCrc,
} from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { iterateRecords } from '../../../src/protocol/records/iterator.js'
import { applyTimestampPolicy, type TimestampPolicy } from '../../../src/replication/replica-manager.js'

const NOW = 1_700_000_000_000
const NEVER = Number.MAX_SAFE_INTEGER
const createTime = (beforeMaxMs = NEVER, afterMaxMs = NEVER): TimestampPolicy => ({ logAppendTime: false, beforeMaxMs, afterMaxMs })

function batchOf(timestamps: number[]): Buffer {
  return buildRecordBatch({ records: timestamps.map((t, i) => ({ key: null, value: Buffer.from(`v${i}`), timestamp: t })) })
}

function apply(buf: Buffer, policy: TimestampPolicy) {
  const headers = validateProducedBatches(buf, { maxBatchBytes: 1 << 20 })
  applyTimestampPolicy(buf, headers, policy, NOW)
  return headers
}

const errorName = (fn: () => unknown) => {
  try {
    fn()
    return 'NONE'
  } catch (err) {
    assert.ok(err instanceof KafkaError)
    return err.errorName
  }
}

describe('timestamp policy', () => {
  it('LogAppendTime sets the attribute bit and maxTimestamp, recomputes the CRC, and updates the header', () => {
    const buf = Buffer.concat([batchOf([NOW - 5000, NOW - 4000]), batchOf([NOW - 10])])
    const headers = apply(buf, { logAppendTime: true, beforeMaxMs: 1, afterMaxMs: 1 })
    let pos = 0
    for (const h of headers) {
      const stored = readBatchHeader(buf, pos)
      assert.equal(stored.timestampType, TimestampType.LogAppendTime)
      assert.equal(stored.maxTimestamp, NOW)
      assert.ok(batchCrcMatches(buf, pos, stored.sizeBytes), 'CRC matches the rewritten header')
      assert.equal(h.maxTimestamp, NOW)
      assert.equal(h.timestampType, TimestampType.LogAppendTime)
      pos += stored.sizeBytes
    }
    assert.deepEqual([...iterateRecords(buf, 0)].map((r) => r.timestamp), [NOW, NOW], 'readers see the append time')
    assert.equal(errorName(() => validateProducedBatches(buf, { maxBatchBytes: 1 << 20 })), 'NONE', 'still a valid batch')
  })

  it('CreateTime without bounds leaves the bytes alone', () => {
    const buf = batchOf([1, NOW * 2])
    const copy = Buffer.from(buf)
    apply(buf, createTime())
    assert.deepEqual(buf, copy)
  })

  it('checks every record of an uncompressed batch against before/after.max.ms', () => {
    assert.equal(errorName(() => apply(batchOf([NOW - 60_000, NOW, NOW + 1000]), createTime(60_000, 1000))), 'NONE')
    assert.equal(errorName(() => apply(batchOf([NOW, NOW - 60_001]), createTime(60_000, 1000))), 'INVALID_TIMESTAMP')
    assert.equal(errorName(() => apply(batchOf([NOW, NOW + 1001]), createTime(60_000, 1000))), 'INVALID_TIMESTAMP')
    assert.equal(errorName(() => apply(batchOf([-1]), createTime(0, 0))), 'NONE', 'records without a timestamp pass')
  })

  it('checks a compressed batch by its header timestamps', () => {
    const buf = batchOf([NOW - 120_000, NOW])
    buf.writeInt16BE(buf.readInt16BE(ATTRIBUTES_OFFSET) | CompressionType.Gzip, ATTRIBUTES_OFFSET)
    writeBatchCrc(buf, 0)
    // Headers only: the records are not decompressed on the produce path.
    const check = (policy: TimestampPolicy) => errorName(() => applyTimestampPolicy(buf, [readBatchHeader(buf, 0)], policy, NOW))
    assert.equal(check(createTime(60_000, NEVER)), 'INVALID_TIMESTAMP')
    assert.equal(check(createTime(200_000, NEVER)), 'NONE')
  })

  it('refuses a batch the producer marked LogAppendTime', () => {
    const forged = buildRecordBatch({ records: [{ key: null, value: null, timestamp: NOW }], attributes: 0x08 })
    assert.equal(errorName(() => apply(forged, createTime())), 'INVALID_TIMESTAMP')
  })
})
