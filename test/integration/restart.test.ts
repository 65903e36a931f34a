// Durability across restarts of a real broker process on the same data directory:
// a clean SIGTERM stop keeps everything; a kill -9 in the middle of a produce loop keeps every
// acknowledged record, with offsets contiguous from 0 and no offset duplicated.

import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs'
import { type BrokerProcess, makeTempDir, startBrokerProcess } from '../helpers/broker-process.js'
import { assertSameRecords, type ConsumedRecord, kcatConsumeAll, makeRecords, type ProducedRecord, sleep } from '../helpers/clients.js'

const TOPIC = 'it-restart'
const PARTITIONS = 3
const COUNT = 5_000
const BASE_TS = Math.floor(Date.now() / 1000) * 1000 - 3_600_000

function kafkaFor(broker: BrokerProcess, retries: number): Kafka {
  return new Kafka({
    clientId: 'it-restart',
    brokers: [broker.bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries, initialRetryTime: 100, maxRetryTime: 1000 },
    connectionTimeout: 3000,
    requestTimeout: 10_000,
  })
}

describe('restart', () => {
  const dir = makeTempDir('tributary-restart-')
  let broker: BrokerProcess | undefined
  const records: ProducedRecord[] = makeRecords({ count: COUNT, numPartitions: PARTITIONS, client: 'restart', baseTimestamp: BASE_TS })
  let phase1: ConsumedRecord[] = []

  before(async () => {
    broker = await startBrokerProcess({ dataDir: dir.path })
  })

  after(async () => {
    if (broker) {
      await broker.stop().catch(() => {})
      await broker.cleanup()
    }
    dir.remove()
  })

  test('produces 5,000 records at acks=-1, stops with SIGTERM (exit 0) and reads them back unchanged after restart', async () => {
    const kafka = kafkaFor(broker!, 3)
    const admin = kafka.admin()
    await admin.connect()
    assert.equal(
      await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true }),
      true,
    )
    await admin.disconnect()
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false })
    await producer.connect()
    for (let start = 0; start < COUNT; start += 500) {
      await producer.send({
        topic: TOPIC,
        acks: -1,
        messages: records.slice(start, start + 500).map((r) => ({
          key: r.key,
          value: r.value,
          headers: Object.fromEntries(r.headers),
          timestamp: String(r.timestamp),
        })),
      })
    }
    await producer.disconnect()
    const before = await kcatConsumeAll(broker!.bootstrap, TOPIC)
    assertSameRecords(before, records, PARTITIONS)

    const code = await broker!.stop()
    assert.equal(code, 0, `exit code after SIGTERM; stderr tail:\n${broker!.stderr().slice(-3000)}`)

    broker = await startBrokerProcess({ dataDir: dir.path })
    phase1 = await kcatConsumeAll(broker.bootstrap, TOPIC)
    assertSameRecords(phase1, records, PARTITIONS)
  })

  test('kill -9 during an acks=1 produce loop loses no acknowledged record', async (t) => {
    assert.equal(phase1.length, COUNT, 'previous test left the topic as expected')
    const kafka = kafkaFor(broker!, 0)
    const producer: Producer = kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
      retry: { retries: 0 },
    })
    await producer.connect()

    // LOOPS concurrent send loops (several Produce requests in flight at the kill); loop l sends
    // sequence numbers l * 1e6 + n, n increasing, so per-loop order can be checked per partition.
    const LOOPS = 3
    const BATCH = 20
    const acked = new Set<number>()
    const sentSeqs = new Set<number>()
    let loopError: unknown
    let stop = false
    const loops = Array.from({ length: LOOPS }, (_, l) =>
      (async () => {
        let n = 0
        while (!stop && loopError === undefined) {
          const batch = Array.from({ length: BATCH }, () => l * 1_000_000 + n++)
          for (const s of batch) sentSeqs.add(s)
          try {
            await producer.send({
              topic: TOPIC,
              acks: 1,
              messages: batch.map((s) => ({ key: `loop-key-${s}`, value: `loop-${s}`, headers: { seq: String(s) } })),
            })
          } catch (e) {
            if (!stop) loopError = e
            return
          }
          for (const s of batch) acked.add(s)
        }
      })(),
    )

    // Let the loops run for a while, then kill the broker without warning mid-produce.
    const deadline = Date.now() + 10_000
    while (acked.size < 3_000 && Date.now() < deadline && loopError === undefined) await sleep(5)
    assert.equal(loopError, undefined, `produce loop failed before the kill: ${String(loopError)}`)
    assert.ok(acked.size >= 3_000, `the loops got ${acked.size} acknowledgements before the kill`)
    stop = true
    await broker!.kill9()
    const ackedAtKill = acked.size
    await Promise.all(loops)
    await producer.disconnect().catch(() => {})

    broker = await startBrokerProcess({ dataDir: dir.path })
    const all = await kcatConsumeAll(broker.bootstrap, TOPIC)

    // Offsets contiguous from 0 on every partition; no offset twice.
    const byPartition: ConsumedRecord[][] = Array.from({ length: PARTITIONS }, () => [])
    for (const r of all) byPartition[r.partition]!.push(r)
    for (let p = 0; p < PARTITIONS; p++) {
      const offs = byPartition[p]!.map((r) => r.offset)
      const sorted = offs.slice().sort((a, b) => a - b)
      for (let i = 0; i < sorted.length; i++) assert.equal(sorted[i], i, `partition ${p}: offsets contiguous from 0, none repeated`)
    }

    // The first 5,000 records are untouched.
    const old = all.filter((r) => r.key?.startsWith('restart-key-'))
    assertSameRecords(old, records, PARTITIONS)

    // Every acknowledged loop record is there, at most once, in per-loop send order per partition.
    const loopRecords = all.filter((r) => r.key?.startsWith('loop-key-'))
    const seen = new Map<number, ConsumedRecord>()
    for (const r of loopRecords) {
      const seq = Number(r.value!.slice('loop-'.length))
      assert.equal(r.key, `loop-key-${seq}`)
      assert.deepEqual(r.headers, [['seq', String(seq)]])
      assert.ok(sentSeqs.has(seq), `record ${seq} was never sent`)
      assert.ok(!seen.has(seq), `loop record ${seq} appears twice (offsets ${seen.get(seq)?.offset} and ${r.offset})`)
      seen.set(seq, r)
    }
    const missing = [...acked].filter((s) => !seen.has(s))
    assert.deepEqual(missing.slice(0, 20), [], `${missing.length} of ${acked.size} acknowledged records lost after kill -9`)
    for (let p = 0; p < PARTITIONS; p++) {
      const inOrder = byPartition[p]!.filter((r) => r.key?.startsWith('loop-key-')).sort((a, b) => a.offset - b.offset)
      const last = new Map<number, number>()
      for (const r of inOrder) {
        const seq = Number(r.value!.slice('loop-'.length))
        const l = Math.floor(seq / 1_000_000)
        assert.ok(seq > (last.get(l) ?? -1), `partition ${p}: loop ${l} records in send order`)
        last.set(l, seq)
      }
    }
    t.diagnostic(
      `sent ${sentSeqs.size}, acknowledged ${ackedAtKill} at the kill (${acked.size} in total), found ${seen.size} after restart`,
    )

    // Broker restarted after a crash still serves new writes at the next offset.
    const producer2 = kafkaFor(broker, 3).producer({ createPartitioner: Partitioners.DefaultPartitioner })
    await producer2.connect()
    const res = await producer2.send({ topic: TOPIC, acks: -1, messages: [{ key: 'after-crash', value: 'x', partition: 0 }] })
    await producer2.disconnect()
    assert.equal(Number(res[0]!.baseOffset), byPartition[0]!.length, 'first offset after the crash recovery')

    const code = await broker.stop()
    assert.equal(code, 0, `exit code after SIGTERM; stderr tail:\n${broker.stderr().slice(-3000)}`)
  })
})
