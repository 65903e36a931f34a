// The produce path's timestamp rules (message.timestamp.type, KIP-937 bounds) on batches alone.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { KafkaError } from '../../../src/protocol/errors.js'
import {
  batchCrcMatches,
  CompressionType,
  readBatchHeader,
  TimestampType,
  validateProducedBatches,
} from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { iterateRecords } from '../../../src/protocol/records/iterator.js'
import { type TimestampPolicy, validateRecords } from '../../../src/replication/log-validator.js'

const NOW = 1_700_000_000_000
const NEVER = Number.MAX_SAFE_INTEGER
const createTime = (beforeMaxMs = NEVER, afterMaxMs = NEVER): TimestampPolicy => ({ logAppendTime: false, beforeMaxMs, afterMaxMs })

function batchOf(timestamps: number[]): Buffer {
  return buildRecordBatch({ records: timestamps.map((t, i) => ({ key: null, value: Buffer.from(`v${i}`), timestamp: t })) })
}

/** The produce path's validation (log-validator.ts) of buf; returns the headers of what it stores. */
function apply(buf: Buffer, policy: TimestampPolicy) {
  const out = validateRecords(buf, policy, { partition: 't-0', maxBatchBytes: 1 << 20, maxDecompressedBytes: 1 << 20, now: NOW })
  assert.equal(out.records, buf, "no compression.type: the producer's buffer is stored")
  return out.batches
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
    assert.deepEqual(
      [...iterateRecords(buf, 0)].map((r) => r.timestamp),
      [NOW, NOW],
      'readers see the append time',
    )
    assert.equal(
      errorName(() => validateProducedBatches(buf, { maxBatchBytes: 1 << 20 })),
      'NONE',
      'still a valid batch',
    )
  })

  it('CreateTime without bounds leaves the bytes alone', () => {
    const buf = batchOf([1, NOW * 2])
    const copy = Buffer.from(buf)
    apply(buf, createTime())
    assert.deepEqual(buf, copy)
  })

  it('checks every record of an uncompressed batch against before/after.max.ms', () => {
    assert.equal(
      errorName(() => apply(batchOf([NOW - 60_000, NOW, NOW + 1000]), createTime(60_000, 1000))),
      'NONE',
    )
    assert.equal(
      errorName(() => apply(batchOf([NOW, NOW - 60_001]), createTime(60_000, 1000))),
      'INVALID_TIMESTAMP',
    )
    assert.equal(
      errorName(() => apply(batchOf([NOW, NOW + 1001]), createTime(60_000, 1000))),
      'INVALID_TIMESTAMP',
    )
    assert.equal(
      errorName(() => apply(batchOf([-1]), createTime(0, 0))),
      'NONE',
      'records without a timestamp pass',
    )
  })

  it('checks every record of a compressed batch, not its header timestamps', () => {
    // baseTimestamp and maxTimestamp both say NOW; the second record is two minutes older.
    const records = [NOW, NOW - 120_000, NOW].map((t, i) => ({ key: null, value: Buffer.from(`v${i}`), timestamp: t }))
    const buf = buildRecordBatch({ compression: CompressionType.Gzip, baseTimestamp: NOW, records })
    assert.equal(readBatchHeader(buf, 0).maxTimestamp, NOW)
    assert.equal(
      errorName(() => apply(buf, createTime(60_000, NEVER))),
      'INVALID_TIMESTAMP',
    )
    assert.equal(
      errorName(() => apply(buf, createTime(200_000, NEVER))),
      'NONE',
    )
  })

  it('refuses a batch the producer marked LogAppendTime', () => {
    const forged = buildRecordBatch({ records: [{ key: null, value: null, timestamp: NOW }], attributes: 0x08 })
    assert.equal(
      errorName(() => apply(forged, createTime())),
      'INVALID_TIMESTAMP',
    )
  })
})
