// SharePartition on a virtual clock: acquisition, each acknowledge type, lock expiry and the
// delivery limit (with dead letters), the start offset, release backoff and delivery delay, the
// in-flight window, durability through the persister (a failing write answers the ack with its
// error) and reloading a persisted state.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ErrorCode } from '../../../src/protocol/errors.js'
import { type DeadLetter, DEFAULT_SHARE_GROUP_SETTINGS, DeliveryState, type ShareGroupSettings } from '../../../src/ports/shares.js'
import type { BatchInfo } from '../../../src/share/acquire.js'
import { MemorySharePersister } from '../../helpers/memory-share-persister.js'
import { SharePartition } from '../../../src/share/share-partition.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'

const KEY = { groupId: 'g', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partition: 0 }
const { ACCEPT, RELEASE, REJECT, GAP, RENEW } = { GAP: 0, ACCEPT: 1, RELEASE: 2, REJECT: 3, RENEW: 4 }

interface Rig {
  sp: SharePartition
  clock: ManualClock
  persister: MemorySharePersister
  settings: ShareGroupSettings
  letters: DeadLetter[]
  wakes: number[]
  sinkFails: { on: boolean }
}

function rig(
  opts: { settings?: Partial<ShareGroupSettings>; maxInFlight?: number; startOffset?: number; persister?: MemorySharePersister } = {},
): Rig {
  const clock = new ManualClock()
  const persister = opts.persister ?? new MemorySharePersister()
  const settings: ShareGroupSettings = { ...DEFAULT_SHARE_GROUP_SETTINGS, ...opts.settings }
  const letters: DeadLetter[] = []
  const wakes: number[] = []
  const sinkFails = { on: false }
  const sp = new SharePartition({
    key: KEY,
    topic: 't',
    clock,
    logger: silentLogger,
    persister,
    settings: () => settings,
    deadLetters: {
      send: async (l) => {
        if (sinkFails.on) throw new Error('dead-letter topic unavailable')
        letters.push(...l)
      },
    },
    readRecord: async (offset) => ({ key: Buffer.from(`k${offset}`), value: Buffer.from(`v${offset}`), headers: [], timestamp: 1 }),
    ...(opts.maxInFlight !== undefined ? { maxInFlightRecords: opts.maxInFlight } : {}),
    leaderEpoch: 0,
    stateEpoch: 0,
    startOffset: opts.startOffset ?? 0,
    stateBatches: [],
    onAvailable: () => wakes.push(clock.monotonic()),
  })
  return { sp, clock, persister, settings, letters, wakes, sinkFails }
}

/** One batch per [base, last], 100 bytes each at position base*100. */
function batches(clock: ManualClock, ...ranges: Array<[number, number]>): BatchInfo[] {
  return ranges.map(([base, last]) => ({
    baseOffset: base,
    lastOffset: last,
    timestamp: clock.now(),
    position: base * 100,
    sizeBytes: 100,
    aborted: false,
  }))
}

const ack = (first: number, last: number, ...types: number[]) => [{ firstOffset: first, lastOffset: last, acknowledgeTypes: types }]

describe('SharePartition', () => {
  it('acquires new records with delivery count 1 and answers the bytes of their batches', () => {
    const { sp, clock } = rig()
    const res = sp.acquire('m1', batches(clock, [0, 4], [5, 9]), 100)
    assert.deepEqual(res.ranges, [{ firstOffset: 0, lastOffset: 9, deliveryCount: 1 }])
    assert.deepEqual([res.firstPosition, res.endPosition], [0, 600])
    assert.equal(sp.endOffset, 10)
    assert.equal(sp.nextFetchOffset(), 10)
    assert.equal(sp.stateOf(3)?.state, DeliveryState.ACQUIRED)
    assert.equal(sp.stateOf(3)?.memberId, 'm1')
    // A second member gets nothing of what m1 holds.
    assert.deepEqual(sp.acquire('m2', batches(clock, [0, 4]), 100).ranges, [])
  })

  it('acquires no more than maxRecords', () => {
    const { sp, clock } = rig()
    const first = sp.acquire('m1', batches(clock, [0, 9], [10, 19]), 3)
    assert.deepEqual(first.ranges, [{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }])
    // The batch holding them is answered whole.
    assert.deepEqual([first.firstPosition, first.endPosition], [0, 100])
    assert.equal(sp.nextFetchOffset(), 3)
    const second = sp.acquire('m1', batches(clock, [0, 9], [10, 19]), 9)
    assert.deepEqual(second.ranges, [{ firstOffset: 3, lastOffset: 11, deliveryCount: 1 }])
    assert.deepEqual([second.firstPosition, second.endPosition], [0, 1100])
  })

  it('ACCEPT acknowledges, the start offset advances and the write is made before the answer', async () => {
    const { sp, clock, persister } = rig()
    sp.acquire('m1', batches(clock, [0, 9]), 100)
    assert.equal(await sp.acknowledge('m1', ack(0, 3, ACCEPT), false), 0)
    assert.equal(sp.startOffset, 4)
    assert.equal(persister.writes.length, 1)
    assert.equal(persister.writes[0]!.write.startOffset, 4)
    // Accepting out of order keeps the start offset until the gap before it is done.
    assert.equal(await sp.acknowledge('m1', ack(6, 7, ACCEPT), false), 0)
    assert.equal(sp.startOffset, 4)
    assert.deepEqual(persister.writes[1]!.write.stateBatches, [
      { firstOffset: 6, lastOffset: 7, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 1 },
    ])
    assert.equal(persister.writes[1]!.write.deliveryCompleteCount, 2)
    const stored = await persister.read(KEY, 0)
    assert.equal(stored.startOffset, 4)
  })

  it('RELEASE makes records available again, wakes waiters, and the next acquisition counts 2', async () => {
    const { sp, clock, wakes } = rig()
    sp.acquire('m1', batches(clock, [0, 4]), 100)
    assert.equal(await sp.acknowledge('m1', ack(0, 4, RELEASE), false), 0)
    assert.equal(wakes.length, 1)
    assert.equal(sp.nextFetchOffset(), 0)
    assert.deepEqual(sp.acquire('m2', batches(clock, [0, 4]), 100).ranges, [{ firstOffset: 0, lastOffset: 4, deliveryCount: 2 }])
  })

  it('per-offset types: ACCEPT, RELEASE, REJECT and GAP in one batch', async () => {
    const { sp, clock } = rig()
    sp.acquire('m1', batches(clock, [0, 3]), 100)
    assert.equal(await sp.acknowledge('m1', ack(0, 3, ACCEPT, RELEASE, REJECT, GAP), false), 0)
    assert.equal(sp.startOffset, 1)
    assert.equal(sp.stateOf(1)?.state, DeliveryState.AVAILABLE)
    assert.equal(sp.stateOf(2)?.state, DeliveryState.ARCHIVED)
    assert.equal(sp.stateOf(3)?.state, DeliveryState.ARCHIVED)
  })

  it('refuses acknowledgements of records the member does not hold, and malformed batches', async () => {
    const { sp, clock } = rig()
    sp.acquire('m1', batches(clock, [0, 4]), 100)
    const E = (n: keyof typeof ErrorCode) => ErrorCode[n].code
    assert.equal(await sp.acknowledge('m2', ack(0, 0, ACCEPT), false), E('INVALID_RECORD_STATE'))
    assert.equal(await sp.acknowledge('m1', ack(3, 7, ACCEPT), false), E('INVALID_RECORD_STATE'))
    assert.equal(await sp.acknowledge('m1', ack(0, Number.MAX_SAFE_INTEGER, ACCEPT), false), E('INVALID_RECORD_STATE'))
    assert.equal(await sp.acknowledge('m1', ack(2, 1, ACCEPT), false), E('INVALID_REQUEST'))
    assert.equal(await sp.acknowledge('m1', ack(0, 2, ACCEPT, ACCEPT), false), E('INVALID_REQUEST'))
    assert.equal(await sp.acknowledge('m1', ack(0, 0, 9), false), E('INVALID_REQUEST'))
    assert.equal(await sp.acknowledge('m1', ack(0, 0, RENEW), false), E('INVALID_REQUEST'))
    // Overlapping batches: the second sight of an offset is INVALID_RECORD_STATE, as in Kafka.
    const overlapping = [...ack(0, 2, ACCEPT), ...ack(2, 3, ACCEPT)]
    assert.equal(await sp.acknowledge('m1', overlapping, false), E('INVALID_RECORD_STATE'))
    // A batch starting below the previous one's last offset is refused before any state is looked at.
    assert.equal(await sp.acknowledge('m1', [...ack(3, 3, ACCEPT), ...ack(0, 0, ACCEPT)], false), E('INVALID_REQUEST'))
    // The types are validated before any state is looked at.
    assert.equal(await sp.acknowledge('m2', [...ack(3, 3, ACCEPT), ...ack(0, 0, 7)], false), E('INVALID_REQUEST'))
    // Nothing was applied by the refused sets.
    assert.equal(sp.stateOf(0)?.state, DeliveryState.ACQUIRED)
    assert.equal(await sp.acknowledge('m1', ack(0, 0, ACCEPT), false), 0)
    assert.equal(await sp.acknowledge('m1', ack(0, 0, ACCEPT), false), E('INVALID_RECORD_STATE'))
  })

  it('RENEW restarts the lock', async () => {
    const { sp, clock } = rig({ settings: { recordLockDurationMs: 30_000 } })
    sp.acquire('m1', batches(clock, [0, 0]), 100)
    clock.advance(20_000)
    assert.equal(await sp.acknowledge('m1', ack(0, 0, RENEW), true), 0)
    clock.advance(20_000)
    await sp.idle()
    assert.equal(sp.stateOf(0)?.state, DeliveryState.ACQUIRED)
    clock.advance(10_000)
    await sp.idle()
    assert.equal(sp.stateOf(0)?.state, DeliveryState.AVAILABLE)
  })

  it('an expired lock makes the record available; at the delivery limit it is archived and dead-lettered', async () => {
    const { sp, clock, letters, wakes, persister } = rig({ settings: { deliveryCountLimit: 2, deadLetterTopic: 'dlq.t' } })
    sp.acquire('m1', batches(clock, [0, 1]), 100)
    clock.advance(30_000)
    await sp.idle()
    assert.equal(sp.stateOf(0)?.state, DeliveryState.AVAILABLE)
    assert.equal(sp.stateOf(0)?.deliveryCount, 1)
    assert.equal(wakes.length, 1)
    assert.deepEqual(sp.acquire('m2', batches(clock, [0, 1]), 100).ranges, [{ firstOffset: 0, lastOffset: 1, deliveryCount: 2 }])
    clock.advance(30_000)
    await sp.idle()
    assert.equal(sp.startOffset, 2)
    assert.deepEqual(
      letters.map((l) => [l.source.offset, l.reason, l.deliveryCount, l.topic]),
      [
        [0, 'delivery-limit', 2, 'dlq.t'],
        [1, 'delivery-limit', 2, 'dlq.t'],
      ],
    )
    assert.equal(letters[0]!.record, null)
    assert.equal(persister.writes.at(-1)!.write.startOffset, 2)
  })

  it('an expiry archive whose dead letter fails is retried; nothing is archived before the letter is stored', async () => {
    const { sp, clock, letters, sinkFails } = rig({ settings: { deliveryCountLimit: 1, deadLetterTopic: 'dlq.t' } })
    sp.acquire('m1', batches(clock, [0, 0]), 100)
    sinkFails.on = true
    clock.advance(30_000)
    await sp.idle()
    assert.equal(sp.stateOf(0)?.state, DeliveryState.ACQUIRED)
    assert.equal(sp.startOffset, 0)
    sinkFails.on = false
    clock.advance(1000)
    await sp.idle()
    assert.equal(sp.startOffset, 1)
    assert.deepEqual(
      letters.map((l) => [l.source.offset, l.reason]),
      [[0, 'delivery-limit']],
    )
  })

  it('RELEASE at the delivery limit archives', async () => {
    const { sp, clock } = rig({ settings: { deliveryCountLimit: 1 } })
    sp.acquire('m1', batches(clock, [0, 0]), 100)
    assert.equal(await sp.acknowledge('m1', ack(0, 0, RELEASE), false), 0)
    assert.equal(sp.startOffset, 1)
  })

  it('REJECT sends a dead letter with the record copied, before the archive is written', async () => {
    const { sp, clock, letters, persister } = rig({ settings: { deadLetterTopic: 'dlq.t', deadLetterCopyRecord: true } })
    sp.acquire('m1', batches(clock, [0, 0]), 100)
    assert.equal(await sp.acknowledge('m1', ack(0, 0, REJECT), false), 0)
    assert.equal(letters.length, 1)
    assert.equal(letters[0]!.reason, 'rejected')
    assert.equal(letters[0]!.record?.value?.toString(), 'v0')
    assert.equal(persister.writes.length, 1)
  })

  it('a dead-letter failure answers the ack with its error and writes nothing', async () => {
    const { sp, clock, persister, sinkFails } = rig({ settings: { deadLetterTopic: 'dlq.t' } })
    sp.acquire('m1', batches(clock, [0, 0]), 100)
    sinkFails.on = true
    assert.equal(await sp.acknowledge('m1', ack(0, 0, REJECT), false), ErrorCode.UNKNOWN_SERVER_ERROR.code)
    assert.equal(persister.writes.length, 0)
    assert.equal(sp.stateOf(0)?.state, DeliveryState.ACQUIRED)
  })

  it('a failed write answers the ack with its error and leaves the records acquired', async () => {
    const { sp, clock, persister } = rig()
    sp.acquire('m1', batches(clock, [0, 2]), 100)
    persister.failNext(ErrorCode.COORDINATOR_NOT_AVAILABLE.code)
    assert.equal(await sp.acknowledge('m1', ack(0, 2, ACCEPT), false), ErrorCode.COORDINATOR_NOT_AVAILABLE.code)
    assert.equal(sp.stateOf(0)?.state, DeliveryState.ACQUIRED)
    assert.equal(sp.startOffset, 0)
    assert.equal(await sp.acknowledge('m1', ack(0, 2, ACCEPT), false), 0)
    assert.equal(sp.startOffset, 3)
  })

  it('release backoff: a RELEASEd record is handed out again only after the backoff', async () => {
    const { sp, clock, wakes } = rig({ settings: { releaseBackoffMs: 1000 } })
    sp.acquire('m1', batches(clock, [0, 0]), 100)
    assert.equal(await sp.acknowledge('m1', ack(0, 0, RELEASE), false), 0)
    assert.equal(wakes.length, 0)
    assert.equal(sp.nextFetchOffset(), 1)
    assert.deepEqual(sp.acquire('m1', batches(clock, [0, 0]), 100).ranges, [])
    clock.advance(1000)
    assert.equal(wakes.length, 1)
    assert.equal(sp.nextFetchOffset(), 0)
    assert.deepEqual(sp.acquire('m1', batches(clock, [0, 0]), 100).ranges, [{ firstOffset: 0, lastOffset: 0, deliveryCount: 2 }])
  })

  it('delivery delay: a batch is acquirable once its timestamp plus the delay has passed', () => {
    const { sp, clock, wakes } = rig({ settings: { deliveryDelayMs: 5000 } })
    const read = batches(clock, [0, 1])
    assert.deepEqual(sp.acquire('m1', read, 100).ranges, [])
    assert.equal(sp.endOffset, 0)
    clock.advance(4999)
    assert.equal(wakes.length, 0)
    clock.advance(1)
    assert.equal(wakes.length, 1)
    assert.deepEqual(sp.acquire('m1', read, 100).ranges, [{ firstOffset: 0, lastOffset: 1, deliveryCount: 1 }])
  })

  it('the in-flight window bounds what is acquired; it moves with the start offset', async () => {
    const w = rig({ maxInFlight: 10 })
    const { sp, clock } = w
    assert.deepEqual(sp.acquire('m1', batches(clock, [0, 99]), 1000).ranges, [{ firstOffset: 0, lastOffset: 9, deliveryCount: 1 }])
    assert.equal(sp.nextFetchOffset(), -1)
    assert.deepEqual(sp.acquire('m1', batches(clock, [0, 99]), 1000).ranges, [])
    const { wakes } = w
    assert.equal(await sp.acknowledge('m1', ack(0, 4, ACCEPT), false), 0)
    // A fetch that found the window full is woken.
    assert.equal(wakes.length, 1)
    assert.equal(sp.nextFetchOffset(), 10)
    assert.deepEqual(sp.acquire('m1', batches(clock, [0, 99]), 1000).ranges, [{ firstOffset: 10, lastOffset: 14, deliveryCount: 1 }])
  })

  it('records of aborted transactions are archived, never handed out', () => {
    const { sp, clock } = rig()
    const read = batches(clock, [0, 1], [2, 3], [4, 4])
    read[1]!.aborted = true
    assert.deepEqual(sp.acquire('m1', read, 100).ranges, [
      { firstOffset: 0, lastOffset: 1, deliveryCount: 1 },
      { firstOffset: 4, lastOffset: 4, deliveryCount: 1 },
    ])
    assert.equal(sp.stateOf(2)?.state, DeliveryState.ARCHIVED)
  })

  it('releaseMember makes what the member holds available at once', async () => {
    const { sp, clock, wakes } = rig({ settings: { releaseBackoffMs: 60_000 } })
    sp.acquire('m1', batches(clock, [0, 1]), 1)
    sp.acquire('m2', batches(clock, [0, 1]), 1)
    await sp.releaseMember('m1')
    assert.equal(sp.stateOf(0)?.state, DeliveryState.AVAILABLE)
    assert.equal(sp.stateOf(1)?.memberId, 'm2')
    assert.equal(wakes.length, 1)
    assert.equal(sp.nextFetchOffset(), 0)
  })

  it('unacquire (an answer never sent) gives records back with their delivery count, only those still held so', async () => {
    const { sp, clock, wakes } = rig({ settings: { deliveryCountLimit: 2 } })
    // A first delivery released: offset 0..1 count 1, AVAILABLE again.
    sp.acquire('m1', batches(clock, [0, 1]), 100)
    assert.equal(await sp.acknowledge('m1', ack(0, 1, RELEASE), false), 0)
    clock.advance(60_000)
    const got = sp.acquire('m1', batches(clock, [0, 3]), 100).ranges
    assert.deepEqual(got, [
      { firstOffset: 0, lastOffset: 1, deliveryCount: 2 },
      { firstOffset: 2, lastOffset: 3, deliveryCount: 1 },
    ])
    // Offset 3 is acknowledged before the answer is dropped: it stays acknowledged.
    assert.equal(await sp.acknowledge('m1', ack(3, 3, ACCEPT), false), 0)
    const wakesBefore = wakes.length
    sp.unacquire('m1', got)
    assert.equal(wakes.length, wakesBefore + 1)
    assert.deepEqual(sp.stateOf(0), { state: DeliveryState.AVAILABLE, deliveryCount: 1, memberId: null })
    assert.deepEqual(sp.stateOf(2), { state: DeliveryState.AVAILABLE, deliveryCount: 0, memberId: null })
    assert.equal(sp.stateOf(3)?.state, DeliveryState.ACKNOWLEDGED)
    assert.equal(sp.nextFetchOffset(), 0)
    // At the limit of 2, the record given back is delivered once more, not archived.
    assert.deepEqual(sp.acquire('m2', batches(clock, [0, 2]), 100).ranges, [
      { firstOffset: 0, lastOffset: 1, deliveryCount: 2 },
      { firstOffset: 2, lastOffset: 2, deliveryCount: 1 },
    ])
    // Another member's records, or a stale delivery count, are not touched.
    sp.unacquire('m1', [{ firstOffset: 0, lastOffset: 2, deliveryCount: 2 }])
    assert.equal(sp.stateOf(0)?.memberId, 'm2')
    sp.unacquire('m2', [{ firstOffset: 0, lastOffset: 1, deliveryCount: 1 }])
    assert.equal(sp.stateOf(0)?.state, DeliveryState.ACQUIRED)
  })

  it('a log start offset past the records in flight moves the start offset', () => {
    const { sp, clock } = rig()
    sp.acquire('m1', batches(clock, [0, 9]), 100)
    sp.syncLogStart(5)
    assert.equal(sp.startOffset, 5)
    assert.equal(sp.stateOf(2), undefined)
    sp.syncLogStart(20)
    assert.equal(sp.startOffset, 20)
    assert.equal(sp.endOffset, 20)
    assert.equal(sp.nextFetchOffset(), 20)
  })

  it('the in-memory persister holds a bounded number of share-partitions', async () => {
    const persister = new MemorySharePersister(2)
    assert.equal((await persister.initialize({ ...KEY, groupId: 'a' }, 0, 0)).errorCode, 0)
    assert.equal((await persister.initialize({ ...KEY, groupId: 'b' }, 0, 0)).errorCode, 0)
    assert.equal((await persister.initialize({ ...KEY, groupId: 'c' }, 0, 0)).errorCode, ErrorCode.COORDINATOR_NOT_AVAILABLE.code)
    assert.equal((await persister.initialize({ ...KEY, groupId: 'a' }, 1, 5)).errorCode, 0)
    await persister.delete({ ...KEY, groupId: 'b' })
    assert.equal((await persister.initialize({ ...KEY, groupId: 'c' }, 0, 0)).errorCode, 0)
  })

  it('a new leader reloads the persisted state: delivery counts and completed records survive', async () => {
    const persister = new MemorySharePersister()
    await persister.initialize(KEY, 0, 0)
    const a = rig({ persister })
    a.sp.acquire('m1', batches(a.clock, [0, 5]), 100)
    assert.equal(await a.sp.acknowledge('m1', ack(0, 5, ACCEPT, RELEASE, ACCEPT, REJECT, RELEASE, ACCEPT), false), 0)
    a.sp.close()
    const state = await persister.read(KEY, 1)
    assert.equal(state.startOffset, 1)
    const clock = new ManualClock()
    const b = new SharePartition({
      key: KEY,
      topic: 't',
      clock,
      logger: silentLogger,
      persister,
      settings: () => DEFAULT_SHARE_GROUP_SETTINGS,
      deadLetters: null,
      readRecord: async () => null,
      leaderEpoch: 1,
      stateEpoch: state.stateEpoch,
      startOffset: state.startOffset,
      stateBatches: state.stateBatches,
      onAvailable: () => {},
    })
    assert.equal(b.startOffset, 1)
    assert.equal(b.endOffset, 6)
    assert.deepEqual(b.stateOf(1), { state: DeliveryState.AVAILABLE, deliveryCount: 1, memberId: null })
    assert.equal(b.stateOf(2)?.state, DeliveryState.ACKNOWLEDGED)
    assert.equal(b.stateOf(3)?.state, DeliveryState.ARCHIVED)
    assert.deepEqual(b.acquire('m9', batches(clock, [0, 5], [6, 6]), 100).ranges, [
      { firstOffset: 1, lastOffset: 1, deliveryCount: 2 },
      { firstOffset: 4, lastOffset: 4, deliveryCount: 2 },
      { firstOffset: 6, lastOffset: 6, deliveryCount: 1 },
    ])
  })
})
