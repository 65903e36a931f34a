// The chaos checker (test/chaos/checker.ts) on hand-written histories: a clean one reports
// nothing, and each history that holds one anomaly reports that class (and only that one), with
// the operations that show it — so a chaos run that meets the anomaly can fail.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type AnomalyClass, anomalyTotal, check } from '../../chaos/checker.js'
import type { History, Op, PollRecord } from '../../chaos/history.js'

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
    assert.deepEqual(r.stats, { sendsOk: 3, sendsFailed: 0, sendsUnknown: 0, polls: 2, recordsRead: 3, txns: 0 })
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
