import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import { KafkaError } from '../../../src/protocol/errors.js'
import { validateProducedBatches } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { iterateBatches, iterateRecords } from '../../../src/protocol/records/iterator.js'
import { type Fs, nodeFs } from '../../../src/storage/fs.js'
import { defaultLogConfig, type LogConfig } from '../../../src/storage/log-config.js'
import { LogManager } from '../../../src/storage/log-manager.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { deferClose, faultFs, makeBatch, produce, tempDir } from './helpers.js'

async function openLog(
  t: Parameters<typeof tempDir>[0],
  config: Partial<LogConfig> = {},
  fs: Fs = nodeFs,
  clock = new ManualClock(),
): Promise<{ mgr: LogManager; log: PartitionLog; dir: string; clock: ManualClock }> {
  const dir = tempDir(t)
  const mgr = await LogManager.open({ fs, clock, logDir: dir, config: { ...defaultLogConfig, ...config }, logger: silentLogger })
  const log = await mgr.create('events', 0, 'topic-id-1')
  deferClose(t, () => mgr.close())
  return { mgr, log, dir, clock }
}

function code(name: string) {
  return (err: unknown) => err instanceof KafkaError && err.errorName === name
}

/** Every record of the log, read batch by batch from offset 0. */
async function readAll(log: PartitionLog, maxBytes = 1 << 20): Promise<Array<{ offset: number; value: string }>> {
  const out: Array<{ offset: number; value: string }> = []
  let offset = log.logStartOffset
  while (offset < log.logEndOffset) {
    const r = await log.read(offset, maxBytes, Number.MAX_SAFE_INTEGER, true)
    assert.ok(r.records.length > 0, `read at ${offset} returned nothing`)
    for (const h of iterateBatches(r.records)) {
      for (const rec of iterateRecords(r.records, h.position)) {
        if (rec.offset >= offset) out.push({ offset: rec.offset, value: rec.value!.toString() })
      }
      offset = h.baseOffset + h.lastOffsetDelta + 1
    }
  }
  return out
}

test('append assigns contiguous offsets and reads round-trip across segment rolls', async (t) => {
  const { log, dir } = await openLog(t, { segmentBytes: 1000, indexIntervalBytes: 150 })
  const expected: Array<{ offset: number; value: string }> = []
  for (let i = 0; i < 40; i++) {
    const info = await produce(log, [makeBatch(3, 1000 * i, `b${i}`)], 0)
    assert.equal(info.baseOffset, 3 * i)
    assert.equal(info.lastOffset, 3 * i + 2)
    assert.equal(info.maxTimestamp, 1000 * i + 2)
    assert.equal(info.logAppendTimeMs, -1)
    for (let j = 0; j < 3; j++) expected.push({ offset: 3 * i + j, value: `b${i}-${j}` })
  }
  assert.equal(log.logEndOffset, 120)
  assert.ok(log.segmentCount > 3, `${log.segmentCount} segments`)
  const files = readdirSync(`${dir}/events-0`).filter((f) => f.endsWith('.log'))
  assert.deepEqual(
    files.sort(),
    log.segmentBaseOffsets().map((b) => `${String(b).padStart(20, '0')}.log`),
  )
  assert.deepEqual(await readAll(log), expected)
  // small maxBytes: one batch per read
  assert.deepEqual(await readAll(log, 1), expected)
  // the stored batches carry the assigned offsets and epoch, and still pass their CRC
  const r = await log.read(9, 1 << 20, 1000, true)
  const hs = validateProducedBatches(r.records, { maxBatchBytes: 1 << 20 })
  assert.equal(hs[0]!.baseOffset, 9)
  assert.equal(hs[0]!.partitionLeaderEpoch, 0)
})

test('several batches in one append; appends not awaited stay in call order', async (t) => {
  const { log } = await openLog(t, { segmentBytes: 2000 })
  const info = await produce(log, [makeBatch(2), makeBatch(5), makeBatch(1)])
  assert.deepEqual([info.baseOffset, info.lastOffset], [0, 7])
  const pending = Array.from({ length: 50 }, (_, i) => produce(log, [makeBatch(1 + (i % 3), 0, `p${i}`)]))
  const infos = await Promise.all(pending)
  let next = 8
  for (const [i, inf] of infos.entries()) {
    assert.equal(inf.baseOffset, next, `append ${i}`)
    next = inf.lastOffset + 1
  }
  assert.equal(log.logEndOffset, next)
  assert.equal((await readAll(log)).length, next)
})

test('a read inside a batch returns the whole batch; maxBytes, minOneBatch and maxOffset', async (t) => {
  const { log } = await openLog(t)
  const batches = [makeBatch(3), makeBatch(3), makeBatch(3), makeBatch(3)]
  for (const b of batches) await produce(log, [b])
  log.maybeIncrementHighWatermark(log.logEndOffset)
  const size = batches[0]!.length

  const mid = await log.read(4, 1 << 20, 100, true)
  assert.equal([...iterateBatches(mid.records)][0]!.baseOffset, 3)
  assert.equal(mid.records.length, 3 * size)
  assert.deepEqual([mid.highWatermark, mid.logStartOffset, mid.logEndOffset], [12, 0, 12])

  assert.equal((await log.read(0, 1, 100, true)).records.length, size, 'minOneBatch returns one batch')
  assert.equal((await log.read(0, 1, 100, false)).records.length, 0, 'without minOneBatch nothing fits')
  assert.equal((await log.read(0, 2 * size + 5, 100, false)).records.length, 2 * size)
  assert.equal((await log.read(0, 1 << 20, 6, true)).records.length, 2 * size, 'maxOffset excludes batches at/after it')
  assert.equal((await log.read(6, 1 << 20, 6, true)).records.length, 0)
  assert.equal((await log.read(12, 1 << 20, 100, true)).records.length, 0, 'read at LEO is empty')
})

test('out-of-range reads throw OFFSET_OUT_OF_RANGE; the log start offset moves up', async (t) => {
  const { log } = await openLog(t)
  for (let i = 0; i < 4; i++) await produce(log, [makeBatch(3)])
  await assert.rejects(log.read(13, 100, 100, true), code('OFFSET_OUT_OF_RANGE'))
  await assert.rejects(log.read(-1, 100, 100, true), code('OFFSET_OUT_OF_RANGE'))
  await log.maybeIncrementLogStartOffset(5)
  assert.equal(log.logStartOffset, 0, 'not above the high watermark')
  log.maybeIncrementHighWatermark(log.logEndOffset)
  await log.maybeIncrementLogStartOffset(5)
  assert.equal(log.logStartOffset, 5)
  await assert.rejects(log.read(4, 100, 100, true), code('OFFSET_OUT_OF_RANGE'))
  const r = await log.read(5, 1, 100, true)
  assert.equal([...iterateBatches(r.records)][0]!.baseOffset, 3)
  assert.equal(log.maybeIncrementHighWatermark(1000), false, 'already at LEO')
  assert.equal(log.highWatermark, 12, 'HW is bounded by LEO')
})

test('a tail read costs one positional read', async (t) => {
  const { fs, faults } = faultFs()
  const { log } = await openLog(t, { indexIntervalBytes: 4096 }, fs)
  for (let i = 0; i < 200; i++) await produce(log, [makeBatch(2, i, 'x', 100)])
  const leo = log.logEndOffset
  for (const offset of [leo - 1, leo - 2, leo - 10, leo - 60]) {
    const before = faults.reads
    const r = await log.read(offset, 1 << 20, leo, true)
    assert.ok(r.records.length > 0)
    assert.equal(faults.reads - before, 1, `read at ${offset}`)
  }
})

test('a read from the middle of a long log fills max_bytes with one positional read', async (t) => {
  const { fs, faults } = faultFs()
  const { log } = await openLog(t, { indexIntervalBytes: 4096 }, fs)
  for (let i = 0; i < 3000; i++) await produce(log, [makeBatch(2, i, 'x', 100)])
  const maxBytes = 256 * 1024
  for (const offset of [1001, 2500, 3333]) {
    const reads = faults.reads
    const bytes = faults.readBytes
    const r = await log.read(offset, maxBytes, log.logEndOffset, true)
    assert.ok(r.records.length > maxBytes - 1024, `a full response at ${offset}: ${r.records.length}`)
    assert.equal(faults.reads - reads, 1, `reads at ${offset}`)
    assert.ok(faults.readBytes - bytes <= maxBytes + 4096 + 64 * 1024, `bytes read at ${offset}`)
  }
})

test('offsetForTimestamp finds the first record with timestamp ≥ target; maxTimestampAndOffset', async (t) => {
  const { log } = await openLog(t, { segmentBytes: 700, indexIntervalBytes: 100 })
  assert.equal(await log.offsetForTimestamp(0), null)
  assert.equal(await log.maxTimestampAndOffset(), null)
  // batch i holds offsets 3i..3i+2 with timestamps 100i, 100i+1, 100i+2; batch 5 is out of order.
  for (let i = 0; i < 20; i++) await produce(log, [makeBatch(3, i === 5 ? 5000 : 100 * i)])
  assert.ok(log.segmentCount > 2)
  assert.deepEqual(await log.offsetForTimestamp(0), { offset: 0, timestamp: 0 })
  assert.deepEqual(await log.offsetForTimestamp(101), { offset: 4, timestamp: 101 })
  assert.deepEqual(await log.offsetForTimestamp(103), { offset: 6, timestamp: 200 })
  assert.deepEqual(await log.offsetForTimestamp(650), { offset: 15, timestamp: 5000 }, 'out-of-order batch')
  assert.deepEqual(await log.offsetForTimestamp(1502), { offset: 15, timestamp: 5000 })
  assert.deepEqual(await log.offsetForTimestamp(1900), { offset: 15, timestamp: 5000 })
  assert.deepEqual(await log.offsetForTimestamp(5001), { offset: 16, timestamp: 5001 })
  assert.equal(await log.offsetForTimestamp(5003), null)
  assert.deepEqual(await log.maxTimestampAndOffset(), { offset: 17, timestamp: 5002 })
  for (let target = 600; target <= 1902; target += 50) {
    // brute force over all records
    const all: Array<{ offset: number; timestamp: number }> = []
    const r = await log.read(0, 1 << 30, 1e9, true)
    for (const h of iterateBatches(r.records)) for (const rec of iterateRecords(r.records, h.position)) all.push(rec)
    const want = all.find((x) => x.timestamp >= target) ?? null
    const got = await log.offsetForTimestamp(target)
    if (want) assert.deepEqual(got, { offset: want.offset, timestamp: want.timestamp }, `target ${target}`)
  }
})

test('maxTimestampAndOffset picks the record, not the batch end, and the earliest on ties', async (t) => {
  const { log } = await openLog(t)
  const b = buildRecordBatch({
    baseTimestamp: 10,
    records: [
      { key: null, value: Buffer.from('a'), timestamp: 10 },
      { key: null, value: Buffer.from('b'), timestamp: 99 },
      { key: null, value: Buffer.from('c'), timestamp: 20 },
    ],
  })
  await produce(log, [makeBatch(2, 50)])
  await produce(log, [b])
  const tie = buildRecordBatch({ records: [{ key: null, value: null, timestamp: 99 }] })
  await produce(log, [tie])
  assert.deepEqual(await log.maxTimestampAndOffset(), { offset: 3, timestamp: 99 })
  assert.deepEqual(await log.offsetForTimestamp(60), { offset: 3, timestamp: 99 })
})

test('indexes are sparse: an entry per indexIntervalBytes appended', async (t) => {
  const { log, dir, mgr } = await openLog(t, { indexIntervalBytes: 1000 })
  const batch = makeBatch(4, 0, 'x', 50)
  const n = 60
  for (let i = 0; i < n; i++) await produce(log, [makeBatch(4, 10 * i, 'x', 50)])
  await mgr.close()
  const idx = readFileSync(`${dir}/events-0/00000000000000000000.index`)
  const entries = idx.length / 8
  const total = n * batch.length
  assert.ok(entries >= Math.floor(total / (1000 + batch.length)) - 1 && entries <= total / 1000, `${entries} entries`)
  let prev = -1
  for (let i = 0; i < entries; i++) {
    const rel = idx.readInt32BE(8 * i)
    const pos = idx.readInt32BE(8 * i + 4)
    assert.equal(pos, (rel / 4) * batch.length, 'entry points at the start of its batch')
    if (prev >= 0) assert.ok(pos - prev > 1000)
    prev = pos
  }
  const tidx = readFileSync(`${dir}/events-0/00000000000000000000.timeindex`)
  assert.ok(tidx.length / 12 >= entries)
  assert.equal(Number(tidx.readBigInt64BE(tidx.length - 12)), 10 * (n - 1) + 3, 'last time entry = max timestamp')
})

test('segment.ms rolls a non-empty segment by the clock', async (t) => {
  const { log, clock } = await openLog(t, { segmentMs: 1000 })
  await produce(log, [makeBatch(1)])
  clock.advance(600)
  await produce(log, [makeBatch(1)])
  assert.equal(log.segmentCount, 1)
  clock.advance(600)
  await produce(log, [makeBatch(1)])
  assert.deepEqual(log.segmentBaseOffsets(), [0, 2])
  clock.advance(5000)
  assert.equal(log.segmentCount, 2, 'an empty or idle segment is not rolled without an append')
})

test('truncateTo removes offsets at and above the target, indexes included', async (t) => {
  const { log, mgr, dir } = await openLog(t, { segmentBytes: 600, indexIntervalBytes: 100 })
  for (let i = 0; i < 30; i++) await produce(log, [makeBatch(3, 100 * i, `b${i}`)], i < 15 ? 1 : 2)
  log.maybeIncrementHighWatermark(log.logEndOffset)
  const segsBefore = log.segmentCount
  assert.deepEqual(log.leaderEpochs.entries(), [
    { epoch: 1, startOffset: 0 },
    { epoch: 2, startOffset: 45 },
  ])
  await log.truncateTo(50) // inside batch 48..50: LEO becomes 48
  assert.equal(log.logEndOffset, 48)
  assert.ok(log.segmentCount < segsBefore)
  assert.equal(log.highWatermark, 48)
  await assert.rejects(log.read(49, 100, 100, true), code('OFFSET_OUT_OF_RANGE'))
  assert.equal(await log.offsetForTimestamp(1600), null)
  assert.deepEqual(await log.maxTimestampAndOffset(), { offset: 47, timestamp: 1502 })
  assert.equal((await readAll(log)).length, 48)

  await log.truncateTo(45)
  assert.equal(log.logEndOffset, 45)
  assert.deepEqual(log.leaderEpochs.entries(), [{ epoch: 1, startOffset: 0 }])
  const info = await produce(log, [makeBatch(2, 9000, 'new')], 3)
  assert.equal(info.baseOffset, 45)
  const all = await readAll(log)
  assert.deepEqual(all.slice(-3), [
    { offset: 44, value: 'b14-2' },
    { offset: 45, value: 'new-0' },
    { offset: 46, value: 'new-1' },
  ])

  // a clean reopen sees the same log
  await mgr.close()
  const mgr2 = await LogManager.open({
    fs: nodeFs,
    clock: new ManualClock(),
    logDir: dir,
    config: { ...defaultLogConfig, segmentBytes: 600, indexIntervalBytes: 100 },
    logger: silentLogger,
  })
  deferClose(t, () => mgr2.close())
  const log2 = mgr2.get('events', 0)!
  assert.equal(log2.logEndOffset, 47)
  assert.deepEqual(await readAll(log2), all)
  assert.deepEqual(await log2.offsetForTimestamp(1400), { offset: 42, timestamp: 1400 })

  // below the log start: emptied and restarted at the target
  log2.maybeIncrementHighWatermark(log2.logEndOffset)
  await log2.maybeIncrementLogStartOffset(10)
  await log2.truncateTo(3)
  assert.deepEqual([log2.logStartOffset, log2.logEndOffset, log2.segmentCount], [3, 3, 1])
  assert.equal((await produce(log2, [makeBatch(1)])).baseOffset, 3)
})

test('flush policy by message count advances the recovery point', async (t) => {
  const { fs, faults } = faultFs()
  const { log } = await openLog(t, { flushIntervalMessages: 5 }, fs)
  faults.syncs.length = 0
  await produce(log, [makeBatch(2)])
  await produce(log, [makeBatch(2)])
  assert.equal(log.recoveryPoint, 0)
  assert.equal(faults.syncs.filter((p) => p.endsWith('.log')).length, 0)
  await produce(log, [makeBatch(2)])
  assert.equal(log.recoveryPoint, 6)
  assert.equal(faults.syncs.filter((p) => p.endsWith('.log')).length, 1)
  await produce(log, [makeBatch(1)])
  assert.equal(log.recoveryPoint, 6)
  await log.flush()
  assert.equal(log.recoveryPoint, 7)
})

test('flush policy by time fires on the clock', async (t) => {
  const { log, clock } = await openLog(t, { flushIntervalMs: 1000 })
  await produce(log, [makeBatch(3)])
  clock.advance(999)
  await new Promise((r) => setImmediate(r))
  assert.equal(log.recoveryPoint, 0)
  clock.advance(1)
  for (let i = 0; i < 20 && log.recoveryPoint === 0; i++) await new Promise((r) => setTimeout(r, 5))
  assert.equal(log.recoveryPoint, 3)
})

test('a rolled segment is fsynced in the background and the recovery point follows', async (t) => {
  const { log } = await openLog(t, { segmentBytes: 300 })
  for (let i = 0; i < 6; i++) await produce(log, [makeBatch(3)])
  assert.ok(log.segmentCount > 1)
  await log.flush() // queued after the roll flushes
  assert.equal(log.recoveryPoint, log.logEndOffset)
})

test('a failed write answers KAFKA_STORAGE_ERROR and leaves the log as it was', async (t) => {
  const { fs, faults } = faultFs()
  const { log } = await openLog(t, {}, fs)
  await produce(log, [makeBatch(2, 0, 'a')])
  for (const partial of [false, true]) {
    faults.failWrite = { match: (p) => p.endsWith('.log'), code: 'ENOSPC', partial }
    await assert.rejects(produce(log, [makeBatch(2, 0, 'lost')]), code('KAFKA_STORAGE_ERROR'))
    assert.equal(log.logEndOffset, 2)
  }
  const info = await produce(log, [makeBatch(2, 0, 'b')])
  assert.equal(info.baseOffset, 2)
  assert.deepEqual(
    (await readAll(log)).map((r) => r.value),
    ['a-0', 'a-1', 'b-0', 'b-1'],
  )
})

test('a write failure that cannot be undone fails the log', async (t) => {
  const { fs, faults } = faultFs()
  const { log } = await openLog(t, {}, fs)
  await produce(log, [makeBatch(1)])
  faults.failWrite = { match: (p) => p.endsWith('.log'), code: 'EIO', partial: true }
  faults.failTruncate = true
  await assert.rejects(produce(log, [makeBatch(1)]), code('KAFKA_STORAGE_ERROR'))
  faults.failTruncate = false
  await assert.rejects(produce(log, [makeBatch(1)]), code('KAFKA_STORAGE_ERROR'))
})

test('a failed fsync fails the log: later appends answer KAFKA_STORAGE_ERROR and add nothing', async (t) => {
  const { fs, faults } = faultFs()
  const { log } = await openLog(t, { flushIntervalMessages: 1 }, fs)
  await produce(log, [makeBatch(1, 0, 'ok')])
  faults.failSync = (p) => p.endsWith('.log')
  await assert.rejects(produce(log, [makeBatch(1, 0, 'unsynced')]), code('KAFKA_STORAGE_ERROR'))
  const end = log.logEndOffset
  await assert.rejects(produce(log, [makeBatch(1, 0, 'after')]), code('KAFKA_STORAGE_ERROR'))
  assert.equal(log.logEndOffset, end)
  assert.equal(log.recoveryPoint, 1, 'the recovery point stays at the last successful fsync')
})

test('a full index rolls the segment', async (t) => {
  // 24 bytes: 3 offset-index entries, 2 time-index entries (one kept for the final entry)
  const { log } = await openLog(t, { maxIndexSizeBytes: 24, indexIntervalBytes: 0 })
  for (let i = 0; i < 12; i++) await produce(log, [makeBatch(1, i, `r${i}`)])
  assert.ok(log.segmentCount >= 4, `${log.segmentCount} segments`)
  assert.deepEqual(
    (await readAll(log)).map((r) => r.value),
    Array.from({ length: 12 }, (_, i) => `r${i}-0`),
  )
  for (let i = 0; i < 12; i++) assert.deepEqual(await log.offsetForTimestamp(i), { offset: i, timestamp: i })
})

test('reads of batches larger than the read chunk, byte for byte', async (t) => {
  const { log } = await openLog(t, { indexIntervalBytes: 50_000 })
  const stored: Buffer[] = []
  const sizes = [150_000, 10, 70_000, 3, 200_000, 64 * 1024 - 120, 5]
  for (const [i, valueBytes] of sizes.entries()) {
    const b = makeBatch(2, i, 'x', valueBytes)
    await produce(log, [b])
    stored.push(b) // patched in place by append: now the stored bytes
  }
  const starts: number[] = []
  let acc = 0
  for (const b of stored) {
    starts.push(acc)
    acc += b.length
  }
  const all = Buffer.concat(stored)
  const expectRead = (first: number, maxBytes: number, minOne: boolean) => {
    let end = starts[first]!
    for (let j = first; j < stored.length; j++) {
      const next = end + stored[j]!.length
      if (next - starts[first]! > maxBytes && !(j === first && minOne)) break
      end = next
    }
    return all.subarray(starts[first]!, end)
  }
  for (let first = 0; first < stored.length; first++) {
    for (const maxBytes of [1, 100, 65_536, 160_000, 300_000, 1 << 20]) {
      for (const minOne of [true, false]) {
        const r = await log.read(first * 2 + 1, maxBytes, 1000, minOne)
        assert.deepEqual(r.records, expectRead(first, maxBytes, minOne), `batch ${first} maxBytes ${maxBytes} ${minOne}`)
      }
    }
  }
})

test('a leader epoch assigned on becoming leader keeps the checkpoint write off the first append', async (t) => {
  const { fs, faults } = faultFs()
  const { log, dir } = await openLog(t, {}, fs)
  await log.assignLeaderEpoch(0)
  assert.deepEqual(log.leaderEpochs.entries(), [{ epoch: 0, startOffset: 0 }])
  assert.match(readFileSync(`${dir}/events-0/leader-epoch-checkpoint`, 'utf8'), /^0\n1\n0 0\n$/)
  await log.assignLeaderEpoch(0) // the same epoch again: nothing to record
  const before = faults.syncs.filter((p) => p.includes('leader-epoch-checkpoint')).length
  await produce(log, [makeBatch(3)], 0)
  await produce(log, [makeBatch(2)], 0)
  const after = faults.syncs.filter((p) => p.includes('leader-epoch-checkpoint')).length
  assert.equal(after, before, 'appends in the assigned epoch write no checkpoint')
  assert.deepEqual(log.leaderEpochs.entries(), [{ epoch: 0, startOffset: 0 }])
  await produce(log, [makeBatch(1)], 1) // a newer epoch still starts where it first appends
  assert.deepEqual(log.leaderEpochs.entries(), [
    { epoch: 0, startOffset: 0 },
    { epoch: 1, startOffset: 5 },
  ])
})

test('timestamp lookups name the exact record inside a compressed batch', async (t) => {
  const { log } = await openLog(t)
  const ts = [100, 200, 500, 300, 400]
  const batch = buildRecordBatch({
    compression: 1, // gzip
    records: ts.map((timestamp, i) => ({ key: null, value: Buffer.from(`v${i}`), headers: [], timestamp })),
  })
  await produce(log, [makeBatch(2, 10)]) // offsets 0-1 uncompressed, timestamps 10 and 11
  await produce(log, [batch]) // offsets 2-6
  assert.deepEqual(await log.offsetForTimestamp(250), { offset: 4, timestamp: 500 })
  assert.deepEqual(await log.offsetForTimestamp(150), { offset: 3, timestamp: 200 })
  assert.deepEqual(await log.maxTimestampAndOffset(), { offset: 4, timestamp: 500 })
})

test('the high watermark has one writer: it only moves up, bounded by the log end; truncation alone lowers it; a reopen starts at the checkpoint', async (t) => {
  const { log, mgr, dir } = await openLog(t)
  for (let i = 0; i < 4; i++) await produce(log, [makeBatch(3)])
  assert.equal(log.highWatermark, 0, 'appends do not move it (the partition does)')
  assert.equal(log.maybeIncrementHighWatermark(5), true)
  assert.equal(log.highWatermark, 5)
  assert.equal(log.maybeIncrementHighWatermark(3), false, 'never backwards')
  assert.equal(log.maybeIncrementHighWatermark(5), false)
  assert.equal(log.highWatermark, 5)
  assert.equal(log.maybeIncrementHighWatermark(1000), true)
  assert.equal(log.highWatermark, 12, 'bounded by the log end offset')
  assert.equal(log.maybeIncrementHighWatermark(Number.NaN), false)
  await log.truncateTo(6)
  assert.equal(log.highWatermark, 6, 'a truncation lowers it to the new log end')
  await produce(log, [makeBatch(3)])
  log.maybeIncrementHighWatermark(8)
  assert.equal(log.highWatermark, 8)

  // The replication-offset-checkpoint written at close is where the reopened log starts, not its end.
  await mgr.close()
  const mgr2 = await LogManager.open({ fs: nodeFs, clock: new ManualClock(), logDir: dir, config: defaultLogConfig, logger: silentLogger })
  deferClose(t, () => mgr2.close())
  const log2 = mgr2.get('events', 0)!
  assert.deepEqual([log2.logEndOffset, log2.highWatermark], [9, 8])
})
