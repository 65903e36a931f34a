// The leader's replication state machine (src/replication/partition.ts) and the acks=all produce
// path over it (ReplicaManager.append / readForFollower), on a virtual clock and in-memory logs:
// HW = min LEO over the ISR and never backwards, ISR expand/shrink decisions, Kafka's
// lastCaughtUpTimeMs rule, acks=all waiters, and what a new leader epoch resets.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { PartitionState } from '../../../src/ports/metadata-store.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import { Partition } from '../../../src/replication/partition.js'
import type { AppendPolicy } from '../../../src/ports/replicas.js'
import { ReplicaManager } from '../../../src/replication/replica-manager.js'
import { PartitionLog } from '../../../src/storage/partition-log.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { stateOf } from '../../helpers/fake-metadata-store.js'
import { appendAsLeader, batchOf, memoryLogs, settle, TOPIC_ID } from '../../helpers/memory-logs.js'

const LOCAL = 1
const LAG_MS = 10_000

/** A Partition on broker 1 over an in-memory log holding `leo` records of epoch 0, then made leader by `state`. */
async function leader(state: Partial<PartitionState> & { replicas: readonly number[] }, leo = 0) {
  const clock = new ManualClock()
  const { logs } = await memoryLogs(clock)
  const log = await logs.create('t', 0, TOPIC_ID)
  if (leo > 0)
    await appendAsLeader(
      log,
      0,
      Array.from({ length: leo }, (_, i) => `old-${i}`),
    )
  assert.equal(log.highWatermark, 0, 'appends leave the high watermark to the partition')
  const p = new Partition('t', 0, TOPIC_ID, log, LOCAL)
  const s = stateOf({ leader: LOCAL, leaderEpoch: 1, partitionEpoch: 1, ...state })
  p.becomeLeader(s, clock.monotonic())
  return { clock, logs, log, p, state: s }
}

async function write(p: Partition, n: number): Promise<void> {
  await appendAsLeader(
    p.log,
    p.leaderEpoch,
    Array.from({ length: n }, (_, i) => `r-${p.log.logEndOffset + i}`),
  )
}

/** A follower fetch at offset, as ReplicaManager.readForFollower records it. */
function fetchAt(p: Partition, replicaId: number, offset: number, nowMs: number): boolean {
  p.recordFollowerFetch(replicaId, offset, nowMs)
  return p.maybeAdvanceHighWatermark()
}

/** The outcome of a promise so far: 'pending', 'resolved', or the KafkaError name it failed with. */
function track(promise: Promise<unknown>): { readonly outcome: string } {
  const box = { outcome: 'pending' }
  promise.then(
    () => {
      box.outcome = 'resolved'
    },
    (err) => {
      box.outcome = err instanceof KafkaError ? err.errorName : `unexpected ${String(err)}`
    },
  )
  return box
}

const kafkaError = (name: string) => (err: unknown) => err instanceof KafkaError && err.errorName === name

describe('high watermark', () => {
  it('is the smallest log end offset over the ISR, the leader included', async () => {
    const { p, log } = await leader({ replicas: [1, 2, 3] })
    await write(p, 10)
    assert.equal(log.highWatermark, 0)
    assert.equal(fetchAt(p, 2, 4, 0), false, 'follower 3 is still unknown')
    assert.equal(fetchAt(p, 3, 7, 0), true)
    assert.equal(log.highWatermark, 4)
    fetchAt(p, 2, 10, 0)
    assert.equal(log.highWatermark, 7)
    fetchAt(p, 3, 10, 0)
    assert.equal(log.highWatermark, 10)
    await write(p, 5)
    assert.equal(p.maybeAdvanceHighWatermark(), false, 'the followers have not fetched the new records')
    assert.equal(log.highWatermark, 10)
  })

  it('a follower of the ISR whose position is unknown holds it where it is', async () => {
    const { p, log } = await leader({ replicas: [1, 2, 3] })
    await write(p, 10)
    fetchAt(p, 2, 10, 0)
    assert.equal(p.followerProgress(3)?.logEndOffset, -1)
    assert.equal(log.highWatermark, 0, 'follower 3 (in the ISR, never fetched) holds the HW')
  })

  it('is not held by a follower outside the ISR', async () => {
    const { p, log } = await leader({ replicas: [1, 2, 3], isr: [1, 2] })
    await write(p, 10)
    fetchAt(p, 2, 8, 0)
    assert.equal(log.highWatermark, 8)
    fetchAt(p, 3, 1, 0)
    assert.equal(log.highWatermark, 8)
  })

  it('with the leader alone in the ISR follows the log end', async () => {
    const { p, log } = await leader({ replicas: [1, 2], isr: [1] })
    await write(p, 3)
    assert.equal(p.maybeAdvanceHighWatermark(), true)
    assert.equal(log.highWatermark, 3)
  })

  it('never moves back: not when a follower fetches lower, not when a new leader epoch forgets the followers', async () => {
    const { p, log, state, clock } = await leader({ replicas: [1, 2, 3] })
    await write(p, 10)
    fetchAt(p, 2, 10, 0)
    fetchAt(p, 3, 10, 0)
    assert.equal(log.highWatermark, 10)
    assert.equal(fetchAt(p, 2, 6, 0), false)
    assert.equal(log.highWatermark, 10)
    p.becomeLeader({ ...state, leaderEpoch: 2, partitionEpoch: 2 }, clock.monotonic())
    assert.equal(p.followerProgress(2)?.logEndOffset, -1)
    assert.equal(log.highWatermark, 10)
    await write(p, 2)
    fetchAt(p, 2, 11, 0)
    fetchAt(p, 3, 11, 0)
    assert.equal(log.highWatermark, 11)
  })
})

describe('state owned by the partition', () => {
  it('a new replica leads nothing until a partition state is applied', async () => {
    const { logs } = await memoryLogs(new ManualClock())
    const p = new Partition('t', 0, TOPIC_ID, await logs.create('t', 0, TOPIC_ID), LOCAL)
    assert.deepEqual([p.leaderId, p.isLeader, p.state], [-1, false, undefined])
    assert.equal(p.beginIsrChange(), undefined, 'no state to condition an ISR change on')
  })

  it('one ISR change at a time: begun by the leader, ended by its own answer or by the next state applied', async () => {
    const { p, state, clock } = await leader({ replicas: [1, 2, 3] })
    const first = p.beginIsrChange()
    assert.ok(first)
    assert.equal(first.expected, state, 'conditioned on the state in force')
    assert.equal(p.isrChangeInFlight, true)
    assert.equal(p.beginIsrChange(), undefined, 'not while one is in flight')
    p.endIsrChange(first.change)
    assert.equal(p.isrChangeInFlight, false)

    const second = p.beginIsrChange()!
    const next = { ...state, isr: [1, 2], partitionEpoch: 2 }
    p.becomeLeader(next, clock.monotonic())
    assert.equal(p.isrChangeInFlight, false, 'the state that came back ends it')
    const third = p.beginIsrChange()!
    assert.equal(third.expected, next)
    p.endIsrChange(second.change)
    assert.equal(p.isrChangeInFlight, true, "the older change's late answer leaves the newer one in flight")
    p.endIsrChange(third.change)
    assert.equal(p.isrChangeInFlight, false)

    p.becomeFollower({ ...next, leader: 2, leaderEpoch: 2, partitionEpoch: 3 })
    assert.equal(p.beginIsrChange(), undefined, 'a follower changes no ISR')
  })

  it('has no setter for its replication state, nor the log for its high watermark', () => {
    for (const name of ['leaderId', 'leaderEpoch', 'partitionEpoch', 'replicas', 'isr', 'state', 'epochStartOffset', 'isrChangeInFlight']) {
      const d = Object.getOwnPropertyDescriptor(Partition.prototype, name)
      assert.ok(d?.get && !d.set, `Partition.${name} is read-only`)
    }
    const hw = Object.getOwnPropertyDescriptor(PartitionLog.prototype, 'highWatermark')
    assert.ok(hw?.get && !hw.set, 'PartitionLog.highWatermark is read-only')
  })
})

describe('follower high watermark', () => {
  it("follows the leader's, bounded by the follower's log end, never backwards; a leader ignores it", async () => {
    const clock = new ManualClock()
    const { logs } = await memoryLogs(clock)
    const log = await logs.create('t', 0, TOPIC_ID)
    await appendAsLeader(log, 0, ['a', 'b', 'c', 'd'])
    const p = new Partition('t', 0, TOPIC_ID, log, LOCAL)
    p.becomeFollower(stateOf({ leader: 2, leaderEpoch: 1, partitionEpoch: 1, replicas: [1, 2], isr: [1, 2] }))
    assert.equal(p.updateFollowerHighWatermark(2), true)
    assert.equal(log.highWatermark, 2)
    assert.equal(p.updateFollowerHighWatermark(9), true)
    assert.equal(log.highWatermark, 4, 'bounded by its own log end offset')
    assert.equal(p.updateFollowerHighWatermark(1), false, 'a lower value (a new leader that has not caught up) does not move it back')
    assert.equal(log.highWatermark, 4)
    await appendAsLeader(log, 0, ['e'])
    p.becomeLeader(stateOf({ leader: LOCAL, leaderEpoch: 2, partitionEpoch: 2, replicas: [1, 2], isr: [1, 2] }), clock.monotonic())
    assert.equal(p.updateFollowerHighWatermark(5), false, 'a leader keeps its own rule')
    assert.equal(log.highWatermark, 4)
  })
})

describe('ISR expansion', () => {
  it('needs the follower at or past both the high watermark and the start of the leader epoch', async () => {
    // The epoch starts at 10 (records of the previous epoch are there); the HW is 4.
    const { p, log } = await leader({ replicas: [1, 2, 3], isr: [1, 2] }, 10)
    assert.equal(p.epochStartOffset, 10)
    fetchAt(p, 2, 4, 0)
    assert.equal(log.highWatermark, 4)
    await write(p, 5) // LEO 15
    fetchAt(p, 3, 3, 0)
    assert.equal(p.isrToExpand(3), undefined, 'below the HW')
    fetchAt(p, 3, 6, 0)
    assert.ok(log.highWatermark <= 6)
    assert.equal(p.isrToExpand(3), undefined, 'at the HW but before the epoch start: it may hold records of an old epoch')
    fetchAt(p, 3, 10, 0)
    assert.deepEqual(p.isrToExpand(3), [1, 2, 3])
  })

  it('asks nothing for ISR members, unknown positions, replicas being removed, or on a follower', async () => {
    const a = await leader({ replicas: [1, 2, 3], isr: [1, 2] })
    await write(a.p, 4)
    fetchAt(a.p, 2, 4, 0)
    assert.equal(a.p.isrToExpand(2), undefined, 'already in the ISR')
    assert.equal(a.p.isrToExpand(3), undefined, 'never fetched')
    assert.equal(a.p.isrToExpand(9), undefined, 'not a replica')

    const b = await leader({ replicas: [1, 2, 3], isr: [1, 2], removingReplicas: [3] })
    fetchAt(b.p, 2, 0, 0)
    fetchAt(b.p, 3, 0, 0)
    assert.equal(b.p.isrToExpand(3), undefined, 'being removed by a reassignment')

    const c = await leader({ replicas: [1, 2, 3], isr: [1, 2] })
    fetchAt(c.p, 3, 0, 0)
    assert.deepEqual(c.p.isrToExpand(3), [1, 2, 3])
    c.p.becomeFollower({ ...c.state, leader: 2, leaderEpoch: 2, partitionEpoch: 2 })
    assert.equal(c.p.isrToExpand(3), undefined, 'a follower decides nothing')
    assert.equal(c.p.isrToShrink(1_000_000, LAG_MS), undefined)
    assert.throws(() => c.p.recordFollowerFetch(3, 0, 0), kafkaError('NOT_LEADER_OR_FOLLOWER'))
  })

  it('a replica being added by a reassignment is tracked and may join', async () => {
    const { p } = await leader({ replicas: [1, 2], isr: [1, 2], addingReplicas: [3] })
    fetchAt(p, 2, 0, 0)
    fetchAt(p, 3, 0, 0)
    assert.deepEqual(p.isrToExpand(3), [1, 2, 3])
  })
})

describe('lastCaughtUp and ISR shrink', () => {
  it("caught up at the leader's log end; at or past the previous fetch's log end counts from the previous fetch time", async () => {
    const { p } = await leader({ replicas: [1, 2] })
    await write(p, 10)
    const prog = () => p.followerProgress(2)!
    assert.equal(prog().lastCaughtUpMs, 0, 'a new leader starts every clock at once')

    p.recordFollowerFetch(2, 5, 1000) // behind, no previous fetch: no change
    assert.equal(prog().lastCaughtUpMs, 0)
    assert.equal(prog().lastFetchLeaderLeo, 10)

    p.recordFollowerFetch(2, 10, 2000) // at the leader's log end: caught up now
    assert.equal(prog().lastCaughtUpMs, 2000)

    await write(p, 10) // LEO 20
    p.recordFollowerFetch(2, 10, 3000) // behind today's end, but at its previous fetch's end (10): caught up as of 2000
    assert.equal(prog().lastCaughtUpMs, 2000)
    p.recordFollowerFetch(2, 15, 4000) // previous fetch saw 20: 15 < 20, no change
    assert.equal(prog().lastCaughtUpMs, 2000)
    await write(p, 5) // LEO 25
    p.recordFollowerFetch(2, 20, 5000) // ≥ the 20 its previous fetch (at 4000) saw: caught up as of 4000
    assert.equal(prog().lastCaughtUpMs, 4000)
    p.recordFollowerFetch(2, 25, 6000)
    assert.equal(prog().lastCaughtUpMs, 6000)
    assert.equal(prog().logEndOffset, 25)
    assert.equal(prog().lastFetchMs, 6000)
  })

  it('removes an ISR follower after replica.lag.time.max.ms without catching up, and not before', async () => {
    const { p, clock } = await leader({ replicas: [1, 2, 3] })
    await write(p, 5)
    for (let t = 0; t <= LAG_MS + 1000; t += 500) {
      clock.advance(t - clock.monotonic())
      p.recordFollowerFetch(2, p.log.logEndOffset, clock.monotonic()) // 2 keeps up; 3 never fetches
      if (t <= LAG_MS) assert.equal(p.isrToShrink(clock.monotonic(), LAG_MS), undefined, `no shrink at ${t} ms`)
    }
    assert.deepEqual(p.isrToShrink(LAG_MS, LAG_MS), undefined, 'exactly the lag is still in sync')
    assert.deepEqual(p.isrToShrink(LAG_MS + 1, LAG_MS), [1, 2])
  })

  it('a follower that fetched behind the end keeps its earlier catch-up time and goes when that is too old', async () => {
    const { p } = await leader({ replicas: [1, 2] })
    await write(p, 10)
    p.recordFollowerFetch(2, 10, 1000)
    await write(p, 10)
    p.recordFollowerFetch(2, 12, 9000) // behind: still caught up as of 1000
    assert.equal(p.isrToShrink(1000 + LAG_MS, LAG_MS), undefined)
    assert.deepEqual(p.isrToShrink(1001 + LAG_MS, LAG_MS), [1])
  })

  it('never removes the leader itself', async () => {
    const { p } = await leader({ replicas: [1, 2], isr: [1] })
    assert.equal(p.isrToShrink(10 * LAG_MS, LAG_MS), undefined)
  })
})

describe('acks=all waiters', () => {
  it('resolve once the high watermark passes their offset', async () => {
    const { p, clock } = await leader({ replicas: [1, 2] })
    await write(p, 5)
    const w = track(p.waitForHighWatermark(5, 30_000, clock))
    fetchAt(p, 2, 4, 0)
    await settle(2)
    assert.equal(w.outcome, 'pending', 'HW 4 does not pass offset 5')
    fetchAt(p, 2, 5, 0)
    await settle(2)
    assert.equal(w.outcome, 'resolved')
    await p.waitForHighWatermark(3, 0, clock) // already passed: resolves without the clock
  })

  it('fail with REQUEST_TIMED_OUT when the clock passes the timeout, and not before', async () => {
    const { p, clock } = await leader({ replicas: [1, 2] })
    await write(p, 5)
    const w = track(p.waitForHighWatermark(5, 1000, clock))
    clock.advance(999)
    await settle(2)
    assert.equal(w.outcome, 'pending')
    clock.advance(1)
    await settle(2)
    assert.equal(w.outcome, 'REQUEST_TIMED_OUT')
    fetchAt(p, 2, 5, 0) // a late HW move does nothing more
    assert.equal(p.log.highWatermark, 5)
  })

  it('fail with NOT_LEADER_OR_FOLLOWER when the partition becomes a follower; a follower refuses new ones', async () => {
    const { p, clock, state } = await leader({ replicas: [1, 2] })
    await write(p, 5)
    const a = track(p.waitForHighWatermark(3, 30_000, clock))
    const b = track(p.waitForHighWatermark(5, 30_000, clock))
    p.becomeFollower({ ...state, leader: 2, leaderEpoch: 2, partitionEpoch: 2 })
    await settle(2)
    assert.equal(a.outcome, 'NOT_LEADER_OR_FOLLOWER')
    assert.equal(b.outcome, 'NOT_LEADER_OR_FOLLOWER')
    clock.advance(60_000) // their timers were cancelled: nothing else happens
    await assert.rejects(p.waitForHighWatermark(5, 30_000, clock), kafkaError('NOT_LEADER_OR_FOLLOWER'))
  })

  it('are released when the ISR shrinks past the follower that held them', async () => {
    const { p, clock, state } = await leader({ replicas: [1, 2, 3] })
    await write(p, 10)
    const w = track(p.waitForHighWatermark(10, 30_000, clock))
    fetchAt(p, 2, 10, 0)
    fetchAt(p, 3, 4, 0)
    await settle(2)
    assert.equal(w.outcome, 'pending')
    assert.equal(p.log.highWatermark, 4)
    p.becomeLeader({ ...state, isr: [1, 2], partitionEpoch: 2 }, clock.monotonic()) // our shrink came back from the store
    await settle(2)
    assert.equal(p.log.highWatermark, 10)
    assert.equal(w.outcome, 'resolved')
  })
})

describe('becomeLeader', () => {
  it('at a new leader epoch forgets every follower position and starts the epoch at the log end', async () => {
    const { p, clock, state } = await leader({ replicas: [1, 2, 3] }, 4)
    assert.equal(p.epochStartOffset, 4)
    await write(p, 6)
    fetchAt(p, 2, 10, 0)
    fetchAt(p, 3, 7, 0)
    clock.advance(5000)
    const r = p.becomeLeader({ ...state, leaderEpoch: 2, partitionEpoch: 2 }, clock.monotonic())
    assert.equal(r.newEpoch, true)
    assert.equal(p.leaderEpoch, 2)
    assert.equal(p.epochStartOffset, 10)
    for (const id of [2, 3]) {
      assert.deepEqual(p.followerProgress(id), { logEndOffset: -1, lastCaughtUpMs: 5000, lastFetchMs: 0, lastFetchLeaderLeo: -1 })
    }
  })

  it('at the same leader epoch (an ISR change came back) keeps what it knows and tracks new replicas', async () => {
    const { p, clock, state } = await leader({ replicas: [1, 2, 3], isr: [1, 2] })
    await write(p, 6)
    p.recordFollowerFetch(2, 6, 100)
    p.recordFollowerFetch(3, 2, 200)
    const before2 = { ...p.followerProgress(2)! }
    const before3 = { ...p.followerProgress(3)! }
    clock.advance(5000)
    const r = p.becomeLeader({ ...state, isr: [1, 2, 3], partitionEpoch: 2, addingReplicas: [4] }, clock.monotonic())
    assert.equal(r.newEpoch, false)
    assert.equal(p.epochStartOffset, 0)
    assert.deepEqual(p.followerProgress(2), before2)
    assert.deepEqual(p.followerProgress(3), before3)
    assert.deepEqual(p.followerProgress(4), { logEndOffset: -1, lastCaughtUpMs: 5000, lastFetchMs: 0, lastFetchLeaderLeo: -1 })
    assert.deepEqual(p.isr, [1, 2, 3])
    assert.equal(p.partitionEpoch, 2)
    assert.equal(p.log.highWatermark, 2, 'replica 3 joined the ISR at 2')
    p.becomeLeader({ ...state, replicas: [1, 2], isr: [1, 2], partitionEpoch: 3 }, clock.monotonic())
    assert.equal(p.followerProgress(3), undefined, 'a replica that left is forgotten')
    assert.equal(p.followerProgress(4), undefined)
  })

  it('after being a follower is a new epoch even at the same number', async () => {
    const { p, clock, state } = await leader({ replicas: [1, 2] })
    fetchAt(p, 2, 0, 0)
    p.becomeFollower({ ...state, leader: 2, leaderEpoch: 2, partitionEpoch: 2 })
    assert.equal(p.followerProgress(2), undefined)
    const r = p.becomeLeader({ ...state, leaderEpoch: 3, partitionEpoch: 3 }, clock.monotonic())
    assert.equal(r.newEpoch, true)
  })
})

describe('leader epoch checks', () => {
  it('FENCED_LEADER_EPOCH for an older epoch, UNKNOWN_LEADER_EPOCH for a newer one, -1 skips the check', async () => {
    const { p } = await leader({ replicas: [1, 2], leaderEpoch: 5 })
    p.checkLeaderEpoch(5)
    p.checkLeaderEpoch(-1)
    assert.throws(() => p.checkLeaderEpoch(4), kafkaError('FENCED_LEADER_EPOCH'))
    assert.throws(() => p.checkLeaderEpoch(6), kafkaError('UNKNOWN_LEADER_EPOCH'))
  })
})

describe('ReplicaManager: acks=-1 appends and follower reads', () => {
  const acksAll = (minIsr: number, timeoutMs = 30_000): AppendPolicy => ({
    logAppendTime: false,
    beforeMaxMs: Number.MAX_SAFE_INTEGER,
    afterMaxMs: Number.MAX_SAFE_INTEGER,
    acks: -1,
    minInsyncReplicas: minIsr,
    timeoutMs,
  })

  async function manager(state: Partial<PartitionState> & { replicas: readonly number[] }, lease = { alive: true }) {
    const clock = new ManualClock()
    const { logs } = await memoryLogs(clock)
    const rm = new ReplicaManager(logs, clock, silentLogger, { nodeId: LOCAL, leaseAlive: () => lease.alive })
    const p = await rm.createPartition('t', 0, TOPIC_ID)
    const s = stateOf({ leader: LOCAL, leaderEpoch: 3, partitionEpoch: 1, ...state })
    if (s.leader === LOCAL) {
      p.becomeLeader(s, clock.monotonic())
      await p.log.assignLeaderEpoch(s.leaderEpoch)
    } else p.becomeFollower(s)
    return { clock, rm, p, state: s, lease }
  }

  it('NOT_ENOUGH_REPLICAS when the ISR is smaller than min.insync.replicas; nothing is written', async () => {
    const { rm, p } = await manager({ replicas: [1, 2, 3], isr: [1] })
    await assert.rejects(rm.append(p, batchOf(['a']), 1 << 20, acksAll(2)), kafkaError('NOT_ENOUGH_REPLICAS'))
    assert.equal(p.log.logEndOffset, 0)
    const ok = await rm.append(p, batchOf(['b']), 1 << 20, acksAll(1))
    assert.equal(ok.baseOffset, 0)
  })

  it('completes once the ISR followers fetch past the batch, stamped with the leader epoch', async () => {
    const { rm, p } = await manager({ replicas: [1, 2, 3] })
    const res = track(rm.append(p, batchOf(['a', 'b', 'c']), 1 << 20, acksAll(2)))
    await settle()
    assert.equal(res.outcome, 'pending')
    assert.equal(p.log.logEndOffset, 3)
    const r2 = await rm.readForFollower(p, 2, 0, 1 << 20)
    assert.ok(r2.records.length > 0, 'followers read past the HW')
    assert.equal(r2.highWatermark, 0)
    assert.equal(r2.records.readInt32BE(12), 3, 'batch carries partitionLeaderEpoch 3')
    await rm.readForFollower(p, 2, 3, 1 << 20)
    await rm.readForFollower(p, 3, 2, 1 << 20)
    await settle()
    assert.equal(res.outcome, 'pending', 'replica 3 is at 2')
    const r3 = await rm.readForFollower(p, 3, 3, 1 << 20)
    assert.equal(r3.highWatermark, 3, 'the answer carries the HW after the update')
    await settle()
    assert.equal(res.outcome, 'resolved')
  })

  it('NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR shrank below min.insync.replicas while it waited', async () => {
    const { rm, p, clock, state } = await manager({ replicas: [1, 2, 3] })
    const res = track(rm.append(p, batchOf(['a']), 1 << 20, acksAll(2)))
    await settle()
    await rm.readForFollower(p, 2, 0, 1 << 20)
    p.becomeLeader({ ...state, isr: [1], partitionEpoch: 2 }, clock.monotonic())
    await settle()
    assert.equal(res.outcome, 'NOT_ENOUGH_REPLICAS_AFTER_APPEND')
  })

  it('REQUEST_TIMED_OUT on the clock when the followers do not come', async () => {
    const { rm, p, clock } = await manager({ replicas: [1, 2] })
    const res = track(rm.append(p, batchOf(['a']), 1 << 20, acksAll(2, 1500)))
    await settle()
    clock.advance(1499)
    await settle()
    assert.equal(res.outcome, 'pending')
    clock.advance(1)
    await settle()
    assert.equal(res.outcome, 'REQUEST_TIMED_OUT')
  })

  it('NOT_LEADER_OR_FOLLOWER when the registration lease may have lapsed, and on a follower', async () => {
    const a = await manager({ replicas: [1, 2] })
    a.lease.alive = false
    await assert.rejects(a.rm.append(a.p, batchOf(['a']), 1 << 20, acksAll(1)), kafkaError('NOT_LEADER_OR_FOLLOWER'))
    assert.equal(a.p.log.logEndOffset, 0)
    const b = await manager({ replicas: [1, 2], leader: 2, isr: [1, 2] })
    await assert.rejects(b.rm.append(b.p, batchOf(['a']), 1 << 20), kafkaError('NOT_LEADER_OR_FOLLOWER'))
    assert.throws(() => b.rm.require('t', 0), kafkaError('NOT_LEADER_OR_FOLLOWER'))
  })

  it('a pending acks=-1 append fails with NOT_LEADER_OR_FOLLOWER when leadership moves', async () => {
    const { rm, p, state } = await manager({ replicas: [1, 2] })
    const res = track(rm.append(p, batchOf(['a']), 1 << 20, acksAll(1)))
    await settle()
    p.becomeFollower({ ...state, leader: 2, leaderEpoch: 4, partitionEpoch: 2 })
    await settle()
    assert.equal(res.outcome, 'NOT_LEADER_OR_FOLLOWER')
  })

  it('a follower fetch outside the leader log is refused and does not count as the follower position', async () => {
    // Kafka (ReplicaManager.updateFollowerFetchState) skips the update when the read fails: a
    // follower asking past the leader's log end holds other records than the leader's, so it must
    // neither advance the HW nor look caught up.
    const { rm, p } = await manager({ replicas: [1, 2] })
    await rm.append(p, batchOf(['a', 'b', 'c', 'd']), 1 << 20) // acks=1: LEO 4, HW 0 (2 has not fetched)
    assert.equal(p.log.highWatermark, 0)
    await assert.rejects(rm.readForFollower(p, 2, 9, 1 << 20), kafkaError('OFFSET_OUT_OF_RANGE'))
    assert.equal(p.log.highWatermark, 0, 'the HW must not pass records follower 2 may not have')
    assert.equal(p.followerProgress(2)?.logEndOffset, -1, 'the follower position stays unknown')

    const out = await manager({ replicas: [1, 2], isr: [1] })
    await out.rm.append(out.p, batchOf(['a', 'b']), 1 << 20)
    await assert.rejects(out.rm.readForFollower(out.p, 2, 7, 1 << 20), kafkaError('OFFSET_OUT_OF_RANGE'))
    assert.equal(out.p.isrToExpand(2), undefined, 'nor may it join the ISR on that fetch')
  })
})
