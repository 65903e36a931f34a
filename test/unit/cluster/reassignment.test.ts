// Partition reassignment state transitions (KIP-455): start, complete (with and without a leader
// change), cancel, the target checks; then PartitionAdmin on a compare-and-swap store (races are
// retried, a single node accepts only [self]) and the controller's sweep completing a move once the
// new replica joins the ISR.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { LeaderElection } from '../../../src/cluster/leader-election.js'
import type { MetadataStore, PartitionChange, PartitionState, TopicRecord } from '../../../src/ports/metadata-store.js'
import {
  cancelReassignment,
  checkTarget,
  completeReassignment,
  PartitionAdmin,
  startReassignment,
} from '../../../src/cluster/reassignment.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'

function state(partial: Partial<PartitionState> & Pick<PartitionState, 'replicas'>): PartitionState {
  return {
    isr: partial.replicas,
    leader: partial.replicas[0]!,
    leaderEpoch: 3,
    partitionEpoch: 7,
    addingReplicas: [],
    removingReplicas: [],
    ...partial,
  }
}

const live = (...ids: number[]) => new Set(ids)
const kafkaError = (name: string) => (err: unknown) => err instanceof KafkaError && err.errorName === name

describe('startReassignment', () => {
  it('replicas = target then the leaving ones; adding = target − current; removing = current − target; ISR and leader stay', () => {
    const s = state({ replicas: [1, 2, 3] })
    assert.deepEqual(startReassignment(s, [4, 2, 5]), {
      ...s,
      replicas: [4, 2, 5, 1, 3],
      addingReplicas: [4, 5],
      removingReplicas: [1, 3],
    })
  })

  it('the current list is nothing to do; a reordering only reorders', () => {
    const s = state({ replicas: [1, 2, 3] })
    assert.equal(startReassignment(s, [1, 2, 3]), undefined)
    assert.deepEqual(startReassignment(s, [3, 1, 2]), { ...s, replicas: [3, 1, 2], addingReplicas: [], removingReplicas: [] })
  })

  it('a new target during a move starts from the combined list', () => {
    const moving = state({ replicas: [4, 2, 1], isr: [2, 1], leader: 1, addingReplicas: [4], removingReplicas: [1] })
    assert.deepEqual(startReassignment(moving, [5, 2]), {
      ...moving,
      replicas: [5, 2, 4, 1],
      addingReplicas: [5],
      removingReplicas: [4, 1],
    })
  })
})

describe('completeReassignment', () => {
  const moving = state({ replicas: [4, 2, 1], isr: [1, 2], leader: 2, addingReplicas: [4], removingReplicas: [1] })

  it('waits while a target replica is not in the ISR', () => {
    assert.equal(completeReassignment(moving, live(1, 2, 4)), undefined)
  })

  it('once every target replica is in sync: replicas = target, ISR ∩ target, same leader and epoch when it stays', () => {
    const caughtUp = { ...moving, isr: [1, 2, 4] }
    assert.deepEqual(completeReassignment(caughtUp, live(1, 2, 4)), {
      replicas: [4, 2],
      isr: [2, 4],
      leader: 2,
      leaderEpoch: 3,
      addingReplicas: [],
      removingReplicas: [],
    })
  })

  it('a leader being removed hands over to the first target replica in the ISR, with a new leader epoch', () => {
    const leaderLeaves = { ...moving, isr: [1, 2, 4], leader: 1 }
    assert.deepEqual(completeReassignment(leaderLeaves, live(1, 2, 4)), {
      replicas: [4, 2],
      isr: [2, 4],
      leader: 4,
      leaderEpoch: 4,
      addingReplicas: [],
      removingReplicas: [],
    })
  })

  it('a leader that is not alive is replaced by a live target replica; none alive: wait', () => {
    const s = { ...moving, isr: [1, 2, 4], leader: 2 }
    assert.equal(completeReassignment(s, live(1, 4))?.leader, 4)
    assert.equal(completeReassignment(s, live(1))?.leader, undefined)
  })

  it('shrinking the replication factor completes as soon as the target is in sync; nothing in progress: nothing', () => {
    const shrink = state({ replicas: [1, 2, 3], isr: [1, 2, 3], removingReplicas: [3] })
    assert.deepEqual(completeReassignment(shrink, live(1, 2, 3))?.replicas, [1, 2])
    assert.equal(completeReassignment(state({ replicas: [1, 2] }), live(1, 2)), undefined)
  })
})

describe('cancelReassignment', () => {
  it('goes back to the original replicas, the ISR restricted to them', () => {
    const moving = state({ replicas: [4, 2, 1], isr: [2, 1, 4], leader: 2, addingReplicas: [4], removingReplicas: [1] })
    assert.deepEqual(cancelReassignment(moving, live(1, 2, 4)), {
      replicas: [2, 1],
      isr: [2, 1],
      leader: 2,
      leaderEpoch: 3,
      addingReplicas: [],
      removingReplicas: [],
    })
  })

  it('an added replica that leads hands back to an original in-sync one', () => {
    const moving = state({ replicas: [4, 1], isr: [4, 1], leader: 4, addingReplicas: [4], removingReplicas: [1] })
    const back = cancelReassignment(moving, live(1, 4))
    assert.deepEqual([back.replicas, back.isr, back.leader, back.leaderEpoch], [[1], [1], 1, 4])
  })

  it('NO_REASSIGNMENT_IN_PROGRESS without a move; INVALID_REPLICA_ASSIGNMENT when no original replica is in sync', () => {
    assert.throws(() => cancelReassignment(state({ replicas: [1, 2] }), live(1, 2)), kafkaError('NO_REASSIGNMENT_IN_PROGRESS'))
    const lost = state({ replicas: [4, 1], isr: [4], leader: 4, addingReplicas: [4], removingReplicas: [1] })
    assert.throws(() => cancelReassignment(lost, live(1, 4)), kafkaError('INVALID_REPLICA_ASSIGNMENT'))
  })
})

describe('checkTarget', () => {
  const s = state({ replicas: [1, 2] })
  it('refuses an empty list, a broker twice and an unregistered broker (INVALID_REPLICA_ASSIGNMENT)', () => {
    assert.throws(() => checkTarget(s, [], live(1, 2, 3), true), kafkaError('INVALID_REPLICA_ASSIGNMENT'))
    assert.throws(() => checkTarget(s, [1, 1], live(1, 2, 3), true), /broker 1 more than once/)
    assert.throws(() => checkTarget(s, [1, 9], live(1, 2, 3), true), /broker 9, but no such broker is registered/)
    checkTarget(s, [3, 1], live(1, 2, 3), true)
  })

  it('KIP-860: another replica count is INVALID_REPLICATION_FACTOR unless allowed', () => {
    assert.throws(() => checkTarget(s, [1, 2, 3], live(1, 2, 3), false), kafkaError('INVALID_REPLICATION_FACTOR'))
    checkTarget(s, [1, 2, 3], live(1, 2, 3), true)
    checkTarget(s, [3, 2], live(1, 2, 3), false)
  })
})

// ---------------------------------------------------------------------------------------------

/** A compare-and-swap store of one topic, as the etcd store behaves (partitionEpoch checked). */
class FakeStore {
  readonly distributed: boolean
  readonly writes: PartitionChange[] = []
  /** Changes to apply just before the next writes, as a leader's ISR change racing ours. */
  readonly interleave: Array<(s: PartitionState) => Partial<PartitionState>> = []
  private readonly states: PartitionState[]
  private readonly topic: TopicRecord

  constructor(initial: PartitionState[], distributed = true) {
    this.distributed = distributed
    this.states = [...initial]
    this.topic = {
      name: 't',
      topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
      partitions: initial.length,
      replicationFactor: 2,
      configs: {},
      createdMs: 0,
    }
  }

  listTopics(): TopicRecord[] {
    return [this.topic]
  }

  getTopic(name: string): TopicRecord | undefined {
    return name === 't' ? this.topic : undefined
  }

  partitionState(topic: string, partition: number): PartitionState | undefined {
    return topic === 't' ? this.states[partition] : undefined
  }

  set(partition: number, patch: Partial<PartitionState>): void {
    const s = this.states[partition]!
    this.states[partition] = { ...s, ...patch, partitionEpoch: s.partitionEpoch + 1 }
  }

  async alterPartition(c: PartitionChange): Promise<PartitionState> {
    const race = this.interleave.shift()
    if (race) this.set(c.partition, race(this.states[c.partition]!))
    const cur = this.states[c.partition]
    if (!cur) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
    if (cur.leaderEpoch !== c.expected.leaderEpoch) throw new KafkaError('FENCED_LEADER_EPOCH')
    if (cur.partitionEpoch !== c.expected.partitionEpoch) throw new KafkaError('INVALID_UPDATE_VERSION')
    this.writes.push(c)
    this.states[c.partition] = { ...c.next, partitionEpoch: cur.partitionEpoch + 1 }
    return this.states[c.partition]!
  }
}

/** Runs the clock's timers (retry backoffs) while `work` is pending. */
async function drive<T>(clock: ManualClock, work: Promise<T>): Promise<T> {
  let done = false
  const p = work.finally(() => {
    done = true
  })
  while (!done) {
    await new Promise((r) => setImmediate(r))
    clock.advance(100)
  }
  return p
}

function admin(store: FakeStore, brokers: number[], clock = new ManualClock(), elector?: PartitionAdmin['electLeader']) {
  return new PartitionAdmin({
    store: store as unknown as MetadataStore,
    liveBrokers: () => new Set(brokers),
    clock,
    logger: silentLogger,
    elector: {
      elect:
        elector ??
        (async () => {
          throw new Error('no election expected')
        }),
    },
  })
}

describe('PartitionAdmin', () => {
  it('starts a move with one conditioned write and lists it; cancel restores the original replicas', async () => {
    const store = new FakeStore([state({ replicas: [1, 2] }), state({ replicas: [2, 3] })])
    const a = admin(store, [1, 2, 3, 4])
    await a.alterReassignment('t', 0, [4, 2], true)
    assert.equal(store.writes.length, 1)
    assert.deepEqual(store.writes[0]!.expected.partitionEpoch, 7)
    assert.deepEqual(a.listReassignments(null), [
      { topic: 't', partition: 0, replicas: [4, 2, 1], addingReplicas: [4], removingReplicas: [1] },
    ])
    assert.deepEqual(a.listReassignments([{ name: 't', partitions: [1] }]), [])
    assert.deepEqual(a.listReassignments([{ name: 'nope', partitions: [0] }]), [])
    await a.alterReassignment('t', 0, null, true)
    // The original brokers, in the order of the combined list (as Kafka reverts).
    assert.deepEqual(store.partitionState('t', 0)?.replicas, [2, 1])
    assert.deepEqual(a.listReassignments(null), [])
    await assert.rejects(a.alterReassignment('t', 0, null, true), kafkaError('NO_REASSIGNMENT_IN_PROGRESS'))
    await assert.rejects(a.alterReassignment('t', 5, [1], true), kafkaError('UNKNOWN_TOPIC_OR_PARTITION'))
    await assert.rejects(a.alterReassignment('x', 0, [1], true), kafkaError('UNKNOWN_TOPIC_OR_PARTITION'))
  })

  it('a target already in sync (fewer replicas) completes in the same write', async () => {
    const store = new FakeStore([state({ replicas: [1, 2, 3] })])
    await admin(store, [1, 2, 3]).alterReassignment('t', 0, [2, 3], true)
    const s = store.partitionState('t', 0)!
    assert.deepEqual([s.replicas, s.isr, s.leader, s.leaderEpoch, s.addingReplicas, s.removingReplicas], [[2, 3], [2, 3], 2, 4, [], []])
  })

  it('a write that loses the race to an ISR change is computed again from the new state', async () => {
    const store = new FakeStore([state({ replicas: [1, 2], isr: [1, 2] })])
    store.interleave.push(() => ({ isr: [1] }))
    const clock = new ManualClock()
    await drive(clock, admin(store, [1, 2, 3], clock).alterReassignment('t', 0, [3, 1], true))
    const s = store.partitionState('t', 0)!
    assert.deepEqual([s.replicas, s.isr, s.addingReplicas, s.removingReplicas], [[3, 1, 2], [1], [3], [2]])
  })

  it('a single broker: [self] changes nothing, anything else is refused', async () => {
    const store = new FakeStore([state({ replicas: [0] })], false)
    const a = admin(store, [0])
    await a.alterReassignment('t', 0, [0], false)
    assert.equal(store.writes.length, 0)
    await assert.rejects(a.alterReassignment('t', 0, [1], true), kafkaError('INVALID_REPLICA_ASSIGNMENT'))
    await assert.rejects(a.alterReassignment('t', 0, [0, 1], true), kafkaError('INVALID_REPLICA_ASSIGNMENT'))
  })

  it('elections go to the elector, retried after a lost race', async () => {
    const store = new FakeStore([state({ replicas: [1, 2] })])
    const answers = [new KafkaError('INVALID_UPDATE_VERSION'), null]
    let calls = 0
    const clock = new ManualClock()
    const a = admin(store, [1, 2], clock, async () => {
      calls++
      return answers.shift() ?? null
    })
    assert.equal(await drive(clock, a.electLeader('t', 0, false)), null)
    assert.equal(calls, 2)
  })
})

describe("the controller's sweep completes a reassignment", () => {
  it('once the new replica is in the ISR: the leaving leader hands over and the old replica is dropped', async () => {
    const store = new FakeStore([state({ replicas: [1, 2] })])
    const brokers = new Set([1, 2, 3])
    const clock = new ManualClock()
    const election = new LeaderElection(store as unknown as MetadataStore, () => brokers, clock, silentLogger, {
      autoLeaderRebalance: false,
      imbalanceCheckIntervalMs: 300_000,
      imbalancePercentage: 10,
      uncleanElection: () => false,
    })
    await admin(store, [...brokers]).alterReassignment('t', 0, [3, 2], true)
    const settle = () => drive(clock, new Promise((r) => setTimeout(r, 20)))
    election.setActive(true)
    await settle()
    assert.deepEqual(store.partitionState('t', 0)?.addingReplicas, [3], 'not complete while broker 3 is out of the ISR')
    // The leader adds the caught-up replica to the ISR; the store change triggers a sweep.
    store.set(0, { isr: [1, 2, 3] })
    election.trigger()
    await settle()
    const s = store.partitionState('t', 0)!
    assert.deepEqual([s.replicas, s.isr, s.leader, s.leaderEpoch, s.addingReplicas, s.removingReplicas], [[3, 2], [2, 3], 3, 4, [], []])
    election.setActive(false)
  })
})
