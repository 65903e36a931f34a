// The soak's verdict on its samples (test/chaos/soak-sample.ts judge): flat figures pass, growth
// within an interval past the tolerance fails, a restart that does not bring the figures back to
// the first interval's fails, and every configured limit is enforced.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_LIMITS, judge, median, metricValue, percentile, type Sample } from '../../chaos/soak-sample.js'

function interval(i: number, n: number, f: (k: number) => Partial<Sample> = () => ({})): Sample[] {
  return Array.from({ length: n }, (_, k) => ({
    t: i * 100 + k,
    interval: i,
    rssMiB: 120,
    fds: 80,
    heapMiB: 30,
    loopP99Ms: 20,
    segments: 150,
    majorGcs: k,
    ...f(k),
  }))
}

describe('soak verdict', () => {
  it('flat figures over two intervals: no problem', () => {
    assert.deepEqual(judge([...interval(0, 9), ...interval(1, 9)], DEFAULT_LIMITS), [])
  })

  it('RSS that climbs through an interval is a leak', () => {
    const p = judge(
      interval(0, 9, (k) => ({ rssMiB: 120 + k * 30 })),
      DEFAULT_LIMITS,
    )
    assert.equal(p.length, 1, p.join('\n'))
    assert.match(p[0]!, /^interval 0: MiB RSS grew from 150 \(first third\) to 330 \(last third\), past 273$/)
  })

  it('fds that are not back to the baseline after a restart fail', () => {
    const p = judge([...interval(0, 9), ...interval(1, 9, () => ({ fds: 200 }))], DEFAULT_LIMITS)
    assert.deepEqual(p, ['interval 1: fds after the restart 200, not back to the baseline 80 (bound 148)'])
  })

  it('growth inside the tolerance passes; a sample past a limit fails', () => {
    const within = interval(0, 9, (k) => ({ heapMiB: 30 + k * 4 }))
    assert.deepEqual(judge(within, DEFAULT_LIMITS), [])
    const spiky = interval(0, 9, (k) => (k === 4 ? { rssMiB: 800, fds: 2000, segments: 500 } : {}))
    assert.deepEqual(judge(spiky, DEFAULT_LIMITS), [
      't=4s: RSS 800 MiB past 768 MiB',
      't=4s: 2000 fds past 1024',
      't=4s: 500 segments past 400',
    ])
    const slow = interval(0, 9, (k) => ({ loopP99Ms: k === 4 ? 3000 : 20 }))
    assert.deepEqual(judge(slow, DEFAULT_LIMITS), ['event-loop delay p99 3000 ms (99th percentile of the samples) past 1000 ms'])
    const oneSpikeIn200 = interval(0, 200, (k) => ({ loopP99Ms: k === 4 ? 3000 : 20 }))
    assert.deepEqual(judge(oneSpikeIn200, DEFAULT_LIMITS), [])
  })

  it('heap: garbage a later collection took back is not growth; a heap that never comes down is', () => {
    // A fresh process's climb to its first full collection, then the sawtooth after it (the short soak's first interval).
    // Taken as they are, the last third's median (75) would be past the bound (33.5 × 1.5 + 24).
    const heaps = [32, 33, 34, 35, 45, 55, 62, 70, 74, 76, 78, 41]
    const sawtooth = interval(0, heaps.length, (k) => ({ heapMiB: heaps[k]!, majorGcs: k < 11 ? 0 : 1 }))
    assert.deepEqual(judge(sawtooth, DEFAULT_LIMITS), [])
    const leak = interval(0, 12, (k) => ({ heapMiB: 30 + k * 10, majorGcs: k }))
    assert.deepEqual(judge(leak, DEFAULT_LIMITS), ['interval 0: MiB heap grew from 45 (first third) to 125 (last third), past 91.5'])
    // No full collection in the interval: the heap says nothing of what is live, RSS still counts.
    const uncollected = interval(0, 12, (k) => ({ heapMiB: 30 + k * 10, rssMiB: 120 + k * 20, majorGcs: 3 }))
    assert.deepEqual(judge(uncollected, DEFAULT_LIMITS), ['interval 0: MiB RSS grew from 150 (first third) to 310 (last third), past 273'])
  })

  it('too few samples to compare is itself a problem', () => {
    assert.deepEqual(judge(interval(0, 3), DEFAULT_LIMITS), ['no interval has the 6 samples a comparison needs'])
  })

  it('median, percentile and metric lines', () => {
    assert.equal(median([3, 1, Number.NaN, 2]), 2)
    assert.equal(median([4, 1, 2, 3]), 2.5)
    assert.equal(percentile([5, 1, 4, 2, 3], 99), 5)
    assert.equal(percentile([5, 1, 4, 2, 3], 40), 2)
    const text = '# HELP nodejs_heap_size_used_bytes x\nnodejs_heap_size_used_bytes 1048576\nnodejs_eventloop_lag_p99_seconds 0.25\n'
    assert.equal(metricValue(text, 'nodejs_heap_size_used_bytes'), 1048576)
    assert.equal(metricValue(text, 'nodejs_eventloop_lag_p99_seconds'), 0.25)
    assert.ok(Number.isNaN(metricValue(text, 'nodejs_missing')))
  })
})
