// Options of `tributary perf produce | consume | e2e`: commander parsers for single values (a bad
// value is a usage error, exit 2) and the checks that span several options.
import { InvalidArgumentError } from 'commander'

/** A usage error found after parsing (exit code 2). */
export class UsageError extends Error {
  override name = 'UsageError'
}

export const COMPRESSION_TYPES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const

export function intOption(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value)
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `expected an integer ≥ ${min}` : `expected an integer in ${min}..${max}`)
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

/** perf patches pre-built uncompressed batches in place; a codec would have to recompress each one. */
export function checkCompression(compression: string): void {
  if (compression !== 'none') {
    throw new UsageError(
      `--compression ${compression} is not supported yet by tributary perf (it sends pre-built uncompressed batches); use --compression none, or tributary produce --compression ${compression}`,
    )
  }
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

export interface CommonOptions {
  bootstrapServer: string
  topic: string
  json: boolean
  clientId: string
  requestTimeoutMs: number
}

export interface ProduceOptions extends CommonOptions {
  numRecords?: number
  duration?: number
  recordSize: number
  throughput: number
  acks: number
  batchSize: number
  lingerMs: number
  partitions?: number
  producers: number
  compression: string
  raw: boolean
  maxInFlight: number
}

export interface ConsumeOptions extends CommonOptions {
  numRecords?: number
  duration?: number
  fetchSize: number
  fetchMaxBytes: number
  timeout: number
}

export interface E2eOptions extends CommonOptions {
  numRecords?: number
  duration?: number
  recordSize: number
  throughput: number
  acks: number
  batchSize: number
  lingerMs: number
  partitions?: number
  compression: string
  maxInFlight: number
  timeout: number
}

export function checkProduce(o: ProduceOptions): void {
  if (o.numRecords === undefined && o.duration === undefined) throw new UsageError('give --num-records or --duration')
  checkCompression(o.compression)
  splitBootstrap(o.bootstrapServer)
}

export function checkConsume(o: ConsumeOptions): void {
  splitBootstrap(o.bootstrapServer)
}

export function checkE2e(o: E2eOptions): void {
  if (o.numRecords === undefined && o.duration === undefined) throw new UsageError('give --num-records or --duration')
  if (o.throughput <= 0) throw new UsageError('e2e needs a fixed rate: --throughput must be > 0')
  if (o.recordSize < 8) throw new UsageError('e2e needs --record-size ≥ 8: each value carries its send time')
  checkCompression(o.compression)
  splitBootstrap(o.bootstrapServer)
}
