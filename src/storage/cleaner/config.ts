// Settings of the log cleaner, by Kafka's names: the broker's log.cleaner.* keys (one cleaner per
// log dir) and the topic configs it reads from each log at every pass, so AlterConfigs changes
// (cleanup.policy, min.cleanable.dirty.ratio, …) apply at the next pass.
import { DEFAULT_MAX_DECOMPRESSED_BYTES } from '../../protocol/records/compression.js'

export interface CleanerConfig {
  /** log.cleaner.enable (and log.cleaner.threads > 0). */
  enabled: boolean
  /** log.cleaner.backoff.ms: pause when no log needs cleaning. */
  backoffMs: number
  /** log.cleaner.dedupe.buffer.size: memory budget of the key map. */
  dedupeBufferBytes: number
  /** log.cleaner.io.buffer.load.factor: fill ratio at which the key map counts as full. */
  dedupeLoadFactor: number
  /** log.cleaner.io.buffer.size: read chunk and write buffer size. */
  ioBufferBytes: number
  /** log.cleaner.io.max.bytes.per.second: read + write throttle (Infinity = none). */
  maxIoBytesPerSecond: number
  /** tributary.max.decompressed.batch.bytes: bound on a compressed batch's records once decompressed. */
  maxDecompressedBytes: number
}

/** Kafka's defaults. */
export const defaultCleanerConfig: CleanerConfig = Object.freeze({
  enabled: true,
  backoffMs: 15_000,
  dedupeBufferBytes: 128 * 1024 * 1024,
  dedupeLoadFactor: 0.9,
  ioBufferBytes: 512 * 1024,
  maxIoBytesPerSecond: Number.POSITIVE_INFINITY,
  maxDecompressedBytes: DEFAULT_MAX_DECOMPRESSED_BYTES,
})

/** The topic configs of one log that the cleaner applies. */
export interface CleanerLogConfig {
  /** cleanup.policy includes `compact`. */
  compact: boolean
  /** min.cleanable.dirty.ratio */
  minCleanableRatio: number
  /** min.compaction.lag.ms: records younger than this are not cleaned. */
  minCompactionLagMs: number
  /** max.compaction.lag.ms: a log with dirty records older than this is cleaned whatever its ratio. */
  maxCompactionLagMs: number
  /** delete.retention.ms: how long a tombstone stays after the pass that first cleaned it. */
  deleteRetentionMs: number
  /** file.delete.delay.ms: how long a replaced segment stays as `.log.deleted`. */
  fileDeleteDelayMs: number
}

export const defaultCleanerLogConfig: CleanerLogConfig = Object.freeze({
  compact: true,
  minCleanableRatio: 0.5,
  minCompactionLagMs: 0,
  maxCompactionLagMs: Number.MAX_SAFE_INTEGER,
  deleteRetentionMs: 86_400_000,
  fileDeleteDelayMs: 60_000,
})

/** The effective topic configs the cleaner reads, by Kafka's names (resolved from the broker's). */
export interface TopicCleanerConfigs {
  readonly 'cleanup.policy': readonly string[]
  readonly 'min.cleanable.dirty.ratio': number
  readonly 'min.compaction.lag.ms': number
  readonly 'max.compaction.lag.ms': number
  readonly 'delete.retention.ms': number
  readonly 'file.delete.delay.ms': number
}

export function cleanerLogConfigOf(c: TopicCleanerConfigs): CleanerLogConfig {
  return {
    compact: c['cleanup.policy'].includes('compact'),
    minCleanableRatio: c['min.cleanable.dirty.ratio'],
    minCompactionLagMs: c['min.compaction.lag.ms'],
    maxCompactionLagMs: c['max.compaction.lag.ms'],
    deleteRetentionMs: c['delete.retention.ms'],
    fileDeleteDelayMs: c['file.delete.delay.ms'],
  }
}
