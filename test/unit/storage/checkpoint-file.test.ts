import assert from 'node:assert/strict'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { test } from 'node:test'
import {
  CheckpointFile,
  CorruptCheckpointError,
  readOffsetCheckpoint,
  topicPartitionOffsetFormat,
  writeOffsetCheckpoint,
} from '../../../src/storage/checkpoint-file.js'
import { nodeFs } from '../../../src/storage/fs.js'
import { LeaderEpochCache } from '../../../src/storage/leader-epoch-cache.js'
import { readPartitionMetadata, writePartitionMetadata } from '../../../src/storage/partition-metadata.js'
import { faultFs, tempDir } from './helpers.js'

test('offset checkpoint round-trip in Kafka format, written durably', async (t) => {
  const dir = tempDir(t)
  const path = `${dir}/recovery-point-offset-checkpoint`
  const { fs, faults } = faultFs()
  await writeOffsetCheckpoint(fs, path, [
    { topic: 'orders', partition: 0, offset: 42 },
    { topic: 'my-topic.v2', partition: 11, offset: 2 ** 40 },
  ])
  assert.equal(readFileSync(path, 'utf8'), '0\n2\norders 0 42\nmy-topic.v2 11 1099511627776\n')
  assert.equal(existsSync(`${path}.tmp`), false)
  assert.deepEqual(faults.syncs, [`${path}.tmp`], 'the temp file is fsynced before the rename')
  const m = await readOffsetCheckpoint(nodeFs, path)
  assert.deepEqual(
    [...m],
    [
      ['orders-0', 42],
      ['my-topic.v2-11', 2 ** 40],
    ],
  )
})

test('checkpoint: missing file is empty, malformed files throw', async (t) => {
  const dir = tempDir(t)
  const file = new CheckpointFile(nodeFs, `${dir}/cp`, topicPartitionOffsetFormat)
  assert.deepEqual(await file.read(), [])
  for (const bad of ['1\n0\n', '0\n2\na 0 1\n', '0\n1\na x 1\n', '0\n', '0\n1\na 0\n']) {
    writeFileSync(`${dir}/cp`, bad)
    await assert.rejects(file.read(), CorruptCheckpointError, JSON.stringify(bad))
  }
  writeFileSync(`${dir}/cp`, '0\n0\n')
  assert.deepEqual(await file.read(), [])
})

test('leader epoch cache: assign, truncate, endOffsetFor, persisted', async (t) => {
  const dir = tempDir(t)
  const cache = await LeaderEpochCache.load(nodeFs, dir)
  assert.equal(cache.latestEpoch, -1)
  await cache.assign(0, 0)
  await cache.assign(0, 10) // same epoch: no change
  await cache.assign(2, 15)
  await cache.assign(1, 20) // older epoch: ignored
  await cache.assign(5, 30)
  assert.deepEqual(cache.entries(), [
    { epoch: 0, startOffset: 0 },
    { epoch: 2, startOffset: 15 },
    { epoch: 5, startOffset: 30 },
  ])
  assert.equal(readFileSync(`${dir}/leader-epoch-checkpoint`, 'utf8'), '0\n3\n0 0\n2 15\n5 30\n')
  assert.deepEqual(cache.endOffsetFor(5, 44), { epoch: 5, endOffset: 44 })
  assert.deepEqual(cache.endOffsetFor(2, 44), { epoch: 2, endOffset: 30 })
  assert.deepEqual(cache.endOffsetFor(3, 44), { epoch: 2, endOffset: 30 })
  assert.deepEqual(cache.endOffsetFor(7, 44), { epoch: -1, endOffset: -1 })
  assert.deepEqual(cache.endOffsetFor(-1, 44), { epoch: -1, endOffset: -1 })

  await cache.truncateFromEnd(30)
  assert.equal(cache.latestEpoch, 2)
  await cache.truncateFromStart(17)
  assert.deepEqual(cache.entries(), [{ epoch: 2, startOffset: 17 }])
  const reloaded = await LeaderEpochCache.load(nodeFs, dir)
  assert.deepEqual(reloaded.entries(), [{ epoch: 2, startOffset: 17 }])
})

test('partition.metadata round-trip', async (t) => {
  const dir = tempDir(t)
  assert.equal(await readPartitionMetadata(nodeFs, dir), undefined)
  await writePartitionMetadata(nodeFs, dir, 'Zq9cV2mJTcyN4dV-5y1y0A')
  assert.equal(readFileSync(`${dir}/partition.metadata`, 'utf8'), 'version: 0\ntopic_id: Zq9cV2mJTcyN4dV-5y1y0A\n')
  assert.equal(await readPartitionMetadata(nodeFs, dir), 'Zq9cV2mJTcyN4dV-5y1y0A')
})
