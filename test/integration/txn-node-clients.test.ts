// Transactions through the two Node clients, against a broker process (test/interop/txn-broker.ts;
// TXN_TEST_BROKER=kafka runs the same file against Apache Kafka): kafkajs (the transaction protocol
// of Kafka 0.11–2.x: AddPartitionsToTxn/EndTxn v0–1, TxnOffsetCommit v0) and @platformatic/kafka
// (a consumer's offsets added with addConsumer/addOffset). Each commits transactions with records and
// consumer-group offsets and aborts one with both; then a third reader — kcat, librdkafka — sees with
// read_committed exactly the committed records and with read_uncommitted all of them, and the group's
// committed offsets are those of the committed transactions, never those of the aborted one.
// Missing kcat fails the file; it never skips.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Message, Consumer as PConsumer, Producer as PProducer, stringDeserializers, stringSerializers } from '@platformatic/kafka'
import { Kafka, logLevel } from 'kafkajs'
import { kcatConsumeAll, waitFor } from '../helpers/clients.js'
import { startTxnBroker, type TxnBroker } from '../interop/txn-broker.js'

const PARTITIONS = 3

/** Values read from every partition of the topic, kcat with the given isolation level, sorted. */
async function readValues(bootstrap: string, topic: string, isolation: 'read_committed' | 'read_uncommitted'): Promise<string[]> {
  const records = await kcatConsumeAll(bootstrap, topic, ['-X', `isolation.level=${isolation}`])
  return records.map((r) => r.value ?? '').sort()
}

const sorted = (xs: string[]) => [...xs].sort()

describe('Node clients: kafkajs and @platformatic/kafka transactions', () => {
  let broker: TxnBroker
  let kafka: Kafka

  before(async () => {
    broker = await startTxnBroker()
    kafka = new Kafka({ clientId: 'txn-node', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: ['kjs-src', 'kjs-out', 'pf-src', 'pf-out'].map((topic) => ({ topic, numPartitions: PARTITIONS, replicationFactor: 1 })),
      })
    } finally {
      await admin.disconnect()
    }
  })

  after(async () => {
    await broker?.stop()
  })

  /** The group's committed offset per partition of topic (-1: none). */
  async function groupOffsets(groupId: string, topic: string): Promise<number[]> {
    const admin = kafka.admin()
    await admin.connect()
    try {
      const [t] = await admin.fetchOffsets({ groupId, topics: [topic] })
      const out = new Array<number>(PARTITIONS).fill(-1)
      for (const p of t?.partitions ?? []) out[p.partition] = Number(p.offset)
      return out
    } finally {
      await admin.disconnect()
    }
  }

  test('kafkajs: send + sendOffsets + commit, and abort; read_committed sees only the committed', { timeout: 120_000 }, async () => {
    const plain = kafka.producer()
    await plain.connect()
    await plain.send({
      topic: 'kjs-src',
      messages: Array.from({ length: 90 }, (_, i) => ({ partition: i % PARTITIONS, value: `src-${i}` })),
    })
    await plain.disconnect()
    const producer = kafka.producer({ transactionalId: 'kjs-tx', idempotent: true, maxInFlightRequests: 1 })
    await producer.connect()
    const group = 'kjs-group'
    const batch = (tag: string) => Array.from({ length: 30 }, (_, i) => ({ partition: i % PARTITIONS, value: `${tag}-${i}` }))
    const offsets = (offset: number) => [
      { topic: 'kjs-src', partitions: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, offset: String(offset) })) },
    ]
    const committed: string[] = []
    const all: string[] = []
    // The group has no offsets yet (and its coordinator is ready: kafkajs does not retry a
    // TxnOffsetCommit answered NOT_COORDINATOR while __consumer_offsets is still being created).
    assert.deepEqual(await waitFor(() => groupOffsets(group, 'kjs-src'), 'the group coordinator', 30_000, 250), [-1, -1, -1])
    try {
      const t1 = await producer.transaction()
      await t1.send({ topic: 'kjs-out', messages: batch('commit1') })
      await t1.sendOffsets({ consumerGroupId: group, topics: offsets(10) })
      await t1.commit()
      committed.push(...batch('commit1').map((m) => m.value))

      const t2 = await producer.transaction()
      await t2.send({ topic: 'kjs-out', messages: batch('abort') })
      await t2.sendOffsets({ consumerGroupId: group, topics: offsets(30) })
      await t2.abort()
      all.push(...batch('abort').map((m) => m.value))

      // A transaction begins only once the previous one is complete (markers written everywhere,
      // __consumer_offsets included), so after this commit the abort's outcome is final.
      const t3 = await producer.transaction()
      await t3.send({ topic: 'kjs-out', messages: batch('commit2') })
      await t3.commit()
      committed.push(...batch('commit2').map((m) => m.value))
      all.push(...committed)
    } finally {
      await producer.disconnect()
    }
    const context = () => `broker (${broker.kind}) log tail:\n${broker.logTail()}`
    assert.deepEqual(await readValues(broker.bootstrap, 'kjs-out', 'read_committed'), sorted(committed), `read_committed: ${context()}`)
    assert.deepEqual(await readValues(broker.bootstrap, 'kjs-out', 'read_uncommitted'), sorted(all), `read_uncommitted: ${context()}`)
    assert.deepEqual(await groupOffsets(group, 'kjs-src'), [10, 10, 10], `the group's offsets (the aborted ones were 30): ${context()}`)
    assert.ok(broker.alive(), 'the broker died')
  })

  test('@platformatic/kafka: consume, send + addOffset + commit, and abort; read_committed sees only the committed', {
    timeout: 120_000,
  }, async () => {
    const plain = kafka.producer()
    await plain.connect()
    await plain.send({
      topic: 'pf-src',
      messages: Array.from({ length: 60 }, (_, i) => ({ partition: i % PARTITIONS, value: `src-${i}` })),
    })
    await plain.disconnect()
    const group = 'pf-group'
    const consumer = new PConsumer<string, string, string, string>({
      clientId: 'pf-txn-consumer',
      groupId: group,
      bootstrapBrokers: [broker.bootstrap],
      deserializers: stringDeserializers,
      autocommit: false,
      maxWaitTime: 200,
    })
    const producer = new PProducer<string, string, string, string>({
      clientId: 'pf-txn-producer',
      bootstrapBrokers: [broker.bootstrap],
      serializers: stringSerializers,
      idempotent: true,
      transactionalId: 'pf-tx',
      autocreateTopics: false,
    })
    const committed: string[] = []
    const all: string[] = []
    const wantOffsets = new Array<number>(PARTITIONS).fill(-1)
    try {
      const stream = await consumer.consume({ topics: ['pf-src'], mode: 'earliest', autocommit: false, maxWaitTime: 200 })
      const messages: Message<string, string, string, string>[] = []
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${messages.length} of 60 source records consumed in 60 s`)), 60_000)
        stream.on('data', (m: Message<string, string, string, string>) => {
          messages.push(m)
          if (messages.length === 60) {
            clearTimeout(timer)
            resolve()
          }
        })
        stream.on('error', reject)
      })
      await stream.close()
      // One transaction per third of the records: commit, abort, commit.
      for (const [i, outcome] of (['commit', 'abort', 'commit'] as const).entries()) {
        const part = messages.slice(i * 20, i * 20 + 20)
        const txn = await producer.beginTransaction()
        await txn.send({ messages: part.map((m) => ({ topic: 'pf-out', partition: m.partition, value: `out-${m.value}` })) })
        await txn.addConsumer(consumer)
        for (const m of part) await txn.addOffset(m)
        if (outcome === 'commit') {
          await txn.commit()
          committed.push(...part.map((m) => `out-${m.value}`))
          for (const m of part) wantOffsets[m.partition] = Math.max(wantOffsets[m.partition]!, Number(m.offset) + 1)
        } else await txn.abort()
        all.push(...part.map((m) => `out-${m.value}`))
      }
    } finally {
      await producer.close().catch(() => {})
      await consumer.close().catch(() => {})
    }
    const context = () => `broker (${broker.kind}) log tail:\n${broker.logTail()}`
    assert.deepEqual(await readValues(broker.bootstrap, 'pf-out', 'read_committed'), sorted(committed), `read_committed: ${context()}`)
    assert.deepEqual(await readValues(broker.bootstrap, 'pf-out', 'read_uncommitted'), sorted(all), `read_uncommitted: ${context()}`)
    // The consumer read the partitions in order, so the last committed transaction's offsets win. The
    // commit's markers reach __consumer_offsets after EndTxn is answered: wait for them a little.
    let seen: number[] = []
    await waitFor(
      async () => {
        seen = await groupOffsets(group, 'pf-src')
        return seen.every((o, p) => o === wantOffsets[p]) || undefined
      },
      "the committed transactions' offsets",
      15_000,
      250,
    ).catch(() => assert.deepEqual(seen, wantOffsets, `the group's offsets: ${context()}`))
    assert.ok(broker.alive(), 'the broker died')
  })
})
