import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { test } from 'node:test'
import { KafkaError } from '../../../src/protocol/errors.js'
import { iterateBatches, iterateRecords } from '../../../src/protocol/records/iterator.js'
import { type Fs, nodeFs } from '../../../src/storage/fs.js'
import { defaultLogConfig, type LogConfig } from '../../../src/storage/log-config.js'
import { LogManager, parseTopicPartitionDir } from '../../../src/storage/log-manager.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { deferClose, faultFs, makeBatch, produce, tempDir } from './helpers.js'

const small: Partial<LogConfig> = { segmentBytes: 1000, indexIntervalBytes: 200 }

async function open(t: Parameters<typeof tempDir>[0], dir: string, config: Partial<LogConfig> = small, fs: Fs = nodeFs) {
  const mgr = await LogManager.open({
    fs,
    clock: new ManualClock(),
    logDir: dir,
    config: { ...defaultLogConfig, ...config },
    logger: silentLogger,
  })
  deferClose(t, () => mgr.close())
  return mgr
}

/** Simulates a crash: file handles closed, nothing flushed, no clean-shutdown marker. */
async function crash(mgr: LogManager): Promise<void> {
  for (const log of mgr.all()) await log.closeWithoutFlush()
}

async function records(log: PartitionLog): Promise<Array<{ offset: number; timestamp: number; value: string }>> {
  const out: Array<{ offset: number; timestamp: number; value: string }> = []
  let offset = log.logStartOffset
  while (offset < log.logEndOffset) {
    const r = await log.read(offset, 1 << 20, Number.MAX_SAFE_INTEGER, true)
    assert.ok(r.records.length > 0)
    for (const h of iterateBatches(r.records)) {
      for (const rec of iterateRecords(r.records, h.position)) {
        out.push({ offset: rec.offset, timestamp: rec.timestamp, value: rec.value!.toString() })
      }
      offset = h.baseOffset + h.lastOffsetDelta + 1
    }
  }
  return out
}

/** Batch i: offsets 3i..3i+2, timestamps 100i.., values b<i>-<j>. */
async function fill(log: PartitionLog, n: number, epochOf: (i: number) => number = () => 0) {
  for (let i = 0; i < n; i++) await produce(log, [makeBatch(3, 100 * i, `b${i}`)], epochOf(i))
}

function segmentFiles(dir: string, suffix: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(suffix))
    .sort()
}

/** Checks every entry of a .index file points at the start of the batch it names. */
function checkIndexFile(partDir: string, logFile: string): number {
  const base = Number(logFile.slice(0, 20))
  const log = readFileSync(`${partDir}/${logFile}`)
  const starts = new Map<number, number>()
  for (const h of iterateBatches(log)) starts.set(h.position, h.baseOffset)
  const idx = readFileSync(`${partDir}/${logFile.replace('.log', '.index')}`)
  assert.equal(idx.length % 8, 0)
  for (let i = 0; i < idx.length; i += 8) {
    assert.equal(starts.get(idx.readInt32BE(i + 4)), base + idx.readInt32BE(i), `entry ${i / 8} of ${logFile}`)
  }
  return idx.length / 8
}

test('clean shutdown: reopen trusts the segments, scans only the tail, keeps LEO', async (t) => {
  const dir = tempDir(t)
  const mgr = await open(t, dir)
  const log = await mgr.create('events', 0, 'id-1')
  await fill(log, 40)
  const before = await records(log)
  const ts = await log.offsetForTimestamp(1750)
  await mgr.close()
  assert.ok(existsSync(`${dir}/.kafka_cleanshutdown`))
  assert.equal(readFileSync(`${dir}/recovery-point-offset-checkpoint`, 'utf8'), '0\n1\nevents 0 120\n')
  assert.equal(readFileSync(`${dir}/log-start-offset-checkpoint`, 'utf8'), '0\n1\nevents 0 0\n')

  const { fs, faults } = faultFs()
  const mgr2 = await open(t, dir, small, fs)
  const batchSize = makeBatch(3, 0, 'b0').length
  assert.ok(faults.readBytes <= 200 + 2 * batchSize, `read ${faults.readBytes} bytes at load`)
  assert.equal(existsSync(`${dir}/.kafka_cleanshutdown`), false, 'the marker is removed after loading')
  const log2 = mgr2.get('events', 0)!
  assert.equal(log2.logEndOffset, 120)
  assert.equal(log2.recoveryPoint, 120)
  assert.equal(mgr2.topicIdOf('events'), 'id-1')
  log2.maybeIncrementHighWatermark(log2.logEndOffset)
  assert.deepEqual(await records(log2), before)
  assert.deepEqual(await log2.offsetForTimestamp(1750), ts)
  assert.deepEqual(await log2.maxTimestampAndOffset(), { offset: 119, timestamp: 3902 })
  assert.equal((await produce(log2, [makeBatch(1)])).baseOffset, 120)
})

test('unclean shutdown: a torn last batch is cut, LEO and indexes rebuilt', async (t) => {
  const dir = tempDir(t)
  const mgr = await open(t, dir)
  const log = await mgr.create('events', 0, 'id-1')
  await fill(log, 25, (i) => (i < 24 ? 1 : 2))
  const before = await records(log)
  await crash(mgr)

  const part = `${dir}/events-0`
  const logs = segmentFiles(part, '.log')
  const last = `${part}/${logs[logs.length - 1]}`
  truncateSync(last, statSync(last).size - 10)

  const mgr2 = await open(t, dir)
  const log2 = mgr2.get('events', 0)!
  assert.equal(log2.logEndOffset, 72)
  assert.deepEqual(await records(log2), before.slice(0, 72))
  assert.deepEqual(log2.leaderEpochs.entries(), [{ epoch: 1, startOffset: 0 }], 'epochs past the end are dropped')
  assert.deepEqual(await log2.offsetForTimestamp(1001), { offset: 31, timestamp: 1001 })
  assert.deepEqual(await log2.maxTimestampAndOffset(), { offset: 71, timestamp: 2302 })
  let entries = 0
  for (const f of segmentFiles(part, '.log')) entries += checkIndexFile(part, f)
  assert.ok(entries > 0)
  assert.equal((await produce(log2, [makeBatch(2, 0, 'after')])).baseOffset, 72)
  assert.deepEqual(
    (await records(log2)).slice(-2).map((r) => r.value),
    ['after-0', 'after-1'],
  )
})

test('unclean shutdown: a CRC failure truncates there and deletes every later segment', async (t) => {
  const dir = tempDir(t)
  const mgr = await open(t, dir)
  const log = await mgr.create('events', 0, 'id-1')
  await fill(log, 40)
  const before = await records(log)
  const segments = log.segmentBaseOffsets()
  assert.ok(segments.length >= 4)
  await crash(mgr)

  // flip a byte in the value of the second batch of the second segment
  const part = `${dir}/events-0`
  const second = `${part}/${segmentFiles(part, '.log')[1]}`
  const bytes = readFileSync(second)
  const hs = [...iterateBatches(bytes)]
  const victim = hs[1]!
  bytes[victim.position + victim.sizeBytes - 3]! ^= 0xff
  writeFileSync(second, bytes)

  const mgr2 = await open(t, dir)
  const log2 = mgr2.get('events', 0)!
  assert.equal(log2.logEndOffset, victim.baseOffset)
  assert.deepEqual(log2.segmentBaseOffsets(), segments.slice(0, 2))
  assert.equal(segmentFiles(part, '.log').length, 2)
  assert.equal(segmentFiles(part, '.index').length, 2)
  assert.equal(segmentFiles(part, '.timeindex').length, 2)
  assert.deepEqual(await records(log2), before.slice(0, victim.baseOffset))
  for (const f of segmentFiles(part, '.log')) checkIndexFile(part, f)
  assert.deepEqual(await log2.offsetForTimestamp(100 * (victim.baseOffset / 3)), null)
})

test('unclean shutdown: recovery starts at the segment holding the recovery point', async (t) => {
  const dir = tempDir(t)
  const mgr = await open(t, dir)
  const log = await mgr.create('events', 0, 'id-1')
  await fill(log, 40)
  await log.flush()
  await mgr.checkpoint()
  const flushed = log.logEndOffset
  await fill(log, 3)
  await crash(mgr)
  const part = `${dir}/events-0`
  const logs = segmentFiles(part, '.log')
  const lastSize = statSync(`${part}/${logs[logs.length - 1]}`).size

  const { fs, faults } = faultFs()
  const mgr2 = await open(t, dir, small, fs)
  const log2 = mgr2.get('events', 0)!
  assert.equal(log2.logEndOffset, flushed + 9)
  assert.ok(faults.readBytes <= lastSize, `only the last segment was scanned (${faults.readBytes} bytes)`)
  assert.equal(log2.recoveryPoint, log2.logEndOffset)
})

test('clean shutdown with a missing or invalid index: the index is rebuilt', async (t) => {
  const dir = tempDir(t)
  const mgr = await open(t, dir)
  const log = await mgr.create('events', 0, 'id-1')
  await fill(log, 30)
  const before = await records(log)
  await mgr.close()
  const part = `${dir}/events-0`
  const idx = segmentFiles(part, '.index')
  writeFileSync(`${part}/${idx[0]}`, Buffer.alloc(13, 0xff))
  writeFileSync(`${part}/${idx[1]!.replace('.index', '.timeindex')}`, Buffer.alloc(5))
  const { unlinkSync } = await import('node:fs')
  unlinkSync(`${part}/${idx[idx.length - 1]}`)

  const mgr2 = await open(t, dir)
  const log2 = mgr2.get('events', 0)!
  assert.equal(log2.logEndOffset, 90)
  assert.deepEqual(await records(log2), before)
  assert.deepEqual(await log2.offsetForTimestamp(550), { offset: 18, timestamp: 600 })
  await mgr2.close()
  for (const f of segmentFiles(part, '.log')) checkIndexFile(part, f)
  for (const f of segmentFiles(part, '.timeindex')) assert.equal(statSync(`${part}/${f}`).size % 12, 0)
})

test('directory names: topics with dashes and dots, -delete leftovers, strays', async (t) => {
  assert.deepEqual(parseTopicPartitionDir('my-topic.v2-13'), { topic: 'my-topic.v2', partition: 13 })
  assert.equal(parseTopicPartitionDir('nopartition'), null)
  assert.equal(parseTopicPartitionDir('topic-x'), null)
  assert.equal(parseTopicPartitionDir('-1'), null)

  const dir = tempDir(t)
  const mgr = await open(t, dir)
  await produce(await mgr.create('my-topic.v2', 3, 'id-a'), [makeBatch(2)])
  await produce(await mgr.create('a-b-c', 0, 'id-b'), [makeBatch(1)])
  await mgr.close()
  mkdirSync(`${dir}/old-0.0123abcd-delete`)
  writeFileSync(`${dir}/old-0.0123abcd-delete/00000000000000000000.log`, 'x')
  mkdirSync(`${dir}/lost+found`)

  const mgr2 = await open(t, dir)
  assert.equal(mgr2.get('my-topic.v2', 3)!.logEndOffset, 2)
  assert.equal(mgr2.get('a-b-c', 0)!.logEndOffset, 1)
  assert.equal(mgr2.topicIdOf('my-topic.v2'), 'id-a')
  assert.equal(mgr2.topicIdOf('a-b-c'), 'id-b')
  assert.equal([...mgr2.all()].length, 2)
  assert.equal(existsSync(`${dir}/old-0.0123abcd-delete`), false)
  assert.ok(existsSync(`${dir}/lost+found`))
})

test('create is idempotent, refuses another topic id; delete removes the directory', async (t) => {
  const dir = tempDir(t)
  const mgr = await open(t, dir)
  const [a, b] = await Promise.all([mgr.create('t', 0, 'id-1'), mgr.create('t', 0, 'id-1')])
  assert.equal(a, b)
  assert.equal(readFileSync(`${dir}/t-0/partition.metadata`, 'utf8'), 'version: 0\ntopic_id: id-1\n')
  assert.deepEqual(segmentFiles(`${dir}/t-0`, ''), [
    '00000000000000000000.index',
    '00000000000000000000.log',
    '00000000000000000000.timeindex',
    'partition.metadata',
  ])
  await assert.rejects(mgr.create('t', 0, 'id-2'), (e) => e instanceof KafkaError && e.errorName === 'INCONSISTENT_TOPIC_ID')
  await produce(a, [makeBatch(3)])
  await mgr.create('t', 1, 'id-1')
  await mgr.delete('t', 0)
  assert.equal(mgr.get('t', 0), undefined)
  assert.equal(mgr.topicIdOf('t'), 'id-1')
  await mgr.delete('t', 1)
  assert.equal(mgr.topicIdOf('t'), undefined)
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.startsWith('t-')),
    [],
  )
  await assert.rejects(a.read(0, 100, 100, true), (e) => e instanceof KafkaError && e.errorName === 'KAFKA_STORAGE_ERROR')
  // a new incarnation starts empty
  const c = await mgr.create('t', 0, 'id-3')
  assert.equal(c.logEndOffset, 0)
})

test('checkpoints are written periodically on the clock', async (t) => {
  const dir = tempDir(t)
  const clock = new ManualClock()
  const mgr = await LogManager.open({
    fs: nodeFs,
    clock,
    logDir: dir,
    config: { ...defaultLogConfig, flushIntervalMessages: 1 },
    logger: silentLogger,
    checkpointIntervalMs: 1000,
  })
  deferClose(t, () => mgr.close())
  const log = await mgr.create('t', 0, 'id')
  await produce(log, [makeBatch(4)])
  assert.equal(readFileSync(`${dir}/recovery-point-offset-checkpoint`, 'utf8'), '0\n0\n')
  clock.advance(1000)
  for (let i = 0; i < 50 && readFileSync(`${dir}/recovery-point-offset-checkpoint`, 'utf8') === '0\n0\n'; i++) {
    await new Promise((r) => setTimeout(r, 5))
  }
  assert.equal(readFileSync(`${dir}/recovery-point-offset-checkpoint`, 'utf8'), '0\n1\nt 0 4\n')
})
