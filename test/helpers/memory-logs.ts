// Partition logs on the in-memory file system (storage/memory-fs.ts) for replication unit tests:
// a LogManager per simulated broker, batches with recognisable values, appends as a leader writes
// them (offsets and leader epoch assigned by the log) and whole-log reads to compare replicas byte
// for byte.
import { type BatchHeader, validateProducedBatches } from '../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../src/protocol/records/builder.js'
import { iterateBatches, iterateRecords } from '../../src/protocol/records/iterator.js'
import { defaultLogConfig, type LogConfig } from '../../src/storage/log-config.js'
import { LogManager } from '../../src/storage/log-manager.js'
import { MemoryFs } from '../../src/storage/memory-fs.js'
import type { AppendInfo, PartitionLog } from '../../src/storage/partition-log.js'
import { type Clock, ManualClock } from '../../src/util/clock.js'
import { silentLogger } from '../../src/util/logger.js'

/** A valid topic id (Kafka Uuid, base64url). */
export const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ'

export interface MemoryBroker {
  clock: Clock
  fs: MemoryFs
  logs: LogManager
}

/** A LogManager over a fresh MemoryFs (one per simulated broker). */
export async function memoryLogs(clock: Clock = new ManualClock(), config: Partial<LogConfig> = {}): Promise<MemoryBroker> {
  const fs = new MemoryFs(() => clock.now())
  const logs = await LogManager.open({ fs, clock, logDir: '/data', config: { ...defaultLogConfig, ...config }, logger: silentLogger })
  return { clock, fs, logs }
}

/** One batch holding one record per value (key null), timestamps from ts. */
export function batchOf(values: readonly string[], ts = 1_000_000): Buffer {
  return buildRecordBatch({ records: values.map((v, i) => ({ key: null, value: Buffer.from(v), timestamp: ts + i })) })
}

/** Appends each group of values as one batch, as the leader of `epoch` writes a producer's records. */
export async function appendAsLeader(log: PartitionLog, epoch: number, ...groups: string[][]): Promise<AppendInfo> {
  const records = Buffer.concat(groups.map((g) => batchOf(g)))
  return log.append(records, validateProducedBatches(records, { maxBatchBytes: 1 << 30 }), epoch)
}

/** Every stored byte of the log from its start to its end (whole batches, in offset order). */
export async function logBytes(log: PartitionLog): Promise<Buffer> {
  const parts: Buffer[] = []
  let offset = log.logStartOffset
  while (offset < log.logEndOffset) {
    const r = await log.read(offset, 1 << 20, Number.MAX_SAFE_INTEGER, true)
    if (r.records.length === 0) throw new Error(`read at ${offset} of ${log.topic}-${log.partition} returned nothing`)
    parts.push(r.records)
    for (const h of iterateBatches(r.records)) offset = h.baseOffset + h.lastOffsetDelta + 1
  }
  return Buffer.concat(parts)
}

/** The batches of the whole log (headers read from logBytes). */
export async function logBatches(log: PartitionLog): Promise<BatchHeader[]> {
  return [...iterateBatches(await logBytes(log))]
}

/** `offset:value@epoch` for every record of the log: what a failing comparison prints. */
export async function describeLog(log: PartitionLog): Promise<string[]> {
  const buf = await logBytes(log)
  const out: string[] = []
  for (const h of iterateBatches(buf)) {
    for (const r of iterateRecords(buf, h.position)) out.push(`${r.offset}:${r.value?.toString() ?? 'null'}@${h.partitionLeaderEpoch}`)
  }
  return out
}

/** Lets pending promise callbacks and I/O callbacks of the in-memory logs run. */
export async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

/** Waits (by event-loop turns, not by time) until cond holds; throws with `what` if it never does. */
export async function until(cond: () => boolean, what: string, turns = 2000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (cond()) return
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  throw new Error(`never happened: ${what}`)
}
