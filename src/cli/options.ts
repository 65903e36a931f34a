// Option parsers and errors every `tributary` command shares: commander parsers for single values
// (a bad value is a usage error, exit 2), the bootstrap list, and UsageError for what is found
// after parsing.
import { InvalidArgumentError } from 'commander'
import type { IsolationLevel } from '../client/consumer.js'

/** A usage error found after parsing (exit code 2). */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** Bounds of the protocol's int32 and int16 fields, for intOption. */
export const INT32_MAX = 0x7fffffff
export const INT16_MAX = 0x7fff

export const COMPRESSION_TYPES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const

export function intOption(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value)
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER ? `expected an integer ≥ ${min}` : `expected an integer in ${min}..${max}`,
      )
    }
    return n
  }
}

/** A rate in records/s: a positive number, or -1 for unthrottled. */
export function throughputOption(value: string): number {
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || (n <= 0 && n !== -1)) {
    throw new InvalidArgumentError('expected records per second > 0, or -1 for unthrottled')
  }
  return n
}

/** Seconds, possibly fractional, > 0. */
export function secondsOption(value: string): number {
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number of seconds > 0')
  return n
}

/** 'all' or -1, 0, 1 → the Produce acks field. */
export function acksOption(value: string): number {
  const v = value.trim().toLowerCase()
  if (v === 'all' || v === '-1') return -1
  if (v === '0') return 0
  if (v === '1') return 1
  throw new InvalidArgumentError('expected all, -1, 0 or 1')
}

export function compressionOption(value: string): string {
  const v = value.trim().toLowerCase()
  if (!(COMPRESSION_TYPES as readonly string[]).includes(v)) {
    throw new InvalidArgumentError(`expected one of ${COMPRESSION_TYPES.join(', ')}`)
  }
  return v
}

export const ISOLATION_LEVELS: readonly IsolationLevel[] = ['read_uncommitted', 'read_committed']

/** --isolation: Kafka's isolation.level values (also with dashes, or 'committed' / 'uncommitted'). */
export function isolationOption(value: string): IsolationLevel {
  const v = value.trim().toLowerCase().replace('-', '_')
  const level = v === 'committed' ? 'read_committed' : v === 'uncommitted' ? 'read_uncommitted' : v
  if (!(ISOLATION_LEVELS as readonly string[]).includes(level)) {
    throw new InvalidArgumentError(`expected one of ${ISOLATION_LEVELS.join(', ')}`)
  }
  return level as IsolationLevel
}

export function bootstrapDefault(): string {
  return process.env.TRIBUTARY_BOOTSTRAP || 'localhost:9092'
}

export function splitBootstrap(value: string): string[] {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  if (list.length === 0) throw new UsageError('--bootstrap-server is empty')
  return list
}
