// The consumer protocol's server assignors (src/coordinator/group/consumer/assignors.ts): balance,
// stickiness, heterogeneous subscriptions, and range's contiguous split.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  type Assignment,
  emptyAssignment,
  fromWire,
  partitionCount,
  toWire,
} from '../../../../src/coordinator/group/consumer/assignment.js'
import { type AssignorMember, rangeAssignor, uniformAssignor } from '../../../../src/coordinator/group/consumer/assignors.js'

const member = (memberId: string, topics: string[], previous: Assignment = emptyAssignment()): AssignorMember => ({
  memberId,
  topics: new Set(topics),
  previous,
})

function owners(result: Map<string, Assignment>): Map<string, string> {
  const out = new Map<string, string>()
  for (const [id, a] of result) {
    for (const tp of toWire(a)) {
      for (const p of tp.partitions) {
        const key = `${tp.topicId}-${p}`
        assert.equal(out.get(key), undefined, `${key} assigned twice`)
        out.set(key, id)
      }
    }
  }
  return out
}

describe('uniform assignor', () => {
  it('spreads 6 partitions over 3 members two each and assigns every partition once', () => {
    const r = uniformAssignor.assign([member('a', ['T']), member('b', ['T']), member('c', ['T'])], new Map([['T', 6]]))
    assert.equal(owners(r).size, 6)
    for (const a of r.values()) assert.equal(partitionCount(a), 2)
  })

  it('is sticky: a third member takes only what balance requires, the rest stays put', () => {
    const first = uniformAssignor.assign([member('a', ['T']), member('b', ['T'])], new Map([['T', 6]]))
    const before = owners(first)
    const second = uniformAssignor.assign(
      [member('a', ['T'], first.get('a')), member('b', ['T'], first.get('b')), member('c', ['T'])],
      new Map([['T', 6]]),
    )
    const after = owners(second)
    let moved = 0
    for (const [k, owner] of after) if (before.get(k) !== owner) moved++
    assert.equal(moved, 2, 'exactly the two partitions c takes move')
    for (const a of second.values()) assert.equal(partitionCount(a), 2)
  })

  it('gives a partition only to members subscribed to its topic (heterogeneous subscriptions)', () => {
    const r = uniformAssignor.assign(
      [member('a', ['T', 'U']), member('b', ['T']), member('c', ['U'])],
      new Map([
        ['T', 4],
        ['U', 2],
      ]),
    )
    assert.equal(owners(r).size, 6)
    for (const tp of toWire(r.get('b')!)) assert.equal(tp.topicId, 'T')
    for (const tp of toWire(r.get('c')!)) assert.equal(tp.topicId, 'U')
    assert.equal(partitionCount(r.get('a')!), 2)
  })

  it('leaves a member with nothing when partitions are fewer than members', () => {
    const r = uniformAssignor.assign([member('a', ['T']), member('b', ['T']), member('c', ['T'])], new Map([['T', 2]]))
    assert.deepEqual([...r.values()].map(partitionCount).sort(), [0, 1, 1])
  })
})

describe('range assignor', () => {
  it('splits each topic into contiguous ranges in member-id order, the first members one more', () => {
    const r = rangeAssignor.assign([member('b', ['T']), member('a', ['T'])], new Map([['T', 5]]))
    assert.deepEqual(toWire(r.get('a')!), [{ topicId: 'T', partitions: [0, 1, 2] }])
    assert.deepEqual(toWire(r.get('b')!), [{ topicId: 'T', partitions: [3, 4] }])
  })

  it('assigns co-partitioned topics alike (the point of range)', () => {
    const r = rangeAssignor.assign(
      [member('a', ['T', 'U']), member('b', ['T', 'U'])],
      new Map([
        ['T', 4],
        ['U', 4],
      ]),
    )
    assert.deepEqual(
      r.get('a'),
      fromWire([
        { topicId: 'T', partitions: [0, 1] },
        { topicId: 'U', partitions: [0, 1] },
      ]),
    )
  })
})
