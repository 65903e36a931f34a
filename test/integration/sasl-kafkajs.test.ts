// kafkajs over SASL_PLAINTEXT against a broker process: PLAIN logins that the listener's JAAS
// users allow produce and read back; a wrong password and an unknown user are refused with
// SASL_AUTHENTICATION_FAILED.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Kafka, logLevel, type SASLOptions } from 'kafkajs'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { PLAIN_USERS, saslBrokerOverrides } from '../helpers/sasl.js'

const TOPIC = 'it-sasl-kafkajs'

describe('kafkajs over SASL_PLAINTEXT', () => {
  let broker: BrokerProcess
  const client = (sasl: SASLOptions) =>
    new Kafka({ clientId: 'it-sasl', brokers: [broker.bootstrap], sasl, logLevel: logLevel.NOTHING, retry: { retries: 0 } })

  before(async () => {
    broker = await startBrokerProcess({ overrides: saslBrokerOverrides(['PLAIN']) })
  })
  after(async () => {
    await stopAndCheck(broker)
  })

  test('PLAIN: an allowed user creates a topic, produces and consumes', async () => {
    const kafka = client({ mechanism: 'plain', username: 'alice', password: PLAIN_USERS.alice })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }], waitForLeaders: true })
    await admin.disconnect()
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: TOPIC, messages: [{ value: 'one' }, { value: 'two' }] })
    await producer.disconnect()
    const consumer = kafka.consumer({ groupId: 'it-sasl-group' })
    await consumer.connect()
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true })
    const seen: string[] = []
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          eachMessage: async ({ message }) => {
            seen.push(message.value!.toString())
            if (seen.length === 2) resolve()
          },
        })
        .catch(reject)
    })
    await consumer.disconnect()
    assert.deepEqual(seen, ['one', 'two'])
  })

  for (const [what, username, password] of [
    ['a wrong password', 'alice', 'not-her-password'],
    ['an unknown user', 'mallory', 'alice-secret'],
  ] as const) {
    test(`PLAIN: ${what} is refused with SASL_AUTHENTICATION_FAILED`, async () => {
      const admin = client({ mechanism: 'plain', username, password }).admin()
      await assert.rejects(admin.connect(), (err: Error & { type?: string }) => {
        assert.equal(err.name, 'KafkaJSSASLAuthenticationError')
        assert.match(err.message, /Invalid username or password/)
        return true
      })
    })
  }
})
