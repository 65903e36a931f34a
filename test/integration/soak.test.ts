// The short soak of CI (test/chaos/soak-run.ts; `npm run soak -- --minutes 30` runs the long
// one): 60 s of the mixed load against a `tributary start` process with one restart (seed 7 makes
// it a kill -9; the final stop is a SIGTERM), sampled every 2 s. The same checks as the long run:
// no growth of RSS, heap or fds within an interval or across the restart past the tolerances of
// DEFAULT_LIMITS, no limit passed, every acknowledged record in the log and seen by the classic and
// the KIP-848 group, no aborted record read, and progress of every part of the load in each interval.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { soakRun } from '../chaos/soak-run.js'

describe('soak (short run)', () => {
  it('60 s of mixed load with a kill -9: no leak, no acknowledged record lost', async () => {
    const r = await soakRun({ seed: 7, seconds: 60, restartEverySeconds: 30, sampleEverySeconds: 2 })
    assert.deepEqual(r.problems, [], r.problems.join('\n'))
    assert.deepEqual(
      r.restarts.map((x) => x.kind),
      ['kill -9'],
    )
    for (const interval of [0, 1]) {
      const n = r.samples.filter((s) => s.interval === interval).length
      assert.ok(n >= 6, `interval ${interval} has ${n} samples`)
    }
    for (const topic of ['soak-plain', 'soak-retained', 'soak-compacted', 'soak-txn', 'soak-rest'])
      assert.ok((r.records.checked[topic] ?? 0) > 0, `no acknowledged record of ${topic} was checked`)
    for (const counter of ['kafkajs-idempotent acked', 'transactional acked', 'transactional aborted', 'share delivered', 'sse events'])
      assert.ok((r.counts[counter] ?? 0) > 0, `${counter}: ${JSON.stringify(r.counts)}`)
  })
})
