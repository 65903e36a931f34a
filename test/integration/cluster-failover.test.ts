// Replication and failover across three broker processes over etcd (test/helpers/cluster.ts), with
// replication factor 3 and min.insync.replicas=2:
// - two producers at acks=all (kafkajs, and librdkafka through confluent-kafka) write while the
//   partition leader is killed with kill -9 five times in a row, restarted each time; afterwards
//   every acknowledged record sits at its acknowledged offset on every replica, the replicas are
//   byte-identical up to the high watermark, and no offset holds two different records;
// - a leader paused with SIGSTOP past the session timeout answers the produce requests it finds on
//   resuming with NOT_LEADER_OR_FOLLOWER: it acknowledges nothing after losing leadership;
// - with one broker left, acks=all is refused with NOT_ENOUGH_REPLICAS (acks=1 still works).
// Measured on the way (printed): the time from each kill to the next acknowledged write.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { KafkaClient } from '../../src/client/client.js'
import { createTopics } from '../../src/client/admin.js'
import { ProduceRequest, ProduceResponse } from '../../src/protocol/messages/00-produce.js'
import { ErrorCode } from '../../src/protocol/errors.js'
import { buildRecordBatch } from '../../src/protocol/records/builder.js'
import {
  type AckedRecord,
  type Cluster,
  compareReplicas,
  type LogBatch,
  offsetConflicts,
  readPartitionLog,
  recordsOf,
  startCluster,
  startProducer,
  waitFor,
} from '../helpers/cluster.js'

const WAIT_MS = 60_000
const KILLS = 5

const codeName = (code: number) => Object.entries(ErrorCode).find(([, v]) => v.code === code)?.[0] ?? String(code)

/** Sends one Produce of one record straight to a broker; resolves with the partition's error name. */
async function produceTo(client: KafkaClient, nodeId: number, topic: string, acks: number, value: string): Promise<string> {
  const res = await client.request(
    ProduceRequest,
    ProduceResponse,
    {
      transactionalId: null,
      acks,
      timeoutMs: 5000,
      topicData: [
        { name: topic, partitionData: [{ index: 0, records: buildRecordBatch({ records: [{ key: null, value: Buffer.from(value) }] }) }] },
      ],
    },
    { nodeId, timeoutMs: 30_000, maxVersion: 12 }, // by topic name (v13 names topics by id)
  )
  return codeName(res.responses[0]!.partitionResponses[0]!.errorCode)
}

async function createTopic(c: Cluster, topic: string, partitions: number): Promise<void> {
  const client = await KafkaClient.connect({ bootstrap: c.bootstrap().split(',') })
  try {
    await createTopics(client, [{ name: topic, numPartitions: partitions, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }])
  } finally {
    await client.close()
  }
  await waitFor(async () => (await c.partitionState(topic, 0)).leader > 0 || undefined, `${topic} has a leader`, WAIT_MS)
}

/** Waits until every replica of every partition is back in the ISR. */
async function waitForFullIsr(c: Cluster, topic: string, partitions: number): Promise<void> {
  for (let p = 0; p < partitions; p++) {
    await waitFor(
      async () => ((await c.partitionState(topic, p)).isr.length === 3 ? true : undefined),
      `${topic}-${p} ISR back to 3`,
      WAIT_MS,
    )
  }
}

describe('replication factor 3: leader killed five times under acks=all producers', () => {
  let c: Cluster
  const topic = 'failover'
  const partitions = 2

  before(async () => {
    c = await startCluster({ brokers: 3, overrides: { 'replica.lag.time.max.ms': '10000' } })
    await createTopic(c, topic, partitions)
  })

  after(async () => {
    await c?.close()
  })

  it('loses no acknowledged record and leaves byte-identical replicas', async () => {
    const producers = await Promise.all([
      startProducer({ bootstrap: c.bootstrap(), topic, client: 'kafkajs', batchSize: 5 }),
      startProducer({ bootstrap: c.bootstrap(), topic, client: 'librdkafka', batchSize: 5 }),
    ])
    const acked = () => producers.reduce((n, p) => n + p.progress().acked, 0)
    await waitFor(async () => (acked() >= 200 ? true : undefined), 'first writes acknowledged', WAIT_MS)

    const failoverMs: number[] = []
    for (let k = 0; k < KILLS; k++) {
      const leader = await c.leaderOf(topic, 0)
      const before = acked()
      const killedAt = performance.now()
      await c.kill9(leader)
      // The first write acknowledged after the kill (any partition; partition 0 moved leader).
      await waitFor(async () => (acked() > before + 10 ? true : undefined), 'writes acknowledged after the kill', WAIT_MS)
      failoverMs.push(Math.round(performance.now() - killedAt))
      await waitFor(
        async () => {
          const s = await c.partitionState(topic, 0)
          return s.leader > 0 && s.leader !== leader ? true : undefined
        },
        'a new leader for partition 0',
        WAIT_MS,
      )
      await c.restart(leader)
      await waitForFullIsr(c, topic, partitions)
    }
    console.log(`kill -9 of the leader to acknowledged writes again (ms): ${failoverMs.join(', ')}`)

    const results = await Promise.all(producers.map((p) => p.stop()))
    const all: AckedRecord[] = results.flatMap((r) => r.acked)
    assert.ok(all.length > 400, `enough writes acknowledged (${all.length})`)
    await waitForFullIsr(c, topic, partitions)
    // Followers catch up to the leader's log end; then stop everyone cleanly and read the files.
    await waitFor(
      async () => {
        const views = await Promise.all(c.liveIds().map((id) => c.metadataFrom(id, [topic])))
        return views.length === 3 ? true : undefined
      },
      'all brokers answer',
      WAIT_MS,
    )
    await new Promise((r) => setTimeout(r, 2000))
    for (const id of c.liveIds()) await c.stop(id)

    for (let p = 0; p < partitions; p++) {
      const logs = new Map<number, LogBatch[]>()
      for (const id of c.ids()) logs.set(id, readPartitionLog(c.dataDir(id), topic, p))
      const ends = [...logs.values()].map((bs) => (bs.length === 0 ? 0 : bs[bs.length - 1]!.lastOffset + 1))
      const upTo = Math.min(...ends)
      const diff = compareReplicas(logs, upTo)
      assert.equal(diff, null, `partition ${p}: replicas differ below ${upTo}: ${diff}`)
      assert.deepEqual(offsetConflicts(logs), [], `partition ${p}: an offset holds two different records`)
      const mine = all.filter((a) => a.partition === p)
      for (const [id, batches] of logs) {
        const byOffset = new Map(recordsOf(batches).map((r) => [r.offset, r.value]))
        const missing = mine.filter((a) => byOffset.get(a.offset) !== a.value)
        assert.deepEqual(
          missing.slice(0, 5),
          [],
          `broker ${id}, partition ${p}: ${missing.length} acknowledged records missing or different`,
        )
      }
      // Each acknowledged value was acknowledged at one offset only.
      const offsets = new Set(mine.map((a) => a.offset))
      assert.equal(offsets.size, mine.length, `partition ${p}: two acknowledgements name the same offset`)
    }
  })
})

describe('fencing: a paused leader, and too few replicas', () => {
  let c: Cluster
  const topic = 'fenced'

  before(async () => {
    c = await startCluster({ brokers: 3 })
    await createTopic(c, topic, 1)
  })

  after(async () => {
    await c?.close()
  })

  it('a leader resumed after SIGSTOP past the session timeout acknowledges nothing', async () => {
    const client = await KafkaClient.connect({ bootstrap: c.bootstrap().split(',') })
    try {
      await client.metadata([topic], { refresh: true })
      const leader = await c.leaderOf(topic, 0)
      // The new partition's leader takes up its role a moment after Metadata names it.
      await waitFor(
        async () => ((await produceTo(client, leader, topic, -1, 'before')) === 'NONE' ? true : undefined),
        'a first write',
        WAIT_MS,
      )
      await client.connection(leader) // opened before the pause
      c.pause(leader)
      await waitFor(
        async () => {
          const s = await c.partitionState(topic, 0, { via: c.liveIds()[0]! })
          return s.leader > 0 && s.leader !== leader ? true : undefined
        },
        'another broker leads',
        WAIT_MS,
      )
      // Sent while the old leader is stopped; read by it when it resumes.
      const answers = Promise.all([produceTo(client, leader, topic, 1, 'late-1'), produceTo(client, leader, topic, -1, 'late-all')])
      await new Promise((r) => setTimeout(r, 200))
      c.resume(leader)
      const [acks1, acksAll] = await answers
      assert.equal(acks1, 'NOT_LEADER_OR_FOLLOWER')
      assert.equal(acksAll, 'NOT_LEADER_OR_FOLLOWER')
    } finally {
      await client.close()
    }
  })

  it('with one broker left, acks=all gets NOT_ENOUGH_REPLICAS and acks=1 still succeeds', async () => {
    await waitForFullIsr(c, topic, 1)
    const leader = await c.leaderOf(topic, 0)
    for (const id of c.liveIds()) if (id !== leader) await c.kill9(id)
    const client = await KafkaClient.connect({ bootstrap: [c.broker(leader).bootstrap] })
    try {
      await waitFor(
        async () => ((await c.partitionState(topic, 0, { via: leader })).isr.length === 1 ? true : undefined),
        'the ISR shrinks to the leader',
        WAIT_MS,
      )
      await client.metadata([topic], { refresh: true })
      assert.equal(await produceTo(client, leader, topic, -1, 'alone'), 'NOT_ENOUGH_REPLICAS')
      assert.equal(await produceTo(client, leader, topic, 1, 'alone-1'), 'NONE')
    } finally {
      await client.close()
    }
  })
})
