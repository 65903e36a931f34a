// Idempotent producers (storage/producer-state.ts, producer-snapshot.ts, their use by the partition
// log): Kafka's sequence and epoch rules, duplicates answered with the original offsets, in-flight
// batches, snapshots (format, CRC, recovery from snapshot + log, after a crash), follower state,
// expiration on the virtual clock.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { KafkaError } from '../../../src/protocol/errors.js'
import { type BatchHeader, readBatchHeader, validateProducedBatches } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { iterateBatches } from '../../../src/protocol/records/iterator.js'
import { CrashFs } from '../../../src/storage/crash-fs.js'
import type { Fs } from '../../../src/storage/fs.js'
import { defaultLogConfig, type LogConfig } from '../../../src/storage/log-config.js'
import { LogManager } from '../../../src/storage/log-manager.js'
import { MemoryFs } from '../../../src/storage/memory-fs.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import { CorruptSnapshotError, decodeSnapshot, encodeSnapshot, snapshotFileName } from '../../../src/storage/producer-snapshot.js'
import { lastSequenceOf, type ProducerEntry, ProducerStateManager } from '../../../src/storage/producer-state.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { errorName } from './helpers.js'

const INT32_MAX = 0x7fffffff
const DIR = '/data'
/** The virtual clock's start: batches are stamped near it, or their producers would be long expired. */
const T0 = 1_700_000_000_000

/** An idempotent batch of n records: producer id, epoch, base sequence. */
function idem(pid: number, epoch: number, seq: number, n = 1, ts = T0): Buffer {
  return buildRecordBatch({
    baseTimestamp: ts,
    producerId: pid,
    producerEpoch: epoch,
    baseSequence: seq,
    records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`p${pid}-e${epoch}-s${seq}-${i}`), timestamp: ts + i })),
  })
}

/** The headers of buffers as a log append sees them, with offsets assigned from base. */
function headers(buffers: Buffer[], base = 0): BatchHeader[] {
  let offset = base
  return buffers.map((b) => {
    const h = readBatchHeader(b, 0)
    h.baseOffset = offset
    offset += h.lastOffsetDelta + 1
    return h
  })
}

/** Checks and commits, as the log does around a write. */
function append(s: ProducerStateManager, buffers: Buffer[], base = 0) {
  const p = s.prepare(headers(buffers, base))
  if (!p.duplicate) s.commit(p.updates)
  return p
}

describe('producer state: sequence and epoch rules (ProducerAppendInfo)', () => {
  it('accepts consecutive sequences and refuses a gap or a step back with OUT_OF_ORDER_SEQUENCE_NUMBER', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    append(s, [idem(7, 0, 0, 3)])
    append(s, [idem(7, 0, 3, 2)], 3)
    assert.equal(
      errorName(() => s.prepare(headers([idem(7, 0, 6)], 5))),
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
      'gap',
    )
    assert.equal(
      errorName(() => s.prepare(headers([idem(7, 0, 4)], 5))),
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
      'overlap',
    )
    assert.equal(
      errorName(() => s.prepare(headers([idem(7, 0, 5)], 5))),
      'NONE',
    )
    assert.deepEqual(
      s.entry(7)!.batches.map((b) => b.lastSeq),
      [2, 4],
    )
  })

  it('wraps the sequence from Int32 max to 0, in a batch and between batches', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    const across = headers([idem(9, 0, INT32_MAX - 1, 3)])[0]!
    assert.equal(lastSequenceOf(across), 0, 'MAX-1, MAX, 0')
    append(s, [idem(9, 0, INT32_MAX - 1, 2)])
    assert.equal(s.entry(9)!.batches[0]!.lastSeq, INT32_MAX)
    assert.equal(
      errorName(() => s.prepare(headers([idem(9, 0, INT32_MAX)], 2))),
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
    )
    append(s, [idem(9, 0, 0, 2)], 2)
    assert.equal(s.entry(9)!.batches[1]!.lastSeq, 1)
    // A retry of the batch that straddled the wrap is found by its range.
    const s2 = new ProducerStateManager('t-0', 86_400_000)
    append(s2, [idem(9, 0, INT32_MAX - 1, 3)])
    const dup = s2.prepare(headers([idem(9, 0, INT32_MAX - 1, 3)], 3))
    assert.deepEqual(dup.duplicate && { lastSeq: dup.duplicate.lastSeq, lastOffset: dup.duplicate.lastOffset }, {
      lastSeq: 0,
      lastOffset: 2,
    })
  })

  it('a higher epoch must start at sequence 0 (KIP-360); a lower one is INVALID_PRODUCER_EPOCH', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    append(s, [idem(5, 3, 0, 4)])
    assert.equal(
      errorName(() => s.prepare(headers([idem(5, 4, 4)], 4))),
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
    )
    assert.equal(
      errorName(() => s.prepare(headers([idem(5, 2, 4)], 4))),
      'INVALID_PRODUCER_EPOCH',
    )
    assert.equal(
      errorName(() => s.prepare(headers([idem(5, 2, 0)], 4))),
      'INVALID_PRODUCER_EPOCH',
    )
    append(s, [idem(5, 4, 0, 2)], 4)
    const e = s.entry(5)!
    assert.equal(e.epoch, 4)
    assert.equal(e.batches.length, 1, 'the old epoch batches are dropped')
    assert.equal(
      errorName(() => s.prepare(headers([idem(5, 3, 4)], 6))),
      'INVALID_PRODUCER_EPOCH',
    )
  })

  it('takes a producer without state at any sequence (no UNKNOWN_PRODUCER_ID since KIP-360)', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    assert.equal(
      errorName(() => append(s, [idem(11, 2, 57)])),
      'NONE',
    )
    assert.equal(s.entry(11)!.batches[0]!.lastSeq, 57)
    assert.equal(
      errorName(() => s.prepare(headers([idem(11, 2, 59)], 1))),
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
      'from then on, in order',
    )
  })

  it('recognises a retry of any of the last 5 batches, not of the 6th, and not in another epoch', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    for (let i = 0; i < 6; i++) append(s, [idem(3, 0, 2 * i, 2)], 2 * i)
    for (let i = 1; i < 6; i++) {
      const p = s.prepare(headers([idem(3, 0, 2 * i, 2)], 100))
      assert.ok(p.duplicate, `batch ${i}`)
      assert.equal(p.duplicate.lastOffset - p.duplicate.offsetDelta, 2 * i, 'its original base offset')
    }
    assert.equal(
      errorName(() => s.prepare(headers([idem(3, 0, 0, 2)], 100))),
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
      'the 6th is forgotten',
    )
    assert.equal(
      errorName(() => s.prepare(headers([idem(3, 0, 2, 1)], 100))),
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
      'another range',
    )
    assert.equal(
      errorName(() => s.prepare(headers([idem(3, 1, 2, 2)], 100))),
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
      'another epoch',
    )
  })

  it('checks the batches of one append against each other, and leaves batches without a producer id alone', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    const plain = buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }] })
    assert.equal(
      errorName(() => append(s, [idem(1, 0, 0, 2), plain, idem(1, 0, 2, 3), idem(2, 0, 0)])),
      'NONE',
    )
    assert.deepEqual(
      s.entry(1)!.batches.map((b) => [b.lastSeq, b.lastOffset]),
      [
        [1, 1],
        [4, 5],
      ],
    )
    assert.equal(s.size, 2)
    assert.equal(
      errorName(() => s.prepare(headers([idem(1, 0, 5), idem(1, 0, 7)], 7))),
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
    )
    assert.equal(s.entry(1)!.batches.length, 2, 'a refused append changes nothing')
    const none = s.prepare(headers([plain]))
    assert.equal(none.duplicate, null)
    assert.equal(!none.duplicate && none.updates, null, 'no producer batch: no work')
  })

  it('expires producers idle for producer.id.expiration.ms', () => {
    const s = new ProducerStateManager('t-0', 1000)
    append(s, [idem(1, 0, 0, 1, 5_000)])
    append(s, [idem(2, 0, 0, 1, 5_500)], 1)
    assert.equal(s.removeExpired(5_999), 0)
    assert.equal(s.removeExpired(6_000), 1)
    assert.equal(s.entry(1), undefined)
    assert.ok(s.entry(2))
  })
})

describe('producer snapshots (Kafka ProducerSnapshot v1)', () => {
  const entries: ProducerEntry[] = [
    {
      producerId: 1000,
      epoch: 3,
      coordinatorEpoch: -1,
      lastTimestamp: 1_700_000_000_000,
      currentTxnFirstOffset: -1,
      batches: [{ lastSeq: 41, lastOffset: 900, offsetDelta: 4, timestamp: 1_700_000_000_000 }],
    },
    { producerId: 2 ** 40, epoch: 0, coordinatorEpoch: 7, lastTimestamp: 12, currentTxnFirstOffset: 55, batches: [] },
  ]

  it('round-trips, keeping the last batch of each producer, in the documented layout', () => {
    const buf = encodeSnapshot(entries)
    assert.equal(buf.length, 2 + 4 + 4 + 2 * 46)
    assert.equal(buf.readInt16BE(0), 1, 'version')
    assert.equal(buf.readInt32BE(6), 2, 'count')
    assert.equal(buf.readBigInt64BE(10), 1000n)
    assert.equal(buf.readInt16BE(18), 3)
    assert.equal(buf.readInt32BE(20), 41)
    assert.equal(buf.readBigInt64BE(24), 900n)
    assert.equal(buf.readInt32BE(32), 4)
    assert.equal(buf.readBigInt64BE(56 + 14), -1n, 'no batch: last offset -1')
    assert.deepEqual(decodeSnapshot(buf), entries)
    assert.deepEqual(decodeSnapshot(encodeSnapshot([])), [])
  })

  it('refuses a flipped byte (CRC-32C), a wrong version, a short file', () => {
    const buf = encodeSnapshot(entries)
    const bad = Buffer.from(buf)
    bad[30]! ^= 1
    assert.throws(() => decodeSnapshot(bad), CorruptSnapshotError)
    const v = Buffer.from(buf)
    v.writeInt16BE(2, 0)
    assert.throws(() => decodeSnapshot(v), CorruptSnapshotError)
    assert.throws(() => decodeSnapshot(buf.subarray(0, buf.length - 1)), CorruptSnapshotError)
    assert.equal(snapshotFileName(42), '00000000000000000042.snapshot')
  })
})

async function openMgr(
  fs: Fs,
  clock: ManualClock,
  config: Partial<LogConfig> = {},
  more: { producerIdExpirationMs?: number; producerIdExpirationCheckIntervalMs?: number } = {},
) {
  return LogManager.open({ fs, clock, logDir: DIR, config: { ...defaultLogConfig, ...config }, logger: silentLogger, ...more })
}

function produce(log: PartitionLog, buffers: Buffer[]) {
  const records = Buffer.concat(buffers)
  return log.append(records, validateProducedBatches(records, { maxBatchBytes: 1 << 30 }), 0)
}

async function batchCount(log: PartitionLog): Promise<number> {
  const r = await log.read(log.logStartOffset, 1 << 24, Number.MAX_SAFE_INTEGER, true)
  return [...iterateBatches(r.records)].length
}

describe('producer state in the partition log', () => {
  it('answers a duplicate with the original offsets and timestamp, and appends nothing', async () => {
    const clock = new ManualClock()
    const mgr = await openMgr(new MemoryFs(), clock)
    const log = await mgr.create('t', 0, 'id')
    await produce(log, [makePlain()])
    const first = await produce(log, [idem(8, 1, 0, 3, T0 + 7_000)])
    assert.equal(first.baseOffset, 1)
    await produce(log, [idem(8, 1, 3, 1)])
    const again = await produce(log, [idem(8, 1, 0, 3, T0 + 7_000)])
    assert.deepEqual(again, { baseOffset: 1, lastOffset: 3, maxTimestamp: T0 + 7_002, logAppendTimeMs: T0 + 7_002, duplicate: true })
    assert.equal(log.logEndOffset, 5)
    assert.equal(await batchCount(log), 3)
    await assert.rejects(
      produce(log, [idem(8, 1, 9)]),
      (e: unknown) => e instanceof KafkaError && e.errorName === 'OUT_OF_ORDER_SEQUENCE_NUMBER',
    )
    assert.equal(log.logEndOffset, 5, 'a refused batch is not written')
    await mgr.close()
  })

  it('checks 5 in-flight appends of one producer in their order, with the state of the ones before', async () => {
    const mgr = await openMgr(new MemoryFs(), new ManualClock())
    const log = await mgr.create('t', 0, 'id')
    // Issued together, not awaited one by one: each is checked when its turn to be written comes.
    const results = await Promise.all([0, 1, 2, 3, 4].map((i) => produce(log, [idem(4, 0, 2 * i, 2)])))
    assert.deepEqual(
      results.map((r) => r.baseOffset),
      [0, 2, 4, 6, 8],
    )
    const retries = await Promise.all([0, 1, 2, 3, 4].map((i) => produce(log, [idem(4, 0, 2 * i, 2)])))
    assert.ok(retries.every((r, i) => r.duplicate && r.baseOffset === 2 * i))
    assert.equal(log.logEndOffset, 10)
    await mgr.close()
  })

  it('rebuilds the state after a clean restart from the snapshot at the log end, with nothing to replay', async () => {
    const fs = new MemoryFs()
    const clock = new ManualClock()
    let mgr = await openMgr(fs, clock, { segmentBytes: 300 })
    let log = await mgr.create('t', 0, 'id')
    for (let i = 0; i < 10; i++) await produce(log, [idem(6, 0, i)])
    const before = log.producerEntries()
    assert.ok(log.segmentCount > 1)
    assert.ok(log.producerSnapshotOffsets().length > 0, 'snapshots at rolls')
    await mgr.close()
    const names = await fs.readdir(`${DIR}/t-0`)
    assert.ok(names.includes(snapshotFileName(10)), 'a snapshot at the log end on close')
    mgr = await openMgr(fs, clock, { segmentBytes: 300 })
    log = mgr.get('t', 0)!
    // The snapshot keeps only the last batch of each producer (as Kafka's does).
    assert.deepEqual(
      log.producerEntries(),
      before.map((e) => ({ ...e, batches: e.batches.slice(-1) })),
    )
    const dup = await produce(log, [idem(6, 0, 9)])
    assert.ok(dup.duplicate)
    assert.equal(dup.baseOffset, 9)
    assert.equal((await produce(log, [idem(6, 0, 10)])).baseOffset, 10)
    await mgr.close()
  })

  it('ignores a snapshot with a bad CRC and rebuilds the state from the log', async () => {
    const fs = new MemoryFs()
    const clock = new ManualClock()
    let mgr = await openMgr(fs, clock)
    let log = await mgr.create('t', 0, 'id')
    for (let i = 0; i < 4; i++) await produce(log, [idem(6, 2, 2 * i, 2)])
    const before = log.producerEntries()
    await mgr.close()
    const path = `${DIR}/t-0/${snapshotFileName(8)}`
    const bytes = await fs.readFile(path)
    bytes[bytes.length - 1]! ^= 0xff
    const fh = await fs.open(path, 'w')
    await fh.write(bytes, 0)
    await fh.close()
    mgr = await openMgr(fs, clock)
    log = mgr.get('t', 0)!
    assert.deepEqual(log.producerEntries(), before, 'replayed from the log: all 4 batches are back')
    assert.ok(!(await fs.readdir(`${DIR}/t-0`)).includes(snapshotFileName(8)), 'the corrupt snapshot is deleted')
    assert.ok((await produce(log, [idem(6, 2, 2, 2)])).duplicate)
    await mgr.close()
  })

  it('after a crash, rebuilds the state from the last durable snapshot and the recovered log', async () => {
    const fs = new CrashFs()
    await fs.mkdir(DIR)
    await fs.syncDir('/')
    const clock = new ManualClock()
    let mgr = await openMgr(fs, clock, { segmentBytes: 300, flushIntervalMessages: 1 })
    let log = await mgr.create('t', 0, 'id')
    for (let i = 0; i < 12; i++) await produce(log, [idem(21, 0, i)])
    await log.flush()
    const before = log.producerEntries()
    const end = log.logEndOffset
    fs.crash()
    mgr = await openMgr(fs, clock, { segmentBytes: 300, flushIntervalMessages: 1 })
    log = mgr.get('t', 0)!
    assert.equal(log.logEndOffset, end, 'every record was fsynced')
    // No recovery point was checkpointed, so every segment is rescanned; the rolls' snapshots
    // above the first rescanned segment follow batches that may not have been fsynced, so they
    // are not trusted (recovery.ts, as Kafka's LogLoader rebuilds the state of unflushed
    // segments from the log): the state is replayed from the log start.
    assert.deepEqual(log.producerSnapshotOffsets(), [], 'no snapshot above the recovery point is kept')
    const after = log.producerEntries()
    assert.equal(after.length, 1)
    assert.deepEqual(after[0]!.batches, before[0]!.batches)
    assert.ok((await produce(log, [idem(21, 0, 11)])).duplicate)
    assert.equal((await produce(log, [idem(21, 0, 12)])).baseOffset, end)
    await mgr.close()
  })

  it('a follower appending the leader batches holds the same state, and de-duplicates once it leads', async () => {
    const mgr = await openMgr(new MemoryFs(), new ManualClock())
    const leader = await mgr.create('t', 0, 'id')
    const follower = await mgr.create('t', 1, 'id')
    for (let i = 0; i < 7; i++) await produce(leader, [idem(30 + (i % 2), 0, 2 * Math.floor(i / 2), 2), makePlain()])
    const r = await leader.read(0, 1 << 20, Number.MAX_SAFE_INTEGER, true)
    const hs = [...iterateBatches(r.records)]
    await follower.appendAsFollower(r.records, hs)
    assert.deepEqual(follower.producerEntries(), leader.producerEntries())
    const dup = await produce(follower, [idem(31, 0, 2, 2)])
    assert.ok(dup.duplicate)
    assert.equal(dup.baseOffset, leader.producerEntry(31)!.batches[1]!.lastOffset - 1)
    await mgr.close()
  })

  it('a truncation reloads the state as of the new log end', async () => {
    const mgr = await openMgr(new MemoryFs(), new ManualClock(), { segmentBytes: 300 })
    const log = await mgr.create('t', 0, 'id')
    for (let i = 0; i < 10; i++) await produce(log, [idem(2, 0, i)])
    await log.truncateTo(6)
    assert.equal(log.producerEntry(2)!.batches.at(-1)!.lastSeq, 5)
    assert.ok(log.producerSnapshotOffsets().every((o) => o <= 6))
    assert.equal((await produce(log, [idem(2, 0, 6)])).baseOffset, 6, 'the producer resends what was cut')
    await mgr.close()
  })

  it('a follower restarting its log at the leader start forgets the producers and every snapshot', async () => {
    const fs = new MemoryFs()
    const mgr = await openMgr(fs, new ManualClock(), { segmentBytes: 300 })
    const log = await mgr.create('t', 0, 'id')
    for (let i = 0; i < 10; i++) await produce(log, [idem(2, 0, i)])
    assert.ok(log.producerSnapshotOffsets().length > 0)
    await log.truncateFullyAndStartAtOffset(50)
    assert.deepEqual(log.producerEntries(), [])
    assert.deepEqual(log.producerSnapshotOffsets(), [])
    assert.deepEqual(
      (await fs.readdir(`${DIR}/t-0`)).filter((n) => n.endsWith('.snapshot')),
      [],
    )
    assert.equal((await produce(log, [idem(2, 0, 77)])).baseOffset, 50, 'an unknown producer again: any sequence')
    await mgr.close()
  })

  it('DeleteRecords removes the snapshots below the log start and keeps the producers (KIP-360)', async () => {
    const mgr = await openMgr(new MemoryFs(), new ManualClock(), { segmentBytes: 300 })
    const log = await mgr.create('t', 0, 'id')
    for (let i = 0; i < 10; i++) await produce(log, [idem(2, 0, i)])
    log.maybeIncrementHighWatermark(log.logEndOffset)
    const snaps = log.producerSnapshotOffsets()
    assert.ok(snaps.length >= 2)
    await mgr.deleteRecords(log, 10, 0)
    assert.ok(log.producerSnapshotOffsets().every((o) => o >= log.logStartOffset))
    assert.ok(log.producerEntry(2))
    assert.ok((await produce(log, [idem(2, 0, 9)])).duplicate)
    await mgr.close()
  })

  it('the periodic check (producer.id.expiration.check.interval.ms) expires producers on the virtual clock', async () => {
    const clock = new ManualClock()
    const mgr = await openMgr(new MemoryFs(), clock, {}, { producerIdExpirationMs: 5_000, producerIdExpirationCheckIntervalMs: 1_000 })
    const log = await mgr.create('t', 0, 'id')
    await produce(log, [idem(1, 0, 0, 1, clock.now())])
    // Each check runs on the log's append queue: an append queued after it sees its result.
    for (let second = 1; second <= 4; second++) {
      clock.advance(1_000)
      await produce(log, [makePlain()])
      assert.ok(log.producerEntry(1), `not idle long enough after ${second} s`)
    }
    clock.advance(1_000)
    await produce(log, [makePlain()])
    assert.equal(log.producerEntry(1), undefined, 'expired by the check at 5 s')
    await mgr.close()
  })

  it('the log manager expires idle producers (producer.id.expiration.ms), also when loading a snapshot', async () => {
    const fs = new MemoryFs()
    const clock = new ManualClock()
    let mgr = await openMgr(fs, clock, {}, { producerIdExpirationMs: 10_000 })
    let log = await mgr.create('t', 0, 'id')
    await produce(log, [idem(1, 0, 0, 1, clock.now())])
    clock.advance(5_000)
    await produce(log, [idem(2, 0, 0, 1, clock.now())])
    clock.advance(5_000)
    assert.equal(await mgr.removeExpiredProducers(), 1)
    assert.equal(log.producerEntry(1), undefined)
    assert.equal(await produce(log, [idem(1, 0, 5, 1, clock.now())]).then((r) => r.baseOffset), 2, 'an expired producer starts afresh')
    await mgr.close()
    clock.advance(5_000)
    mgr = await openMgr(fs, clock, {}, { producerIdExpirationMs: 10_000 })
    log = mgr.get('t', 0)!
    assert.deepEqual(
      log.producerEntries().map((e) => e.producerId),
      [1],
      'producer 2 expired while the broker was down',
    )
    await mgr.close()
  })
})

function makePlain(): Buffer {
  return buildRecordBatch({ records: [{ key: null, value: Buffer.from('plain') }] })
}
