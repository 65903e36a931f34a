// Leader election and failover (src/cluster/leader-election.ts): the pure state functions
// (failoverState, preferredLeaderState) and LeaderElection's sweep, retry, ElectLeaders and
// auto-rebalance over an in-memory store with the etcd store's compare-and-swap
// (test/helpers/fake-metadata-store.ts), on a virtual clock.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type ElectionConfig, failoverState, LeaderElection, preferredLeaderState } from '../../../src/cluster/leader-election.js'
import type { PartitionState } from '../../../src/ports/metadata-store.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { FakeMetadataStore, stateOf } from '../../helpers/fake-metadata-store.js'
import { settle, until } from '../../helpers/memory-logs.js'

const live = (...ids: number[]) => new Set(ids)

describe('failoverState', () => {
  it('leader dead: the first live ISR replica in preferred (replica) order leads, at epoch + 1, and the dead leave the ISR', () => {
    const s = stateOf({ replicas: [3, 2, 1], isr: [1, 2, 3], leader: 3, leaderEpoch: 7, partitionEpoch: 9 })
    const next = failoverState(s, live(1, 2), false)
    assert.ok(next)
    assert.equal(next.leader, 2, 'replica order (3, 2, 1), not ISR order (1, 2, 3)')
    assert.equal(next.leaderEpoch, 8)
    assert.deepEqual(next.isr, [1, 2])
    assert.deepEqual(next.replicas, [3, 2, 1])
  })

  it('a live replica outside the ISR is not chosen without unclean election', () => {
    const s = stateOf({ replicas: [1, 2, 3], isr: [1, 3], leader: 1, leaderEpoch: 2 })
    const next = failoverState(s, live(2, 3), false)
    assert.equal(next?.leader, 3)
    assert.deepEqual(next?.isr, [3])
  })

  it('no live ISR member: leader -1 at epoch + 1, the ISR kept as it was; nothing more while it stays so', () => {
    const s = stateOf({ replicas: [1, 2, 3], isr: [1, 2], leader: 1, leaderEpoch: 4 })
    const next = failoverState(s, live(3), false)
    assert.ok(next)
    assert.equal(next.leader, -1)
    assert.equal(next.leaderEpoch, 5)
    assert.deepEqual(next.isr, [1, 2], 'the replicas holding every committed record stay eligible')
    const leaderless = stateOf({ ...next, partitionEpoch: 1 })
    assert.equal(failoverState(leaderless, live(3), false), undefined)
    const back = failoverState(leaderless, live(2, 3), false)
    assert.equal(back?.leader, 2, 'an ISR member that returns leads')
    assert.equal(back?.leaderEpoch, 6)
    assert.deepEqual(back?.isr, [2])
  })

  it('unclean election: a live replica outside the ISR leads when no ISR member lives, alone in the ISR', () => {
    const s = stateOf({ replicas: [1, 2, 3], isr: [1], leader: 1, leaderEpoch: 4 })
    const next = failoverState(s, live(3, 2), true)
    assert.equal(next?.leader, 2, 'the first live replica in replica order')
    assert.deepEqual(next?.isr, [2])
    assert.equal(next?.leaderEpoch, 5)
    assert.equal(failoverState(stateOf({ ...s, isr: [1, 3] }), live(3, 2), true)?.leader, 3, 'a live ISR member still comes first')
    const none = failoverState(s, live(9), true)
    assert.equal(none?.leader, -1, 'no live replica at all')
    assert.deepEqual(none?.isr, [1])
  })

  it('follower dead: it leaves the ISR at the same leader epoch and the leader stays', () => {
    const s = stateOf({ replicas: [1, 2, 3], isr: [1, 2, 3], leader: 1, leaderEpoch: 4 })
    const next = failoverState(s, live(1, 2), false)
    assert.deepEqual(next, { ...s, isr: [1, 2] })
    assert.equal(failoverState(s, live(1, 2, 3), false), undefined, 'everyone alive: no change')
    assert.equal(failoverState(stateOf({ ...s, isr: [1, 2] }), live(1, 2), false), undefined, 'a dead replica outside the ISR: no change')
  })

  it('a replica being added by a reassignment can lead when it is in the ISR', () => {
    const s = stateOf({ replicas: [1, 2], isr: [1, 4], addingReplicas: [4], leader: 1, leaderEpoch: 0 })
    assert.equal(failoverState(s, live(2, 4), false)?.leader, 4)
  })
})

describe('preferredLeaderState', () => {
  it('moves leadership to the first replica when it is alive and in sync', () => {
    const s = stateOf({ replicas: [1, 2, 3], isr: [1, 2, 3], leader: 2, leaderEpoch: 6 })
    assert.deepEqual(preferredLeaderState(s, live(1, 2, 3)), { ...s, leader: 1, leaderEpoch: 7 })
  })

  it('nothing when the preferred replica leads, is dead, or is out of the ISR', () => {
    const s = stateOf({ replicas: [1, 2, 3], isr: [1, 2, 3], leader: 2, leaderEpoch: 6 })
    assert.equal(preferredLeaderState(stateOf({ ...s, leader: 1 }), live(1, 2, 3)), undefined)
    assert.equal(preferredLeaderState(s, live(2, 3)), undefined)
    assert.equal(preferredLeaderState(stateOf({ ...s, isr: [2, 3] }), live(1, 2, 3)), undefined)
  })
})

function election(store: FakeMetadataStore, brokers: Set<number>, config: Partial<ElectionConfig> = {}) {
  const clock = new ManualClock()
  const e = new LeaderElection(store, () => brokers, clock, silentLogger, {
    autoLeaderRebalance: false,
    imbalanceCheckIntervalMs: 300_000,
    imbalancePercentage: 10,
    uncleanElection: () => false,
    ...config,
  })
  return { clock, e }
}

const stateIn = (store: FakeMetadataStore, topic: string, i = 0) => store.partitionState(topic, i)!

describe('LeaderElection sweep', () => {
  it('on becoming controller fails over every partition whose leader died; an inactive one changes nothing', async () => {
    const store = new FakeMetadataStore()
    store.addTopic('a', [
      [1, 2, 3],
      [2, 3, 1],
      [3, 1, 2],
    ])
    const brokers = live(2, 3)
    const { e } = election(store, brokers)
    e.trigger()
    await settle()
    assert.equal(store.attempts.length, 0, 'not the controller')
    e.setActive(true)
    await until(() => store.attempts.length === 3, 'three changes written')
    assert.deepEqual(
      [0, 1, 2].map((i) => {
        const s = stateIn(store, 'a', i)
        return [s.leader, s.leaderEpoch, s.isr]
      }),
      [
        [2, 1, [2, 3]],
        [2, 0, [2, 3]],
        [3, 0, [3, 2]],
      ],
    )
    e.setActive(false)
  })

  it('a change that loses a compare-and-swap race is computed again from the new state after the retry delay', async () => {
    const store = new FakeMetadataStore()
    store.addTopic('a', [[1, 2, 3]], [{ leaderEpoch: 3 }])
    const brokers = live(2, 3)
    const { clock, e } = election(store, brokers)
    // The leader's own ISR change lands between the controller's read and its write.
    let raced = false
    store.beforeAlter = () => {
      if (raced) return
      raced = true
      store.setState('a', 0, { isr: [1, 3] }, false)
    }
    e.setActive(true)
    await until(() => store.attempts.length === 1, 'the first write')
    await settle()
    assert.equal(store.attempts[0]!.outcome, 'INVALID_UPDATE_VERSION')
    assert.equal(stateIn(store, 'a').leader, 1, 'nothing changed yet')
    clock.advance(199)
    await settle()
    assert.equal(store.attempts.length, 1, 'no retry before the delay')
    clock.advance(1)
    await until(() => store.attempts.length === 2, 'retried')
    const s = stateIn(store, 'a')
    assert.equal(s.leader, 3, 'computed from the new ISR (1, 3): 2 is no longer in sync')
    assert.equal(s.leaderEpoch, 4)
    assert.deepEqual(s.isr, [3])
    e.setActive(false)
  })

  it('triggers during a sweep are coalesced into one more sweep that sees the newest live set', async () => {
    const store = new FakeMetadataStore()
    store.addTopic('a', [[1, 2, 3]])
    const brokers = live(2, 3)
    const { e } = election(store, brokers)
    let release!: () => void
    store.hold = new Promise<void>((resolve) => {
      release = resolve
    })
    e.setActive(true)
    await settle()
    brokers.delete(2)
    e.trigger()
    e.trigger()
    store.hold = undefined
    release()
    await until(() => store.attempts.length === 2, 'a second sweep')
    await settle()
    assert.equal(store.attempts.length, 2, 'two triggers during the sweep make one more sweep')
    assert.equal(stateIn(store, 'a').partitionEpoch, 2, 'both writes applied')
    const s = stateIn(store, 'a')
    assert.deepEqual([s.leader, s.leaderEpoch, s.isr], [3, 2, [3]], 'the second sweep saw 2 die too')
    e.setActive(false)
  })
})

describe('LeaderElection.elect (ElectLeaders)', () => {
  it('preferred: moves to the preferred replica, or says why not', async () => {
    const store = new FakeMetadataStore()
    store.addTopic('a', [[1, 2, 3]], [{ leader: 2, leaderEpoch: 3 }])
    store.addTopic('b', [[1, 2, 3]], [{ leader: 2, isr: [2, 3] }])
    store.addTopic('c', [[1, 2, 3]])
    const { e } = election(store, live(1, 2, 3))
    assert.equal(await e.elect('a', 0, false), null)
    assert.equal(stateIn(store, 'a').leader, 1)
    assert.equal(stateIn(store, 'a').leaderEpoch, 4)
    assert.equal((await e.elect('b', 0, false))?.errorName, 'PREFERRED_LEADER_NOT_AVAILABLE')
    assert.equal((await e.elect('c', 0, false))?.errorName, 'ELECTION_NOT_NEEDED')
    assert.equal((await e.elect('nope', 0, false))?.errorName, 'UNKNOWN_TOPIC_OR_PARTITION')
  })

  it('unclean: any live replica when no ISR member lives; not needed while the leader lives', async () => {
    const store = new FakeMetadataStore()
    store.addTopic('a', [[1, 2, 3]], [{ leader: -1, isr: [1], leaderEpoch: 2 }])
    store.addTopic('b', [[1, 2]])
    const { e } = election(store, live(3))
    assert.equal(await e.elect('a', 0, true), null)
    const s = stateIn(store, 'a')
    assert.deepEqual([s.leader, s.leaderEpoch, s.isr], [3, 3, [3]])
    assert.equal((await e.elect('b', 0, true))?.errorName, 'ELIGIBLE_LEADERS_NOT_AVAILABLE', 'no replica of b lives')
    assert.equal((await e.elect('a', 0, true))?.errorName, 'ELECTION_NOT_NEEDED', 'a has a live leader now')
  })
})

describe('LeaderElection auto-rebalance', () => {
  /** Broker 1 is the preferred replica of `total` partitions; `movable` of them are led by 2 with 1 in sync, `stuck` led by 2 with 1 out of sync. */
  function imbalanced(total: number, movable: number, stuck: number): FakeMetadataStore {
    const store = new FakeMetadataStore()
    const states: Array<Partial<PartitionState>> = []
    for (let i = 0; i < total; i++) {
      if (i < movable) states.push({ leader: 2, leaderEpoch: 1 })
      else if (i < movable + stuck) states.push({ leader: 2, leaderEpoch: 1, isr: [2, 3] })
      else states.push({})
    }
    store.addTopic(
      't',
      Array.from({ length: total }, () => [1, 2, 3]),
      states,
    )
    return store
  }

  const ledElsewhere = (store: FakeMetadataStore, total: number) =>
    Array.from({ length: total }, (_, i) => stateIn(store, 't', i).leader).filter((l) => l !== 1).length

  it('moves the preferred replicas back when more than leader.imbalance.per.broker.percentage are led elsewhere', async () => {
    const store = imbalanced(4, 1, 0) // 25 % led elsewhere
    const { e } = election(store, live(1, 2, 3), { imbalancePercentage: 20 })
    await e.rebalance()
    assert.equal(ledElsewhere(store, 4), 0)
    assert.equal(stateIn(store, 't', 0).leaderEpoch, 2)
  })

  it('leaves them when exactly the percentage, or less, is led elsewhere (strictly more, as Kafka)', async () => {
    for (const pct of [25, 30]) {
      const store = imbalanced(4, 1, 0)
      const { e } = election(store, live(1, 2, 3), { imbalancePercentage: pct })
      await e.rebalance()
      assert.equal(ledElsewhere(store, 4), 1, `${pct} %`)
      assert.equal(store.attempts.length, 0)
    }
  })

  it('counts every partition led elsewhere, and moves those whose preferred replica is alive and in sync', async () => {
    // Kafka's checkAndTriggerAutoLeaderRebalance: imbalance = partitions not led by their preferred
    // replica / partitions it is preferred for; if above the percentage, elect the preferred
    // replica where it can lead (canPreferredReplicaBeLeader). Here 3 of 10 (30 % > 20 %) are led
    // elsewhere; one of them can move back now.
    const store = imbalanced(10, 1, 2)
    const { e } = election(store, live(1, 2, 3), { imbalancePercentage: 20 })
    await e.rebalance()
    assert.equal(stateIn(store, 't', 0).leader, 1, 'the movable partition is moved back')
    assert.equal(ledElsewhere(store, 10), 2, 'the two whose preferred replica is out of sync stay')
  })

  it('runs every leader.imbalance.check.interval on the clock while active', async () => {
    const store = imbalanced(2, 1, 0)
    const { clock, e } = election(store, live(1, 2, 3), { autoLeaderRebalance: true, imbalanceCheckIntervalMs: 60_000 })
    e.setActive(true)
    await settle()
    clock.advance(59_999)
    await settle()
    assert.equal(stateIn(store, 't', 0).leader, 2)
    clock.advance(1)
    await until(() => stateIn(store, 't', 0).leader === 1, 'rebalanced at 60 s')
    store.setState('t', 1, { leader: 2, leaderEpoch: 5 })
    e.setActive(false)
    clock.advance(120_000)
    await settle()
    assert.equal(stateIn(store, 't', 1).leader, 2, 'an inactive controller does not rebalance')
  })
})
