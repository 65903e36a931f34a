// Test helpers for the storage layer: temp dirs, batch builders, and an Fs wrapper that counts
// reads and injects write/fsync faults.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KafkaError } from '../../../src/protocol/errors.js'
import { validateProducedBatches } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import type { FileHandle, Fs, OpenMode } from '../../../src/storage/fs.js'
import { nodeFs } from '../../../src/storage/fs.js'
import type { AppendInfo, PartitionLog } from '../../../src/storage/partition-log.js'

type TestLike = { after(fn: () => void | Promise<void>): void }
interface Cleanup {
  closers: Array<() => Promise<unknown>>
  dirs: string[]
}
const cleanups = new WeakMap<TestLike, Cleanup>()

/** A temp dir removed after the test, once every function passed to deferClose has run (LIFO). */
/** The KafkaError name fn throws ('NONE' when it returns); other errors propagate. */
export function errorName(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    if (err instanceof KafkaError) return err.errorName
    throw err
  }
  return 'NONE'
}

export function tempDir(t: TestLike): string {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-storage-'))
  let c = cleanups.get(t)
  if (!c) {
    const created: Cleanup = { closers: [], dirs: [] }
    cleanups.set(t, created)
    t.after(async () => {
      for (const fn of created.closers.reverse()) await fn().catch(() => {})
      for (const d of created.dirs) rmSync(d, { recursive: true, force: true })
    })
    c = created
  }
  c.dirs.push(dir)
  return dir
}

/** Runs fn after the test, before its temp dirs are removed. */
export function deferClose(t: TestLike, fn: () => Promise<unknown>): void {
  const c = cleanups.get(t)
  if (!c) throw new Error('call tempDir first')
  c.closers.push(fn)
}

/** A batch of n records with values `${tag}-i` and timestamps ts, ts+1, … */
export function makeBatch(n: number, ts = 1_000_000, tag = 'v', valueBytes = 0): Buffer {
  return buildRecordBatch({
    baseTimestamp: ts,
    records: Array.from({ length: n }, (_, i) => ({
      key: Buffer.from(`k${i}`),
      value: valueBytes > 0 ? Buffer.alloc(valueBytes, i & 0xff) : Buffer.from(`${tag}-${i}`),
      timestamp: ts + i,
    })),
  })
}

export function produce(log: PartitionLog, buffers: Buffer[], epoch = 0): Promise<AppendInfo> {
  const records = buffers.length === 1 ? buffers[0]! : Buffer.concat(buffers)
  return log.append(records, validateProducedBatches(records, { maxBatchBytes: 1 << 30 }), epoch)
}

export interface Faults {
  /** Throw this error code from the next write/writev whose path matches. */
  failWrite?: { match: (path: string) => boolean; code: string; partial?: boolean } | null
  failTruncate?: boolean
  /** Fail the next fsync of a file whose path matches. */
  failSync?: ((path: string) => boolean) | null
  reads: number
  readBytes: number
  syncs: string[]
}

class FaultHandle implements FileHandle {
  constructor(
    private readonly inner: FileHandle,
    private readonly path: string,
    private readonly faults: Faults,
  ) {}
  async read(buffer: Buffer, offset: number, length: number, position: number) {
    this.faults.reads++
    const n = await this.inner.read(buffer, offset, length, position)
    this.faults.readBytes += n
    return n
  }
  private async maybeFail(buffers: Buffer[], position: number | null) {
    const f = this.faults.failWrite
    if (f?.match(this.path)) {
      this.faults.failWrite = null
      if (f.partial) {
        const all = Buffer.concat(buffers)
        await this.inner.write(all.subarray(0, Math.floor(all.length / 2)), position)
      }
      const err = new Error(`injected ${f.code}`) as NodeJS.ErrnoException
      err.code = f.code
      throw err
    }
  }
  async write(buffer: Buffer, position: number | null) {
    await this.maybeFail([buffer], position)
    return this.inner.write(buffer, position)
  }
  async writev(buffers: Buffer[], position: number | null) {
    await this.maybeFail(buffers, position)
    return this.inner.writev(buffers, position)
  }
  truncate(length: number) {
    if (this.faults.failTruncate) return Promise.reject(new Error('injected truncate failure'))
    return this.inner.truncate(length)
  }
  sync() {
    if (this.faults.failSync?.(this.path)) {
      this.faults.failSync = null
      const err = new Error('injected EIO on fsync') as NodeJS.ErrnoException
      err.code = 'EIO'
      return Promise.reject(err)
    }
    this.faults.syncs.push(this.path)
    return this.inner.sync()
  }
  size() {
    return this.inner.size()
  }
  close() {
    return this.inner.close()
  }
}

export function faultFs(inner: Fs = nodeFs): { fs: Fs; faults: Faults } {
  const faults: Faults = { reads: 0, readBytes: 0, syncs: [] }
  const fs: Fs = {
    ...inner,
    async open(path: string, mode: OpenMode) {
      return new FaultHandle(await inner.open(path, mode), path, faults)
    },
  }
  return { fs, faults }
}
