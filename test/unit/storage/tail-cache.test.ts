// The tail cache (src/storage/tail-cache.ts) answers reads exactly as the segment files do. A
// property test runs the same appends, rolls, truncations and follower appends on two logs, one
// with a small cache shared with another log (so evictions come from both) and one without, and
// compares every read byte for byte; then the cache's own rules: what it holds stays within its
// limit, a log read at its tail does not touch the files, and only a log with a reader at the tail
// has its appends copied in.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { validateProducedBatches } from '../../../src/protocol/records/batch.js'
import { defaultLogConfig } from '../../../src/storage/log-config.js'
import { LogManager } from '../../../src/storage/log-manager.js'
import { MemoryFs } from '../../../src/storage/memory-fs.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import { READER_WINDOW_MS, TailCache } from '../../../src/storage/tail-cache.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { faultFs, makeBatch, tempDir } from './helpers.js'

type Op =
  | { kind: 'append'; batches: number[]; valueBytes: number; own: boolean }
  | { kind: 'other'; records: number }
  | { kind: 'truncate'; back: number }
  | { kind: 'read'; from: number; maxBytes: number; maxOffsetBack: number; minOne: boolean }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      batches: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 }),
      valueBytes: fc.integer({ min: 0, max: 120 }),
      own: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('other' as const), records: fc.integer({ min: 1, max: 20 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), back: fc.integer({ min: 0, max: 30 }) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      from: fc.integer({ min: 0, max: 1000 }),
      maxBytes: fc.integer({ min: 1, max: 6000 }),
      maxOffsetBack: fc.integer({ min: 0, max: 10 }),
      minOne: fc.boolean(),
    }),
  },
)

async function open(fs: MemoryFs, tailCache?: TailCache) {
  const mgr = await LogManager.open({
    fs,
    clock: new ManualClock(),
    logDir: '/data',
    // Small segments, so that appends roll them often.
    config: { ...defaultLogConfig, segmentBytes: 4000, indexIntervalBytes: 200 },
    logger: silentLogger,
    ...(tailCache ? { tailCache } : {}),
  })
  return { mgr, log: await mgr.create('t', 0, 'id-t'), other: await mgr.create('u', 0, 'id-u') }
}

/**
 * Appends batches of the given record counts; `own`: in memory of their own (the cache keeps such
 * an append as it is), else inside a larger buffer (the cache copies it).
 */
function append(log: PartitionLog, batches: number[], valueBytes: number, own = false) {
  const bytes = Buffer.concat(batches.map((n, i) => makeBatch(n, 1000 + i, 'v', valueBytes)))
  const records = own ? Buffer.alloc(bytes.length) : Buffer.alloc(bytes.length * 3).subarray(bytes.length, 2 * bytes.length)
  bytes.copy(records)
  return log.append(records, validateProducedBatches(records, { maxBatchBytes: 1 << 30 }), 0)
}

test('reads answered from the tail cache are the bytes the segment files give', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1000, max: 20_000 }), async (ops, limit) => {
      const cache = new TailCache(limit)
      const cached = await open(new MemoryFs(), cache)
      const plain = await open(new MemoryFs())
      try {
        for (const op of ops) {
          if (op.kind === 'append') {
            for (const l of [cached, plain]) await append(l.log, op.batches, op.valueBytes, op.own)
          } else if (op.kind === 'other') {
            for (const l of [cached, plain]) await append(l.other, [op.records], 50)
          } else if (op.kind === 'truncate') {
            const to = Math.max(0, plain.log.logEndOffset - op.back)
            for (const l of [cached, plain]) await l.log.truncateTo(to)
          } else {
            const leo = plain.log.logEndOffset
            const from = leo === 0 ? 0 : op.from % (leo + 1)
            const maxOffset = op.maxOffsetBack === 0 ? Number.MAX_SAFE_INTEGER : Math.max(0, leo - op.maxOffsetBack)
            const a = await cached.log.read(from, op.maxBytes, maxOffset, op.minOne)
            const b = await plain.log.read(from, op.maxBytes, maxOffset, op.minOne)
            assert.ok(
              a.records.equals(b.records),
              `read(${from}, ${op.maxBytes}, ${maxOffset}, ${op.minOne}): ${a.records.length} bytes, the files ${b.records.length}`,
            )
            assert.equal(a.logEndOffset, b.logEndOffset)
          }
          assert.ok(cache.stats().bytes <= limit, `the cache holds ${cache.stats().bytes} bytes, over its ${limit}`)
        }
      } finally {
        await cached.mgr.close()
        await plain.mgr.close()
      }
    }),
    { numRuns: 150 },
  )
})

test('a read at the tail is answered from memory; further back, from the files', async (t) => {
  const { fs, faults } = faultFs()
  const cache = new TailCache(1 << 20)
  const mgr = await LogManager.open({
    fs,
    clock: new ManualClock(),
    logDir: tempDir(t),
    config: defaultLogConfig,
    logger: silentLogger,
    tailCache: cache,
  })
  try {
    const log = await mgr.create('t', 0, 'id-t')
    // A consumer at the (empty) log's end: from now on the appends are kept.
    await log.read(0, 1 << 20, Number.MAX_SAFE_INTEGER, true)
    for (let i = 0; i < 10; i++) await append(log, [5], 100)
    const readsBefore = faults.reads
    const tail = await log.read(45, 1 << 20, Number.MAX_SAFE_INTEGER, true)
    assert.equal(faults.reads, readsBefore, 'no file read for the last batch')
    assert.equal(cache.stats().hits, 1)
    const all = await log.read(0, 1 << 20, Number.MAX_SAFE_INTEGER, true)
    assert.ok(all.records.length > tail.records.length)
    // The whole log is in the cache: read from the first append on.
    assert.equal(cache.stats().hits, 2)
    // A cache of 2 appends: the first ones left, so a read from 0 goes to the files.
    const small = new TailCache(2 * (tail.records.length + 1))
    const mgr2 = await LogManager.open({
      fs: new MemoryFs(),
      clock: new ManualClock(),
      logDir: '/d2',
      config: defaultLogConfig,
      logger: silentLogger,
      tailCache: small,
    })
    const log2 = await mgr2.create('t', 0, 'id-t')
    await log2.read(0, 1 << 20, Number.MAX_SAFE_INTEGER, true)
    for (let i = 0; i < 10; i++) await append(log2, [5], 100)
    assert.ok(small.stats().evictedBytes > 0)
    const fromFiles = await log2.read(0, 1 << 20, Number.MAX_SAFE_INTEGER, true)
    // The first read was at the log end, which is answered before the cache is asked.
    assert.equal(small.stats().misses, 1)
    assert.ok(fromFiles.records.length > 0)
    await mgr2.close()
    assert.equal(small.stats().bytes, 0, 'a closed log leaves nothing in the cache')
  } finally {
    await mgr.close()
  }
})

test('only a log with a reader at the tail has its appends kept', async () => {
  const clock = new ManualClock()
  const cache = new TailCache(1 << 20)
  const mgr = await LogManager.open({
    fs: new MemoryFs(),
    clock,
    logDir: '/data',
    config: defaultLogConfig,
    logger: silentLogger,
    tailCache: cache,
  })
  try {
    const log = await mgr.create('t', 0, 'id-t')
    for (let i = 0; i < 4; i++) await append(log, [5], 100)
    assert.equal(cache.stats().bytes, 0, 'nobody has read the log: nothing is copied in')
    // A read from the start of the active segment (where all 20 records are) is a reader at the tail.
    const before = await log.read(0, 1 << 20, Number.MAX_SAFE_INTEGER, true)
    assert.equal(cache.stats().misses, 1, 'what was appended before the reader came is read from the files')
    await append(log, [5], 100)
    assert.ok(cache.stats().bytes > 0, 'appends after a read at the tail are kept')
    const next = await log.read(20, 1 << 20, Number.MAX_SAFE_INTEGER, true)
    assert.equal(cache.stats().hits, 1, 'and the reader gets them from memory')
    assert.ok(next.records.length > 0 && next.records.length < before.records.length)
    // The reader goes away for longer than the window: the next append empties the entry.
    clock.advance(READER_WINDOW_MS + 1)
    await append(log, [5], 100)
    assert.equal(cache.stats().bytes, 0, 'no read in the window: the log has no reader at the tail')
    const all = await log.read(0, 1 << 20, Number.MAX_SAFE_INTEGER, true)
    assert.equal(all.logEndOffset, 30)
    assert.equal(cache.stats().misses, 2)
  } finally {
    await mgr.close()
  }
})
