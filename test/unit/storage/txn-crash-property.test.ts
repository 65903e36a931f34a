// A property of the log's transactions across crashes (storage/recovery.ts, transaction-index.ts,
// producer-state.ts): random histories of transactional batches of three producers, markers, plain
// batches, flushes, checkpoints, truncations (a follower's), clean restarts and power cuts on the
// crash file system (durable state only, or with a random part of the pending writes); after every
// restart and truncation the aborted transactions the log reports, its open transactions and its
// last stable offset are those a fresh producer state finds by replaying the recovered log from
// its start. A failure says what each side holds. The counterexamples it found are kept below as
// fixed tests, each replayed as found and with the power cut after every file-system change of
// its history (power-switch.ts, as crash-scenario.ts), followed by the recovery and its check.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { readBatchHeader, TRANSACTIONAL_MASK } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { CrashFs } from '../../../src/storage/crash-fs.js'
import type { Fs } from '../../../src/storage/fs.js'
import { defaultLogConfig } from '../../../src/storage/log-config.js'
import { LogManager } from '../../../src/storage/log-manager.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import { ProducerStateManager } from '../../../src/storage/producer-state.js'
import type { AbortedTxn } from '../../../src/storage/transaction-index.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { PowerSwitch } from './power-switch.js'
import { marker, T0 } from './txn-helpers.js'

const DIR = '/data'
// TXN_CRASH_RUNS and TXN_CRASH_SEED explore further (the defaults run in the unit suite).
const RUNS = Number(process.env.TXN_CRASH_RUNS ?? 60)

type Op =
  | { t: 'data'; pid: number; n: number; transactional: boolean }
  | { t: 'end'; pid: number; commit: boolean }
  | { t: 'flush' }
  | { t: 'checkpoint' }
  | { t: 'restart' }
  | { t: 'truncate'; fraction: number }
  | { t: 'crash'; seed: number | null }

const pidArb = fc.integer({ min: 1, max: 3 })
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant('data' as const),
      pid: pidArb,
      n: fc.integer({ min: 1, max: 3 }),
      transactional: fc.constant(true),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('data' as const),
      pid: fc.constant(9),
      n: fc.integer({ min: 1, max: 3 }),
      transactional: fc.constant(false),
    }),
  },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('end' as const), pid: pidArb, commit: fc.boolean() }) },
  { weight: 2, arbitrary: fc.constant({ t: 'flush' as const }) },
  { weight: 1, arbitrary: fc.constant({ t: 'checkpoint' as const }) },
  { weight: 1, arbitrary: fc.constant({ t: 'restart' as const }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('truncate' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('crash' as const), seed: fc.option(fc.nat(), { nil: null }) }) },
)
const scenarioArb = fc.record({
  segmentBytes: fc.integer({ min: 250, max: 1_500 }),
  flushIntervalMessages: fc.oneof(fc.constant(Number.MAX_SAFE_INTEGER), fc.integer({ min: 1, max: 6 })),
  ops: fc.array(opArb, { minLength: 10, maxLength: 80, size: 'max' }),
})
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer S> ? S : never

/** A batch as the coordinator would append one for pid (no sequence: the test is about transactions). */
function dataBatch(pid: number, n: number, transactional: boolean, tag: string): Buffer {
  return buildRecordBatch({
    baseTimestamp: T0,
    producerId: pid,
    producerEpoch: 0,
    baseSequence: -1,
    attributes: transactional ? TRANSACTIONAL_MASK : 0,
    records: Array.from({ length: n }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`${tag}-${i}`), timestamp: T0 + i })),
  })
}

/** What a fresh producer state finds replaying every batch of the log from its start. */
async function replayed(log: PartitionLog) {
  const state = new ProducerStateManager('t-0', 86_400_000)
  const aborted: AbortedTxn[] = []
  for (const seg of log.segmentsView()) {
    const r = await seg.scan(0, seg.sizeBytes, false, 1 << 16, (h, _pos, buf) => {
      const done = state.applyWritten(h, buf)
      if (done) {
        const lastStableOffset = state.completeTxn(done)
        if (done.isAborted)
          aborted.push({ producerId: done.producerId, firstOffset: done.firstOffset, lastOffset: done.lastOffset, lastStableOffset })
      }
      return true
    })
    assert.equal(r.stop, 'end', `${seg.logPath}: ${r.reason}`)
  }
  state.onHighWatermarkUpdated(log.logEndOffset)
  return { aborted, ongoing: state.ongoingTransactions(), firstUnstable: state.firstUnstableOffset() }
}

function show(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (x instanceof Map ? [...x.entries()] : x))
}

async function check(log: PartitionLog, where: string): Promise<void> {
  const want = await replayed(log)
  // A message of its own hides assert's diff: say what each side holds.
  const same = (what: string, actual: unknown, expected: unknown) =>
    assert.deepEqual(actual, expected, `${where}: ${what}: the log reports ${show(actual)}, a replay finds ${show(expected)}`)
  same('aborted transactions', log.collectAbortedTransactions(0, log.logEndOffset), want.aborted)
  same('open transactions', log.ongoingTransactions(), want.ongoing)
  log.maybeIncrementHighWatermark(log.logEndOffset)
  const lso = want.firstUnstable >= 0 ? Math.min(want.firstUnstable, log.highWatermark) : log.highWatermark
  same(`last stable offset (log end ${log.logEndOffset})`, log.lastStableOffset, lso)
}

/**
 * Runs the history of s, checking as it goes; with cutAfter, the power also goes after that many
 * file-system changes, and the history ends with the recovery from that cut and its check.
 * Returns how many changes the history made.
 */
async function run(s: Scenario, cutAfter = Number.POSITIVE_INFINITY): Promise<number> {
  const disk = new CrashFs()
  await disk.mkdir(DIR)
  await disk.syncDir('/')
  const power = new PowerSwitch(disk)
  const clock = new ManualClock(T0)
  const open = (fs: Fs) =>
    LogManager.open({
      fs,
      clock,
      logDir: DIR,
      config: { ...defaultLogConfig, segmentBytes: s.segmentBytes, flushIntervalMessages: s.flushIntervalMessages },
      logger: silentLogger,
      checkpointIntervalMs: 0,
    })
  let mgr = await open(power)
  let log = await mgr.create('t', 0, 'id')
  await power.syncDir(DIR)
  power.arm(cutAfter)
  let at = 0
  try {
    for (const [i, op] of s.ops.entries()) {
      at = i
      switch (op.t) {
        case 'data': {
          const b = dataBatch(op.pid, op.n, op.transactional, `${i}`)
          await log.append(b, [readBatchHeader(b, 0)], 0, { origin: 'coordinator' })
          break
        }
        case 'end': {
          const b = marker(op.pid, 0, op.commit)
          await log.append(b, [readBatchHeader(b, 0)], 0, { origin: 'coordinator' })
          break
        }
        case 'flush':
          await log.flush()
          break
        case 'checkpoint':
          await mgr.checkpoint()
          break
        case 'restart':
          await mgr.close()
          mgr = await open(power)
          log = mgr.get('t', 0)!
          await check(log, `after the clean restart at op ${i}`)
          break
        case 'truncate':
          await log.truncateTo(Math.floor(op.fraction * log.logEndOffset))
          await check(log, `after the truncation at op ${i}`)
          break
        case 'crash':
          disk.crash(op.seed ?? undefined)
          mgr = await open(power)
          log = mgr.get('t', 0) ?? (await mgr.create('t', 0, 'id'))
          await check(log, `after the crash at op ${i}`)
          break
      }
      if (power.dead) break
    }
    if (!power.dead) {
      await check(log, 'at the end')
      await mgr.close()
    }
  } catch (err) {
    if (!power.dead) throw err
  }
  if (power.dead) {
    const recovered = await open(disk)
    const l = recovered.get('t', 0) ?? (await recovered.create('t', 0, 'id'))
    await check(l, `after the power cut after ${cutAfter} changes, in op ${at}`)
    await recovered.close()
  }
  return power.changes
}

/** Counterexamples fast-check found, each the regression test of the fix it led to. */
const REGRESSIONS: Array<{ name: string; scenario: Scenario }> = [
  {
    name: 'the segments and snapshots a truncation removed stay removed after a power cut (PartitionLog.truncateTo)',
    scenario: {
      segmentBytes: 250,
      flushIntervalMessages: Number.MAX_SAFE_INTEGER,
      ops: [
        { t: 'end', pid: 1, commit: false },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'data', pid: 9, n: 1, transactional: false },
        { t: 'data', pid: 9, n: 2, transactional: false },
        { t: 'end', pid: 1, commit: false },
        { t: 'data', pid: 1, n: 2, transactional: true },
        { t: 'end', pid: 1, commit: false },
        { t: 'truncate', fraction: 0.1111111111111111 },
        { t: 'data', pid: 2, n: 1, transactional: true },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'flush' },
        { t: 'crash', seed: null },
        { t: 'end', pid: 1, commit: false },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'end', pid: 1, commit: false },
        { t: 'data', pid: 9, n: 1, transactional: false },
        { t: 'end', pid: 1, commit: false },
        { t: 'restart' },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'crash', seed: null },
      ],
    },
  },
  {
    name: 'the segments and snapshots recovery removed stay removed after the next power cut (recovery.ts loadSegments)',
    scenario: {
      segmentBytes: 250,
      flushIntervalMessages: Number.MAX_SAFE_INTEGER,
      ops: [
        { t: 'end', pid: 1, commit: false },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'end', pid: 1, commit: false },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'crash', seed: 217532182 },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'crash', seed: 226314747 },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'crash', seed: null },
        { t: 'data', pid: 9, n: 1, transactional: false },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'end', pid: 1, commit: false },
        { t: 'end', pid: 1, commit: false },
        { t: 'data', pid: 9, n: 1, transactional: false },
        { t: 'crash', seed: null },
      ],
    },
  },
  {
    name: 'a snapshot above the recovery point, kept by the disk beside a lost truncation, is not trusted (recovery.ts loadSegments)',
    scenario: {
      segmentBytes: 250,
      flushIntervalMessages: Number.MAX_SAFE_INTEGER,
      ops: [
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'crash', seed: 2084695798 },
        { t: 'data', pid: 9, n: 1, transactional: false },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'truncate', fraction: 0 },
        { t: 'end', pid: 1, commit: false },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'data', pid: 1, n: 1, transactional: true },
        { t: 'crash', seed: 479808240 },
        { t: 'flush' },
      ],
    },
  },
]

// Each is replayed as found, then with the power cut after every file-system change of its
// history (as crash-property.test.ts does), so it keeps testing the same histories when the
// storage code makes more or fewer changes.
for (const r of REGRESSIONS) {
  test(`transactions crash regression: ${r.name}`, async () => {
    const total = await run(r.scenario)
    for (let n = 0; n <= total; n++) await run(r.scenario, n)
  })
}

test('transactions across crashes: the recovered log reports the aborted and open transactions a replay of it finds', async () => {
  await fc.assert(
    fc.asyncProperty(scenarioArb, async (s) => {
      await run(s)
    }),
    // includeErrorInReport: fast-check 4 keeps the failure as the error's cause, which node's test
    // reporter does not print.
    { numRuns: RUNS, seed: Number(process.env.TXN_CRASH_SEED ?? 15), includeErrorInReport: true },
  )
})
