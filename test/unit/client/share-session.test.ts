// The share session of src/client/share-session.ts: epoch 0 opens with every partition, each
// answer moves the epoch on (wrapping to 1, never 0), later requests list only what changed and
// forget what is no longer wanted, acknowledgements wait while the epoch is 0, session errors and
// lost requests start over, and closing sends -1.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { AcknowledgementBatch } from '../../../src/client/share-acks.js'
import { ShareSession, sharePartitionKey } from '../../../src/client/share-session.js'
import { ErrorCode } from '../../../src/protocol/errors.js'

const T1 = 'AAECAwQFBgcICQoLDA0ODw'
const T2 = 'AQIDBAUGBwgJCgsMDQ4PEA'
const p = (topicId: string, partition: number) => ({ topicId, partition })
const accept = (first: number, last: number): AcknowledgementBatch[] => [{ firstOffset: first, lastOffset: last, acknowledgeTypes: [1] }]
const listed = (t: ReturnType<ShareSession['fetchTopics']>) =>
  t.topics
    .flatMap((x) => x.partitions.map((q) => `${x.topicId}:${q.partitionIndex}${q.acknowledgementBatches.length ? '+acks' : ''}`))
    .sort()

describe('ShareSession', () => {
  it('opens with epoch 0 listing every partition, then moves the epoch on with each answer', () => {
    const s = new ShareSession(1)
    assert.equal(s.epoch, 0)
    assert.equal(s.open, false)
    const first = s.fetchTopics([p(T1, 0), p(T1, 1), p(T2, 0)], new Map())
    assert.deepEqual(listed(first), [`${T1}:0`, `${T1}:1`, `${T2}:0`])
    assert.deepEqual(first.forgottenTopicsData, [])
    assert.equal(s.answered(0), true)
    assert.equal(s.epoch, 1)
    assert.equal(s.open, true)
    // Nothing changed: nothing listed.
    assert.deepEqual(listed(s.fetchTopics([p(T1, 0), p(T1, 1), p(T2, 0)], new Map())), [])
    s.answered(0)
    assert.equal(s.epoch, 2)
  })

  it('lists added partitions and the ones with acknowledgements, and forgets the ones no longer wanted', () => {
    const s = new ShareSession(1)
    s.fetchTopics([p(T1, 0), p(T1, 1)], new Map())
    s.answered(0)
    const next = s.fetchTopics([p(T1, 0), p(T2, 3)], new Map([[sharePartitionKey(p(T1, 0)), accept(4, 9)]]))
    assert.deepEqual(listed(next), [`${T1}:0+acks`, `${T2}:3`])
    assert.deepEqual(next.forgottenTopicsData, [{ topicId: T1, partitions: [1] }])
    assert.deepEqual(next.topics.find((t) => t.topicId === T1)!.partitions[0]!.acknowledgementBatches, accept(4, 9))
    assert.deepEqual(s.partitions.map(sharePartitionKey).sort(), [sharePartitionKey(p(T1, 0)), sharePartitionKey(p(T2, 3))].sort())
  })

  it('never carries acknowledgements at epoch 0', () => {
    const s = new ShareSession(1)
    const first = s.fetchTopics([p(T1, 0)], new Map([[sharePartitionKey(p(T1, 0)), accept(0, 0)]]))
    assert.deepEqual(listed(first), [`${T1}:0`])
  })

  it('starts a new session after SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH or a lost request', () => {
    for (const code of [ErrorCode.SHARE_SESSION_NOT_FOUND.code, ErrorCode.INVALID_SHARE_SESSION_EPOCH.code]) {
      const s = new ShareSession(1)
      s.fetchTopics([p(T1, 0)], new Map())
      s.answered(0)
      assert.equal(s.answered(code), false)
      assert.equal(s.epoch, 0)
      assert.deepEqual(listed(s.fetchTopics([p(T1, 0)], new Map())), [`${T1}:0`], 'a new session lists everything again')
    }
    const s = new ShareSession(1)
    s.fetchTopics([p(T1, 0)], new Map())
    s.answered(0)
    s.reset()
    assert.equal(s.epoch, 0)
    assert.equal(s.open, false)
  })

  it('moves on after other errors (the broker saw the request)', () => {
    const s = new ShareSession(1)
    s.fetchTopics([p(T1, 0)], new Map())
    s.answered(0)
    assert.equal(s.answered(ErrorCode.UNKNOWN_SERVER_ERROR.code), true)
    assert.equal(s.epoch, 2)
  })

  it('wraps from the largest epoch to 1, never to 0', () => {
    const s = new ShareSession(1)
    s.fetchTopics([p(T1, 0)], new Map())
    s.answered(0)
    ;(s as unknown as { nextEpoch: number }).nextEpoch = 0x7fffffff
    s.answered(0)
    assert.equal(s.epoch, 1)
  })

  it('closes with epoch -1 and names acknowledged partitions in ShareAcknowledge', () => {
    const s = new ShareSession(1)
    s.fetchTopics([p(T1, 0), p(T1, 1)], new Map())
    s.answered(0)
    const topics = s.acknowledgeTopics(
      new Map([
        [sharePartitionKey(p(T1, 1)), accept(3, 3)],
        [sharePartitionKey(p(T1, 0)), []],
      ]),
    )
    assert.deepEqual(topics, [{ topicId: T1, partitions: [{ partitionIndex: 1, acknowledgementBatches: accept(3, 3) }] }])
    s.markClosing()
    assert.equal(s.epoch, -1)
    assert.equal(s.open, false)
  })
})
