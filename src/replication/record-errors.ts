// KIP-467: which records of a refused batch are to blame. The produce path's checks (the key rule
// of compacted topics, the CreateTime bounds in replica-manager.ts) stay cheap and stop at the
// first offending batch; only then is that batch walked record by record here, to name every
// offending record as Kafka's LogValidator does:
// - each record gets at most one error, the key rule before the timestamp rule;
// - the batch index is the record's 0-based position in its batch;
// - with any timestamp error the batch is INVALID_TIMESTAMP, else INVALID_RECORD, with Kafka's
//   summary as the message (the Produce answer's error_message).
import { type RecordError, RecordValidationError } from '../protocol/errors.js'
import { type BatchHeader, NO_TIMESTAMP } from '../protocol/records/batch.js'
import { iterateRecords } from '../protocol/records/iterator.js'

/** The per-record rules a produced batch is held to. */
export interface RecordRules {
  /** The partition as Kafka's messages name it: `topic-partition`. */
  partition: string
  /** cleanup.policy includes compact: every record needs a key. */
  requireKeys: boolean
  /** CreateTime with message.timestamp.before/after.max.ms: the allowed [earliest, latest]; null: none. */
  timestampBounds: { earliest: number; latest: number } | null
  /** Bound on the batch's records once decompressed (tributary.max.decompressed.batch.bytes). */
  maxDecompressedBytes: number
}

/** The refusal of the batch b of `records`, naming each of its records that breaks a rule. */
export function recordValidationError(records: Buffer, b: BatchHeader, rules: RecordRules): RecordValidationError {
  const errors: RecordError[] = []
  const bounds = rules.timestampBounds
  let badTimestamp = false
  let index = 0
  for (const r of iterateRecords(records, b.position, rules.maxDecompressedBytes)) {
    if (rules.requireKeys && r.key === null) {
      errors.push({ batchIndex: index, message: `Compacted topic cannot accept message without key in topic partition ${rules.partition}` })
    } else if (bounds && r.timestamp !== NO_TIMESTAMP && (r.timestamp < bounds.earliest || r.timestamp > bounds.latest)) {
      badTimestamp = true
      errors.push({
        batchIndex: index,
        message: `Timestamp ${r.timestamp} of message with offset ${r.offset} is out of range. The timestamp should be within [${bounds.earliest}, ${bounds.latest}]`,
      })
    }
    index++
  }
  if (badTimestamp) return new RecordValidationError('INVALID_TIMESTAMP', 'One or more records have been rejected due to invalid timestamp', errors)
  const shown = errors.slice(0, 3).map((e) => `RecordError(batchIndex=${e.batchIndex}, message=${e.message === null ? 'null' : `'${e.message}'`})`)
  return new RecordValidationError(
    'INVALID_RECORD',
    `One or more records have been rejected due to ${errors.length} record errors in total, and only showing the first three errors at most: [${shown.join(', ')}]`,
    errors,
  )
}
