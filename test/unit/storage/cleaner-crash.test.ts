// Crash safety of the cleaner (cleaner.ts, PartitionLog.replaceSegments, recovery.ts): a cleaning
// is stopped after every single file-system operation in turn — the process "dies" there (every
// later operation fails, nothing is closed), or that one operation fails and the broker carries
// on — and the log is then reopened from what the Fs holds. Every time, the reopened log must be
// valid and read exactly as before the cleaning or exactly as after it, with no `.cleaned` or
// `.swap` file left, and cleaning it again must give the records of an uninterrupted cleaning.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FileHandle, Fs, OpenMode } from '../../../src/storage/fs.js'
import { MemoryFs } from '../../../src/storage/memory-fs.js'
import { ManualClock } from '../../../src/util/clock.js'
import { append, cleanUntilDone, type CompactedLog, keyedBatch, openCompacted, readAll, rng, type StoredRecord } from './cleaner-helpers.js'

const START_MS = 1_700_000_000_000
const DIR = '/data'

class Stop extends Error {
  constructor(what: string) {
    super(`injected failure at ${what}`)
    ;(this as NodeJS.ErrnoException).code = 'EIO'
  }
}

/**
 * Counts every mutating operation (open for writing, write, writev, truncate, fsync, rename,
 * unlink, mkdir, rmdir, directory fsync). Once armed with n, operation n fails; in 'crash' mode
 * every operation after it fails too (reads included), as for a process that died there.
 */
class StopFs implements Fs {
  ops = 0
  stoppedAt: string | null = null
  private limit = Number.POSITIVE_INFINITY
  private dead = false
  private mode: 'crash' | 'fail-once' = 'crash'

  constructor(private readonly inner: Fs) {}

  arm(n: number, mode: 'crash' | 'fail-once'): void {
    this.ops = 0
    this.limit = n
    this.mode = mode
  }

  step(what: string): void {
    if (this.dead) throw new Stop(`${what} (after the crash)`)
    if (this.ops++ !== this.limit) return
    this.stoppedAt = what
    if (this.mode === 'crash') this.dead = true
    else this.limit = Number.POSITIVE_INFINITY
    throw new Stop(what)
  }

  read(what: string): void {
    if (this.dead) throw new Stop(`${what} (after the crash)`)
  }

  async open(path: string, mode: OpenMode): Promise<FileHandle> {
    if (mode === 'r') this.read(`open ${path}`)
    else this.step(`open(${mode}) ${path}`)
    const fh = await this.inner.open(path, mode)
    const fs = this
    return {
      async read(buffer, offset, length, position) {
        fs.read(`read ${path}`)
        return fh.read(buffer, offset, length, position)
      },
      async write(buffer, position) {
        fs.step(`write ${path}`)
        return fh.write(buffer, position)
      },
      async writev(buffers, position) {
        fs.step(`writev ${path}`)
        return fh.writev(buffers, position)
      },
      async truncate(length) {
        fs.step(`truncate ${path}`)
        return fh.truncate(length)
      },
      async sync() {
        fs.step(`fsync ${path}`)
        return fh.sync()
      },
      size: () => fh.size(),
      close: () => fh.close(),
    }
  }

  async readFile(path: string) {
    this.read(`readFile ${path}`)
    return this.inner.readFile(path)
  }

  async rename(from: string, to: string) {
    this.step(`rename ${from} → ${to}`)
    return this.inner.rename(from, to)
  }

  async unlink(path: string) {
    this.step(`unlink ${path}`)
    return this.inner.unlink(path)
  }

  async mkdir(path: string) {
    this.step(`mkdir ${path}`)
    return this.inner.mkdir(path)
  }

  async rmdir(path: string) {
    this.step(`rmdir ${path}`)
    return this.inner.rmdir(path)
  }

  async readdir(path: string) {
    this.read(`readdir ${path}`)
    return this.inner.readdir(path)
  }

  async stat(path: string) {
    this.read(`stat ${path}`)
    return this.inner.stat(path)
  }

  async syncDir(path: string) {
    this.step(`fsync dir ${path}`)
    return this.inner.syncDir(path)
  }
}

const SIZE = keyedBatch(
  Array.from({ length: 10 }, (_, j) => ({ key: `k${j}`, value: 'v-00000' })),
  START_MS,
).length

/** 24 batches of 10 records over 25 keys with some tombstones, in one-batch segments, cleanly closed. */
async function writeLog(fs: Fs, clock: ManualClock): Promise<void> {
  const c = await openCompacted({ fs, dir: DIR, clock, config: { segmentBytes: SIZE } })
  const random = rng(3)
  for (let b = 0; b < 24; b++) {
    const batch = Array.from({ length: 10 }, (_, j) => ({
      key: `k${Math.floor(random() * 25)}`,
      value: random() < 0.1 ? null : `v-${String(b * 10 + j).padStart(5, '0')}`,
    }))
    await append(c.log, batch, clock.now())
  }
  await c.mgr.close()
}

/** Opens the log for cleaning: groups of three old segments fit segment.bytes. */
function openForCleaning(fs: Fs, clock: ManualClock): Promise<CompactedLog> {
  return openCompacted({ fs, dir: DIR, clock, config: { segmentBytes: SIZE * 3 + SIZE / 2 }, logConfig: { deleteRetentionMs: 3_600_000 } })
}

async function leftovers(fs: Fs): Promise<string[]> {
  return (await fs.readdir(`${DIR}/events-0`)).filter((n) => n.endsWith('.cleaned') || n.endsWith('.swap'))
}

interface Reference {
  /** The log's records before the cleaning, then after each swap; the last is after the cleaning. */
  states: string[]
  after: StoredRecord[]
  checkpoint: number
  ops: number
}

async function reference(): Promise<Reference> {
  const clock = new ManualClock(START_MS)
  const mem = new MemoryFs(() => clock.now())
  await writeLog(mem, clock)
  const fs = new StopFs(mem)
  const c = await openForCleaning(fs, clock)
  const before = await readAll(c.log)
  const states = [JSON.stringify(before)]
  const swap = c.log.replaceSegments.bind(c.log)
  c.log.replaceSegments = async (...args) => {
    const done = await swap(...args)
    states.push(JSON.stringify(await readAll(c.log)))
    return done
  }
  fs.arm(Number.POSITIVE_INFINITY, 'crash')
  const pass = await c.mgr.runCleaner()
  assert.ok(pass && pass.stats.segmentsWritten >= 3, 'the reference cleaning swaps several groups')
  const ops = fs.ops
  const after = await readAll(c.log)
  const checkpoint = c.mgr.cleaner!.checkpointOf(c.log)!
  assert.equal(await c.mgr.runCleaner(), null)
  await c.mgr.close()
  assert.ok(after.length < before.length / 4)
  return { states, after, checkpoint, ops }
}

for (const mode of ['crash', 'fail-once'] as const) {
  test(`a cleaning stopped after any file operation (${mode}) leaves a log that reads as before or after and cleans to the same result`, async (t) => {
    const ref = await reference()
    t.diagnostic(`one cleaning takes ${ref.ops} file operations`)
    const seen = new Set<number>()
    for (let n = 0; n <= ref.ops; n++) {
      const clock = new ManualClock(START_MS)
      const mem = new MemoryFs(() => clock.now())
      await writeLog(mem, clock)
      const fs = new StopFs(mem)
      const c = await openForCleaning(fs, clock)
      fs.arm(n, mode)
      await c.mgr.runCleaner()
      const where = fs.stoppedAt ?? 'nowhere (the cleaning completed)'
      if (mode === 'fail-once') {
        // The broker carries on: another pass (the log may have failed), then a clean stop.
        await c.mgr.runCleaner().catch(() => null)
        await c.mgr.close().catch(() => {})
      }
      // A restart on what the disk holds (after a crash: without the clean-shutdown marker).
      const r = await openForCleaning(mem, clock)
      const records = await readAll(r.log)
      assert.deepEqual(await leftovers(mem), [], `no .cleaned or .swap file after stopping at ${where}`)
      const state = ref.states.indexOf(JSON.stringify(records))
      assert.ok(state >= 0, `stopped at ${where} (op ${n}): the log reads neither as before nor as after a swap`)
      seen.add(state)
      await cleanUntilDone(r.mgr)
      assert.deepEqual(await readAll(r.log), ref.after, `cleaning again after stopping at ${where} gives the same records`)
      assert.equal(r.mgr.cleaner?.checkpointOf(r.log), ref.checkpoint)
      await r.mgr.close()
      if (fs.stoppedAt === null) break
    }
    // (A swap that changes no record repeats the state before it: count distinct states.)
    const distinct = new Set(ref.states).size
    t.diagnostic(`restarts found ${seen.size} of the ${distinct} distinct states (before, after each swap)`)
    assert.equal(seen.size, distinct, 'every state is reached by some stop')
  })
}
