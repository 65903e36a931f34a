// How state batches combine (src/coordinator/share/state-batches.ts, Kafka's
// PersisterStateBatchCombiner): cut to the start offset, overlaps decided by delivery count then
// delivery state whichever batch is newer, contiguous equal runs merged, the result sorted.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { combineStateBatches } from '../../../../src/coordinator/share/state-batches.js'

const b = (firstOffset: number, lastOffset: number, deliveryState: number, deliveryCount: number) => ({
  firstOffset,
  lastOffset,
  deliveryState,
  deliveryCount,
})

describe('combineStateBatches', () => {
  it('keeps disjoint batches, sorted, and merges contiguous ones of the same state and count', () => {
    assert.deepEqual(combineStateBatches([b(10, 19, 0, 1)], [b(0, 4, 2, 1), b(5, 9, 2, 1)], -1), [b(0, 9, 2, 1), b(10, 19, 0, 1)])
  })

  it('an overlap takes the higher delivery count, then the higher state, whichever is newer', () => {
    assert.deepEqual(combineStateBatches([b(0, 9, 0, 1)], [b(3, 5, 2, 2)], -1), [b(0, 2, 0, 1), b(3, 5, 2, 2), b(6, 9, 0, 1)])
    // The stored delivery is further along: a late write does not undo it.
    assert.deepEqual(combineStateBatches([b(0, 9, 2, 3)], [b(3, 5, 0, 1)], -1), [b(0, 9, 2, 3)])
    assert.deepEqual(combineStateBatches([b(0, 9, 0, 1)], [b(0, 9, 4, 1)], -1), [b(0, 9, 4, 1)])
  })

  it('drops batches below the start offset and cuts the one across it', () => {
    assert.deepEqual(combineStateBatches([b(0, 4, 2, 1), b(5, 9, 0, 1)], [b(10, 12, 4, 5)], 7), [b(7, 9, 0, 1), b(10, 12, 4, 5)])
    assert.deepEqual(combineStateBatches([b(0, 4, 2, 1)], [], 5), [])
  })

  it('ignores a batch whose last offset is below its first', () => {
    assert.deepEqual(combineStateBatches([], [b(5, 4, 0, 1), b(1, 1, 0, 1)], -1), [b(1, 1, 0, 1)])
  })

  it('leaves gaps between batches as gaps', () => {
    assert.deepEqual(combineStateBatches([b(0, 1, 0, 1)], [b(5, 6, 0, 1)], -1), [b(0, 1, 0, 1), b(5, 6, 0, 1)])
  })
})
