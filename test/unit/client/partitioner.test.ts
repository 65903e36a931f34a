// The partitioner must put a key where the Java client puts it (Kafka's own murmur2 vectors, and a
// sweep against the independent test helper), and spread records without keys a batch at a time.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { murmur2, partitionForKey, StickyPartitioner } from '../../../src/client/partitioner.js'
import { javaPartition } from '../../helpers/clients.js'

describe('murmur2', () => {
  it("matches Kafka's UtilsTest.testMurmur2 vectors", () => {
    const vectors: Array<[string, number]> = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ]
    for (const [input, want] of vectors) assert.equal(murmur2(Buffer.from(input)), want, input)
  })

  it('agrees with the reference implementation for keys of every tail length, binary ones included', () => {
    for (let len = 0; len < 40; len++) {
      const key = Buffer.alloc(len)
      for (let i = 0; i < len; i++) key[i] = (i * 97 + len * 31) & 0xff
      for (const n of [1, 2, 3, 7, 12, 50]) assert.equal(partitionForKey(key, n), javaPartition(key, n), `len ${len}, ${n} partitions`)
    }
    assert.equal(partitionForKey(Buffer.from('user-1'), 3), javaPartition('user-1', 3))
    // toPositive, not Math.abs: "foobar" hashes negative.
    assert.equal(partitionForKey(Buffer.from('foobar'), 50), (-790332482 & 0x7fffffff) % 50)
  })

  it('refuses a partition count of 0', () => {
    assert.throws(() => partitionForKey(Buffer.from('k'), 0), RangeError)
  })
})

describe('StickyPartitioner', () => {
  it('keeps a partition for a batch worth of bytes, then moves to the next one, round the ring', () => {
    const p = new StickyPartitioner(100, () => 0.5) // starts at floor(0.5 * 3) = 1
    const seen: number[] = []
    for (let i = 0; i < 12; i++) seen.push(p.next(3, 40))
    // 40 + 40 + 40 ≥ 100: the third record still goes to the sticky partition, then it moves on.
    assert.deepEqual(seen, [1, 1, 1, 2, 2, 2, 0, 0, 0, 1, 1, 1])
  })

  it('gives a record larger than a batch a partition of its own, and starts over when the count shrinks', () => {
    const p = new StickyPartitioner(100, () => 0)
    assert.deepEqual([p.next(4, 500), p.next(4, 10), p.next(4, 10)], [0, 1, 1])
    assert.equal(p.next(1, 10), 0)
  })
})
