// @platformatic/kafka over SASL_PLAINTEXT with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512: an allowed
// user creates a topic and produces with acks=all; a wrong password is refused.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Admin, Producer, stringSerializers } from '@platformatic/kafka'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { errorChain } from '../helpers/clients.js'
import { createScramUsers, PLAIN_USERS, saslBrokerOverrides } from '../helpers/sasl.js'

const MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const

describe('@platformatic/kafka over SASL_PLAINTEXT', () => {
  let broker: BrokerProcess

  before(async () => {
    broker = await startBrokerProcess({ overrides: saslBrokerOverrides([...MECHANISMS]) })
    await createScramUsers(broker.bootstrap, { alice: PLAIN_USERS.alice }, ['SCRAM-SHA-256', 'SCRAM-SHA-512'])
  })
  after(async () => {
    await stopAndCheck(broker)
  })

  for (const mechanism of MECHANISMS) {
    test(`${mechanism}: create a topic and produce; a wrong password is refused`, async () => {
      const topic = `it-platformatic-sasl-${mechanism.toLowerCase()}`
      const sasl = { mechanism, username: 'alice', password: PLAIN_USERS.alice }
      const admin = new Admin({ clientId: 'it-pk-sasl', bootstrapBrokers: [broker.bootstrap], sasl })
      const producer = new Producer({ clientId: 'it-pk-sasl', bootstrapBrokers: [broker.bootstrap], serializers: stringSerializers, sasl })
      try {
        await admin.createTopics({ topics: [topic], partitions: 1, replicas: 1 })
        const res = await producer.send({
          acks: -1,
          messages: [
            { topic, value: 'x' },
            { topic, value: 'y' },
          ],
        })
        assert.equal(res.offsets?.[0]?.offset, 0n)
      } finally {
        await producer.close()
        await admin.close()
      }
      const bad = new Admin({
        clientId: 'it-pk-sasl-bad',
        bootstrapBrokers: [broker.bootstrap],
        sasl: { ...sasl, password: 'wrong' },
        retries: 0,
      })
      try {
        await assert.rejects(bad.listTopics(), (err: Error) => {
          assert.match(errorChain(err).join('\n'), /SASL_AUTHENTICATION_FAILED|Invalid username or password|invalid credentials/)
          return true
        })
      } finally {
        await bad.close()
      }
    })
  }
})
