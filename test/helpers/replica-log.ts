// Reading a replica's partition log straight from its files, to compare replicas byte for byte —
// the check behind "every acknowledged write is on every in-sync replica, at the same offset"
// (docs/architecture.md §1.6, §3 Durability). Read only the data dir of a STOPPED broker: a running one appends
// and rolls segments while we read.
//
// Layout (docs/architecture.md §1.3): `<dataDir>/<topic>-<partition>/<20-digit base offset>.log` segments of
// record batches v2, stored as the producer sent them with only baseOffset and
// partitionLeaderEpoch patched. Batch header fields used here:
//   baseOffset int64 @0 | batchLength int32 @8 | partitionLeaderEpoch int32 @12 | magic int8 @16 |
//   crc uint32 @17 (CRC-32C of bytes 21..end) | attributes int16 @21 | lastOffsetDelta int32 @23 | …
// A kill -9 can leave a torn tail (a partial or unsynced batch) at the end of the last segment; the
// broker truncates it at recovery, so the reader stops there too. Invalid bytes anywhere else are
// corruption and are thrown, not skipped.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  BATCH_HEADER_SIZE,
  BATCH_LENGTH_OFFSET,
  batchCrcMatches,
  CURRENT_MAGIC,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MIN_BATCH_LENGTH,
  PARTITION_LEADER_EPOCH_OFFSET,
} from '../../src/protocol/records/batch.js'
import { iterateRecords } from '../../src/protocol/records/iterator.js'

export interface LogBatch {
  baseOffset: number
  lastOffset: number
  partitionLeaderEpoch: number
  /** The whole batch as stored (header included). */
  bytes: Buffer
}

const SEGMENT_RE = /^(\d{20})\.log$/

/** Why the bytes at buf[pos] are not a complete, valid batch; undefined when they are. */
function invalidBatchAt(buf: Buffer, pos: number): string | undefined {
  const remaining = buf.length - pos
  if (remaining < BATCH_HEADER_SIZE) return `${remaining} trailing bytes, less than a batch header`
  const batchLength = buf.readInt32BE(pos + BATCH_LENGTH_OFFSET)
  if (batchLength < MIN_BATCH_LENGTH) return `batch length ${batchLength}`
  if (LOG_OVERHEAD + batchLength > remaining) return `batch of ${LOG_OVERHEAD + batchLength} bytes with ${remaining} left in the file`
  if (buf.readInt8(pos + MAGIC_OFFSET) !== CURRENT_MAGIC) return `magic ${buf.readInt8(pos + MAGIC_OFFSET)}`
  if (!batchCrcMatches(buf, pos, LOG_OVERHEAD + batchLength)) return 'CRC mismatch'
  return undefined
}

/**
 * The record batches of one partition as a broker stored them, in offset order, up to a torn tail
 * of the last segment. A partition directory that does not exist yields [] (a replica that never
 * received anything).
 */
export function readPartitionLog(dataDir: string, topic: string, partition: number): LogBatch[] {
  const dir = join(dataDir, `${topic}-${partition}`)
  if (!existsSync(dir)) return []
  const segments = readdirSync(dir)
    .map((name) => SEGMENT_RE.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[0], baseOffset: Number(m[1]) }))
    .sort((a, b) => a.baseOffset - b.baseOffset)
  const batches: LogBatch[] = []
  segments.forEach((seg, i) => {
    const buf = readFileSync(join(dir, seg.name))
    let pos = 0
    while (pos < buf.length) {
      const why = invalidBatchAt(buf, pos)
      if (why !== undefined) {
        if (i === segments.length - 1) break // torn tail: what recovery truncates
        throw new Error(`${join(dir, seg.name)}: invalid batch at byte ${pos} of a segment that is not the last (${why})`)
      }
      const size = LOG_OVERHEAD + buf.readInt32BE(pos + BATCH_LENGTH_OFFSET)
      const bytes = Buffer.from(buf.subarray(pos, pos + size))
      const baseOffset = Number(bytes.readBigInt64BE(0))
      batches.push({
        baseOffset,
        lastOffset: baseOffset + bytes.readInt32BE(LAST_OFFSET_DELTA_OFFSET),
        partitionLeaderEpoch: bytes.readInt32BE(PARTITION_LEADER_EPOCH_OFFSET),
        bytes,
      })
      pos += size
    }
  })
  return batches
}

/** Names of the batch header fields by byte position, to say where two copies of a batch differ. */
const HEADER_FIELDS: Array<[end: number, name: string]> = [
  [8, 'baseOffset'],
  [12, 'batchLength'],
  [16, 'partitionLeaderEpoch'],
  [17, 'magic'],
  [21, 'crc'],
  [23, 'attributes'],
  [27, 'lastOffsetDelta'],
  [35, 'baseTimestamp'],
  [43, 'maxTimestamp'],
  [51, 'producerId'],
  [53, 'producerEpoch'],
  [57, 'baseSequence'],
  [61, 'recordCount'],
]

function fieldAt(byte: number): string {
  return HEADER_FIELDS.find(([end]) => byte < end)?.[1] ?? 'records'
}

const span = (b: LogBatch) => `offsets ${b.baseOffset}..${b.lastOffset}`

function firstDifference(refId: number, ref: LogBatch[], id: number, other: LogBatch[]): string | undefined {
  for (let i = 0; i < Math.max(ref.length, other.length); i++) {
    const a = ref[i]
    const b = other[i]
    if (!a) return `broker ${id} holds a batch at ${span(b!)} that broker ${refId} does not have (batch #${i})`
    if (!b) return `broker ${id} lacks the batch at ${span(a)} that broker ${refId} holds (batch #${i})`
    if (a.baseOffset !== b.baseOffset || a.lastOffset !== b.lastOffset) {
      return `batch #${i}: broker ${refId} holds ${span(a)}, broker ${id} holds ${span(b)}`
    }
    if (!a.bytes.equals(b.bytes)) {
      const len = Math.min(a.bytes.length, b.bytes.length)
      let k = 0
      while (k < len && a.bytes[k] === b.bytes[k]) k++
      const where = k < len ? `first at byte ${k} (${fieldAt(k)})` : `in length (${a.bytes.length} vs ${b.bytes.length} bytes)`
      return (
        `batch at ${span(a)} differs between broker ${refId} and broker ${id}, ${where}` +
        ` (partitionLeaderEpoch ${a.partitionLeaderEpoch} vs ${b.partitionLeaderEpoch})`
      )
    }
  }
  return undefined
}

/**
 * Compares replicas of one partition: every batch whose lastOffset < upTo (usually the high
 * watermark, or the last acknowledged offset + 1) must be the same on every broker, byte for byte,
 * and no broker may miss one. Returns null when they agree, else a description of the first
 * difference (against the lowest broker id). Batches at or past upTo may legitimately differ (a
 * follower still catching up, an unacknowledged tail about to be truncated).
 */
export function compareReplicas(logs: ReadonlyMap<number, LogBatch[]>, upTo: number): string | null {
  const ids = [...logs.keys()].sort((a, b) => a - b)
  if (ids.length < 2) return null
  const below = (id: number) => logs.get(id)!.filter((b) => b.lastOffset < upTo)
  const refId = ids[0]!
  const ref = below(refId)
  for (const id of ids.slice(1)) {
    const diff = firstDifference(refId, ref, id, below(id))
    if (diff !== undefined) return `replicas differ below offset ${upTo}: ${diff}`
  }
  return null
}

export interface LogRecord {
  offset: number
  /** utf8 of the key and value; null for a null key or value. */
  key: string | null
  value: string | null
  partitionLeaderEpoch: number
}

/** The records of the batches (compressed ones too), in offset order. */
export function recordsOf(batches: readonly LogBatch[]): LogRecord[] {
  const out: LogRecord[] = []
  for (const b of batches) {
    for (const r of iterateRecords(b.bytes, 0)) {
      out.push({
        offset: r.offset,
        key: r.key === null ? null : r.key.toString('utf8'),
        value: r.value === null ? null : r.value.toString('utf8'),
        partitionLeaderEpoch: b.partitionLeaderEpoch,
      })
    }
  }
  return out
}

export interface OffsetConflict {
  offset: number
  /** The value each broker holds at that offset. */
  values: Record<number, string | null>
}

/**
 * Offsets at which two replicas hold different records (by value) — over all the records each holds,
 * whatever the high watermark. An empty list means no offset was ever given two meanings.
 */
export function offsetConflicts(logs: ReadonlyMap<number, LogBatch[]>): OffsetConflict[] {
  const byOffset = new Map<number, Map<number, string | null>>()
  for (const [id, batches] of logs) {
    for (const r of recordsOf(batches)) {
      let at = byOffset.get(r.offset)
      if (!at) byOffset.set(r.offset, (at = new Map()))
      at.set(id, r.value)
    }
  }
  const conflicts: OffsetConflict[] = []
  for (const [offset, at] of [...byOffset].sort((a, b) => a[0] - b[0])) {
    if (new Set(at.values()).size > 1) conflicts.push({ offset, values: Object.fromEntries(at) })
  }
  return conflicts
}
