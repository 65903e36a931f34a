// KIP-467 record errors on the produce path: which records of a refused batch are named, with
// which index and message, and what the batch's own error and message are (Kafka's LogValidator).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { KafkaError, RecordValidationError } from '../../../src/protocol/errors.js'
import { CompressionType } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { type TimestampPolicy, validateRecords } from '../../../src/replication/log-validator.js'

const NOW = 1_700_000_000_000
const HOUR = 3_600_000
/** The partition and its key rule, as the produce path gets them from the topic. */
type KeyRules = { partition: string; requireKeys: boolean; maxDecompressedBytes: number }
const BOUNDED: TimestampPolicy = { logAppendTime: false, beforeMaxMs: HOUR, afterMaxMs: HOUR }
const COMPACTED: KeyRules = { partition: 'facts-2', requireKeys: true, maxDecompressedBytes: 1 << 20 }
const KEEP_ALL: KeyRules = { ...COMPACTED, requireKeys: false }

type Spec = { key: string | null; timestamp?: number }
const batchOf = (records: Spec[], compression: number = CompressionType.None, baseOffset = 0) =>
  buildRecordBatch({
    baseOffset,
    compression,
    records: records.map((r, i) => ({
      key: r.key === null ? null : Buffer.from(r.key),
      value: Buffer.from(`v${i}`),
      timestamp: r.timestamp ?? NOW,
    })),
  })

/** What the produce path's validation (log-validator.ts) throws for these records, or null. */
function validate(buf: Buffer, keyRules: KeyRules, policy: TimestampPolicy = BOUNDED): void {
  const { partition, requireKeys, maxDecompressedBytes } = keyRules
  validateRecords(buf, { ...policy, requireKeys }, { partition, maxBatchBytes: 1 << 20, maxDecompressedBytes, now: NOW })
}

function refusal(buf: Buffer, keyRules: KeyRules, policy: TimestampPolicy = BOUNDED): RecordValidationError | null {
  try {
    validate(buf, keyRules, policy)
    return null
  } catch (err) {
    assert.ok(err instanceof RecordValidationError, `a RecordValidationError, got ${err}`)
    return err
  }
}

const keyMessage = 'Compacted topic cannot accept message without key in topic partition facts-2'

describe('record errors (KIP-467)', () => {
  it('names every keyless record of a compacted topic, by its index in the batch', () => {
    const err = refusal(batchOf([{ key: 'a' }, { key: null }, { key: 'c' }, { key: null }]), COMPACTED)!
    assert.equal(err.errorName, 'INVALID_RECORD')
    assert.deepEqual(err.recordErrors, [
      { batchIndex: 1, message: keyMessage },
      { batchIndex: 3, message: keyMessage },
    ])
    assert.equal(
      err.message,
      `One or more records have been rejected due to 2 record errors in total, and only showing the first three errors at most: [RecordError(batchIndex=1, message='${keyMessage}'), RecordError(batchIndex=3, message='${keyMessage}')]`,
    )
  })

  it('shows at most three errors in the summary but lists them all', () => {
    const err = refusal(batchOf([{ key: null }, { key: null }, { key: null }, { key: null }, { key: 'e' }]), COMPACTED)!
    assert.deepEqual(
      err.recordErrors.map((e) => e.batchIndex),
      [0, 1, 2, 3],
    )
    assert.match(err.message, /^One or more records have been rejected due to 4 record errors in total/)
    assert.equal(err.message.match(/RecordError\(/g)?.length, 3)
  })

  it('names every record out of the timestamp bounds; the batch is INVALID_TIMESTAMP', () => {
    const buf = batchOf(
      [{ key: 'a' }, { key: 'b', timestamp: NOW - 2 * HOUR }, { key: 'c', timestamp: NOW + 2 * HOUR }],
      CompressionType.None,
      0,
    )
    const err = refusal(buf, KEEP_ALL)!
    assert.equal(err.errorName, 'INVALID_TIMESTAMP')
    assert.equal(err.message, 'One or more records have been rejected due to invalid timestamp')
    const bounds = `[${NOW - HOUR}, ${NOW + HOUR}]`
    assert.deepEqual(err.recordErrors, [
      {
        batchIndex: 1,
        message: `Timestamp ${NOW - 2 * HOUR} of message with offset 1 is out of range. The timestamp should be within ${bounds}`,
      },
      {
        batchIndex: 2,
        message: `Timestamp ${NOW + 2 * HOUR} of message with offset 2 is out of range. The timestamp should be within ${bounds}`,
      },
    ])
  })

  it('the same from a compressed batch, whose records are walked only once it is refused', () => {
    for (const codec of [CompressionType.Gzip, CompressionType.Lz4, CompressionType.Zstd]) {
      const err = refusal(
        batchOf([{ key: 'a', timestamp: NOW - 3 * HOUR }, { key: 'b' }, { key: 'c', timestamp: NOW - 2 * HOUR }], codec),
        KEEP_ALL,
      )!
      assert.equal(err.errorName, 'INVALID_TIMESTAMP')
      assert.deepEqual(
        err.recordErrors.map((e) => e.batchIndex),
        [0, 2],
        `codec ${codec}`,
      )
      const keyless = refusal(batchOf([{ key: 'a' }, { key: null }], codec), COMPACTED)!
      assert.deepEqual(keyless.recordErrors, [{ batchIndex: 1, message: keyMessage }], `codec ${codec}`)
    }
  })

  it('one error per record, the key rule first; any timestamp error makes the batch INVALID_TIMESTAMP', () => {
    const buf = batchOf([{ key: null, timestamp: NOW - 2 * HOUR }, { key: 'b', timestamp: NOW - 2 * HOUR }, { key: null }, { key: 'd' }])
    const err = refusal(buf, COMPACTED)!
    assert.equal(err.errorName, 'INVALID_TIMESTAMP')
    assert.deepEqual(
      err.recordErrors.map((e) => [e.batchIndex, e.message?.startsWith('Compacted') ? 'key' : 'timestamp']),
      [
        [0, 'key'],
        [1, 'timestamp'],
        [2, 'key'],
      ],
    )
  })

  it('the message names the offset the producer gave the record (its base offset + delta)', () => {
    const err = refusal(batchOf([{ key: 'a' }, { key: 'b', timestamp: 5 }], CompressionType.None, 100), KEEP_ALL)!
    assert.match(err.recordErrors[0]!.message!, /^Timestamp 5 of message with offset 101 is out of range/)
  })

  it('records without a timestamp (-1) and batches within bounds are accepted', () => {
    assert.equal(refusal(batchOf([{ key: 'a', timestamp: -1 }, { key: 'b' }]), COMPACTED), null)
    assert.equal(
      refusal(batchOf([{ key: null, timestamp: NOW - 10 * HOUR }]), KEEP_ALL, { ...BOUNDED, beforeMaxMs: Number.MAX_SAFE_INTEGER }),
      null,
    )
  })

  it('a batch refused as a whole carries no record errors', () => {
    const forged = buildRecordBatch({ records: [{ key: Buffer.from('a'), value: null, timestamp: NOW }], attributes: 0x08 })
    assert.throws(
      () => validate(forged, COMPACTED),
      (err: unknown) => err instanceof KafkaError && !(err instanceof RecordValidationError) && err.errorName === 'INVALID_TIMESTAMP',
    )
  })
})
