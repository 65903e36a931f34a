// The produce path's validation of a producer's records, in one pass per batch (Kafka's
// LogValidator): everything ReplicaManager.append checks, rewrites or rebuilds before the log
// stores a batch, with each batch's records decoded at most once.
//
// It lives in replication/, not storage/, because it is the leader's client-facing rule book: it
// applies the topic's produce-time configs (message.timestamp.*, cleanup.policy, compression.type)
// and the Produce request's version, and answers with the client's error codes and KIP-467 record
// errors. The log below it only stores and indexes whole batches it is handed (its contract is in
// storage/partition-log.ts), and a follower appends the leader's batches without this pass
// (replica-fetcher.ts) — as in Kafka, where UnifiedLog runs LogValidator only for the leader's appends.
//
// Per Produce partition:
// 1. Batch headers, all batches first (batch.ts validateProducedBatches, Kafka's
//    analyzeAndValidateRecords): length, magic, max.message.bytes (MESSAGE_TOO_LARGE), CRC-32C
//    (CORRUPT_MESSAGE), record count against lastOffsetDelta, no client control batch, known codec
//    (zstd from Produce v7). Nothing is decompressed yet, so a corrupt later batch is found cheaply.
// 2. Then each batch, in order, completely before the next:
//    a. a producer may not mark a batch LogAppendTime (INVALID_TIMESTAMP);
//    b. its records section: a compressed batch is decompressed here, once — bounded by
//       tributary.max.decompressed.batch.bytes, so a compression bomb is INVALID_RECORD rather than
//       followed, undecodable data CORRUPT_MESSAGE (compression.ts); an uncompressed batch is read
//       in place, and only when a rule below needs its records (docs/architecture.md §1.3: no per-record
//       decoding on the hot path otherwise);
//    c. one walk over its records: structure (each record's length covers exactly its fields,
//       exactly recordCount records and nothing after them, and — for compressed batches, Kafka's
//       "inner record … does not have incremental offsets" — offset deltas 0, 1, 2, …; INVALID_RECORD
//       otherwise), the key rule of compacted topics, and on CreateTime topics with
//       message.timestamp.before/after.max.ms each record's timestamp against
//       [now - before, now + after] (KIP-937). Each offending record is named as it is met
//       (record-errors.ts): one error per record, the key rule first; the batch is then refused
//       with a RecordValidationError (INVALID_TIMESTAMP if any timestamp is to blame, else
//       INVALID_RECORD) that the Produce handler answers with as record_errors;
//    d. an idempotent producer's batch (producer id ≥ 0) must carry a sequence (INVALID_RECORD
//       otherwise, Kafka's LogValidator.validateBatch; not the broker's own coordinator's
//       transactional offset commits, which have none); its producer-state rules are the log's — see
//       "Idempotent producers" below;
//    e. what is stored: with compression.type `producer`, or naming the batch's own codec, the
//       producer's bytes (stamped in place on a LogAppendTime topic: maxTimestamp = now and the
//       timestamp-type bit, CRC recomputed, as Kafka's DefaultRecordBatch.setMaxTimestamp); with
//       another codec, or `uncompressed`, the batch rebuilt from the records of step b (not
//       decompressed again) with the topic's codec and level, the same header fields and record
//       bytes, the LogAppendTime stamp if any, one new CRC — and it must still fit
//       max.message.bytes (MESSAGE_TOO_LARGE), as Kafka checks sizes again after recompressing.
// A batch refused stops the pass: nothing of the partition's records is appended.
//
// Idempotent producers (Kafka's ProducerAppendInfo): the epoch / sequence rules and the duplicate
// check are not part of this pass but of the log's serialized append (storage/producer-state.ts,
// run by PartitionLog.append after this pass, as Kafka's UnifiedLog checks producer state under
// its lock after LogValidator). There the check, the offsets and the state update are one step,
// so a producer's in-flight batches (up to 5, in one request or several) are checked against the
// state including every batch appended before them, and a follower's appends update the same
// state. A duplicate comes back from the log as a normal append result with the original offsets
// (AppendInfo.duplicate), which ReplicaManager.append hands to the Produce handler.
import { KafkaError, type RecordError } from '../protocol/errors.js'
import {
  BATCH_HEADER_SIZE,
  type BatchHeader,
  CompressionType,
  MIN_RECORD_BYTES,
  NO_TIMESTAMP,
  readBatchHeader,
  setLogAppendTime,
  TimestampType,
  validateProducedBatches,
} from '../protocol/records/batch.js'
import { rebuildBatch } from '../protocol/records/builder.js'
import { codecByName, decompress } from '../protocol/records/compression.js'
import { RecordReader } from '../protocol/records/varint.js'
import type { RecordPolicy } from '../ports/replicas.js'
import { keyError, recordValidationError, type TimestampBounds, timestampError } from './record-errors.js'

// The policy types are the ReplicaService port's (ports/replicas.ts): the produce handler builds them.
export type { RecordPolicy, TimestampPolicy } from '../ports/replicas.js'

/** What the validation needs besides the policy: where the records go, the broker's limits and clock. */
export interface ValidationContext {
  /** The partition as Kafka's messages name it: `topic-partition`. */
  partition: string
  /** The topic's max.message.bytes, per batch. */
  maxBatchBytes: number
  /** tributary.max.decompressed.batch.bytes. */
  maxDecompressedBytes: number
  /** The broker's clock (the LogAppendTime stamp, the CreateTime bounds). */
  now: number
  /** The broker's own coordinator writes (Kafka's AppendOrigin.COORDINATOR): a batch with a producer id needs no sequence. */
  coordinator?: boolean
}

/** The records to append and their headers (positions in `records`), as PartitionLog.append takes them. */
export interface ValidatedRecords {
  records: Buffer
  batches: BatchHeader[]
}

/** How one batch is to be checked and stored, the same for every batch of the partition's records. */
interface BatchRules {
  partition: string
  maxBatchBytes: number
  maxDecompressedBytes: number
  requireKeys: boolean
  /** null: no CreateTime bound (or a LogAppendTime topic). */
  bounds: TimestampBounds | null
  /** The broker's time to stamp, on a LogAppendTime topic. */
  logAppendTime: number | undefined
  /** The codec compression.type names; undefined: `producer`. */
  codec: number | undefined
  compressionType: string
  level: number | undefined
  coordinator: boolean
}

/**
 * Validates a Produce partition's records (see the header comment) and returns what to append:
 * the producer's buffer (stamped in place on a LogAppendTime topic) or, when compression.type made
 * the broker rebuild a batch, a new buffer. Throws the KafkaError of the first refused batch — a
 * RecordValidationError when records of it are to blame.
 */
export function validateRecords(records: Buffer, policy: RecordPolicy, ctx: ValidationContext): ValidatedRecords {
  const batches = validateProducedBatches(records, {
    maxBatchBytes: ctx.maxBatchBytes,
    ...(policy.produceVersion === undefined ? {} : { produceVersion: policy.produceVersion }),
  })
  const rules = batchRules(policy, ctx)
  // The rebuilt partition's records, once a batch is rebuilt (the batches before it copied as they are).
  let parts: Buffer[] | null = null
  let outPos = 0
  for (let i = 0; i < batches.length; i++) {
    const h = batches[i]!
    const rebuilt = validateBatch(records, h, rules)
    if (rebuilt === null && parts === null) {
      outPos += h.sizeBytes
      continue
    }
    if (parts === null) parts = batches.slice(0, i).map((b) => records.subarray(b.position, b.position + b.sizeBytes))
    if (rebuilt === null) {
      parts.push(records.subarray(h.position, h.position + h.sizeBytes))
      h.position = outPos
    } else {
      parts.push(rebuilt)
      batches[i] = { ...readBatchHeader(rebuilt, 0), position: outPos }
    }
    outPos += batches[i]!.sizeBytes
  }
  if (parts === null) return { records, batches }
  return { records: parts.length === 1 ? parts[0]! : Buffer.concat(parts, outPos), batches }
}

function batchRules(policy: RecordPolicy, ctx: ValidationContext): BatchRules {
  const compressionType = policy.compressionType ?? 'producer'
  let codec: number | undefined
  if (compressionType !== 'producer') {
    codec = codecByName(compressionType)
    if (codec === undefined) throw new KafkaError('INVALID_CONFIG', `unknown compression.type ${compressionType}`)
  }
  const bounded = !policy.logAppendTime && (policy.beforeMaxMs < Number.MAX_SAFE_INTEGER || policy.afterMaxMs < Number.MAX_SAFE_INTEGER)
  return {
    partition: ctx.partition,
    maxBatchBytes: ctx.maxBatchBytes,
    maxDecompressedBytes: ctx.maxDecompressedBytes,
    requireKeys: policy.requireKeys === true,
    bounds: bounded ? { earliest: ctx.now - policy.beforeMaxMs, latest: ctx.now + policy.afterMaxMs } : null,
    logAppendTime: policy.logAppendTime ? ctx.now : undefined,
    codec,
    compressionType,
    level: policy.compressionLevel,
    coordinator: ctx.coordinator === true,
  }
}

/**
 * Step 2 of the header comment for the batch h of `records`: throws if it is refused; returns the
 * rebuilt batch when compression.type makes the broker rebuild it, else null (the producer's
 * bytes are stored, stamped in place on a LogAppendTime topic; h is kept in step).
 */
function validateBatch(records: Buffer, h: BatchHeader, rules: BatchRules): Buffer | null {
  // a. The timestamp type is the broker's to set.
  if (h.timestampType === TimestampType.LogAppendTime) {
    throw new KafkaError('INVALID_TIMESTAMP', 'Invalid timestamp type in batch: producers must not set LogAppendTime')
  }
  const compressed = h.compression !== CompressionType.None
  const rebuild = rules.codec !== undefined && rules.codec !== h.compression
  // b. The records section, decoded once if anything needs it.
  const stored = records.subarray(h.position + BATCH_HEADER_SIZE, h.position + h.sizeBytes)
  const section = compressed ? decompress(h.compression, stored, rules.maxDecompressedBytes) : stored
  // c. The one walk over the records (an uncompressed batch's only when a record rule applies).
  if (compressed || rules.requireKeys || rules.bounds !== null) walkRecords(section, h, compressed, rules)
  // d. An idempotent batch without a sequence (its producer-state rules are the log's: see the header comment).
  if (h.producerId >= 0 && h.baseSequence < 0 && !rules.coordinator) {
    throw new KafkaError('INVALID_RECORD', `Invalid sequence number ${h.baseSequence} in record batch with producerId ${h.producerId}`)
  }
  // e. What is stored.
  if (rebuild) {
    const out = rebuildBatch(records, h.position, section, rules.codec!, {
      ...(rules.level === undefined ? {} : { level: rules.level }),
      ...(rules.logAppendTime === undefined ? {} : { logAppendTime: rules.logAppendTime }),
    })
    if (out.length > rules.maxBatchBytes) {
      throw new KafkaError(
        'MESSAGE_TOO_LARGE',
        `batch recompressed with ${rules.compressionType} is ${out.length} bytes, over the ${rules.maxBatchBytes}-byte limit`,
      )
    }
    return out
  }
  if (rules.logAppendTime !== undefined) setLogAppendTime(records, h, rules.logAppendTime)
  return null
}

/**
 * Walks the records section of the batch h without keeping anything per record (see the header
 * comment, step 2c): throws INVALID_RECORD on a structural fault, and a RecordValidationError
 * naming every record that breaks the key or timestamp rule once the whole batch is walked.
 */
function walkRecords(section: Buffer, h: BatchHeader, compressed: boolean, rules: BatchRules): void {
  const { recordCount, baseTimestamp } = h
  const { bounds, requireKeys } = rules
  const r = new RecordReader(section, 0, section.length)
  let errors: RecordError[] | null = null
  let badTimestamp = false
  try {
    for (let i = 0; i < recordCount; i++) {
      if (r.remaining === 0) {
        throw new KafkaError('INVALID_RECORD', `Incorrect declared batch size, premature EOF reached after ${i} of ${recordCount} records`)
      }
      const length = r.readVarint()
      if (length < MIN_RECORD_BYTES - 1 || length > r.remaining) {
        throw new KafkaError('INVALID_RECORD', `record ${i} length ${length} is invalid`)
      }
      const recordEnd = r.pos + length
      r.end = recordEnd
      r.readInt8() // attributes: unused in v2
      const timestamp = baseTimestamp + r.readVarlong()
      const offsetDelta = r.readVarint()
      if (compressed && offsetDelta !== i) {
        throw new KafkaError(
          'INVALID_RECORD',
          `record ${i} inside the compressed batch has offset delta ${offsetDelta}: offsets must be incremental`,
        )
      }
      const keyless = skipNullable(r)
      skipNullable(r)
      const headerCount = r.readVarint()
      if (headerCount < 0 || headerCount * 2 > r.remaining) {
        throw new KafkaError('INVALID_RECORD', `record ${i} header count ${headerCount} is invalid`)
      }
      for (let j = 0; j < headerCount; j++) {
        const keyLength = r.readVarint()
        if (keyLength < 0) throw new KafkaError('INVALID_RECORD', `record ${i} header ${j} has a null key`)
        r.readBytes(keyLength)
        skipNullable(r)
      }
      if (r.pos !== recordEnd) throw new KafkaError('INVALID_RECORD', `record ${i} has ${recordEnd - r.pos} extra bytes`)
      r.end = section.length
      // One error per record, the key rule first (Kafka's LogValidator.validateRecord).
      if (requireKeys && keyless) {
        errors ??= []
        errors.push(keyError(i, rules.partition))
      } else if (bounds !== null && timestamp !== NO_TIMESTAMP && (timestamp < bounds.earliest || timestamp > bounds.latest)) {
        badTimestamp = true
        errors ??= []
        errors.push(timestampError(i, timestamp, h.baseOffset + offsetDelta, bounds))
      }
    }
  } catch (err) {
    if (err instanceof KafkaError && err.errorName === 'CORRUPT_MESSAGE') {
      throw new KafkaError('INVALID_RECORD', `Found invalid record structure: ${err.message}`)
    }
    throw err
  }
  if (r.remaining !== 0) {
    throw new KafkaError('INVALID_RECORD', `Incorrect declared batch size, ${r.remaining} bytes remain after ${recordCount} records`)
  }
  if (errors !== null) throw recordValidationError(errors, badTimestamp)
}

/** Skips a varint-length nullable field; true when it is null. */
function skipNullable(r: RecordReader): boolean {
  const len = r.readVarint()
  if (len < -1) throw new KafkaError('INVALID_RECORD', `negative length ${len} at ${r.pos}`)
  if (len > 0) r.readBytes(len)
  return len === -1
}
