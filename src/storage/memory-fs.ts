// An Fs that keeps every file and directory in memory: what `startBroker({ storage: 'memory' })`
// runs on, so a test broker touches no disk and starts in milliseconds. Nothing survives the
// process (or clear()); sync and syncDir are no-ops because there is nothing to make durable.
//
// The semantics are the POSIX ones the storage layer relies on with nodeFs (Linux flavour), so
// code that works here works on disk:
//   - a file is an inode: an open handle keeps reading and writing it after rename or unlink;
//   - open modes as fopen(3): r/r+ need the file, w/w+ create or truncate, a/a+ create and always
//     write at the end (Linux ignores the position of a write in append mode); reads on a
//     write-only handle and writes on a read-only one fail with EBADF;
//   - a write past the end leaves a hole that reads as zeros; truncate shrinks or zero-extends;
//   - a write at position null goes to the handle's own file position, which it then advances;
//   - rename replaces a file, or an empty directory by a directory (ENOTEMPTY otherwise, EISDIR /
//     ENOTDIR when the kinds differ, EINVAL when moving a directory into itself);
//   - mkdir is recursive and rmdir removes a whole tree and accepts a missing path, as nodeFs;
//   - failures are Errors carrying Node's `code`, `errno`, `syscall` and `path` (ENOENT, EEXIST,
//     ENOTDIR, EISDIR, ENOTEMPTY, EBADF, EINVAL, EBUSY, EFBIG), because storage code checks err.code.
// Paths are POSIX; a relative path is taken from the root, so 'memory:/x' and '/memory:/x' name
// the same file.
//
// Speed is the point: reads and writes are positional copies into a per-file buffer whose
// capacity doubles as the file grows (amortised O(1) appends); bytes past a file's size are kept
// zero, so growing never needs a second pass.
//
// Every change goes through a hook (fileWritten, fileTruncated, fileSynced, dirChanged, dirSynced),
// no-ops here: CrashFs (crash-fs.ts) overrides them to track what a crash would keep.
import { constants as bufferConstants } from 'node:buffer'
import { constants as osConstants } from 'node:os'
import { posix } from 'node:path'
import type { FileHandle, Fs, OpenMode } from './fs.js'

/** First capacity of a file that is written to; it doubles from there. */
const MIN_CAPACITY = 256
/** Largest file a Buffer can hold. */
const MAX_FILE_BYTES = bufferConstants.MAX_LENGTH

const MESSAGES: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EEXIST: 'file already exists',
  ENOTDIR: 'not a directory',
  EISDIR: 'illegal operation on a directory',
  ENOTEMPTY: 'directory not empty',
  EBADF: 'bad file descriptor',
  EINVAL: 'invalid argument',
  EFBIG: 'file too large',
  EBUSY: 'resource busy or locked',
}

/** An error shaped as Node's fs errors: `ENOENT: no such file or directory, open '/x'`. */
function fsError(code: keyof typeof MESSAGES, syscall: string, path?: string, dest?: string): NodeJS.ErrnoException {
  let message = `${code}: ${MESSAGES[code]}, ${syscall}`
  if (path !== undefined) message += ` '${path}'`
  if (dest !== undefined) message += ` -> '${dest}'`
  const err = new Error(message) as NodeJS.ErrnoException
  err.errno = -((osConstants.errno as Record<string, number>)[code] ?? 0)
  err.code = code
  err.syscall = syscall
  if (path !== undefined) err.path = path
  if (dest !== undefined) (err as NodeJS.ErrnoException & { dest: string }).dest = dest
  return err
}

/** @internal A file's inode (exported for CrashFs). */
export class FileNode {
  readonly kind = 'file'
  data: Buffer = Buffer.alloc(0)
  size = 0
  constructor(public mtimeMs: number) {}

  /** Makes room for `end` bytes (doubling); bytes past size stay zero. */
  reserve(end: number, syscall: string, path: string): void {
    if (end <= this.data.length) return
    if (end > MAX_FILE_BYTES) throw fsError('EFBIG', syscall, path)
    const capacity = Math.min(Math.max(end, this.data.length * 2, MIN_CAPACITY), MAX_FILE_BYTES)
    // Zeroed by the allocator (fresh pages for large sizes), so only the kept bytes are touched.
    const next = Buffer.alloc(capacity)
    this.data.copy(next, 0, 0, this.size)
    this.data = next
  }

  /** Writes the buffers contiguously at position; returns the position after them. */
  writeAt(buffers: readonly Buffer[], position: number, syscall: string, path: string, nowMs: number): number {
    let total = 0
    for (const b of buffers) total += b.length
    const end = position + total
    this.reserve(end, syscall, path)
    let at = position
    for (const b of buffers) at += b.copy(this.data, at)
    if (end > this.size) this.size = end
    this.mtimeMs = nowMs
    return end
  }

  truncate(length: number, path: string, nowMs: number): void {
    if (length < this.size) this.data.fill(0, length, this.size)
    else this.reserve(length, 'ftruncate', path)
    this.size = length
    // Give memory back when a file shrinks to well under its capacity (segments truncated on recovery or deletion).
    if (this.data.length > MIN_CAPACITY && length < this.data.length >>> 2) {
      const next = Buffer.alloc(Math.max(MIN_CAPACITY, length * 2))
      this.data.copy(next, 0, 0, length)
      this.data = next
    }
    this.mtimeMs = nowMs
  }
}

/** @internal A directory's inode (exported for CrashFs). */
export class DirNode {
  readonly kind = 'dir'
  readonly entries = new Map<string, Node>()
  constructor(public mtimeMs: number) {}
}

export type Node = FileNode | DirNode

interface Access {
  read: boolean
  write: boolean
  append: boolean
  create: boolean
  truncate: boolean
}

const ACCESS: Record<OpenMode, Access> = {
  r: { read: true, write: false, append: false, create: false, truncate: false },
  'r+': { read: true, write: true, append: false, create: false, truncate: false },
  w: { read: false, write: true, append: false, create: true, truncate: true },
  'w+': { read: true, write: true, append: false, create: true, truncate: true },
  a: { read: false, write: true, append: true, create: true, truncate: false },
  'a+': { read: true, write: true, append: true, create: true, truncate: false },
}

function checkRange(buffer: Buffer, offset: number, length: number, position: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > buffer.length) {
    throw new RangeError(`offset ${offset} is outside the buffer (${buffer.length} bytes)`)
  }
  if (!Number.isSafeInteger(length) || length < 0 || offset + length > buffer.length) {
    throw new RangeError(`length ${length} at offset ${offset} runs past the buffer (${buffer.length} bytes)`)
  }
  if (!Number.isSafeInteger(position) || position < 0) throw new RangeError(`position ${position} is not a file position`)
}

class MemoryFileHandle implements FileHandle {
  /** Where a write at position null goes (the file offset of a non-append descriptor). */
  private cursor = 0
  private closed = false
  /** The owner's mount generation at open: a handle dies with the mount (CrashFs.crash). */
  private readonly mount: number

  constructor(
    private readonly owner: MemoryFs,
    private readonly node: FileNode | DirNode,
    private readonly path: string,
    private readonly access: Access,
  ) {
    this.mount = owner.mountGeneration
  }

  private check(syscall: string): void {
    if (this.closed || this.mount !== this.owner.mountGeneration) throw fsError('EBADF', syscall)
  }

  private file(syscall: string): FileNode {
    this.check(syscall)
    if (this.node.kind === 'dir') throw fsError('EISDIR', syscall)
    return this.node
  }

  async read(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    const node = this.file('read')
    if (!this.access.read) throw fsError('EBADF', 'read')
    checkRange(buffer, offset, length, position)
    if (position >= node.size) return 0
    return node.data.copy(buffer, offset, position, Math.min(node.size, position + length))
  }

  async write(buffer: Buffer, position: number | null): Promise<void> {
    this.put([buffer], position, 'write')
  }

  async writev(buffers: Buffer[], position: number | null): Promise<void> {
    this.put(buffers, position, 'writev')
  }

  private put(buffers: readonly Buffer[], position: number | null, syscall: string): void {
    const node = this.file(syscall)
    if (!this.access.write) throw fsError('EBADF', syscall)
    if (position !== null && (!Number.isSafeInteger(position) || position < 0)) {
      throw new RangeError(`position ${position} is not a file position`)
    }
    // Linux: in append mode the kernel ignores the position and writes at the end.
    const at = this.access.append ? node.size : (position ?? this.cursor)
    const end = node.writeAt(buffers, at, syscall, this.path, this.owner.nowMs())
    if (position === null || this.access.append) this.cursor = end
    this.owner.fileWritten(node, at, buffers)
  }

  async truncate(length: number): Promise<void> {
    const node = this.file('ftruncate')
    if (!this.access.write) throw fsError('EINVAL', 'ftruncate')
    if (!Number.isSafeInteger(length) || length < 0) throw fsError('EINVAL', 'ftruncate')
    node.truncate(length, this.path, this.owner.nowMs())
    this.owner.fileTruncated(node, length)
  }

  async sync(): Promise<void> {
    this.check('fsync')
    // fsync on a directory's descriptor is what nodeFs.syncDir does.
    if (this.node.kind === 'dir') this.owner.dirSynced(this.node)
    else this.owner.fileSynced(this.node)
  }

  async size(): Promise<number> {
    this.check('fstat')
    return this.node.kind === 'file' ? this.node.size : 0
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.mount === this.owner.mountGeneration) this.owner.handleClosed()
  }
}

/** What a MemoryFs holds, for tests and leak checks. */
export interface MemoryFsUsage {
  files: number
  directories: number
  /** Bytes of file contents (sizes, not capacities). */
  bytes: number
  openHandles: number
}

export class MemoryFs implements Fs {
  protected root: DirNode
  protected openHandles = 0
  /** @internal Bumped by a remount (CrashFs.crash): every handle opened before is dead. */
  mountGeneration = 0

  /** `now` stamps mtimes (default Date.now); pass a Clock's nowMs to keep tests on virtual time. */
  constructor(protected readonly now: () => number = Date.now) {
    this.root = new DirNode(now())
  }

  // Change hooks, for CrashFs. Each is called after the change it reports.
  /** @internal buffers were written contiguously at position of file. */
  fileWritten(_file: FileNode, _position: number, _buffers: readonly Buffer[]): void {}
  /** @internal file was truncated (or zero-extended) to length. */
  fileTruncated(_file: FileNode, _length: number): void {}
  /** @internal fsync(file). */
  fileSynced(_file: FileNode): void {}
  /** @internal names of dir were set or removed, as one atomic change. */
  dirChanged(_dir: DirNode, _names: readonly string[]): void {}
  /** @internal fsync(dir). */
  dirSynced(_dir: DirNode): void {}

  /** @internal The mtime of a write made now. */
  nowMs(): number {
    return this.now()
  }

  /** @internal Called by a handle's first close(). */
  handleClosed(): void {
    this.openHandles--
  }

  /** Splits a path into its components from the root ('/a//b/../c' → ['a', 'c']). */
  private parts(path: string): string[] {
    const normal = posix.normalize(`/${path}`)
    return normal === '/' ? [] : normal.slice(1).replace(/\/$/, '').split('/')
  }

  /** The directory holding `parts`' last component; throws ENOENT/ENOTDIR along the way. */
  private parentOf(parts: readonly string[], syscall: string, path: string): DirNode {
    let dir = this.root
    for (let i = 0; i < parts.length - 1; i++) {
      const next = dir.entries.get(parts[i]!)
      if (next === undefined) throw fsError('ENOENT', syscall, path)
      if (next.kind !== 'dir') throw fsError('ENOTDIR', syscall, path)
      dir = next
    }
    return dir
  }

  /** The node at path, undefined when missing (ENOTDIR when a parent is a file). */
  private lookup(path: string, syscall: string): Node | undefined {
    const parts = this.parts(path)
    if (parts.length === 0) return this.root
    let node: Node = this.root
    for (let i = 0; i < parts.length; i++) {
      if (node.kind !== 'dir') throw fsError('ENOTDIR', syscall, path)
      const next = node.entries.get(parts[i]!)
      if (next === undefined) return undefined
      node = next
    }
    return node
  }

  async open(path: string, mode: OpenMode): Promise<FileHandle> {
    const access = ACCESS[mode]
    if (access === undefined) throw fsError('EINVAL', 'open', path)
    const parts = this.parts(path)
    let node: Node | undefined
    if (parts.length === 0) node = this.root
    else {
      const dir = this.parentOf(parts, 'open', path)
      const name = parts[parts.length - 1]!
      node = dir.entries.get(name)
      if (node === undefined) {
        if (!access.create) throw fsError('ENOENT', 'open', path)
        node = new FileNode(this.now())
        dir.entries.set(name, node)
        dir.mtimeMs = node.mtimeMs
        this.dirChanged(dir, [name])
      }
    }
    if (node.kind === 'dir') {
      if (access.write) throw fsError('EISDIR', 'open', path)
    } else if (access.truncate && node.size > 0) {
      node.truncate(0, path, this.now())
      this.fileTruncated(node, 0)
    }
    this.openHandles++
    return new MemoryFileHandle(this, node, path, access)
  }

  async readFile(path: string): Promise<Buffer> {
    const node = this.lookup(path, 'open')
    if (node === undefined) throw fsError('ENOENT', 'open', path)
    if (node.kind === 'dir') throw fsError('EISDIR', 'read')
    return Buffer.from(node.data.subarray(0, node.size))
  }

  async rename(from: string, to: string): Promise<void> {
    const src = this.parts(from)
    const dst = this.parts(to)
    if (src.length === 0 || dst.length === 0) throw fsError('EBUSY', 'rename', from, to)
    const srcDir = this.parentOf(src, 'rename', from)
    const srcName = src[src.length - 1]!
    const node = srcDir.entries.get(srcName)
    if (node === undefined) throw fsError('ENOENT', 'rename', from, to)
    const dstDir = this.parentOf(dst, 'rename', to)
    const dstName = dst[dst.length - 1]!
    const existing = dstDir.entries.get(dstName)
    if (existing === node) return
    if (node.kind === 'dir' && dst.length > src.length && src.every((p, i) => dst[i] === p)) {
      throw fsError('EINVAL', 'rename', from, to)
    }
    if (existing !== undefined) {
      if (node.kind === 'file' && existing.kind === 'dir') throw fsError('EISDIR', 'rename', from, to)
      if (node.kind === 'dir' && existing.kind === 'file') throw fsError('ENOTDIR', 'rename', from, to)
      if (existing.kind === 'dir' && existing.entries.size > 0) throw fsError('ENOTEMPTY', 'rename', from, to)
    }
    srcDir.entries.delete(srcName)
    dstDir.entries.set(dstName, node)
    srcDir.mtimeMs = dstDir.mtimeMs = this.now()
    // Within one directory a rename is one atomic change; across two, one change in each.
    if (srcDir === dstDir) this.dirChanged(srcDir, [srcName, dstName])
    else {
      this.dirChanged(srcDir, [srcName])
      this.dirChanged(dstDir, [dstName])
    }
  }

  async unlink(path: string): Promise<void> {
    const parts = this.parts(path)
    if (parts.length === 0) throw fsError('EISDIR', 'unlink', path)
    const dir = this.parentOf(parts, 'unlink', path)
    const name = parts[parts.length - 1]!
    const node = dir.entries.get(name)
    if (node === undefined) throw fsError('ENOENT', 'unlink', path)
    if (node.kind === 'dir') throw fsError('EISDIR', 'unlink', path)
    dir.entries.delete(name)
    dir.mtimeMs = this.now()
    this.dirChanged(dir, [name])
  }

  /** As `mkdir -p`: creates missing parents; an existing directory is fine, an existing file is EEXIST. */
  async mkdir(path: string): Promise<void> {
    const parts = this.parts(path)
    let dir = this.root
    for (let i = 0; i < parts.length; i++) {
      const next = dir.entries.get(parts[i]!)
      if (next === undefined) {
        const created = new DirNode(this.now())
        dir.entries.set(parts[i]!, created)
        dir.mtimeMs = created.mtimeMs
        this.dirChanged(dir, [parts[i]!])
        dir = created
      } else if (next.kind === 'dir') {
        dir = next
      } else {
        throw fsError(i === parts.length - 1 ? 'EEXIST' : 'ENOTDIR', 'mkdir', path)
      }
    }
  }

  /** As `rm -rf`: removes the file or the whole tree at path; a missing path is fine. */
  async rmdir(path: string): Promise<void> {
    const parts = this.parts(path)
    if (parts.length === 0) {
      const names = [...this.root.entries.keys()]
      this.root.entries.clear()
      this.dirChanged(this.root, names)
      return
    }
    const node = this.lookup(path, 'rm')
    if (node === undefined) return
    const dir = this.parentOf(parts, 'rm', path)
    dir.entries.delete(parts[parts.length - 1]!)
    dir.mtimeMs = this.now()
    this.dirChanged(dir, [parts[parts.length - 1]!])
  }

  /** The names in a directory, sorted. */
  async readdir(path: string): Promise<string[]> {
    const node = this.lookup(path, 'scandir')
    if (node === undefined) throw fsError('ENOENT', 'scandir', path)
    if (node.kind !== 'dir') throw fsError('ENOTDIR', 'scandir', path)
    return [...node.entries.keys()].sort()
  }

  async stat(path: string): Promise<{ size: number; isDirectory: boolean; mtimeMs: number } | null> {
    const node = this.lookup(path, 'stat')
    if (node === undefined) return null
    return { size: node.kind === 'file' ? node.size : 0, isDirectory: node.kind === 'dir', mtimeMs: node.mtimeMs }
  }

  async syncDir(path: string): Promise<void> {
    const node = this.lookup(path, 'open')
    if (node === undefined) throw fsError('ENOENT', 'open', path)
    if (node.kind === 'dir') this.dirSynced(node)
    else this.fileSynced(node)
  }

  /** Files, directories and bytes held, and handles still open. */
  usage(): MemoryFsUsage {
    const u: MemoryFsUsage = { files: 0, directories: 0, bytes: 0, openHandles: this.openHandles }
    const walk = (dir: DirNode) => {
      for (const n of dir.entries.values()) {
        if (n.kind === 'dir') {
          u.directories++
          walk(n)
        } else {
          u.files++
          u.bytes += n.size
        }
      }
    }
    walk(this.root)
    return u
  }

  /** Forgets every file and directory; handles still open keep their own file until closed. */
  clear(): void {
    this.root = new DirNode(this.now())
  }
}
