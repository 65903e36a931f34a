// The short chaos run of CI (test/chaos/chaos-run.ts; `npm run chaos -- --seconds 300 --seed N`
// runs a long one): one seed, every nemesis (kill -9 and restart, SIGSTOP/SIGCONT of a leader,
// partitions through the fault proxies, kill -9 of an etcd member, a broker's disk failing, a
// broker's power cut),
// idempotent and transactional producers, consumers by assign and by subscribe, two members of a
// share group (KIP-932) acknowledging with accept, release and reject, on a 3-broker cluster over a
// 3-member etcd. Seed 28's schedule starts with a disk fault, a power cut, a partition, a kill, an
// etcd member kill and a pause, 25 s in all (test/unit/chaos/nemesis-schedule.test.ts), so each
// kind of fault is met within the run's 36 s. The
// checker must find no anomaly of any class, and the run must have done something: sends
// acknowledged, records read, faults injected, connections held by a cut, every acknowledged send
// handed to a share member, records handed out again, and acknowledgements of each kind confirmed.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { anomalyTotal } from '../chaos/checker.js'
import { chaosRun, summary } from '../chaos/chaos-run.js'
import { NEMESES } from '../chaos/nemesis.js'

const SEED = 28

describe('chaos (short run)', () => {
  it(`seed ${SEED}, every nemesis: no anomaly`, { timeout: 300_000 }, async () => {
    const lines: string[] = []
    const r = await chaosRun({
      seed: SEED,
      seconds: 36,
      nemeses: [...NEMESES],
      transactions: true,
      calmMs: [1000, 2000],
      faultMs: [2000, 4000],
      log: (l) => lines.push(l),
    })
    const context = () => `${summary(r)}\n${lines.join('\n')}`
    assert.equal(anomalyTotal(r), 0, context())
    assert.equal(r.total, 0, context())
    for (const kind of NEMESES) assert.ok((r.faultCounts[kind] ?? 0) >= 1, `no ${kind} fault: ${context()}`)
    assert.ok(r.proxy.brokerToBroker > 0, `the proxies told no broker's connection from a client's: ${context()}`)
    assert.ok(r.proxy.held > 0, `no connection was held by a partition: ${context()}`)
    // Thousands on an idle machine; a few hundred when the machine is loaded (466 once at load 15).
    assert.ok(r.stats.sendsOk > 200, `too few sends acknowledged: ${context()}`)
    assert.ok(r.stats.recordsRead >= r.stats.sendsOk, `the consumers read less than was acknowledged: ${context()}`)
    assert.ok(r.stats.txns > 0, context())
    assert.ok(r.stats.shareDeliveries >= r.stats.sendsOk, `the share members were handed less than was acknowledged: ${context()}`)
    assert.ok(r.stats.shareRedeliveries > 0, `no share record was handed out again: ${context()}`)
    for (const kind of ['accept', 'release', 'reject']) {
      const confirmed = r.history.filter((op) => op.type === 'share-ack' && op.kind === kind && op.outcome === 'ok').length
      assert.ok(confirmed > 0, `no ${kind} acknowledgement confirmed: ${context()}`)
    }
  })
})
