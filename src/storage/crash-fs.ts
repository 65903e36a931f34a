// A MemoryFs that remembers what a power cut would keep, for crash tests: crash() throws away
// every change that was not made durable and remounts what is left, as a machine that lost power
// and booted again. The model is Linux ext4's (data=ordered) reduced to the guarantees POSIX
// programs may rely on, and nothing more:
//   - file contents and size (writes, truncations, the truncation of an open with 'w') are durable
//     once fsync'd through any handle on the file: sync() makes every earlier change of that inode
//     durable; the changes since stay pending;
//   - a directory entry (a file or directory created, a name renamed, unlinked or removed) is
//     durable once its directory is fsync'd (syncDir, or sync() on a handle opened on it). A new
//     file whose data was fsync'd but whose directory was not is lost with its name; a file
//     unlinked without a directory fsync comes back, with its durable contents;
//   - a rename within one directory is one atomic change: after a crash the old name or the new
//     one, never both or neither. Across two directories it is a change in each, durable with each
//     directory's fsync (as on Linux, where both directories need one);
//   - nothing is ever durable without an fsync (a disk may keep more, never less — see below).
// crash() keeps the durable state only. crash(seed) also lets, per file and per directory, a
// random prefix of the pending changes through, in their order, the last one of a file possibly
// torn (a random prefix of its bytes): the writeback a disk may have made before the power went,
// as an fsync-less disk or a write cut in the middle leaves. The same seed gives the same disk.
// After a crash the Fs is a freshly mounted disk: every handle opened before fails with EBADF,
// the open-handle count restarts at zero, and everything on it counts as durable.
//
// What it does not model: metadata ordering across directories (ext4 commits its journal in
// order, so a later change never survives an earlier one in another directory; here it may), and
// bit rot or reordering within one file's pending writes. Both only make crashes harsher.
import { DirNode, FileNode, MemoryFs, type Node } from './memory-fs.js'
import { seededRandom } from '../util/seeded-random.js'

/** A pending change of a file: a write of data at position, or a truncation to length. */
type FileChange = { position: number; data: Buffer } | { length: number }

interface FileState {
  /** What the disk holds (a shadow inode). */
  durable: FileNode
  pending: FileChange[]
}

/** A pending change of a directory: names set (to a node) or removed (undefined), atomically. */
type DirChange = Array<readonly [string, Node | undefined]>

interface DirState {
  durable: Map<string, Node>
  pending: DirChange[]
}

function applyFileChange(node: FileNode, change: FileChange, mtimeMs: number): void {
  if ('data' in change) node.writeAt([change.data], change.position, 'write', '', mtimeMs)
  else node.truncate(change.length, '', mtimeMs)
}

function cloneFile(src: FileNode): FileNode {
  const copy = new FileNode(src.mtimeMs)
  if (src.size > 0) copy.writeAt([src.data.subarray(0, src.size)], 0, 'write', '', src.mtimeMs)
  return copy
}

export class CrashFs extends MemoryFs {
  private files = new WeakMap<FileNode, FileState>()
  private dirs = new WeakMap<DirNode, DirState>()
  /** How many times crash() ran. */
  crashes = 0

  private fileState(file: FileNode): FileState {
    let st = this.files.get(file)
    if (!st) {
      // Every file of this Fs starts empty (created here, or durable as a whole after a remount).
      st = { durable: new FileNode(file.mtimeMs), pending: [] }
      this.files.set(file, st)
    }
    return st
  }

  private dirState(dir: DirNode): DirState {
    let st = this.dirs.get(dir)
    if (!st) {
      st = { durable: new Map(), pending: [] }
      this.dirs.set(dir, st)
    }
    return st
  }

  override fileWritten(file: FileNode, position: number, buffers: readonly Buffer[]): void {
    // A copy: callers reuse their buffers.
    this.fileState(file).pending.push({ position, data: Buffer.concat(buffers as Buffer[]) })
  }

  override fileTruncated(file: FileNode, length: number): void {
    this.fileState(file).pending.push({ length })
  }

  override fileSynced(file: FileNode): void {
    const st = this.fileState(file)
    for (const c of st.pending) applyFileChange(st.durable, c, file.mtimeMs)
    st.pending = []
  }

  override dirChanged(dir: DirNode, names: readonly string[]): void {
    this.dirState(dir).pending.push(names.map((n) => [n, dir.entries.get(n)] as const))
  }

  override dirSynced(dir: DirNode): void {
    const st = this.dirState(dir)
    st.durable = new Map(dir.entries)
    st.pending = []
  }

  /** Pending (not yet durable) changes of files and directories reachable now. */
  pendingChanges(): number {
    let n = 0
    const walk = (dir: DirNode) => {
      n += this.dirs.get(dir)?.pending.length ?? 0
      for (const child of dir.entries.values()) {
        if (child.kind === 'dir') walk(child)
        else n += this.files.get(child)?.pending.length ?? 0
      }
    }
    walk(this.root)
    return n
  }

  /**
   * Power cut and remount: keeps what was durable (and, with a seed, a random prefix of each
   * file's and directory's pending changes, a file's last one possibly torn). Handles die.
   */
  crash(seed?: number): void {
    const random = seed === undefined ? null : seededRandom(seed)
    /** How many of n pending changes reach the disk. */
    const kept = (n: number) => (random === null || n === 0 ? 0 : Math.floor(random() * (n + 1)))
    const remounted = new Map<Node, Node>()
    const remount = (node: Node): Node => {
      const done = remounted.get(node)
      if (done) return done
      if (node.kind === 'file') {
        const st = this.files.get(node)
        const fresh = st ? cloneFile(st.durable) : new FileNode(node.mtimeMs)
        remounted.set(node, fresh)
        const changes = st ? st.pending.slice(0, kept(st.pending.length)) : []
        for (let i = 0; i < changes.length; i++) {
          let c = changes[i]!
          // The last change written back may be cut short: half of the time, at a random byte.
          if (i === changes.length - 1 && 'data' in c && random !== null && random() < 0.5) {
            c = { position: c.position, data: c.data.subarray(0, Math.floor(random() * (c.data.length + 1))) }
          }
          applyFileChange(fresh, c, node.mtimeMs)
        }
        return fresh
      }
      const st = this.dirs.get(node)
      const entries = new Map(st?.durable ?? [])
      for (const change of st ? st.pending.slice(0, kept(st.pending.length)) : []) {
        for (const [name, child] of change) {
          if (child === undefined) entries.delete(name)
          else entries.set(name, child)
        }
      }
      const fresh = new DirNode(node.mtimeMs)
      remounted.set(node, fresh)
      for (const [name, child] of entries) fresh.entries.set(name, remount(child))
      return fresh
    }
    this.root = remount(this.root) as DirNode
    // The new disk is durable as it stands.
    this.files = new WeakMap()
    this.dirs = new WeakMap()
    for (const node of new Set(remounted.values())) {
      if (node.kind === 'file') this.files.set(node, { durable: cloneFile(node), pending: [] })
      else this.dirs.set(node, { durable: new Map(node.entries), pending: [] })
    }
    this.openHandles = 0
    this.mountGeneration++
    this.crashes++
  }

  /** Forgets everything, durable state included (a blank disk). */
  override clear(): void {
    super.clear()
    this.files = new WeakMap()
    this.dirs = new WeakMap()
  }
}
