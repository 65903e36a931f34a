// Transactional cleaning (storage/cleaner/transactions.ts, cleaner.ts, cleanable.ts), as Kafka's
// Cleaner: the records of aborted transactions go whatever their keys (and hide no older value),
// markers stay while their transaction's batches remain, then go delete.retention.ms after the
// cleaning that found them removable, and nothing at or past the last stable offset is cleaned.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type BatchHeader, TRANSACTIONAL_MASK } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { readMarker } from '../../../src/protocol/records/control-record.js'
import { iterateBatches, iterateRecords } from '../../../src/protocol/records/iterator.js'
import { hasDeleteHorizon } from '../../../src/storage/cleaner/batch-filter.js'
import { MemoryFs } from '../../../src/storage/memory-fs.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import { ManualClock } from '../../../src/util/clock.js'
import { append, openCompacted } from './cleaner-helpers.js'
import { produce } from './helpers.js'
import { T0, writeMarker } from './txn-helpers.js'

const HOUR = 3_600_000

/** A transactional batch of keyed records. */
function txn(pid: number, seq: number, records: Array<[string, string]>, ts = T0): Buffer {
  return buildRecordBatch({
    baseTimestamp: ts,
    producerId: pid,
    producerEpoch: 0,
    baseSequence: seq,
    attributes: TRANSACTIONAL_MASK,
    records: records.map(([k, v]) => ({ key: Buffer.from(k), value: Buffer.from(v), timestamp: ts })),
  })
}

async function appendTxn(log: PartitionLog, b: Buffer) {
  await produce(log, [b])
  log.maybeIncrementHighWatermark(log.logEndOffset)
}

/** Transactions v2 markers (the epoch bumped): the producers keep no data batch in their state. */
async function endTxn(log: PartitionLog, pid: number, commit: boolean) {
  await writeMarker(log, pid, 1, commit, 0, 2)
  log.maybeIncrementHighWatermark(log.logEndOffset)
}

interface Seen {
  values: Map<string, string[]>
  markers: Array<{ header: BatchHeader; commit: boolean }>
}

/** Every data record's value by key, and the markers, across the whole log. */
async function contents(log: PartitionLog): Promise<Seen> {
  const seen: Seen = { values: new Map(), markers: [] }
  // A read stays within one segment: read on from where each ends.
  for (let offset = log.logStartOffset; offset < log.logEndOffset; ) {
    const { records } = await log.read(offset, 1 << 24, log.logEndOffset, true)
    if (records.length === 0) break
    for (const h of iterateBatches(records)) {
      offset = h.baseOffset + h.lastOffsetDelta + 1
      if (h.isControl) {
        const m = readMarker(records, h)
        if (m) seen.markers.push({ header: h, commit: m.commit })
        continue
      }
      for (const r of iterateRecords(records, h.position)) {
        const k = r.key!.toString()
        seen.values.set(k, [...(seen.values.get(k) ?? []), r.value!.toString()])
      }
    }
  }
  return seen
}

/** Plain records that roll segments so what came before is cleanable. */
async function filler(log: PartitionLog, n: number, tag: string) {
  for (let i = 0; i < n; i++) await append(log, [{ key: `f${i}`, value: `${tag}-${i}` }], T0)
}

test('aborted records go whatever their keys, hiding no older value; markers stay while their batches remain, then go after delete.retention.ms', async () => {
  const clock = new ManualClock(T0)
  const c = await openCompacted({
    fs: new MemoryFs(() => clock.now()),
    dir: '/data',
    clock,
    config: { segmentBytes: 300 },
    logConfig: { deleteRetentionMs: HOUR },
  })
  const { log, mgr } = c
  await append(log, [{ key: 'a', value: 'old-a' }], T0)
  await appendTxn(
    log,
    txn(1, 0, [
      ['a', 'aborted-a'],
      ['b', 'aborted-b'],
    ]),
  )
  await appendTxn(log, txn(2, 0, [['c', 'committed-c']]))
  await endTxn(log, 1, false)
  await endTxn(log, 2, true)
  await filler(log, 8, 'x')
  assert.equal(log.lastStableOffset, log.highWatermark)

  assert.notEqual(await mgr.runCleaner(), null)
  let seen = await contents(log)
  assert.deepEqual(seen.values.get('a'), ['old-a'], 'the aborted a did not supersede the older one')
  assert.equal(seen.values.get('b'), undefined, 'aborted records are removed')
  assert.deepEqual(seen.values.get('c'), ['committed-c'])
  assert.deepEqual(
    seen.markers.map((m) => [m.header.producerId, m.commit, hasDeleteHorizon(m.header)]),
    [
      [1, false, false],
      [2, true, false],
    ],
    'both markers kept: this cleaning met batches of their transactions',
  )
  // The cleaned segment still reports the transaction whose marker it kept.
  assert.deepEqual(
    log.collectAbortedTransactions(0, log.logEndOffset).map((t) => t.producerId),
    [1],
  )

  // More dirt makes the next cleaning run: the aborted transaction has no batch left.
  await filler(log, 8, 'y')
  assert.notEqual(await mgr.runCleaner(), null)
  seen = await contents(log)
  assert.deepEqual(
    seen.markers.map((m) => [m.header.producerId, hasDeleteHorizon(m.header)]),
    [
      [1, true],
      [2, false],
    ],
    'the ABORT marker is stamped with a delete horizon; the COMMIT one still has its record',
  )
  assert.equal(seen.markers[0]!.header.baseTimestamp, T0 + HOUR)
  assert.deepEqual(log.collectAbortedTransactions(0, log.logEndOffset), [], 'no record of it is left to drop')
  assert.equal(await mgr.runCleaner(), null, 'not due yet')

  clock.advance(HOUR)
  assert.notEqual(await mgr.runCleaner(), null, 'a pass for the markers due')
  seen = await contents(log)
  assert.deepEqual(
    seen.markers.map((m) => m.header.producerId),
    [2],
    'the ABORT marker is gone; the COMMIT one stays with its committed record',
  )
  assert.deepEqual(seen.values.get('a'), ['old-a'])
  assert.deepEqual(seen.values.get('c'), ['committed-c'])
  // Producer 1's state holds no data batch: its last marker stays, emptied, for its epoch — and
  // the cleanings after take the emptied control batch as it is.
  // (Reads skip leading emptied batches: the segments are walked.)
  const emptied = async () => {
    let n = 0
    for (const seg of log.segmentsView()) {
      await seg.scan(0, seg.sizeBytes, false, 1 << 16, (h) => {
        if (h.isControl && h.recordCount === 0 && h.producerId === 1) n++
        return true
      })
    }
    return n
  }
  assert.equal(await emptied(), 1)
  await filler(log, 8, 'w')
  assert.notEqual(await mgr.runCleaner(), null)
  assert.equal(await emptied(), 1)
  assert.deepEqual((await contents(log)).values.get('a'), ['old-a'])
  await mgr.close()
})

test('nothing at or past the last stable offset is cleaned', async () => {
  const clock = new ManualClock(T0)
  const c = await openCompacted({ fs: new MemoryFs(() => clock.now()), dir: '/data', clock, config: { segmentBytes: 300 } })
  const { log, mgr } = c
  await append(log, [{ key: 'k', value: 'v1' }], T0)
  await appendTxn(log, txn(3, 0, [['t', 'open']]))
  const open = log.lastStableOffset
  await filler(log, 4, 'x')
  await append(log, [{ key: 'k', value: 'v2' }], T0)
  await filler(log, 8, 'y')
  assert.equal(open, 1)
  assert.equal(log.lastStableOffset, 1, 'the open transaction pins the LSO')
  await mgr.runCleaner()
  assert.deepEqual(
    (await contents(log)).values.get('k'),
    ['v1', 'v2'],
    'v1 is below the LSO but v2, which supersedes it, is not cleanable yet',
  )
  await endTxn(log, 3, true)
  await filler(log, 6, 'z')
  assert.notEqual(await mgr.runCleaner(), null)
  assert.deepEqual((await contents(log)).values.get('k'), ['v2'])
  assert.deepEqual((await contents(log)).values.get('t'), ['open'], 'committed records are kept')
  await mgr.close()
})
