// Shared by the transaction tests: transactional batches, markers appended as the coordinator
// writes them, and the producer state driven as the log drives it.
import { readBatchHeader, TRANSACTIONAL_MASK } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { buildMarkerBatch } from '../../../src/protocol/records/control-record.js'
import { iterateBatches } from '../../../src/protocol/records/iterator.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import type { CompletedTxn, PrepareOptions, ProducerStateManager } from '../../../src/storage/producer-state.js'

/** The virtual clock's start: batches are stamped near it, or their producers would be long expired. */
export const T0 = 1_700_000_000_000

/** A batch of n keyed records of producer pid (transactional unless told otherwise). */
export function txnBatch(
  pid: number,
  epoch: number,
  seq: number,
  n = 1,
  opts: { transactional?: boolean; ts?: number; key?: string } = {},
) {
  const ts = opts.ts ?? T0
  return buildRecordBatch({
    baseTimestamp: ts,
    producerId: pid,
    producerEpoch: epoch,
    baseSequence: seq,
    attributes: opts.transactional === false ? 0 : TRANSACTIONAL_MASK,
    records: Array.from({ length: n }, (_, i) => ({
      key: Buffer.from(`${opts.key ?? `p${pid}`}-${i}`),
      value: Buffer.from(`p${pid}-s${seq + i}`),
      timestamp: ts + i,
    })),
  })
}

export function marker(pid: number, epoch: number, commit: boolean, coordinatorEpoch = 0, ts = T0): Buffer {
  return buildMarkerBatch({ producerId: pid, producerEpoch: epoch, coordinatorEpoch, commit, timestamp: ts })
}

/** Appends a marker to the log as ReplicaManager.writeTxnMarker does (origin coordinator). */
export function writeMarker(log: PartitionLog, pid: number, epoch: number, commit: boolean, coordinatorEpoch = 0, transactionVersion = 0) {
  const b = marker(pid, epoch, commit, coordinatorEpoch)
  return log.append(b, [readBatchHeader(b, 0)], 0, { origin: 'coordinator', transactionVersion })
}

/**
 * The buffers appended to the state at offsets from base, as the log does around a write:
 * prepare, commit, then complete the transactions ended. Returns what the markers completed.
 */
export function applyToState(s: ProducerStateManager, buffers: Buffer[], base: number, opts?: PrepareOptions) {
  const records = Buffer.concat(buffers)
  const hs = [...iterateBatches(records)]
  let offset = base
  for (const h of hs) {
    h.baseOffset = offset
    offset += h.lastOffsetDelta + 1
  }
  const p = s.prepare(hs, records, opts)
  if (p.duplicate) return { duplicate: true, completed: [] as Array<CompletedTxn & { lastStableOffset: number }> }
  s.commit(p.updates)
  const completed = (p.updates?.completed ?? []).map((c) => ({ ...c, lastStableOffset: s.completeTxn(c) }))
  return { duplicate: false, completed }
}
