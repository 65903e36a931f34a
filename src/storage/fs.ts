// The Fs port: every byte the storage layer reads or writes goes through here (docs/architecture.md §1.8), so
// tests can inject disk faults (ENOSPC, torn writes, lost unsynced data, slow fsync).
import { readSync, writeSync, writevSync } from 'node:fs'
import * as fsp from 'node:fs/promises'

export interface FileHandle {
  /** Reads up to length bytes at position into buffer[offset..]; returns the bytes read. */
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<number>
  /** Writes all of buffer at position (null = append at the end for files opened with 'a'). */
  write(buffer: Buffer, position: number | null): Promise<void>
  /** Writes the buffers in order, as one contiguous write at position (null = current end). */
  writev(buffers: Buffer[], position: number | null): Promise<void>
  truncate(length: number): Promise<void>
  sync(): Promise<void>
  size(): Promise<number>
  close(): Promise<void>
}

export type OpenMode = 'r' | 'r+' | 'w' | 'w+' | 'a' | 'a+'

export interface Fs {
  open(path: string, mode: OpenMode): Promise<FileHandle>
  readFile(path: string): Promise<Buffer>
  rename(from: string, to: string): Promise<void>
  unlink(path: string): Promise<void>
  mkdir(path: string): Promise<void>
  rmdir(path: string): Promise<void>
  readdir(path: string): Promise<string[]>
  stat(path: string): Promise<{ size: number; isDirectory: boolean; mtimeMs: number } | null>
  /** fsync a directory so a rename or create inside it is durable. */
  syncDir(path: string): Promise<void>
}

/**
 * Reads and writes smaller than this are made as synchronous positional calls on the descriptor
 * (pread/pwrite/pwritev), larger ones through libuv's thread pool. On the 2-core machine the
 * benchmarks run on, the thread-pool hop costs ~90 µs of CPU per call: a 16 KiB page-cache read
 * took 93 µs that way and 3 µs directly, a 16 KiB append 104 µs and 11 µs (1 GiB in 16 KiB calls:
 * 6.8 s against 0.7 s), so the small calls — a produce request's batches for one partition, an
 * index entry's batch, a fetch at the log end — are far cheaper made directly, as Kafka's request
 * threads make them. From a quarter of a megabyte on, the copy costs more than the hop (a 1 MiB
 * read: 0.70 ms through the pool, 0.60 ms directly) and the pool makes it on the other core while
 * the event loop carries on: a consumer's 1 MiB-per-partition fetches were 15 % slower with every
 * read made directly. The price of the direct calls is that one the page cache cannot serve, or a
 * write the kernel throttles, holds the event loop for the disk's latency.
 */
export const DIRECT_IO_MAX_BYTES = 256 * 1024

/** Node's file handle; segment-sized reads and writes as DIRECT_IO_MAX_BYTES says. */
class NodeFileHandle implements FileHandle {
  constructor(private readonly fh: fsp.FileHandle) {}

  async read(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    if (length >= DIRECT_IO_MAX_BYTES) return (await this.fh.read(buffer, offset, length, position)).bytesRead
    return readSync(this.fh.fd, buffer, offset, length, position)
  }

  async write(buffer: Buffer, position: number | null): Promise<void> {
    let done = 0
    while (done < buffer.length) {
      const at = position === null ? null : position + done
      const length = buffer.length - done
      if (length >= DIRECT_IO_MAX_BYTES) done += (await this.fh.write(buffer, done, length, at)).bytesWritten
      else done += writeSync(this.fh.fd, buffer, done, length, at)
    }
  }

  async writev(buffers: Buffer[], position: number | null): Promise<void> {
    if (buffers.length === 1) return this.write(buffers[0]!, position)
    let total = 0
    for (const b of buffers) total += b.length
    const bytesWritten =
      total >= DIRECT_IO_MAX_BYTES
        ? (await this.fh.writev(buffers, position ?? undefined)).bytesWritten
        : writevSync(this.fh.fd, buffers, position ?? undefined)
    if (bytesWritten < total) {
      // Short write: finish the rest as one contiguous buffer.
      const rest = Buffer.concat(buffers).subarray(bytesWritten)
      await this.write(rest, position === null ? null : position + bytesWritten)
    }
  }

  truncate(length: number): Promise<void> {
    return this.fh.truncate(length)
  }

  sync(): Promise<void> {
    return this.fh.sync()
  }

  async size(): Promise<number> {
    return (await this.fh.stat()).size
  }

  close(): Promise<void> {
    return this.fh.close()
  }
}

export const nodeFs: Fs = {
  async open(path, mode) {
    return new NodeFileHandle(await fsp.open(path, mode))
  },
  readFile: (path) => fsp.readFile(path),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (path) => fsp.unlink(path),
  async mkdir(path) {
    await fsp.mkdir(path, { recursive: true })
  },
  rmdir: (path) => fsp.rm(path, { recursive: true, force: true }),
  readdir: (path) => fsp.readdir(path),
  async stat(path) {
    try {
      const s = await fsp.stat(path)
      return { size: s.size, isDirectory: s.isDirectory(), mtimeMs: s.mtimeMs }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw err
    }
  },
  async syncDir(path) {
    const fh = await fsp.open(path, 'r')
    try {
      await fh.sync()
    } finally {
      await fh.close()
    }
  },
}
