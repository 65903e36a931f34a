// KIP-467: which records of a refused batch are to blame, in Kafka's LogValidator words. The
// produce path's single walk over a batch's records (log-validator.ts) calls these as it meets
// each offending record, and refuses the batch once its walk is over:
// - each record gets at most one error, the key rule before the timestamp rule;
// - the batch index is the record's 0-based position in its batch;
// - with any timestamp error the batch is INVALID_TIMESTAMP, else INVALID_RECORD, with Kafka's
//   summary as the message (the Produce answer's error_message).
import { type RecordError, RecordValidationError } from '../protocol/errors.js'

/** CreateTime with message.timestamp.before/after.max.ms: the allowed [earliest, latest]. */
export interface TimestampBounds {
  earliest: number
  latest: number
}

/** A keyless record of a compacted topic; `partition` as Kafka's messages name it: `topic-partition`. */
export function keyError(batchIndex: number, partition: string): RecordError {
  return { batchIndex, message: `Compacted topic cannot accept message without key in topic partition ${partition}` }
}

/** A record whose timestamp is outside the bounds; `offset` is the one the producer gave it (base offset + delta). */
export function timestampError(batchIndex: number, timestamp: number, offset: number, bounds: TimestampBounds): RecordError {
  return {
    batchIndex,
    message: `Timestamp ${timestamp} of message with offset ${offset} is out of range. The timestamp should be within [${bounds.earliest}, ${bounds.latest}]`,
  }
}

/** The refusal of a batch whose records `errors` name (in record order); `badTimestamp`: one of them is a timestampError. */
export function recordValidationError(errors: RecordError[], badTimestamp: boolean): RecordValidationError {
  if (badTimestamp)
    return new RecordValidationError('INVALID_TIMESTAMP', 'One or more records have been rejected due to invalid timestamp', errors)
  const shown = errors
    .slice(0, 3)
    .map((e) => `RecordError(batchIndex=${e.batchIndex}, message=${e.message === null ? 'null' : `'${e.message}'`})`)
  return new RecordValidationError(
    'INVALID_RECORD',
    `One or more records have been rejected due to ${errors.length} record errors in total, and only showing the first three errors at most: [${shown.join(', ')}]`,
    errors,
  )
}
