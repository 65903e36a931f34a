// The harness of crash-property.test.ts (read its header): histories, the power switch, the checks.
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { batchCrcMatches } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { iterateBatches, iterateRecords } from '../../../src/protocol/records/iterator.js'
import { CrashFs } from '../../../src/storage/crash-fs.js'
import { defaultCleanerConfig, defaultCleanerLogConfig } from '../../../src/storage/cleaner/config.js'
import type { Fs } from '../../../src/storage/fs.js'
import { defaultLogConfig, type LogConfig } from '../../../src/storage/log-config.js'
import { LogManager, RECOVERY_POINT_CHECKPOINT } from '../../../src/storage/log-manager.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import type { RetentionConfig } from '../../../src/storage/retention.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { produce } from './helpers.js'
import { PowerCut, PowerSwitch, type Versions } from './power-switch.js'

const LOG_DIR = '/data'
const START_MS = 1_700_000_000_000
const TOPICS = ['events', 'compact'] as const
type Topic = (typeof TOPICS)[number]

// ---- The histories --------------------------------------------------------------------------

interface BatchSpec {
  /** Per record: its key (0..5) and whether it is a tombstone (compacted log only). */
  records: Array<{ key: number; tombstone: boolean }>
  valueBytes: number
  /** How far before the clock the batch's timestamps start (out-of-order timestamps). */
  tsBackMs: number
}

type Op =
  | { t: 'append'; topic: Topic; batches: BatchSpec[] }
  | { t: 'flush'; topic: Topic }
  | { t: 'checkpoint' }
  | { t: 'epoch'; announce: boolean }
  | { t: 'retention'; retentionBytes: number; retentionMs: number }
  | { t: 'deleteRecords'; topic: Topic; fraction: number }
  | { t: 'clean' }
  | { t: 'advance'; ms: number }
  | { t: 'restart' }

export interface Scenario {
  config: Pick<LogConfig, 'segmentBytes' | 'indexIntervalBytes' | 'maxIndexSizeBytes' | 'flushIntervalMessages'>
  fileDeleteDelayMs: number
  ops: Op[]
  /**
   * Where the power goes, as a fraction of the file-system changes the history makes when it is
   * not cut (counted by a first, uncut run); 1: after the last operation.
   */
  crashAt: number
  /** Where the power goes as a count of changes instead (replayed counterexamples). */
  crashAfter?: number
  /** null: only durable state survives; a number: also a random prefix of the rest. */
  crashSeed: number | null
  /** The restart loses power too after this many changes (null: it does not). */
  recoveryCrashAfter: number | null
  recoveryCrashSeed: number | null
}

const topicArb = fc.constantFrom<Topic>(...TOPICS)
const batchArb: fc.Arbitrary<BatchSpec> = fc.record({
  records: fc.array(fc.record({ key: fc.nat(5), tombstone: fc.boolean() }), { minLength: 1, maxLength: 5 }),
  valueBytes: fc.oneof(fc.constant(0), fc.nat(120)),
  tsBackMs: fc.oneof(fc.constant(0), fc.nat(5_000)),
})
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      t: fc.constant('append' as const),
      topic: topicArb,
      batches: fc.array(batchArb, { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('flush' as const), topic: topicArb }) },
  { weight: 2, arbitrary: fc.constant({ t: 'checkpoint' as const }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('epoch' as const), announce: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('retention' as const),
      retentionBytes: fc.oneof(fc.constant(-1), fc.integer({ min: 200, max: 3_000 })),
      retentionMs: fc.oneof(fc.constant(-1), fc.integer({ min: 1_000, max: 60_000 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('deleteRecords' as const),
      topic: topicArb,
      fraction: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ t: 'clean' as const }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 20_000 }) }) },
  { weight: 1, arbitrary: fc.constant({ t: 'restart' as const }) },
)
export const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  config: fc.record({
    segmentBytes: fc.integer({ min: 300, max: 2_500 }),
    indexIntervalBytes: fc.integer({ min: 0, max: 400 }),
    maxIndexSizeBytes: fc.oneof(fc.constant(1 << 20), fc.integer({ min: 24, max: 120 })),
    flushIntervalMessages: fc.oneof(fc.constant(Number.MAX_SAFE_INTEGER), fc.integer({ min: 1, max: 20 })),
  }),
  fileDeleteDelayMs: fc.constantFrom(0, 10_000),
  ops: fc.array(opArb, { minLength: 1, maxLength: 60, size: 'medium' }),
  crashAt: fc.oneof(
    { weight: 9, arbitrary: fc.noBias(fc.integer({ min: 0, max: 9_999 })).map((n) => n / 10_000) },
    { weight: 1, arbitrary: fc.constant(1) },
  ),
  crashSeed: fc.option(fc.nat(), { nil: null }),
  recoveryCrashAfter: fc.option(fc.nat(60), { nil: null, freq: 3 }),
  recoveryCrashSeed: fc.option(fc.nat(), { nil: null }),
})

// ---- The broker and what it acknowledged ------------------------------------------------------

interface Appended {
  key: string | null
  value: string | null
  timestamp: number
}

interface Model {
  /** Every record ever given to append, by the offset it was assigned (kept or not). */
  records: Map<number, Appended>
  /** Offsets below this were acknowledged as flushed. */
  flushedEnd: number
  /** The highest log start the log ever had in memory (a crash may bring a lower one back). */
  maxStart: number
}

class Broker {
  readonly clock = new ManualClock(START_MS)
  readonly versions = new Map<string, Versions>()
  readonly models: Record<Topic, Model> = {
    events: { records: new Map(), flushedEnd: 0, maxStart: 0 },
    compact: { records: new Map(), flushedEnd: 0, maxStart: 0 },
  }
  epoch = 0
  retention: RetentionConfig
  mgr: LogManager | null = null

  constructor(
    readonly disk: CrashFs,
    readonly s: Scenario,
  ) {
    this.retention = { retentionMs: -1, retentionBytes: -1, deleteEnabled: true, fileDeleteDelayMs: s.fileDeleteDelayMs }
  }

  async start(fs: Fs): Promise<LogManager> {
    const mgr = await LogManager.open({
      fs,
      clock: this.clock,
      logDir: LOG_DIR,
      config: { ...defaultLogConfig, ...this.s.config },
      logger: silentLogger,
      checkpointIntervalMs: 0,
    })
    this.mgr = mgr
    mgr.startRetention({
      checkIntervalMs: Number.MAX_SAFE_INTEGER,
      configOf: (log) =>
        log.topic === 'events'
          ? this.retention
          : { retentionMs: -1, retentionBytes: -1, deleteEnabled: false, fileDeleteDelayMs: this.s.fileDeleteDelayMs },
    })
    await mgr.startCleaner({
      config: { ...defaultCleanerConfig, enabled: false, ioBufferBytes: 4096 },
      configOf: (log) =>
        log.topic === 'compact'
          ? {
              ...defaultCleanerLogConfig,
              minCleanableRatio: 0,
              deleteRetentionMs: Number.MAX_SAFE_INTEGER,
              fileDeleteDelayMs: this.s.fileDeleteDelayMs,
            }
          : null,
    })
    for (const log of mgr.all()) log.maybeIncrementHighWatermark(log.logEndOffset)
    return mgr
  }

  /** Notes what the logs' state says after an operation (finished or cut short). */
  observe(): void {
    for (const t of TOPICS) {
      const log = this.mgr?.get(t, 0)
      if (log) this.models[t].maxStart = Math.max(this.models[t].maxStart, log.logStartOffset)
    }
  }

  log(topic: Topic): PartitionLog {
    const log = this.mgr!.get(topic, 0)
    assert.ok(log, `log ${topic}-0 exists`)
    return log
  }

  async run(op: Op, index: number, fs: Fs): Promise<void> {
    const mgr = this.mgr!
    switch (op.t) {
      case 'append': {
        const log = this.log(op.topic)
        const model = this.models[op.topic]
        let offset = log.logEndOffset
        const buffers = op.batches.map((b, j) => {
          const ts = this.clock.now() - b.tsBackMs
          const records = b.records.map((r, i) => {
            const rec: Appended = {
              key: `k${r.key}`,
              value: op.topic === 'compact' && r.tombstone ? null : `${index}.${j}.${i}${'x'.repeat(b.valueBytes)}`,
              timestamp: ts + i,
            }
            model.records.set(offset++, rec)
            return rec
          })
          return buildRecordBatch({
            baseTimestamp: ts,
            records: records.map((r) => ({
              key: Buffer.from(r.key!),
              value: r.value === null ? null : Buffer.from(r.value),
              timestamp: r.timestamp,
            })),
          })
        })
        await produce(log, buffers, this.epoch)
        log.maybeIncrementHighWatermark(log.logEndOffset)
        return
      }
      case 'flush': {
        const log = this.log(op.topic)
        const end = log.logEndOffset
        await log.flush()
        // An answer given after the power went (the flush had nothing to write) reached no one.
        if ((fs as PowerSwitch).dead) return
        const m = this.models[op.topic]
        m.flushedEnd = Math.max(m.flushedEnd, end)
        return
      }
      case 'checkpoint':
        return mgr.checkpoint()
      case 'epoch':
        this.epoch++
        if (op.announce) for (const t of TOPICS) await this.log(t).assignLeaderEpoch(this.epoch)
        return
      case 'retention':
        this.retention = { ...this.retention, retentionBytes: op.retentionBytes, retentionMs: op.retentionMs }
        await mgr.runRetention()
        return
      case 'deleteRecords': {
        const log = this.log(op.topic)
        const to = log.logStartOffset + Math.floor(op.fraction * (log.highWatermark - log.logStartOffset))
        await mgr.deleteRecords(log, to, this.s.fileDeleteDelayMs)
        return
      }
      case 'clean':
        await mgr.runCleaner()
        return
      case 'advance':
        this.clock.advance(op.ms)
        // Timers (flush.ms, delayed file deletes) run now; let their file operations happen.
        for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r))
        return
      case 'restart': {
        await mgr.close()
        if ((fs as PowerSwitch).dead) throw new PowerCut('restart')
        for (const t of TOPICS) this.models[t].flushedEnd = Math.max(this.models[t].flushedEnd, this.log(t).logEndOffset)
        await this.start(fs)
        return
      }
    }
  }
}

// ---- The checks ---------------------------------------------------------------------------------

interface StoredBatch {
  base: number
  last: number
  maxTimestamp: number
  epoch: number
  records: Array<{ offset: number } & Appended>
}

/** Reads the whole log from its start, checking batch CRCs and offset order. */
async function readLog(log: PartitionLog, where: string): Promise<StoredBatch[]> {
  const out: StoredBatch[] = []
  const leo = log.logEndOffset
  let offset = log.logStartOffset
  while (offset < leo) {
    const { records: buf } = await log.read(offset, 1 << 20, leo, true)
    assert.ok(buf.length > 0, `${where}: a read at ${offset} below the log end ${leo} returned nothing`)
    for (const h of iterateBatches(buf)) {
      assert.ok(batchCrcMatches(buf, h.position, h.sizeBytes), `${where}: batch at ${h.baseOffset} fails its CRC`)
      const last = h.baseOffset + h.lastOffsetDelta
      const prev = out[out.length - 1]
      if (prev) assert.ok(h.baseOffset > prev.last, `${where}: batch at ${h.baseOffset} after one ending at ${prev.last}`)
      const records = [...iterateRecords(buf, h.position)].map((r) => ({
        offset: r.offset,
        key: r.key?.toString() ?? null,
        value: r.value?.toString() ?? null,
        timestamp: r.timestamp,
      }))
      out.push({ base: h.baseOffset, last, maxTimestamp: h.maxTimestamp, epoch: h.partitionLeaderEpoch, records })
      offset = last + 1
    }
  }
  return out
}

async function checkLog(log: PartitionLog, topic: Topic, model: Model, fs: Fs, minEnd: number, where: string): Promise<void> {
  where = `${where} ${topic}-0`
  const start = log.logStartOffset
  const leo = log.logEndOffset
  assert.ok(leo >= model.flushedEnd, `${where}: log end ${leo} below the acknowledged flush ${model.flushedEnd}`)
  assert.ok(leo >= minEnd, `${where}: log end ${leo} below the durably checkpointed recovery point ${minEnd}`)
  const batches = await readLog(log, where)
  const present = new Map<number, Appended>()
  for (const b of batches) {
    for (const r of b.records) {
      if (r.offset < start) continue
      const { offset, ...rec } = r
      assert.deepEqual(rec, model.records.get(offset), `${where}: record ${offset} is not the one appended`)
      present.set(offset, rec)
    }
  }
  if (batches.length > 0) {
    assert.equal(batches[batches.length - 1]!.last, leo - 1, `${where}: the last batch ends at the log end`)
  }
  if (topic === 'events') {
    // Contiguous from the log start: every offset present.
    for (let o = start; o < leo; o++) assert.ok(present.has(o), `${where}: offset ${o} is missing in [${start}, ${leo})`)
  } else {
    // Compacted: a missing offset must be superseded by a later record of its key below the log end.
    const latest = new Map<string, number>()
    for (let o = 0; o < leo; o++) {
      const r = model.records.get(o)
      if (r) latest.set(r.key!, o)
    }
    for (let o = start; o < leo; o++) {
      if (present.has(o)) continue
      const r = model.records.get(o)
      assert.ok(r && latest.get(r.key!)! > o, `${where}: offset ${o} (${r?.key}) is missing though it is its key's latest`)
    }
  }

  // Reads land on the batch holding (or, in a gap, following) each offset; batches the cleaner
  // emptied are skipped when one with records follows (log-read.ts).
  for (let o = start; o < leo; o++) {
    const expected = batches.find((b) => b.last >= o && b.records.length > 0) ?? batches.find((b) => b.last >= o)!
    const { records: buf } = await log.read(o, 1, leo, true)
    const first = iterateBatches(buf).next().value
    assert.ok(first, `${where}: read at ${o} returned no batch`)
    assert.equal(first.baseOffset, expected.base, `${where}: read at ${o}`)
  }
  // Timestamp lookups find the first record at or above the log start with timestamp ≥ t.
  const records = batches.flatMap((b) => b.records).filter((r) => r.offset >= start)
  const targets = new Set<number>()
  for (const r of records) targets.add(r.timestamp).add(r.timestamp + 1)
  targets.add(0)
  for (const t of targets) {
    const expected = records.find((r) => r.timestamp >= t)
    const got = await log.offsetForTimestamp(t)
    assert.equal(got?.offset ?? null, expected?.offset ?? null, `${where}: offsetForTimestamp(${t})`)
  }

  // The indexes agree with the segment files.
  let prevBase = -1
  for (const seg of log.segmentsView()) {
    const w = `${where} segment ${seg.baseOffset}`
    assert.ok(seg.baseOffset > prevBase, `${w}: segments in order`)
    prevBase = seg.baseOffset
    const file = await fs.readFile(seg.logPath)
    assert.equal(file.length, seg.sizeBytes, `${w}: file size`)
    const inFile = [...iterateBatches(file)]
    let end = 0
    for (const h of inFile) {
      assert.ok(batchCrcMatches(file, h.position, h.sizeBytes), `${w}: CRC at ${h.position}`)
      end = h.position + h.sizeBytes
    }
    assert.equal(end, file.length, `${w}: whole batches only`)
    const at = new Map(inFile.map((h) => [h.position, h]))
    for (let i = 0; i < seg.offsetIndex.entries; i++) {
      const e = seg.offsetIndex.entryAt(i)
      assert.equal(at.get(e.position)?.baseOffset, e.offset, `${w}: offset index entry ${i} (${e.offset} at ${e.position})`)
    }
    for (let i = 0; i < seg.timeIndex.entries; i++) {
      const e = seg.timeIndex.entryAt(i)
      const h = inFile.find((b) => b.baseOffset + b.lastOffsetDelta === e.offset)
      assert.ok(h, `${w}: time index entry ${i} names offset ${e.offset}, the last of no batch`)
      assert.equal(h.maxTimestamp, e.timestamp, `${w}: time index entry ${i} timestamp`)
      for (const b of inFile) {
        if (b.baseOffset < h.baseOffset)
          assert.ok(b.maxTimestamp <= e.timestamp, `${w}: time index entry ${i} is below an earlier batch's timestamp`)
      }
    }
    if (inFile.length > 0) {
      const max = Math.max(...inFile.map((h) => h.maxTimestamp))
      assert.equal(seg.maxTimestamp, max, `${w}: largest timestamp`)
    }
  }

  // Leader epochs: each batch's epoch is the one the cache gives its offsets — but for batches the
  // log start had moved past before the crash: the cache may have dropped their epochs already.
  const epochs = log.leaderEpochs.entries()
  for (const b of batches) {
    if (b.last < model.maxStart) continue
    const o = Math.max(b.base, start, model.maxStart)
    let epoch = -1
    for (const e of epochs) if (e.startOffset <= o) epoch = e.epoch
    assert.equal(epoch, b.epoch, `${where}: leader epoch of the batch at ${b.base} (cache ${JSON.stringify(epochs)})`)
  }
}

/** Checks the checkpoint-style files on the crashed disk; returns the durable recovery points. */
async function checkFiles(disk: CrashFs, versions: Map<string, Versions>): Promise<Map<string, number>> {
  for (const [path, v] of versions) {
    const now = (await disk.stat(path)) === null ? null : (await disk.readFile(path)).toString()
    const allowed = v.list.slice(v.durable)
    assert.ok(allowed.includes(now), `${path} holds ${JSON.stringify(now)}, not one of ${JSON.stringify(allowed)}`)
    // What the crash left is the file's one version now.
    v.list = [now]
    v.durable = 0
  }
  const rp = new Map<string, number>()
  const text = (await disk.stat(`${LOG_DIR}/${RECOVERY_POINT_CHECKPOINT}`))
    ? (await disk.readFile(`${LOG_DIR}/${RECOVERY_POINT_CHECKPOINT}`)).toString()
    : ''
  for (const line of text.split('\n').slice(2)) {
    const [topic, , offset] = line.split(' ')
    if (topic) rp.set(topic, Number(offset))
  }
  return rp
}

/** The history of s on a fresh disk up to a power cut after `limit` changes; what the checks need. */
async function history(s: Scenario, limit: number) {
  const disk = new CrashFs()
  await disk.mkdir(LOG_DIR)
  await disk.syncDir('/')
  const broker = new Broker(disk, s)
  // Set-up (powered): both partitions exist durably before the history starts.
  const setup = new PowerSwitch(disk, Number.POSITIVE_INFINITY, null, broker.versions)
  const first = await broker.start(setup)
  for (const t of TOPICS) await first.create(t, 0, `id-${t}`)
  await first.close()

  const power = new PowerSwitch(disk, limit, s.crashSeed, broker.versions)
  let ran = 0
  try {
    await broker.start(power)
    for (let i = 0; i < s.ops.length; i++, ran++) {
      await broker.run(s.ops[i]!, i, power)
      broker.observe()
      // An operation may swallow the failure (retention logs it and carries on): the process is dead.
      if (power.dead) break
    }
  } catch (err) {
    if (!power.dead) throw err
    broker.observe()
  }
  power.cut()
  return { disk, broker, changes: power.changes, ran }
}

/** How many file-system changes the history of s makes when the power is not cut. */
export async function countChanges(s: Scenario): Promise<number> {
  return (await history({ ...s, crashAfter: undefined }, Number.POSITIVE_INFINITY)).changes
}

export async function runScenario(s: Scenario): Promise<void> {
  const total =
    s.crashAt >= 1 || s.crashAfter !== undefined ? Number.POSITIVE_INFINITY : (await history(s, Number.POSITIVE_INFINITY)).changes
  const { disk, broker, changes, ran } = await history(s, s.crashAfter ?? Math.floor(s.crashAt * total))
  const where = `power cut after ${changes} changes, ${ran} of ${s.ops.length} operations,`
  const rp = await checkFiles(disk, broker.versions)

  // The restart, which may lose power once too; then one that does not.
  if (s.recoveryCrashAfter !== null) {
    const again = new PowerSwitch(disk, s.recoveryCrashAfter, s.recoveryCrashSeed, broker.versions)
    try {
      await broker.start(again)
      again.cut()
    } catch (err) {
      if (!again.dead) throw err
    }
    await checkFiles(disk, broker.versions)
  }
  const fs = new PowerSwitch(disk, Number.POSITIVE_INFINITY, null, broker.versions)
  const mgr = await broker.start(fs)
  for (const t of TOPICS) await checkLog(broker.log(t), t, broker.models[t], fs, rp.get(t) ?? 0, `${where} recovered:`)
  await mgr.close()
  const clean = await broker.start(fs)
  for (const t of TOPICS) await checkLog(broker.log(t), t, broker.models[t], fs, rp.get(t) ?? 0, `${where} after a clean restart:`)
  await clean.close()
}
