// Idempotent producers across a failover (three broker processes over etcd, test/helpers/cluster.ts):
// the followers build the producer state from the batches they copy, so after the leader is killed
// with kill -9 the new leader answers a retry of a batch the old leader wrote with its original
// offset and stores nothing, and takes the producer's next sequence.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { ListOffsetsRequest, ListOffsetsResponse } from '../../src/protocol/messages/02-list-offsets.js'
import { ProduceRequest, ProduceResponse } from '../../src/protocol/messages/00-produce.js'
import { buildRecordBatch } from '../../src/protocol/records/builder.js'
import { type Cluster, startCluster, waitFor } from '../helpers/cluster.js'

const WAIT_MS = 60_000
const TOPIC = 'idem-failover'

function idem(seq: number, values: string[]): Buffer {
  const ts = Date.now()
  return buildRecordBatch({
    baseTimestamp: ts,
    producerId: 4242,
    producerEpoch: 0,
    baseSequence: seq,
    records: values.map((v, i) => ({ key: null, value: Buffer.from(v), timestamp: ts + i })),
  })
}

describe('idempotent producer across a leader failover', () => {
  let c: Cluster
  let client: KafkaClient

  before(async () => {
    c = await startCluster({ brokers: 3 })
    client = await KafkaClient.connect({ bootstrap: c.bootstrap().split(',') })
    await createTopics(client, [{ name: TOPIC, numPartitions: 1, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }])
    await waitFor(async () => ((await c.partitionState(TOPIC, 0)).isr.length === 3 ? true : undefined), 'ISR of 3', WAIT_MS)
  })

  after(async () => {
    await client?.close()
    await c?.close()
  })

  const produceTo = async (nodeId: number, records: Buffer) => {
    const res = await client.request(
      ProduceRequest,
      ProduceResponse,
      { transactionalId: null, acks: -1, timeoutMs: 10_000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] },
      { nodeId, timeoutMs: 30_000, maxVersion: 12 },
    )
    return res.responses[0]!.partitionResponses[0]!
  }

  const endOffset = async (nodeId: number) => {
    const res = await client.request(
      ListOffsetsRequest,
      ListOffsetsResponse,
      {
        replicaId: -1,
        isolationLevel: 0,
        topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }],
      },
      { nodeId, timeoutMs: 30_000 },
    )
    return res.topics[0]!.partitions[0]!.offset
  }

  it('the new leader answers a retry of the old leader batch with its original offset', async () => {
    const leader = await c.leaderOf(TOPIC, 0)
    // The leader the metadata names may not know it leads yet: the first batch is retried as a
    // client retries it (the same sequence, so it is stored once).
    const first = await waitFor(
      async () => {
        const r = await produceTo(leader, idem(0, ['a', 'b', 'c']))
        return r.errorCode === 0 ? r : undefined
      },
      'the first batch accepted by the leader',
      WAIT_MS,
    )
    assert.equal(first.baseOffset, 0)
    const second = await produceTo(leader, idem(3, ['d', 'e']))
    assert.equal(second.errorCode, 0)
    assert.equal(second.baseOffset, 3)

    await c.kill9(leader)
    const next = await waitFor(
      async () => {
        const s = await c.partitionState(TOPIC, 0)
        return s.leader > 0 && s.leader !== leader ? s.leader : undefined
      },
      'a new leader',
      WAIT_MS,
    )
    // The retry may first meet a broker that does not know it leads yet: retry as a client does.
    const retry = await waitFor(
      async () => {
        const r = await produceTo(next, idem(3, ['d', 'e']))
        return r.errorCode === 0 ? r : undefined
      },
      'the retry accepted by the new leader',
      WAIT_MS,
    )
    assert.equal(retry.baseOffset, 3, 'the offset the old leader gave it')
    assert.equal(await endOffset(next), 5, 'nothing appended for the retry')
    assert.equal((await produceTo(next, idem(0, ['a', 'b', 'c']))).baseOffset, 0, 'an older retry too')
    assert.equal((await produceTo(next, idem(7, ['x']))).errorCode, 45, 'a gap is out of order')
    assert.equal((await produceTo(next, idem(5, ['f']))).baseOffset, 5, 'the next sequence goes on')
  })
})
