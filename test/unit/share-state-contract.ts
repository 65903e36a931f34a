// The ShareStatePersister contract (src/ports/shares.ts) as tests that every implementation runs —
// the share coordinator itself, the broker's forwarding persister (locally and over the wire), and
// any memory persister — so they all keep the same promises:
// - a key never initialized or written reads startOffset -1, no batches, no error;
// - initialize sets the state epoch and start offset, with no batches;
// - written batches read back sorted and combined: a later write's batch replaces the offsets it
//   covers (a delivery that moved forward), contiguous runs of one state stay apart only when
//   their state or count differ, and batches below a new start offset are dropped or cut;
// - a write with an older leader epoch than one recorded is FENCED_LEADER_EPOCH, with a state
//   epoch older than the stored one FENCED_STATE_EPOCH; a read with an older leader epoch is
//   FENCED_LEADER_EPOCH; a negative leader or state epoch is INVALID_REQUEST (Kafka 4.4's share
//   coordinator); a refused write changes nothing;
// - readSummary answers the state epoch, the start offset and the delivery-complete count;
// - delete forgets the key (and of a key without state answers NONE); keys are independent.
// Usage: shareStatePersisterContract('name', async () => ({ persister, topicId, close })).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DeliveryState, type SharePartitionKey, type ShareStatePersister } from '../../src/ports/shares.js'
import { ErrorCode } from '../../src/protocol/errors.js'

export interface PersisterUnderTest {
  persister: ShareStatePersister
  /** A topic id the implementation accepts, with at least 3 partitions. */
  topicId: string
  close(): Promise<void>
}

const E = (name: keyof typeof ErrorCode) => ErrorCode[name].code
const { AVAILABLE, ACKNOWLEDGED, ARCHIVED } = DeliveryState

export function shareStatePersisterContract(name: string, make: () => Promise<PersisterUnderTest>): void {
  describe(`ShareStatePersister contract: ${name}`, () => {
    async function setUp(t: { after(fn: () => Promise<void>): void }) {
      const u = await make()
      t.after(() => u.close())
      const key = (partition = 0, groupId = 'g1'): SharePartitionKey => ({ groupId, topicId: u.topicId, partition })
      return { p: u.persister, key }
    }

    it('reads a key without state as uninitialized: start offset -1, no batches, no error', async (t) => {
      const { p, key } = await setUp(t)
      const r = await p.read(key(), 0)
      assert.equal(r.errorCode, 0)
      assert.equal(r.startOffset, -1)
      assert.deepEqual(r.stateBatches, [])
      const s = await p.readSummary(key(), 0)
      assert.equal(s.errorCode, 0)
      assert.equal(s.startOffset, -1)
    })

    it('initializes a key at a state epoch and start offset', async (t) => {
      const { p, key } = await setUp(t)
      assert.equal((await p.initialize(key(), 1, 100)).errorCode, 0)
      const r = await p.read(key(), 0)
      assert.equal(r.errorCode, 0)
      assert.equal(r.stateEpoch, 1)
      assert.equal(r.startOffset, 100)
      assert.deepEqual(r.stateBatches, [])
    })

    it('combines written batches: later deliveries replace the offsets they cover, the start offset cuts', async (t) => {
      const { p, key } = await setUp(t)
      await p.initialize(key(), 0, 0)
      const w1 = await p.write(key(), {
        stateEpoch: 0,
        leaderEpoch: 1,
        startOffset: 0,
        deliveryCompleteCount: 0,
        stateBatches: [{ firstOffset: 0, lastOffset: 9, deliveryState: AVAILABLE, deliveryCount: 1 }],
      })
      assert.equal(w1.errorCode, 0)
      const w2 = await p.write(key(), {
        stateEpoch: 0,
        leaderEpoch: 1,
        startOffset: -1,
        deliveryCompleteCount: 4,
        stateBatches: [{ firstOffset: 3, lastOffset: 6, deliveryState: ACKNOWLEDGED, deliveryCount: 2 }],
      })
      assert.equal(w2.errorCode, 0)
      let r = await p.read(key(), 1)
      assert.equal(r.startOffset, 0)
      assert.deepEqual(r.stateBatches, [
        { firstOffset: 0, lastOffset: 2, deliveryState: AVAILABLE, deliveryCount: 1 },
        { firstOffset: 3, lastOffset: 6, deliveryState: ACKNOWLEDGED, deliveryCount: 2 },
        { firstOffset: 7, lastOffset: 9, deliveryState: AVAILABLE, deliveryCount: 1 },
      ])
      // The start offset moves to 5: what is below goes, the batch across it is cut.
      await p.write(key(), {
        stateEpoch: 0,
        leaderEpoch: 1,
        startOffset: 5,
        deliveryCompleteCount: 2,
        stateBatches: [{ firstOffset: 10, lastOffset: 12, deliveryState: ARCHIVED, deliveryCount: 5 }],
      })
      r = await p.read(key(), 1)
      assert.equal(r.startOffset, 5)
      assert.deepEqual(r.stateBatches, [
        { firstOffset: 5, lastOffset: 6, deliveryState: ACKNOWLEDGED, deliveryCount: 2 },
        { firstOffset: 7, lastOffset: 9, deliveryState: AVAILABLE, deliveryCount: 1 },
        { firstOffset: 10, lastOffset: 12, deliveryState: ARCHIVED, deliveryCount: 5 },
      ])
      const s = await p.readSummary(key(), 1)
      assert.equal(s.errorCode, 0)
      assert.equal(s.startOffset, 5)
      assert.equal(s.stateEpoch, 0)
      assert.equal(s.deliveryCompleteCount, 2)
    })

    it('fences a write or a read of an older leader epoch, and a write of an older state epoch; a refused write changes nothing', async (t) => {
      const { p, key } = await setUp(t)
      await p.initialize(key(), 2, 0)
      const batch = { firstOffset: 0, lastOffset: 0, deliveryState: ACKNOWLEDGED, deliveryCount: 1 }
      assert.equal(
        (await p.write(key(), { stateEpoch: 2, leaderEpoch: 5, startOffset: 0, deliveryCompleteCount: 1, stateBatches: [batch] }))
          .errorCode,
        0,
      )
      const older = await p.write(key(), {
        stateEpoch: 2,
        leaderEpoch: 4,
        startOffset: 1,
        deliveryCompleteCount: 0,
        stateBatches: [{ firstOffset: 1, lastOffset: 1, deliveryState: ARCHIVED, deliveryCount: 1 }],
      })
      assert.equal(older.errorCode, E('FENCED_LEADER_EPOCH'))
      assert.equal((await p.read(key(), 4)).errorCode, E('FENCED_LEADER_EPOCH'))
      const staleState = await p.write(key(), { stateEpoch: 1, leaderEpoch: 5, startOffset: 1, deliveryCompleteCount: 0, stateBatches: [] })
      assert.equal(staleState.errorCode, E('FENCED_STATE_EPOCH'))
      const negative = await p.write(key(), { stateEpoch: 2, leaderEpoch: -1, startOffset: 1, deliveryCompleteCount: 0, stateBatches: [] })
      assert.equal(negative.errorCode, E('INVALID_REQUEST'))
      assert.equal((await p.read(key(), -1)).errorCode, E('INVALID_REQUEST'))
      assert.equal((await p.initialize(key(1), -1, 0)).errorCode, E('INVALID_REQUEST'))
      const r = await p.read(key(), 5)
      assert.equal(r.errorCode, 0)
      assert.equal(r.startOffset, 0)
      assert.deepEqual(r.stateBatches, [batch])
    })

    it('a newer state epoch from initialize fences writes of the older one', async (t) => {
      const { p, key } = await setUp(t)
      await p.initialize(key(), 1, 0)
      await p.write(key(), { stateEpoch: 1, leaderEpoch: 1, startOffset: 0, deliveryCompleteCount: 0, stateBatches: [] })
      assert.equal((await p.initialize(key(), 2, 50)).errorCode, 0)
      const w = await p.write(key(), { stateEpoch: 1, leaderEpoch: 1, startOffset: 10, deliveryCompleteCount: 0, stateBatches: [] })
      assert.equal(w.errorCode, E('FENCED_STATE_EPOCH'))
      const r = await p.read(key(), 1)
      assert.equal(r.stateEpoch, 2)
      assert.equal(r.startOffset, 50)
    })

    it('delete forgets the key; deleting a key without state is NONE; keys are independent', async (t) => {
      const { p, key } = await setUp(t)
      await p.initialize(key(0), 1, 10)
      await p.initialize(key(1), 1, 20)
      await p.initialize(key(0, 'g2'), 1, 30)
      assert.equal((await p.delete(key(0))).errorCode, 0)
      assert.equal((await p.read(key(0), 0)).startOffset, -1)
      assert.equal((await p.read(key(1), 0)).startOffset, 20)
      assert.equal((await p.read(key(0, 'g2'), 0)).startOffset, 30)
      assert.equal((await p.delete(key(2))).errorCode, 0)
    })

    it('concurrent writes of one key are all applied', async (t) => {
      const { p, key } = await setUp(t)
      await p.initialize(key(), 0, 0)
      const writes = Array.from({ length: 10 }, (_, i) =>
        p.write(key(), {
          stateEpoch: 0,
          leaderEpoch: 0,
          startOffset: -1,
          deliveryCompleteCount: -1,
          stateBatches: [{ firstOffset: i * 2, lastOffset: i * 2, deliveryState: ACKNOWLEDGED, deliveryCount: 1 }],
        }),
      )
      for (const w of await Promise.all(writes)) assert.equal(w.errorCode, 0)
      const r = await p.read(key(), 0)
      assert.deepEqual(
        r.stateBatches.map((b) => b.firstOffset),
        Array.from({ length: 10 }, (_, i) => i * 2),
      )
    })
  })
}
