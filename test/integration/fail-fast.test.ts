// What the broker does not serve yet must make clients stop with a clear error, never retry for as
// long as they run. Transactions: FindCoordinator for a transactional id answers UNSUPPORTED_VERSION
// with a message (not the retriable COORDINATOR_NOT_AVAILABLE, on which Kafka Streams exactly_once_v2
// applications and franz-go transactional clients hung). The Java client and Kafka Streams are
// checked in java-client.test.ts (FailFast.java), librdkafka in librdkafka-current.test.ts.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Producer } from '@platformatic/kafka'
import { Kafka, logLevel } from 'kafkajs'
import { startBroker, type RunningBroker } from '../../src/index.js'

describe('transactions are refused at once', () => {
  let broker: RunningBroker
  before(async () => {
    broker = await startBroker({ storage: 'memory' })
  })
  after(async () => {
    await broker.close()
  })

  test('kafkajs: producer.transaction() rejects with a non-retriable error', async () => {
    const kafka = new Kafka({ clientId: 'ff', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    const p = kafka.producer({ transactionalId: 'ff-kafkajs', idempotent: true, maxInFlightRequests: 1 })
    try {
      await p.connect()
      await assert.rejects(p.transaction(), (err: Error & { retriable?: boolean }) => {
        assert.equal(err.retriable, false, `${err.name}: ${err.message}`)
        return true
      })
    } finally {
      await p.disconnect().catch(() => {})
    }
  })

  test('@platformatic/kafka: beginTransaction() rejects naming UNSUPPORTED_VERSION', async () => {
    const p = new Producer({ clientId: 'ff', bootstrapBrokers: [broker.bootstrap], transactionalId: 'ff-pl', idempotent: true })
    try {
      await assert.rejects(p.beginTransaction(), (err: Error & { errors?: Error[] }) => {
        const text = [err.message, ...(err.errors ?? []).map((e) => e.message)].join(' | ')
        assert.match(text, /FindCoordinator|not supported/, text)
        return true
      })
    } finally {
      await p.close().catch(() => {})
    }
  })
})
