// The records of `__consumer_offsets`: keys and values of committed offsets and group metadata.
// Pure bytes ↔ values, no I/O (offsets-topic.ts appends and replays them).
//
// On-disk contract. We declare the layout here and keep it byte-compatible with the records Kafka
// itself writes to this topic (its OffsetCommitKey/Value and GroupMetadataKey/Value, non-flexible
// versions), so tools that decode `__consumer_offsets` (lag monitors, kafka-console-consumer's
// offsets formatter) read ours, and a log Kafka wrote replays here. All integers are big-endian;
// string = int16 byte length + UTF-8 (length -1 = null, only where marked nullable);
// bytes = int32 length + bytes; array = int32 count + elements. No trailing bytes are allowed.
//
// Key (never null) = int16 keyVersion + fields:
//   0, 1  offset commit   group string, topic string, partition int32     (we write 1)
//   2     group metadata  group string
//   3, 5–8 the KIP-848 consumer groups' records: consumer/records.ts (offsets-topic.ts routes them)
//   other  not ours (e.g. share groups'), skipped on load.
// A key holds nothing but its identity, so it is deterministic: compaction keeps the newest record
// per key, and a tombstone (null value) for the key removes it.
//
// Offset commit value = int16 valueVersion + fields:
//   v0, v2  offset int64, metadata string, commitTimestamp int64
//   v1      offset int64, metadata string, commitTimestamp int64, expireTimestamp int64
//   v3      offset int64, leaderEpoch int32, metadata string, commitTimestamp int64
//   We write v3, or v1 when an explicit expireTimestamp is set — as Kafka does; such a commit comes
//   from OffsetCommit v2–v4 (retention_time_ms), which carries no leader epoch (added in v6).
//   Missing fields read as -1 (leaderEpoch, expireTimestamp). A null metadata is stored as ""
//   (Kafka's OffsetAndMetadata.NoMetadata): the field is not nullable.
//
// Group metadata value = int16 valueVersion + fields (we write v3):
//   protocolType string, generation int32, protocol nullable string, leader nullable string,
//   currentStateTimestamp int64 (v2+), members array of:
//     memberId string, groupInstanceId nullable string (v3+), clientId string, clientHost string,
//     rebalanceTimeout int32 (v1+), sessionTimeout int32, subscription bytes, assignment bytes
//   Missing fields read as: currentStateTimestamp -1, groupInstanceId null, rebalanceTimeout =
//   sessionTimeout (Kafka's reading of v0).
//
// Value versions ≥ 4 (Kafka's flexible encodings) are not read: such a record is reported
// undecodable, and the loader logs and skips it.
import { Reader } from '../../protocol/primitives/reader.js'
import { Writer } from '../../protocol/primitives/writer.js'
import type { RecordInput } from '../../protocol/records/builder.js'
import type { CommittedOffset, GroupSnapshot, MemberSnapshot } from './persistence.js'

export const OFFSET_COMMIT_KEY_VERSION = 1
export const GROUP_METADATA_KEY_VERSION = 2
export const OFFSET_COMMIT_VALUE_VERSION = 3
/** Written instead of v3 when the commit has an explicit expire timestamp. */
export const OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY = 1
export const GROUP_METADATA_VALUE_VERSION = 3

const MAX_INT16_STRING_BYTES = 0x7fff

/** A key or value that cannot be encoded, or bytes that do not decode to a record. */
export class OffsetsRecordError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'OffsetsRecordError'
  }
}

export type OffsetsRecordKey = { type: 'offset'; group: string; topic: string; partition: number } | { type: 'group'; group: string }

export type OffsetsRecord =
  | { type: 'offset'; group: string; topic: string; partition: number; value: CommittedOffset | null }
  | { type: 'group'; group: string; snapshot: GroupSnapshot | null }

// ---- encoding ----

function writeString(w: Writer, s: string, field: string): void {
  const n = Buffer.byteLength(s, 'utf8')
  if (n > MAX_INT16_STRING_BYTES) {
    throw new OffsetsRecordError(`${field} is ${n} bytes; an int16-length string holds at most ${MAX_INT16_STRING_BYTES}`)
  }
  w.int16(n).utf8(s, n)
}

function writeNullableString(w: Writer, s: string | null, field: string): void {
  if (s === null) w.int16(-1)
  else writeString(w, s, field)
}

function writeBytes(w: Writer, b: Buffer): void {
  w.int32(b.length).bytes(b)
}

function writeInt64(w: Writer, v: number, field: string): void {
  if (!Number.isSafeInteger(v)) throw new OffsetsRecordError(`${field} ${v} is not a safe integer`)
  w.int64(v)
}

function writeInt32(w: Writer, v: number, field: string): void {
  if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) throw new OffsetsRecordError(`${field} ${v} is not an int32`)
  w.int32(v)
}

export function encodeOffsetCommitKey(group: string, topic: string, partition: number): Buffer {
  const w = new Writer(64)
  w.int16(OFFSET_COMMIT_KEY_VERSION)
  writeString(w, group, 'group id')
  writeString(w, topic, 'topic')
  writeInt32(w, partition, 'partition')
  return w.toBuffer()
}

export function encodeGroupMetadataKey(group: string): Buffer {
  const w = new Writer(64)
  w.int16(GROUP_METADATA_KEY_VERSION)
  writeString(w, group, 'group id')
  return w.toBuffer()
}

export function encodeOffsetCommitValue(v: CommittedOffset): Buffer {
  const w = new Writer(64)
  if (v.expireTimestampMs !== -1) {
    w.int16(OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY)
    writeInt64(w, v.offset, 'offset')
    writeString(w, v.metadata ?? '', 'offset metadata')
    writeInt64(w, v.commitTimestampMs, 'commit timestamp')
    writeInt64(w, v.expireTimestampMs, 'expire timestamp')
  } else {
    w.int16(OFFSET_COMMIT_VALUE_VERSION)
    writeInt64(w, v.offset, 'offset')
    writeInt32(w, v.leaderEpoch, 'leader epoch')
    writeString(w, v.metadata ?? '', 'offset metadata')
    writeInt64(w, v.commitTimestampMs, 'commit timestamp')
  }
  return w.toBuffer()
}

export function encodeGroupMetadataValue(s: GroupSnapshot): Buffer {
  let size = 64
  for (const m of s.members) size += 64 + m.subscription.length + m.assignment.length
  const w = new Writer(size)
  w.int16(GROUP_METADATA_VALUE_VERSION)
  writeString(w, s.protocolType, 'protocol type')
  writeInt32(w, s.generationId, 'generation')
  writeNullableString(w, s.protocolName, 'protocol name')
  writeNullableString(w, s.leaderId, 'leader id')
  writeInt64(w, s.currentStateTimestampMs, 'current state timestamp')
  w.int32(s.members.length)
  for (const m of s.members) {
    writeString(w, m.memberId, 'member id')
    writeNullableString(w, m.groupInstanceId, 'group instance id')
    writeString(w, m.clientId, 'client id')
    writeString(w, m.clientHost, 'client host')
    writeInt32(w, m.rebalanceTimeoutMs, 'rebalance timeout')
    writeInt32(w, m.sessionTimeoutMs, 'session timeout')
    writeBytes(w, m.subscription)
    writeBytes(w, m.assignment)
  }
  return w.toBuffer()
}

/** The record for one committed offset (null value: a tombstone deleting it). */
export function offsetCommitRecord(group: string, topic: string, partition: number, value: CommittedOffset | null): RecordInput {
  return { key: encodeOffsetCommitKey(group, topic, partition), value: value === null ? null : encodeOffsetCommitValue(value) }
}

/** The record for a group's metadata (null snapshot: a tombstone deleting the group). */
export function groupMetadataRecord(group: string, snapshot: GroupSnapshot | null): RecordInput {
  return { key: encodeGroupMetadataKey(group), value: snapshot === null ? null : encodeGroupMetadataValue(snapshot) }
}

// ---- decoding (bounds-checked: every length is checked against the bytes left) ----

function readString(r: Reader, field: string): string {
  const n = r.int16()
  if (n < 0) throw new OffsetsRecordError(`${field} is null or has length ${n}`)
  return r.utf8(n)
}

function readNullableString(r: Reader, field: string): string | null {
  const n = r.int16()
  if (n === -1) return null
  if (n < 0) throw new OffsetsRecordError(`${field} has length ${n}`)
  return r.utf8(n)
}

/** A copy, so the value outlives the read buffer it came from. */
function readBytes(r: Reader, field: string): Buffer {
  const n = r.int32()
  if (n < 0) throw new OffsetsRecordError(`${field} is null or has length ${n}`)
  return Buffer.from(r.slice(n))
}

function finish(r: Reader, what: string): void {
  if (r.remaining !== 0) throw new OffsetsRecordError(`${what} has ${r.remaining} trailing bytes`)
}

/** Runs a decoder, turning the Reader's DecodeError into OffsetsRecordError. */
function decoding<T>(what: string, fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    if (err instanceof OffsetsRecordError) throw err
    throw new OffsetsRecordError(`${what}: ${(err as Error).message}`)
  }
}

/** The key's version without decoding the rest (-1 if the key is too short to have one). */
export function keyVersionOf(key: Buffer): number {
  return key.length < 2 ? -1 : key.readInt16BE(0)
}

export function decodeKey(key: Buffer): OffsetsRecordKey {
  return decoding('key', () => {
    const r = new Reader(key)
    const version = r.int16()
    let out: OffsetsRecordKey
    if (version === 0 || version === 1) {
      const group = readString(r, 'group id')
      const topic = readString(r, 'topic')
      out = { type: 'offset', group, topic, partition: r.int32() }
    } else if (version === 2) {
      out = { type: 'group', group: readString(r, 'group id') }
    } else {
      throw new OffsetsRecordError(`unknown key version ${version}`)
    }
    finish(r, 'key')
    return out
  })
}

export function decodeOffsetCommitValue(value: Buffer): CommittedOffset {
  return decoding('offset commit value', () => {
    const r = new Reader(value)
    const version = r.int16()
    if (version < 0 || version > 3) throw new OffsetsRecordError(`unknown offset commit value version ${version}`)
    const offset = r.int64()
    const leaderEpoch = version >= 3 ? r.int32() : -1
    const metadata = readString(r, 'offset metadata')
    const commitTimestampMs = r.int64()
    const expireTimestampMs = version === 1 ? r.int64() : -1
    finish(r, 'offset commit value')
    return { offset, leaderEpoch, metadata, commitTimestampMs, expireTimestampMs }
  })
}

export function decodeGroupMetadataValue(value: Buffer): GroupSnapshot {
  return decoding('group metadata value', () => {
    const r = new Reader(value)
    const version = r.int16()
    if (version < 0 || version > 3) throw new OffsetsRecordError(`unknown group metadata value version ${version}`)
    const protocolType = readString(r, 'protocol type')
    const generationId = r.int32()
    const protocolName = readNullableString(r, 'protocol name')
    const leaderId = readNullableString(r, 'leader id')
    const currentStateTimestampMs = version >= 2 ? r.int64() : -1
    const count = r.int32()
    // A member takes at least 2+2+2+4+4+4 bytes (+2 from v3, +4 from v1): bound the count first.
    const minMember = 18 + (version >= 1 ? 4 : 0) + (version >= 3 ? 2 : 0)
    if (count < 0 || count * minMember > r.remaining) throw new OffsetsRecordError(`member count ${count} is invalid`)
    const members: MemberSnapshot[] = []
    for (let i = 0; i < count; i++) {
      const memberId = readString(r, 'member id')
      const groupInstanceId = version >= 3 ? readNullableString(r, 'group instance id') : null
      const clientId = readString(r, 'client id')
      const clientHost = readString(r, 'client host')
      const rebalanceTimeout = version >= 1 ? r.int32() : null
      const sessionTimeoutMs = r.int32()
      members.push({
        memberId,
        groupInstanceId,
        clientId,
        clientHost,
        rebalanceTimeoutMs: rebalanceTimeout ?? sessionTimeoutMs,
        sessionTimeoutMs,
        subscription: readBytes(r, 'subscription'),
        assignment: readBytes(r, 'assignment'),
      })
    }
    finish(r, 'group metadata value')
    return { protocolType, generationId, protocolName, leaderId, currentStateTimestampMs, members }
  })
}

/**
 * One record of the topic, decoded; a null value is a tombstone. Throws OffsetsRecordError for a
 * null key, an unknown key version or bytes that do not decode.
 */
export function decodeRecord(key: Buffer | null, value: Buffer | null): OffsetsRecord {
  if (key === null) throw new OffsetsRecordError('record has a null key')
  const k = decodeKey(key)
  if (k.type === 'offset') return { ...k, value: value === null ? null : decodeOffsetCommitValue(value) }
  return { ...k, snapshot: value === null ? null : decodeGroupMetadataValue(value) }
}
