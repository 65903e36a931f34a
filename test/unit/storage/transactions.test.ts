// Transactions in the log (storage/producer-state.ts, transaction-index.ts, partition-log.ts,
// recovery.ts): Kafka's ProducerAppendInfo rules for transactional batches and markers, the
// .txnindex byte layout, the last stable offset on leaders and followers, read_committed reads
// with their aborted transactions, truncation, log start moves, snapshots and recovery after an
// unclean shutdown, on the memory and crash file systems and the virtual clock.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { iterateBatches } from '../../../src/protocol/records/iterator.js'
import { CrashFs } from '../../../src/storage/crash-fs.js'
import type { Fs } from '../../../src/storage/fs.js'
import { defaultLogConfig, type LogConfig } from '../../../src/storage/log-config.js'
import { LogManager } from '../../../src/storage/log-manager.js'
import { MemoryFs } from '../../../src/storage/memory-fs.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import { decodeSnapshot, snapshotFileName } from '../../../src/storage/producer-snapshot.js'
import { ProducerStateManager } from '../../../src/storage/producer-state.js'
import {
  ABORTED_TXN_BYTES,
  type AbortedTxn,
  decodeAbortedTxns,
  encodeAbortedTxns,
  TransactionIndex,
} from '../../../src/storage/transaction-index.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { errorName, produce } from './helpers.js'
import { applyToState, marker as markerOf, T0, txnBatch, writeMarker } from './txn-helpers.js'

const DIR = '/data'
const PART = `${DIR}/t-0`

function openMgr(fs: Fs, clock: ManualClock, config: Partial<LogConfig> = {}) {
  return LogManager.open({ fs, clock, logDir: DIR, config: { ...defaultLogConfig, ...config }, logger: silentLogger })
}

/** Appends a producer's batch and moves the HW to the log end, as a leader alone in its ISR does. */
async function commitAppend(log: PartitionLog, b: Buffer) {
  const info = await produce(log, [b])
  log.maybeIncrementHighWatermark(log.logEndOffset)
  return info
}

async function commitMarker(log: PartitionLog, pid: number, epoch: number, commit: boolean) {
  const info = await writeMarker(log, pid, epoch, commit)
  log.maybeIncrementHighWatermark(log.logEndOffset)
  return info
}

describe('producer state: transactions (ProducerAppendInfo)', () => {
  it('a transactional batch opens a transaction at its base offset; later ones of it change nothing', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    applyToState(s, [txnBatch(1, 0, 0, 2)], 10)
    applyToState(s, [txnBatch(1, 0, 2, 3)], 12)
    assert.equal(s.entry(1)!.currentTxnFirstOffset, 10)
    assert.ok(s.hasOngoingTransaction(1))
    assert.deepEqual(s.ongoingTransactions(), [{ producerId: 1, firstOffset: 10, lastOffset: -1 }])
    assert.equal(s.firstUnstableOffset(), 10)
  })

  it('keeps the ongoing transactions ordered by first offset, also when loaded from a snapshot', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    applyToState(s, [txnBatch(2, 0, 0), txnBatch(1, 0, 0)], 0)
    applyToState(s, [txnBatch(3, 0, 0)], 5)
    assert.deepEqual(
      s.ongoingTransactions().map((t) => [t.producerId, t.firstOffset]),
      [
        [2, 0],
        [1, 1],
        [3, 5],
      ],
    )
    const loaded = new ProducerStateManager('t-0', 86_400_000)
    loaded.load(s.entries().reverse(), T0)
    assert.deepEqual(loaded.ongoingTransactions(), s.ongoingTransactions())
  })

  it('refuses a non-transactional batch while the producer has a transaction open: INVALID_TXN_STATE', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    applyToState(s, [txnBatch(1, 0, 0)], 0)
    assert.equal(
      errorName(() => applyToState(s, [txnBatch(1, 0, 1, 1, { transactional: false })], 1)),
      'INVALID_TXN_STATE',
    )
    assert.equal(s.entry(1)!.batches.length, 1, 'nothing of the refused batch is applied')
  })

  it('a marker completes the transaction: CompletedTxn {producerId, firstOffset, lastOffset, isAborted}, coordinator epoch taken', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    applyToState(s, [txnBatch(1, 0, 0, 3)], 4)
    const commit = applyToState(s, [markerOf(1, 0, true, 5)], 7, { origin: 'coordinator' })
    assert.deepEqual(commit.completed, [{ producerId: 1, firstOffset: 4, lastOffset: 7, isAborted: false, lastStableOffset: 8 }])
    assert.equal(s.entry(1)!.currentTxnFirstOffset, -1)
    assert.equal(s.entry(1)!.coordinatorEpoch, 5)
    assert.equal(s.entry(1)!.batches.length, 1, 'the same epoch keeps the batches')
    applyToState(s, [txnBatch(1, 0, 3)], 8)
    const abort = applyToState(s, [markerOf(1, 0, false, 5)], 9, { origin: 'coordinator' })
    assert.equal(abort.completed[0]!.isAborted, true)
    // A marker without an open transaction completes nothing but still updates the entry.
    const none = applyToState(s, [markerOf(1, 0, false, 6)], 10, { origin: 'coordinator' })
    assert.deepEqual(none.completed, [])
    assert.equal(s.entry(1)!.coordinatorEpoch, 6)
  })

  it('the last stable offset recorded is the oldest other open transaction, else the offset after the marker', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    applyToState(s, [txnBatch(1, 0, 0), txnBatch(2, 0, 0)], 0)
    const r = applyToState(s, [markerOf(1, 0, false)], 2, { origin: 'coordinator' })
    assert.equal(r.completed[0]!.lastStableOffset, 1, "producer 2's transaction is still open at 1")
    const r2 = applyToState(s, [markerOf(2, 0, false)], 3, { origin: 'coordinator' })
    assert.equal(r2.completed[0]!.lastStableOffset, 4)
  })

  it('a completed transaction stays unstable until the high watermark passes its marker', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    applyToState(s, [txnBatch(1, 0, 0, 2)], 3)
    applyToState(s, [markerOf(1, 0, true)], 5, { origin: 'coordinator' })
    assert.equal(s.firstUnstableOffset(), 3)
    s.onHighWatermarkUpdated(5)
    assert.equal(s.firstUnstableOffset(), 3, 'the marker at 5 is not below the HW 5')
    s.onHighWatermarkUpdated(6)
    assert.equal(s.firstUnstableOffset(), -1)
  })

  it('a marker older than the producer epoch is INVALID_PRODUCER_EPOCH (transactions v1 take the same epoch)', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    applyToState(s, [txnBatch(1, 3, 0)], 0)
    assert.equal(
      errorName(() => applyToState(s, [markerOf(1, 2, true)], 1, { origin: 'coordinator' })),
      'INVALID_PRODUCER_EPOCH',
    )
    assert.ok(s.hasOngoingTransaction(1))
    assert.equal(applyToState(s, [markerOf(1, 3, true)], 1, { origin: 'coordinator', transactionVersion: 0 }).completed.length, 1)
  })

  it('transactions v2: a marker must bump the epoch, except the retry of one already written', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    applyToState(s, [txnBatch(1, 3, 0)], 0)
    const opts = { origin: 'coordinator' as const, transactionVersion: 2 }
    assert.equal(
      errorName(() => applyToState(s, [markerOf(1, 3, true)], 1, opts)),
      'INVALID_PRODUCER_EPOCH',
    )
    const done = applyToState(s, [markerOf(1, 4, true)], 1, opts)
    assert.equal(done.completed.length, 1)
    assert.equal(s.entry(1)!.epoch, 4)
    assert.deepEqual(s.entry(1)!.batches, [], 'a new epoch drops the batches')
    // The same marker again (the coordinator retried it): taken, ends nothing.
    assert.deepEqual(applyToState(s, [markerOf(1, 4, true)], 2, opts).completed, [])
    assert.equal(
      errorName(() => applyToState(s, [markerOf(1, 3, true)], 3, opts)),
      'INVALID_PRODUCER_EPOCH',
    )
    // The next transaction at the bumped epoch starts at sequence 0.
    applyToState(s, [txnBatch(1, 4, 0)], 3)
    assert.equal(s.entry(1)!.currentTxnFirstOffset, 3)
  })

  it('a marker from an older coordinator epoch is TRANSACTION_COORDINATOR_FENCED', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    applyToState(s, [txnBatch(1, 0, 0)], 0)
    applyToState(s, [markerOf(1, 0, true, 7)], 1, { origin: 'coordinator' })
    applyToState(s, [txnBatch(1, 0, 1)], 2)
    assert.equal(
      errorName(() => applyToState(s, [markerOf(1, 0, true, 6)], 3, { origin: 'coordinator' })),
      'TRANSACTION_COORDINATOR_FENCED',
    )
    assert.ok(s.hasOngoingTransaction(1))
  })

  it("the coordinator's batches skip sequence checks and duplicates, but not the epoch check", () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    const coordinator = { origin: 'coordinator' as const }
    applyToState(s, [txnBatch(9, 2, -1)], 0, coordinator)
    assert.equal(s.entry(9)!.currentTxnFirstOffset, 0, 'its transactional state is tracked')
    assert.equal(applyToState(s, [txnBatch(9, 2, -1)], 1, coordinator).duplicate, false, 'no duplicate check')
    assert.equal(
      errorName(() => applyToState(s, [txnBatch(9, 1, -1)], 2, coordinator)),
      'INVALID_PRODUCER_EPOCH',
    )
    // A client's batch at the same sequence would be out of order.
    assert.equal(
      errorName(() => applyToState(s, [txnBatch(9, 2, 5)], 2)),
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
    )
  })

  it('a follower applies the markers as the leader does (applyWritten)', () => {
    const leader = new ProducerStateManager('t-0', 86_400_000)
    applyToState(leader, [txnBatch(1, 0, 0, 2), txnBatch(2, 0, 0)], 0)
    applyToState(leader, [markerOf(1, 0, false, 3)], 3, { origin: 'coordinator' })
    const follower = new ProducerStateManager('t-0', 86_400_000)
    const records = Buffer.concat([txnBatch(1, 0, 0, 2), txnBatch(2, 0, 0), markerOf(1, 0, false, 3)])
    const completed = []
    let offset = 0
    for (const h of iterateBatches(records)) {
      h.baseOffset = offset
      offset += h.lastOffsetDelta + 1
      const done = follower.applyWritten(h, records)
      if (done) completed.push({ ...done, lastStableOffset: follower.completeTxn(done) })
    }
    assert.deepEqual(completed, [{ producerId: 1, firstOffset: 0, lastOffset: 3, isAborted: true, lastStableOffset: 2 }])
    assert.deepEqual(follower.entries(), leader.entries())
    assert.deepEqual(follower.ongoingTransactions(), leader.ongoingTransactions())
  })
})

describe('transaction index (.txnindex, Kafka layout)', () => {
  const entry: AbortedTxn = { producerId: 0x0102030405, firstOffset: 7, lastOffset: 9, lastStableOffset: 10 }
  const kafkaBytes = Buffer.from(['0000', '0000000102030405', '0000000000000007', '0000000000000009', '000000000000000a'].join(''), 'hex')

  it('encodes an entry as version int16, producerId, firstOffset, lastOffset, lastStableOffset (34 bytes)', () => {
    assert.equal(ABORTED_TXN_BYTES, 34)
    assert.deepEqual(encodeAbortedTxns([entry]), kafkaBytes)
    assert.deepEqual(decodeAbortedTxns(kafkaBytes), [entry])
    assert.equal(decodeAbortedTxns(kafkaBytes.subarray(0, 33)), null, 'a partial entry')
    const v1 = Buffer.from(kafkaBytes)
    v1.writeInt16BE(1, 0)
    assert.equal(decodeAbortedTxns(v1), null, 'an unknown version')
  })

  it('persists, loads, collects and truncates; no file without an entry', async () => {
    const fs = new MemoryFs()
    await fs.mkdir(DIR)
    const path = `${DIR}/00000000000000000005.txnindex`
    const idx = new TransactionIndex(path, 5)
    idx.reset()
    await idx.persist(fs, true)
    assert.equal(await fs.stat(path), null)
    idx.append(entry)
    idx.append({ producerId: 3, firstOffset: 8, lastOffset: 12, lastStableOffset: 20 })
    assert.throws(() => idx.append({ producerId: 4, firstOffset: 1, lastOffset: 12, lastStableOffset: 13 }), RangeError)
    await idx.persist(fs, true)
    const bytes = await fs.readFile(path)
    assert.equal(bytes.length, 68)
    assert.deepEqual(bytes.subarray(0, 34), kafkaBytes)
    const loaded = new TransactionIndex(path, 5)
    assert.ok(await loaded.load(fs))
    assert.deepEqual(loaded.all(), idx.all())
    assert.deepEqual(loaded.collect(10, 11), { abortedTransactions: [loaded.all()[1]!], isComplete: true })
    assert.deepEqual(loaded.collect(13, 30), { abortedTransactions: [], isComplete: false })
    assert.deepEqual(
      loaded.collect(0, 9),
      { abortedTransactions: [entry], isComplete: true },
      'the first entry recorded LSO 10: the search ends',
    )
    assert.deepEqual(
      loaded.collect(0, 13).abortedTransactions.map((e) => e.producerId),
      [entry.producerId, 3],
    )
    await loaded.truncateTo(fs, 12)
    assert.deepEqual(loaded.all(), [entry])
    assert.equal((await fs.readFile(path)).length, 34)
  })

  it('refuses a file of partial entries or entries below its segment', async () => {
    const fs = new MemoryFs()
    await fs.mkdir(DIR)
    const path = `${DIR}/00000000000000000050.txnindex`
    const fh = await fs.open(path, 'w')
    await fh.write(Buffer.concat([kafkaBytes]), null)
    await fh.close()
    assert.equal(await new TransactionIndex(path, 50).load(fs), false, 'lastOffset 9 is below the base 50')
    assert.equal(await new TransactionIndex(path, 0).load(fs), true)
  })
})

describe('transactions in the partition log', () => {
  it('the LSO on a leader: the oldest open transaction, held until the HW passes the marker', async () => {
    const mgr = await openMgr(new MemoryFs(), new ManualClock())
    const log = await mgr.create('t', 0, 'id')
    await commitAppend(log, txnBatch(5, 0, 0, 2, { transactional: false }))
    assert.equal(log.lastStableOffset, 2)
    await commitAppend(log, txnBatch(1, 0, 0, 2))
    await commitAppend(log, txnBatch(2, 0, 0, 2))
    assert.equal(log.highWatermark, 6)
    assert.equal(log.lastStableOffset, 2, "producer 1's transaction starts at 2")
    await writeMarker(log, 1, 0, true)
    assert.equal(log.lastStableOffset, 2, 'the marker at 6 is not below the HW yet')
    log.maybeIncrementHighWatermark(7)
    assert.equal(log.lastStableOffset, 4, "producer 2's transaction")
    await commitMarker(log, 2, 0, false)
    assert.equal(log.lastStableOffset, 8)
    assert.equal(log.lastStableOffset, log.highWatermark)
    assert.deepEqual(log.segmentsView()[0]!.txnIndex.all(), [{ producerId: 2, firstOffset: 4, lastOffset: 7, lastStableOffset: 8 }])
    await mgr.close()
  })

  it('a follower appending the leader batches has the same LSO, producers and aborted transactions', async () => {
    const mgr = await openMgr(new MemoryFs(), new ManualClock())
    const leader = await mgr.create('t', 0, 'id')
    const follower = await mgr.create('t', 1, 'id')
    await commitAppend(leader, txnBatch(1, 0, 0, 2))
    await commitAppend(leader, txnBatch(2, 0, 0, 1))
    await commitMarker(leader, 1, 0, false)
    await commitAppend(leader, txnBatch(3, 0, 0, 1))
    const r = await leader.read(0, 1 << 20, Number.MAX_SAFE_INTEGER, true)
    await follower.appendAsFollower(r.records, [...iterateBatches(r.records)])
    assert.equal(follower.lastStableOffset, 0, 'the follower HW is still 0')
    follower.maybeIncrementHighWatermark(3)
    assert.equal(follower.lastStableOffset, 0, "producer 1's aborted transaction until the HW passes its marker at 3")
    follower.maybeIncrementHighWatermark(4)
    assert.equal(follower.lastStableOffset, 2, "then producer 2's open transaction")
    follower.maybeIncrementHighWatermark(leader.highWatermark)
    assert.equal(follower.lastStableOffset, leader.lastStableOffset)
    assert.deepEqual(follower.producerEntries(), leader.producerEntries())
    assert.deepEqual(follower.ongoingTransactions(), leader.ongoingTransactions())
    assert.deepEqual(follower.collectAbortedTransactions(0, 10), leader.collectAbortedTransactions(0, 10))
    assert.equal(follower.collectAbortedTransactions(0, 10).length, 1)
    await mgr.close()
  })

  it('read_committed stops at the LSO and carries the aborted transactions the batches overlap', async () => {
    const mgr = await openMgr(new MemoryFs(), new ManualClock())
    const log = await mgr.create('t', 0, 'id')
    await commitAppend(log, txnBatch(1, 0, 0, 2)) // 0-1 aborted
    await commitAppend(log, txnBatch(2, 0, 0, 2)) // 2-3 committed
    await commitMarker(log, 1, 0, false) // 4
    await commitMarker(log, 2, 0, true) // 5
    await commitAppend(log, txnBatch(3, 0, 0, 2)) // 6-7 open
    await commitAppend(log, txnBatch(9, 0, 0, 1, { transactional: false })) // 8
    assert.equal(log.lastStableOffset, 6)
    const all = await log.readCommitted(0, 1 << 20, true)
    assert.equal(all.lastStableOffset, 6)
    const batches = [...iterateBatches(all.records)]
    assert.equal(batches.at(-1)!.baseOffset, 5, 'nothing at or past the LSO')
    assert.deepEqual(all.abortedTransactions, [{ producerId: 1, firstOffset: 0, lastOffset: 4, lastStableOffset: 2 }])
    const later = await log.readCommitted(5, 1 << 20, true)
    assert.deepEqual(later.abortedTransactions, [], 'the aborted transaction ended before 5')
    const atLso = await log.readCommitted(6, 1 << 20, true)
    assert.equal(atLso.records.length, 0)
    await commitMarker(log, 3, 0, false)
    const rest = await log.readCommitted(6, 1 << 20, true)
    assert.deepEqual(
      rest.abortedTransactions.map((t) => t.producerId),
      [3],
    )
    assert.equal([...iterateBatches(rest.records)].length, 3)
    await mgr.close()
  })

  it('an aborted transaction spanning segments is found from the segment where its records start', async () => {
    const mgr = await openMgr(new MemoryFs(), new ManualClock(), { segmentBytes: 200 })
    const log = await mgr.create('t', 0, 'id')
    for (let i = 0; i < 4; i++) await commitAppend(log, txnBatch(1, 0, i, 1))
    await commitMarker(log, 1, 0, false)
    assert.ok(log.segmentCount > 2)
    const r = await log.readCommitted(0, 100, true)
    assert.deepEqual(
      r.abortedTransactions.map((t) => [t.producerId, t.firstOffset, t.lastOffset]),
      [[1, 0, 4]],
    )
    const last = log.segmentsView().at(-1)!
    assert.equal(last.txnIndex.entries + log.segmentsView()[0]!.txnIndex.entries, 1, "the entry is in the marker's segment only")
    await mgr.close()
  })

  it('truncation below a marker drops its index entry and reopens the transaction', async () => {
    const mgr = await openMgr(new MemoryFs(), new ManualClock())
    const log = await mgr.create('t', 0, 'id')
    await commitAppend(log, txnBatch(1, 0, 0, 3))
    const m = await commitMarker(log, 1, 0, false)
    await commitAppend(log, txnBatch(2, 0, 0, 1, { transactional: false }))
    assert.equal(log.collectAbortedTransactions(0, 10).length, 1)
    await log.truncateTo(m.baseOffset)
    assert.equal(log.collectAbortedTransactions(0, 10).length, 0)
    assert.deepEqual(log.segmentsView()[0]!.txnIndex.all(), [])
    assert.ok(log.hasOngoingTransaction(1))
    assert.equal(log.lastStableOffset, 0)
    await mgr.close()
  })

  it('the log start moving past an open transaction bounds the LSO below by it', async () => {
    const mgr = await openMgr(new MemoryFs(), new ManualClock())
    const log = await mgr.create('t', 0, 'id')
    await commitAppend(log, txnBatch(1, 0, 0, 2))
    await commitAppend(log, txnBatch(2, 0, 0, 4, { transactional: false }))
    assert.equal(log.lastStableOffset, 0)
    await log.maybeIncrementLogStartOffset(3)
    assert.equal(log.logStartOffset, 3)
    assert.equal(log.lastStableOffset, 3)
    await mgr.close()
  })

  it('a clean restart keeps the open transactions (the snapshot holds currentTxnFirstOffset) and the txn index', async () => {
    const fs = new MemoryFs()
    const clock = new ManualClock(T0)
    let mgr = await openMgr(fs, clock)
    let log = await mgr.create('t', 0, 'id')
    await commitAppend(log, txnBatch(1, 0, 0, 2))
    await commitMarker(log, 1, 0, false)
    await commitAppend(log, txnBatch(2, 0, 0, 2))
    const end = log.logEndOffset
    await mgr.close()
    const snapshot = decodeSnapshot(await fs.readFile(`${PART}/${snapshotFileName(end)}`))
    assert.equal(snapshot.find((e) => e.producerId === 2)!.currentTxnFirstOffset, 3)
    assert.equal(snapshot.find((e) => e.producerId === 1)!.currentTxnFirstOffset, -1)
    assert.ok(await fs.stat(`${PART}/00000000000000000000.txnindex`))
    mgr = await openMgr(fs, clock)
    log = mgr.get('t', 0)!
    log.maybeIncrementHighWatermark(log.logEndOffset)
    assert.ok(log.hasOngoingTransaction(2))
    assert.equal(log.lastStableOffset, 3)
    assert.deepEqual(
      log.collectAbortedTransactions(0, 10).map((t) => [t.producerId, t.firstOffset, t.lastOffset]),
      [[1, 0, 2]],
    )
    await mgr.close()
  })

  it('after an unclean shutdown, recovery rebuilds the rescanned segment txn index and the open transactions', async () => {
    const fs = new CrashFs()
    await fs.mkdir(DIR)
    await fs.syncDir('/')
    const clock = new ManualClock(T0)
    const config = { segmentBytes: 400 }
    let mgr = await openMgr(fs, clock, config)
    let log = await mgr.create('t', 0, 'id')
    // Producer 1's transaction starts in the first segment; its ABORT lands segments later.
    await commitAppend(log, txnBatch(1, 0, 0, 1))
    for (let i = 0; i < 6; i++) await commitAppend(log, txnBatch(7, 0, i, 1, { transactional: false }))
    // The recovery point checkpointed here: the segment holding it and the later ones are rescanned.
    await log.flush()
    await mgr.checkpoint()
    const rescanned = log.segmentsView().at(-1)!.baseOffset
    assert.ok(rescanned > 0, 'the first segments are trusted; the roll snapshot at the rescanned one has the open transaction')
    await commitAppend(log, txnBatch(2, 0, 0, 1))
    await commitMarker(log, 1, 0, false)
    await commitAppend(log, txnBatch(3, 0, 0, 1))
    await commitMarker(log, 3, 0, false)
    await commitAppend(log, txnBatch(4, 0, 0, 1)) // left open
    await log.flush()
    assert.ok(log.segmentCount >= 3, `${log.segmentCount} segments`)
    const expected = log.collectAbortedTransactions(0, log.logEndOffset)
    assert.equal(expected.length, 2)
    const end = log.logEndOffset
    fs.crash()
    // The index files are gone (as if never written): only the rescan can bring the entries back.
    for (const n of await fs.readdir(PART)) if (n.endsWith('.txnindex')) await fs.unlink(`${PART}/${n}`)
    mgr = await openMgr(fs, clock, config)
    log = mgr.get('t', 0)!
    assert.equal(log.logEndOffset, end)
    assert.ok(
      expected.every((t) => t.lastOffset >= rescanned),
      'both markers are in rescanned segments',
    )
    assert.ok(expected[0]!.firstOffset < rescanned, "producer 1's transaction began in a trusted segment")
    assert.deepEqual(log.collectAbortedTransactions(0, log.logEndOffset), expected)
    assert.deepEqual(
      log.ongoingTransactions().map((t) => t.producerId),
      [2, 4],
    )
    log.maybeIncrementHighWatermark(log.logEndOffset)
    assert.equal(log.lastStableOffset, 7, "producer 2's transaction, still open")
    await mgr.close()
  })
})
