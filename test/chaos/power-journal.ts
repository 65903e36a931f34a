// A power cut for the chaos nemesis's `power` fault: a broker killed with kill -9 loses, besides its
// memory, what it wrote to files and did not fsync, as a machine that lost power would.
//
// How: the broker's FaultyFs (faulty-fs.ts) keeps a journal, a file of its own, of what a power
// cut would keep of each file it writes: a file that existed when the broker started keeps its
// size then (everything on the disk at a start is durable: the disk was just mounted); a file it
// creates keeps nothing; an fsync keeps the size the file had when the fsync was asked for (written
// to the journal before the fsync, so a cut during one keeps its bytes: a disk may keep more than
// was synced, never less). Renames and unlinks carry the record along. After the kill, cutPower()
// truncates every file the journal names back to that size.
//
// The crash state this gives is one of those POSIX allows (crash-fs.ts models them all, in memory):
// the appends since the last fsync are lost (a log's unflushed tail — Kafka's whole exposure to a
// power cut), while writes in place, truncations and directory changes are kept, as a disk that
// wrote them back before the power went may. The journal is written synchronously: the broker
// cannot be killed between a change and its record.
import { appendFileSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs'

/** The environment variable naming a broker's journal (faulty-broker-main.ts). */
export const POWER_JOURNAL_ENV = 'TRIBUTARY_POWER_JOURNAL'

type Entry = ['base', string, number] | ['create', string] | ['sync', string, number] | ['rename', string, string] | ['unlink', string]

export class PowerJournal {
  /** Paths whose durable size the journal already gives, in this incarnation. */
  private readonly known = new Set<string>()

  /** Starts the journal of a new incarnation: what is on the disk now is all durable. */
  constructor(private readonly file: string) {
    writeFileSync(file, '')
  }

  /** Before a file is opened for writing: its size now is what a cut keeps, until an fsync. */
  opening(path: string, existingSize: number | undefined): void {
    if (this.known.has(path)) return
    this.known.add(path)
    this.write(existingSize === undefined ? ['create', path] : ['base', path, existingSize])
  }

  /** Before an fsync of a file of `size` bytes. */
  syncing(path: string, size: number): void {
    this.known.add(path)
    this.write(['sync', path, size])
  }

  renamed(from: string, to: string): void {
    if (this.known.delete(from)) this.known.add(to)
    else this.known.delete(to)
    this.write(['rename', from, to])
  }

  unlinked(path: string): void {
    this.known.delete(path)
    this.write(['unlink', path])
  }

  private write(e: Entry): void {
    appendFileSync(this.file, `${JSON.stringify(e)}\n`)
  }
}

/** What a cut keeps of each file the journal names: its durable size. */
export function durableSizes(journal: string): Map<string, number> {
  const sizes = new Map<string, number>()
  for (const line of journal.split('\n')) {
    if (line === '') continue
    let e: Entry
    try {
      e = JSON.parse(line) as Entry
    } catch {
      continue // a line cut by the kill: nothing was done after it
    }
    if (e[0] === 'base' || e[0] === 'sync') sizes.set(e[1], e[2])
    else if (e[0] === 'create') sizes.set(e[1], 0)
    else if (e[0] === 'unlink') sizes.delete(e[1])
    else {
      const s = sizes.get(e[1])
      sizes.delete(e[1])
      // A file never written here keeps all it has, under its new name too.
      if (s === undefined) sizes.delete(e[2])
      else sizes.set(e[2], s)
    }
  }
  return sizes
}

export interface PowerCut {
  /** Files cut back, and the bytes they lost. */
  files: number
  bytes: number
}

/** After the broker was killed: truncates each file of the journal to what the cut keeps. */
export function cutPower(journalFile: string): PowerCut {
  const cut: PowerCut = { files: 0, bytes: 0 }
  let text = ''
  try {
    text = readFileSync(journalFile, 'utf8')
  } catch {
    return cut // the broker never wrote one: nothing to lose
  }
  for (const [path, durable] of durableSizes(text)) {
    let size: number
    try {
      size = statSync(path).size
    } catch {
      continue // gone (a directory deleted with it)
    }
    if (size <= durable) continue
    truncateSync(path, durable)
    cut.files++
    cut.bytes += size - durable
  }
  return cut
}
