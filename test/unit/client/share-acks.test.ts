// Acknowledgement batches of the share consumer (src/client/share-acks.ts), as Kafka's consumer
// builds them: contiguous offsets in one batch, a new batch at every hole, one type for a batch of
// one type, one type per offset otherwise, and long same-type stretches of a mixed run cut out.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  AcknowledgeType,
  type AcknowledgeTypeId,
  acknowledgementBatches,
  ackTypeOf,
  expandBatches,
  SAME_TYPE_RUN,
} from '../../../src/client/share-acks.js'

const { Gap, Accept, Release, Reject } = AcknowledgeType

const acks = (entries: Array<[number, AcknowledgeTypeId]>) => new Map(entries)

describe('acknowledgementBatches', () => {
  it('gives nothing for nothing', () => {
    assert.deepEqual(acknowledgementBatches(new Map()), [])
  })

  it('puts a contiguous range of one type in one batch with the type once', () => {
    const m = acks([5, 6, 7, 8].map((o) => [o, Accept]))
    assert.deepEqual(acknowledgementBatches(m), [{ firstOffset: 5, lastOffset: 8, acknowledgeTypes: [Accept] }])
  })

  it('starts a new batch at every hole, whatever the order the offsets came in', () => {
    const m = acks([
      [13, Accept],
      [3, Accept],
      [4, Accept],
      [10, Reject],
      [11, Reject],
    ])
    assert.deepEqual(acknowledgementBatches(m), [
      { firstOffset: 3, lastOffset: 4, acknowledgeTypes: [Accept] },
      { firstOffset: 10, lastOffset: 11, acknowledgeTypes: [Reject] },
      { firstOffset: 13, lastOffset: 13, acknowledgeTypes: [Accept] },
    ])
  })

  it('gives a short mixed run one type per offset', () => {
    const m = acks([
      [0, Accept],
      [1, Release],
      [2, Accept],
      [3, Gap],
    ])
    assert.deepEqual(acknowledgementBatches(m), [{ firstOffset: 0, lastOffset: 3, acknowledgeTypes: [Accept, Release, Accept, Gap] }])
  })

  it('cuts a long same-type stretch out of a mixed run', () => {
    const entries: Array<[number, AcknowledgeTypeId]> = [[100, Release]]
    for (let o = 101; o <= 100 + SAME_TYPE_RUN + 5; o++) entries.push([o, Accept])
    entries.push([100 + SAME_TYPE_RUN + 6, Reject], [100 + SAME_TYPE_RUN + 7, Accept])
    const batches = acknowledgementBatches(acks(entries))
    assert.deepEqual(batches, [
      { firstOffset: 100, lastOffset: 100, acknowledgeTypes: [Release] },
      { firstOffset: 101, lastOffset: 100 + SAME_TYPE_RUN + 5, acknowledgeTypes: [Accept] },
      { firstOffset: 100 + SAME_TYPE_RUN + 6, lastOffset: 100 + SAME_TYPE_RUN + 7, acknowledgeTypes: [Reject, Accept] },
    ])
    assert.deepEqual(expandBatches(batches), new Map(entries))
  })

  it('always says the same as what was acknowledged, and each batch is well formed', () => {
    let seed = 7
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    for (let round = 0; round < 200; round++) {
      const m = new Map<number, AcknowledgeTypeId>()
      let o = Math.floor(rand() * 50)
      for (let i = 0; i < 60; i++) {
        o += rand() < 0.1 ? 2 + Math.floor(rand() * 5) : 1
        const t = rand() < 0.7 ? Accept : ([Gap, Release, Reject] as const)[Math.floor(rand() * 3)]!
        m.set(o, t)
      }
      const batches = acknowledgementBatches(m)
      assert.deepEqual(expandBatches(batches), m)
      for (let i = 1; i < batches.length; i++) assert.ok(batches[i]!.firstOffset > batches[i - 1]!.lastOffset)
      for (const b of batches) {
        const types = new Set(b.acknowledgeTypes)
        if (b.acknowledgeTypes.length > 1) assert.ok(types.size > 1, 'a batch of one type carries it once')
      }
    }
  })

  it('refuses to expand a batch whose type count fits neither form', () => {
    assert.throws(() => expandBatches([{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [1, 1] }]), RangeError)
  })
})

describe('ackTypeOf', () => {
  it('maps the application types and nothing else', () => {
    assert.equal(ackTypeOf('accept'), Accept)
    assert.equal(ackTypeOf('release'), Release)
    assert.equal(ackTypeOf('reject'), Reject)
    assert.equal(ackTypeOf('renew'), undefined)
    assert.equal(ackTypeOf('toString'), undefined)
  })
})
