// Kafka's checkpoint text files: a version line, a count line, then one entry per line —
//   recovery-point-offset-checkpoint, log-start-offset-checkpoint (in the log dir):
//     0\n<count>\n<topic> <partition> <offset>\n...
//   leader-epoch-checkpoint (in a partition dir):
//     0\n<count>\n<epoch> <startOffset>\n...
// Crash: files are replaced atomically — written to `<name>.tmp`, fsynced, renamed over the old
// file, then the directory is fsynced (docs/architecture.md §3) — so a reader sees the old or the new content,
// never a mix. A leftover .tmp is ignored (and overwritten by the next write).
import { dirname } from 'node:path'
import type { Fs } from './fs.js'

/** Writes data to path atomically and durably: temp → fsync → rename → fsync(dir). */
export async function writeFileAtomic(fs: Fs, path: string, data: string | Buffer): Promise<void> {
  const tmp = `${path}.tmp`
  const fh = await fs.open(tmp, 'w')
  try {
    await fh.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data, 0)
    await fh.sync()
  } finally {
    await fh.close()
  }
  await fs.rename(tmp, path)
  await fs.syncDir(dirname(path))
}

/** Reads a whole file, or null when it does not exist. */
export async function readFileIfExists(fs: Fs, path: string): Promise<Buffer | null> {
  try {
    return await fs.readFile(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
}

export class CorruptCheckpointError extends Error {
  constructor(path: string, why: string) {
    super(`malformed checkpoint file ${path}: ${why}`)
    this.name = 'CorruptCheckpointError'
  }
}

export interface CheckpointFormat<T> {
  toLine(entry: T): string
  /** The entry of a line, or null when the line is malformed. */
  fromLine(line: string): T | null
}

export class CheckpointFile<T> {
  constructor(
    private readonly fs: Fs,
    readonly path: string,
    private readonly format: CheckpointFormat<T>,
    private readonly version = 0,
  ) {}

  async write(entries: readonly T[]): Promise<void> {
    let text = `${this.version}\n${entries.length}\n`
    for (const e of entries) text += `${this.format.toLine(e)}\n`
    await writeFileAtomic(this.fs, this.path, text)
  }

  /** The entries; [] when the file does not exist; throws CorruptCheckpointError when malformed. */
  async read(): Promise<T[]> {
    const buf = await readFileIfExists(this.fs, this.path)
    if (buf === null) return []
    const lines = buf.toString('utf8').split('\n')
    if (lines[lines.length - 1] === '') lines.pop()
    if (lines.length < 2) throw new CorruptCheckpointError(this.path, 'missing version or count')
    if (lines[0]!.trim() !== String(this.version)) {
      throw new CorruptCheckpointError(this.path, `unsupported version ${lines[0]}`)
    }
    const count = Number(lines[1]!.trim())
    if (!Number.isSafeInteger(count) || count < 0 || count !== lines.length - 2) {
      throw new CorruptCheckpointError(this.path, `count ${lines[1]} does not match ${lines.length - 2} entries`)
    }
    const out: T[] = []
    for (let i = 2; i < lines.length; i++) {
      const e = this.format.fromLine(lines[i]!)
      if (e === null) throw new CorruptCheckpointError(this.path, `bad line ${i + 1}: ${lines[i]}`)
      out.push(e)
    }
    return out
  }
}

function parseOffset(s: string | undefined): number | null {
  if (s === undefined || !/^-?\d+$/.test(s)) return null
  const n = Number(s)
  return Number.isSafeInteger(n) ? n : null
}

export interface TopicPartitionOffset {
  topic: string
  partition: number
  offset: number
}

export const topicPartitionOffsetFormat: CheckpointFormat<TopicPartitionOffset> = {
  toLine: (e) => `${e.topic} ${e.partition} ${e.offset}`,
  fromLine(line) {
    const parts = line.trim().split(/\s+/)
    if (parts.length !== 3 || parts[0] === '') return null
    const partition = parseOffset(parts[1])
    const offset = parseOffset(parts[2])
    if (partition === null || partition < 0 || offset === null) return null
    return { topic: parts[0]!, partition, offset }
  },
}

export interface EpochEntry {
  epoch: number
  startOffset: number
}

export const epochEntryFormat: CheckpointFormat<EpochEntry> = {
  toLine: (e) => `${e.epoch} ${e.startOffset}`,
  fromLine(line) {
    const parts = line.trim().split(/\s+/)
    if (parts.length !== 2) return null
    const epoch = parseOffset(parts[0])
    const startOffset = parseOffset(parts[1])
    if (epoch === null || startOffset === null || epoch < 0 || startOffset < 0) return null
    return { epoch, startOffset }
  },
}

/** The key a partition goes by in maps and directory names: `<topic>-<partition>`. */
export function topicPartitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`
}

/** An offset checkpoint as a map keyed by topicPartitionKey. */
export async function readOffsetCheckpoint(fs: Fs, path: string): Promise<Map<string, number>> {
  const entries = await new CheckpointFile(fs, path, topicPartitionOffsetFormat).read()
  return new Map(entries.map((e) => [topicPartitionKey(e.topic, e.partition), e.offset]))
}

export function writeOffsetCheckpoint(fs: Fs, path: string, entries: readonly TopicPartitionOffset[]): Promise<void> {
  return new CheckpointFile(fs, path, topicPartitionOffsetFormat).write(entries)
}
