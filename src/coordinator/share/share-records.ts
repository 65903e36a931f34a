// The `__share_group_state` records, byte-compatible with Kafka's share coordinator's own
// (ShareSnapshotKey/Value, ShareUpdateKey/Value of KIP-932). Pure bytes ↔ values.
//
// Key = int16 record type + the key's non-flexible fields (group id, topic id, partition);
// value = int16 version 0 + flexible fields (compact strings and arrays, tagged-field sections),
// as Kafka's coordinator record serde writes every coordinator record. Types:
//   0 ShareSnapshot  the whole state of a share-partition: snapshotEpoch, stateEpoch, leaderEpoch,
//                    startOffset, [tag 0] deliveryCompleteCount, createTimestamp, writeTimestamp,
//                    stateBatches
//   1 ShareUpdate    a change on top of the last snapshot: snapshotEpoch, leaderEpoch, startOffset
//                    (-1: unchanged), [tag 0] deliveryCompleteCount, the state batches that changed
// A null value (a tombstone) of either key removes the share-partition's state.
import type { SharePartitionKey, ShareStateBatch } from '../../ports/shares.js'
import { f, message } from '../../protocol/schema.js'

export const SHARE_SNAPSHOT_TYPE = 0
export const SHARE_UPDATE_TYPE = 1

const stateBatch = {
  firstOffset: f.int64('0+'),
  lastOffset: f.int64('0+'),
  deliveryState: f.int8('0+'),
  deliveryCount: f.int16('0+'),
}

const KeyFields = message({
  apiKey: 0,
  name: 'ShareSnapshotKey',
  versions: '0',
  flexible: 'none',
  fields: { groupId: f.string('0'), topicId: f.uuid('0'), partition: f.int32('0') },
})

export const ShareSnapshotValue = message({
  apiKey: 0,
  name: 'ShareSnapshotValue',
  versions: '0',
  flexible: '0+',
  fields: {
    snapshotEpoch: f.int32('0+'),
    stateEpoch: f.int32('0+'),
    leaderEpoch: f.int32('0+'),
    startOffset: f.int64('0+'),
    deliveryCompleteCount: f.int32('0+', { tagged: '0+', tag: 0, default: -1 }),
    createTimestamp: f.int64('0+'),
    writeTimestamp: f.int64('0+'),
    stateBatches: f.array('0+', stateBatch),
  },
})

export const ShareUpdateValue = message({
  apiKey: 1,
  name: 'ShareUpdateValue',
  versions: '0',
  flexible: '0+',
  fields: {
    snapshotEpoch: f.int32('0+'),
    leaderEpoch: f.int32('0+'),
    startOffset: f.int64('0+'),
    deliveryCompleteCount: f.int32('0+', { tagged: '0+', tag: 0, default: -1 }),
    stateBatches: f.array('0+', stateBatch),
  },
})

export interface ShareSnapshot {
  snapshotEpoch: number
  stateEpoch: number
  leaderEpoch: number
  startOffset: number
  deliveryCompleteCount: number
  createTimestamp: number
  writeTimestamp: number
  stateBatches: ShareStateBatch[]
}

export interface ShareUpdate {
  snapshotEpoch: number
  leaderEpoch: number
  /** -1: unchanged. */
  startOffset: number
  deliveryCompleteCount: number
  stateBatches: ShareStateBatch[]
}

/** One record's meaning: a snapshot, an update, or a tombstone (value null). */
export type ShareRecord =
  | { type: typeof SHARE_SNAPSHOT_TYPE; key: SharePartitionKey; value: ShareSnapshot | null }
  | { type: typeof SHARE_UPDATE_TYPE; key: SharePartitionKey; value: ShareUpdate | null }

export function encodeShareKey(type: number, k: SharePartitionKey): Buffer {
  const head = Buffer.alloc(2)
  head.writeInt16BE(type)
  return Buffer.concat([head, KeyFields.encode(0, k)])
}

export function decodeShareKey(key: Buffer): { type: number; key: SharePartitionKey } {
  if (key.length < 2) throw new Error('share state record key too short')
  const type = key.readInt16BE(0)
  if (type !== SHARE_SNAPSHOT_TYPE && type !== SHARE_UPDATE_TYPE) throw new Error(`not a share state record key type: ${type}`)
  const { groupId, topicId, partition } = KeyFields.decode(0, key.subarray(2))
  return { type, key: { groupId, topicId, partition } }
}

function withVersion(body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0, 0]), body])
}

function bodyOf(value: Buffer): Buffer {
  if (value.length < 2) throw new Error('share state record value too short')
  const version = value.readInt16BE(0)
  if (version !== 0) throw new Error(`unknown share state record value version ${version}`)
  return value.subarray(2)
}

export function encodeShareRecord(r: ShareRecord): { key: Buffer; value: Buffer | null } {
  const key = encodeShareKey(r.type, r.key)
  if (r.value === null) return { key, value: null }
  return {
    key,
    value: withVersion(
      r.type === SHARE_SNAPSHOT_TYPE ? ShareSnapshotValue.encode(0, r.value) : ShareUpdateValue.encode(0, r.value as ShareUpdate),
    ),
  }
}

export function decodeShareRecord(key: Buffer | null, value: Buffer | null): ShareRecord {
  if (key === null) throw new Error('share state record without a key')
  const k = decodeShareKey(key)
  if (k.type === SHARE_SNAPSHOT_TYPE) {
    return { type: SHARE_SNAPSHOT_TYPE, key: k.key, value: value === null ? null : ShareSnapshotValue.decode(0, bodyOf(value)) }
  }
  return { type: SHARE_UPDATE_TYPE, key: k.key, value: value === null ? null : ShareUpdateValue.decode(0, bodyOf(value)) }
}
