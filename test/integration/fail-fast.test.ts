// Transactional clients must start at once, never retry for as long as they run — as Kafka Streams
// exactly_once_v2 applications and franz-go transactional clients did when FindCoordinator for a
// transactional id answered the retriable COORDINATOR_NOT_AVAILABLE. Now that the broker serves
// transactions, a transactional producer's first transaction (FindCoordinator key type 1 creating
// __transaction_state, InitProducerId, EndTxn) completes within a bound. The Java client and Kafka
// Streams are checked in java-client.test.ts (FailFast.java), librdkafka in
// librdkafka-current.test.ts.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Producer } from '@platformatic/kafka'
import { Kafka, logLevel } from 'kafkajs'
import { startBroker, type RunningBroker } from '../../src/index.js'

const BOUND_MS = 20_000

function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still pending after ${BOUND_MS} ms`)), BOUND_MS)
  })
  return Promise.race([p, late]).finally(() => clearTimeout(timer))
}

describe('transactional producers start at once', () => {
  let broker: RunningBroker
  before(async () => {
    broker = await startBroker({ storage: 'memory' })
  })
  after(async () => {
    await broker.close()
  })

  test('kafkajs: producer.transaction() and abort() complete', async () => {
    const kafka = new Kafka({ clientId: 'ff', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    const p = kafka.producer({ transactionalId: 'ff-kafkajs', idempotent: true, maxInFlightRequests: 1 })
    try {
      await p.connect()
      const txn = await within(p.transaction(), 'transaction()')
      await within(txn.abort(), 'abort()')
      assert.equal(txn.isActive(), false)
    } finally {
      await p.disconnect().catch(() => {})
    }
  })

  test('@platformatic/kafka: beginTransaction(), a send and abort() complete', async () => {
    const admin = new Kafka({ clientId: 'ff-admin', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'ff-topic', numPartitions: 1 }] })
    await admin.disconnect()
    const p = new Producer({ clientId: 'ff', bootstrapBrokers: [broker.bootstrap], transactionalId: 'ff-pl', idempotent: true })
    try {
      const txn = await within(p.beginTransaction(), 'beginTransaction()')
      // It sends EndTxn v4 even for an empty transaction, which transactions v1 refuse
      // (INVALID_TXN_STATE, as Kafka): the transaction gets one record first.
      await within(txn.send({ messages: [{ topic: 'ff-topic', partition: 0, value: Buffer.from('x') }] }), 'send()')
      await within(txn.abort(), 'abort()')
      assert.equal(txn.completed, true)
    } finally {
      await p.close().catch(() => {})
    }
  })
})
