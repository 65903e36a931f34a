// The fetch session cache (KIP-227; Kafka's FetchSessionCache): bounded by its slots, and when full
// a new session evicts a stale one first, else the least valuable evictable one — a follower's
// ranks above a consumer's, more partitions above fewer, a young session only by a follower's.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { SessionPartition } from '../../../src/ports/fetch-sessions.js'
import { INVALID_SESSION_ID, nextEpoch } from '../../../src/ports/fetch-sessions.js'
import { BrokerFetchSessionCache } from '../../../src/replication/fetch-session-cache.js'

const EVICTION_MS = 1000

/** `n` partitions of topic t. */
const partitions = (n: number) => () => {
  const map = new Map<string, SessionPartition>()
  for (let i = 0; i < n; i++) {
    const key = `t:${i}`
    map.set(key, {
      key,
      topicId: '',
      topic: 't',
      partition: i,
      params: {
        partition: i,
        currentLeaderEpoch: -1,
        fetchOffset: 0,
        lastFetchedEpoch: -1,
        logStartOffset: -1,
        partitionMaxBytes: 1,
        highWatermark: 0,
      },
      highWatermark: 0,
      lastStableOffset: 0,
      logStartOffset: 0,
    })
  }
  return map
}

const create = (c: BrokerFetchSessionCache, now: number, privileged: boolean, size: number) =>
  c.maybeCreate(now, privileged, size, false, partitions(size))

describe('BrokerFetchSessionCache', () => {
  it('makes sessions at epoch 1 with distinct positive ids, and counts their partitions', () => {
    // A random source that repeats itself: the second id must still differ.
    const values = [0.5, 0.5, 0.25]
    const c = new BrokerFetchSessionCache(10, EVICTION_MS, () => values.shift() ?? 0.75)
    const a = create(c, 0, false, 3)
    const b = create(c, 0, false, 2)
    assert.ok(a > 0 && b > 0 && a !== b)
    assert.equal(c.get(a)?.epoch, 1)
    assert.equal(c.size, 2)
    assert.equal(c.totalPartitions, 5)
    const s = c.get(a)!
    s.partitions.delete('t:0')
    c.touch(s, 1)
    assert.equal(c.totalPartitions, 4)
    assert.equal(c.remove(b)?.id, b)
    assert.equal(c.totalPartitions, 2)
    assert.equal(c.remove(b), undefined)
  })

  it('epochs wrap from 2^31-1 to 1; a negative epoch stays final', () => {
    assert.equal(nextEpoch(0), 1)
    assert.equal(nextEpoch(0x7fffffff), 1)
    assert.equal(nextEpoch(-1), -1)
  })

  it('0 slots: no session is ever made', () => {
    const c = new BrokerFetchSessionCache(0, EVICTION_MS)
    assert.equal(create(c, 0, true, 100), INVALID_SESSION_ID)
    assert.equal(c.size, 0)
  })

  it('full: a stale session (unused past the eviction time) goes first, the least recently used', () => {
    const c = new BrokerFetchSessionCache(2, EVICTION_MS)
    const a = create(c, 0, true, 100)
    const b = create(c, 10, true, 100)
    c.touch(c.get(a)!, 20) // a used after b: b is the least recently used
    // Not stale yet (1000 ms not passed): a small consumer session cannot evict followers' big ones.
    assert.equal(create(c, 500, false, 1), INVALID_SESSION_ID)
    const d = create(c, 1011, false, 1)
    assert.notEqual(d, INVALID_SESSION_ID)
    assert.equal(c.get(b), undefined, 'b, unused for over 1000 ms, was evicted')
    assert.ok(c.get(a))
    assert.equal(c.evictions, 1)
  })

  it('full: a consumer evicts an older consumer session only with more partitions', () => {
    const c = new BrokerFetchSessionCache(2, EVICTION_MS)
    const small = create(c, 0, false, 2)
    const big = create(c, 0, false, 5)
    // Used recently, but older than the eviction time as of that use: evictable by all.
    c.touch(c.get(small)!, 1500)
    c.touch(c.get(big)!, 1500)
    assert.equal(create(c, 1600, false, 2), INVALID_SESSION_ID, 'as many partitions as the smallest: no')
    const three = create(c, 1600, false, 3)
    assert.notEqual(three, INVALID_SESSION_ID)
    assert.equal(c.get(small), undefined, 'the smallest went')
    assert.ok(c.get(big))
  })

  it('full: a young consumer session is evicted by a follower, never by a consumer', () => {
    const c = new BrokerFetchSessionCache(1, EVICTION_MS)
    const young = create(c, 0, false, 50)
    assert.equal(create(c, 10, false, 500), INVALID_SESSION_ID, 'young: not evictable by a consumer')
    const follower = create(c, 10, true, 1)
    assert.notEqual(follower, INVALID_SESSION_ID)
    assert.equal(c.get(young), undefined)
    // A young follower session is evicted by no one.
    assert.equal(create(c, 20, true, 500), INVALID_SESSION_ID)
    assert.equal(create(c, 20, false, 500), INVALID_SESSION_ID)
    assert.equal(c.evictions, 1)
  })
})
