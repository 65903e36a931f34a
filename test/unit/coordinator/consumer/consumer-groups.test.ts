// Consumer-protocol groups (src/coordinator/group/consumer/consumer-groups.ts) on a virtual clock:
// epochs, the revoke-before-assign order, fencing, session and revocation timeouts, static members,
// regex subscriptions, describe and the offset-commit member checks. A test client revokes what an
// answer takes away and reports what it owns, as the Java consumer does; after every step no
// partition may be owned by two clients.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  type Assignment,
  emptyAssignment,
  fromWire,
  partitionCount,
  partitionsOf,
  toWire,
} from '../../../../src/coordinator/group/consumer/assignment.js'
import { ConsumerGroups, type TopicInfo } from '../../../../src/coordinator/group/consumer/consumer-groups.js'
import type { ConsumerGroupHeartbeatRequestData } from '../../../../src/protocol/messages/68-consumer-group-heartbeat.js'
import { ManualClock } from '../../../../src/util/clock.js'

const FENCED_MEMBER_EPOCH = 110
const UNRELEASED_INSTANCE_ID = 111
const UNSUPPORTED_ASSIGNOR = 112
const UNKNOWN_MEMBER_ID = 25
const INVALID_REQUEST = 42

function setup(topics: Record<string, number> = { T: 6 }) {
  const clock = new ManualClock()
  const table = new Map<string, TopicInfo>(Object.entries(topics).map(([name, n]) => [name, { id: `id-${name}`, partitions: n }]))
  const groups = new ConsumerGroups(clock, () => table)
  const clients: TestConsumer[] = []
  return { clock, table, groups, clients }
}

type Harness = ReturnType<typeof setup>

class TestConsumer {
  epoch = 0
  owned: Assignment = emptyAssignment()
  lastError = 0
  /** Set to keep owning revoked partitions (a consumer stuck in its revocation callback). */
  stuck = false

  constructor(
    readonly h: Harness,
    readonly memberId: string,
    readonly topics: { names?: string[]; regex?: string } = { names: ['T'] },
    readonly instanceId: string | null = null,
  ) {
    h.clients.push(this)
  }

  request(over: Partial<ConsumerGroupHeartbeatRequestData> = {}): ConsumerGroupHeartbeatRequestData {
    const joining = this.epoch === 0
    return {
      groupId: 'g',
      memberId: this.memberId,
      memberEpoch: this.epoch,
      instanceId: this.instanceId,
      rackId: null,
      rebalanceTimeoutMs: joining ? 60000 : -1,
      subscribedTopicNames: joining ? (this.topics.names ?? null) : null,
      subscribedTopicRegex: joining ? (this.topics.regex ?? null) : null,
      serverAssignor: null,
      topicPartitions: toWire(this.owned),
      ...over,
    }
  }

  heartbeat(over: Partial<ConsumerGroupHeartbeatRequestData> = {}): void {
    const res = this.h.groups.heartbeat(this.request(over), 1, { clientId: this.memberId, clientHost: '/127.0.0.1' })
    this.lastError = res.errorCode
    if (res.errorCode !== 0) {
      if (res.errorCode === FENCED_MEMBER_EPOCH || res.errorCode === UNKNOWN_MEMBER_ID) {
        this.epoch = 0
        this.owned = emptyAssignment()
      }
      return
    }
    this.epoch = res.memberEpoch
    if (res.assignment !== null && !this.stuck) this.owned = fromWire(res.assignment.topicPartitions)
    else if (res.assignment !== null) {
      // Stuck: takes what is new but gives nothing back.
      for (const [t, p] of partitionsOf(fromWire(res.assignment.topicPartitions))) {
        if (!this.owned.get(t)?.has(p)) this.owned.set(t, new Set([...(this.owned.get(t) ?? []), p]))
      }
    }
    assertSingleOwners(this.h)
  }

  leave(): void {
    this.heartbeat({ memberEpoch: this.instanceId === null ? -1 : -2 })
    this.owned = emptyAssignment()
    this.h.clients.splice(this.h.clients.indexOf(this), 1)
  }

  count(): number {
    return partitionCount(this.owned)
  }
}

/**
 * No partition owned by two live members. A client the coordinator has fenced (session or
 * revocation timeout) may still believe it owns partitions until its next heartbeat is refused, as
 * with Kafka; it is no member any more and its commits are refused, so it does not count.
 */
function assertSingleOwners(h: Harness): void {
  const seen = new Map<string, string>()
  const members = h.groups.groups.get('g')?.members
  for (const c of h.clients) {
    if (members?.has(c.memberId) !== true) continue
    for (const [t, p] of partitionsOf(c.owned)) {
      const key = `${t}-${p}`
      assert.equal(seen.get(key), undefined, `${key} owned by ${seen.get(key)} and ${c.memberId}`)
      seen.set(key, c.memberId)
    }
  }
}

/** Heartbeats every client in turn until nothing changes for a full round. */
function settle(h: Harness, rounds = 10): void {
  for (let i = 0; i < rounds; i++) for (const c of [...h.clients]) c.heartbeat()
}

describe('consumer groups: joining and epochs', () => {
  it('a first member joins at epoch 1 with every partition; the group is Stable', () => {
    const h = setup()
    const a = new TestConsumer(h, 'a')
    a.heartbeat()
    assert.equal(a.epoch, 1)
    assert.equal(a.count(), 6)
    assert.equal(h.groups.groups.get('g')!.state, 'Stable')
  })

  it('a second member gets its half only after the first revoked it, and the first advances only after revoking', () => {
    const h = setup()
    const a = new TestConsumer(h, 'a')
    a.heartbeat()
    const b = new TestConsumer(h, 'b')
    b.heartbeat()
    assert.equal(b.epoch, 2, 'the joiner is at the new group epoch')
    assert.equal(b.count(), 0, 'but gets nothing while a owns everything')
    assert.equal(h.groups.groups.get('g')!.state, 'Reconciling')
    a.stuck = true
    a.heartbeat()
    assert.equal(a.epoch, 1, 'a keeps its epoch while revoking')
    a.stuck = false
    a.heartbeat() // receives the reduced assignment again and revokes
    a.heartbeat() // reports owning only what it keeps
    assert.equal(a.epoch, 2)
    assert.equal(a.count(), 3)
    b.heartbeat()
    assert.equal(b.count(), 3)
    assert.equal(h.groups.groups.get('g')!.state, 'Stable')
  })

  it('three members join one after another; each ends with two partitions and the same epoch', () => {
    const h = setup()
    for (const id of ['a', 'b', 'c']) {
      new TestConsumer(h, id).heartbeat()
      settle(h)
    }
    assert.deepEqual(
      h.clients.map((c) => c.count()),
      [2, 2, 2],
    )
    assert.deepEqual(new Set(h.clients.map((c) => c.epoch)), new Set([3]))
  })

  it('member-id generation: v0 with an empty member id gets a broker-made one; v1 refuses it', () => {
    const h = setup()
    const req = new TestConsumer(h, '').request()
    const v0 = h.groups.heartbeat(req, 0, { clientId: 'c', clientHost: '/h' })
    assert.equal(v0.errorCode, 0)
    assert.match(v0.memberId!, /^[0-9a-f-]{36}$/)
    assert.equal(h.groups.heartbeat(req, 1, { clientId: 'c', clientHost: '/h' }).errorCode, INVALID_REQUEST)
  })
})

describe('consumer groups: refusals', () => {
  it('answers FENCED_MEMBER_EPOCH to a wrong epoch, UNKNOWN_MEMBER_ID to an unknown member', () => {
    const h = setup()
    const a = new TestConsumer(h, 'a')
    a.heartbeat()
    a.heartbeat({ memberEpoch: 5 })
    assert.equal(a.lastError, FENCED_MEMBER_EPOCH)
    const x = new TestConsumer(h, 'x')
    x.heartbeat({ memberEpoch: 3, topicPartitions: [] })
    assert.equal(x.lastError, UNKNOWN_MEMBER_ID)
  })

  it('accepts the previous epoch when the member reports owning no more than its assignment (a lost answer)', () => {
    const h = setup()
    const a = new TestConsumer(h, 'a')
    a.heartbeat()
    const b = new TestConsumer(h, 'b')
    b.heartbeat()
    settle(h)
    assert.equal(a.epoch, 2)
    a.heartbeat({ memberEpoch: 1 })
    assert.equal(a.lastError, 0)
    a.heartbeat({ memberEpoch: 1, topicPartitions: [{ topicId: 'id-T', partitions: [0, 1, 2, 3, 4, 5] }] })
    assert.equal(a.lastError, FENCED_MEMBER_EPOCH)
  })

  it('checks the first heartbeat: rebalance timeout, empty owned partitions, a subscription, a known assignor', () => {
    const h = setup()
    const a = new TestConsumer(h, 'a')
    a.heartbeat({ rebalanceTimeoutMs: -1 })
    assert.equal(a.lastError, INVALID_REQUEST)
    a.heartbeat({ subscribedTopicNames: null })
    assert.equal(a.lastError, INVALID_REQUEST)
    a.heartbeat({ topicPartitions: [{ topicId: 'id-T', partitions: [0] }] })
    assert.equal(a.lastError, INVALID_REQUEST)
    a.heartbeat({ serverAssignor: 'sticky' })
    assert.equal(a.lastError, UNSUPPORTED_ASSIGNOR)
    a.heartbeat({ serverAssignor: 'range' })
    assert.equal(a.lastError, 0)
  })
})

describe('consumer groups: leaving and timeouts', () => {
  it('a member leaving (epoch -1) hands its partitions to the others', () => {
    const h = setup()
    const a = new TestConsumer(h, 'a')
    const b = new TestConsumer(h, 'b')
    a.heartbeat()
    b.heartbeat()
    settle(h)
    b.leave()
    settle(h)
    assert.equal(a.count(), 6)
    assert.equal(h.groups.groups.get('g')!.members.size, 1)
  })

  it('a member that stops heartbeating is removed after the session timeout (45 s), not before', () => {
    const h = setup()
    const a = new TestConsumer(h, 'a')
    const b = new TestConsumer(h, 'b')
    a.heartbeat()
    b.heartbeat()
    settle(h)
    h.clients.splice(h.clients.indexOf(b), 1) // killed: owns nothing any more, sends nothing
    for (let t = 0; t < 40000; t += 5000) {
      h.clock.advance(5000)
      a.heartbeat()
    }
    assert.equal(h.groups.groups.get('g')!.members.size, 2, 'still a member at 40 s')
    assert.equal(a.count(), 3)
    h.clock.advance(5001)
    a.heartbeat()
    assert.equal(h.groups.groups.get('g')!.members.size, 1)
    a.heartbeat()
    assert.equal(a.count(), 6)
  })

  it('a group’s own consumer.session.timeout.ms and consumer.heartbeat.interval.ms (group configs) win over the broker’s', () => {
    const clock = new ManualClock()
    const table = new Map<string, TopicInfo>([['T', { id: 'id-T', partitions: 2 }]])
    const own: Record<string, { sessionTimeoutMs?: number; heartbeatIntervalMs?: number }> = {
      g: { sessionTimeoutMs: 10000, heartbeatIntervalMs: 2000 },
    }
    const groups = new ConsumerGroups(clock, () => table, {
      sessionTimeoutMs: 45000,
      heartbeatIntervalMs: 5000,
      assignors: ['uniform'],
      timeouts: (groupId) => own[groupId] ?? {},
    })
    const h = { clock, table, groups, clients: [] as TestConsumer[] }
    const a = new TestConsumer(h, 'a')
    const res = groups.heartbeat(a.request(), 1, { clientId: 'a', clientHost: '/127.0.0.1' })
    assert.equal(res.heartbeatIntervalMs, 2000)
    const other = groups.heartbeat({ ...a.request(), groupId: 'other' }, 1, { clientId: 'a', clientHost: '/127.0.0.1' })
    assert.equal(other.heartbeatIntervalMs, 5000, 'a group without its own config: the broker’s')
    clock.advance(9999)
    assert.equal(groups.groups.get('g')!.members.size, 1, 'still a member just before its group’s 10 s')
    clock.advance(2)
    assert.equal(groups.groups.get('g')!.members.size, 0, 'gone after 10 s, not the broker’s 45 s')
    assert.equal(groups.groups.get('other')!.members.size, 1)
  })

  it('a member that does not revoke within its rebalance timeout is fenced and its partitions freed', () => {
    const h = setup()
    const a = new TestConsumer(h, 'a')
    a.heartbeat()
    a.stuck = true
    const b = new TestConsumer(h, 'b')
    b.heartbeat()
    for (let t = 0; t < 55000; t += 5000) {
      h.clock.advance(5000)
      a.heartbeat()
      b.heartbeat()
    }
    assert.equal(b.count(), 0, 'nothing for b while a holds everything')
    h.clock.advance(10000) // a began revoking at 5 s
    a.heartbeat()
    assert.equal(a.lastError, UNKNOWN_MEMBER_ID, 'a was fenced at its 60 s rebalance timeout')
    b.heartbeat()
    assert.equal(b.count(), 6)
  })
})

describe('consumer groups: static members', () => {
  it('a static member leaving with -2 keeps its partitions for a rejoin under a new member id, without a rebalance', () => {
    const h = setup()
    const a = new TestConsumer(h, 'a', { names: ['T'] }, 'inst-a')
    const b = new TestConsumer(h, 'b')
    a.heartbeat()
    b.heartbeat()
    settle(h)
    const kept = toWire(a.owned)
    const epoch = h.groups.groups.get('g')!.groupEpoch
    a.leave()
    settle(h)
    assert.equal(b.count(), 3, 'b does not take the departed static member’s partitions')
    const a2 = new TestConsumer(h, 'a2', { names: ['T'] }, 'inst-a')
    a2.heartbeat()
    assert.deepEqual(toWire(a2.owned), kept)
    assert.equal(h.groups.groups.get('g')!.groupEpoch, epoch, 'no new group epoch')
  })

  it('refuses a second live member with the same instance id (UNRELEASED_INSTANCE_ID)', () => {
    const h = setup()
    new TestConsumer(h, 'a', { names: ['T'] }, 'inst').heartbeat()
    const dup = new TestConsumer(h, 'b', { names: ['T'] }, 'inst')
    dup.heartbeat()
    assert.equal(dup.lastError, UNRELEASED_INSTANCE_ID)
  })
})

describe('consumer groups: subscriptions', () => {
  it('a regex subscription (full match) takes matching topics, not others, nor internal ones', () => {
    const h = setup({ 'orders-eu': 2, 'orders-us': 2, other: 3, __consumer_offsets: 50 })
    const a = new TestConsumer(h, 'a', { regex: 'orders-.*' })
    a.heartbeat()
    assert.deepEqual(
      toWire(a.owned).map((tp) => tp.topicId),
      ['id-orders-eu', 'id-orders-us'],
    )
    const bad = new TestConsumer(h, 'b', { regex: '(' })
    bad.heartbeat()
    assert.equal(bad.lastError, 128)
  })

  it('an empty regex beside topic names (as librdkafka sends them) subscribes by the names only', () => {
    const h = setup({ T: 2, U: 2 })
    const a = new TestConsumer(h, 'a', { names: ['T'], regex: '' })
    a.heartbeat()
    assert.equal(a.lastError, 0)
    assert.deepEqual(
      toWire(a.owned).map((tp) => tp.topicId),
      ['id-T'],
    )
  })

  it('a new partition of a subscribed topic raises the group epoch and is assigned', () => {
    const h = setup({ T: 2 })
    const a = new TestConsumer(h, 'a')
    a.heartbeat()
    h.table.set('T', { id: 'id-T', partitions: 4 })
    a.heartbeat()
    assert.equal(a.epoch, 2)
    assert.equal(a.count(), 4)
  })
})

describe('consumer groups: describe and offset checks', () => {
  it('describes members with their epochs, subscriptions and assignments by topic name', () => {
    const h = setup()
    const a = new TestConsumer(h, 'a')
    a.heartbeat()
    const [g] = h.groups.describe(['g', 'nope'])
    assert.equal(g!.groupState, 'Stable')
    assert.equal(g!.assignorName, 'uniform')
    assert.equal(g!.members[0]!.memberEpoch, 1)
    assert.equal(g!.members[0]!.assignment.topicPartitions[0]!.topicName, 'T')
    assert.equal(h.groups.describe(['nope'])[0]!.errorCode, 69)
  })

  it('OffsetCommit from a member: STALE_MEMBER_EPOCH for another epoch, UNKNOWN_MEMBER_ID for a stranger', () => {
    const h = setup()
    const a = new TestConsumer(h, 'a')
    a.heartbeat()
    assert.equal(h.groups.validateOffsetCommit('g', 'a', 1), 'NONE')
    assert.equal(h.groups.validateOffsetCommit('g', 'a', 0), 'STALE_MEMBER_EPOCH')
    assert.equal(h.groups.validateOffsetCommit('g', 'zz', 1), 'UNKNOWN_MEMBER_ID')
    assert.equal(h.groups.validateOffsetFetch('g', 'a', 2), 'STALE_MEMBER_EPOCH')
    assert.equal(h.groups.validateOffsetFetch('g', null, -1), 'NONE')
  })
})

describe('consumer groups: random joins, leaves and kills', () => {
  it('never gives a partition two owners and ends with every partition owned', () => {
    let seed = 7
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    for (let run = 0; run < 20; run++) {
      const h = setup({ T: 6, U: 3 })
      let next = 0
      for (let step = 0; step < 200; step++) {
        const r = rnd()
        if (r < 0.1 && h.clients.length < 5) new TestConsumer(h, `m${next++}`, rnd() < 0.5 ? { names: ['T', 'U'] } : { regex: '[TU]' })
        else if (r < 0.14 && h.clients.length > 0) h.clients[Math.floor(rnd() * h.clients.length)]!.leave()
        else if (r < 0.17 && h.clients.length > 0)
          h.clients.splice(Math.floor(rnd() * h.clients.length), 1) // killed
        else if (h.clients.length > 0) h.clients[Math.floor(rnd() * h.clients.length)]!.heartbeat()
        if (rnd() < 0.2) h.clock.advance(5000)
      }
      if (h.clients.length === 0) new TestConsumer(h, 'last', { names: ['T', 'U'] })
      // The killed ones expire; the live ones settle.
      for (let i = 0; i < 12; i++) {
        h.clock.advance(5000)
        settle(h, 1)
      }
      settle(h)
      const total = h.clients.reduce((n, c) => n + c.count(), 0)
      assert.equal(total, 9, `run ${run}: every partition owned once the group settled`)
      assert.equal(h.groups.groups.get('g')!.state, 'Stable')
    }
  })
})
