// The produce path's single validation pass (src/replication/log-validator.ts): the records of a
// compressed batch walked as Kafka's LogValidator walks them, compression bombs, the batch rebuilt
// for the topic's compression.type from the records already decompressed, several batches of
// which only some are rebuilt (decompressed at most once: append-decompress-once.test.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { KafkaError, RecordValidationError } from '../../../src/protocol/errors.js'
import {
  ATTRIBUTES_OFFSET,
  BATCH_HEADER_SIZE,
  type BatchHeader,
  batchCrcMatches,
  CompressionType,
  readBatchHeader,
  TimestampType,
  writeBatchCrc,
} from '../../../src/protocol/records/batch.js'
import { buildRecordBatch, type RecordInput } from '../../../src/protocol/records/builder.js'
import { compress } from '../../../src/protocol/records/compression.js'
import { iterateBatches, iterateRecords } from '../../../src/protocol/records/iterator.js'
import { type RecordPolicy, type ValidationContext, validateRecords } from '../../../src/replication/log-validator.js'

const NOW = 1_700_000_000_000
const MiB = 1024 * 1024
const CODECS = [CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd] as const
const CTX: ValidationContext = { partition: 'facts-0', maxBatchBytes: MiB, maxDecompressedBytes: MiB, now: NOW }
const CREATE_TIME: RecordPolicy = { logAppendTime: false, beforeMaxMs: Number.MAX_SAFE_INTEGER, afterMaxMs: Number.MAX_SAFE_INTEGER }

const RECORDS: RecordInput[] = [
  { key: Buffer.from('k1'), value: Buffer.from('v1'), timestamp: NOW - 1000 },
  { key: Buffer.from('k2'), value: null, timestamp: NOW - 500 },
  { key: Buffer.from('k3'), value: Buffer.alloc(5000, 'x'), headers: [{ key: 'h', value: Buffer.from('hv') }], timestamp: NOW - 2000 },
]

const code = (name: string) => (err: unknown) =>
  err instanceof KafkaError && !(err instanceof RecordValidationError) && err.errorName === name

/** Keys, values, headers and timestamps of every record of buf, comparable with deepEqual. */
function plain(buf: Buffer) {
  const out: unknown[] = []
  for (const h of iterateBatches(buf)) {
    for (const r of iterateRecords(buf, h.position)) {
      out.push([
        r.offset,
        r.timestamp,
        r.key?.toString() ?? null,
        r.value?.toString() ?? null,
        r.headers.map((x) => [x.key, x.value?.toString() ?? null]),
      ])
    }
  }
  return out
}

/** A batch whose records section is `section` (uncompressed records) encoded with codec, its header claiming recordCount records. */
function withSection(codec: number, section: Buffer, recordCount: number): Buffer {
  const base = buildRecordBatch({ records: [{ key: null, value: null }] })
  const z = codec === CompressionType.None ? section : compress(codec, section)
  const out = Buffer.concat([base.subarray(0, BATCH_HEADER_SIZE), z])
  out.writeInt32BE(out.length - 12, 8)
  out.writeInt16BE(codec, ATTRIBUTES_OFFSET)
  out.writeInt32BE(recordCount - 1, 23)
  out.writeInt32BE(recordCount, 57)
  writeBatchCrc(out, 0)
  return out
}

describe('log validator: the records of a batch', () => {
  const section = buildRecordBatch({ records: RECORDS }).subarray(BATCH_HEADER_SIZE)

  it("walks a compressed batch's records as Kafka's LogValidator does", () => {
    const ok = withSection(CompressionType.Gzip, section, 3)
    assert.equal(validateRecords(ok, CREATE_TIME, CTX).batches.length, 1)
    // the header says 4 records, the data holds 3
    assert.throws(
      () => validateRecords(withSection(CompressionType.Gzip, section, 4), CREATE_TIME, CTX),
      (e: unknown) => code('INVALID_RECORD')(e) && /premature EOF/.test((e as Error).message),
    )
    // the header says 2 records, the data holds 3
    assert.throws(
      () => validateRecords(withSection(CompressionType.Lz4, section, 2), CREATE_TIME, CTX),
      (e: unknown) => code('INVALID_RECORD')(e) && /bytes remain/.test((e as Error).message),
    )
    // offset deltas 0, 2, 4 instead of 0, 1, 2
    const gaps = buildRecordBatch({ records: RECORDS.map((r, i) => ({ ...r, offsetDelta: i * 2 })) }).subarray(BATCH_HEADER_SIZE)
    assert.throws(
      () => validateRecords(withSection(CompressionType.Snappy, gaps, 3), CREATE_TIME, CTX),
      (e: unknown) => code('INVALID_RECORD')(e) && /incremental/.test((e as Error).message),
    )
    // garbage inside a valid zstd stream
    assert.throws(
      () => validateRecords(withSection(CompressionType.Zstd, Buffer.alloc(50, 0xff), 3), CREATE_TIME, CTX),
      code('INVALID_RECORD'),
    )
    // data that is not gzip at all
    const notGzip = withSection(CompressionType.None, section, 3)
    notGzip.writeInt16BE(CompressionType.Gzip, ATTRIBUTES_OFFSET)
    writeBatchCrc(notGzip, 0)
    assert.throws(() => validateRecords(notGzip, CREATE_TIME, CTX), code('CORRUPT_MESSAGE'))
  })

  it('refuses a compression bomb with INVALID_RECORD, for every codec', () => {
    for (const codec of CODECS) {
      const b = buildRecordBatch({ records: RECORDS, compression: codec })
      assert.equal(validateRecords(b, CREATE_TIME, CTX).batches.length, 1)
      assert.throws(() => validateRecords(b, CREATE_TIME, { ...CTX, maxDecompressedBytes: 1000 }), code('INVALID_RECORD'), `codec ${codec}`)
    }
  })

  it('leaves the records of an uncompressed batch unread when no rule needs them', () => {
    // 3 records followed by 5 stray bytes: only a walk can tell
    const stray = withSection(CompressionType.None, Buffer.concat([section, Buffer.alloc(5)]), 3)
    assert.equal(validateRecords(stray, CREATE_TIME, CTX).records, stray)
    assert.throws(
      () => validateRecords(stray, { ...CREATE_TIME, requireKeys: true }, CTX),
      (e: unknown) => code('INVALID_RECORD')(e) && /bytes remain/.test((e as Error).message),
    )
    assert.throws(() => validateRecords(stray, { ...CREATE_TIME, beforeMaxMs: 60_000 }, CTX), code('INVALID_RECORD'))
  })

  it('names the offending records of a compressed batch in the same walk (KIP-467)', () => {
    const b = buildRecordBatch({
      compression: CompressionType.Lz4,
      records: [RECORDS[0]!, { ...RECORDS[1]!, key: null }, { ...RECORDS[2]!, timestamp: NOW - 3_600_001 }],
    })
    assert.throws(
      () => validateRecords(b, { ...CREATE_TIME, beforeMaxMs: 3_600_000, requireKeys: true }, CTX),
      (e: unknown) =>
        e instanceof RecordValidationError &&
        e.errorName === 'INVALID_TIMESTAMP' &&
        e.recordErrors.map((x) => x.batchIndex).join() === '1,2' &&
        /^Compacted topic cannot accept message without key in topic partition facts-0$/.test(e.recordErrors[0]!.message!),
    )
  })
})

describe('log validator: what is stored', () => {
  it("keeps the producer's bytes (the same buffer) with compression.type producer or the batch's own codec", () => {
    for (const codec of CODECS) {
      const b = buildRecordBatch({ records: RECORDS, compression: codec })
      const copy = Buffer.from(b)
      assert.equal(validateRecords(b, CREATE_TIME, CTX).records, b)
      const name = { 1: 'gzip', 2: 'snappy', 3: 'lz4', 4: 'zstd' }[codec]
      assert.equal(validateRecords(b, { ...CREATE_TIME, compressionType: name }, CTX).records, b)
      assert.deepEqual(b, copy, 'not a byte changed')
    }
  })

  it("rebuilds a batch with the topic's codec: same header fields and records, new codec, length and CRC", () => {
    const src = buildRecordBatch({
      records: RECORDS,
      compression: CompressionType.Snappy,
      producerId: 42,
      producerEpoch: 3,
      baseSequence: 17,
      attributes: 0x10,
    })
    const reference = plain(src)
    const srcHeader = readBatchHeader(src, 0)
    const same = (h: BatchHeader) => ({ ...h, position: 0, sizeBytes: 0, crc: 0, attributes: 0, compression: 0 })
    for (const [name, codec] of [
      ['uncompressed', 0],
      ['gzip', 1],
      ['lz4', 3],
      ['zstd', 4],
    ] as const) {
      const { records, batches } = validateRecords(
        Buffer.from(src),
        { ...CREATE_TIME, compressionType: name, compressionLevel: name === 'gzip' ? 9 : undefined },
        CTX,
      )
      const h = readBatchHeader(records, 0)
      assert.deepEqual(batches, [h], `${name}: the headers returned are those of the bytes returned`)
      assert.equal(h.compression, codec)
      assert.equal(h.attributes, 0x10 | codec)
      assert.equal(h.sizeBytes, records.length)
      assert.ok(batchCrcMatches(records, 0, records.length), `${name}: CRC`)
      assert.deepEqual(same(h), same(srcHeader))
      assert.equal(h.timestampType, TimestampType.CreateTime)
      assert.deepEqual(plain(records), reference)
    }
  })

  it('stamps LogAppendTime into a rebuilt batch, and in place into a kept one', () => {
    const lat: RecordPolicy = { ...CREATE_TIME, logAppendTime: true, compressionType: 'zstd' }
    const rebuilt = validateRecords(buildRecordBatch({ records: RECORDS, compression: CompressionType.Gzip }), lat, CTX)
    const kept = buildRecordBatch({ records: RECORDS, compression: CompressionType.Zstd })
    const inPlace = validateRecords(kept, lat, CTX)
    assert.equal(inPlace.records, kept)
    for (const { records, batches } of [rebuilt, inPlace]) {
      const h = readBatchHeader(records, 0)
      assert.equal(h.compression, CompressionType.Zstd)
      assert.equal(h.timestampType, TimestampType.LogAppendTime)
      assert.equal(h.maxTimestamp, NOW)
      assert.ok(batchCrcMatches(records, 0, records.length))
      assert.deepEqual(batches, [h])
      assert.deepEqual(
        [...iterateRecords(records)].map((r) => r.timestamp),
        [NOW, NOW, NOW],
      )
    }
  })

  it('rebuilds only the batches whose codec differs, and positions every header in the new buffer', () => {
    const a = buildRecordBatch({ records: RECORDS, compression: CompressionType.Lz4 })
    const b = buildRecordBatch({ baseOffset: 3, records: RECORDS, compression: CompressionType.Gzip })
    const c = buildRecordBatch({ baseOffset: 6, records: RECORDS.slice(0, 1) })
    const input = Buffer.concat([a, b, c])
    const reference = plain(input)
    const { records, batches } = validateRecords(input, { ...CREATE_TIME, compressionType: 'lz4' }, CTX)
    assert.notEqual(records, input)
    assert.deepEqual(batches, [...iterateBatches(records)])
    assert.deepEqual(
      batches.map((h) => h.compression),
      [CompressionType.Lz4, CompressionType.Lz4, CompressionType.Lz4],
    )
    assert.ok(records.subarray(0, a.length).equals(a), "the first batch is the producer's bytes")
    assert.deepEqual(plain(records), reference)
  })

  it('MESSAGE_TOO_LARGE when a rebuilt batch outgrows max.message.bytes', () => {
    const big = buildRecordBatch({ records: [{ key: Buffer.from('k'), value: Buffer.alloc(50_000) }], compression: CompressionType.Lz4 })
    const ctx = { ...CTX, maxBatchBytes: 10_000 }
    assert.equal(validateRecords(big, CREATE_TIME, ctx).records, big)
    assert.throws(() => validateRecords(big, { ...CREATE_TIME, compressionType: 'uncompressed' }, ctx), code('MESSAGE_TOO_LARGE'))
  })

  it('INVALID_CONFIG for a compression.type it does not know', () => {
    assert.throws(
      () => validateRecords(buildRecordBatch({ records: RECORDS }), { ...CREATE_TIME, compressionType: 'brotli' }, CTX),
      code('INVALID_CONFIG'),
    )
  })
})
