// @platformatic/kafka 1.x (flexible protocol versions only: Metadata ≥9, Produce ≥7, Fetch ≥12 by
// topic id, ListOffsets ≥5, DescribeCluster) against a real broker process. Reads back without a
// consumer group through Consumer.fetch, and cross-checks with kcat.

import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Admin, compatibilityPartitioner, ProduceAcks, type ProduceResult, Producer, stringSerializers } from '@platformatic/kafka'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import {
  assertSameRecords,
  expectedByPartition,
  kcatConsumeAll,
  makeRecords,
  platformaticDescribeCluster,
  platformaticReadAll,
  type ProducedRecord,
  waitFor,
} from '../helpers/clients.js'

const TOPIC = 'it-platformatic'
const PARTITIONS = 3
const COUNT = 10_000
const BATCH = 1_000
const BASE_TS = Math.floor(Date.now() / 1000) * 1000 - 3_600_000

describe('@platformatic/kafka client', () => {
  let broker: BrokerProcess
  let admin: Admin
  let producer: Producer<string, string, string, string> | undefined
  const records: ProducedRecord[] = makeRecords({
    count: COUNT,
    numPartitions: PARTITIONS,
    client: 'platformatic',
    baseTimestamp: BASE_TS,
  })

  before(async () => {
    broker = await startBrokerProcess()
    admin = new Admin({ clientId: 'it-platformatic-admin', bootstrapBrokers: [broker.bootstrap] })
  })

  after(async () => {
    await producer?.close().catch(() => {})
    await admin?.close().catch(() => {})
    await stopAndCheck(broker)
  })

  test('CreateTopics makes a 3-partition topic that Metadata reports', async () => {
    const created = await admin.createTopics({ topics: [TOPIC], partitions: PARTITIONS, replicas: 1 })
    assert.equal(created.length, 1)
    assert.equal(created[0]!.name, TOPIC)
    assert.equal(created[0]!.partitions, PARTITIONS)
    assert.equal(created[0]!.replicas, 1)
    assert.match(created[0]!.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    assert.notEqual(created[0]!.id, '00000000-0000-0000-0000-000000000000')

    const md = await admin.metadata({ topics: [TOPIC], forceUpdate: true })
    const t = md.topics.get(TOPIC)
    assert.ok(t)
    assert.equal(t.id, created[0]!.id, 'Metadata returns the topic id CreateTopics returned')
    assert.equal(t.partitionsCount, PARTITIONS)
    for (const p of t.partitions) {
      assert.equal(p.leader, 0)
      assert.deepEqual(p.replicas, [0])
      assert.deepEqual(p.isr, [0])
    }
    assert.ok((await admin.listTopics()).includes(TOPIC))
  })

  test('produces 10,000 keyed records with headers, half at acks=1 and half at acks=-1', async () => {
    producer = new Producer({
      clientId: 'it-platformatic-producer',
      bootstrapBrokers: [broker.bootstrap],
      serializers: stringSerializers,
      partitioner: compatibilityPartitioner,
      autocreateTopics: false,
    })
    const nextOffset = new Array<number>(PARTITIONS).fill(0)
    for (let start = 0; start < COUNT; start += BATCH) {
      const chunk = records.slice(start, start + BATCH)
      const acks = start < COUNT / 2 ? ProduceAcks.LEADER : ProduceAcks.ALL
      const res: ProduceResult = await producer.send({
        acks,
        messages: chunk.map((r) => ({
          topic: TOPIC,
          key: r.key,
          value: r.value,
          headers: new Map(r.headers),
          timestamp: BigInt(r.timestamp),
        })),
      })
      const perPartition = expectedByPartition(chunk, PARTITIONS)
      const offsets = res.offsets ?? []
      for (let p = 0; p < PARTITIONS; p++) {
        const n = perPartition[p]!.length
        if (n === 0) continue
        const o = offsets.find((x) => x.topic === TOPIC && x.partition === p)
        assert.ok(o, `send at ${start}: result for partition ${p}`)
        assert.equal(Number(o.offset), nextOffset[p], `send at ${start} acks=${acks}: baseOffset of partition ${p}`)
        nextOffset[p]! += n
      }
    }
    assert.deepEqual(
      nextOffset,
      expectedByPartition(records, PARTITIONS).map((r) => r.length),
    )
  })

  test('reads every record back exactly once, in order, on the Java-partitioner partition (Fetch by topic id, no group)', async () => {
    const consumed = await platformaticReadAll(broker.bootstrap, TOPIC)
    assertSameRecords(consumed, records, PARTITIONS)
  })

  test('kcat reads the same records (old Fetch versions)', async () => {
    const consumed = await kcatConsumeAll(broker.bootstrap, TOPIC)
    assertSameRecords(consumed, records, PARTITIONS)
  })

  test('ListOffsets: earliest 0, latest = count per partition, by timestamp, future timestamp → -1', async () => {
    const byPartition = expectedByPartition(records, PARTITIONS)
    const query = async (timestamp: bigint) => {
      const res = await admin.listOffsets({
        topics: [{ name: TOPIC, partitions: [0, 1, 2].map((partitionIndex) => ({ partitionIndex, timestamp })) }],
      })
      assert.equal(res.length, 1)
      assert.equal(res[0]!.name, TOPIC)
      return res[0]!.partitions.slice().sort((a, b) => a.partitionIndex - b.partitionIndex)
    }
    const earliest = await query(-2n)
    assert.deepEqual(
      earliest.map((p) => p.offset),
      [0n, 0n, 0n],
    )
    const latest = await query(-1n)
    assert.deepEqual(
      latest.map((p) => Number(p.offset)),
      byPartition.map((r) => r.length),
    )
    for (const delta of [-1000, 0, 1, 4_999, 5_000, 9_990, 9_999]) {
      const target = BASE_TS + delta
      const got = await query(BigInt(target))
      for (const g of got) {
        // The first record with timestamp >= target, or offset -1 / timestamp -1 when there is none.
        const idx = byPartition[g.partitionIndex]!.findIndex((r) => r.timestamp >= target)
        const where = `partition ${g.partitionIndex}, timestamp base${delta >= 0 ? '+' : ''}${delta}`
        assert.equal(Number(g.offset), idx, `${where}: offset`)
        assert.equal(
          Number(g.timestamp),
          idx === -1 ? -1 : byPartition[g.partitionIndex]![idx]!.timestamp,
          `${where}: timestamp of the found record`,
        )
      }
    }
    const future = await query(BigInt(BASE_TS + 10 * COUNT))
    for (const g of future) assert.equal(g.offset, -1n, `partition ${g.partitionIndex}: no record at or after a future timestamp`)
  })

  test('DescribeCluster and Metadata show exactly one broker', async () => {
    const dc = await platformaticDescribeCluster(broker.host, broker.port)
    assert.equal(dc.errorCode, 0)
    assert.equal(dc.brokers.length, 1)
    assert.equal(dc.brokers[0]!.brokerId, 0)
    assert.equal(dc.brokers[0]!.host, broker.host)
    assert.equal(dc.brokers[0]!.port, broker.port)
    assert.equal(dc.controllerId, 0)
    assert.ok(dc.clusterId.length > 0)

    const md = await admin.metadata({ topics: [], forceUpdate: true })
    assert.equal(md.brokers.size, 1)
    const b = md.brokers.get(0)
    assert.ok(b)
    assert.equal(b.host, broker.host)
    assert.equal(b.port, broker.port)
    assert.equal(md.id, dc.clusterId, 'Metadata and DescribeCluster agree on the cluster id')
  })

  test('an idempotent producer (InitProducerId, sequences) writes each record once', async () => {
    const topic = 'it-platformatic-idempotent'
    await admin.createTopics({ topics: [topic], partitions: PARTITIONS, replicas: 1 })
    const idem = new Producer({
      clientId: 'it-platformatic-idempotent',
      bootstrapBrokers: [broker.bootstrap],
      serializers: stringSerializers,
      partitioner: compatibilityPartitioner,
      autocreateTopics: false,
      idempotent: true,
    })
    const rs = makeRecords({ count: 600, numPartitions: PARTITIONS, client: 'idempotent', baseTimestamp: BASE_TS })
    try {
      for (let start = 0; start < rs.length; start += 100) {
        await idem.send({
          messages: rs.slice(start, start + 100).map((r) => ({
            topic,
            key: r.key,
            value: r.value,
            headers: new Map(r.headers),
            timestamp: BigInt(r.timestamp),
          })),
        })
      }
    } finally {
      await idem.close()
    }
    assertSameRecords(await platformaticReadAll(broker.bootstrap, topic), rs, PARTITIONS)
    const consumed = await kcatConsumeAll(broker.bootstrap, topic)
    assertSameRecords(consumed, rs, PARTITIONS)
    await admin.deleteTopics({ topics: [topic] })
  })

  test('DeleteTopics removes the topic', async () => {
    await producer?.close()
    producer = undefined
    await admin.deleteTopics({ topics: [TOPIC] })
    await waitFor(async () => !(await admin.listTopics()).includes(TOPIC), 'topic to disappear from the topic list')
  })
})
