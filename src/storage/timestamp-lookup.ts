// Timestamp lookups inside segments (ListOffsets by timestamp, and -3 max timestamp, KIP-734): the
// time and offset indexes say where to start walking batch headers, and the batch found is decoded
// to name the exact record — compressed batches too (bounded, as every decode), as Kafka does. A
// LogAppendTime batch stamps all its records with its max timestamp, so its first record in range
// is the answer without decoding.
import { type BatchHeader, TimestampType } from '../protocol/records/batch.js'
import { iterateRecords } from '../protocol/records/iterator.js'
import { type BatchLocation, type LogSegment, READ_CHUNK_BYTES } from './segment.js'

export interface TimestampAndOffset {
  offset: number
  timestamp: number
}

/** The batch at `position` in seg as one buffer and where it starts in it (re-read when `loc.buf` holds part of it). */
async function wholeBatch(seg: LogSegment, loc: BatchLocation): Promise<{ buf: Buffer; at: number }> {
  const h: BatchHeader = loc.header
  if (h.position + h.sizeBytes <= loc.buf.length) return { buf: loc.buf, at: h.position }
  return { buf: await seg.readAt(loc.position, h.sizeBytes), at: 0 }
}

/** The first record of seg at or above `from` whose timestamp ≥ targetMs; null when none. */
export async function timestampInSegment(seg: LogSegment, targetMs: number, from: number): Promise<TimestampAndOffset | null> {
  const end = seg.sizeBytes
  const start = Math.max(seg.timeIndex.offsetBefore(targetMs), from, seg.baseOffset)
  let pos = seg.offsetIndex.floorPosition(start)
  for (;;) {
    let cand = null as BatchLocation | null
    await seg.scan(pos, end, false, READ_CHUNK_BYTES, (h, position, buf) => {
      if (h.baseOffset + h.lastOffsetDelta < start || h.maxTimestamp < targetMs) return true
      cand = { position, header: h, buf }
      return false
    })
    if (cand === null) return null
    const h = cand.header
    if (h.timestampType === TimestampType.LogAppendTime) return { offset: Math.max(h.baseOffset, start), timestamp: h.maxTimestamp }
    const { buf, at } = await wholeBatch(seg, cand)
    for (const r of iterateRecords(buf, at)) {
      if (r.offset >= start && r.timestamp >= targetMs) return { offset: r.offset, timestamp: r.timestamp }
    }
    pos = cand.position + h.sizeBytes
  }
}

/** The record with the largest timestamp among segs (earliest on ties), ignoring offsets below startOffset. */
export async function maxTimestampIn(segs: readonly LogSegment[], startOffset: number): Promise<TimestampAndOffset | null> {
  let best: LogSegment | null = null
  for (const seg of segs) {
    if (seg.offsetOfMaxTimestamp < 0 || seg.nextOffset <= startOffset) continue
    if (best === null || seg.maxTimestamp > best.maxTimestamp) best = seg
  }
  if (best === null) return null
  const timestamp = best.maxTimestamp
  const loc = await best.findBatch(best.offsetOfMaxTimestamp, best.sizeBytes, READ_CHUNK_BYTES)
  if (!loc) return { offset: best.offsetOfMaxTimestamp, timestamp }
  const h = loc.header
  if (h.timestampType === TimestampType.LogAppendTime) return { offset: h.baseOffset, timestamp }
  const { buf, at } = await wholeBatch(best, loc)
  for (const r of iterateRecords(buf, at)) if (r.timestamp === h.maxTimestamp) return { offset: r.offset, timestamp }
  return { offset: h.baseOffset + h.lastOffsetDelta, timestamp }
}
