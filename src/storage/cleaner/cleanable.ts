// Which part of a log the cleaner may clean, and how dirty it is (Kafka's LogCleanerManager:
// cleanableOffsets, calculateCleanableBytes, maxCompactionDelay, LogToClean).
//
// A compacted log is, from its start: the clean section [logStart, firstDirtyOffset) — already
// compacted, firstDirtyOffset comes from cleaner-offset-checkpoint — then the dirty section up to
// the first uncleanable offset, then the rest. The first uncleanable offset is the lowest of the
// last stable offset (no undecided transaction is cleaned), the active segment's base
// offset (the active segment is never cleaned) and, with min.compaction.lag.ms, the first dirty
// segment holding a record younger than the lag; it is rounded down to the start of its segment.
// The dirty ratio is cleanable bytes / (clean + cleanable bytes), whole segments counted. A log is
// cleaned when its ratio exceeds min.cleanable.dirty.ratio, or when max.compaction.lag.ms makes
// cleaning due (the first batch of a dirty segment is older than the lag) and there is something
// to clean; the dirtiest such log goes first.
import { BATCH_HEADER_SIZE, MAX_TIMESTAMP_OFFSET, readInt64 } from '../../protocol/records/batch.js'
import type { PartitionLog } from '../partition-log.js'
import { floorSegmentIndex, type LogSegment } from '../segment.js'
import type { CleanerLogConfig } from './config.js'

export interface OffsetsToClean {
  firstDirtyOffset: number
  /** Upper (exclusive) bound of what may be cleaned: a segment's base offset. */
  firstUncleanableOffset: number
  /** The checkpointed offset was invalid (below the log start or past the log end): rewrite it. */
  forceUpdateCheckpoint: boolean
}

export interface LogToClean extends OffsetsToClean {
  log: PartitionLog
  config: CleanerLogConfig
  /** The segment list the figures were computed from. */
  segments: readonly LogSegment[]
  /** The log's truncation count then (a truncation since makes the swap refuse the result). */
  truncations: number
  cleanBytes: number
  cleanableBytes: number
  totalBytes: number
  cleanableRatio: number
  /** max.compaction.lag.ms made cleaning due. */
  needCompactionNow: boolean
}

/** Kafka's logSegments(from, to): the segments holding offsets in [from, to). */
export function segmentsInRange(segs: readonly LogSegment[], from: number, to: number): LogSegment[] {
  if (from >= to || segs.length === 0) return []
  const out: LogSegment[] = []
  for (let i = floorSegmentIndex(segs, from); i < segs.length && segs[i]!.baseOffset < to; i++) out.push(segs[i]!)
  return out
}

/** Kafka's nonActiveLogSegmentsFrom: from the segment holding offset up to, not including, the active one. */
function nonActiveSegmentsFrom(segs: readonly LogSegment[], offset: number): LogSegment[] {
  return segs.slice(floorSegmentIndex(segs, offset), segs.length - 1)
}

const sizeOf = (segs: readonly LogSegment[]) => segs.reduce((n, s) => n + s.sizeBytes, 0)

export async function cleanableOffsets(
  log: PartitionLog,
  segs: readonly LogSegment[],
  config: CleanerLogConfig,
  checkpointed: number | undefined,
  nowMs: number,
): Promise<OffsetsToClean> {
  const logStart = log.logStartOffset
  const wanted = checkpointed ?? logStart
  let firstDirtyOffset = wanted
  let forceUpdateCheckpoint = false
  // Below the log start (retention or DeleteRecords removed it), or past the log end (a torn tail
  // was cut): start again from the log start, as Kafka does.
  if (wanted < logStart || wanted > log.logEndOffset) {
    firstDirtyOffset = logStart
    forceUpdateCheckpoint = true
  }
  const active = segs[segs.length - 1]!
  let uncleanable = Math.min(log.lastStableOffset, active.baseOffset)
  if (config.minCompactionLagMs > 0) {
    for (const seg of nonActiveSegmentsFrom(segs, firstDirtyOffset)) {
      if ((await seg.largestTimestamp()) > nowMs - config.minCompactionLagMs) {
        uncleanable = Math.min(uncleanable, seg.baseOffset)
        break
      }
    }
  }
  // Rounded down to the start of the segment holding it: only whole segments are cleaned.
  const rounded = segs[floorSegmentIndex(segs, uncleanable)]!.baseOffset
  return { firstDirtyOffset, firstUncleanableOffset: Math.max(firstDirtyOffset, rounded), forceUpdateCheckpoint }
}

/** The first batch's max timestamp of each segment, read once (segments are immutable but for truncation). */
const firstBatchTimestamps = new WeakMap<LogSegment, number>()

async function firstBatchTimestamp(seg: LogSegment): Promise<number> {
  const known = firstBatchTimestamps.get(seg)
  if (known !== undefined) return known
  const head = await seg.readAt(0, BATCH_HEADER_SIZE)
  const ts = head.length === BATCH_HEADER_SIZE ? readInt64(head, MAX_TIMESTAMP_OFFSET) : -1
  firstBatchTimestamps.set(seg, ts)
  return ts
}

/**
 * Kafka's maxCompactionDelay: how far past max.compaction.lag.ms the oldest dirty record is (by
 * the first batch of each dirty non-active segment), 0 when cleaning is not due yet.
 */
async function maxCompactionDelay(segs: readonly LogSegment[], firstDirtyOffset: number, config: CleanerLogConfig, nowMs: number) {
  if (config.maxCompactionLagMs >= Number.MAX_SAFE_INTEGER) return 0
  let earliest = Number.POSITIVE_INFINITY
  for (const seg of nonActiveSegmentsFrom(segs, firstDirtyOffset)) {
    if (seg.isEmpty) continue
    const ts = await firstBatchTimestamp(seg)
    if (ts > 0 && ts < earliest) earliest = ts
  }
  const cleanUntil = nowMs - Math.max(config.maxCompactionLagMs, 0)
  return earliest < cleanUntil ? cleanUntil - earliest : 0
}

/** The figures the cleaner picks a log by (Kafka's LogToClean). */
export async function logToClean(
  log: PartitionLog,
  config: CleanerLogConfig,
  checkpointed: number | undefined,
  nowMs: number,
): Promise<LogToClean> {
  const truncations = log.truncationCount
  const segs = log.segmentsView()
  const offsets = await cleanableOffsets(log, segs, config, checkpointed, nowMs)
  const { firstDirtyOffset, firstUncleanableOffset } = offsets
  const cleanBytes = sizeOf(segmentsInRange(segs, -1, firstDirtyOffset))
  const cleanableBytes = sizeOf(segmentsInRange(segs, Math.min(firstDirtyOffset, firstUncleanableOffset), firstUncleanableOffset))
  const totalBytes = cleanBytes + cleanableBytes
  return {
    ...offsets,
    log,
    config,
    segments: segs,
    truncations,
    cleanBytes,
    cleanableBytes,
    totalBytes,
    cleanableRatio: totalBytes === 0 ? 0 : cleanableBytes / totalBytes,
    needCompactionNow: (await maxCompactionDelay(segs, firstDirtyOffset, config, nowMs)) > 0,
  }
}

/** Kafka's rule: dirty enough, or due by max.compaction.lag.ms with something to clean. */
export function isCleanable(ltc: LogToClean): boolean {
  return (ltc.needCompactionNow && ltc.cleanableBytes > 0) || ltc.cleanableRatio > ltc.config.minCleanableRatio
}
