// The codecs of compression.ts: round trips, the byte formats other clients write (raw and xerial
// snappy, linked lz4 blocks, zstd frames without a content size, skippable frames), corrupt and
// truncated input, and compression bombs refused before they expand past the limit. Then the
// records layer on top: compressed batches built, iterated, and their headers validated as a
// producer's (their records, and recompression, in test/unit/replication/log-validator.test.ts).
import assert from 'node:assert/strict'
import { gzipSync } from 'node:zlib'
import { test } from 'node:test'
import * as lz4 from 'lz4-napi'
import * as snappy from 'snappy'
import { KafkaError } from '../../../../src/protocol/errors.js'
import {
  ATTRIBUTES_OFFSET,
  BATCH_HEADER_SIZE,
  batchCrcMatches,
  readBatchHeader,
  validateProducedBatches,
  writeBatchCrc,
} from '../../../../src/protocol/records/batch.js'
import { buildRecordBatch, type RecordInput } from '../../../../src/protocol/records/builder.js'
import { CompressionType, codecByName, compress, decompress, xxh32 } from '../../../../src/protocol/records/compression.js'
import { iterateRecords } from '../../../../src/protocol/records/iterator.js'

const CODECS = [CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd] as const
const NAMES: Record<number, string> = { 1: 'gzip', 2: 'snappy', 3: 'lz4', 4: 'zstd' }
const MiB = 1024 * 1024

function code(name: string) {
  return (err: unknown) => err instanceof KafkaError && err.errorName === name
}

/** Text-like data that compresses but is not trivially repetitive. */
function sample(size: number): Buffer {
  const b = Buffer.alloc(size)
  let x = 12345
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    b[i] = 97 + ((x >>> 16) % 13)
  }
  return b
}

// ---------------------------------------------------------------------------------------------
// Codecs

test('every codec round-trips empty, small and multi-block data', () => {
  for (const codec of CODECS) {
    for (const size of [0, 1, 100, 70_000, 5 * MiB + 3]) {
      const data = sample(size)
      const z = compress(codec, data)
      const back = decompress(codec, z, 8 * MiB)
      assert.ok(back.equals(data), `${NAMES[codec]} ${size} bytes`)
      if (size >= 70_000) assert.ok(z.length < size, `${NAMES[codec]} compresses`)
    }
  }
})

test('compression levels are honoured (gzip, zstd) and codec names map to ids', () => {
  const lines: string[] = []
  for (let i = 0; i < 3000; i++)
    lines.push(
      JSON.stringify({ id: i, user: `user-${(i * 7919) % 613}`, kind: ['click', 'view', 'buy'][i % 3], at: 1_700_000_000_000 + i * 37 }),
    )
  const data = Buffer.from(lines.join('\n'))
  for (const [codec, low, high] of [
    [CompressionType.Gzip, 1, 9],
    [CompressionType.Zstd, 1, 19],
  ] as const) {
    const fast = compress(codec, data, low)
    const small = compress(codec, data, high)
    assert.ok(small.length < fast.length, `${NAMES[codec]} level ${high} beats level ${low}`)
    assert.ok(decompress(codec, small, MiB).equals(data))
  }
  assert.ok(decompress(CompressionType.Gzip, compress(CompressionType.Gzip, data, -1), MiB).equals(data))
  assert.deepEqual(['uncompressed', 'none', 'gzip', 'snappy', 'lz4', 'zstd', 'producer', 'brotli'].map(codecByName), [
    0,
    0,
    1,
    2,
    3,
    4,
    undefined,
    undefined,
  ])
})

test('codecs 5-7 are UNSUPPORTED_COMPRESSION_TYPE', () => {
  for (const codec of [5, 6, 7]) {
    assert.throws(() => decompress(codec, Buffer.from('x'), MiB), code('UNSUPPORTED_COMPRESSION_TYPE'))
    assert.throws(() => compress(codec, Buffer.from('x')), code('UNSUPPORTED_COMPRESSION_TYPE'))
  }
})

test('truncated input and wrong magic are CORRUPT_MESSAGE for every codec', () => {
  const data = sample(300_000)
  for (const codec of CODECS) {
    const z = compress(codec, data)
    for (const cut of [1, 5, Math.floor(z.length / 2)]) {
      assert.throws(() => decompress(codec, z.subarray(0, z.length - cut), MiB), code('CORRUPT_MESSAGE'), `${NAMES[codec]} cut ${cut}`)
    }
    const badMagic = Buffer.from(z)
    badMagic[1] = (badMagic[1]! ^ 0x5a) & 0xff
    assert.throws(() => decompress(codec, badMagic, MiB), code('CORRUPT_MESSAGE'), `${NAMES[codec]} magic`)
    assert.throws(() => decompress(codec, Buffer.alloc(0), MiB), code('CORRUPT_MESSAGE'), `${NAMES[codec]} empty input`)
  }
})

test('output larger than the limit is INVALID_RECORD, and exactly the limit is accepted', () => {
  const data = sample(100_000)
  for (const codec of CODECS) {
    const z = compress(codec, data)
    assert.ok(decompress(codec, z, data.length).equals(data), `${NAMES[codec]} at the limit`)
    assert.throws(() => decompress(codec, z, data.length - 1), code('INVALID_RECORD'), `${NAMES[codec]} one byte over`)
  }
})

// ---------------------------------------------------------------------------------------------
// Compression bombs: a tiny input that would expand to 1 GiB is refused at the limit.

/**
 * The bomb is refused with INVALID_RECORD, and the buffers allocated meanwhile (Node buffers and the
 * zstd WebAssembly memory are array buffers) stayed within a few times the limit — far below what
 * following the bomb would take (64 MiB to 1 GiB).
 */
function assertRefusedCheaply(codec: number, bomb: Buffer, limit: number): void {
  const before = process.memoryUsage().arrayBuffers
  assert.throws(() => decompress(codec, bomb, limit), code('INVALID_RECORD'), `${NAMES[codec]} bomb of ${bomb.length} bytes`)
  const grown = process.memoryUsage().arrayBuffers - before
  assert.ok(grown < 4 * limit + 16 * MiB, `${NAMES[codec]}: array buffers grew by ${grown} bytes`)
}

test('gzip bomb: 64 MiB of zeros in ~64 KB is refused at a 1 MiB limit', () => {
  const bomb = gzipSync(Buffer.alloc(64 * MiB))
  assert.ok(bomb.length < 100_000)
  assertRefusedCheaply(CompressionType.Gzip, bomb, MiB)
})

test('snappy bomb: a raw block declaring 4 GiB, and a xerial stream of many blocks, are refused', () => {
  // raw block whose length preamble says 0xffffffff: refused before the decoder allocates it
  const lying = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00])
  assertRefusedCheaply(CompressionType.Snappy, lying, MiB)
  // a real xerial stream of 64 MiB of zeros
  const bomb = compress(CompressionType.Snappy, Buffer.alloc(64 * MiB))
  assertRefusedCheaply(CompressionType.Snappy, bomb, MiB)
})

/** An LZ4 frame with the given flag and BD bytes, a correct header checksum, and these blocks. */
function lz4Frame(flg: number, bd: number, blocks: Buffer[], contentSize?: number): Buffer {
  const descriptor = contentSize === undefined ? Buffer.from([flg, bd]) : Buffer.alloc(10)
  if (contentSize !== undefined) {
    descriptor[0] = flg | 0x08
    descriptor[1] = bd
    descriptor.writeUInt32LE(contentSize % 2 ** 32, 2)
    descriptor.writeUInt32LE(Math.floor(contentSize / 2 ** 32), 6)
  }
  const hc = (xxh32(descriptor, 0, descriptor.length, 0) >>> 8) & 0xff
  const parts: Buffer[] = [Buffer.from([0x04, 0x22, 0x4d, 0x18]), descriptor, Buffer.from([hc])]
  for (const b of blocks) {
    const size = Buffer.alloc(4)
    size.writeUInt32LE(b.length, 0)
    parts.push(size, b)
  }
  parts.push(Buffer.alloc(4)) // EndMark
  return Buffer.concat(parts)
}

/** lz4-napi's size-prepended block → the bare block. */
const bareBlock = (data: Buffer, dict?: Buffer) => (dict ? lz4.compressSync(data, dict) : lz4.compressSync(data)).subarray(4)

test('lz4 bomb: 256 blocks of 4 MiB of zeros (1 GiB in ~4 MB) are refused; a lying content size too', () => {
  const block = bareBlock(Buffer.alloc(4 * MiB))
  const bomb = lz4Frame(
    0x60,
    0x70,
    Array.from({ length: 256 }, () => block),
  )
  assert.ok(bomb.length < 8 * MiB)
  assertRefusedCheaply(CompressionType.Lz4, bomb, 16 * MiB)
  const declared = lz4Frame(0x60, 0x70, [bareBlock(Buffer.from('small'))], 2 ** 40)
  assert.throws(() => decompress(CompressionType.Lz4, declared, MiB), code('INVALID_RECORD'))
})

/** A zstd frame header without a content size (window descriptor 2^20), then the given blocks. */
function zstdFrame(blocks: Buffer[]): Buffer {
  return Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x50]), ...blocks])
}

/** A zstd block header: last flag, type (0 raw, 1 RLE, 2 compressed), size. */
function zstdBlockHeader(last: boolean, type: number, size: number): Buffer {
  const v = (last ? 1 : 0) | (type << 1) | (size << 3)
  return Buffer.from([v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff])
}

test('zstd bomb: 8192 RLE blocks of 128 KiB (1 GiB in 32 KB) are refused; a lying content size too', () => {
  const blocks: Buffer[] = []
  for (let i = 0; i < 8192; i++) blocks.push(zstdBlockHeader(i === 8191, 1, 128 * 1024), Buffer.from([0]))
  const bomb = zstdFrame(blocks)
  assert.ok(bomb.length < 40_000)
  assertRefusedCheaply(CompressionType.Zstd, bomb, 16 * MiB)
  // within the limit the same construction decodes
  const small = zstdFrame([zstdBlockHeader(false, 1, 1000), Buffer.from([7]), zstdBlockHeader(true, 0, 3), Buffer.from('abc')])
  assert.ok(decompress(CompressionType.Zstd, small, MiB).equals(Buffer.concat([Buffer.alloc(1000, 7), Buffer.from('abc')])))
  // a frame that declares 2^40 bytes of content (FCS flag 3: 8 bytes) is refused before decoding
  const declared = Buffer.concat([
    Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x50]),
    Buffer.from([0, 0, 0, 0, 0, 1, 0, 0]),
    zstdBlockHeader(true, 0, 1),
    Buffer.from('x'),
  ])
  assert.throws(() => decompress(CompressionType.Zstd, declared, MiB), code('INVALID_RECORD'))
})

// ---------------------------------------------------------------------------------------------
// Formats written by other clients

test('snappy: raw blocks (librdkafka, kafkajs) and concatenated xerial streams (snappy-java) decode', () => {
  const data = sample(100_000)
  assert.ok(decompress(CompressionType.Snappy, snappy.compressSync(data), MiB).equals(data))
  const x = compress(CompressionType.Snappy, data)
  assert.equal(x.subarray(0, 8).toString('latin1'), '\x82SNAPPY\x00')
  assert.equal(x.readInt32BE(8), 1)
  assert.equal(x.readInt32BE(12), 1)
  // 100,000 bytes in 32 KiB blocks: 4 blocks
  let blocks = 0
  for (let pos = 16; pos < x.length; pos += 4 + x.readInt32BE(pos)) blocks++
  assert.equal(blocks, 4)
  const two = Buffer.concat([x, compress(CompressionType.Snappy, Buffer.from('tail'))])
  assert.ok(decompress(CompressionType.Snappy, two, MiB).equals(Buffer.concat([data, Buffer.from('tail')])))
  // a block length running past the data
  const bad = Buffer.from(x)
  bad.writeInt32BE(1 << 30, 16)
  assert.throws(() => decompress(CompressionType.Snappy, bad, MiB), code('CORRUPT_MESSAGE'))
})

test('lz4: the header checksum is verified (KIP-57), linked blocks and uncompressed blocks decode', () => {
  // xxHash32 reference values
  assert.equal(xxh32(Buffer.alloc(0), 0, 0, 0), 0x02cc5d05)
  assert.equal(xxh32(Buffer.from('abc'), 0, 3, 0), 0x32d153ff)
  const long = Buffer.from('Nobody inspects the spammish repetition')
  assert.equal(xxh32(long, 0, long.length, 0), 0xe2293b2f)

  const framed = compress(CompressionType.Lz4, sample(1000))
  const broken = Buffer.from(framed)
  broken[6] = (broken[6]! + 1) & 0xff // the header checksum byte (magic 4, FLG, BD, HC)
  assert.throws(() => decompress(CompressionType.Lz4, broken, MiB), /descriptor checksum/)

  // linked blocks (FLG 0x40: block independence off): the second block refers to the first's output
  const a = sample(60_000)
  const b = Buffer.concat([a.subarray(10_000, 40_000), sample(5000)])
  const linked = lz4Frame(0x40, 0x40, [bareBlock(a), bareBlock(b, a)])
  assert.ok(decompress(CompressionType.Lz4, linked, MiB).equals(Buffer.concat([a, b])))
  // an uncompressed block (size word's high bit) and a second frame
  const raw = Buffer.from('stored as is')
  const rawWord = Buffer.alloc(4)
  rawWord.writeUInt32LE((raw.length | 0x80000000) >>> 0, 0)
  const magicAndDescriptor = lz4Frame(0x60, 0x40, []).subarray(0, 7)
  const rawFrame = Buffer.concat([magicAndDescriptor, rawWord, raw, Buffer.alloc(4)])
  assert.ok(decompress(CompressionType.Lz4, Buffer.concat([rawFrame, framed]), MiB).equals(Buffer.concat([raw, sample(1000)])))
  // a block larger than the frame's declared maximum
  assert.throws(() => decompress(CompressionType.Lz4, lz4Frame(0x60, 0x40, [Buffer.alloc(70_000)]), MiB), code('CORRUPT_MESSAGE'))
})

test('zstd: several frames and skippable frames decode; a corrupt block is CORRUPT_MESSAGE', () => {
  const a = sample(200_000)
  const skippable = Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3])
  const z = Buffer.concat([compress(CompressionType.Zstd, a), skippable, compress(CompressionType.Zstd, Buffer.from('second'))])
  assert.ok(decompress(CompressionType.Zstd, z, MiB).equals(Buffer.concat([a, Buffer.from('second')])))
  const corrupt = compress(CompressionType.Zstd, a)
  for (let i = 20; i < 60; i++) corrupt[i] = 0xff
  assert.throws(() => decompress(CompressionType.Zstd, corrupt, MiB), code('CORRUPT_MESSAGE'))
})

// ---------------------------------------------------------------------------------------------
// Compressed record batches

const RECORDS: RecordInput[] = [
  { key: Buffer.from('k1'), value: Buffer.from('v1'), timestamp: 1_700_000_000_000 },
  { key: null, value: null, timestamp: 1_700_000_000_500 },
  {
    key: Buffer.from('k3'),
    value: Buffer.alloc(5000, 'x'),
    headers: [{ key: 'h', value: Buffer.from('hv') }],
    timestamp: 1_699_999_999_000,
  },
]

function plain(rs: ReturnType<typeof iterateRecords>) {
  return [...rs].map((r) => ({
    ...r,
    key: r.key?.toString() ?? null,
    value: r.value?.toString() ?? null,
    headers: r.headers.map((h) => [h.key, h.value?.toString() ?? null]),
  }))
}

test('buildRecordBatch compresses; iterateRecords and validateProducedBatches read it back', () => {
  const reference = plain(iterateRecords(buildRecordBatch({ baseOffset: 7, records: RECORDS })))
  for (const codec of CODECS) {
    const b = buildRecordBatch({ baseOffset: 7, records: RECORDS, compression: codec, producerId: 9, producerEpoch: 1, baseSequence: 4 })
    const h = readBatchHeader(b, 0)
    assert.equal(h.compression, codec)
    assert.equal(h.recordCount, 3)
    assert.ok(batchCrcMatches(b, 0, b.length))
    assert.ok(b.length < 5000, `${NAMES[codec]} batch is compressed (${b.length} bytes)`)
    assert.deepEqual(plain(iterateRecords(b)), reference, NAMES[codec])
    assert.equal(validateProducedBatches(b, { maxBatchBytes: 1 << 20, produceVersion: 9 }).length, 1)
    // the bound applies to iteration as to the produce path's validation (log-validator.test.ts)
    assert.throws(() => [...iterateRecords(b, 0, 1000)], code('INVALID_RECORD'))
  }
  assert.throws(() => buildRecordBatch({ records: RECORDS, attributes: 1 }), RangeError)
})

/** Rewrites a batch's records section (decompressed `section`, re-encoded with codec) and its CRC. */
function withSection(codec: number, section: Buffer, recordCount: number): Buffer {
  const base = buildRecordBatch({ records: [{ key: null, value: null }] })
  const z = compress(codec, section)
  const out = Buffer.concat([base.subarray(0, BATCH_HEADER_SIZE), z])
  out.writeInt32BE(out.length - 12, 8)
  out.writeInt16BE(codec, ATTRIBUTES_OFFSET)
  out.writeInt32BE(recordCount - 1, 23)
  out.writeInt32BE(recordCount, 57)
  writeBatchCrc(out, 0)
  return out
}

// The records of a compressed batch are walked by the produce path's validation (log-validator.test.ts).
test('validateProducedBatches checks the codec of compressed batches', () => {
  const opts = { maxBatchBytes: 1 << 20 }
  const section = buildRecordBatch({ records: RECORDS }).subarray(BATCH_HEADER_SIZE)
  assert.equal(validateProducedBatches(withSection(CompressionType.Gzip, section, 3), opts).length, 1)
  // codec 6; zstd before Produce v7 (and from v7 on it is accepted)
  const six = withSection(CompressionType.None, section, 3)
  six.writeInt16BE(6, ATTRIBUTES_OFFSET)
  writeBatchCrc(six, 0)
  assert.throws(() => validateProducedBatches(six, opts), code('UNSUPPORTED_COMPRESSION_TYPE'))
  const zstd = buildRecordBatch({ records: RECORDS, compression: CompressionType.Zstd })
  assert.throws(() => validateProducedBatches(zstd, { ...opts, produceVersion: 6 }), code('UNSUPPORTED_COMPRESSION_TYPE'))
  assert.equal(validateProducedBatches(zstd, { ...opts, produceVersion: 7 }).length, 1)
})
