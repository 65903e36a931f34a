// A disk that fails on command, for the chaos nemesis's `disk` fault: an Fs (src/storage/fs.ts)
// wrapping another one, whose mode says what goes wrong until it is switched back to 'none':
//
//   enospc      what needs new blocks or entries fails with ENOSPC (a full disk): writes and
//               writevs, opening a file for writing, mkdir, rename; truncating, unlinking and
//               fsync still work (they free space or refuse nothing), reads work
//   eio         those calls fail with EIO (a failing disk), and so do truncates, unlinks and fsyncs
//   slow-fsync  every fsync of a file or a directory takes slowFsyncMs longer (a saturated disk)
//   eio-read    reads fail with EIO (a bad sector under data already written); writes work
//
// With a PowerJournal (power-journal.ts) it also records what a power cut would keep of each file
// it writes, for the nemesis's `power` fault.
//
// The error is shaped as Node's own (code, errno, syscall), so the broker tells it as it would a
// real one. A call already under way when the mode changes finishes under the mode it started in.
//
// A broker process gets one through test/chaos/faulty-broker-main.ts; the nemesis switches it with
// a control file and SIGUSR2 (see there).
import type { FileHandle, Fs, OpenMode } from '../../src/storage/fs.js'
import type { PowerJournal } from './power-journal.js'

/** The environment variable naming faulty-broker-main.ts's control file. */
export const DISK_FAULT_FILE_ENV = 'TRIBUTARY_DISK_FAULT_FILE'

export const DISK_FAULTS = ['enospc', 'eio', 'slow-fsync', 'eio-read'] as const
export type DiskFault = (typeof DISK_FAULTS)[number]
export type DiskMode = DiskFault | 'none'

const ERRNO = { ENOSPC: -28, EIO: -5 } as const

export function diskError(code: 'ENOSPC' | 'EIO', syscall: string, path?: string): NodeJS.ErrnoException {
  const what = code === 'ENOSPC' ? 'no space left on device' : 'i/o error'
  const err: NodeJS.ErrnoException = new Error(`${code}: ${what}, ${syscall}${path ? ` '${path}'` : ''}`)
  err.code = code
  err.errno = ERRNO[code]
  err.syscall = syscall
  if (path) err.path = path
  return err
}

/** Parses a control file's text: a mode, or 'none' for anything else (an empty or half-written file). */
export function parseDiskMode(text: string): DiskMode {
  const t = text.trim()
  return (DISK_FAULTS as readonly string[]).includes(t) ? (t as DiskFault) : 'none'
}

export class FaultyFs implements Fs {
  mode: DiskMode = 'none'
  /** Calls refused and fsyncs delayed, since the start. */
  readonly counts = { refused: 0, delayed: 0 }

  constructor(
    private readonly inner: Fs,
    readonly slowFsyncMs = 1500,
    readonly journal?: PowerJournal,
  ) {}

  /** Throws EIO for a read, in eio-read mode. */
  checkRead(syscall: string, path?: string): void {
    if (this.mode !== 'eio-read') return
    this.counts.refused++
    throw diskError('EIO', syscall, path)
  }

  /** Throws the mode's error for a write-like call, if the mode refuses writes. */
  checkWrite(syscall: string, path?: string): void {
    if (this.mode !== 'enospc' && this.mode !== 'eio') return
    this.counts.refused++
    throw diskError(this.mode === 'enospc' ? 'ENOSPC' : 'EIO', syscall, path)
  }

  /** Before an fsync: EIO fails it, slow-fsync delays it. */
  async beforeSync(syscall: string, path?: string): Promise<void> {
    if (this.mode === 'eio') {
      this.counts.refused++
      throw diskError('EIO', syscall, path)
    }
    if (this.mode === 'slow-fsync') {
      this.counts.delayed++
      await new Promise((r) => setTimeout(r, this.slowFsyncMs))
    }
  }

  async open(path: string, mode: OpenMode): Promise<FileHandle> {
    if (mode !== 'r') {
      this.checkWrite('open', path)
      if (this.journal)
        this.journal.opening(
          path,
          await this.inner.stat(path).then(
            (s) => s?.size,
            () => undefined,
          ),
        )
    }
    return new FaultyFileHandle(await this.inner.open(path, mode), this, path)
  }

  async readFile(path: string): Promise<Buffer> {
    this.checkRead('read', path)
    return this.inner.readFile(path)
  }

  async rename(from: string, to: string): Promise<void> {
    this.checkWrite('rename', from)
    await this.inner.rename(from, to)
    this.journal?.renamed(from, to)
  }

  async unlink(path: string): Promise<void> {
    // Freeing space works on a full disk; on a failing one it is a write too.
    if (this.mode === 'eio') this.checkWrite('unlink', path)
    await this.inner.unlink(path)
    this.journal?.unlinked(path)
  }

  async mkdir(path: string): Promise<void> {
    this.checkWrite('mkdir', path)
    return this.inner.mkdir(path)
  }

  async rmdir(path: string): Promise<void> {
    if (this.mode === 'eio') this.checkWrite('rmdir', path)
    return this.inner.rmdir(path)
  }

  readdir(path: string): Promise<string[]> {
    return this.inner.readdir(path)
  }

  stat(path: string): ReturnType<Fs['stat']> {
    return this.inner.stat(path)
  }

  async syncDir(path: string): Promise<void> {
    await this.beforeSync('fsync', path)
    return this.inner.syncDir(path)
  }
}

class FaultyFileHandle implements FileHandle {
  constructor(
    private readonly fh: FileHandle,
    private readonly fs: FaultyFs,
    private readonly path: string,
  ) {}

  async read(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    this.fs.checkRead('read', this.path)
    return this.fh.read(buffer, offset, length, position)
  }

  async write(buffer: Buffer, position: number | null): Promise<void> {
    this.fs.checkWrite('write', this.path)
    return this.fh.write(buffer, position)
  }

  async writev(buffers: Buffer[], position: number | null): Promise<void> {
    this.fs.checkWrite('writev', this.path)
    return this.fh.writev(buffers, position)
  }

  async truncate(length: number): Promise<void> {
    if (this.fs.mode === 'eio') this.fs.checkWrite('ftruncate', this.path)
    return this.fh.truncate(length)
  }

  async sync(): Promise<void> {
    await this.fs.beforeSync('fsync', this.path)
    if (this.fs.journal) this.fs.journal.syncing(this.path, await this.fh.size())
    return this.fh.sync()
  }

  size(): Promise<number> {
    return this.fh.size()
  }

  close(): Promise<void> {
    return this.fh.close()
  }
}
