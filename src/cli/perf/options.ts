// Options of `tributary perf produce | consume | e2e`: what they take, and the checks that span
// several options (the single-value parsers are cli/options.ts, shared by every command).
import type { IsolationLevel } from '../../client/consumer.js'
import { splitBootstrap, UsageError } from '../options.js'

export {
  acksOption,
  bootstrapDefault,
  COMPRESSION_TYPES,
  compressionOption,
  intOption,
  isolationOption,
  secondsOption,
  splitBootstrap,
  throughputOption,
  UsageError,
} from '../options.js'

/** perf patches pre-built uncompressed batches in place; a codec would have to recompress each one. */
export function checkCompression(compression: string): void {
  if (compression !== 'none') {
    throw new UsageError(
      `--compression ${compression} is not supported yet by tributary perf (it sends pre-built uncompressed batches); use --compression none, or tributary produce --compression ${compression}`,
    )
  }
}

export interface CommonOptions {
  bootstrapServer: string
  /** --command-config (cli/command-config.ts). */
  commandConfig?: string
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
  /** Produce in transactions of this transactional id (perf/transactional.ts). */
  transactionalId?: string
  /** Commit every this many ms (with or without --transactional-id). */
  transactionDurationMs?: number
}

export interface ConsumeOptions extends CommonOptions {
  /** read_committed: up to the last stable offset, without the records of aborted transactions. */
  isolation: IsolationLevel
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
