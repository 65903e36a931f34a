// Authorization of authenticated users, end to end: a SASL_PLAINTEXT broker with the
// StandardAuthorizer on, PLAIN users admin (a super user), alice and bob. alice may write and
// read topic orders (and read group billing); bob may do nothing. Through kafkajs: alice produces
// and consumes; bob's produce is TOPIC_AUTHORIZATION_FAILED, his Metadata does not show orders, his
// group join GROUP_AUTHORIZATION_FAILED (he has READ on the topic for that case); both of them are
// refused the SCRAM and quota admin APIs (CLUSTER_AUTHORIZATION_FAILED). Over HTTP with basic
// authentication the same ACLs decide: alice's REST produce is 200, bob's produce to a topic he may
// only read is 403 with Kafka's error.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import { createAcls } from '../../src/client/admin-acls.js'
import { findCoordinator } from '../../src/client/admin-groups.js'
import { describeClientQuotas } from '../../src/client/admin-quotas.js'
import { ClientError } from '../../src/client/errors.js'
import { describeScramUsers } from '../../src/client/scram-users.js'
import { AclOperation, ResourceType } from '../../src/ports/authorizer.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { adminClient, allowAcl, PLAIN_USERS, saslBrokerOverrides } from '../helpers/sasl.js'

const USERS = { ...PLAIN_USERS, bob: 'bob-secret' }
const basic = (u: keyof typeof USERS) => `Basic ${Buffer.from(`${u}:${USERS[u]}`).toString('base64')}`

describe('ACLs for SASL users, through kafkajs and HTTP', () => {
  let broker: BrokerProcess
  const kafka = (user: keyof typeof USERS) =>
    new Kafka({
      clientId: `it-acl-${user}`,
      brokers: [broker.bootstrap],
      sasl: { mechanism: 'plain', username: user, password: USERS[user] },
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    })

  before(async () => {
    const jaas = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${USERS.admin}" ${Object.entries(
      USERS,
    )
      .map(([u, p]) => `user_${u}="${p}"`)
      .join(' ')};`
    broker = await startBrokerProcess({
      overrides: saslBrokerOverrides(['PLAIN'], {
        'listener.name.sasl_plaintext.plain.sasl.jaas.config': jaas,
        'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        'super.users': 'User:admin',
        'auto.create.topics.enable': 'false',
        'tributary.http.authentication': 'basic',
      }),
    })
    const admin = await adminClient(broker.bootstrap)
    try {
      const allow = allowAcl
      await createAcls(admin, [
        allow('User:alice', ResourceType.TOPIC, 'orders', AclOperation.WRITE),
        allow('User:alice', ResourceType.TOPIC, 'orders', AclOperation.READ),
        allow('User:alice', ResourceType.GROUP, 'billing', AclOperation.READ),
        allow('User:bob', ResourceType.TOPIC, 'audit', AclOperation.READ),
      ])
      const k = kafka('admin').admin()
      await k.connect()
      await k.createTopics({
        topics: [
          { topic: 'orders', numPartitions: 1 },
          { topic: 'audit', numPartitions: 1 },
        ],
        waitForLeaders: true,
      })
      await k.disconnect()
    } finally {
      await admin.close()
    }
  })
  after(async () => {
    await stopAndCheck(broker)
  })

  test('alice produces to and consumes orders in group billing', async () => {
    const producer = kafka('alice').producer()
    await producer.connect()
    await producer.send({ topic: 'orders', acks: -1, messages: [{ value: 'o1' }] })
    await producer.disconnect()
    const consumer = kafka('alice').consumer({ groupId: 'billing' })
    await consumer.connect()
    await consumer.subscribe({ topic: 'orders', fromBeginning: true })
    const value = await new Promise<string>((resolve) => {
      void consumer.run({ eachMessage: async ({ message }) => resolve(message.value!.toString()) })
    })
    await consumer.disconnect()
    assert.equal(value, 'o1')
  })

  test('bob: produce refused with TOPIC_AUTHORIZATION_FAILED, orders hidden from his Metadata, group refused', async () => {
    const producer = kafka('bob').producer()
    await producer.connect()
    await assert.rejects(producer.send({ topic: 'orders', acks: -1, messages: [{ value: 'x' }] }), (err: Error & { type?: string }) => {
      assert.match(`${err.type} ${err.message}`, /TOPIC_AUTHORIZATION_FAILED|authoriz/i)
      return true
    })
    await producer.disconnect()
    const admin = kafka('bob').admin()
    await admin.connect()
    const topics = await admin.listTopics()
    assert.ok(!topics.includes('orders'), JSON.stringify(topics))
    assert.ok(topics.includes('audit'))
    await admin.disconnect()
    const consumer = kafka('bob').consumer({ groupId: 'snoop' })
    await consumer.connect()
    await consumer.subscribe({ topic: 'audit', fromBeginning: true })
    // kafkajs reports the refused FindCoordinator as "coordinator not found"; the code itself is
    // GROUP_AUTHORIZATION_FAILED (our client shows it).
    const crashed = new Promise<string>((resolve) => consumer.on(consumer.events.CRASH, (e) => resolve(String(e.payload.error))))
    void consumer.run({ eachMessage: async () => {} })
    assert.match(await crashed, /coordinator/i)
    await consumer.disconnect()
    const own = await adminClient(broker.bootstrap, 'bob', USERS.bob)
    try {
      await assert.rejects(findCoordinator(own, 'snoop'), (e: Error) => e instanceof ClientError && e.code === 'GROUP_AUTHORIZATION_FAILED')
    } finally {
      await own.close()
    }
  })

  test('the SCRAM and quota admin APIs need the cluster: alice is refused, admin is not', async () => {
    const alice = await adminClient(broker.bootstrap, 'alice')
    try {
      await assert.rejects(describeScramUsers(alice), (e: Error) => e instanceof ClientError && e.code === 'CLUSTER_AUTHORIZATION_FAILED')
      await assert.rejects(
        describeClientQuotas(alice, {}),
        (e: Error) => e instanceof ClientError && e.code === 'CLUSTER_AUTHORIZATION_FAILED',
      )
    } finally {
      await alice.close()
    }
    const admin = await adminClient(broker.bootstrap)
    try {
      await describeClientQuotas(admin, {})
    } finally {
      await admin.close()
    }
  })

  test("the console's security page: ACLs listed, one added and deleted by the admin, refused to bob", async () => {
    const call = (user: keyof typeof USERS, path: string, body?: unknown) =>
      fetch(`${broker.http}/console/api${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: basic(user), 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    const listed = (await (await call('admin', '/security')).json()) as {
      acls: Array<{ principal: string; operation: string; resource_name: string }>
    }
    assert.ok(
      listed.acls.some((a) => a.principal === 'User:alice' && a.operation === 'WRITE' && a.resource_name === 'orders'),
      JSON.stringify(listed.acls),
    )
    const acl = {
      principal: 'User:bob',
      host: '*',
      operation: 'WRITE',
      permission: 'ALLOW',
      resource_type: 'TOPIC',
      resource_name: 'audit',
      pattern_type: 'LITERAL',
    }
    assert.equal((await call('admin', '/acls', acl)).status, 200)
    const withIt = (await (await call('admin', '/security')).json()) as { acls: Array<{ principal: string; operation: string }> }
    assert.ok(withIt.acls.some((a) => a.principal === 'User:bob' && a.operation === 'WRITE'))
    const deleted = (await (await call('admin', '/acls/delete', acl)).json()) as { deleted: unknown[] }
    assert.equal(deleted.deleted.length, 1)
    assert.equal((await call('admin', '/acls', { ...acl, operation: 'FLY' })).status, 400)
    const refused = await call('bob', '/security')
    assert.equal(refused.status, 403, await refused.clone().text())
  })

  test('over HTTP the same ACLs decide: alice produces (200), bob is refused (403 with the Kafka error)', async () => {
    const cluster = (await (await fetch(`${broker.http}/v3/clusters`, { headers: { authorization: basic('alice') } })).json()) as {
      data: Array<{ cluster_id: string }>
    }
    const produce = (user: keyof typeof USERS, topic: string) =>
      fetch(`${broker.http}/v3/clusters/${cluster.data[0]!.cluster_id}/topics/${topic}/records`, {
        method: 'POST',
        headers: { authorization: basic(user), 'content-type': 'application/json' },
        body: JSON.stringify({ value: { type: 'STRING', data: `from ${user}` } }),
      })
    const ok = await produce('alice', 'orders')
    assert.equal(ok.status, 200, await ok.clone().text())
    // bob may read audit (so he sees it) but not write it.
    const refused = await produce('bob', 'audit')
    const body = (await refused.json()) as { error_code: number; message: string }
    assert.equal(refused.status, 403, JSON.stringify(body))
    assert.equal(body.error_code, 40301)
  })
})
