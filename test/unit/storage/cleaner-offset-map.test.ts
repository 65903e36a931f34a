// The cleaner's key map (cleaner/offset-map.ts) and its MD5 (cleaner/md5.ts): digests equal
// node:crypto's for every length around the block boundaries; the map keeps the latest offset per
// key through its growth, stays within its memory budget, and refuses new keys once full.
import assert from 'node:assert/strict'
import { hash, randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { md5Words } from '../../../src/storage/cleaner/md5.js'
import { BYTES_PER_ENTRY, SkimpyOffsetMap } from '../../../src/storage/cleaner/offset-map.js'

test('md5Words equals node:crypto MD5 for lengths 0 to 300 and for a slice of a larger buffer', () => {
  const out = new Uint32Array(4)
  for (let n = 0; n <= 300; n++) {
    const data = randomBytes(n)
    md5Words(data, 0, n, out)
    const expected = hash('md5', data, 'buffer')
    assert.deepEqual(
      [...out],
      [0, 4, 8, 12].map((i) => expected.readUInt32LE(i)),
      `length ${n}`,
    )
  }
  const big = randomBytes(1000)
  md5Words(big, 100, 350, out)
  const expected = hash('md5', big.subarray(100, 350), 'buffer')
  assert.deepEqual(
    [...out],
    [0, 4, 8, 12].map((i) => expected.readUInt32LE(i)),
  )
})

test('the map keeps the latest offset of each key while it grows to its budget', () => {
  const map = new SkimpyOffsetMap(BYTES_PER_ENTRY * 50_000, 0.9)
  assert.equal(map.maxSlots, 50_000)
  assert.equal(map.maxEntries, 45_000)
  const latest = new Map<string, number>()
  for (let offset = 0; offset < 200_000; offset++) {
    const key = `key-${(offset * 7919) % 40_000}`
    assert.ok(map.put(Buffer.from(key), offset))
    latest.set(key, offset)
  }
  assert.equal(map.size, 40_000)
  for (const [key, offset] of latest) assert.equal(map.get(Buffer.from(key)), offset)
  assert.equal(map.get(Buffer.from('absent')), -1)
  assert.ok(map.memoryBytes <= BYTES_PER_ENTRY * 50_000, `${map.memoryBytes} bytes within the budget`)
  map.clear()
  assert.equal(map.size, 0)
  assert.equal(map.latestOffset, -1)
  assert.equal(map.get(Buffer.from('key-1')), -1)
})

test('a full map refuses new keys but still updates the ones it holds', () => {
  const map = new SkimpyOffsetMap(BYTES_PER_ENTRY * 10, 0.5)
  for (let i = 0; i < 5; i++) assert.ok(map.put(Buffer.from(`k${i}`), i))
  assert.ok(map.isFull)
  assert.equal(map.put(Buffer.from('k5'), 5), false)
  assert.equal(map.get(Buffer.from('k5')), -1)
  assert.ok(map.put(Buffer.from('k0'), 99))
  assert.equal(map.get(Buffer.from('k0')), 99)
  map.updateLatestOffset(7)
  map.updateLatestOffset(3)
  assert.equal(map.latestOffset, 7)
})

test('a budget that cannot hold one key is refused, naming the setting', () => {
  assert.throws(() => new SkimpyOffsetMap(BYTES_PER_ENTRY - 1), /log\.cleaner\.dedupe\.buffer\.size/)
})
