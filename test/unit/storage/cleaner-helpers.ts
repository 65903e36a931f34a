// Shared by the cleaner tests: keyed batches, a seeded random source, a log manager with a
// compacted log on a virtual clock, and reading a whole log back record by record.
import { iterateBatches, iterateRecords } from '../../../src/protocol/records/iterator.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import {
  type CleanerConfig,
  type CleanerLogConfig,
  defaultCleanerConfig,
  defaultCleanerLogConfig,
} from '../../../src/storage/cleaner/config.js'
import type { Fs } from '../../../src/storage/fs.js'
import { defaultLogConfig, type LogConfig } from '../../../src/storage/log-config.js'
import { LogManager } from '../../../src/storage/log-manager.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import type { ManualClock } from '../../../src/util/clock.js'
import { type Logger, silentLogger } from '../../../src/util/logger.js'
import { produce } from './helpers.js'
import { seededRandom } from '../../../src/util/seeded-random.js'

export interface KeyedRecord {
  key: string | null
  /** null = tombstone */
  value: string | null
  timestamp?: number
  headers?: Array<{ key: string; value: Buffer | null }>
}

/** One batch of keyed records (timestamps default to ts). */
export function keyedBatch(records: KeyedRecord[], ts: number, compression = 0): Buffer {
  return buildRecordBatch({
    baseTimestamp: ts,
    compression,
    records: records.map((r) => ({
      key: r.key === null ? null : Buffer.from(r.key),
      value: r.value === null ? null : Buffer.from(r.value),
      timestamp: r.timestamp ?? ts,
      headers: r.headers ?? [],
    })),
  })
}

/** Appends one batch and moves the high watermark to the log end, as a single node does. */
export async function append(log: PartitionLog, records: KeyedRecord[], ts: number, compression = 0) {
  const info = await produce(log, [keyedBatch(records, ts, compression)])
  log.maybeIncrementHighWatermark(log.logEndOffset)
  return info
}

/** Seeded numbers in [0, 1), so a failing run can be replayed. */
export const rng = seededRandom

export interface StoredRecord {
  offset: number
  key: string | null
  value: string | null
  timestamp: number
  headers: Array<{ key: string; value: string | null }>
}

/** Every record of the log from its start to its end, decoded, in offset order. */
export async function readAll(log: PartitionLog): Promise<StoredRecord[]> {
  const out: StoredRecord[] = []
  let offset = log.logStartOffset
  while (offset < log.logEndOffset) {
    const { records } = await log.read(offset, 1 << 20, log.logEndOffset, true)
    if (records.length === 0) break
    let next = offset
    for (const b of iterateBatches(records)) {
      for (const r of iterateRecords(records, b.position)) {
        if (r.offset < offset) continue
        out.push({
          offset: r.offset,
          key: r.key?.toString() ?? null,
          value: r.value?.toString() ?? null,
          timestamp: r.timestamp,
          headers: r.headers.map((h) => ({ key: h.key, value: h.value?.toString() ?? null })),
        })
      }
      next = b.baseOffset + b.lastOffsetDelta + 1
    }
    if (next <= offset) throw new Error(`read at ${offset} made no progress`)
    offset = next
  }
  return out
}

/** The newest record of each key among records (tombstones included), in offset order. */
export function latestPerKey<T extends { offset: number; key: string | null }>(records: T[]): T[] {
  const latest = new Map<string, T>()
  for (const r of records) if (r.key !== null) latest.set(r.key, r)
  return [...latest.values()].sort((a, b) => a.offset - b.offset)
}

export interface CompactedLog {
  mgr: LogManager
  log: PartitionLog
  clock: ManualClock
  fs: Fs
  dir: string
  logConfig: CleanerLogConfig
}

export interface OpenOptions {
  fs: Fs
  dir: string
  clock: ManualClock
  config?: Partial<LogConfig>
  cleaner?: Partial<CleanerConfig>
  logConfig?: Partial<CleanerLogConfig>
  logger?: Logger
}

/**
 * A log manager over dir holding the compacted log `events-0` (created if missing), with its
 * cleaner opened but not started: tests drive it with mgr.runCleaner().
 */
export async function openCompacted(opts: OpenOptions): Promise<CompactedLog> {
  const config = { ...defaultLogConfig, ...opts.config }
  const logger = opts.logger ?? silentLogger
  const mgr = await LogManager.open({ fs: opts.fs, clock: opts.clock, logDir: opts.dir, config, logger, checkpointIntervalMs: 0 })
  const log = mgr.get('events', 0) ?? (await mgr.create('events', 0, 'topic-id-1'))
  log.maybeIncrementHighWatermark(log.logEndOffset)
  const logConfig: CleanerLogConfig = { ...defaultCleanerLogConfig, minCleanableRatio: 0, fileDeleteDelayMs: 0, ...opts.logConfig }
  await mgr.startCleaner({
    config: { ...defaultCleanerConfig, enabled: false, ...opts.cleaner },
    configOf: () => logConfig,
  })
  return { mgr, log, clock: opts.clock, fs: opts.fs, dir: opts.dir, logConfig }
}

/** Runs cleaner passes until one finds nothing to clean; returns how many cleaned something. */
export async function cleanUntilDone(mgr: LogManager, max = 100): Promise<number> {
  for (let i = 0; i < max; i++) if ((await mgr.runCleaner()) === null) return i
  throw new Error(`the cleaner still had work after ${max} passes`)
}

export const fileName = (base: number, suffix: string) => `${String(base).padStart(20, '0')}${suffix}`
