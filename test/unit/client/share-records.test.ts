// Records of a ShareFetch answer (src/client/share-records.ts): only the offsets inside the
// acquired ranges are delivered, each with its range's delivery count; acquired offsets with no
// data record (a transaction marker, a hole) become GAP acknowledgements; a corrupt batch is
// rejected for the offsets acquired in it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AcknowledgeType } from '../../../src/client/share-acks.js'
import { decodeShareRecords } from '../../../src/client/share-records.js'
import { CRC_OFFSET, setBaseOffset } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { buildMarkerBatch } from '../../../src/protocol/records/control-record.js'

function batch(baseOffset: number, values: string[]): Buffer {
  return buildRecordBatch({
    baseOffset,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    attributes: 0,
    records: values.map((v) => ({ key: null, value: Buffer.from(v), timestamp: 1000 })),
  })
}

const values = (r: ReturnType<typeof decodeShareRecords>) => r.records.map((x) => [x.offset, x.value?.toString(), x.deliveryCount])

describe('decodeShareRecords', () => {
  it('delivers only the acquired offsets, with their delivery counts', () => {
    const buf = Buffer.concat([batch(0, ['a', 'b', 'c', 'd']), batch(4, ['e', 'f'])])
    const r = decodeShareRecords('t', 0, buf, [
      { firstOffset: 1, lastOffset: 2, deliveryCount: 1 },
      { firstOffset: 4, lastOffset: 4, deliveryCount: 3 },
    ])
    assert.deepEqual(values(r), [
      [1, 'b', 1],
      [2, 'c', 1],
      [4, 'e', 3],
    ])
    assert.deepEqual(r.automatic, new Map())
    assert.equal(r.error, null)
    assert.ok(r.records.every((x) => x.topic === 't' && x.partition === 0))
  })

  it('delivers nothing without acquired ranges', () => {
    const r = decodeShareRecords('t', 0, batch(0, ['a']), [])
    assert.deepEqual(r.records, [])
  })

  it('acknowledges acquired offsets without a data record as GAP', () => {
    const m = buildMarkerBatch({ producerId: 9, producerEpoch: 0, coordinatorEpoch: 0, commit: true, timestamp: 1000 })
    setBaseOffset(m, 0, 2)
    const buf = Buffer.concat([batch(0, ['a', 'b']), m, batch(5, ['f'])]) // 3 and 4: compacted away
    const r = decodeShareRecords('t', 0, buf, [{ firstOffset: 0, lastOffset: 5, deliveryCount: 1 }])
    assert.deepEqual(values(r), [
      [0, 'a', 1],
      [1, 'b', 1],
      [5, 'f', 1],
    ])
    assert.deepEqual(
      r.automatic,
      new Map([
        [2, AcknowledgeType.Gap],
        [3, AcknowledgeType.Gap],
        [4, AcknowledgeType.Gap],
      ]),
    )
  })

  it('rejects the acquired offsets of a batch that fails its CRC, and says so', () => {
    const bad = batch(3, ['x', 'y'])
    bad[CRC_OFFSET] = bad[CRC_OFFSET]! ^ 0xff
    const buf = Buffer.concat([batch(0, ['a', 'b', 'c']), bad])
    const r = decodeShareRecords('t', 0, buf, [{ firstOffset: 2, lastOffset: 4, deliveryCount: 1 }])
    assert.deepEqual(values(r), [[2, 'c', 1]])
    assert.deepEqual(
      r.automatic,
      new Map([
        [3, AcknowledgeType.Reject],
        [4, AcknowledgeType.Reject],
      ]),
    )
    assert.equal(r.error?.code, 'CORRUPT_MESSAGE')
  })
})
