// Idempotent producers over the wire (raw Produce requests against an in-process broker): a batch
// sent twice with the same producer id / epoch / sequence is answered both times with its original
// base offset and stored once — also after a restart (producer snapshots); out-of-order sequences
// and fenced epochs get Kafka's error codes.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { type RunningBroker, startBroker } from '../../src/index.js'
import { ProduceRequest, ProduceResponse } from '../../src/protocol/messages/00-produce.js'
import { FetchRequest, FetchResponse } from '../../src/protocol/messages/01-fetch.js'
import { CreateTopicsRequest, CreateTopicsResponse } from '../../src/protocol/messages/19-create-topics.js'
import { buildRecordBatch } from '../../src/protocol/records/builder.js'
import { iterateBatches } from '../../src/protocol/records/iterator.js'
import { RawClient } from '../helpers/clients.js'

function idem(pid: number, epoch: number, seq: number, values: string[]): Buffer {
  const ts = Date.now()
  return buildRecordBatch({
    baseTimestamp: ts,
    producerId: pid,
    producerEpoch: epoch,
    baseSequence: seq,
    records: values.map((v, i) => ({ key: null, value: Buffer.from(v), timestamp: ts + i })),
  })
}

describe('idempotent Produce', () => {
  let dataDir: string
  let broker: RunningBroker
  let c: RawClient

  const start = async () => {
    broker = await startBroker({ port: 0, dataDir })
    c = await RawClient.connect(broker.host, broker.port)
  }
  const stop = async () => {
    c?.close()
    await broker?.close()
  }

  const produce = async (topic: string, records: Buffer) => {
    const res = await c.request(ProduceRequest, ProduceResponse, 9, {
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
    })
    return res.responses[0]!.partitionResponses[0]!
  }

  const batchesOf = async (topic: string) => {
    const res = await c.request(FetchRequest, FetchResponse, 4, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 10_000_000,
      isolationLevel: 0,
      topics: [{ topic, partitions: [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 10_000_000 }] }],
    })
    const p = res.responses[0]!.partitions[0]!
    assert.equal(p.errorCode, 0)
    return [...iterateBatches(p.records!)].map((h) => ({ baseOffset: h.baseOffset, producerId: h.producerId, seq: h.baseSequence }))
  }

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tributary-idem-'))
    await start()
    const res = await c.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [{ name: 'idem', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 5000,
    })
    assert.equal(res.topics[0]!.errorCode, 0)
  })

  after(async () => {
    await stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  test('a duplicate is answered with the original base offset and stored once', async () => {
    const first = await produce('idem', idem(1000, 0, 0, ['a', 'b', 'c']))
    assert.equal(first.errorCode, 0)
    assert.equal(first.baseOffset, 0)
    const next = await produce('idem', idem(1000, 0, 3, ['d']))
    assert.equal(next.baseOffset, 3)
    const again = await produce('idem', idem(1000, 0, 0, ['a', 'b', 'c']))
    assert.equal(again.errorCode, 0, 'a retry is a success')
    assert.equal(again.baseOffset, 0, 'with the offset the batch got the first time')
    assert.equal(again.logStartOffset, 0)
    assert.deepEqual(await batchesOf('idem'), [
      { baseOffset: 0, producerId: 1000, seq: 0 },
      { baseOffset: 3, producerId: 1000, seq: 3 },
    ])
  })

  test('a gap in the sequence is OUT_OF_ORDER_SEQUENCE_NUMBER (45), an older epoch INVALID_PRODUCER_EPOCH (47)', async () => {
    assert.equal((await produce('idem', idem(1000, 0, 9, ['x']))).errorCode, 45)
    assert.equal((await produce('idem', idem(1000, 1, 4, ['x']))).errorCode, 45, 'a new epoch starts at 0')
    assert.equal((await produce('idem', idem(1000, 1, 0, ['e']))).baseOffset, 4, 'KIP-360 epoch bump')
    assert.equal((await produce('idem', idem(1000, 0, 4, ['x']))).errorCode, 47)
    assert.equal((await batchesOf('idem')).length, 3, 'nothing refused was stored')
  })

  test('after a restart the retry of the last batch is still recognised (producer snapshot)', async () => {
    await stop()
    await start()
    const again = await produce('idem', idem(1000, 1, 0, ['e']))
    assert.equal(again.errorCode, 0)
    assert.equal(again.baseOffset, 4)
    assert.equal((await produce('idem', idem(1000, 1, 1, ['f']))).baseOffset, 5)
    assert.equal((await batchesOf('idem')).length, 4)
  })
})
