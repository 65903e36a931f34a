// Per-log settings, named after Kafka's topic configs (segment.bytes, segment.ms, index.interval.bytes,
// segment.index.bytes, flush.messages, flush.ms) with the broker-level defaults of the log.* keys.

export interface LogConfig {
  /** log.segment.bytes / segment.bytes: roll when an append would take the segment past this. */
  segmentBytes: number
  /** log.roll.ms / segment.ms: roll a non-empty segment older than this (by the Clock). */
  segmentMs: number
  /** log.index.interval.bytes / index.interval.bytes: bytes appended between two index entries. */
  indexIntervalBytes: number
  /** log.index.size.max.bytes / segment.index.bytes: roll when an index would exceed this. */
  maxIndexSizeBytes: number
  /** log.flush.interval.messages / flush.messages: fsync after this many unflushed records. */
  flushIntervalMessages: number
  /** log.flush.interval.ms / flush.ms: fsync when the oldest unflushed append is this old. */
  flushIntervalMs: number
}

export const defaultLogConfig: LogConfig = Object.freeze({
  segmentBytes: 1073741824,
  segmentMs: 604800000,
  indexIntervalBytes: 4096,
  maxIndexSizeBytes: 10485760,
  flushIntervalMessages: Number.POSITIVE_INFINITY,
  flushIntervalMs: Number.POSITIVE_INFINITY,
})

/** Defaults overlaid with the given overrides (undefined values are ignored). */
export function resolveLogConfig(base: LogConfig, overrides?: Partial<LogConfig>): LogConfig {
  const out: LogConfig = { ...base }
  if (overrides) {
    for (const [k, v] of Object.entries(overrides) as Array<[keyof LogConfig, number | undefined]>) {
      if (v !== undefined) out[k] = v
    }
  }
  if (!(out.segmentBytes >= 14)) throw new RangeError(`segmentBytes ${out.segmentBytes} is too small`)
  if (!(out.indexIntervalBytes >= 0)) throw new RangeError(`indexIntervalBytes ${out.indexIntervalBytes} is invalid`)
  if (!(out.maxIndexSizeBytes >= 12)) throw new RangeError(`maxIndexSizeBytes ${out.maxIndexSizeBytes} is too small`)
  return out
}
