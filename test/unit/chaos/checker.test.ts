// The chaos checker (test/chaos/checker.ts) on hand-written histories: a clean one reports
// nothing, and each history that holds one anomaly reports that class (and only that one), with
// the operations that show it — so a chaos run that meets the anomaly can fail. Share groups: a
// history of redeliveries Kafka allows (at-least-once) reports nothing; each share class is met
// by one history of its own.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type AnomalyClass, anomalyTotal, check } from '../../chaos/checker.js'
import type { History, Op, PollRecord, ShareAckKind, ShareAckOutcome } from '../../chaos/history.js'

let clock = 0
const send = (process: string, partition: number, value: string, offset: number | null, txn?: string): Op => ({
  type: 'send',
  process,
  time: ++clock,
  partition,
  value,
  outcome: offset === null ? 'info' : 'ok',
  ...(offset === null ? {} : { offset }),
  ...(txn ? { txn } : {}),
})
const poll = (
  process: string,
  partition: number,
  records: Array<[number, string]>,
  isolation: 'read_uncommitted' | 'read_committed' = 'read_uncommitted',
): Op => ({
  type: 'poll',
  process,
  time: ++clock,
  partition,
  records: records.map(([offset, value]): PollRecord => ({ offset, value })),
  isolation,
})
const txn = (process: string, id: string, outcome: 'committed' | 'aborted' | 'info'): Op => ({
  type: 'txn',
  process,
  time: ++clock,
  txn: id,
  outcome,
})

const shareGroup = (deliveryCountLimit = 3): Op => ({
  type: 'share-group',
  process: 'share',
  time: ++clock,
  group: 'g',
  topic: 't',
  deliveryCountLimit,
})
const deliver = (process: string, partition: number, offset: number, value: string, deliveryCount = 1): Op => ({
  type: 'share-delivery',
  process,
  member: `${process}-m`,
  time: ++clock,
  partition,
  offset,
  value,
  deliveryCount,
})
const ack = (
  process: string,
  partition: number,
  offset: number,
  kind: ShareAckKind,
  outcome: ShareAckOutcome = 'ok',
  deliveryCount = 1,
): Op => ({
  type: 'share-ack',
  process,
  member: `${process}-m`,
  time: ++clock,
  partition,
  offset,
  deliveryCount,
  kind,
  outcome,
})

/** Three acknowledged writes on partition 0 and a consumer that read them all. */
function clean(): History {
  return [
    send('p1', 0, 'a', 0),
    send('p1', 0, 'b', 1),
    send('p1', 0, 'c', 2),
    poll('c1', 0, [
      [0, 'a'],
      [1, 'b'],
    ]),
    poll('c1', 0, [[2, 'c']]),
  ]
}

function only(history: History, cls: AnomalyClass): void {
  const r = check(history)
  assert.equal(r.counts[cls], 1, `${cls}: ${JSON.stringify(r.counts)}`)
  assert.equal(anomalyTotal(r), 1, `only ${cls}: ${JSON.stringify(r.anomalies.map((a) => a.description))}`)
  const a = r.anomalies[0]!
  assert.equal(a.class, cls)
  assert.ok(a.ops.length >= 1, 'the anomaly names its operations')
}

describe('chaos checker', () => {
  it('finds nothing in a clean history, and counts its operations', () => {
    const r = check(clean())
    assert.equal(anomalyTotal(r), 0, JSON.stringify(r.anomalies))
    assert.deepEqual(r.stats, {
      sendsOk: 3,
      sendsFailed: 0,
      sendsUnknown: 0,
      polls: 2,
      recordsRead: 3,
      txns: 0,
      shareDeliveries: 0,
      shareRedeliveries: 0,
    })
  })

  it('lost write: acknowledged, never read, although a consumer read past it', () => {
    only(
      [send('p1', 0, 'a', 0), send('p1', 0, 'b', 1), send('p1', 0, 'c', 2), poll('c1', 0, [[0, 'a']]), poll('c2', 0, [[2, 'c']])],
      'lost-write',
    )
  })

  it('unseen: acknowledged, never read, and nobody read that far', () => {
    only([send('p1', 0, 'a', 0), send('p1', 0, 'b', 1), poll('c1', 0, [[0, 'a']])], 'unseen')
  })

  it('an unknown send that was never read is neither lost nor unseen', () => {
    const h = clean()
    h.push(send('p1', 0, 'x', null))
    assert.equal(anomalyTotal(check(h)), 0)
  })

  it('duplicate: one value at two offsets', () => {
    only(
      [
        send('p1', 0, 'a', 0),
        send('p1', 0, 'b', 2),
        poll('c1', 0, [
          [0, 'a'],
          [1, 'a'],
          [2, 'b'],
        ]),
      ],
      'duplicate',
    )
  })

  it('inconsistent offsets: one offset, two values (a replica against a read)', () => {
    const h = clean()
    h.push({
      type: 'replica',
      process: 'replica-2',
      time: ++clock,
      partition: 0,
      records: [
        { offset: 0, value: 'a' },
        { offset: 1, value: 'z' },
      ],
    })
    // z at offset 1 only on the replica: one offset with two values (b, z).
    only(h, 'inconsistent-offsets')
  })

  it('nonmonotonic send: a later acknowledgement at a lower offset', () => {
    only([send('p1', 0, 'a', 1), send('p1', 0, 'b', 0), poll('c1', 0, [[0, 'b']]), poll('c2', 0, [[1, 'a']])], 'nonmonotonic-send')
  })

  it('nonmonotonic poll: a consumer going back without a new assignment', () => {
    only([...clean(), poll('c1', 0, [[1, 'b']])], 'nonmonotonic-poll')
  })

  it('a new assignment lets a consumer start over', () => {
    const h: History = [...clean(), { type: 'assign', process: 'c1', time: ++clock, partitions: [0] }, poll('c1', 0, [[1, 'b']])]
    assert.equal(anomalyTotal(check(h)), 0)
  })

  it('poll skip: a consumer jumping over an offset that holds a record', () => {
    only(
      [
        send('p1', 0, 'a', 0),
        send('p1', 0, 'b', 1),
        send('p1', 0, 'c', 2),
        poll('c1', 0, [[0, 'a']]),
        poll('c1', 0, [[2, 'c']]),
        poll('c2', 0, [[1, 'b']]),
      ],
      'poll-skip',
    )
  })

  it('read_committed may jump over an aborted transaction, and not read it', () => {
    const h: History = [
      send('p1', 0, 'a', 0),
      send('t1', 0, 'x', 1, 't1-0'),
      txn('t1', 't1-0', 'aborted'),
      send('p1', 0, 'c', 3),
      poll('c1', 0, [[0, 'a']], 'read_committed'),
      poll('c1', 0, [[3, 'c']], 'read_committed'),
      { type: 'replica', process: 'replica-1', time: ++clock, partition: 0, records: [{ offset: 1, value: 'x' }] },
    ]
    assert.equal(anomalyTotal(check(h)), 0, JSON.stringify(check(h).anomalies))
  })

  it('aborted read: read_committed returns a value of an aborted transaction', () => {
    only([send('t1', 0, 'x', 0, 't1-0'), txn('t1', 't1-0', 'aborted'), poll('c1', 0, [[0, 'x']], 'read_committed')], 'aborted-read')
  })

  it('precommitted read: read_committed returns a value before its commit was asked for', () => {
    only([send('t1', 0, 'x', 0, 't1-0'), poll('c1', 0, [[0, 'x']], 'read_committed'), txn('t1', 't1-0', 'committed')], 'precommitted-read')
  })

  it('a committed transaction read after its commit is fine', () => {
    const h: History = [send('t1', 0, 'x', 0, 't1-0'), txn('t1', 't1-0', 'committed'), poll('c1', 0, [[0, 'x']], 'read_committed')]
    assert.equal(anomalyTotal(check(h)), 0)
  })

  it('extra anomalies (the replica comparison) are counted with the rest', () => {
    const r = check(clean(), [{ class: 'replica-divergence', partition: 0, description: 'replicas differ', ops: [] }])
    assert.equal(r.counts['replica-divergence'], 1)
    assert.equal(anomalyTotal(r), 1)
  })
})

/**
 * clean() and a share group of two members that was handed every record, with the redeliveries
 * at-least-once allows: after a RELEASE, after an ACCEPT that failed (the lock had expired) and
 * after one whose answer never came; d is rejected, and a crashed member's record comes back.
 */
function cleanShare(): History {
  return [
    shareGroup(3),
    ...clean(),
    send('p1', 0, 'd', 3),
    poll('c1', 0, [[3, 'd']]),
    deliver('s1', 0, 0, 'a'),
    ack('s1', 0, 0, 'accept'),
    deliver('s1', 0, 1, 'b'),
    ack('s1', 0, 1, 'release'),
    deliver('s2', 0, 1, 'b', 2),
    ack('s2', 0, 1, 'accept', 'fail', 2),
    deliver('s1', 0, 1, 'b', 3),
    ack('s1', 0, 1, 'accept', 'ok', 3),
    deliver('s2', 0, 2, 'c'),
    ack('s2', 0, 2, 'accept', 'unknown'),
    deliver('s1', 0, 2, 'c', 2),
    // a leader failover forgets the acquisition: the same count again
    deliver('s2', 0, 2, 'c', 2),
    ack('s2', 0, 2, 'accept', 'ok', 2),
    deliver('s1', 0, 3, 'd'),
    ack('s1', 0, 3, 'reject'),
  ]
}

describe('chaos checker: share groups', () => {
  it('at-least-once: redeliveries after a release, a failed or unanswered ack and a failover are fine', () => {
    const r = check(cleanShare())
    assert.equal(anomalyTotal(r), 0, JSON.stringify(r.anomalies))
    assert.equal(r.stats.shareDeliveries, 8)
    assert.equal(r.stats.shareRedeliveries, 4)
  })

  it('share-lost: an acknowledged send no member was handed', () => {
    only(
      cleanShare().filter((op) => !((op.type === 'share-delivery' || op.type === 'share-ack') && op.offset === 2)),
      'share-lost',
    )
  })

  it('without a share group in the history nothing is share-lost', () => {
    assert.equal(anomalyTotal(check(clean())), 0)
  })

  it('share-redelivered-after-accept: handed out again after a confirmed ACCEPT', () => {
    only([...cleanShare(), deliver('s2', 0, 0, 'a', 2)], 'share-redelivered-after-accept')
  })

  it('share-rejected-redelivered: handed out again after a confirmed REJECT', () => {
    only([...cleanShare(), deliver('s2', 0, 3, 'd', 2)], 'share-rejected-redelivered')
  })

  it('share-delivery-count-exceeded: a delivery count over the limit', () => {
    const h = cleanShare()
    h.splice(h.length - 2, 0, deliver('s2', 0, 3, 'd', 4))
    only(h, 'share-delivery-count-exceeded')
  })

  it('share-delivery-count-exceeded: handed out again after the release at the limit archived it', () => {
    only(
      [
        ...cleanShare(),
        send('p1', 0, 'e', 4),
        poll('c1', 0, [[4, 'e']]),
        deliver('s1', 0, 4, 'e', 3),
        ack('s1', 0, 4, 'release', 'ok', 3),
        deliver('s2', 0, 4, 'e', 3),
      ],
      'share-delivery-count-exceeded',
    )
  })

  it('share-unknown-record: a value no producer sent', () => {
    only([...cleanShare(), deliver('s1', 0, 9, 'zz')], 'share-unknown-record')
  })

  it('share-unknown-record: a sent value at an offset that holds another', () => {
    only(
      [...cleanShare(), send('p1', 0, 'e', 4), poll('c1', 0, [[4, 'e']]), deliver('s1', 0, 4, 'b'), deliver('s2', 0, 4, 'e', 2)],
      'share-unknown-record',
    )
  })
})
