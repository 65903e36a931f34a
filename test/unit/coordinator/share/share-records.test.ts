// The `__share_group_state` records against bytes laid out by hand from Kafka's ShareSnapshotKey /
// ShareSnapshotValue / ShareUpdateKey / ShareUpdateValue schemas (key: int16 type then the
// non-flexible fields; value: int16 version 0 then the flexible fields — compact arrays, a
// tagged-field section per struct, DeliveryCompleteCount as tag 0 only when not -1), and back.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  decodeShareRecord,
  encodeShareKey,
  encodeShareRecord,
  SHARE_SNAPSHOT_TYPE,
  SHARE_UPDATE_TYPE,
} from '../../../../src/coordinator/share/share-records.js'

const TOPIC_ID = 'AAECAwQFBgcICQoLDA0ODw' // bytes 00 01 … 0f
const KEY = { groupId: 'g1', topicId: TOPIC_ID, partition: 7 }
const i32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeInt32BE(n)
  return b.toString('hex')
}
const i64 = (n: number) => {
  const b = Buffer.alloc(8)
  b.writeBigInt64BE(BigInt(n))
  return b.toString('hex')
}
const KEY_FIELDS = `0002${Buffer.from('g1').toString('hex')}000102030405060708090a0b0c0d0e0f${i32(7)}`

describe('share state records', () => {
  it('keys: int16 type (0 snapshot, 1 update), then group id (int16 length), topic id (16 bytes), partition', () => {
    assert.equal(encodeShareKey(SHARE_SNAPSHOT_TYPE, KEY).toString('hex'), `0000${KEY_FIELDS}`)
    assert.equal(encodeShareKey(SHARE_UPDATE_TYPE, KEY).toString('hex'), `0001${KEY_FIELDS}`)
  })

  it('a ShareSnapshotValue as Kafka lays it out, without and with DeliveryCompleteCount', () => {
    const value = {
      snapshotEpoch: 1,
      stateEpoch: 2,
      leaderEpoch: 3,
      startOffset: 100,
      deliveryCompleteCount: -1,
      createTimestamp: 1_700_000_000_000,
      writeTimestamp: 1_700_000_000_500,
      stateBatches: [{ firstOffset: 100, lastOffset: 109, deliveryState: 2, deliveryCount: 1 }],
    }
    const batch = `${i64(100)}${i64(109)}02${'0001'}00` // int64, int64, int8 state, int16 count, no tagged fields
    const head = `0000${i32(1)}${i32(2)}${i32(3)}${i64(100)}${i64(1_700_000_000_000)}${i64(1_700_000_000_500)}02${batch}`
    const rec = encodeShareRecord({ type: SHARE_SNAPSHOT_TYPE, key: KEY, value })
    assert.equal(rec.value!.toString('hex'), `${head}00`)
    assert.deepEqual(decodeShareRecord(rec.key, rec.value), { type: SHARE_SNAPSHOT_TYPE, key: KEY, value })

    const counted = encodeShareRecord({ type: SHARE_SNAPSHOT_TYPE, key: KEY, value: { ...value, deliveryCompleteCount: 10 } })
    // One tagged field: tag 0, size 4, the int32.
    assert.equal(counted.value!.toString('hex'), `${head}010004${i32(10)}`)
    assert.equal(decodeShareRecord(counted.key, counted.value).value?.deliveryCompleteCount, 10)
  })

  it('a ShareUpdateValue as Kafka lays it out', () => {
    const value = { snapshotEpoch: 4, leaderEpoch: 5, startOffset: -1, deliveryCompleteCount: -1, stateBatches: [] }
    const rec = encodeShareRecord({ type: SHARE_UPDATE_TYPE, key: KEY, value })
    assert.equal(rec.value!.toString('hex'), `0000${i32(4)}${i32(5)}${i64(-1)}0100`)
    assert.deepEqual(decodeShareRecord(rec.key, rec.value), { type: SHARE_UPDATE_TYPE, key: KEY, value })
  })

  it('a tombstone has a null value; unknown record types and value versions are refused', () => {
    const t = encodeShareRecord({ type: SHARE_SNAPSHOT_TYPE, key: KEY, value: null })
    assert.equal(t.value, null)
    assert.deepEqual(decodeShareRecord(t.key, null), { type: SHARE_SNAPSHOT_TYPE, key: KEY, value: null })
    assert.throws(() => decodeShareRecord(Buffer.from(`0003${KEY_FIELDS}`, 'hex'), null))
    assert.throws(() => decodeShareRecord(t.key, Buffer.from('0001', 'hex')))
    assert.throws(() => decodeShareRecord(null, null))
  })
})
