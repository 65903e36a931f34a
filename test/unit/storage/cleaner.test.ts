// The log cleaner on a virtual clock (storage/cleaner/): 100,000 records over 1,000 keys with
// updates and tombstones compact to the latest record per key at its original offset; tombstones
// go after delete.retention.ms; min.compaction.lag.ms, max.compaction.lag.ms and the dirty ratio
// decide what is cleaned and when; small segments merge up to segment.bytes; a small key map
// cleans in several passes; codecs, headers and producer fields survive; emptied batches keep
// their offsets covered and reads skip them.
import assert from 'node:assert/strict'
import { readFileSync, rmSync } from 'node:fs'
import { test } from 'node:test'
import { CompressionType } from '../../../src/protocol/records/batch.js'
import { iterateBatches } from '../../../src/protocol/records/iterator.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { DELETE_HORIZON_MASK } from '../../../src/storage/cleaner/batch-filter.js'
import { CLEANER_OFFSET_CHECKPOINT } from '../../../src/storage/cleaner/log-cleaner.js'
import { nodeFs, type OpenMode } from '../../../src/storage/fs.js'
import { CLEAN_SHUTDOWN_FILE, RECOVERY_POINT_CHECKPOINT } from '../../../src/storage/log-manager.js'
import { MemoryFs } from '../../../src/storage/memory-fs.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import { ManualClock } from '../../../src/util/clock.js'
import { createLogger } from '../../../src/util/logger.js'
import {
  append,
  cleanUntilDone,
  type KeyedRecord,
  keyedBatch,
  latestPerKey,
  openCompacted,
  readAll,
  rng,
  type StoredRecord,
} from './cleaner-helpers.js'
import { deferClose, produce, tempDir } from './helpers.js'

const HOUR = 3_600_000
const KiB = 1024

/** A value of exactly n bytes naming its sequence number. */
const paddedValue = (i: number, n: number) => `v-${i}-`.padEnd(n, 'x')

/** A virtual clock and an in-memory Fs. */
function inMemory() {
  const clock = new ManualClock()
  const fs = new MemoryFs(() => clock.now())
  return { clock, fs, dir: '/data' }
}

test('100,000 records over 1,000 keys: the latest record per key stays at its offset; tombstones go after delete.retention.ms', async (t) => {
  const dir = tempDir(t)
  const clock = new ManualClock()
  const segmentBytes = 256 * KiB
  const c = await openCompacted({
    fs: nodeFs,
    dir,
    clock,
    config: { segmentBytes, segmentMs: HOUR },
    logConfig: { deleteRetentionMs: HOUR },
  })
  deferClose(t, () => c.mgr.close())
  const random = rng(42)
  const produced: StoredRecord[] = []
  let i = 0
  for (let b = 0; b < 1000; b++) {
    const batch: KeyedRecord[] = []
    for (let j = 0; j < 100; j++, i++) {
      const key = `key-${Math.floor(random() * 1000)}`
      const value = random() < 0.05 ? null : paddedValue(i, 100)
      const headers = i % 10 === 0 ? [{ key: 'seq', value: Buffer.from(String(i)) }] : []
      batch.push({ key, value, timestamp: clock.now() + j, headers })
    }
    const info = await append(c.log, batch, clock.now())
    for (const [j, r] of batch.entries()) {
      produced.push({
        offset: info.baseOffset + j,
        key: r.key,
        value: r.value,
        timestamp: r.timestamp!,
        headers: (r.headers ?? []).map((h) => ({ key: h.key, value: h.value?.toString() ?? null })),
      })
    }
    clock.advance(1000)
  }
  // Roll so that every one of the 100,000 records is in a cleanable (non-active) segment.
  clock.advance(HOUR + 1)
  const sentinel = await append(c.log, [{ key: 'sentinel', value: 'end' }], clock.now())
  produced.push({ offset: sentinel.baseOffset, key: 'sentinel', value: 'end', timestamp: clock.now(), headers: [] })
  const segmentsBefore = c.log.segmentCount
  const bytesBefore = c.log.sizeBytes

  const started = performance.now()
  const passes = await cleanUntilDone(c.mgr)
  const seconds = (performance.now() - started) / 1000
  t.diagnostic(
    `cleaned ${(bytesBefore / 1048576).toFixed(1)} MiB in ${seconds.toFixed(2)} s (${passes} pass): ` +
      `${(bytesBefore / 1048576 / seconds).toFixed(1)} MiB/s of log read; ${segmentsBefore} segments → ${c.log.segmentCount}`,
  )
  assert.ok(passes >= 1)

  const expected = latestPerKey(produced)
  assert.ok(
    expected.some((r) => r.value === null),
    'some keys end with a tombstone',
  )
  const after = await readAll(c.log)
  assert.deepEqual(after, expected, 'the latest record of each key, tombstones included, at its original offset')
  assert.equal(c.log.logEndOffset, 100_001, 'the log end offset does not move')
  assert.equal(c.log.logStartOffset, 0)
  for (const s of c.log.segmentsView().slice(0, -1)) assert.ok(s.sizeBytes <= segmentBytes, `segment ${s.baseOffset} fits segment.bytes`)
  const checkpoint = readFileSync(`${dir}/${CLEANER_OFFSET_CHECKPOINT}`, 'utf8')
  assert.match(checkpoint, /^0\n1\nevents 0 100000\n$/, 'cleaner-offset-checkpoint records the first dirty offset')

  // Nothing is due until the tombstones' delete horizon passes.
  clock.advance(HOUR - 1000)
  assert.equal(await c.mgr.runCleaner(), null, 'tombstones are kept for delete.retention.ms')
  clock.advance(2000)
  assert.notEqual(await c.mgr.runCleaner(), null, 'a pass for the tombstones due')
  const live = expected.filter((r) => r.value !== null)
  assert.deepEqual(await readAll(c.log), live, 'tombstones vanished, live keys unchanged')
  assert.equal(await c.mgr.runCleaner(), null)
  // The first pass grouped the full-size segments one by one; this one merged the small results.
  for (const s of c.log.segmentsView().slice(0, -1)) assert.ok(s.sizeBytes <= segmentBytes, `segment ${s.baseOffset} fits segment.bytes`)
  assert.ok(c.log.segmentCount <= 3, `segments merged: ${segmentsBefore} → ${c.log.segmentCount}`)

  // On disk as read: a clean reopen, then a full recovery scan of the cleaned segments.
  await c.mgr.close()
  const reopened = await openCompacted({ fs: nodeFs, dir, clock, config: { segmentBytes, segmentMs: HOUR } })
  assert.deepEqual(await readAll(reopened.log), live)
  assert.equal(reopened.mgr.cleaner?.checkpointOf(reopened.log), 100_000)
  await reopened.mgr.close()
  rmSync(`${dir}/${CLEAN_SHUTDOWN_FILE}`)
  rmSync(`${dir}/${RECOVERY_POINT_CHECKPOINT}`)
  const recovered = await openCompacted({ fs: nodeFs, dir, clock, config: { segmentBytes, segmentMs: HOUR } })
  deferClose(t, () => recovered.mgr.close())
  assert.deepEqual(await readAll(recovered.log), live, 'recovery accepts the offset gaps of cleaned segments')
  assert.equal(recovered.log.logEndOffset, 100_001)
})

test('small segments merge into groups that fit segment.bytes', async () => {
  const { clock, fs, dir } = inMemory()
  const batch = (n: number) => Array.from({ length: 10 }, (_, j) => ({ key: `k-${n}-${j}`, value: paddedValue(n, 50) }))
  const size = keyedBatch(batch(0), clock.now()).length
  // One batch per segment while writing.
  const c = await openCompacted({ fs, dir, clock, config: { segmentBytes: size } })
  for (let n = 0; n < 20; n++) await append(c.log, batch(n), clock.now())
  assert.equal(c.log.segmentCount, 20)
  const before = await readAll(c.log)
  // Nothing is superseded, so each cleaned segment is as large as its group: 3 old segments each.
  c.log.updateConfig({ segmentBytes: size * 3 + size / 2 })
  assert.equal(await cleanUntilDone(c.mgr), 1)
  assert.deepEqual(c.log.segmentBaseOffsets(), [0, 30, 60, 90, 120, 150, 180, 190])
  assert.deepEqual(await readAll(c.log), before)
  await c.mgr.close()
})

test('min.compaction.lag.ms: segments holding records younger than the lag are not cleaned', async () => {
  const { clock, fs, dir } = inMemory()
  const size = keyedBatch([{ key: 'a', value: 'old-1' }], clock.now()).length
  const c = await openCompacted({ fs, dir, clock, config: { segmentBytes: size }, logConfig: { minCompactionLagMs: HOUR } })
  const now = clock.now()
  await append(c.log, [{ key: 'a', value: 'old-1' }], now - 3 * HOUR) // segment [0]
  await append(c.log, [{ key: 'a', value: 'old-2' }], now - 2 * HOUR) // segment [1]
  await append(c.log, [{ key: 'a', value: 'new-1' }], now - HOUR / 2) // segment [2]: too young
  await append(c.log, [{ key: 'a', value: 'new-2' }], now) // the active segment [3]
  assert.equal(c.log.segmentCount, 4)
  assert.notEqual(await c.mgr.runCleaner(), null)
  assert.deepEqual(
    (await readAll(c.log)).map((r) => `${r.offset}:${r.value}`),
    ['1:old-2', '2:new-1', '3:new-2'],
    'only the old segments were cleaned, against the keys they hold',
  )
  assert.equal(c.mgr.cleaner?.checkpointOf(c.log), 2)
  assert.equal(await c.mgr.runCleaner(), null, 'the young segment waits')
  clock.advance(HOUR)
  // Now [2] and [3] are old enough; a new record rolls [3] out of the active place.
  await append(c.log, [{ key: 'b', value: 'x' }], clock.now() - 2 * HOUR)
  assert.notEqual(await c.mgr.runCleaner(), null)
  assert.deepEqual(
    (await readAll(c.log)).map((r) => `${r.offset}:${r.value}`),
    ['3:new-2', '4:x'],
  )
  assert.equal(c.mgr.cleaner?.checkpointOf(c.log), 4)
  await c.mgr.close()
})

/** Kafka's dirty ratio of a log whose dirty section starts at firstDirty (whole segments, the active one excluded). */
function dirtyRatio(segs: ReturnType<PartitionLog['segmentsView']>, firstDirty: number): number {
  let clean = 0
  let dirty = 0
  for (const s of segs.slice(0, -1)) {
    if (s.baseOffset < firstDirty) clean += s.sizeBytes
    else dirty += s.sizeBytes
  }
  return dirty / (clean + dirty)
}

test('min.cleanable.dirty.ratio: a log is cleaned once its dirty fraction exceeds the ratio', async () => {
  const { clock, fs, dir } = inMemory()
  const c = await openCompacted({ fs, dir, clock, config: { segmentBytes: 1000 }, logConfig: { minCleanableRatio: 0.5 } })
  const batch = (tag: string, keys: string[]) => keys.map((k) => ({ key: k, value: `${tag}-${k}`.padEnd(40, '.') }))
  const many = Array.from({ length: 40 }, (_, j) => `k${j}`)
  for (let n = 0; n < 8; n++) await append(c.log, batch('a', many.slice(n * 5, n * 5 + 5)), clock.now())
  await append(c.log, batch('a', ['k0']), clock.now())
  assert.notEqual(await c.mgr.runCleaner(), null, 'all dirty: ratio 1')
  const firstDirty = c.mgr.cleaner!.checkpointOf(c.log)!
  let belowChecked = false
  for (let n = 0; n < 100; n++) {
    await append(c.log, batch(`b${n}`, ['k1', 'k2', 'k3', 'k4']), clock.now())
    const ratio = dirtyRatio(c.log.segmentsView(), firstDirty)
    if (ratio > 0 && ratio <= 0.5) {
      assert.equal(await c.mgr.runCleaner(), null, `ratio ${ratio} is not above 0.5`)
      belowChecked = true
    } else if (ratio > 0.5) {
      assert.ok(belowChecked, 'a ratio at or below 0.5 was seen first')
      const pass = await c.mgr.runCleaner()
      assert.ok(pass && pass.stats.recordsKept < pass.stats.recordsRead, `cleaned at ratio ${ratio}`)
      await c.mgr.close()
      return
    }
  }
  assert.fail('the ratio never exceeded 0.5')
})

test('max.compaction.lag.ms: a log whose dirty records are older than the lag is cleaned whatever its ratio', async () => {
  const { clock, fs, dir } = inMemory()
  const c = await openCompacted({
    fs,
    dir,
    clock,
    config: { segmentBytes: 200 },
    logConfig: { minCleanableRatio: 1, maxCompactionLagMs: HOUR },
  })
  await append(c.log, [{ key: 'a', value: '1' }], clock.now())
  await append(c.log, [{ key: 'a', value: '2' }], clock.now())
  await append(c.log, [{ key: 'b', value: '3' }], clock.now())
  assert.equal(await c.mgr.runCleaner(), null, 'ratio 1 is never exceeded')
  clock.advance(HOUR + 1)
  assert.notEqual(await c.mgr.runCleaner(), null, 'due by max.compaction.lag.ms')
  assert.deepEqual(
    (await readAll(c.log)).map((r) => `${r.offset}:${r.value}`),
    ['1:2', '2:3'],
  )
  await c.mgr.close()
})

test('a key map smaller than the dirty keys cleans in several passes to the same result', async () => {
  const { clock, fs, dir } = inMemory()
  // 100 slots, full at 90 keys; 500 keys in the dirty section.
  const c = await openCompacted({ fs, dir, clock, config: { segmentBytes: 4 * KiB }, cleaner: { dedupeBufferBytes: 24 * 100 } })
  const random = rng(7)
  const produced: StoredRecord[] = []
  for (let b = 0; b < 100; b++) {
    const batch: KeyedRecord[] = Array.from({ length: 20 }, (_, j) => ({ key: `k${Math.floor(random() * 500)}`, value: `v${b}-${j}` }))
    const info = await append(c.log, batch, clock.now())
    for (const [j, r] of batch.entries()) {
      produced.push({ offset: info.baseOffset + j, key: r.key, value: r.value, timestamp: clock.now(), headers: [] })
    }
  }
  await append(c.log, [{ key: 'sentinel', value: 'x' }], clock.now())
  c.log.updateConfig({ segmentBytes: 14 }) // the next append rolls
  await append(c.log, [{ key: 'sentinel', value: 'y' }], clock.now())
  const checkpoints: number[] = []
  for (let pass = await c.mgr.runCleaner(); pass; pass = await c.mgr.runCleaner()) {
    assert.ok(pass.stats.keysMapped <= 90, `at most 90 keys mapped, got ${pass.stats.keysMapped}`)
    checkpoints.push(pass.stats.endOffset)
  }
  assert.ok(checkpoints.length > 3, `several passes: ${checkpoints.join(', ')}`)
  assert.deepEqual(
    checkpoints,
    [...checkpoints].sort((a, b) => a - b),
    'each pass moves the dirty start forward',
  )
  const all = await readAll(c.log)
  const expected = latestPerKey(produced)
  assert.deepEqual(
    all.filter((r) => r.key !== 'sentinel').map((r) => [r.offset, r.key, r.value]),
    expected.map((r) => [r.offset, r.key, r.value]),
  )
  await c.mgr.close()
})

test('codec, headers, timestamps, producer id, epoch, sequence and leader epoch survive; tombstone batches get a delete horizon', async () => {
  const { clock, fs, dir } = inMemory()
  const c = await openCompacted({ fs, dir, clock, config: { segmentBytes: 2 * KiB }, logConfig: { deleteRetentionMs: HOUR } })
  const ts = clock.now() - 5000
  const records = [
    { key: Buffer.from('a'), value: Buffer.from('a1'), timestamp: ts, headers: [{ key: 'h', value: Buffer.from('1') }] },
    { key: Buffer.from('b'), value: Buffer.from('b1'), timestamp: ts + 1 },
    { key: Buffer.from('a'), value: Buffer.from('a2'), timestamp: ts + 2, headers: [{ key: 'h', value: null }] },
    { key: Buffer.from('c'), value: null, timestamp: ts + 3 },
  ]
  for (const [i, compression] of [CompressionType.None, CompressionType.Gzip, CompressionType.Zstd].entries()) {
    // Sequences in order (2, 6, 10): the same one three times would be a producer's retries, stored once.
    const batch = buildRecordBatch({ records, producerId: 77, producerEpoch: 3, baseSequence: 2 + 4 * i, compression })
    await produce(c.log, [batch], 5)
    c.log.maybeIncrementHighWatermark(c.log.logEndOffset)
  }
  c.log.updateConfig({ segmentBytes: 14 })
  await append(c.log, [{ key: 'z', value: 'z' }], clock.now())
  assert.notEqual(await c.mgr.runCleaner(), null)
  const { records: bytes } = await c.log.read(0, 1 << 20, c.log.logEndOffset, true)
  const headers = [...iterateBatches(bytes)]
  // [0..3] and [4..7] lost every record (superseded by the last batch); the group's last batch
  // [8..11] keeps a2, b1 and c's tombstone: rebuilt, zstd still, stamped with a delete horizon.
  const last = headers.find((h) => h.baseOffset === 8)!
  assert.ok(last, `batch 8 is kept: ${headers.map((h) => h.baseOffset)}`)
  assert.equal(last.compression, CompressionType.Zstd)
  assert.equal(last.lastOffsetDelta, 3, 'the original last offset is kept')
  assert.equal(last.recordCount, 3)
  assert.deepEqual([last.producerId, last.producerEpoch, last.baseSequence, last.partitionLeaderEpoch], [77, 3, 10, 5])
  assert.ok((last.attributes & DELETE_HORIZON_MASK) !== 0)
  assert.equal(last.baseTimestamp, clock.now() + HOUR, 'delete horizon = now + delete.retention.ms')
  assert.equal(last.maxTimestamp, ts + 3)
  const all = await readAll(c.log)
  assert.deepEqual(
    all.map((r) => [r.offset, r.key, r.value, r.timestamp, r.headers]),
    [
      [9, 'b', 'b1', ts + 1, []],
      [10, 'a', 'a2', ts + 2, [{ key: 'h', value: null }]],
      [11, 'c', null, ts + 3, []],
      [12, 'z', 'z', clock.now(), []],
    ],
  )
  await c.mgr.close()
})

test('a group whose last batch loses every record keeps it as an empty batch; reads move past it', async () => {
  const { clock, fs, dir } = inMemory()
  const one = (key: string, n: number) => [{ key, value: `${n}` }]
  const size = keyedBatch(one('x', 0), clock.now()).length
  // One batch per segment: [0] x, [1] y, [2] x, [3] y, then the active [4] z.
  const c = await openCompacted({ fs, dir, clock, config: { segmentBytes: size } })
  for (const [n, key] of ['x', 'y', 'x', 'y', 'z'].entries()) await append(c.log, one(key, n), clock.now())
  assert.equal(c.log.segmentCount, 5)
  // Groups of two segments: [0, 1] loses both records to [2, 3].
  c.log.updateConfig({ segmentBytes: 2 * size + size / 2 })
  assert.notEqual(await c.mgr.runCleaner(), null)
  assert.deepEqual(c.log.segmentBaseOffsets(), [0, 2, 4])
  const first = c.log.segmentsView()[0]!
  const kept = [...iterateBatches(await first.readAt(0, first.sizeBytes))]
  assert.deepEqual(
    kept.map((h) => [h.baseOffset, h.lastOffsetDelta, h.recordCount]),
    [[1, 0, 0]],
    'the group keeps its last batch, without records',
  )
  assert.equal(first.nextOffset, 2, 'so the cleaned segment still ends where the next one starts')
  assert.deepEqual(
    (await readAll(c.log)).map((r) => `${r.offset}:${r.key}`),
    ['2:x', '3:y', '4:z'],
  )
  // A read from 0 skips the empty batch to the records after it (kafkajs moves by record offsets)…
  const from0 = await c.log.read(0, 1 << 20, c.log.logEndOffset, true)
  assert.equal([...iterateBatches(from0.records)][0]!.baseOffset, 2)
  // …but serves it when nothing follows below maxOffset (Java and librdkafka move past its last offset).
  const bounded = await c.log.read(0, 1 << 20, 2, true)
  assert.deepEqual(
    [...iterateBatches(bounded.records)].map((h) => [h.baseOffset, h.recordCount]),
    [[1, 0]],
  )
  // After a restart with recovery the empty batch is still a valid part of the segment.
  await c.mgr.close()
  await fs.unlink(`${dir}/${CLEAN_SHUTDOWN_FILE}`)
  const again = await openCompacted({ fs, dir, clock, config: { segmentBytes: size } })
  assert.deepEqual(again.log.segmentBaseOffsets(), [0, 2, 4])
  assert.deepEqual(
    (await readAll(again.log)).map((r) => `${r.offset}:${r.key}`),
    ['2:x', '3:y', '4:z'],
  )
  await again.mgr.close()
})

test('a compacted log replays after a clean shutdown with its checkpoint; a checkpoint past the log end is reset', async () => {
  const { clock, fs, dir } = inMemory()
  const c = await openCompacted({ fs, dir, clock, config: { segmentBytes: 150 } })
  for (let n = 0; n < 5; n++) await append(c.log, [{ key: 'k', value: `${n}` }], clock.now())
  assert.notEqual(await c.mgr.runCleaner(), null)
  assert.equal(c.mgr.cleaner?.checkpointOf(c.log), 4)
  await c.mgr.close()
  // A checkpoint beyond the log end (a torn tail cut) is reset to the log start, as Kafka does.
  const path = `${dir}/${CLEANER_OFFSET_CHECKPOINT}`
  const fh = await fs.open(path, 'w')
  await fh.write(Buffer.from('0\n1\nevents 0 999\n'), 0)
  await fh.close()
  const again = await openCompacted({ fs, dir, clock, config: { segmentBytes: 150 } })
  assert.equal(again.mgr.cleaner?.checkpointOf(again.log), 999)
  await again.mgr.runCleaner()
  assert.equal(again.mgr.cleaner?.checkpointOf(again.log), 4)
  assert.deepEqual(
    (await readAll(again.log)).map((r) => `${r.offset}:${r.value}`),
    ['3:3', '4:4'],
  )
  await again.mgr.close()
})

test('deleting a topic while its log is being cleaned stops the cleaning and forgets its checkpoint', async () => {
  const { clock, fs: memFs, dir } = inMemory()
  // The topic is deleted the moment the cleaner creates its first .cleaned segment.
  let onCleaned: (() => void) | null = null
  const fs = new Proxy(memFs, {
    get(target, prop) {
      if (prop === 'open') {
        return (path: string, mode: OpenMode) => {
          if (path.endsWith('.log.cleaned') && onCleaned) {
            onCleaned()
            onCleaned = null
          }
          return target.open(path, mode)
        }
      }
      const v = Reflect.get(target, prop)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
  const lines: string[] = []
  const logger = createLogger('info', 'test', (line) => lines.push(line))
  const c = await openCompacted({ fs, dir, clock, config: { segmentBytes: 4 * KiB }, cleaner: { ioBufferBytes: 4 * KiB }, logger })
  await c.mgr.create('other', 0, 'topic-id-2')
  for (let b = 0; b < 100; b++) {
    await append(
      c.log,
      Array.from({ length: 20 }, (_, j) => ({ key: `k${j}`, value: paddedValue(b, 30) })),
      clock.now(),
    )
  }
  let deleting: Promise<void> | null = null
  onCleaned = () => {
    deleting = c.mgr.delete('events', 0)
  }
  assert.equal(await c.mgr.runCleaner(), null, 'the pass stopped without cleaning')
  assert.ok(deleting, 'the topic was deleted during the cleaning')
  assert.ok(
    lines.some((l) => l.includes('cleaning stopped') && l.includes('the log is being removed')),
    lines.join('\n'),
  )
  assert.ok(!lines.some((l) => l.includes('ERROR')), lines.join('\n'))
  await deleting
  assert.equal(await memFs.stat(`${dir}/events-0`), null)
  assert.ok(!(await memFs.readdir(dir)).some((n) => n.startsWith('events-0')), 'the partition directory is gone')
  assert.equal(c.mgr.cleaner?.checkpointOf(c.log), undefined)
  await c.mgr.close()
})

test("an idempotent producer's last batch stays, emptied, when its records are superseded (Kafka's RETAIN_EMPTY)", async () => {
  const { clock, fs, dir } = inMemory()
  const idem = (seq: number, key: string) =>
    buildRecordBatch({
      baseTimestamp: clock.now(),
      producerId: 900,
      producerEpoch: 0,
      baseSequence: seq,
      records: [{ key: Buffer.from(key), value: Buffer.from(`p${seq}`), timestamp: clock.now() }],
    })
  const size = idem(0, 'x').length
  // One batch per segment: [0] the producer's x, [1] y, [2] x again from a plain producer, the active [3] z.
  const c = await openCompacted({ fs, dir, clock, config: { segmentBytes: size } })
  await produce(c.log, [idem(0, 'x')])
  c.log.maybeIncrementHighWatermark(c.log.logEndOffset)
  for (const key of ['y', 'x', 'z']) await append(c.log, [{ key, value: 'plain' }], clock.now())
  assert.equal(c.log.segmentCount, 4)
  // Groups of two segments: in [0, 1] the producer's batch is not the group's last one.
  c.log.updateConfig({ segmentBytes: 2 * size + size / 2 })
  assert.notEqual(await c.mgr.runCleaner(), null)
  const first = c.log.segmentsView()[0]!
  const kept = [...iterateBatches(await first.readAt(0, first.sizeBytes))]
  assert.deepEqual(
    kept.map((h) => [h.baseOffset, h.recordCount, h.producerId, h.baseSequence]),
    [
      [0, 0, 900, 0],
      [1, 1, -1, -1],
    ],
    'the batch is kept without its record',
  )
  // Rebuilt from the log alone (no snapshot, unclean start), the producer still has its sequence.
  await c.mgr.close()
  for (const n of await fs.readdir(`${dir}/events-0`)) if (n.endsWith('.snapshot')) await fs.unlink(`${dir}/events-0/${n}`)
  await fs.unlink(`${dir}/${CLEAN_SHUTDOWN_FILE}`)
  const again = await openCompacted({ fs, dir, clock })
  assert.equal(again.log.producerEntry(900)?.batches.at(-1)?.lastSeq, 0)
  assert.equal((await produce(again.log, [idem(0, 'x')])).duplicate, true)
  assert.equal((await produce(again.log, [idem(1, 'y')])).baseOffset, 4)
  await again.mgr.close()
})
