// The share groups' simple assignor (src/coordinator/group/share/simple-assignor.ts): every
// subscribed partition to at least one member, an even spread, members sharing partitions when
// they outnumber them, and ties kept with the previous holder.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  type Assignment,
  emptyAssignment,
  fromWire,
  partitionCount,
  toWire,
} from '../../../../../src/coordinator/group/consumer/assignment.js'
import { assignShare } from '../../../../../src/coordinator/group/share/simple-assignor.js'

const T = 'AQIDBAUGBwgJCgsMDQ4PEA'
const U = 'EA8ODQwLCgkIBwYFBAMCAQ'
const member = (memberId: string, topics: string[] = [T], previous: Assignment = emptyAssignment()) => ({
  memberId,
  topics: new Set(topics),
  previous,
})

function coverage(out: Map<string, Assignment>): Map<string, number> {
  const holders = new Map<string, number>()
  for (const a of out.values())
    for (const tp of toWire(a))
      for (const p of tp.partitions) holders.set(`${tp.topicId}:${p}`, (holders.get(`${tp.topicId}:${p}`) ?? 0) + 1)
  return holders
}

describe('share simple assignor', () => {
  it('1 partition × 5 members: all five get it', () => {
    const out = assignShare(
      ['a', 'b', 'c', 'd', 'e'].map((m) => member(m)),
      new Map([[T, 1]]),
    )
    assert.equal(out.size, 5)
    for (const a of out.values()) assert.deepEqual(toWire(a), [{ topicId: T, partitions: [0] }])
  })

  it('10 partitions × 3 members: 4/3/3, each partition once', () => {
    const out = assignShare(
      ['a', 'b', 'c'].map((m) => member(m)),
      new Map([[T, 10]]),
    )
    assert.deepEqual([...out.values()].map(partitionCount).sort(), [3, 3, 4])
    const holders = coverage(out)
    assert.equal(holders.size, 10)
    assert.ok([...holders.values()].every((n) => n === 1))
  })

  it('2 partitions × 5 members: every member gets one, partitions shared 3/2', () => {
    const out = assignShare(
      ['a', 'b', 'c', 'd', 'e'].map((m) => member(m)),
      new Map([[T, 2]]),
    )
    for (const a of out.values()) assert.equal(partitionCount(a), 1)
    assert.deepEqual([...coverage(out).values()].sort(), [2, 3])
  })

  it('members only get partitions of topics they subscribe to; every subscribed partition is covered', () => {
    const out = assignShare(
      [member('a', [T]), member('b', [T, U]), member('c', [U])],
      new Map([
        [T, 3],
        [U, 1],
      ]),
    )
    for (const tp of toWire(out.get('a')!)) assert.equal(tp.topicId, T)
    for (const tp of toWire(out.get('c')!)) assert.equal(tp.topicId, U)
    assert.equal(coverage(out).size, 4)
  })

  it('a tie goes to the previous holder', () => {
    const previous = fromWire([{ topicId: T, partitions: [0] }])
    const out = assignShare([member('a'), member('b', [T], previous)], new Map([[T, 2]]))
    assert.deepEqual(toWire(out.get('b')!), [{ topicId: T, partitions: [0] }])
    assert.deepEqual(toWire(out.get('a')!), [{ topicId: T, partitions: [1] }])
  })

  it('a topic no member subscribes to, or members without topics, get nothing', () => {
    const out = assignShare([member('a', [])], new Map([[T, 2]]))
    assert.equal(partitionCount(out.get('a')!), 0)
  })
})
