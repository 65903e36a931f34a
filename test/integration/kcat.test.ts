// kcat (librdkafka) against a real broker process. The topic is auto-created by kcat's producer
// through Metadata (broker started with num.partitions=3); records are keyed and partitioned with
// librdkafka's Java-compatible murmur2 partitioner, read back with kcat and with @platformatic/kafka.

import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Admin } from '@platformatic/kafka'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import {
  assertSameRecords,
  expectedByPartition,
  kcatConsumeAll,
  kcatInput,
  kcatMetadata,
  kcatQueryOffsets,
  makeRecords,
  platformaticReadAll,
  type ProducedRecord,
  runKcat,
  sleep,
  waitFor,
} from '../helpers/clients.js'

const TOPIC = 'it-kcat'
const PARTITIONS = 3
const COUNT = 10_000
const HALF = COUNT / 2

describe('kcat (librdkafka) client', () => {
  let broker: BrokerProcess
  // Headers are the same for every record of one kcat invocation (-H): they carry the phase.
  const records: ProducedRecord[] = makeRecords({
    count: COUNT,
    numPartitions: PARTITIONS,
    client: 'kcat',
    baseTimestamp: 0,
    headers: (i) => [
      ['client', 'kcat'],
      ['phase', i < HALF ? 'acks1' : 'acksall'],
    ],
  })
  let tStart = 0
  let tMid = 0
  let tEnd = 0

  before(async () => {
    broker = await startBrokerProcess({ overrides: { 'num.partitions': String(PARTITIONS), 'auto.create.topics.enable': 'true' } })
  })

  after(async () => {
    await stopAndCheck(broker)
  })

  const produce = async (rs: ProducedRecord[], acks: string, phase: string) => {
    const res = await runKcat(
      [
        '-P',
        '-b',
        broker.bootstrap,
        '-t',
        TOPIC,
        '-K',
        '\t',
        '-H',
        'client=kcat',
        '-H',
        `phase=${phase}`,
        '-X',
        'topic.partitioner=murmur2_random',
        '-X',
        `acks=${acks}`,
        '-X',
        'linger.ms=5',
      ],
      kcatInput(rs),
    )
    assert.equal(res.code, 0, `kcat -P exit code; stderr:\n${res.stderr.slice(-3000)}`)
    assert.doesNotMatch(res.stderr, /Delivery failed|ERROR/i, 'kcat -P reports no delivery failure')
  }

  test('produces 5,000 records at acks=1, auto-creating a 3-partition topic', async () => {
    tStart = Date.now()
    await produce(records.slice(0, HALF), '1', 'acks1')
    await sleep(20)
    tMid = Date.now()
    await sleep(20)
    const md = await kcatMetadata(broker.bootstrap, TOPIC)
    const t = md.topics.find((x) => x.topic === TOPIC)
    assert.ok(t, 'auto-created topic in metadata')
    assert.equal(t.error, undefined, `topic error: ${t.error}`)
    assert.equal(t.partitions.length, PARTITIONS)
  })

  test('produces 5,000 more records at acks=all', async () => {
    await produce(records.slice(HALF), 'all', 'acksall')
    await sleep(20)
    tEnd = Date.now()
  })

  test('kcat reads every record back exactly once, in order, on the murmur2 partition', async () => {
    const consumed = await kcatConsumeAll(broker.bootstrap, TOPIC)
    assertSameRecords(consumed, records, PARTITIONS, false)
    // CreateTime stamps set by librdkafka: phase 1 before tMid, phase 2 after it.
    const bySeq = new Map(records.map((r) => [r.key, r.seq]))
    for (const c of consumed) {
      const seq = bySeq.get(c.key!)!
      if (seq < HALF) assert.ok(c.timestamp >= tStart && c.timestamp < tMid, `seq ${seq}: timestamp ${c.timestamp} in phase 1`)
      else assert.ok(c.timestamp > tMid && c.timestamp <= tEnd, `seq ${seq}: timestamp ${c.timestamp} in phase 2`)
    }
  })

  test('@platformatic/kafka reads the same records (Fetch by topic id)', async () => {
    const consumed = await platformaticReadAll(broker.bootstrap, TOPIC)
    assertSameRecords(consumed, records, PARTITIONS, false)
  })

  test('ListOffsets (kcat -Q): earliest 0, latest = count, by timestamp = first record of phase 2', async () => {
    const counts = expectedByPartition(records, PARTITIONS).map((r) => r.length)
    const phase1 = expectedByPartition(records.slice(0, HALF), PARTITIONS).map((r) => r.length)
    const parts = [0, 1, 2]
    const earliest = await kcatQueryOffsets(
      broker.bootstrap,
      TOPIC,
      parts.map((partition) => ({ partition, timestamp: -2 })),
    )
    const latest = await kcatQueryOffsets(
      broker.bootstrap,
      TOPIC,
      parts.map((partition) => ({ partition, timestamp: -1 })),
    )
    const mid = await kcatQueryOffsets(
      broker.bootstrap,
      TOPIC,
      parts.map((partition) => ({ partition, timestamp: tMid })),
    )
    const before = await kcatQueryOffsets(
      broker.bootstrap,
      TOPIC,
      parts.map((partition) => ({ partition, timestamp: tStart - 60_000 })),
    )
    for (const p of parts) {
      assert.equal(earliest.get(p), 0, `partition ${p}: earliest`)
      assert.equal(latest.get(p), counts[p], `partition ${p}: latest`)
      assert.equal(mid.get(p), phase1[p], `partition ${p}: first offset with timestamp >= tMid`)
      assert.equal(before.get(p), 0, `partition ${p}: timestamp before everything`)
    }
  })

  test('Metadata (kcat -L) shows one broker, the controller, leading all 3 partitions', async () => {
    const md = await kcatMetadata(broker.bootstrap)
    assert.equal(md.brokers.length, 1)
    assert.equal(md.brokers[0]!.id, 0)
    assert.equal(md.brokers[0]!.name, `${broker.host}:${broker.port}`)
    assert.equal(md.controllerid, 0)
    const t = md.topics.find((x) => x.topic === TOPIC)
    assert.ok(t)
    assert.deepEqual(t.partitions.map((p) => p.partition).sort(), [0, 1, 2])
    for (const p of t.partitions) {
      assert.equal(p.leader, 0)
      assert.equal(p.error, undefined)
    }
  })

  test('after DeleteTopics (admin client), kcat -L no longer lists the topic', async () => {
    const admin = new Admin({ clientId: 'it-kcat-admin', bootstrapBrokers: [broker.bootstrap] })
    try {
      await admin.deleteTopics({ topics: [TOPIC] })
    } finally {
      await admin.close()
    }
    await waitFor(
      async () => !(await kcatMetadata(broker.bootstrap)).topics.some((t) => t.topic === TOPIC),
      'kcat -L to stop listing the deleted topic',
    )
  })
})
