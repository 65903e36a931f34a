// Transactions end to end against a real broker process, with the two Node clients: kafkajs 2.2.4
// (transaction protocol v1: AddPartitionsToTxn v1, EndTxn v1, AddOffsetsToTxn + TxnOffsetCommit)
// and @platformatic/kafka (AddPartitionsToTxn v5, EndTxn v4). A committed transaction is seen by a
// read_committed consumer, an aborted one is not (a read_uncommitted consumer sees both: the
// records are in the log, the ABORT marker hides them); offsets sent to a transaction become the
// group's committed offsets only when it commits; a second producer with the same transactional id
// fences the first; after a restart the coordinator reloads `__transaction_state`, and the next
// producer of the id aborts the transaction the old one left open, so read_committed readers move on.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Producer as PlatformaticProducer } from '@platformatic/kafka'
import { type Admin, Kafka, logLevel } from 'kafkajs'
import { type BrokerProcess, makeTempDir, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { GROUP_BROKER_OVERRIDES } from '../helpers/groups.js'

const WAIT_MS = 30_000

describe('transactions: kafkajs and @platformatic/kafka', () => {
  let broker: BrokerProcess
  let kafka: Kafka
  let admin: Admin
  const dir = makeTempDir('tributary-it-txn-')

  const start = async () => {
    broker = await startBrokerProcess({ dataDir: dir.path, overrides: { ...GROUP_BROKER_OVERRIDES } })
    kafka = new Kafka({ clientId: 'it-txn', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    admin = kafka.admin()
    await admin.connect()
  }

  before(start)

  after(async () => {
    await admin?.disconnect().catch(() => {})
    await stopAndCheck(broker)
    dir.remove()
  })

  /** Every value of the topic's partition 0 a consumer of this isolation reads, once `last` has arrived. */
  async function consume(topic: string, readUncommitted: boolean, last: string): Promise<string[]> {
    const consumer = kafka.consumer({ groupId: `it-txn-read-${topic}-${readUncommitted}`, readUncommitted, maxWaitTimeInMs: 200 })
    const seen: string[] = []
    try {
      await consumer.connect()
      await consumer.subscribe({ topic, fromBeginning: true })
      let done!: () => void
      const arrived = new Promise<void>((resolve) => (done = resolve))
      await consumer.run({
        eachMessage: async ({ message }) => {
          const v = message.value?.toString() ?? ''
          seen.push(v)
          if (v === last) done()
        },
      })
      await Promise.race([
        arrived,
        new Promise((_, reject) => setTimeout(() => reject(new Error(`no ${last} after ${WAIT_MS} ms; saw ${seen.join(',')}`)), WAIT_MS)),
      ])
    } finally {
      await consumer.disconnect().catch(() => {})
    }
    return seen
  }

  test('kafkajs: a committed transaction is visible to read_committed, an aborted one is not', { timeout: 120_000 }, async () => {
    const topic = 'it-txn-kafkajs'
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] })
    const producer = kafka.producer({ transactionalId: 'it-txn-kafkajs', idempotent: true, maxInFlightRequests: 1 })
    await producer.connect()
    try {
      const t1 = await producer.transaction()
      await t1.send({ topic, messages: [{ value: 'a1' }, { value: 'a2' }] })
      await t1.commit()
      const t2 = await producer.transaction()
      await t2.send({ topic, messages: [{ value: 'b1' }] })
      await t2.abort()
      const t3 = await producer.transaction()
      await t3.send({ topic, messages: [{ value: 'c1' }] })
      await t3.commit()
    } finally {
      await producer.disconnect()
    }
    assert.deepEqual(await consume(topic, false, 'c1'), ['a1', 'a2', 'c1'])
    assert.deepEqual(await consume(topic, true, 'c1'), ['a1', 'a2', 'b1', 'c1'])
  })

  test('kafkajs: offsets sent to a transaction are committed with it, and not when it aborts', { timeout: 120_000 }, async () => {
    const topic = 'it-txn-offsets'
    const groupId = 'it-txn-eos-group'
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] })
    const producer = kafka.producer({ transactionalId: 'it-txn-offsets', idempotent: true, maxInFlightRequests: 1 })
    await producer.connect()
    const committed = async () => {
      const [t] = await admin.fetchOffsets({ groupId, topics: [topic] })
      return t!.partitions.find((p) => p.partition === 0)?.offset
    }
    try {
      const t1 = await producer.transaction()
      await t1.send({ topic, messages: [{ value: 'x' }] })
      await t1.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition: 0, offset: '5' }] }] })
      await t1.commit()
      assert.equal(await committed(), '5')
      const t2 = await producer.transaction()
      await t2.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition: 0, offset: '9' }] }] })
      await t2.abort()
      assert.equal(await committed(), '5')
    } finally {
      await producer.disconnect()
    }
  })

  test('kafkajs: a second producer with the same transactional id fences the first', { timeout: 120_000 }, async () => {
    const topic = 'it-txn-fence'
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] })
    const first = kafka.producer({ transactionalId: 'it-txn-fence', idempotent: true, maxInFlightRequests: 1, retry: { retries: 2 } })
    const second = kafka.producer({ transactionalId: 'it-txn-fence', idempotent: true, maxInFlightRequests: 1 })
    await first.connect()
    try {
      const t1 = await first.transaction()
      await t1.send({ topic, messages: [{ value: 'old-1' }] })
      await second.connect()
      // Initializing the second aborts the first's open transaction (after CONCURRENT_TRANSACTIONS retries).
      const t2 = await second.transaction()
      await t2.send({ topic, messages: [{ value: 'new-1' }] })
      await t2.commit()
      await assert.rejects(async () => {
        await t1.send({ topic, messages: [{ value: 'old-2' }] })
        await t1.commit()
      })
    } finally {
      await first.disconnect().catch(() => {})
      await second.disconnect().catch(() => {})
    }
    assert.deepEqual(await consume(topic, false, 'new-1'), ['new-1'])
  })

  test('@platformatic/kafka: commit visible, abort not, to a read_committed consumer', { timeout: 120_000 }, async () => {
    const topic = 'it-txn-platformatic'
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] })
    const producer = new PlatformaticProducer({
      clientId: 'it-txn-pl',
      bootstrapBrokers: [broker.bootstrap],
      transactionalId: 'it-txn-pl',
      idempotent: true,
    })
    try {
      for (const [values, commit] of [
        [['p1', 'p2'], true],
        [['q1'], false],
        [['r1'], true],
      ] as const) {
        const txn = await producer.beginTransaction()
        await txn.send({ messages: values.map((v) => ({ topic, partition: 0, value: Buffer.from(v) })) })
        if (commit) await txn.commit()
        else await txn.abort()
      }
    } finally {
      await producer.close()
    }
    assert.deepEqual(await consume(topic, false, 'r1'), ['p1', 'p2', 'r1'])
    assert.deepEqual(await consume(topic, true, 'r1'), ['p1', 'p2', 'q1', 'r1'])
  })

  test('kafkajs: after a restart, the next producer of the id aborts the open transaction the old one left', {
    timeout: 120_000,
  }, async () => {
    const topic = 'it-txn-restart'
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] })
    const old = kafka.producer({ transactionalId: 'it-txn-restart', idempotent: true, maxInFlightRequests: 1 })
    await old.connect()
    const done = await old.transaction()
    await done.send({ topic, messages: [{ value: 'before' }] })
    await done.commit()
    const open = await old.transaction()
    await open.send({ topic, messages: [{ value: 'left-open' }] })
    await old.disconnect()
    await admin.disconnect()
    assert.equal(await broker.stop(), 0)
    await start()
    const next = kafka.producer({ transactionalId: 'it-txn-restart', idempotent: true, maxInFlightRequests: 1 })
    await next.connect()
    try {
      const t = await next.transaction()
      await t.send({ topic, messages: [{ value: 'after' }] })
      await t.commit()
    } finally {
      await next.disconnect()
    }
    assert.deepEqual(await consume(topic, false, 'after'), ['before', 'after'])
  })
})
