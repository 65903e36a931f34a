import assert from 'node:assert/strict'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { test } from 'node:test'
import { nodeFs } from '../../../src/storage/fs.js'
import { OffsetIndex } from '../../../src/storage/offset-index.js'
import { TimeIndex } from '../../../src/storage/time-index.js'
import { tempDir } from './helpers.js'

test('offset index: floor lookups, persist, load, truncate', async (t) => {
  const dir = tempDir(t)
  const path = `${dir}/00000000000000000100.index`
  const idx = new OffsetIndex(path, 100, 1024)
  assert.equal(idx.floorPosition(150), 0)
  assert.equal(idx.lookup(150), null)
  idx.append(110, 4000)
  idx.append(130, 8200)
  idx.append(170, 12500)
  assert.equal(idx.floorPosition(109), 0)
  assert.equal(idx.floorPosition(110), 4000)
  assert.equal(idx.floorPosition(129), 4000)
  assert.equal(idx.floorPosition(130), 8200)
  assert.equal(idx.floorPosition(10_000), 12500)
  assert.throws(() => idx.append(170, 13000), RangeError)
  assert.throws(() => idx.append(171, 12000), RangeError)

  await idx.persist(nodeFs, true)
  const bytes = readFileSync(path)
  assert.equal(bytes.length, 24)
  assert.deepEqual([bytes.readInt32BE(0), bytes.readInt32BE(4)], [10, 4000])
  assert.deepEqual([bytes.readInt32BE(16), bytes.readInt32BE(20)], [70, 12500])

  // lazily appended entries go at the end of the file
  idx.append(180, 13000)
  await idx.persist(nodeFs, false)
  assert.equal(statSync(path).size, 32)

  const loaded = new OffsetIndex(path, 100, 1024)
  assert.equal(await loaded.load(nodeFs, 20_000), true)
  assert.equal(loaded.entries, 4)
  assert.deepEqual(loaded.lastEntry(), { offset: 180, position: 13000 })

  // a position past the log's end makes the file invalid
  assert.equal(await new OffsetIndex(path, 100, 1024).load(nodeFs, 12_000), false)

  await loaded.truncateToOffset(nodeFs, 130)
  assert.equal(loaded.entries, 1)
  assert.equal(statSync(path).size, 8)
  assert.equal(loaded.floorPosition(1000), 4000)
})

test('offset index: invalid files are reported for rebuild', async (t) => {
  const dir = tempDir(t)
  const path = `${dir}/00000000000000000000.index`
  assert.equal(await new OffsetIndex(path, 0, 1024).load(nodeFs, 100), false, 'missing')
  writeFileSync(path, Buffer.alloc(12))
  assert.equal(await new OffsetIndex(path, 0, 1024).load(nodeFs, 100), false, 'size not a multiple of 8')
  const b = Buffer.alloc(16)
  b.writeInt32BE(5, 0)
  b.writeInt32BE(10, 4)
  b.writeInt32BE(3, 8) // offsets going backwards
  b.writeInt32BE(20, 12)
  writeFileSync(path, b)
  assert.equal(await new OffsetIndex(path, 0, 1024).load(nodeFs, 100), false, 'not monotonic')
  writeFileSync(path, Buffer.alloc(0))
  assert.equal(await new OffsetIndex(path, 0, 1024).load(nodeFs, 100), true, 'empty is valid')
})

test('offset index: capacity from maxIndexSizeBytes', () => {
  const idx = new OffsetIndex('/nonexistent', 0, 20)
  assert.equal(idx.maxEntries, 2)
  idx.append(1, 1)
  assert.equal(idx.hasRoomFor(1), true)
  idx.append(2, 2)
  assert.equal(idx.isFull, true)
  assert.throws(() => idx.append(3, 3), RangeError)
})

test('time index: only growing timestamps, strict lookups, persist, truncate', async (t) => {
  const dir = tempDir(t)
  const path = `${dir}/00000000000000000000.timeindex`
  const idx = new TimeIndex(path, 0, 1200)
  assert.equal(idx.maybeAppend(1000, 9), true)
  assert.equal(idx.maybeAppend(1000, 19), false, 'same timestamp')
  assert.equal(idx.maybeAppend(900, 29), false, 'smaller timestamp')
  assert.equal(idx.maybeAppend(2000, 39), true)
  assert.equal(idx.maybeAppend(2 ** 45, 49), true)
  assert.equal(idx.offsetBefore(1000), -1)
  assert.equal(idx.offsetBefore(1001), 9)
  assert.equal(idx.offsetBefore(2000), 9)
  assert.equal(idx.offsetBefore(5000), 39)
  assert.deepEqual(idx.lastEntry(), { timestamp: 2 ** 45, offset: 49 })
  await idx.persist(nodeFs, true)
  const bytes = readFileSync(path)
  assert.equal(bytes.length, 36)
  assert.equal(Number(bytes.readBigInt64BE(24)), 2 ** 45)
  assert.equal(bytes.readInt32BE(32), 49)

  const loaded = new TimeIndex(path, 0, 1200)
  assert.equal(await loaded.load(nodeFs, 1), true)
  assert.equal(loaded.entries, 3)
  await loaded.truncateToOffset(nodeFs, 39)
  assert.equal(loaded.entries, 1)
  assert.equal(statSync(path).size, 12)
})
