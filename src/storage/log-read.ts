// Reading a log: whole batches from the one holding an offset, across segments (PartitionLog.read).
//
// Batches emptied by the cleaner (it keeps a cleaned segment's last batch, see cleaner/) are
// skipped when a batch with records follows below maxOffset: clients that move by record offsets
// (kafkajs) would otherwise fetch the same offset forever. With nothing after them they are served,
// so clients that move by batch offsets (Java, librdkafka) reach the end.
import type { KafkaError } from '../protocol/errors.js'
import {
  BATCH_HEADER_SIZE,
  BATCH_LENGTH_OFFSET,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  RECORD_COUNT_OFFSET,
  readInt64,
} from '../protocol/records/batch.js'
import { floorSegmentIndex, type LogSegment } from './segment.js'

const EMPTY: Buffer = Buffer.alloc(0)

/**
 * The records from `startOffset` (≥ the first segment's base, < the log end): up to maxBytes, but at
 * least the first batch when minOneBatch, never a batch whose base offset ≥ maxOffset, within one
 * segment (plus emptied batches before it). `gone` makes the error for a segment deleted under the
 * read (its offsets are below the log start now).
 */
export async function readSegments(
  segs: readonly LogSegment[],
  startOffset: number,
  maxBytes: number,
  maxOffset: number,
  minOneBatch: boolean,
  gone: (detail: string) => KafkaError,
): Promise<Buffer> {
  // Below the first segment: its segments were deleted after this read checked the log start.
  if (startOffset < segs[0]!.baseOffset) throw gone('was deleted')
  let onlyEmpty: Buffer | null = null
  let from = startOffset
  for (let i = floorSegmentIndex(segs, from); i < segs.length; i++) {
    const seg = segs[i]!
    let buf: Buffer | null
    try {
      buf = await seg.read(from, maxBytes, maxOffset, minOneBatch, seg.sizeBytes)
    } catch (err) {
      if (!seg.deleted) throw err
      throw gone('was deleted')
    }
    if (buf === null) continue
    if (buf.length === 0) break
    const skip = leadingEmptyBatchBytes(buf)
    if (skip < buf.length) return skip === 0 ? buf : buf.subarray(skip)
    onlyEmpty ??= buf
    from = lastOffsetOfLastBatch(buf) + 1
    if (from >= maxOffset) break
    i-- // the rest of this segment, then the next ones
  }
  return onlyEmpty ?? EMPTY
}

/** Bytes of the batches at the start of buf that hold no records (0 when the first one has some). */
function leadingEmptyBatchBytes(buf: Buffer): number {
  let pos = 0
  while (pos + BATCH_HEADER_SIZE <= buf.length && buf.readInt32BE(pos + RECORD_COUNT_OFFSET) === 0) {
    pos += LOG_OVERHEAD + buf.readInt32BE(pos + BATCH_LENGTH_OFFSET)
  }
  return Math.min(pos, buf.length)
}

/** Last offset of the last whole batch in buf (a read result: whole batches only). */
function lastOffsetOfLastBatch(buf: Buffer): number {
  let pos = 0
  let last = -1
  while (pos + BATCH_HEADER_SIZE <= buf.length) {
    last = readInt64(buf, pos) + buf.readInt32BE(pos + LAST_OFFSET_DELTA_OFFSET)
    pos += LOG_OVERHEAD + buf.readInt32BE(pos + BATCH_LENGTH_OFFSET)
  }
  return last
}
