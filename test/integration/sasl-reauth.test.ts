// KIP-368 re-authentication with connections.max.reauth.ms=2000: kafkajs and Tributary's own client
// keep producing across several session lifetimes on the same connections (the broker logs no
// expired session), SaslAuthenticate v1+ tells the lifetime, and a raw client that does not
// re-authenticate is closed at its first request after the expiry (logged as session-expired).
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, test } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import { MetadataRequest, MetadataResponse } from '../../src/protocol/messages/03-metadata.js'
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../../src/protocol/messages/36-sasl-authenticate.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { RawClient } from '../helpers/clients.js'
import { adminClient, PLAIN_USERS, rawHandshake, saslBrokerOverrides } from '../helpers/sasl.js'

const LIFETIME_MS = 2000
const TOPIC = 'it-sasl-reauth'

describe('SASL re-authentication (KIP-368)', () => {
  let broker: BrokerProcess

  before(async () => {
    broker = await startBrokerProcess({
      overrides: saslBrokerOverrides(['PLAIN'], { 'connections.max.reauth.ms': String(LIFETIME_MS) }),
    })
  })
  after(async () => {
    await stopAndCheck(broker)
  })

  test('SaslAuthenticate v1+ answers the session lifetime', async () => {
    for (const version of [1, 2]) {
      const c = await RawClient.connect(broker.host, broker.port)
      await rawHandshake(c, 'PLAIN')
      const res = await c.request(SaslAuthenticateRequest, SaslAuthenticateResponse, version, {
        authBytes: Buffer.from('\u0000alice\u0000alice-secret'),
      })
      assert.equal(res.errorCode, 0)
      assert.equal(res.sessionLifetimeMs, LIFETIME_MS)
      c.close()
    }
  })

  test('kafkajs keeps producing across the session expiry', async () => {
    const kafka = new Kafka({
      clientId: 'it-reauth',
      brokers: [broker.bootstrap],
      sasl: { mechanism: 'plain', username: 'alice', password: PLAIN_USERS.alice },
      reauthenticationThreshold: 500,
      logLevel: logLevel.NOTHING,
    })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }], waitForLeaders: true })
    await admin.disconnect()
    const producer = kafka.producer()
    await producer.connect()
    const before = broker.stderr().length
    let count = 0
    const until = Date.now() + 3 * LIFETIME_MS
    while (Date.now() < until) {
      await producer.send({ topic: TOPIC, messages: [{ value: `m${count}` }] })
      count++
      await sleep(200)
    }
    await producer.disconnect()
    assert.ok(count > 10)
    assert.doesNotMatch(broker.stderr().slice(before), /session-expired/)
  })

  test('our client re-authenticates its connection before the session ends', async () => {
    const client = await adminClient(broker.bootstrap, 'alice')
    const before = broker.stderr().length
    try {
      const until = Date.now() + 3 * LIFETIME_MS
      while (Date.now() < until) {
        const md = await client.metadata([TOPIC], { refresh: true })
        assert.ok(md.topics.get(TOPIC))
        await sleep(200)
      }
    } finally {
      await client.close()
    }
    assert.doesNotMatch(broker.stderr().slice(before), /session-expired|closing connection/)
  })

  test('a client that does not re-authenticate is closed at its first request after the expiry', async () => {
    const c = await RawClient.connect(broker.host, broker.port)
    await rawHandshake(c, 'PLAIN')
    const ok = await c.request(SaslAuthenticateRequest, SaslAuthenticateResponse, 2, {
      authBytes: Buffer.from('\u0000alice\u0000alice-secret'),
    })
    assert.equal(ok.errorCode, 0)
    const body = { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }
    await c.request(MetadataRequest, MetadataResponse, 12, body) // served within the session
    await sleep(LIFETIME_MS + 300)
    c.sendRequest(MetadataRequest, 12, body)
    assert.deepEqual(await c.expectClose(), { closed: true, frames: 0 })
    assert.match(broker.stderr(), /session-expired|SASL session expired/)
  })
})
