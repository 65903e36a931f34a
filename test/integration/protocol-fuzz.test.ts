// The short protocol fuzzing run of CI (test/chaos/fuzz-run.ts; `npm run fuzz -- --seconds 300
// --seed N` runs a long one): fixed seeds, every API and version the broker serves, valid, mutated
// and random requests, lying size prefixes and compression bombs, against a `tributary start`
// process. No finding: every answer decodes as the response of its API and version with the right
// correlation id, every close the fuzzer met was counted (logged) by the broker, no handler failed
// on input it decoded, the broker's RSS stayed under 512 MiB, it served a fresh connection after
// every 50 cases, and it stopped cleanly.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { fuzzRun } from '../chaos/fuzz-run.js'

describe('protocol fuzzing (short run)', () => {
  for (const seed of [20261202, 42]) {
    it(`seed ${seed}: 700 cases, no finding`, async () => {
      const r = await fuzzRun({ seed, cases: 700 })
      assert.deepEqual(r.findings, [], JSON.stringify(r.findings, null, 2))
      assert.equal(r.cases, 700)
      for (const [kind, n] of Object.entries(r.byKind)) assert.ok(n > 0, `no ${kind} case ran`)
      assert.ok(r.validOutcomes.answered > r.byKind.valid * 0.9, `valid requests answered: ${JSON.stringify(r.validOutcomes)}`)
      assert.ok(r.outcomes.closed > 0 && r.protocolClosesCounted >= r.outcomes.closed)
      assert.equal(r.requestFailedCloses, 0)
    })
  }
})
