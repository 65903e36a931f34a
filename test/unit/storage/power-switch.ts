// A CrashFs behind a switch that cuts the power, for the storage crash tests
// (crash-scenario.ts, txn-crash-property.test.ts): it counts the file-system changes; the one at
// the limit reaches the disk (in seed mode maybe partly), then the power goes (CrashFs.crash) and
// every later call fails with PowerCut.
import { posix } from 'node:path'
import type { CrashFs } from '../../../src/storage/crash-fs.js'
import type { FileHandle, Fs, OpenMode } from '../../../src/storage/fs.js'

export class PowerCut extends Error {
  constructor(what: string) {
    super(`power cut at ${what}`)
    ;(this as NodeJS.ErrnoException).code = 'EIO'
  }
}

/** The contents a checkpoint-style file had, in order (null = absent), and the last one durable. */
export interface Versions {
  list: Array<string | null>
  durable: number
}

/**
 * The broker's view of the disk: counts file-system changes; the one at the limit reaches the
 * CrashFs, then the power goes (CrashFs.crash) and every later call fails. Also records every
 * version of the files written by writeFileAtomic (a rename of `<name>.tmp` over `<name>`).
 */
export class PowerSwitch implements Fs {
  changes = 0
  dead = false

  constructor(
    private readonly disk: CrashFs,
    private limit: number = Number.POSITIVE_INFINITY,
    /** CrashFs.crash's seed: null keeps the durable state only. */
    private readonly seed: number | null = null,
    /** Where the versions of writeFileAtomic's files are recorded (none: not recorded). */
    private readonly versions: Map<string, Versions> = new Map(),
  ) {}

  /** Counts the changes from zero again and cuts the power after `limit` of them. */
  arm(limit: number): void {
    this.changes = 0
    this.limit = limit
  }

  /** Cuts the power now (after the last operation, when the limit was not reached). */
  cut(): void {
    if (this.dead) return
    this.dead = true
    this.disk.crash(this.seed ?? undefined)
  }

  private alive(what: string): void {
    if (this.dead) throw new PowerCut(`${what} (after the cut)`)
  }

  private async change<T>(what: string, fn: () => Promise<T>): Promise<T> {
    this.alive(what)
    if (this.changes++ < this.limit) return fn()
    // The change at the limit reaches the disk (in seed mode maybe partly), then the power goes.
    await fn().catch(() => {})
    this.cut()
    throw new PowerCut(what)
  }

  private track(path: string): Versions {
    const p = posix.normalize(path)
    let v = this.versions.get(p)
    if (!v) {
      v = { list: [null], durable: 0 }
      this.versions.set(p, v)
    }
    return v
  }

  async open(path: string, mode: OpenMode): Promise<FileHandle> {
    const open = () => this.disk.open(path, mode)
    if (mode === 'r') this.alive(`open ${path}`)
    const fh = mode === 'r' ? await open() : await this.change(`open(${mode}) ${path}`, open)
    const sw = this
    return {
      async read(buffer, offset, length, position) {
        sw.alive(`read ${path}`)
        return fh.read(buffer, offset, length, position)
      },
      write: (buffer, position) => sw.change(`write ${path}`, () => fh.write(buffer, position)),
      writev: (buffers, position) => sw.change(`writev ${path}`, () => fh.writev(buffers, position)),
      truncate: (length) => sw.change(`truncate ${path}`, () => fh.truncate(length)),
      sync: () => sw.change(`fsync ${path}`, () => fh.sync()),
      async size() {
        sw.alive(`fstat ${path}`)
        return fh.size()
      },
      close: () => fh.close(),
    }
  }

  async readFile(path: string) {
    this.alive(`readFile ${path}`)
    return this.disk.readFile(path)
  }

  rename(from: string, to: string) {
    return this.change(`rename ${from} → ${to}`, async () => {
      if (from === `${to}.tmp`) {
        const text = (await this.disk.readFile(from)).toString()
        // The read let other work run: a change that cut the power meanwhile means this rename
        // never happened (made now, it would land on the disk as remounted after the cut).
        if (this.dead) throw new PowerCut(`rename ${from} → ${to} (after the cut)`)
        this.track(to).list.push(text)
      }
      await this.disk.rename(from, to)
    })
  }

  unlink(path: string) {
    return this.change(`unlink ${path}`, async () => {
      await this.disk.unlink(path)
      const v = this.versions.get(posix.normalize(path))
      if (v) v.list.push(null)
    })
  }

  mkdir(path: string) {
    return this.change(`mkdir ${path}`, () => this.disk.mkdir(path))
  }

  rmdir(path: string) {
    return this.change(`rmdir ${path}`, () => this.disk.rmdir(path))
  }

  async readdir(path: string) {
    this.alive(`readdir ${path}`)
    return this.disk.readdir(path)
  }

  async stat(path: string) {
    this.alive(`stat ${path}`)
    return this.disk.stat(path)
  }

  syncDir(path: string) {
    return this.change(`fsync dir ${path}`, async () => {
      await this.disk.syncDir(path)
      const dir = posix.normalize(path)
      for (const [p, v] of this.versions) if (posix.dirname(p) === dir) v.durable = v.list.length - 1
    })
  }
}
