// Producer state snapshots: `<offset>.snapshot` in the partition directory (20-digit offset, as the
// segments), the producers' state as of that log offset (everything below it applied). The format is
// Kafka's (ProducerStateManager.writeSnapshot / readSnapshot, the ProducerSnapshot message v1), so a
// log directory moves between Kafka and Tributary. Big-endian:
//   version   int16   1
//   crc       uint32  CRC-32C of every byte after this field
//   count     int32   producer entries, then per entry (46 bytes):
//     producerId int64, epoch int16, lastSequence int32, lastOffset int64 (-1: no batch),
//     offsetDelta int32 (of the last batch), timestamp int64 (its max timestamp),
//     coordinatorEpoch int32, currentTxnFirstOffset int64 (-1: no open transaction)
// Only the last batch of each producer is kept (as Kafka): after a restart a retry of an older one
// of the 5 is out of order rather than a duplicate.
//
// Crash: written temp → fsync → rename → fsync(dir) (checkpoint-file.ts), so a snapshot is whole or
// absent; a snapshot that does not decode or fails its CRC is deleted and the state is rebuilt from
// an older one and the log (Kafka does the same, CorruptSnapshotException).
import { crc32c } from '../protocol/records/crc32c.js'
import { readInt64, writeInt64 } from '../protocol/records/batch.js'
import { writeFileAtomic } from './checkpoint-file.js'
import type { Fs } from './fs.js'
import { unlinkIfExists } from './index-file.js'
import type { ProducerEntry } from './producer-state.js'

export const SNAPSHOT_SUFFIX = '.snapshot'
const SNAPSHOT_FILE = /^(\d{20})\.snapshot$/
const VERSION = 1
const CRC_OFFSET = 2
const ENTRIES_OFFSET = 6
const ENTRY_BYTES = 46

export class CorruptSnapshotError extends Error {
  constructor(why: string) {
    super(`corrupt producer snapshot: ${why}`)
    this.name = 'CorruptSnapshotError'
  }
}

export function snapshotFileName(offset: number): string {
  return `${String(offset).padStart(20, '0')}${SNAPSHOT_SUFFIX}`
}

/** The snapshot offsets among a directory's file names, ascending. */
export function snapshotOffsets(names: readonly string[]): number[] {
  const out: number[] = []
  for (const n of names) {
    const m = SNAPSHOT_FILE.exec(n)
    if (m) out.push(Number(m[1]))
  }
  return out.sort((a, b) => a - b)
}

export function encodeSnapshot(entries: readonly ProducerEntry[]): Buffer {
  const buf = Buffer.alloc(ENTRIES_OFFSET + 4 + entries.length * ENTRY_BYTES)
  buf.writeInt16BE(VERSION, 0)
  buf.writeInt32BE(entries.length, ENTRIES_OFFSET)
  let p = ENTRIES_OFFSET + 4
  for (const e of entries) {
    const last = e.batches[e.batches.length - 1]
    writeInt64(buf, e.producerId, p)
    buf.writeInt16BE(e.epoch, p + 8)
    buf.writeInt32BE(last ? last.lastSeq : -1, p + 10)
    writeInt64(buf, last ? last.lastOffset : -1, p + 14)
    buf.writeInt32BE(last ? last.offsetDelta : 0, p + 22)
    writeInt64(buf, e.lastTimestamp, p + 26)
    buf.writeInt32BE(e.coordinatorEpoch, p + 34)
    writeInt64(buf, e.currentTxnFirstOffset, p + 38)
    p += ENTRY_BYTES
  }
  buf.writeUInt32BE(crc32c(buf.subarray(ENTRIES_OFFSET)), CRC_OFFSET)
  return buf
}

/** The entries of a snapshot; throws CorruptSnapshotError when it does not decode or fails its CRC. */
export function decodeSnapshot(buf: Buffer): ProducerEntry[] {
  if (buf.length < ENTRIES_OFFSET + 4) throw new CorruptSnapshotError(`${buf.length} bytes`)
  const version = buf.readInt16BE(0)
  if (version !== VERSION) throw new CorruptSnapshotError(`unknown version ${version}`)
  const count = buf.readInt32BE(ENTRIES_OFFSET)
  if (count < 0 || count !== (buf.length - ENTRIES_OFFSET - 4) / ENTRY_BYTES) {
    throw new CorruptSnapshotError(`${count} entries in ${buf.length} bytes`)
  }
  const stored = buf.readUInt32BE(CRC_OFFSET)
  const computed = crc32c(buf.subarray(ENTRIES_OFFSET))
  if (stored !== computed) throw new CorruptSnapshotError(`stored CRC ${stored}, computed ${computed}`)
  const out: ProducerEntry[] = []
  let p = ENTRIES_OFFSET + 4
  try {
    for (let i = 0; i < count; i++) {
      const lastSeq = buf.readInt32BE(p + 10)
      const lastOffset = readInt64(buf, p + 14)
      const offsetDelta = buf.readInt32BE(p + 22)
      const timestamp = readInt64(buf, p + 26)
      out.push({
        producerId: readInt64(buf, p),
        epoch: buf.readInt16BE(p + 8),
        lastTimestamp: timestamp,
        coordinatorEpoch: buf.readInt32BE(p + 34),
        currentTxnFirstOffset: readInt64(buf, p + 38),
        batches: lastOffset >= 0 ? [{ lastSeq, lastOffset, offsetDelta, timestamp }] : [],
      })
      p += ENTRY_BYTES
    }
  } catch (err) {
    throw new CorruptSnapshotError((err as Error).message)
  }
  return out
}

export function writeSnapshot(fs: Fs, dir: string, offset: number, data: Buffer): Promise<void> {
  return writeFileAtomic(fs, `${dir}/${snapshotFileName(offset)}`, data)
}

export function deleteSnapshot(fs: Fs, dir: string, offset: number): Promise<void> {
  return unlinkIfExists(fs, `${dir}/${snapshotFileName(offset)}`)
}
