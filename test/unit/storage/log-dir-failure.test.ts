// A log dir failure is reported once, and only when a log cannot go on (storage/log-manager.ts
// onLogDirFailure, partition-log.ts): a write refused with ENOSPC is cut back off and the log
// carries on once space is back — no failure; a write refused with EIO whose undo (truncate)
// fails too, or a failed fsync, fails the log and reports the dir once, whatever fails after.
// Before this report a failed log stayed the partition's leader on its broker, refusing every
// produce and fetch until a restart (the chaos run's disk nemesis found a cluster stalled so).
// The disk is a FaultyFs (test/chaos/faulty-fs.ts) over a MemoryFs.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { defaultLogConfig } from '../../../src/storage/log-config.js'
import { LogManager } from '../../../src/storage/log-manager.js'
import { MemoryFs } from '../../../src/storage/memory-fs.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { FaultyFs } from '../../chaos/faulty-fs.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import { makeBatch, produce } from './helpers.js'

/** The KafkaError name p rejects with ('NONE' when it resolves). */
async function errorNameOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (err) {
    if (err instanceof KafkaError) return err.errorName
    throw err
  }
  return 'NONE'
}

async function open() {
  const fs = new FaultyFs(new MemoryFs(), 0)
  const failures: Array<{ err: Error; dir: string }> = []
  const mgr = await LogManager.open({
    fs,
    clock: new ManualClock(),
    logDir: 'memory:',
    config: defaultLogConfig,
    logger: silentLogger,
    onLogDirFailure: (err, dir) => failures.push({ err, dir }),
  })
  const log = await mgr.create('t', 0, 'topic-id-1')
  const other = await mgr.create('t', 1, 'topic-id-1')
  return { fs, mgr, log, other, failures }
}

describe('log dir failure', () => {
  it('ENOSPC on append: refused, undone, no failure; the log goes on once space is back', async () => {
    const { fs, mgr, log, failures } = await open()
    await produce(log, [makeBatch(2)])
    fs.mode = 'enospc'
    assert.equal(await errorNameOf(produce(log, [makeBatch(2)])), 'KAFKA_STORAGE_ERROR')
    fs.mode = 'none'
    const next = await produce(log, [makeBatch(2)])
    assert.equal(next.baseOffset, 2, 'the refused batch left no offsets behind')
    assert.ok(log.usable)
    assert.deepEqual(failures, [])
    await mgr.close()
  })

  it('EIO on append with a failed undo: the log fails and the dir is reported once', async () => {
    const { fs, mgr, log, other, failures } = await open()
    await produce(log, [makeBatch(2)])
    fs.mode = 'eio'
    assert.equal(await errorNameOf(produce(log, [makeBatch(2)])), 'KAFKA_STORAGE_ERROR')
    assert.equal(await errorNameOf(produce(other, [makeBatch(2)])), 'KAFKA_STORAGE_ERROR')
    await log.flush().catch(() => {})
    fs.mode = 'none'
    assert.equal(await errorNameOf(produce(log, [makeBatch(2)])), 'KAFKA_STORAGE_ERROR', 'a failed log refuses until a restart')
    assert.equal(log.usable, false)
    assert.equal(failures.length, 1, failures.map((f) => `${f.dir}: ${f.err.message}`).join('; '))
    assert.equal(failures[0]!.dir, 'memory:/t-0')
    assert.match(failures[0]!.err.message, /EIO/)
    await mgr.close().catch(() => {})
  })

  it('a failed fsync fails the log and reports the dir', async () => {
    const { fs, mgr, log, failures } = await open()
    await produce(log, [makeBatch(2)])
    fs.mode = 'eio'
    await assert.rejects(log.flush(), /KAFKA_STORAGE_ERROR|flush of/)
    fs.mode = 'none'
    assert.equal(log.usable, false)
    assert.equal(failures.length, 1)
    assert.equal(failures[0]!.dir, 'memory:/t-0')
    await mgr.close().catch(() => {})
  })

  it('EIO on a read fails the log and reports the dir, as Kafka takes the dir offline', async () => {
    const { fs, mgr, log, failures } = await open()
    await produce(log, [makeBatch(2)])
    fs.mode = 'eio-read'
    assert.equal(await errorNameOf(log.read(0, 1 << 20, Number.MAX_SAFE_INTEGER, true)), 'KAFKA_STORAGE_ERROR')
    fs.mode = 'none'
    assert.equal(log.usable, false, 'a failed log refuses until a restart')
    assert.equal(await errorNameOf(log.read(0, 1 << 20, Number.MAX_SAFE_INTEGER, true)), 'KAFKA_STORAGE_ERROR')
    assert.equal(failures.length, 1)
    assert.equal(failures[0]!.dir, 'memory:/t-0')
    assert.match(failures[0]!.err.message, /EIO/)
    await mgr.close().catch(() => {})
  })
})
