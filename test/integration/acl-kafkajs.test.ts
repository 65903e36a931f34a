// Authorization through kafkajs against a broker process with the StandardAuthorizer on. Every
// connection is User:ANONYMOUS (no TLS/SASL here), so the ACLs name User:ANONYMOUS, User:bob
// (somebody else) or User:*. The broker starts with allow.everyone.if.no.acl.found=true so the
// first ACLs can be created; from then on the cluster has ACLs of its own, and each resource is
// open only while no ACL applies to it — which the tests use on purpose.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Admin, Kafka, logLevel } from 'kafkajs'
import { AclOperation as Op, AclPermissionType as Perm, PatternType as Pat, ResourceType as Res } from '../../src/ports/authorizer.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'

const ANON = 'User:ANONYMOUS'
const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer'

type Entry = Parameters<Admin['createAcls']>[0]['acl'][number]
const acl = (o: Partial<Record<keyof Entry, unknown>> & { resourceName: string }): Entry =>
  ({
    resourceType: Res.TOPIC,
    resourcePatternType: Pat.LITERAL,
    principal: ANON,
    host: '*',
    operation: Op.ALL,
    permissionType: Perm.ALLOW,
    ...o,
  }) as Entry

/** The Kafka error name of a kafkajs error, or of the error it wraps. */
function codeOf(err: unknown): string | undefined {
  for (let e = err as { type?: string; cause?: unknown; originalError?: unknown } | undefined; e; ) {
    if (e.type && e.type !== 'UNKNOWN') return e.type
    e = (e.cause ?? e.originalError) as typeof e
  }
  return undefined
}

function client(broker: BrokerProcess, id: string): Kafka {
  return new Kafka({ clientId: id, brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2, initialRetryTime: 50 } })
}

describe('ACLs through kafkajs (allow.everyone.if.no.acl.found=true)', () => {
  let broker: BrokerProcess
  let kafka: Kafka
  let admin: Admin

  before(async () => {
    broker = await startBrokerProcess({
      overrides: { 'authorizer.class.name': STANDARD, 'allow.everyone.if.no.acl.found': 'true', 'auto.create.topics.enable': 'false' },
    })
    kafka = client(broker, 'acl-kafkajs')
    admin = kafka.admin()
    await admin.connect()
    // The cluster: everything for User:ANONYMOUS except creating topics.
    await admin.createAcls({
      acl: [
        acl({ resourceType: Res.CLUSTER, resourceName: 'kafka-cluster' }),
        acl({ resourceType: Res.CLUSTER, resourceName: 'kafka-cluster', operation: Op.CREATE, permissionType: Perm.DENY }),
        acl({ resourceName: 'acl-', resourcePatternType: Pat.PREFIXED }),
        acl({ resourceName: 'acl-', resourcePatternType: Pat.PREFIXED, operation: Op.CREATE }),
        acl({ resourceName: 'acl-denied', operation: Op.WRITE, permissionType: Perm.DENY }),
        acl({ resourceType: Res.GROUP, resourceName: 'g-ok', resourcePatternType: Pat.PREFIXED }),
        acl({ resourceType: Res.GROUP, resourceName: 'g-denied', principal: 'User:bob', operation: Op.READ }),
        // DESCRIBE lets kafkajs find the coordinator (it hides FindCoordinator's error), JoinGroup needs READ.
        acl({ resourceType: Res.GROUP, resourceName: 'g-denied', operation: Op.DESCRIBE }),
        acl({ resourceName: 'secret-', resourcePatternType: Pat.PREFIXED, principal: 'User:bob' }),
      ],
    })
  })

  after(async () => {
    await admin?.disconnect().catch(() => {})
    await stopAndCheck(broker)
  })

  test('DescribeAcls lists what CreateAcls made, filtered by type and pattern', async () => {
    const all = await admin.describeAcls({
      resourceType: Res.ANY,
      resourcePatternType: Pat.ANY,
      operation: Op.ANY,
      permissionType: Perm.ANY,
    } as never)
    assert.equal(
      all.resources.reduce((n, r) => n + r.acls.length, 0),
      9,
    )
    const prefixedTopics = await admin.describeAcls({
      resourceType: Res.TOPIC,
      resourcePatternType: Pat.PREFIXED,
      operation: Op.ANY,
      permissionType: Perm.ANY,
    } as never)
    assert.deepEqual(
      prefixedTopics.resources
        .sort((a, b) => a.resourceName.localeCompare(b.resourceName))
        .map((r) => [r.resourceName, r.acls.map((a) => a.operation).sort()]),
      [
        ['acl-', [Op.ALL, Op.CREATE]],
        ['secret-', [Op.ALL]],
      ],
    )
  })

  test('an allowed topic (PREFIXED ACL) can be created, produced to and consumed by an allowed group', async () => {
    await admin.createTopics({ topics: [{ topic: 'acl-orders', numPartitions: 1 }], waitForLeaders: true })
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 'acl-orders', messages: [{ key: 'k', value: 'v1' }, { value: 'v2' }] })
    await producer.disconnect()
    const consumer = kafka.consumer({ groupId: 'g-ok-1' })
    await consumer.connect()
    await consumer.subscribe({ topic: 'acl-orders', fromBeginning: true })
    const got: string[] = []
    await new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.CRASH, (e) => reject(e.payload.error))
      void consumer.run({
        eachMessage: async ({ message }) => {
          got.push(message.value!.toString())
          if (got.length === 2) resolve()
        },
      })
    })
    await consumer.disconnect()
    assert.deepEqual(got, ['v1', 'v2'])
  })

  test('DENY beats ALLOW: a denied topic answers TOPIC_AUTHORIZATION_FAILED to Produce', async () => {
    await admin.createTopics({ topics: [{ topic: 'acl-denied', numPartitions: 1 }], waitForLeaders: true })
    const producer = kafka.producer({ retry: { retries: 0 } })
    await producer.connect()
    const err = await producer.send({ topic: 'acl-denied', messages: [{ value: 'x' }] }).then(
      () => undefined,
      (e: unknown) => e,
    )
    await producer.disconnect()
    assert.equal(codeOf(err), 'TOPIC_AUTHORIZATION_FAILED', String(err))
  })

  test('a group only User:bob may read (User:ANONYMOUS may describe it) answers GROUP_AUTHORIZATION_FAILED', async () => {
    const consumer = kafka.consumer({ groupId: 'g-denied', retry: { retries: 0, restartOnFailure: async () => false } })
    await consumer.connect()
    const crashed = new Promise<unknown>((resolve) => consumer.on(consumer.events.CRASH, (e) => resolve(e.payload.error)))
    await consumer.subscribe({ topic: 'acl-orders', fromBeginning: true })
    void consumer.run({ eachMessage: async () => {} }).catch(() => {})
    const err = await crashed
    await consumer.disconnect()
    assert.equal(codeOf(err), 'GROUP_AUTHORIZATION_FAILED', String(err))
  })

  test('CreateTopics without CREATE on the cluster or the topic answers TOPIC_AUTHORIZATION_FAILED', async () => {
    const err = await admin.createTopics({ topics: [{ topic: 'secret-new', numPartitions: 1 }] }).then(
      () => undefined,
      (e: unknown) => e,
    )
    const inner = (err as { errors?: unknown[] }).errors?.[0] ?? err
    assert.equal(codeOf(inner), 'TOPIC_AUTHORIZATION_FAILED', String(err))
    assert.ok(!(await admin.listTopics()).includes('secret-new'))
  })

  test('Metadata leaves out a topic User:ANONYMOUS may not describe, and refuses it by name', async () => {
    await admin.createTopics({ topics: [{ topic: 'acl-hidden', numPartitions: 1 }], waitForLeaders: true })
    assert.ok((await admin.listTopics()).includes('acl-hidden'))
    await admin.createAcls({ acl: [acl({ resourceName: 'acl-hidden', operation: Op.DESCRIBE, permissionType: Perm.DENY })] })
    assert.ok(!(await admin.listTopics()).includes('acl-hidden'))
    assert.ok((await admin.listTopics()).includes('acl-orders'))
    const err = await admin.fetchTopicMetadata({ topics: ['acl-hidden'] }).then(
      () => undefined,
      (e: unknown) => e,
    )
    assert.equal(codeOf(err), 'TOPIC_AUTHORIZATION_FAILED', String(err))
    // Deleted, the DENY no longer applies.
    const deleted = await admin.deleteAcls({
      filters: [
        {
          resourceType: Res.TOPIC,
          resourceName: 'acl-hidden',
          resourcePatternType: Pat.LITERAL,
          operation: Op.ANY,
          permissionType: Perm.DENY,
        } as never,
      ],
    })
    assert.equal(deleted.filterResponses[0]!.matchingAcls.length, 1)
    assert.ok((await admin.listTopics()).includes('acl-hidden'))
  })
})

describe('ACLs through kafkajs (defaults: allow.everyone.if.no.acl.found=false)', () => {
  test('without ACLs nothing is allowed; a super user is allowed everything', async () => {
    const closed = await startBrokerProcess({ overrides: { 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer' } })
    const open = await startBrokerProcess({ overrides: { 'authorizer.class.name': STANDARD, 'super.users': 'User:admin;User:ANONYMOUS' } })
    try {
      const closedAdmin = client(closed, 'acl-closed').admin()
      await closedAdmin.connect()
      const err = await closedAdmin.createAcls({ acl: [acl({ resourceName: 'x' })] }).then(
        () => undefined,
        (e: unknown) => e,
      )
      assert.equal(codeOf(err), 'CLUSTER_AUTHORIZATION_FAILED', String(err))
      const createErr = await closedAdmin.createTopics({ topics: [{ topic: 'nope', numPartitions: 1 }] }).then(
        () => undefined,
        (e: unknown) => e,
      )
      assert.equal(codeOf((createErr as { errors?: unknown[] }).errors?.[0] ?? createErr), 'TOPIC_AUTHORIZATION_FAILED', String(createErr))
      await closedAdmin.disconnect()

      const openKafka = client(open, 'acl-super')
      const openAdmin = openKafka.admin()
      await openAdmin.connect()
      // A DENY for everyone does not stop a super user.
      await openAdmin.createAcls({ acl: [acl({ resourceName: '*', principal: 'User:*', permissionType: Perm.DENY })] })
      await openAdmin.createTopics({ topics: [{ topic: 'super-topic', numPartitions: 1 }], waitForLeaders: true })
      const producer = openKafka.producer()
      await producer.connect()
      const [sent] = await producer.send({ topic: 'super-topic', messages: [{ value: 'ok' }] })
      assert.equal(sent!.errorCode, 0)
      await producer.disconnect()
      await openAdmin.disconnect()
    } finally {
      await stopAndCheck(closed)
      await stopAndCheck(open)
    }
  })

  test('a broker without an authorizer answers the ACL APIs SECURITY_DISABLED', async () => {
    const plain = await startBrokerProcess()
    try {
      const a = client(plain, 'acl-none').admin()
      await a.connect()
      const err = await a
        .describeAcls({ resourceType: Res.ANY, resourcePatternType: Pat.ANY, operation: Op.ANY, permissionType: Perm.ANY } as never)
        .then(
          () => undefined,
          (e: unknown) => e,
        )
      assert.equal(codeOf(err), 'SECURITY_DISABLED', String(err))
      await a.disconnect()
    } finally {
      await stopAndCheck(plain)
    }
  })
})
