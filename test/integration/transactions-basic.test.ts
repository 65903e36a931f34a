// Transactions end to end against a real broker process, with the two Node clients: kafkajs 2.2.4
// (transaction protocol v1: AddPartitionsToTxn v1, EndTxn v1, AddOffsetsToTxn + TxnOffsetCommit)
// and @platformatic/kafka (AddPartitionsToTxn v5, EndTxn v4), and transaction protocol v2 on the wire
// (raw requests). A committed transaction is seen by a
// read_committed consumer, an aborted one is not (a read_uncommitted consumer sees both: the
// records are in the log, the ABORT marker hides them); offsets sent to a transaction become the
// group's committed offsets only when it commits; a second producer with the same transactional id
// fences the first; a transaction open past its timeout is aborted by the coordinator; after a restart the coordinator reloads `__transaction_state`, and the next
// producer of the id aborts the transaction the old one left open, so read_committed readers move on.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Producer as PlatformaticProducer } from '@platformatic/kafka'
import { type Admin, Kafka, logLevel } from 'kafkajs'
import { type BrokerProcess, makeTempDir, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { GROUP_BROKER_OVERRIDES } from '../helpers/groups.js'
import { RawClient } from '../helpers/clients.js'
import { type RunningBroker, startBroker } from '../../src/index.js'
import { ErrorCode } from '../../src/protocol/errors.js'
import { ProduceRequest, ProduceResponse } from '../../src/protocol/messages/00-produce.js'
import { FetchRequest, FetchResponse, type FetchResponseData } from '../../src/protocol/messages/01-fetch.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../src/protocol/messages/10-find-coordinator.js'
import { CreateTopicsRequest, CreateTopicsResponse } from '../../src/protocol/messages/19-create-topics.js'
import { InitProducerIdRequest, InitProducerIdResponse } from '../../src/protocol/messages/22-init-producer-id.js'
import { EndTxnRequest, EndTxnResponse } from '../../src/protocol/messages/26-end-txn.js'
import { buildRecordBatch } from '../../src/protocol/records/builder.js'
import { iterateBatches } from '../../src/protocol/records/iterator.js'

const WAIT_MS = 30_000

describe('transactions: kafkajs and @platformatic/kafka', () => {
  let broker: BrokerProcess
  let kafka: Kafka
  let admin: Admin
  const dir = makeTempDir('tributary-it-txn-')

  const start = async () => {
    broker = await startBrokerProcess({
      dataDir: dir.path,
      overrides: { ...GROUP_BROKER_OVERRIDES, 'transaction.abort.timed.out.transaction.cleanup.interval.ms': '500' },
    })
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

  test('kafkajs: a transaction open longer than its timeout is aborted by the coordinator and its producer fenced', {
    timeout: 120_000,
  }, async () => {
    const topic = 'it-txn-timeout'
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] })
    const slow = kafka.producer({
      transactionalId: 'it-txn-timeout',
      idempotent: true,
      maxInFlightRequests: 1,
      transactionTimeout: 1000,
      retry: { retries: 1 },
    })
    await slow.connect()
    try {
      const t = await slow.transaction()
      await t.send({ topic, messages: [{ value: 'too-slow' }] })
      await new Promise((resolve) => setTimeout(resolve, 3000))
      await assert.rejects(t.commit())
    } finally {
      await slow.disconnect().catch(() => {})
    }
    const next = kafka.producer({ transactionalId: 'it-txn-timeout', idempotent: true, maxInFlightRequests: 1 })
    await next.connect()
    try {
      const t = await next.transaction()
      await t.send({ topic, messages: [{ value: 'in-time' }] })
      await t.commit()
    } finally {
      await next.disconnect()
    }
    assert.deepEqual(await consume(topic, false, 'in-time'), ['in-time'])
    assert.deepEqual(await consume(topic, true, 'in-time'), ['too-slow', 'in-time'])
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

// Transaction protocol v2 (KIP-890) on the wire, as the Java 4 client speaks it once
// transaction.version 2 is finalized: Produce v12 adds the partition implicitly (no
// AddPartitionsToTxn), EndTxn v5 answers the epoch of the next transaction, and a delayed write of
// a finished transaction's epoch cannot slip into the next one (Jepsen's TV1 finding).
describe('transactions v2 over the wire', () => {
  let broker: RunningBroker
  let c: RawClient
  const TOPIC = 'it-tv2'
  const ID = 'it-tv2-tx'

  before(async () => {
    broker = await startBroker({ storage: 'memory' })
    c = await RawClient.connect(broker.host, broker.port)
    const created = await c.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 5000,
    })
    assert.equal(created.topics[0]!.errorCode, 0)
  })

  after(async () => {
    c?.close()
    await broker?.close()
  })

  /** Retries while the coordinator is being created or loaded, as clients do. */
  async function retrying<T extends { errorCode: number }>(call: () => Promise<T>): Promise<T> {
    for (let i = 0; ; i++) {
      const r = await call()
      const retriable = [
        ErrorCode.COORDINATOR_NOT_AVAILABLE.code,
        ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code,
        ErrorCode.NOT_COORDINATOR.code,
      ]
      if (!retriable.includes(r.errorCode) || i > 100) return r
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  const produce = async (epoch: number, seq: number, value: string) => {
    const records = buildRecordBatch({
      records: [{ key: null, value: Buffer.from(value) }],
      producerId: pid,
      producerEpoch: epoch,
      baseSequence: seq,
      attributes: 0x10,
      baseTimestamp: Date.now(),
    })
    const res = await c.request(ProduceRequest, ProduceResponse, 12, {
      transactionalId: ID,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }],
    })
    return res.responses[0]!.partitionResponses[0]!.errorCode
  }
  const endTxn = (epoch: number, committed: boolean) =>
    c.request(EndTxnRequest, EndTxnResponse, 5, { transactionalId: ID, producerId: pid, producerEpoch: epoch, committed })
  let pid = -1

  test('Produce v12 adds the partition, EndTxn v5 bumps the epoch, an old epoch is refused, read_committed hides the abort', async () => {
    const found = await retrying(async () => {
      const r = await c.request(FindCoordinatorRequest, FindCoordinatorResponse, 4, { keyType: 1, coordinatorKeys: [ID] })
      return r.coordinators[0]!
    })
    assert.equal(found.errorCode, 0)
    const init = await retrying(() =>
      c.request(InitProducerIdRequest, InitProducerIdResponse, 5, {
        transactionalId: ID,
        transactionTimeoutMs: 60_000,
        producerId: -1,
        producerEpoch: -1,
      }),
    )
    assert.equal(init.errorCode, 0)
    pid = init.producerId
    const e0 = init.producerEpoch

    assert.equal(await produce(e0, 0, 'x1'), 0)
    const first = await endTxn(e0, true)
    assert.deepEqual([first.errorCode, first.producerId, first.producerEpoch], [0, pid, e0 + 1])

    // A write of the finished transaction arriving late is fenced, not added to the next one.
    assert.equal(await produce(e0, 1, 'late'), ErrorCode.INVALID_PRODUCER_EPOCH.code)

    assert.equal(await produce(e0 + 1, 0, 'y1'), 0)
    const second = await endTxn(e0 + 1, false)
    assert.deepEqual([second.errorCode, second.producerEpoch], [0, e0 + 2])
    // Its retry (the epoch before the bump) is answered as done, with the current epoch.
    const retried = await endTxn(e0 + 1, false)
    assert.deepEqual([retried.errorCode, retried.producerEpoch], [0, e0 + 2])

    // x1 @0, COMMIT @1, y1 @2, ABORT @3: committed reads see all four, with y1's transaction aborted.
    let part: FetchResponseData['responses'][number]['partitions'][number] | undefined
    for (let i = 0; i < 100; i++) {
      const res = await c.request(FetchRequest, FetchResponse, 11, {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        isolationLevel: 1,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [
          {
            topic: TOPIC,
            partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1 << 20 }],
          },
        ],
        forgottenTopicsData: [],
        rackId: '',
      })
      part = res.responses[0]!.partitions[0]!
      if (part.lastStableOffset === 4) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.equal(part!.errorCode, 0)
    assert.equal(part!.lastStableOffset, 4)
    assert.deepEqual(part!.abortedTransactions, [{ producerId: pid, firstOffset: 2 }])
    const batches = [...iterateBatches(part!.records!)]
    assert.deepEqual(
      batches.map((b) => [b.baseOffset, b.isControl, b.producerEpoch]),
      [
        [0, false, e0],
        [1, true, e0 + 1],
        [2, false, e0 + 1],
        [3, true, e0 + 2],
      ],
    )
  })
})
