// The reset-offsets plan (clamping, shifting, datetime fallback) and the parsing of --topic,
// --to-datetime and the one-of --to-* options, without a broker.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ToolError, UsageError } from '../../../src/cli/common.js'
import { resetSpecOf } from '../../../src/cli/group.js'
import {
  mergeTopicSelections,
  type PartitionState,
  parseDatetime,
  parseTopicSelection,
  planReset,
} from '../../../src/cli/group-reset-plan.js'

// Three partitions: log [10, 50) with a commit at 30; log [0, 5) with no commit; an empty log at 7.
const STATES: PartitionState[] = [
  { topic: 'orders', partition: 0, current: 30, earliest: 10, latest: 50, atTimestamp: 42 },
  { topic: 'orders', partition: 1, current: null, earliest: 0, latest: 5, atTimestamp: -1 },
  { topic: 'orders', partition: 2, current: 7, earliest: 7, latest: 7, atTimestamp: null },
]

const targets = (rows: ReturnType<typeof planReset>) => rows.map((r) => r.target)

describe('planReset', () => {
  it('--to-earliest and --to-latest take the log bounds and keep the current offsets for the plan', () => {
    const earliest = planReset({ kind: 'earliest' }, STATES)
    assert.deepEqual(targets(earliest), [10, 0, 7])
    assert.deepEqual(
      earliest.map((r) => [r.topic, r.partition, r.current]),
      [
        ['orders', 0, 30],
        ['orders', 1, null],
        ['orders', 2, 7],
      ],
    )
    assert.deepEqual(targets(planReset({ kind: 'latest' }, STATES)), [50, 5, 7])
  })

  it('--to-offset is clamped to [earliest, latest]', () => {
    assert.deepEqual(targets(planReset({ kind: 'offset', offset: 3 }, STATES)), [10, 3, 7])
    assert.deepEqual(targets(planReset({ kind: 'offset', offset: 20 }, STATES)), [20, 5, 7])
    assert.deepEqual(targets(planReset({ kind: 'offset', offset: 1_000_000 }, STATES)), [50, 5, 7])
    assert.deepEqual(targets(planReset({ kind: 'offset', offset: 0 }, STATES.slice(0, 1))), [10])
  })

  it('--shift-by moves the committed offset and is clamped at both ends', () => {
    const committed = [STATES[0]!, STATES[2]!]
    assert.deepEqual(targets(planReset({ kind: 'shift', by: -5 }, committed)), [25, 7])
    assert.deepEqual(targets(planReset({ kind: 'shift', by: 15 }, committed)), [45, 7])
    assert.deepEqual(targets(planReset({ kind: 'shift', by: -100 }, committed)), [10, 7])
    assert.deepEqual(targets(planReset({ kind: 'shift', by: 100 }, committed)), [50, 7])
    assert.deepEqual(targets(planReset({ kind: 'shift', by: 0 }, committed)), [30, 7])
  })

  it('--shift-by refuses a partition without a committed offset, naming it', () => {
    assert.throws(
      () => planReset({ kind: 'shift', by: 1 }, STATES),
      (e: unknown) =>
        e instanceof ToolError && /orders:1/.test(e.message) && /no committed offset/.test(e.message) && /--to-/.test(e.hint ?? ''),
    )
  })

  it('--to-datetime takes the offset for the time, and the end offset where no record is that recent', () => {
    assert.deepEqual(targets(planReset({ kind: 'datetime', timestampMs: 1 }, STATES)), [42, 5, 7])
    // A lookup result outside the log (a log truncated meanwhile) is clamped too.
    const stale: PartitionState[] = [{ topic: 't', partition: 0, current: null, earliest: 10, latest: 20, atTimestamp: 3 }]
    assert.deepEqual(targets(planReset({ kind: 'datetime', timestampMs: 1 }, stale)), [10])
  })
})

describe('parseTopicSelection / mergeTopicSelections', () => {
  it('reads TOPIC and TOPIC:P,P', () => {
    assert.deepEqual(parseTopicSelection('orders'), { topic: 'orders', partitions: null })
    assert.deepEqual(parseTopicSelection('orders:0,2, 2'), { topic: 'orders', partitions: [0, 2] })
  })

  it('refuses malformed values as usage errors', () => {
    for (const bad of ['', ':1', 'a:', 'a:x', 'a:1,', 'a:-1', 'a:1:2', 'a:1.5', 'a:99999999999']) {
      assert.throws(() => parseTopicSelection(bad), UsageError, bad)
    }
  })

  it('merges repeated topics; a whole topic wins over some of its partitions', () => {
    assert.deepEqual(mergeTopicSelections([parseTopicSelection('a:0'), parseTopicSelection('b'), parseTopicSelection('a:1,0')]), [
      { topic: 'a', partitions: [0, 1] },
      { topic: 'b', partitions: null },
    ])
    assert.deepEqual(mergeTopicSelections([parseTopicSelection('a:0'), parseTopicSelection('a')]), [{ topic: 'a', partitions: null }])
    assert.deepEqual(mergeTopicSelections([parseTopicSelection('a'), parseTopicSelection('a:3')]), [{ topic: 'a', partitions: null }])
  })
})

describe('parseDatetime', () => {
  it('reads UTC and offset zones exactly', () => {
    assert.equal(parseDatetime('2024-05-01T12:00:00Z'), Date.UTC(2024, 4, 1, 12))
    assert.equal(parseDatetime('2024-05-01T12:00:00.250Z'), Date.UTC(2024, 4, 1, 12, 0, 0, 250))
    assert.equal(parseDatetime('2024-05-01T12:00:00.5Z'), Date.UTC(2024, 4, 1, 12, 0, 0, 500))
    assert.equal(parseDatetime('2024-05-01T12:00Z'), Date.UTC(2024, 4, 1, 12))
    assert.equal(parseDatetime('2024-05-01T14:30:00+02:30'), Date.UTC(2024, 4, 1, 12))
    assert.equal(parseDatetime('2024-05-01T07:00:00-0500'), Date.UTC(2024, 4, 1, 12))
    assert.equal(parseDatetime('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29))
  })

  it('reads a time without a zone as local time, as Kafka does', () => {
    assert.equal(parseDatetime('2024-05-01T12:34:56.789'), new Date(2024, 4, 1, 12, 34, 56, 789).getTime())
    assert.equal(parseDatetime('2024-05-01'), new Date(2024, 4, 1).getTime())
  })

  it('refuses what is not a valid date-time as a usage error', () => {
    for (const bad of [
      '',
      'yesterday',
      '1714564800000',
      '2024-13-01T00:00:00Z',
      '2023-02-29',
      '2024-04-31',
      '2024-05-01T24:00',
      '2024-05-01T12:60',
      '2024-05-01 12:00',
      '2024-05-01T12:00:00+25:00',
    ]) {
      assert.throws(() => parseDatetime(bad), UsageError, bad)
    }
  })
})

describe('resetSpecOf', () => {
  const none = { toEarliest: false, toLatest: false }

  it('takes exactly one --to-* or --shift-by', () => {
    assert.deepEqual(resetSpecOf({ ...none, toEarliest: true }), { kind: 'earliest' })
    assert.deepEqual(resetSpecOf({ ...none, toLatest: true }), { kind: 'latest' })
    assert.deepEqual(resetSpecOf({ ...none, toOffset: 0 }), { kind: 'offset', offset: 0 })
    assert.deepEqual(resetSpecOf({ ...none, shiftBy: -3 }), { kind: 'shift', by: -3 })
    assert.deepEqual(resetSpecOf({ ...none, toDatetime: '2024-05-01T12:00:00Z' }), {
      kind: 'datetime',
      timestampMs: Date.UTC(2024, 4, 1, 12),
    })
  })

  it('refuses none and several, naming them', () => {
    assert.throws(
      () => resetSpecOf(none),
      (e: unknown) => e instanceof UsageError && /give one of/.test(e.message),
    )
    assert.throws(
      () => resetSpecOf({ ...none, toEarliest: true, shiftBy: 1 }),
      (e: unknown) => e instanceof UsageError && /--to-earliest and --shift-by/.test(e.message),
    )
  })
})
