// A compressed batch is decompressed once on the produce path, however many of the topic's rules
// need its records (structure, the key rule of compacted topics, timestamp bounds, the
// compression.type rebuild, the LogAppendTime stamp): the single pass of
// src/replication/log-validator.ts, seen from ReplicaManager.append with the lz4 decoder counted.
// Only the public append path is used, so the same test measures any implementation of it.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { describe, it } from 'node:test'
import { CompressionType } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch, type RecordInput } from '../../../src/protocol/records/builder.js'
import type { AppendPolicy } from '../../../src/ports/replicas.js'
import { ReplicaManager } from '../../../src/replication/replica-manager.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { memoryLogs, TOPIC_ID } from '../../helpers/memory-logs.js'

const NOW = 1_700_000_000_000
const MiB = 1024 * 1024
const CREATE_TIME: AppendPolicy = { logAppendTime: false, beforeMaxMs: Number.MAX_SAFE_INTEGER, afterMaxMs: Number.MAX_SAFE_INTEGER }
const RECORDS: RecordInput[] = [
  { key: Buffer.from('k1'), value: Buffer.from('v1'), timestamp: NOW - 1000 },
  { key: Buffer.from('k2'), value: null, timestamp: NOW - 500 },
  { key: Buffer.from('k3'), value: Buffer.alloc(5000, 'x'), headers: [{ key: 'h', value: Buffer.from('hv') }], timestamp: NOW - 2000 },
]

describe('ReplicaManager.append decompresses a compressed batch at most once', () => {
  // compression.ts loads lz4-napi with require(): the same module object is patched here, so every
  // lz4 block the broker decodes is counted (the test batches are one block each).
  const lz4 = createRequire(import.meta.url)('lz4-napi') as { uncompressSync: (...args: unknown[]) => Buffer }

  async function countDecodes(policy: AppendPolicy, batch: Buffer): Promise<number> {
    const clock = new ManualClock(NOW)
    const { logs } = await memoryLogs(clock)
    const rm = new ReplicaManager(logs, clock, silentLogger)
    const p = await rm.createPartition('facts', 0, TOPIC_ID)
    // Led here, its only replica (what ReplicaSync applies on a single broker).
    p.becomeLeader({ replicas: [0], isr: [0], leader: 0, leaderEpoch: 0, partitionEpoch: 0, addingReplicas: [], removingReplicas: [] }, 0)
    const original = lz4.uncompressSync
    let calls = 0
    lz4.uncompressSync = (...args: unknown[]) => {
      calls++
      return original(...args)
    }
    try {
      await rm.append(p, batch, MiB, policy)
    } finally {
      lz4.uncompressSync = original
    }
    assert.equal(p.log.logEndOffset, RECORDS.length, 'the batch was appended')
    return calls
  }

  const lz4Batch = () => buildRecordBatch({ records: RECORDS, compression: CompressionType.Lz4 })

  it('on a compacted LogAppendTime topic whose compression.type rebuilds the batch', async () => {
    const policy = { ...CREATE_TIME, logAppendTime: true, requireKeys: true, compressionType: 'gzip' }
    assert.equal(await countDecodes(policy, lz4Batch()), 1)
  })

  it('on a compacted CreateTime topic with timestamp bounds', async () => {
    const policy = { ...CREATE_TIME, beforeMaxMs: 3_600_000, afterMaxMs: 3_600_000, requireKeys: true }
    assert.equal(await countDecodes(policy, lz4Batch()), 1)
  })

  it('and the once is needed: a plain topic still walks the compressed records', async () => {
    assert.equal(await countDecodes(CREATE_TIME, lz4Batch()), 1)
  })
})
