// kafkajs 2.2.4 (old, non-flexible protocol versions) against a real broker process: admin,
// produce at acks=1 and acks=-1, read back with kcat (kafkajs has no group-less consumer),
// ListOffsets earliest/latest/by timestamp, cluster metadata, delete.

import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Admin, Kafka, logLevel, Partitioners, type Producer } from 'kafkajs'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import {
  assertSameRecords,
  expectedByPartition,
  kcatConsumeAll,
  makeRecords,
  platformaticReadAll,
  type ProducedRecord,
  waitFor,
} from '../helpers/clients.js'

const TOPIC = 'it-kafkajs'
const PARTITIONS = 3
const COUNT = 10_000
const BATCH = 1_000
// Explicit CreateTime timestamps: record i gets BASE_TS + i.
const BASE_TS = Math.floor(Date.now() / 1000) * 1000 - 3_600_000

describe('kafkajs client', () => {
  let broker: BrokerProcess
  let kafka: Kafka
  let admin: Admin
  let producer: Producer
  const records: ProducedRecord[] = makeRecords({ count: COUNT, numPartitions: PARTITIONS, client: 'kafkajs', baseTimestamp: BASE_TS })

  before(async () => {
    broker = await startBrokerProcess()
    kafka = new Kafka({
      clientId: 'it-kafkajs',
      brokers: [broker.bootstrap],
      logLevel: logLevel.NOTHING,
      retry: { retries: 3, initialRetryTime: 100 },
    })
    admin = kafka.admin()
    await admin.connect()
  })

  after(async () => {
    await producer?.disconnect().catch(() => {})
    await admin?.disconnect().catch(() => {})
    await stopAndCheck(broker)
  })

  test('CreateTopics makes a 3-partition topic that Metadata reports', async () => {
    const created = await admin.createTopics({
      topics: [{ topic: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1 }],
      waitForLeaders: true,
    })
    assert.equal(created, true)
    const md = await admin.fetchTopicMetadata({ topics: [TOPIC] })
    assert.equal(md.topics.length, 1)
    assert.equal(md.topics[0]!.name, TOPIC)
    const parts = md.topics[0]!.partitions.slice().sort((a, b) => a.partitionId - b.partitionId)
    assert.deepEqual(
      parts.map((p) => p.partitionId),
      [0, 1, 2],
    )
    for (const p of parts) {
      assert.equal(p.partitionErrorCode, 0)
      assert.equal(p.leader, 0)
      assert.deepEqual(p.replicas, [0])
      assert.deepEqual(p.isr, [0])
    }
    assert.ok((await admin.listTopics()).includes(TOPIC))
  })

  test('produces 10,000 keyed records with headers, half at acks=1 and half at acks=-1', async () => {
    producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false })
    await producer.connect()
    const nextOffset = new Array<number>(PARTITIONS).fill(0)
    for (let start = 0; start < COUNT; start += BATCH) {
      const chunk = records.slice(start, start + BATCH)
      const acks = start < COUNT / 2 ? 1 : -1
      const meta = await producer.send({
        topic: TOPIC,
        acks,
        messages: chunk.map((r) => ({
          key: r.key,
          value: r.value,
          headers: Object.fromEntries(r.headers),
          timestamp: String(r.timestamp),
        })),
      })
      // One result per partition written; baseOffset continues where the previous send ended.
      const perPartition = expectedByPartition(chunk, PARTITIONS)
      const written = perPartition.map((rs, p) => ({ p, n: rs.length })).filter((x) => x.n > 0)
      assert.equal(meta.length, written.length, `send at ${start}: one result per partition`)
      for (const { p, n } of written) {
        const m = meta.find((x) => x.partition === p)
        assert.ok(m, `send at ${start}: result for partition ${p}`)
        assert.equal(m.topicName, TOPIC)
        assert.equal(m.errorCode, 0)
        assert.equal(Number(m.baseOffset), nextOffset[p], `send at ${start} acks=${acks}: baseOffset of partition ${p}`)
        nextOffset[p]! += n
      }
    }
    const counts = expectedByPartition(records, PARTITIONS).map((r) => r.length)
    assert.deepEqual(nextOffset, counts)
    for (const c of counts) assert.ok(c > 2000, `keys spread over all partitions (${counts})`)
  })

  test('reads every record back exactly once, in order, on the Java-partitioner partition (kcat)', async () => {
    const consumed = await kcatConsumeAll(broker.bootstrap, TOPIC)
    assertSameRecords(consumed, records, PARTITIONS)
  })

  test('@platformatic/kafka reads the same records (flexible Fetch by topic id)', async () => {
    const consumed = await platformaticReadAll(broker.bootstrap, TOPIC)
    assertSameRecords(consumed, records, PARTITIONS)
  })

  test('ListOffsets: earliest 0, latest = count per partition', async () => {
    const counts = expectedByPartition(records, PARTITIONS).map((r) => r.length)
    const offsets = (await admin.fetchTopicOffsets(TOPIC)).sort((a, b) => a.partition - b.partition)
    assert.equal(offsets.length, PARTITIONS)
    for (const o of offsets) {
      assert.equal(o.low, '0', `partition ${o.partition}: earliest`)
      assert.equal(o.high, String(counts[o.partition]), `partition ${o.partition}: latest`)
      assert.equal(o.offset, String(counts[o.partition]), `partition ${o.partition}: offset`)
    }
  })

  test('ListOffsets by timestamp returns the first offset with timestamp >= the target', async () => {
    const byPartition = expectedByPartition(records, PARTITIONS)
    for (const target of [
      BASE_TS - 1000,
      BASE_TS,
      BASE_TS + 1,
      BASE_TS + 4_999,
      BASE_TS + 5_000,
      BASE_TS + 9_990,
      BASE_TS + 9_999,
      BASE_TS + 20_000,
    ]) {
      const got = (await admin.fetchTopicOffsetsByTimestamp(TOPIC, target)).sort((a, b) => a.partition - b.partition)
      assert.equal(got.length, PARTITIONS)
      for (const g of got) {
        // No record at or after the target: the broker answers -1 and kafkajs substitutes the latest offset.
        const idx = byPartition[g.partition]!.findIndex((r) => r.timestamp >= target)
        const expected = idx === -1 ? byPartition[g.partition]!.length : idx
        assert.equal(g.offset, String(expected), `partition ${g.partition}, timestamp ${target - BASE_TS} after base`)
      }
    }
  })

  test('cluster description shows exactly one broker, which is the controller', async () => {
    const cluster = await admin.describeCluster()
    assert.equal(cluster.brokers.length, 1)
    assert.equal(cluster.brokers[0]!.nodeId, 0)
    assert.equal(cluster.brokers[0]!.host, broker.host)
    assert.equal(cluster.brokers[0]!.port, broker.port)
    assert.equal(cluster.controller, 0)
    assert.equal(typeof cluster.clusterId, 'string')
    assert.ok(cluster.clusterId.length > 0)
  })

  test('DeleteTopics removes the topic', async () => {
    await producer.disconnect()
    await admin.deleteTopics({ topics: [TOPIC], timeout: 10_000 })
    await waitFor(async () => !(await admin.listTopics()).includes(TOPIC), 'topic to disappear from the topic list')
    const md = await admin.fetchTopicMetadata({ topics: [] })
    assert.ok(!md.topics.some((t) => t.name === TOPIC), 'deleted topic absent from Metadata')
  })
})
