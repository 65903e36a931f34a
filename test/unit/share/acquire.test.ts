// acquire.ts: the batches of a read as the share-partition sees them (offsets, byte ranges, the
// aborted transactions of a read_committed read, ended by their producer's ABORT marker), and the
// acquired ranges as ShareFetch answers them (merged runs of one delivery count).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { setBaseOffset, TRANSACTIONAL_MASK } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { buildMarkerBatch } from '../../../src/protocol/records/control-record.js'
import { type AcquiredRange, addAcquired, describeBatches } from '../../../src/share/acquire.js'

const data = (base: number, n: number, pid = -1) =>
  buildRecordBatch({
    baseOffset: base,
    producerId: pid,
    producerEpoch: pid < 0 ? -1 : 0,
    baseSequence: pid < 0 ? -1 : 0,
    attributes: pid < 0 ? 0 : TRANSACTIONAL_MASK,
    baseTimestamp: 1000 + base,
    records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`v${base + i}`) })),
  })

describe('acquire', () => {
  it('describes each batch; read_committed marks the aborted transaction up to its marker', () => {
    const marker = buildMarkerBatch({ producerId: 7, producerEpoch: 0, commit: false, coordinatorEpoch: 0, timestamp: 1 })
    setBaseOffset(marker, 0, 3)
    // The same producer's next transaction (offset 4) was committed, so it is not aborted.
    const records = Buffer.concat([data(0, 1), data(1, 2, 7), marker, data(4, 1, 7)])
    const committed = describeBatches(records, [{ producerId: 7, firstOffset: 1 }])
    assert.deepEqual(
      committed.map((b) => [b.baseOffset, b.lastOffset, b.aborted]),
      [
        [0, 0, false],
        [1, 2, true],
        [3, 3, false],
        [4, 4, false],
      ],
    )
    assert.equal(committed[1]!.position, committed[0]!.sizeBytes)
    assert.equal(committed[0]!.timestamp, 1000)
    assert.ok(describeBatches(records, null).every((b) => !b.aborted))
  })

  it('merges contiguous offsets of one delivery count', () => {
    const ranges: AcquiredRange[] = []
    for (const [off, count] of [
      [0, 1],
      [1, 1],
      [2, 2],
      [4, 2],
    ] as const)
      addAcquired(ranges, off, count)
    assert.deepEqual(ranges, [
      { firstOffset: 0, lastOffset: 1, deliveryCount: 1 },
      { firstOffset: 2, lastOffset: 2, deliveryCount: 2 },
      { firstOffset: 4, lastOffset: 4, deliveryCount: 2 },
    ])
  })
})
