// The verification guard of transactional producers (storage/producer-state.ts startVerification,
// Kafka's VerificationStateEntry): while the first batch of a producer's transaction in a partition
// is being verified with the coordinator — or after that failed with a retriable error — a batch of
// the producer at a higher sequence is OUT_OF_ORDER_SEQUENCE_NUMBER rather than written ahead of
// it; transactions v2 (Produce v12) batches of a producer without state start at sequence 0;
// entries end with the producer's first transactional batch or marker, and expire.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { KafkaError } from '../../../src/protocol/errors.js'
import { type BatchHeader, readBatchHeader, TRANSACTIONAL_MASK, validateProducedBatches } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { buildMarkerBatch } from '../../../src/protocol/records/control-record.js'
import { defaultLogConfig } from '../../../src/storage/log-config.js'
import { LogManager } from '../../../src/storage/log-manager.js'
import { MemoryFs } from '../../../src/storage/memory-fs.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import { ProducerStateManager } from '../../../src/storage/producer-state.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'

const T0 = 1_700_000_000_000

/** A transactional batch of n records. */
function txn(pid: number, epoch: number, seq: number, n = 1): Buffer {
  return buildRecordBatch({
    baseTimestamp: T0,
    producerId: pid,
    producerEpoch: epoch,
    baseSequence: seq,
    attributes: TRANSACTIONAL_MASK,
    records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`p${pid}-${seq}-${i}`), timestamp: T0 + i })),
  })
}

function headers(buffers: Buffer[], base = 0): BatchHeader[] {
  let offset = base
  return buffers.map((b) => {
    const h = readBatchHeader(b, 0)
    h.baseOffset = offset
    offset += h.lastOffsetDelta + 1
    return h
  })
}

function errorName(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    if (err instanceof KafkaError) return err.errorName
    throw err
  }
  return 'NONE'
}

function append(s: ProducerStateManager, buffers: Buffer[], base = 0): void {
  const records = Buffer.concat(buffers)
  const p = s.prepare(headers(buffers, base), records)
  if (!p.duplicate) s.commit(p.updates)
}

describe('producer state: transaction verification guard (VerificationStateEntry)', () => {
  it('refuses a later batch of an unverified producer while an earlier one is pending, and takes it after', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    // The first batch (sequence 0) is being verified; a later one (49) of the same producer too.
    assert.equal(s.startVerification(7, 0, 0, false, T0), true)
    assert.equal(s.startVerification(7, 49, 0, false, T0), true)
    assert.equal(s.verification(7)?.lowestSequence, 0, 'the lowest sequence stays')
    assert.equal(
      errorName(() => append(s, [txn(7, 0, 49)])),
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
      'the later batch, verified first, is not written ahead of the earlier one',
    )
    assert.equal(s.entry(7), undefined, 'nothing was written')
    assert.equal(
      errorName(() => append(s, [txn(7, 0, 0, 49)])),
      'NONE',
    )
    assert.equal(s.verification(7), undefined, 'the transaction started: the verification is over')
    assert.equal(s.hasOngoingTransaction(7, 0), true)
    assert.equal(s.startVerification(7, 49, 0, false, T0), false, 'nothing left to verify')
    assert.equal(
      errorName(() => append(s, [txn(7, 0, 49)], 49)),
      'NONE',
      'the later batch follows',
    )
  })

  it('without a verification, a producer without state is taken at any sequence (as before)', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    assert.equal(
      errorName(() => append(s, [txn(8, 0, 49)])),
      'NONE',
    )
  })

  it('a lower sequence lowers the bar, a higher epoch resets it; an older epoch is INVALID_PRODUCER_EPOCH', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    s.startVerification(3, 10, 1, false, T0)
    s.startVerification(3, 5, 1, false, T0)
    assert.equal(s.verification(3)?.lowestSequence, 5)
    s.startVerification(3, 12, 2, false, T0)
    assert.deepEqual(s.verification(3), { timestamp: T0, lowestSequence: 12, epoch: 2, supportsEpochBump: false })
    append(s, [txn(3, 2, 12)])
    assert.equal(
      errorName(() => s.startVerification(3, 0, 1, false, T0)),
      'INVALID_PRODUCER_EPOCH',
    )
  })

  it('transactions v2: a verified batch of a producer without retained batches must start at sequence 0', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    s.startVerification(5, 3, 0, true, T0)
    assert.equal(
      errorName(() => append(s, [txn(5, 0, 3)])),
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
    )
    s.startVerification(5, 0, 0, true, T0)
    assert.equal(
      errorName(() => append(s, [txn(5, 0, 0), txn(5, 0, 1)])),
      'NONE',
      'once the first batch of the append passed, the next ones of the same append follow it',
    )
    // The marker ends the transaction at a bumped epoch (its batches go), the next one starts at 0.
    const marker = buildMarkerBatch({ producerId: 5, producerEpoch: 1, coordinatorEpoch: 0, commit: true, timestamp: T0 })
    const m = s.prepare(headers([marker], 2), marker, { origin: 'coordinator', transactionVersion: 2 })
    assert.equal(m.duplicate, null)
    if (!m.duplicate) s.commit(m.updates)
    assert.equal(s.hasOngoingTransaction(5), false)
    assert.equal(s.startVerification(5, 2, 1, true, T0), true)
    assert.equal(
      errorName(() => append(s, [txn(5, 1, 2)], 3)),
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
    )
  })

  it('an open transaction of an older epoch still needs verification; of the batch epoch it does not', () => {
    const s = new ProducerStateManager('t-0', 86_400_000)
    append(s, [txn(9, 4, 0)])
    assert.equal(s.hasOngoingTransaction(9, 4), true)
    assert.equal(s.hasOngoingTransaction(9, 5), false)
    assert.equal(s.hasOngoingTransaction(9), true)
    assert.equal(s.startVerification(9, 1, 4, true, T0), false)
    assert.equal(s.startVerification(9, 0, 5, true, T0), true)
  })

  it('verifications expire after producer.id.expiration.ms, and a follower’s transactional batch ends them', () => {
    const s = new ProducerStateManager('t-0', 1000)
    s.startVerification(1, 0, 0, false, T0)
    s.startVerification(2, 0, 0, false, T0 + 500)
    s.removeExpired(T0 + 999)
    assert.ok(s.verification(1))
    s.removeExpired(T0 + 1000)
    assert.equal(s.verification(1), undefined)
    assert.ok(s.verification(2))
    s.applyWritten(headers([txn(2, 0, 0)])[0]!)
    assert.equal(s.verification(2), undefined)
  })
})

describe('transaction verification in the partition log', () => {
  function produce(log: PartitionLog, buffers: Buffer[]) {
    const records = Buffer.concat(buffers)
    return log.append(records, validateProducedBatches(records, { maxBatchBytes: 1 << 30 }), 0)
  }

  it('a later batch verified while the first one failed verification waits for it (OUT_OF_ORDER_SEQUENCE_NUMBER)', async () => {
    const clock = new ManualClock(T0)
    const mgr = await LogManager.open({ fs: new MemoryFs(), clock, logDir: '/data', config: defaultLogConfig, logger: silentLogger })
    const log = await mgr.create('t', 2, 'id')
    // Request 1: sequence 0, its verification answered CONCURRENT_TRANSACTIONS (not appended).
    assert.equal(log.startTxnVerification(0, 0, 0, true), true)
    // Request 2: sequence 49, verified.
    assert.equal(log.startTxnVerification(0, 49, 0, true), true)
    await assert.rejects(
      produce(log, [txn(0, 0, 49, 3)]),
      (e: unknown) => e instanceof KafkaError && e.errorName === 'OUT_OF_ORDER_SEQUENCE_NUMBER',
    )
    assert.equal(log.logEndOffset, 0)
    // Request 1 retried and verified; then request 2 retried: no verification needed any more.
    assert.equal(log.startTxnVerification(0, 0, 0, true), true)
    assert.equal((await produce(log, [txn(0, 0, 0, 49)])).baseOffset, 0)
    assert.equal(log.hasOngoingTransaction(0, 0), true)
    assert.equal(log.startTxnVerification(0, 49, 0, true), false)
    assert.equal((await produce(log, [txn(0, 0, 49, 3)])).baseOffset, 49)
    await mgr.close()
  })
})
