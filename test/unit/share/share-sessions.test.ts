// The share session cache: epochs (0 opens, n continues, −1 closes, wrap past 2^31−1), its
// errors, the bound on sessions and on a session's partitions, forgotten topics, and the
// sessions of a closed connection.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { KafkaError } from '../../../src/protocol/errors.js'
import { nextEpoch, ShareSessionCache } from '../../../src/share/share-sessions.js'

const T1 = 'AAAAAAAAAAAAAAAAAAAAAA'
const T2 = 'BBBBBBBBBBBBBBBBBBBBBB'

function errorName(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    assert.ok(err instanceof KafkaError)
    return err.errorName
  }
  assert.fail('no error')
}

describe('ShareSessionCache', () => {
  it('opens at epoch 0, then expects 1, 2, … and closes at −1', () => {
    const c = new ShareSessionCache()
    const { session } = c.open('g', 'm', 1, [{ topicId: T1, partition: 0 }])
    assert.equal(session.epoch, 1)
    assert.equal(c.continue('g', 'm', 1), session)
    assert.equal(session.epoch, 2)
    assert.equal(
      errorName(() => c.continue('g', 'm', 1)),
      'INVALID_SHARE_SESSION_EPOCH',
    )
    assert.equal(
      errorName(() => c.continue('g', 'other', 1)),
      'SHARE_SESSION_NOT_FOUND',
    )
    assert.equal(c.close('g', 'm'), session)
    assert.equal(
      errorName(() => c.close('g', 'm')),
      'SHARE_SESSION_NOT_FOUND',
    )
    assert.equal(c.size, 0)
  })

  it('the epoch wraps to 1 after 2^31−1', () => {
    assert.equal(nextEpoch(0x7fffffff), 1)
    assert.equal(nextEpoch(5), 6)
  })

  it('a second epoch 0 of the member replaces its session', () => {
    const c = new ShareSessionCache()
    const first = c.open('g', 'm', 1, [{ topicId: T1, partition: 0 }]).session
    const second = c.open('g', 'm', 2, [{ topicId: T2, partition: 3 }])
    assert.equal(second.replaced, first)
    assert.equal(c.size, 1)
    assert.deepEqual([...second.session.partitions.values()], [{ topicId: T2, partition: 3 }])
  })

  it('refuses a session past the limit, but not the replacement of an existing one', () => {
    const c = new ShareSessionCache(2)
    c.open('g', 'a', 1, [])
    c.open('g', 'b', 1, [])
    assert.equal(
      errorName(() => c.open('g', 'c', 1, [])),
      'SHARE_SESSION_LIMIT_REACHED',
    )
    c.open('g', 'a', 1, [])
    c.close('g', 'b')
    c.open('g', 'c', 1, [])
    assert.equal(c.size, 2)
  })

  it('adds partitions, forgets topics, and bounds a session’s partitions', () => {
    const c = new ShareSessionCache(10, 3)
    const { session } = c.open('g', 'm', 1, [{ topicId: T1, partition: 0 }])
    c.add(session, [
      { topicId: T1, partition: 0 },
      { topicId: T2, partition: 0 },
      { topicId: T2, partition: 1 },
    ])
    assert.equal(session.partitions.size, 3)
    assert.equal(
      errorName(() => c.add(session, [{ topicId: T1, partition: 9 }])),
      'INVALID_REQUEST',
    )
    assert.equal(session.partitions.size, 3)
    c.forget(session, [{ topicId: T2, partitions: [1, 7] }])
    assert.deepEqual([...session.partitions.keys()], [`${T1}:0`, `${T2}:0`])
  })

  it('bounds the partitions of all sessions together, and counts them back as sessions go', () => {
    const c = new ShareSessionCache(10, 10, 4)
    const parts = (n: number, topicId = T1) => Array.from({ length: n }, (_, partition) => ({ topicId, partition }))
    const a = c.open('g', 'a', 1, parts(3)).session
    assert.equal(
      errorName(() => c.open('g', 'b', 1, parts(2, T2))),
      'SHARE_SESSION_LIMIT_REACHED',
    )
    c.add(a, parts(3)) // the same partitions again: nothing new
    c.forget(a, [{ topicId: T1, partitions: [0, 1] }])
    c.open('g', 'b', 1, parts(3, T2))
    assert.equal(c.partitionCount, 4)
    c.close('g', 'b')
    c.open('g', 'a', 2, parts(4, T2)) // replaces a: its partition is no longer counted
    assert.equal(c.partitionCount, 4)
    c.removeConnection(2)
    assert.equal(c.partitionCount, 0)
  })

  it('removes the sessions of a closed connection only', () => {
    const c = new ShareSessionCache()
    c.open('g', 'a', 1, [])
    c.open('g', 'b', 2, [])
    const s = c.open('h', 'a', 1, []).session
    assert.deepEqual(
      c.removeConnection(1).map((x) => `${x.groupId}/${x.memberId}`),
      ['g/a', 'h/a'],
    )
    assert.equal(c.size, 1)
    assert.equal(c.remove(s), false)
  })
})
