import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  applyProposal,
  assignReplicas,
  brokerLoads,
  compareTopicPartitionKeys,
  describeImbalance,
  type PlacementBroker,
  proposeRebalance,
  rackAlternatedBrokerList,
} from '../../../src/cluster/placement.js'
import { KafkaError } from '../../../src/protocol/errors.js'

const rackless = (ids: readonly number[]): PlacementBroker[] => ids.map((id) => ({ id, rack: null }))
const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i)
/** A random source that returns the given values in turn (Kafka draws the start index, then the shift). */
const draws = (...values: number[]) => {
  let i = 0
  return () => values[i++ % values.length]!
}
/** The random value whose nextInt(n) is k. */
const pick = (k: number, n: number) => (k + 0.5) / n

function spread(values: number[]): number {
  return Math.max(...values) - Math.min(...values)
}

function counts(lists: Iterable<readonly number[]>, brokers: readonly number[]) {
  const replicas = new Map(brokers.map((b) => [b, 0]))
  const leaders = new Map(brokers.map((b) => [b, 0]))
  for (const list of lists) {
    list.forEach((b, slot) => {
      assert.ok(replicas.has(b), `broker ${b} is not one of ${brokers}`)
      replicas.set(b, replicas.get(b)! + 1)
      if (slot === 0) leaders.set(b, leaders.get(b)! + 1)
    })
  }
  return { replicas: [...replicas.values()], leaders: [...leaders.values()] }
}

function assertDistinct(list: readonly number[], what: string): void {
  assert.equal(new Set(list).size, list.length, `${what}: ${list} has a broker twice`)
}

function expectKafkaError(fn: () => unknown, name: string, message?: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof KafkaError, String(err))
    assert.equal(err.errorName, name)
    if (message !== undefined) assert.equal(err.message, message)
    return true
  })
}

function asMap(lists: readonly number[][], topic = 't'): Map<string, number[]> {
  return new Map(lists.map((l, p) => [`${topic}:${p}`, l]))
}

describe('assignReplicas: rack-unaware (Kafka AdminUtils.assignReplicasToBrokers)', () => {
  it('3 brokers, 6 partitions, RF 2, start index 0, shift 0: the layout worked out by hand', () => {
    // n = 3. Partitions 0-2: shift 0, follower at first + 1 + (0 % 2) = first + 1.
    // Partition 3 starts a new round: shift 1, follower at first + 1 + (1 % 2) = first + 2.
    const expected = [
      [0, 1],
      [1, 2],
      [2, 0],
      [0, 2],
      [1, 0],
      [2, 1],
    ]
    assert.deepEqual(assignReplicas(rackless([0, 1, 2]), 6, 2, { random: () => 0 }), expected)
    // Brokers are sorted by id first; the ids need not be 0..n-1.
    const ids = [10, 20, 30]
    assert.deepEqual(
      assignReplicas(rackless([30, 10, 20]), 6, 2, { random: () => 0 }),
      expected.map((l) => l.map((i) => ids[i]!)),
    )
  })

  it("5 brokers, 10 partitions, RF 3, start 0: the layout in Kafka's own test", () => {
    assert.deepEqual(assignReplicas(rackless(range(5)), 10, 3, { random: () => 0 }), [
      [0, 1, 2],
      [1, 2, 3],
      [2, 3, 4],
      [3, 4, 0],
      [4, 0, 1],
      [0, 2, 3],
      [1, 3, 4],
      [2, 4, 0],
      [3, 0, 1],
      [4, 1, 2],
    ])
  })

  it('draws the start index, then the replica shift, from the random source', () => {
    // 4 brokers: start index 2, shift 1. p0: first 2, followers 2 + 1 + (1 % 3) = 0, 2 + 1 + (2 % 3) = 1.
    const a = assignReplicas(rackless(range(4)), 5, 3, { random: draws(pick(2, 4), pick(1, 4)) })
    assert.deepEqual(a, [
      [2, 0, 1],
      [3, 1, 2],
      [0, 2, 3],
      [1, 3, 0],
      // p4 starts a new round: shift 2, first 2, followers 2 + 1 + (2 % 3) = 1, 2 + 1 + (3 % 3) = 3.
      [2, 1, 3],
    ])
    // The default source is Math.random: any result is a valid layout.
    for (const list of assignReplicas(rackless(range(4)), 20, 3)) {
      assert.equal(list.length, 3)
      assertDistinct(list, 'Math.random layout')
    }
  })

  it('spreads replicas and leaders evenly for 3-6 brokers, RF 1-3, 1-100 partitions', () => {
    for (const n of [3, 4, 5, 6]) {
      const brokers = range(n)
      for (let rf = 1; rf <= 3; rf++) {
        for (let partitions = 1; partitions <= 100; partitions++) {
          for (const [s, sh] of [
            [0, 0],
            [1, n - 1],
            [n - 1, 2 % n],
          ]) {
            const what = `n=${n} rf=${rf} p=${partitions} start=${s} shift=${sh}`
            const lists = assignReplicas(rackless(brokers), partitions, rf, { random: draws(pick(s!, n), pick(sh!, n)) })
            assert.equal(lists.length, partitions, what)
            for (const l of lists) {
              assert.equal(l.length, rf, what)
              assertDistinct(l, what)
            }
            const c = counts(lists, brokers)
            assert.ok(spread(c.leaders) <= 1, `${what}: leaders ${c.leaders}`)
            if (partitions % n === 0) {
              // Every full round of n partitions gives each broker exactly rf replicas.
              assert.deepEqual(c.replicas, new Array(n).fill((partitions / n) * rf), what)
            } else {
              // A partial round is a few consecutive stripes; Kafka's placement leaves it uneven
              // (4 brokers, 2 partitions, RF 2: [0,1],[1,2]), which proposeRebalance evens out.
              assert.ok(spread(c.replicas) <= rf, `${what}: replicas ${c.replicas}`)
              const after = applyProposal(asMap(lists), proposeRebalance(asMap(lists), brokers))
              const b = counts(after.values(), brokers)
              assert.ok(spread(b.replicas) <= 1 && spread(b.leaders) <= 1, `${what}: after rebalance ${b.replicas}`)
            }
          }
        }
      }
    }
  })

  it('continues the pattern for new partitions (CreatePartitions)', () => {
    const brokers = rackless([0, 1, 2])
    const first = assignReplicas(brokers, 6, 2, { random: () => 0 })
    // Kafka's addPartitions: start index and shift fixed at partition 0's leader (broker 0 →
    // index 0), partition ids from 6. p6 starts a round: shift 0 + 1, so followers at first + 2.
    assert.deepEqual(assignReplicas(brokers, 3, 2, { existing: first }), [
      [0, 2],
      [1, 0],
      [2, 1],
    ])
    // Partition 0 led by broker 2: index 2 for both start and shift. p3: shift 3, first (3+2)%3 = 2,
    // follower 2 + 1 + (3 % 2) = 4 → 1.
    assert.deepEqual(
      assignReplicas(brokers, 2, 2, {
        existing: [
          [2, 0],
          [0, 1],
          [1, 2],
        ],
      }),
      [
        [2, 1],
        [0, 2],
      ],
    )
    // A leader id above every broker falls back to index 0; startPartition overrides the count.
    assert.deepEqual(assignReplicas(brokers, 1, 2, { existing: [[7, 0]], startPartition: 1 }), [[1, 2]])
    // startPartition alone keeps the random draws; the shift grows only when a round starts within
    // the call (p6 here), not for rounds before startPartition.
    assert.deepEqual(assignReplicas(brokers, 3, 2, { startPartition: 4, random: () => 0 }), [
      [1, 2],
      [2, 0],
      [0, 2],
    ])
  })
})

describe('assignReplicas: rack-aware', () => {
  const kafkaRacks = new Map([
    [0, 'rack1'],
    [1, 'rack3'],
    [2, 'rack3'],
    [3, 'rack2'],
    [4, 'rack2'],
    [5, 'rack1'],
  ])
  const withRacks = (m: Map<number, string>): PlacementBroker[] => [...m].map(([id, rack]) => ({ id, rack }))

  it("alternates brokers by rack, as Kafka's getRackAlternatedBrokerList does", () => {
    assert.deepEqual(rackAlternatedBrokerList(withRacks(kafkaRacks)), [0, 3, 1, 5, 4, 2])
    const without5 = new Map(kafkaRacks)
    without5.delete(5)
    assert.deepEqual(rackAlternatedBrokerList(withRacks(without5)), [0, 3, 1, 4, 2])
  })

  it("6 brokers on 3 racks, 7 partitions, RF 3, start 0: the layout in Kafka's own test", () => {
    assert.deepEqual(assignReplicas(withRacks(kafkaRacks), 7, 3, { random: () => 0 }), [
      [0, 3, 1],
      [3, 1, 5],
      [1, 5, 4],
      [5, 4, 2],
      [4, 2, 0],
      [2, 0, 3],
      [0, 4, 2],
    ])
  })

  it('puts each partition on distinct racks when there are at least RF racks', () => {
    const layouts = [
      ['a', 'b', 'c'],
      ['a', 'a', 'b', 'c'],
      ['a', 'b', 'b', 'c', 'c', 'c'],
      ['r1', 'r2', 'r1', 'r2'],
      ['x', 'y', 'z', 'x', 'y'],
      ['a', 'b', 'c', 'd', 'a', 'b'],
    ]
    let checked = 0
    for (const racks of layouts) {
      const brokers = racks.map((rack, id) => ({ id, rack }))
      const numRacks = new Set(racks).size
      for (let rf = 1; rf <= 3; rf++) {
        for (let partitions = 1; partitions <= 60; partitions++) {
          for (const r of [0, 0.4, 0.9]) {
            const what = `racks=${racks} rf=${rf} p=${partitions} r=${r}`
            const lists = assignReplicas(brokers, partitions, rf, { random: () => r })
            for (const l of lists) {
              assertDistinct(l, what)
              const used = new Set(l.map((b) => racks[b]))
              // Distinct racks while they last; every rack once RF reaches the number of racks.
              assert.equal(used.size, Math.min(rf, numRacks), `${what}: ${l}`)
              checked++
            }
            assert.ok(spread(counts(lists, range(racks.length)).leaders) <= 1, what)
          }
        }
      }
    }
    assert.ok(checked > 10_000)
  })
})

describe('assignReplicas: errors', () => {
  it("refuses bad counts with Kafka's error codes and messages", () => {
    const b = rackless([0, 1, 2])
    expectKafkaError(() => assignReplicas(b, 0, 1), 'INVALID_PARTITIONS')
    expectKafkaError(() => assignReplicas(b, -3, 1), 'INVALID_PARTITIONS')
    expectKafkaError(() => assignReplicas(b, 3, 0), 'INVALID_REPLICATION_FACTOR')
    expectKafkaError(() => assignReplicas(b, 3, -1), 'INVALID_REPLICATION_FACTOR')
    expectKafkaError(() => assignReplicas(b, 3, 4), 'INVALID_REPLICATION_FACTOR', 'Replication factor: 4 larger than available brokers: 3.')
    expectKafkaError(
      () => assignReplicas([], 1, 1),
      'INVALID_REPLICATION_FACTOR',
      'Replication factor: 1 larger than available brokers: 0.',
    )
  })

  it('refuses rack information on only some brokers, and a broker listed twice', () => {
    expectKafkaError(
      () =>
        assignReplicas(
          [
            { id: 0, rack: 'a' },
            { id: 1, rack: null },
            { id: 2, rack: 'b' },
          ],
          3,
          2,
        ),
      'INVALID_REPLICA_ASSIGNMENT',
      'Not all brokers have rack information for replica rack aware assignment.',
    )
    expectKafkaError(() => assignReplicas(rackless([0, 1, 1]), 3, 2), 'INVALID_REPLICA_ASSIGNMENT')
  })
})

describe('proposeRebalance', () => {
  /** Checks a proposal's shape and returns the assignment after it. */
  function checkProposal(current: Map<string, number[]>, proposal: Map<string, number[]>, live: number[], what: string) {
    for (const [k, list] of proposal) {
      const before = current.get(k)
      assert.ok(before, `${what}: ${k} is not a partition`)
      assert.notDeepEqual(list, before, `${what}: ${k} is in the proposal unchanged`)
      assert.equal(list.length, before.length, `${what}: ${k} changed its length`)
      assertDistinct(list, `${what} ${k}`)
      for (const b of list) assert.ok(live.includes(b), `${what}: ${k} on broker ${b}, not live`)
    }
    const after = applyProposal(current, proposal)
    for (const [k, list] of after) {
      for (const b of list) assert.ok(live.includes(b), `${what}: ${k} left on broker ${b}`)
    }
    const c = counts(after.values(), live)
    assert.ok(spread(c.replicas) <= 1, `${what}: replicas ${c.replicas}`)
    assert.ok(spread(c.leaders) <= 1, `${what}: leaders ${c.leaders}`)
    assert.equal(proposeRebalance(after, live).size, 0, `${what}: a second call proposes more`)
    return after
  }

  it('3 → 4 brokers, 12 partitions, RF 3: moves a quarter of the replicas and balances', () => {
    const current = asMap(assignReplicas(rackless([0, 1, 2]), 12, 3, { random: () => 0 }))
    const live = [0, 1, 2, 3]
    const proposal = proposeRebalance(current, live)
    const after = checkProposal(current, proposal, live, '3→4')
    const summary = describeImbalance(current, proposal, live)
    // 36 replicas: broker 3 needs 9, and nothing else has to move.
    assert.equal(summary.movedReplicas, 9)
    assert.deepEqual(summary.before, [
      { broker: 0, replicas: 12, leaders: 4 },
      { broker: 1, replicas: 12, leaders: 4 },
      { broker: 2, replicas: 12, leaders: 4 },
      { broker: 3, replicas: 0, leaders: 0 },
    ])
    assert.deepEqual(
      summary.after,
      live.map((broker) => ({ broker, replicas: 9, leaders: 3 })),
    )
    assert.deepEqual(brokerLoads(after, live), summary.after)
    // Unchanged partitions are not in the proposal; every changed one now holds broker 3.
    assert.equal(summary.changedPartitions, proposal.size)
    assert.ok(proposal.size < 12)
    for (const list of proposal.values()) assert.ok(list.includes(3))
    for (const [k, list] of after) if (!proposal.has(k)) assert.deepEqual(list, current.get(k))
  })

  it('moves only what balance needs, and leaves the other replicas in their places', () => {
    // Brokers 1 and 2 hold 4 replicas, broker 3 one (3 each is even); leaders are already even.
    const current = new Map([
      ['t:0', [1, 0, 2]],
      ['t:1', [2, 0, 1]],
      ['t:2', [0, 1, 2]],
      ['t:3', [3, 1, 2]],
    ])
    const proposal = proposeRebalance(current, [0, 1, 2, 3])
    checkProposal(current, proposal, [0, 1, 2, 3], 'in place')
    const summary = describeImbalance(current, proposal, [0, 1, 2, 3])
    assert.equal(summary.movedReplicas, 2)
    assert.equal(summary.leaderChanges, 0)
    for (const [k, list] of proposal) {
      const before = current.get(k)!
      list.forEach((b, slot) => {
        assert.ok(b === before[slot] || !before.includes(b), `${k}: ${before} → ${list}`)
      })
    }
  })

  it('moves every replica off a decommissioned broker, and only those when the rest is even', () => {
    const current = asMap(assignReplicas(rackless([0, 1, 2, 3]), 12, 3, { random: () => 0 }))
    const live = [0, 1, 2]
    const proposal = proposeRebalance(current, live)
    checkProposal(current, proposal, live, 'decommission 3')
    const on3 = [...current].filter(([, l]) => l.includes(3)).map(([k]) => k)
    assert.equal(on3.length, 9)
    for (const k of on3) assert.ok(proposal.has(k), `${k} still on broker 3`)
    const summary = describeImbalance(current, proposal, live)
    assert.equal(summary.movedReplicas, 9)
    assert.deepEqual(summary.after.at(-1), { broker: 3, replicas: 0, leaders: 0 })
  })

  it('stays valid and balanced on many shapes: brokers added, removed, random layouts', () => {
    let seed = 42
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed / 2147483648
    }
    let cases = 0
    for (const n of [3, 4, 5, 6]) {
      const ids = range(n)
      for (let rf = 1; rf <= 3; rf++) {
        for (let partitions = 1; partitions <= 100; partitions += 3) {
          const kafka = asMap(assignReplicas(rackless(ids), partitions, rf, { random }))
          const shuffled = new Map<string, number[]>()
          for (let p = 0; p < partitions; p++) {
            shuffled.set(`t${p % 3}:${p}`, [...ids].sort(() => random() - 0.5).slice(0, rf))
          }
          const shapes: Array<[string, Map<string, number[]>, number[]]> = [
            ['add', kafka, [...ids, n]],
            ['add two', kafka, [...ids, n, n + 1]],
            ['same', kafka, ids],
            ['random', shuffled, ids],
            ['random, add', shuffled, [...ids, n + 5]],
          ]
          if (n - 1 >= rf) shapes.push(['remove', kafka, ids.slice(1)], ['replace', shuffled, [...ids.slice(1), 9]])
          for (const [shape, current, live] of shapes) {
            const what = `${shape} n=${n} rf=${rf} p=${partitions}`
            checkProposal(current, proposeRebalance(current, live), live, what)
            cases++
          }
        }
      }
    }
    assert.ok(cases > 600)
  })

  it('is deterministic: Map order and broker order do not matter', () => {
    const lists = assignReplicas(rackless([0, 1, 2]), 30, 2, { random: () => 0.5 })
    const forward = new Map(lists.map((l, p) => [`t:${p}`, l]))
    const backward = new Map([...forward].reverse())
    const a = proposeRebalance(forward, [0, 1, 2, 3, 4])
    const b = proposeRebalance(backward, [4, 3, 2, 1, 0])
    assert.deepEqual(
      [...a].sort(([x], [y]) => compareTopicPartitionKeys(x, y)),
      [...b].sort(([x], [y]) => compareTopicPartitionKeys(x, y)),
    )
    assert.ok(a.size > 0)
  })

  it('balances across topics and orders keys by topic, then partition number', () => {
    assert.ok(compareTopicPartitionKeys('a:2', 'a:10') < 0)
    assert.ok(compareTopicPartitionKeys('a:10', 'b:0') < 0)
    const current = new Map([
      ...asMap(assignReplicas(rackless([0, 1]), 4, 2, { random: () => 0 }), 'x'),
      ...asMap(assignReplicas(rackless([0, 1]), 4, 2, { random: () => 0 }), 'y'),
    ])
    checkProposal(current, proposeRebalance(current, [0, 1, 2, 3]), [0, 1, 2, 3], 'two topics')
  })

  it('replaces a broker listed twice in one partition', () => {
    const current = new Map([
      ['t:0', [0, 0]],
      ['t:1', [1, 2]],
    ])
    const proposal = proposeRebalance(current, [0, 1, 2])
    checkProposal(current, proposal, [0, 1, 2], 'duplicate')
    assert.ok(proposal.has('t:0'))
  })

  it('proposes nothing for nothing, and refuses too few brokers', () => {
    assert.equal(proposeRebalance(new Map(), [0, 1]).size, 0)
    assert.equal(proposeRebalance(new Map([['t:0', [0, 1]]]), [0, 1]).size, 0)
    const current = asMap(assignReplicas(rackless([0, 1, 2]), 3, 3, { random: () => 0 }))
    expectKafkaError(() => proposeRebalance(current, [0, 1]), 'INVALID_REPLICATION_FACTOR')
    expectKafkaError(() => proposeRebalance(current, []), 'INVALID_REPLICATION_FACTOR')
  })
})
