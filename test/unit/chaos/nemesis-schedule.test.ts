// The chaos nemesis's schedule (test/chaos/nemesis.ts): drawn from the seed alone — the same seed
// gives the same steps, another seed others — with only the faults asked for, durations in their
// ranges, a pause always aimed at a leader; and --nemesis parsing. Seed 4 with the CI run's ranges
// begins with a kill, a partition and a pause, as test/integration/chaos.test.ts counts on.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { drawStep, type NemesisKind, parseNemeses, seededRandom, type Step } from '../../chaos/nemesis.js'

function steps(
  seed: number,
  kinds: NemesisKind[],
  n: number,
  calm: [number, number] = [2000, 5000],
  fault: [number, number] = [3000, 8000],
): Step[] {
  const random = seededRandom(seed)
  return Array.from({ length: n }, () => drawStep(random, kinds, 3, calm, fault))
}

describe('nemesis schedule', () => {
  it('is the same for the same seed and differs for another', () => {
    const all: NemesisKind[] = ['kill', 'pause', 'partition']
    assert.deepEqual(steps(7, all, 50), steps(7, all, 50))
    assert.notDeepEqual(steps(7, all, 50), steps(8, all, 50))
  })

  it('draws only the faults asked for, in range', () => {
    const s = steps(3, ['kill', 'partition'], 200)
    assert.deepEqual(new Set(s.map((x) => x.kind)), new Set(['kill', 'partition']))
    for (const x of s) {
      assert.ok(x.calmMs >= 2000 && x.calmMs < 5000, `calm ${x.calmMs}`)
      assert.ok(x.durationMs >= 3000 && x.durationMs < 8000, `duration ${x.durationMs}`)
      assert.ok(x.partition >= 0 && x.partition < 3)
    }
    for (const x of steps(3, ['pause'], 50)) assert.equal(x.role, 'leader')
  })

  it('seed 4 with the CI ranges starts with kill, partition, pause', () => {
    const kinds = steps(4, ['kill', 'pause', 'partition'], 3, [1000, 2000], [2000, 4000]).map((x) => x.kind)
    assert.deepEqual(kinds, ['kill', 'partition', 'pause'])
  })

  it('parses --nemesis', () => {
    assert.deepEqual(parseNemeses('all'), ['kill', 'pause', 'partition'])
    assert.deepEqual(parseNemeses('kill,pause'), ['kill', 'pause'])
    assert.deepEqual(parseNemeses('none'), [])
    assert.throws(() => parseNemeses('kill,flood'), /unknown fault "flood"/)
  })
})
