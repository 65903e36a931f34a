// LogSegment.append keeps its own bookkeeping (the owner keeps the invariant): an offset-index
// entry each time more than index.interval.bytes were appended since the last, a time index whose
// timestamps and offsets only grow, the largest timestamp, next offset and size — the same indexes
// a recovery scan rebuilds from the file. Appends that would break the segment's offset order are
// refused with nothing written; a failed write is cut back off the file.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { readBatchHeader, setBaseOffset } from '../../../src/protocol/records/batch.js'
import { nodeFs } from '../../../src/storage/fs.js'
import { AppendFailedError, LogSegment, type SegmentBatch } from '../../../src/storage/segment.js'
import { faultFs, makeBatch, tempDir } from './helpers.js'

const INTERVAL = 200

/** A batch at offset `base` (n records, timestamps from ts), with its header for append. */
function batchAt(base: number, n: number, ts: number): { bytes: Buffer; header: SegmentBatch } {
  const bytes = makeBatch(n, ts, `b${base}`, 40)
  setBaseOffset(bytes, 0, base)
  return { bytes, header: readBatchHeader(bytes, 0) }
}

function offsetEntries(seg: LogSegment) {
  return Array.from({ length: seg.offsetIndex.entries }, (_, i) => seg.offsetIndex.entryAt(i))
}

function timeEntries(seg: LogSegment) {
  return Array.from({ length: seg.timeIndex.entries }, (_, i) => seg.timeIndex.entryAt(i))
}

test('segment append: offset-index entries at index.interval.bytes, a growing time index, and the state a recovery rebuilds', async (t) => {
  const dir = tempDir(t)
  const seg = await LogSegment.create(nodeFs, dir, 100, { indexIntervalBytes: INTERVAL, maxIndexSizeBytes: 4096 }, 0)
  // Timestamps out of order across batches; each append call writes 1–3 batches at once.
  const stamps = [5000, 4000, 7000, 6000, 6500, 9000, 8000, 12000, 11000, 10000, 13000, 2000]
  const starts: number[] = []
  const sizes: number[] = []
  let offset = 100
  let maxTs = -1
  let i = 0
  while (i < stamps.length) {
    const k = Math.min(1 + (i % 3), stamps.length - i)
    const chunks: Buffer[] = []
    const headers: SegmentBatch[] = []
    let at = 0
    for (let j = 0; j < k; j++) {
      const n = 2 + (i % 2)
      const b = batchAt(offset, n, stamps[i]!)
      maxTs = Math.max(maxTs, stamps[i]! + n - 1)
      starts.push(seg.sizeBytes + at)
      sizes.push(b.bytes.length)
      headers.push({ ...b.header, position: at })
      chunks.push(b.bytes)
      at += b.bytes.length
      offset += b.header.lastOffsetDelta + 1
      i++
    }
    await seg.append(chunks, headers)
    assert.equal(seg.nextOffset, offset, 'next offset follows each append')
  }
  const total = sizes.reduce((a, b) => a + b, 0)
  assert.equal(seg.sizeBytes, total)
  assert.equal((await nodeFs.stat(seg.logPath))!.size, total, 'size is the bytes in the file')
  assert.equal(seg.maxTimestamp, maxTs, 'largest record timestamp')

  // Offset index: an entry at the start of a batch exactly when more than INTERVAL bytes came since the last one.
  const entries = offsetEntries(seg)
  assert.ok(entries.length >= 3, `several entries (${entries.length})`)
  let since = 0
  const expected: number[] = []
  for (let b = 0; b < starts.length; b++) {
    if (since > INTERVAL) {
      expected.push(starts[b]!)
      since = 0
    }
    since += sizes[b]!
  }
  assert.deepEqual(
    entries.map((e) => e.position),
    expected,
  )
  for (let k = 1; k < entries.length; k++) {
    assert.ok(entries[k]!.offset > entries[k - 1]!.offset, 'offsets grow')
    assert.ok(entries[k]!.position - entries[k - 1]!.position > INTERVAL, 'entries are more than index.interval.bytes apart')
  }

  // Time index: both columns grow.
  seg.finalizeTimeIndex()
  const times = timeEntries(seg)
  assert.ok(times.length >= 2)
  for (let k = 1; k < times.length; k++) {
    assert.ok(times[k]!.timestamp > times[k - 1]!.timestamp, 'timestamps grow')
    assert.ok(times[k]!.offset >= times[k - 1]!.offset, 'offsets do not go back')
  }
  assert.equal(times[times.length - 1]!.timestamp, seg.maxTimestamp)

  // A recovery scan of the same file rebuilds the same indexes and tail state.
  const state = { entries, times, next: seg.nextOffset, max: seg.maxTimestamp, maxAt: seg.offsetOfMaxTimestamp }
  await seg.flush()
  await seg.closeHandle()
  const again = LogSegment.existing(nodeFs, dir, 100, { indexIntervalBytes: INTERVAL, maxIndexSizeBytes: 4096 }, 0, total)
  const r = await again.recover()
  again.finalizeTimeIndex()
  assert.equal(r.truncatedBytes, 0)
  assert.deepEqual(
    {
      entries: offsetEntries(again),
      times: timeEntries(again),
      next: again.nextOffset,
      max: again.maxTimestamp,
      maxAt: again.offsetOfMaxTimestamp,
    },
    state,
  )
  await again.closeHandle()
})

test('segment append: refuses offsets that go back, leave the segment range, or batches that do not cover the bytes; nothing is written', async (t) => {
  const dir = tempDir(t)
  const seg = await LogSegment.create(nodeFs, dir, 10, { indexIntervalBytes: INTERVAL, maxIndexSizeBytes: 4096 }, 0)
  t.after(() => seg.closeHandle())
  const first = batchAt(10, 3, 1000)
  await seg.append([first.bytes], [first.header])
  const size = seg.sizeBytes
  const cases: Array<[string, Buffer, SegmentBatch[]]> = []
  const back = batchAt(12, 1, 1000)
  cases.push(['below the next offset', back.bytes, [back.header]])
  const far = batchAt(10 + 0x80000000, 1, 1000)
  cases.push(['past the int32 relative offsets', far.bytes, [far.header]])
  const ok = batchAt(13, 1, 1000)
  cases.push(['a buffer longer than its batches', Buffer.concat([ok.bytes, Buffer.alloc(5)]), [ok.header]])
  cases.push(['no batch', ok.bytes, []])
  for (const [what, bytes, headers] of cases) {
    await assert.rejects(seg.append([bytes], headers), RangeError, what)
    assert.equal(seg.sizeBytes, size, what)
    assert.equal(seg.nextOffset, 13, what)
  }
  assert.equal((await nodeFs.stat(seg.logPath))!.size, size)
  // A gap is fine (a cleaned or compacted-leader segment keeps the original offsets).
  const gap = batchAt(20, 1, 1000)
  await seg.append([gap.bytes], [gap.header])
  assert.equal(seg.nextOffset, 21)
})

test('segment append: a failed write is cut back off the file (undone), or reported not undone when the cut fails', async (t) => {
  const dir = tempDir(t)
  const { fs, faults } = faultFs()
  const seg = await LogSegment.create(fs, dir, 0, { indexIntervalBytes: 0, maxIndexSizeBytes: 4096 }, 0)
  t.after(() => seg.closeHandle())
  const a = batchAt(0, 2, 1000)
  await seg.append([a.bytes], [a.header])
  const b = batchAt(2, 2, 2000)
  faults.failWrite = { match: (p) => p.endsWith('.log'), code: 'ENOSPC', partial: true }
  const err = await seg.append([b.bytes], [b.header]).catch((e: unknown) => e)
  assert.ok(err instanceof AppendFailedError && err.undone, 'undone')
  assert.equal((await nodeFs.stat(seg.logPath))!.size, a.bytes.length, 'the torn bytes are gone')
  assert.deepEqual([seg.sizeBytes, seg.nextOffset, seg.maxTimestamp, seg.offsetIndex.entries], [a.bytes.length, 2, 1001, 0])

  faults.failWrite = { match: (p) => p.endsWith('.log'), code: 'EIO', partial: true }
  faults.failTruncate = true
  const err2 = await seg.append([b.bytes], [b.header]).catch((e: unknown) => e)
  assert.ok(err2 instanceof AppendFailedError && !err2.undone, 'not undone')
  assert.equal(seg.sizeBytes, a.bytes.length, 'the bookkeeping still describes the bytes known good')
  faults.failTruncate = false

  // With index.interval.bytes 0, every batch after the first gets an entry once appended.
  const c = batchAt(2, 2, 3000)
  await (await seg.handle()).truncate(seg.sizeBytes)
  await seg.append([c.bytes], [c.header])
  assert.deepEqual(offsetEntries(seg), [{ offset: 2, position: a.bytes.length }])
})
