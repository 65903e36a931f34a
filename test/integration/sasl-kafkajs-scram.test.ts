// kafkajs with SCRAM-SHA-256 and SCRAM-SHA-512 against a broker process: users created through
// AlterUserScramCredentials (our client, logged in with PLAIN) log in, produce and read back; a
// wrong password and an unknown user are refused with SASL_AUTHENTICATION_FAILED.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Kafka, logLevel, type SASLOptions } from 'kafkajs'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { createScramUsers, saslBrokerOverrides } from '../helpers/sasl.js'

const MECHANISMS = ['scram-sha-256', 'scram-sha-512'] as const

describe('kafkajs SCRAM over SASL_PLAINTEXT', () => {
  let broker: BrokerProcess
  const client = (sasl: SASLOptions) =>
    new Kafka({ clientId: 'it-sasl-scram', brokers: [broker.bootstrap], sasl, logLevel: logLevel.NOTHING, retry: { retries: 0 } })

  before(async () => {
    broker = await startBrokerProcess({ overrides: saslBrokerOverrides(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512']) })
    await createScramUsers(broker.bootstrap, { bob: 'bob-secret' }, ['SCRAM-SHA-256', 'SCRAM-SHA-512'])
  })
  after(async () => {
    await stopAndCheck(broker)
  })

  for (const mechanism of MECHANISMS) {
    test(`${mechanism}: a SCRAM user produces and lists its topic`, async () => {
      const kafka = client({ mechanism, username: 'bob', password: 'bob-secret' } as SASLOptions)
      const topic = `it-${mechanism}`
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
      const producer = kafka.producer()
      await producer.connect()
      const [res] = await producer.send({ topic, messages: [{ value: 'a' }, { value: 'b' }] })
      await producer.disconnect()
      assert.equal(res!.errorCode, 0)
      const offsets = await admin.fetchTopicOffsets(topic)
      await admin.disconnect()
      assert.equal(offsets[0]!.high, '2')
    })

    for (const [what, username, password] of [
      ['a wrong password', 'bob', 'not-bobs'],
      ['an unknown user', 'mallory', 'bob-secret'],
    ] as const) {
      test(`${mechanism}: ${what} is refused with SASL_AUTHENTICATION_FAILED`, async () => {
        const admin = client({ mechanism, username, password } as SASLOptions).admin()
        await assert.rejects(admin.connect(), (err: Error) => {
          assert.equal(err.name, 'KafkaJSSASLAuthenticationError')
          assert.match(err.message, new RegExp(`invalid credentials with SASL mechanism ${mechanism.toUpperCase()}`))
          return true
        })
      })
    }
  }
})
