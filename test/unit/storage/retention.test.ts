// Retention on a virtual clock (retention.ts, PartitionLog.deleteOldSegments): time and size
// rules, the expired active segment rolled and deleted, compact-only logs left alone, delayed
// `.deleted` files, the log start offset checkpointed and kept across a reopen, and reads racing
// a deletion.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import { KafkaError } from '../../../src/protocol/errors.js'
import { iterateBatches } from '../../../src/protocol/records/iterator.js'
import type { FileHandle, Fs, OpenMode } from '../../../src/storage/fs.js'
import { nodeFs } from '../../../src/storage/fs.js'
import { defaultLogConfig, type LogConfig } from '../../../src/storage/log-config.js'
import { LOG_START_OFFSET_CHECKPOINT, LogManager } from '../../../src/storage/log-manager.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import {
  defaultRetentionConfig,
  deleteOldSegments,
  type RetentionConfig,
  RetentionTask,
  retentionConfigOf,
} from '../../../src/storage/retention.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { deferClose, makeBatch, produce, tempDir } from './helpers.js'

const HOUR = 3_600_000
/** One batch of 2 records with 100-byte values; segments of BATCH*2 bytes hold two batches each. */
const BATCH = makeBatch(2, 0, 'v', 100).length

interface Opened {
  mgr: LogManager
  log: PartitionLog
  dir: string
  clock: ManualClock
}

async function openLog(
  t: Parameters<typeof tempDir>[0],
  config: Partial<LogConfig> = { segmentBytes: BATCH * 2 },
  opts: { dir?: string; fs?: Fs; clock?: ManualClock } = {},
): Promise<Opened> {
  const dir = opts.dir ?? tempDir(t)
  const clock = opts.clock ?? new ManualClock()
  const mgr = await LogManager.open({
    fs: opts.fs ?? nodeFs,
    clock,
    logDir: dir,
    config: { ...defaultLogConfig, ...config },
    logger: silentLogger,
  })
  const log = mgr.get('events', 0) ?? (await mgr.create('events', 0, 'topic-id-1'))
  deferClose(t, () => mgr.close())
  return { mgr, log, dir, clock }
}

/** Appends one 2-record batch whose records carry timestamp ts (and ts+1); the HW follows, as on a single node. */
async function append(log: PartitionLog, ts: number) {
  const info = await produce(log, [makeBatch(2, ts, 'v', 100)])
  log.maybeIncrementHighWatermark(log.logEndOffset)
  return info
}

const config = (c: Partial<RetentionConfig> = {}): RetentionConfig => ({ ...defaultRetentionConfig, fileDeleteDelayMs: 0, ...c })

function files(o: Opened, suffix: string): string[] {
  return readdirSync(`${o.dir}/events-0`)
    .filter((f) => f.endsWith(suffix))
    .sort()
}

const name = (base: number, suffix: string) => `${String(base).padStart(20, '0')}${suffix}`

function checkpointed(o: Opened): number | undefined {
  const line = readFileSync(`${o.dir}/${LOG_START_OFFSET_CHECKPOINT}`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('events 0 '))
  return line === undefined ? undefined : Number(line.split(' ')[2])
}

const outOfRange = (err: unknown) => err instanceof KafkaError && err.errorName === 'OFFSET_OUT_OF_RANGE'

test('segments whose largest timestamp is older than retention.ms are deleted, oldest first', async (t) => {
  const o = await openLog(t)
  const now = o.clock.now()
  // Segments [0,4) and [4,8) are 3 h old, [8,12) is 1 h old, the active [12,14) is new.
  for (const ts of [now - 3 * HOUR, now - 3 * HOUR, now - 3 * HOUR, now - 3 * HOUR, now - HOUR, now - HOUR, now]) {
    await append(o.log, ts)
  }
  assert.deepEqual(o.log.segmentBaseOffsets(), [0, 4, 8, 12])
  const sizeBefore = o.log.sizeBytes

  assert.equal(await deleteOldSegments(o.log, config({ retentionMs: 2 * HOUR }), now), 2)
  assert.deepEqual(o.log.segmentBaseOffsets(), [8, 12])
  assert.equal(o.log.logStartOffset, 8)
  assert.equal(o.log.logEndOffset, 14)
  assert.equal(o.log.sizeBytes, sizeBefore - 4 * BATCH)
  assert.deepEqual(files(o, '.log'), [name(8, '.log'), name(12, '.log')])
  assert.deepEqual(files(o, '.index'), [name(8, '.index'), name(12, '.index')])
  await assert.rejects(o.log.read(7, 1 << 20, 100, true), outOfRange)
  const r = await o.log.read(8, 1 << 20, 100, true)
  assert.equal([...iterateBatches(r.records)][0]!.baseOffset, 8)

  // A retention of -1 keeps everything; a younger limit takes the 1-hour-old segment too.
  assert.equal(await deleteOldSegments(o.log, config({ retentionMs: -1 }), now + 100 * HOUR), 0)
  assert.equal(await deleteOldSegments(o.log, config({ retentionMs: 30 * 60_000 }), now), 1)
  assert.deepEqual(o.log.segmentBaseOffsets(), [12])
  assert.equal(o.log.logStartOffset, 12)
})

test('an expired active segment is rolled, then deleted: an idle partition ages out', async (t) => {
  const o = await openLog(t, { segmentBytes: 1 << 20 })
  const now = o.clock.now()
  for (let i = 0; i < 3; i++) await append(o.log, now - 10_000)
  assert.equal(o.log.segmentCount, 1)

  // Not yet expired: nothing happens.
  assert.equal(await deleteOldSegments(o.log, config({ retentionMs: 20_000 }), now), 0)
  assert.equal(await deleteOldSegments(o.log, config({ retentionMs: 2000 }), now), 1)
  assert.deepEqual(o.log.segmentBaseOffsets(), [6], 'a fresh empty segment at the log end remains')
  assert.equal(o.log.logStartOffset, 6)
  assert.equal(o.log.logEndOffset, 6)
  assert.equal(o.log.sizeBytes, 0)
  assert.deepEqual(files(o, '.log'), [name(6, '.log')])
  // An empty active segment is never deleted, and appends carry on at the log end.
  assert.equal(await deleteOldSegments(o.log, config({ retentionMs: 0 }), now + HOUR), 0)
  assert.equal((await append(o.log, now)).baseOffset, 6)
  assert.equal((await o.log.read(6, 1 << 20, 100, true)).records.length, BATCH)
})

test('retention.bytes deletes oldest segments while size − segment.size ≥ retention.bytes', async (t) => {
  const o = await openLog(t)
  const now = o.clock.now()
  for (let i = 0; i < 9; i++) await append(o.log, now)
  // Segments of 2, 2, 2, 2 batches and an active one with 1.
  assert.deepEqual(o.log.segmentBaseOffsets(), [0, 4, 8, 12, 16])
  assert.equal(o.log.sizeBytes, 9 * BATCH)

  // Budget 4.5 batches: 9 − 2 − 2 = 5 ≥ 4.5, but 5 − 2 = 3 < 4.5, so two segments go.
  const budget = Math.floor(4.5 * BATCH)
  assert.equal(await deleteOldSegments(o.log, config({ retentionBytes: budget }), now), 2)
  assert.deepEqual(o.log.segmentBaseOffsets(), [8, 12, 16])
  assert.equal(o.log.sizeBytes, 5 * BATCH)
  assert.ok(o.log.sizeBytes >= budget, 'never below the budget by deleting')
  assert.ok(o.log.sizeBytes - 2 * BATCH < budget, 'but within one segment of it')
  assert.equal(o.log.logStartOffset, 8)

  // Exactly on budget: nothing to delete; -1 = unlimited.
  assert.equal(await deleteOldSegments(o.log, config({ retentionBytes: 5 * BATCH }), now), 0)
  assert.equal(await deleteOldSegments(o.log, config({ retentionBytes: -1 }), now), 0)
  // Budget 0 takes everything, the active segment included (rolled first).
  assert.equal(await deleteOldSegments(o.log, config({ retentionBytes: 0 }), now), 3)
  assert.deepEqual(o.log.segmentBaseOffsets(), [18])
  assert.equal(o.log.sizeBytes, 0)
})

test('cleanup.policy=compact alone is untouched by time and size; compact,delete is trimmed', async (t) => {
  assert.equal(
    retentionConfigOf({ 'retention.ms': 5, 'retention.bytes': 7, 'cleanup.policy': ['compact'], 'file.delete.delay.ms': 9 }).deleteEnabled,
    false,
  )
  const both = retentionConfigOf({
    'retention.ms': 5,
    'retention.bytes': 7,
    'cleanup.policy': ['compact', 'delete'],
    'file.delete.delay.ms': 9,
  })
  assert.deepEqual(both, { retentionMs: 5, retentionBytes: 7, deleteEnabled: true, fileDeleteDelayMs: 9 })

  const o = await openLog(t)
  const old = o.clock.now() - 10 * HOUR
  for (let i = 0; i < 6; i++) await append(o.log, old)
  const compactOnly = config({ retentionMs: 1, retentionBytes: 0, deleteEnabled: false })
  assert.equal(await deleteOldSegments(o.log, compactOnly, o.clock.now()), 0)
  assert.deepEqual(o.log.segmentBaseOffsets(), [0, 4, 8])
  // The log start offset rule still applies to a compacted log (DeleteRecords is refused by the
  // broker for such topics, but a log start moved otherwise must still free its segments).
  o.log.maybeIncrementHighWatermark(o.log.logEndOffset)
  await o.log.maybeIncrementLogStartOffset(5)
  assert.equal(await deleteOldSegments(o.log, compactOnly, o.clock.now()), 1)
  assert.deepEqual(o.log.segmentBaseOffsets(), [4, 8])
  assert.equal(o.log.logStartOffset, 5, 'the log start stays inside the segment')

  assert.equal(await deleteOldSegments(o.log, config({ retentionMs: 1, deleteEnabled: true }), o.clock.now()), 2)
  assert.deepEqual(o.log.segmentBaseOffsets(), [12])
})

test('segments at or above the high watermark are never deleted', async (t) => {
  const o = await openLog(t)
  const old = o.clock.now() - 10 * HOUR
  // Appended without moving the high watermark past 5 (as a leader whose followers lag).
  for (let i = 0; i < 6; i++) await produce(o.log, [makeBatch(2, old, 'v', 100)])
  o.log.maybeIncrementHighWatermark(5)
  assert.equal(o.log.highWatermark, 5)
  assert.equal(await deleteOldSegments(o.log, config({ retentionMs: 1 }), o.clock.now()), 1)
  assert.deepEqual(o.log.segmentBaseOffsets(), [4, 8])
  assert.ok(o.log.logStartOffset <= o.log.highWatermark)
})

test('deleted segments wait as .deleted for file.delete.delay.ms on the clock', async (t) => {
  const o = await openLog(t)
  const old = o.clock.now() - 10 * HOUR
  for (let i = 0; i < 5; i++) await append(o.log, old)
  await append(o.log, o.clock.now())
  assert.equal(await deleteOldSegments(o.log, config({ retentionMs: HOUR, fileDeleteDelayMs: 60_000 }), o.clock.now()), 2)
  assert.deepEqual(files(o, '.deleted'), [name(0, '.log.deleted'), name(4, '.log.deleted')])
  assert.deepEqual(files(o, '.index'), [name(8, '.index')], 'indexes of deleted segments go at once')
  assert.deepEqual(files(o, '.log'), [name(8, '.log')])
  o.clock.advance(59_999)
  assert.equal(files(o, '.deleted').length, 2)
  o.clock.advance(1)
  // The timer's unlink is asynchronous: wait for it without a time bound on the assertion.
  for (let i = 0; i < 1000 && files(o, '.deleted').length > 0; i++) await new Promise((r) => setImmediate(r))
  assert.deepEqual(files(o, '.deleted'), [])
})

test('files still waiting for their delay are removed by close, and a crash leftover at load', async (t) => {
  const o = await openLog(t)
  const old = o.clock.now() - 10 * HOUR
  for (let i = 0; i < 5; i++) await append(o.log, old)
  await append(o.log, o.clock.now())
  assert.equal(await deleteOldSegments(o.log, config({ retentionMs: HOUR, fileDeleteDelayMs: 60_000 }), o.clock.now()), 2)
  assert.equal(files(o, '.deleted').length, 2)
  await o.mgr.close()
  assert.deepEqual(files(o, '.deleted'), [])

  // A `.deleted` file left behind (a crash before its delay ran out) is removed when loading.
  const again = await openLog(t, undefined, { dir: o.dir })
  assert.equal(again.log.logStartOffset, 8)
  for (let i = 0; i < 3; i++) await append(again.log, again.clock.now())
  assert.equal(await deleteOldSegments(again.log, config({ retentionBytes: 0, fileDeleteDelayMs: 60_000 }), again.clock.now()), 3)
  assert.deepEqual(again.log.segmentBaseOffsets(), [18])
  assert.equal(files(again, '.deleted').length, 3)
  for (const l of again.mgr.all()) await l.closeWithoutFlush()
  assert.equal(files(again, '.deleted').length, 3, 'a crash leaves them')
  const third = await openLog(t, undefined, { dir: o.dir })
  assert.deepEqual(files(third, '.deleted'), [])
  assert.deepEqual(third.log.segmentBaseOffsets(), [18])
  assert.equal(third.log.logStartOffset, 18)
})

test('the retention task runs every check interval on the clock and reads the current config', async (t) => {
  const o = await openLog(t)
  const old = o.clock.now() - 10 * HOUR
  for (let i = 0; i < 5; i++) await append(o.log, old)
  await append(o.log, o.clock.now())
  let current: RetentionConfig | null = config({ retentionMs: -1 })
  let passes = 0
  let onDeletion: (() => void) | null = null
  const task = new RetentionTask({
    clock: o.clock,
    logger: silentLogger,
    checkIntervalMs: 1000,
    logs: () => o.mgr.all(),
    configOf: () => current,
    afterDeletion: async () => {
      passes++
      onDeletion?.()
    },
  })
  deferClose(t, () => task.stop())
  task.start()
  o.clock.advance(1000)
  assert.equal(await task.runOnce(), 0, 'the pass the timer started keeps everything (retention.ms -1)')
  assert.equal(o.log.segmentCount, 3)

  // A changed config is picked up by the next timed pass, without a restart.
  current = config({ retentionMs: HOUR })
  const deleted = new Promise<void>((resolve) => {
    onDeletion = resolve
  })
  o.clock.advance(1000)
  await deleted
  assert.equal(passes, 1)
  assert.deepEqual(o.log.segmentBaseOffsets(), [8])

  await task.runOnce() // the timed pass may still be finishing: join it (or run one more)

  // null leaves a log alone; stop() ends the schedule.
  current = null
  assert.equal(await task.runOnce(), 0)
  await task.stop()
  current = config({ retentionMs: 0, retentionBytes: 0 })
  o.clock.advance(10_000)
  assert.deepEqual(o.log.segmentBaseOffsets(), [8])
})

test('the log start offset is checkpointed after a retention run and survives a crash and reopen', async (t) => {
  const o = await openLog(t)
  const old = o.clock.now() - 10 * HOUR
  for (let i = 0; i < 5; i++) await append(o.log, old)
  await append(o.log, o.clock.now())
  o.mgr.startRetention({ checkIntervalMs: 5000, configOf: () => config({ retentionMs: HOUR }) })
  assert.equal(await o.mgr.runRetention(), 2)
  assert.equal(o.log.logStartOffset, 8)
  assert.equal(checkpointed(o), 8)

  // DeleteRecords inside a segment: the segments below go at once, the offset is checkpointed.
  assert.equal(await o.mgr.deleteRecords(o.log, 10, 0), 10)
  assert.equal(checkpointed(o), 10)
  assert.deepEqual(o.log.segmentBaseOffsets(), [8])

  // Crash: no flush, no clean-shutdown marker; the reopened log starts where it did.
  for (const l of o.mgr.all()) await l.closeWithoutFlush()
  const again = await openLog(t, undefined, { dir: o.dir })
  assert.equal(again.log.logStartOffset, 10)
  assert.equal(again.log.logEndOffset, 12)
  await assert.rejects(again.log.read(9, 1 << 20, 100, true), outOfRange)
  assert.ok((await again.log.read(10, 1 << 20, 100, true)).records.length > 0)
  await again.mgr.close()
  const third = await openLog(t, undefined, { dir: o.dir })
  assert.equal(third.log.logStartOffset, 10, 'and after a clean close')
})

/** An Fs whose reads of .log files wait on a gate, to hold a read in flight. */
function gatedFs(): { fs: Fs; hold(): void; release(): void; waiting: Promise<void> } {
  let held = false
  let gate: Promise<void> = Promise.resolve()
  let open: () => void = () => {}
  let reached: () => void = () => {}
  const waiting = new Promise<void>((r) => {
    reached = r
  })
  const wrap = (inner: FileHandle, path: string): FileHandle => ({
    ...inner,
    read: async (buffer, offset, length, position) => {
      if (held && path.includes('.log')) {
        reached()
        await gate
      }
      return inner.read(buffer, offset, length, position)
    },
    write: (b, p) => inner.write(b, p),
    writev: (b, p) => inner.writev(b, p),
    truncate: (n) => inner.truncate(n),
    sync: () => inner.sync(),
    size: () => inner.size(),
    close: () => inner.close(),
  })
  const fs: Fs = { ...nodeFs, open: async (path: string, mode: OpenMode) => wrap(await nodeFs.open(path, mode), path) }
  return {
    fs,
    hold() {
      held = true
      gate = new Promise((r) => {
        open = r
      })
    },
    release() {
      held = false
      open()
    },
    waiting,
  }
}

for (const delayMs of [0, 60_000]) {
  test(`a read in flight on a segment deleted under it gets data or OFFSET_OUT_OF_RANGE (delay ${delayMs} ms)`, async (t) => {
    const g = gatedFs()
    const o = await openLog(t, undefined, { fs: g.fs })
    const old = o.clock.now() - 10 * HOUR
    for (let i = 0; i < 5; i++) await append(o.log, old)
    await append(o.log, o.clock.now())
    g.hold()
    const read = o.log.read(1, 1 << 20, 100, true).then(
      (r) => ({ records: r.records }),
      (err: unknown) => ({ err }),
    )
    await g.waiting
    assert.equal(await deleteOldSegments(o.log, config({ retentionMs: HOUR, fileDeleteDelayMs: delayMs }), o.clock.now()), 2)
    g.release()
    const r = await read
    if (delayMs === 0) {
      // The file is gone and its handle closed: the offsets are below the log start now.
      assert.ok('err' in r && outOfRange(r.err), `expected OFFSET_OUT_OF_RANGE, got ${JSON.stringify(r)}`)
    } else {
      // The renamed file is still there: the read completes with the data it asked for.
      assert.ok('records' in r, `expected data, got ${'err' in r ? String(r.err) : ''}`)
      assert.equal([...iterateBatches(r.records)][0]!.baseOffset, 0)
    }
    assert.equal(existsSync(`${o.dir}/events-0/${name(0, '.log')}`), false)
    // Later reads below the start are refused up front; the log keeps working.
    await assert.rejects(o.log.read(1, 1 << 20, 100, true), outOfRange)
    assert.equal((await append(o.log, o.clock.now())).baseOffset, 12)
  })
}
