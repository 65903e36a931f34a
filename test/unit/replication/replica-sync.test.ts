// ReplicaSync (src/replication/replica-sync.ts) against an in-memory MetadataStore with the etcd
// store's compare-and-swap (test/helpers/fake-metadata-store.ts), a recording FetcherManager, real
// ReplicaManager/PartitionLogs on the in-memory file system and a virtual clock: role transitions
// applied from the store, ISR changes written with the state they were computed from, stale
// writes losing to the store, and the periodic shrink check on the clock.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { PartitionState } from '../../../src/ports/metadata-store.js'
import type { Partition } from '../../../src/replication/partition.js'
import type { FetcherManager } from '../../../src/replication/replica-fetcher.js'
import { ReplicaManager } from '../../../src/replication/replica-manager.js'
import { ReplicaSync } from '../../../src/replication/replica-sync.js'
import { defaultLogConfig } from '../../../src/storage/log-config.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { FakeMetadataStore } from '../../helpers/fake-metadata-store.js'
import { batchOf, memoryLogs, settle, until } from '../../helpers/memory-logs.js'

const NODE = 1
const LAG_MS = 10_000

/** Records what ReplicaSync asks of the fetchers. */
class RecordingFetchers {
  readonly calls: string[] = []
  readonly following = new Map<string, { leader: number; epoch: number }>()

  follow(p: Partition, leader: number, epoch: number): void {
    this.calls.push(`follow ${p.key} ${leader} ${epoch}`)
    this.following.set(p.key, { leader, epoch })
  }

  unfollow(p: Partition): void {
    this.calls.push(`unfollow ${p.key}`)
    this.following.delete(p.key)
  }
}

async function setup(topics: Array<{ name: string; assignment: number[][]; states?: Array<Partial<PartitionState>> }>) {
  const clock = new ManualClock()
  const { logs } = await memoryLogs(clock)
  const store = new FakeMetadataStore()
  for (const t of topics) store.addTopic(t.name, t.assignment, t.states)
  const replicas = new ReplicaManager(logs, clock, silentLogger, {
    nodeId: NODE,
    partitionExists: (topic, partition) => store.partitionState(topic, partition) !== undefined,
  })
  const fetchers = new RecordingFetchers()
  const sync = new ReplicaSync({
    nodeId: NODE,
    store,
    replicas,
    fetchers: fetchers as unknown as FetcherManager,
    clock,
    logger: silentLogger,
    logConfigOf: () => defaultLogConfig,
    replicaLagTimeMaxMs: LAG_MS,
  })
  // As the broker wires the etcd store's watch (broker.ts startClusterParts).
  store.onChange((c) => {
    if (c.kind === 'topic') sync.topicChanged(c.name)
    else void sync.schedule(c.topic, c.partition)
  })
  const told: string[] = []
  sync.onLeadershipChange((topic, partition, leading, epoch) =>
    told.push(`${topic}-${partition} ${leading ? 'leads' : 'stops leading'} at ${epoch}`),
  )
  await sync.start()
  const part = (topic = 't', i = 0) => {
    const p = replicas.get(topic, i)
    if (!p) throw new Error(`no replica of ${topic}-${i}`)
    return p
  }
  return { clock, logs, store, replicas, fetchers, sync, told, part }
}

describe('ReplicaSync: roles from the store', () => {
  it('a partition this broker leads: the replica leads at the stored epoch, the epoch is checkpointed, nothing is fetched', async (t) => {
    const s = await setup([{ name: 't', assignment: [[1, 2, 3]], states: [{ leaderEpoch: 4, partitionEpoch: 7 }] }])
    t.after(() => s.sync.close())
    const p = s.part()
    assert.equal(p.isLeader, true)
    assert.equal(p.leaderEpoch, 4)
    assert.equal(p.partitionEpoch, 7)
    assert.deepEqual(p.isr, [1, 2, 3])
    assert.equal(p.log.latestEpoch, 4, 'the epoch start is recorded before any write of the epoch')
    assert.deepEqual(p.log.leaderEpochs.entries(), [{ epoch: 4, startOffset: 0 }])
    assert.deepEqual(s.fetchers.calls, ['unfollow t:0'])
    assert.deepEqual(s.told, ['t-0 leads at 4'])
  })

  it('a partition another broker leads: the replica follows it at its epoch; one this broker does not host is not created', async (t) => {
    const s = await setup([
      { name: 't', assignment: [[2, 1, 3]], states: [{ leaderEpoch: 3 }] },
      { name: 'other', assignment: [[2, 3]] },
    ])
    t.after(() => s.sync.close())
    const p = s.part()
    assert.equal(p.isLeader, false)
    assert.equal(p.leaderId, 2)
    assert.deepEqual(s.fetchers.following.get('t:0'), { leader: 2, epoch: 3 })
    assert.deepEqual(s.told, [])
    assert.equal(s.replicas.get('other', 0), undefined)
    assert.equal(s.logs.get('other', 0), undefined)
  })

  it('leader → follower → leaderless → leader again, each applied as the store says', async (t) => {
    const s = await setup([{ name: 't', assignment: [[1, 2]], states: [{ leaderEpoch: 1 }] }])
    t.after(() => s.sync.close())
    const p = s.part()
    await s.replicas.append(p, batchOf(['a', 'b']), 1 << 20)
    const waiter = p.waitForHighWatermark(2, 30_000, s.clock).then(
      () => 'resolved',
      (err: { errorName?: string }) => err.errorName,
    )

    s.store.setState('t', 0, { leader: 2, leaderEpoch: 2 })
    await until(() => !p.isLeader, 'the replica follows broker 2')
    assert.deepEqual(s.fetchers.following.get('t:0'), { leader: 2, epoch: 2 })
    assert.equal(await waiter, 'NOT_LEADER_OR_FOLLOWER', 'an acks=all append still waiting fails')
    await until(() => s.told.length === 2, 'the listener hears of it')
    assert.deepEqual(s.told, ['t-0 leads at 1', 't-0 stops leading at 2'])

    s.store.setState('t', 0, { leader: -1, leaderEpoch: 3, isr: [2] })
    await until(() => !s.fetchers.following.has('t:0'), 'no leader: nothing to fetch from')
    assert.equal(p.leaderId, -1)

    s.store.setState('t', 0, { leader: 1, leaderEpoch: 4, isr: [1] })
    await until(() => p.isLeader, 'leads again')
    await settle()
    assert.equal(p.leaderEpoch, 4)
    assert.equal(p.log.latestEpoch, 4)
    assert.equal(s.told.at(-1), 't-0 leads at 4')
    assert.equal(s.fetchers.following.has('t:0'), false)
    assert.equal(s.replicas.get('t', 0), p, 'the same replica, log kept')
    assert.equal(p.log.logEndOffset, 2)
  })

  it('removal: a broker no longer among the replicas stops fetching and deletes its log; so does a deleted topic', async (t) => {
    const s = await setup([
      { name: 't', assignment: [[2, 1]] },
      { name: 'gone', assignment: [[1, 2]] },
    ])
    t.after(() => s.sync.close())
    const follower = s.part('t')
    assert.ok(s.fetchers.following.has('t:0'))
    s.store.setState('t', 0, { replicas: [2, 3], isr: [2, 3] })
    await until(() => s.replicas.get('t', 0) === undefined, 'the replica is removed')
    await settle()
    assert.equal(s.fetchers.following.has('t:0'), false)
    assert.equal(s.logs.get('t', 0), undefined)
    assert.equal(follower.log.usable, false)

    assert.ok(s.part('gone').isLeader)
    await s.store.deleteTopic('gone')
    await until(() => s.replicas.get('gone', 0) === undefined, 'the deleted topic is removed')
    await settle()
    assert.equal(s.logs.get('gone', 0), undefined)
    assert.deepEqual(s.told, ['gone-0 leads at 0', 'gone-0 stops leading at 0'])
  })
})

describe('ReplicaSync: ISR changes', () => {
  it('a follower that catches up is written into the ISR, conditioned on the state the leader holds', async (t) => {
    const s = await setup([{ name: 't', assignment: [[1, 2, 3]], states: [{ isr: [1, 2], leaderEpoch: 2, partitionEpoch: 5 }] }])
    t.after(() => s.sync.close())
    const p = s.part()
    const held = s.store.partitionState('t', 0)!
    await s.replicas.append(p, batchOf(['a', 'b', 'c']), 1 << 20)
    await s.replicas.readForFollower(p, 2, 3, 1 << 20)
    assert.equal(p.log.highWatermark, 3)
    await s.replicas.readForFollower(p, 3, 1, 1 << 20)
    await settle()
    assert.equal(s.store.attempts.length, 0, 'below the HW: not in sync')
    await s.replicas.readForFollower(p, 3, 3, 1 << 20)
    await until(() => p.partitionEpoch === 6, 'the change comes back from the store')
    assert.equal(s.store.attempts.length, 1)
    const { change, outcome } = s.store.attempts[0]!
    assert.equal(change.topic, 't')
    assert.equal(change.partition, 0)
    assert.equal(change.expected, held, 'conditioned on the state the leader holds')
    assert.deepEqual(
      { ...change.next, partitionEpoch: undefined },
      {
        replicas: [1, 2, 3],
        isr: [1, 2, 3],
        leader: 1,
        leaderEpoch: 2,
        addingReplicas: [],
        removingReplicas: [],
        partitionEpoch: undefined,
      },
    )
    assert.equal((outcome as PartitionState).partitionEpoch, 6)
    assert.deepEqual(p.isr, [1, 2, 3])
    assert.equal(p.leaderEpoch, 2, 'an ISR change keeps the leader epoch')
    assert.equal(p.isrChangeInFlight, false)
    assert.deepEqual(s.told, ['t-0 leads at 2'], 'no new leadership')
  })

  it('one ISR change at a time: a second catch-up waits until the first is back', async (t) => {
    const s = await setup([{ name: 't', assignment: [[1, 2, 3]], states: [{ isr: [1] }] }])
    t.after(() => s.sync.close())
    const p = s.part()
    let release!: () => void
    s.store.hold = new Promise<void>((resolve) => {
      release = resolve
    })
    await s.replicas.readForFollower(p, 2, 0, 1 << 20)
    await s.replicas.readForFollower(p, 3, 0, 1 << 20)
    await settle()
    assert.equal(p.isrChangeInFlight, true)
    s.store.hold = undefined
    release()
    await until(() => p.partitionEpoch === 1 && !p.isrChangeInFlight, 'the first change is back')
    assert.equal(s.store.attempts.length, 1, 'the second catch-up wrote nothing while the first was in flight')
    assert.deepEqual(p.isr, [1, 2])
    await s.replicas.readForFollower(p, 3, 0, 1 << 20)
    await until(() => p.isr.length === 3, 'the next fetch of 3 adds it')
    assert.equal(s.store.attempts[1]!.change.expected.partitionEpoch, 1)
    assert.deepEqual(p.isr, [1, 2, 3])
  })

  it('a stale ISR write (the partition epoch moved) fails and the replica takes the state the store has', async (t) => {
    const s = await setup([{ name: 't', assignment: [[1, 2, 3]], states: [{ isr: [1, 2], leaderEpoch: 3, partitionEpoch: 4 }] }])
    t.after(() => s.sync.close())
    const p = s.part()
    // A controller removed 2 from the ISR; the watch has not brought it here yet.
    const stored = s.store.setState('t', 0, { isr: [1] }, false)
    await s.replicas.readForFollower(p, 3, 0, 1 << 20)
    await until(() => p.partitionEpoch === stored.partitionEpoch, 'the replica applies the stored state')
    assert.equal(s.store.attempts.length, 1)
    assert.equal(s.store.attempts[0]!.outcome, 'INVALID_UPDATE_VERSION')
    assert.deepEqual(s.store.attempts[0]!.change.next.isr, [1, 2, 3])
    assert.equal(s.store.partitionState('t', 0), stored, 'the failed write changed nothing in the store')
    assert.deepEqual(p.isr, [1])
    assert.equal(p.isrChangeInFlight, false)
    assert.equal(p.isLeader, true)
  })

  it('a deposed leader cannot shrink the ISR to itself: FENCED_LEADER_EPOCH, and it follows the new leader', async (t) => {
    const s = await setup([{ name: 't', assignment: [[1, 2, 3]], states: [{ leaderEpoch: 3 }] }])
    t.after(() => s.sync.close())
    const p = s.part()
    // Broker 2 was elected meanwhile; this broker has not heard (its watch lags) and its followers stopped fetching.
    const stored = s.store.setState('t', 0, { leader: 2, leaderEpoch: 4, isr: [2, 3] }, false)
    s.clock.advance(LAG_MS + LAG_MS / 2)
    await until(() => !p.isLeader, 'the replica applies the stored state')
    assert.ok(s.store.attempts.length >= 1)
    assert.equal(s.store.attempts[0]!.outcome, 'FENCED_LEADER_EPOCH')
    assert.deepEqual(s.store.attempts[0]!.change.next.isr, [1])
    assert.equal(s.store.partitionState('t', 0), stored)
    assert.deepEqual(s.fetchers.following.get('t:0'), { leader: 2, epoch: 4 })
    assert.deepEqual(p.isr, [2, 3])
  })

  it('shrink: an ISR follower that does not catch up is removed after replica.lag.time.max.ms on the clock, not before', async (t) => {
    const s = await setup([{ name: 't', assignment: [[1, 2, 3]], states: [{ leaderEpoch: 1 }] }])
    t.after(() => s.sync.close())
    const p = s.part()
    await s.replicas.append(p, batchOf(['a']), 1 << 20)
    // Follower 2 fetches at the log end every second; follower 3 never fetches.
    const step = async (toMs: number) => {
      while (s.clock.monotonic() < toMs) {
        s.clock.advance(Math.min(1000, toMs - s.clock.monotonic()))
        await s.replicas.readForFollower(p, 2, p.log.logEndOffset, 1 << 20)
        await settle(5)
      }
    }
    await step(LAG_MS)
    await settle()
    assert.equal(s.store.attempts.length, 0, `no ISR change up to ${LAG_MS} ms`)
    assert.deepEqual(p.isr, [1, 2, 3])
    await step(LAG_MS + LAG_MS / 2) // the next check runs at 15 s
    await until(() => p.isr.length === 2, 'the shrink comes back from the store')
    assert.equal(s.store.attempts.length, 1)
    assert.deepEqual(s.store.attempts[0]!.change.next.isr, [1, 2])
    assert.equal(p.leaderEpoch, 1)
    // Back in sync: follower 3 fetches at the log end and rejoins.
    await s.replicas.readForFollower(p, 3, p.log.logEndOffset, 1 << 20)
    await until(() => p.isr.length === 3, 'follower 3 rejoins')
    assert.deepEqual(s.store.partitionState('t', 0)!.isr, [1, 2, 3])
  })
})
