// One cleaning of one log (Kafka's Cleaner.doClean):
//   1. build the key map over the dirty section [firstDirtyOffset, firstUncleanableOffset),
//      stopping early when the map is full; the map's latest offset + 1 is where this cleaning
//      ends (the next one starts there, cleaner-offset-checkpoint);
//   2. group the segments from the log start up to that end so each group's total .log size
//      fits segment.bytes and its indexes fit segment.index.bytes (and its offsets fit the
//      index's int32 relative offsets) — small segments merge into one;
//   3. rewrite each group into one `.cleaned` segment at the group's first base offset, keeping
//      what batch-filter.ts keeps, fsync it, and swap it in (PartitionLog.replaceSegments).
// A group's last batch is always written, emptied of its records if none is kept, so the cleaned
// segment ends at the same offset as the segments it replaces: recovery relies on it to find
// which segments an interrupted swap replaces, and it keeps every offset below the next segment
// accounted for (Kafka likewise keeps the last batch of a cleaning round). So is, emptied if need
// be, the last batch of each idempotent producer the log knows (Kafka's Cleaner retains it, RETAIN_EMPTY):
// recovery replays batch headers into the producer state (storage/producer-state.ts), and without
// it a producer whose last records were superseded would come back with an older sequence. A
// producer without a data batch left in its state (a transactions-v2 marker bumped its epoch) keeps
// its last marker of that epoch instead, as Kafka's isBatchLastRecordOfProducer: it holds the epoch.
//
// Transactions (Kafka's transactional cleaning, cleaner/transactions.ts): the cleanable section ends
// at the last stable offset (cleanable.ts), so every transaction in it is decided. The batches of
// aborted transactions are dropped whatever their keys (and kept out of the key map); a marker
// stays while batches of its transaction are in the log, then is stamped with a delete horizon and
// removed by the first cleaning after delete.retention.ms. The cleaned segment's transaction index
// holds the aborted transactions whose markers it keeps.
//
// Reads go through the segments' positional reads in chunks of log.cleaner.io.buffer.size
// (larger for a larger batch); writes are buffered to that size. The log is not locked while
// reading or writing: only non-active segments below the high watermark are read, and the swap
// checks that none of them changed meanwhile. Stopping (close, topic deletion) is checked between
// batches; an aborted or failed cleaning removes its `.cleaned` files.
import { KafkaError } from '../../protocol/errors.js'
import { BATCH_HEADER_SIZE, BATCH_LENGTH_OFFSET, type BatchHeader, LOG_OVERHEAD, readBatchHeader } from '../../protocol/records/batch.js'
import type { Clock } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import type { Fs } from '../fs.js'
import type { PartitionLog } from '../partition-log.js'
import { segmentConfigOf } from '../recovery.js'
import { LogSegment, MAX_RELATIVE_OFFSET, type SegmentBatch } from '../segment.js'
import { decodeRecords, emptyBatchOf, filterBatch, type FilterContext, hasDeleteHorizon } from './batch-filter.js'
import { floorSegmentIndex } from '../segment.js'
import { type LogToClean, segmentsInRange } from './cleanable.js'
import type { CleanerConfig } from './config.js'
import type { SkimpyOffsetMap } from './offset-map.js'
import { CleanedTransactions } from './transactions.js'

/** Thrown between batches when the cleaning must stop (Kafka's LogCleaningAbortedException). */
export class CleaningAbortedError extends Error {
  constructor(reason: string) {
    super(`cleaning aborted: ${reason}`)
    this.name = 'CleaningAbortedError'
  }
}

/** A swap failed part-way: the log has failed, and its next load settles the swap's files. */
export class SwapFailedError extends Error {
  constructor(cause: Error) {
    super(cause.message, { cause })
    this.name = 'SwapFailedError'
  }
}

export interface CleanerStats {
  /** Where the next cleaning of this log starts. */
  endOffset: number
  bytesRead: number
  bytesWritten: number
  recordsRead: number
  recordsKept: number
  /** Bytes read while building the key map. */
  mapBytesRead: number
  mapRecordsRead: number
  keysMapped: number
  segmentsCleaned: number
  segmentsWritten: number
  /** Groups whose swap was refused because the log changed meanwhile (retried next time). */
  groupsSkipped: number
  /** Batches kept whole because they could not be decoded (unknown codec, too large decompressed). */
  undecodableBatches: number
  /** Earliest delete horizon still ahead of a tombstone kept, or +Infinity. */
  nextDeleteHorizonMs: number
  startMs: number
  endMs: number
}

export interface CleanerContext {
  fs: Fs
  clock: Clock
  logger: Logger
  config: CleanerConfig
  map: SkimpyOffsetMap
  /** Throws CleaningAbortedError when the cleaning of log must stop. */
  checkDone: (log: PartitionLog) => void
  /** Waits as needed to keep to log.cleaner.io.max.bytes.per.second. */
  throttle: (bytes: number) => Promise<void>
}

/** Smallest read chunk, whatever log.cleaner.io.buffer.size says (it may be 0). */
const MIN_IO_BYTES = 4096

interface BatchAt {
  h: BatchHeader
  buf: Buffer
}

/** The whole batches of seg from position on, read in chunks of chunkBytes (more for a larger batch). */
async function* batchesOf(seg: LogSegment, position: number, chunkBytes: number, ctx: CleanerContext): AsyncGenerator<BatchAt> {
  const end = seg.sizeBytes
  const chunk = Math.max(chunkBytes, MIN_IO_BYTES)
  let pos = position
  while (pos < end) {
    let buf = await seg.readAt(pos, Math.min(chunk, end - pos))
    await ctx.throttle(buf.length)
    let at = 0
    while (at + BATCH_HEADER_SIZE <= buf.length) {
      const size = LOG_OVERHEAD + buf.readInt32BE(at + BATCH_LENGTH_OFFSET)
      if (size < BATCH_HEADER_SIZE) throw corrupt(seg, pos + at, `batch length ${size - LOG_OVERHEAD}`)
      if (at + size > buf.length) break
      yield { h: readBatchHeader(buf, at), buf }
      at += size
    }
    if (at === 0) {
      // A batch larger than the chunk: read it whole.
      if (buf.length < BATCH_HEADER_SIZE) throw corrupt(seg, pos, 'partial batch header')
      const size = LOG_OVERHEAD + buf.readInt32BE(BATCH_LENGTH_OFFSET)
      if (size > end - pos) throw corrupt(seg, pos, `batch of ${size} bytes runs past the segment`)
      buf = await seg.readAt(pos, size)
      if (buf.length < size) throw corrupt(seg, pos, 'file shorter than the segment')
      yield { h: readBatchHeader(buf, 0), buf }
      at = size
    }
    pos += at
  }
}

function corrupt(seg: LogSegment, pos: number, what: string): KafkaError {
  return new KafkaError('KAFKA_STORAGE_ERROR', `${seg.logPath} at ${pos}: ${what}`)
}

/**
 * Kafka's buildOffsetMap: maps each key of the dirty section to its latest offset. When the map
 * fills up first, its latestOffset ends at the last batch mapped whole.
 */
async function buildOffsetMap(ltc: LogToClean, ctx: CleanerContext, stats: CleanerStats): Promise<void> {
  const { map } = ctx
  const start = ltc.firstDirtyOffset
  const end = ltc.firstUncleanableOffset
  map.clear()
  const dirty = segmentsInRange(ltc.segments, start, end)
  const txns = new CleanedTransactions()
  txns.addAborted(ltc.log.collectAbortedTransactions(start, end))
  // Nothing dirty: the map covers everything below firstDirty (every key unmapped), so a pass
  // for expired tombstones alone still rewrites the clean section.
  if (dirty.length === 0) map.updateLatestOffset(start - 1)
  for (let i = 0; i < dirty.length; i++) {
    const seg = dirty[i]!
    const nextStart = i + 1 < dirty.length ? dirty[i + 1]!.baseOffset : end
    const from = seg.offsetIndex.floorPosition(start)
    for await (const { h, buf } of batchesOf(seg, from, ctx.config.ioBufferBytes, ctx)) {
      ctx.checkDone(ltc.log)
      stats.mapBytesRead += h.sizeBytes
      const last = h.baseOffset + h.lastOffsetDelta
      if (last < start) continue
      // An aborted transaction's records go whatever their keys: they must not hide older values.
      let aborted = false
      if (h.isControl) txns.onControlBatch(h, buf)
      else aborted = txns.onDataBatch(h)
      if (!h.isControl && !aborted) {
        const records = decodeRecords(buf, h, ctx.config.maxDecompressedBytes)
        if (records === null) stats.undecodableBatches++
        for (const r of records ?? []) {
          stats.mapRecordsRead++
          if (r.key === null || r.offset < start) continue
          if (!map.put(r.key, r.offset)) {
            stats.keysMapped = map.size
            return
          }
        }
      }
      map.updateLatestOffset(last)
    }
    // Offsets up to the next segment are all seen, gaps included.
    map.updateLatestOffset(nextStart - 1)
  }
  stats.keysMapped = map.size
}

/** Kafka's groupSegmentsBySize: consecutive segments whose data and indexes fit one segment. */
export function groupSegmentsBySize(
  segments: readonly LogSegment[],
  maxSize: number,
  maxIndexSize: number,
  firstUncleanableOffset: number,
): LogSegment[][] {
  const groups: LogSegment[][] = []
  let i = 0
  while (i < segments.length) {
    const first = segments[i]!
    const group = [first]
    let logSize = first.sizeBytes
    let indexSize = first.offsetIndex.entries * 8
    let timeIndexSize = first.timeIndex.entries * 12
    i++
    while (i < segments.length) {
      const s = segments[i]!
      // The candidate's last offset is bounded by the next segment's base (or the uncleanable offset).
      const lastOffset = (i + 1 < segments.length ? segments[i + 1]!.baseOffset : firstUncleanableOffset) - 1
      const fits =
        logSize + s.sizeBytes <= maxSize &&
        indexSize + s.offsetIndex.entries * 8 <= maxIndexSize &&
        timeIndexSize + s.timeIndex.entries * 12 <= maxIndexSize &&
        (s.sizeBytes === 0 || lastOffset - first.baseOffset <= MAX_RELATIVE_OFFSET)
      if (!fits) break
      group.push(s)
      logSize += s.sizeBytes
      indexSize += s.offsetIndex.entries * 8
      timeIndexSize += s.timeIndex.entries * 12
      i++
    }
    groups.push(group)
  }
  return groups
}

/** Buffered appends to the `.cleaned` segment, which indexes what it is given (LogSegment.append). */
class CleanedWriter {
  private pending: Buffer[] = []
  private pendingBatches: SegmentBatch[] = []
  private pendingBytes = 0

  constructor(
    readonly seg: LogSegment,
    private readonly ctx: CleanerContext,
  ) {}

  async append(bytes: Buffer, baseOffset: number, lastOffset: number, maxTimestamp: number): Promise<void> {
    this.pendingBatches.push({
      baseOffset,
      lastOffsetDelta: lastOffset - baseOffset,
      maxTimestamp,
      position: this.pendingBytes,
      sizeBytes: bytes.length,
    })
    this.pending.push(bytes)
    this.pendingBytes += bytes.length
    if (this.pendingBytes >= this.ctx.config.ioBufferBytes) await this.drain()
  }

  async drain(): Promise<void> {
    if (this.pendingBytes === 0) return
    const bytes = this.pendingBytes
    await this.seg.append(this.pending, this.pendingBatches)
    this.pending = []
    this.pendingBatches = []
    this.pendingBytes = 0
    await this.ctx.throttle(bytes)
  }
}

/** Kafka's cleanSegments: the group rewritten into one `.cleaned` segment, then swapped in. */
async function cleanGroup(
  ltc: LogToClean,
  group: LogSegment[],
  ctx: CleanerContext,
  stats: CleanerStats,
  txns: CleanedTransactions,
): Promise<void> {
  const { log } = ltc
  // A failed log's directory may hold an unsettled swap: nothing more is written next to it.
  if (!log.usable) throw new CleaningAbortedError(`${log.dir} is closed or failed`)
  const filter: FilterContext = {
    map: ctx.map,
    nowMs: stats.startMs,
    deleteRetentionMs: ltc.config.deleteRetentionMs,
    maxDecompressedBytes: ctx.config.maxDecompressedBytes,
  }
  const cleaned = await LogSegment.createCleaned(ctx.fs, log.dir, group[0]!.baseOffset, segmentConfigOf(log.config), ctx.clock.now())
  try {
    const out = new CleanedWriter(cleaned, ctx)
    // The last batch read, when nothing of it was kept (written empty if it ends the group).
    let lastDropped: BatchHeader | null = null
    const producersLast = new Set<number>()
    const producersEpochOnly = new Map<number, number>()
    for (const e of log.producerEntries()) {
      const b = e.batches[e.batches.length - 1]
      if (b) producersLast.add(b.lastOffset)
      else producersEpochOnly.set(e.producerId, e.epoch)
    }
    const isProducersLast = (h: BatchHeader) =>
      producersLast.has(h.baseOffset + h.lastOffsetDelta) || (h.isControl && producersEpochOnly.get(h.producerId) === h.producerEpoch)
    txns.cleanedIndex = cleaned.txnIndex
    for (let k = 0; k < group.length; k++) {
      const seg = group[k]!
      // Kafka collects over each whole segment: the cleaned segment's index is rebuilt from them.
      txns.addAborted(log.collectAbortedTransactions(seg.baseOffset, k + 1 < group.length ? group[k + 1]!.baseOffset : seg.nextOffset))
      for await (const { h, buf } of batchesOf(seg, 0, ctx.config.ioBufferBytes, ctx)) {
        ctx.checkDone(log)
        stats.bytesRead += h.sizeBytes
        const canDiscard = h.isControl ? txns.onControlBatch(h, buf) : txns.onDataBatch(h)
        const discardRecords = h.isControl ? canDiscard && hasDeleteHorizon(h) && h.baseTimestamp <= filter.nowMs : canDiscard
        const f = filterBatch(buf, h, filter, { discardRecords, markerRemovable: canDiscard && h.isControl })
        stats.recordsRead += f.recordsRead
        stats.recordsKept += f.recordsKept
        if (f.undecodable) stats.undecodableBatches++
        if (f.bytes === null) {
          if (h.producerId >= 0 && isProducersLast(h)) {
            lastDropped = null
            await out.append(emptyBatchOf(h), h.baseOffset, h.baseOffset + h.lastOffsetDelta, h.maxTimestamp)
            continue
          }
          lastDropped = h
          continue
        }
        lastDropped = null
        // (A tombstone kept past its horizon — beyond the map's reach — waits for a regular cleaning.)
        if (f.deleteHorizonMs > filter.nowMs) stats.nextDeleteHorizonMs = Math.min(stats.nextDeleteHorizonMs, f.deleteHorizonMs)
        await out.append(f.bytes, h.baseOffset, h.baseOffset + h.lastOffsetDelta, f.maxTimestamp)
      }
    }
    if (lastDropped) {
      const h = lastDropped
      await out.append(emptyBatchOf(h), h.baseOffset, h.baseOffset + h.lastOffsetDelta, h.maxTimestamp)
    }
    await out.drain()
    cleaned.finalizeTimeIndex()
    await cleaned.flush()
    await cleaned.closeHandle()
  } catch (err) {
    await cleaned.delete().catch(() => {})
    throw err
  }
  // A swap that fails part-way fails the log; its files are then left for the next load to settle.
  let swapped: boolean
  try {
    swapped = await log.replaceSegments(cleaned, group, ltc.truncations, ltc.config.fileDeleteDelayMs)
  } catch (err) {
    if (!log.usable) throw new SwapFailedError(err as Error)
    await cleaned.delete().catch(() => {})
    throw err
  }
  stats.bytesWritten += cleaned.sizeBytes
  if (!swapped) {
    stats.groupsSkipped++
    await cleaned.delete()
    return
  }
  stats.segmentsCleaned += group.length
  stats.segmentsWritten++
}

/**
 * Cleans ltc.log from its start up to as much of its dirty section as the key map holds. Returns
 * the statistics, endOffset being the new first dirty offset.
 */
export async function cleanLog(ltc: LogToClean, ctx: CleanerContext): Promise<CleanerStats> {
  const startMs = ctx.clock.now()
  const stats: CleanerStats = {
    endOffset: ltc.firstDirtyOffset,
    bytesRead: 0,
    bytesWritten: 0,
    recordsRead: 0,
    recordsKept: 0,
    mapBytesRead: 0,
    mapRecordsRead: 0,
    keysMapped: 0,
    segmentsCleaned: 0,
    segmentsWritten: 0,
    groupsSkipped: 0,
    undecodableBatches: 0,
    nextDeleteHorizonMs: Number.POSITIVE_INFINITY,
    startMs,
    endMs: startMs,
  }
  await buildOffsetMap(ltc, ctx, stats)
  const endOffset = ctx.map.latestOffset + 1
  stats.endOffset = Math.max(endOffset, ltc.firstDirtyOffset)
  const segs = ltc.segments
  // Every segment from the log's first up to the one holding endOffset - 1, never the active one.
  const upTo = Math.min(floorSegmentIndex(segs, endOffset - 1) + 1, segs.length - 1)
  const cleanable = endOffset > 0 ? segs.slice(0, upTo).filter((s) => s.baseOffset < endOffset) : []
  const groups = groupSegmentsBySize(cleanable, ltc.log.config.segmentBytes, ltc.log.config.maxIndexSizeBytes, ltc.firstUncleanableOffset)
  const txns = new CleanedTransactions()
  for (const group of groups) await cleanGroup(ltc, group, ctx, stats, txns)
  stats.endMs = ctx.clock.now()
  return stats
}
