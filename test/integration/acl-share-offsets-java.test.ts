// The share group offsets APIs through the Java 4.4 Admin as SASL user alice, against a broker
// process with the StandardAuthorizer: alice may READ the group and topic share-acl-open but only
// DESCRIBE share-acl-closed, so alterShareGroupOffsets and deleteShareGroupOffsets succeed for the
// first topic and fail with TopicAuthorizationException for the second, in the same call
// (test/interop/java ShareOffsetsAcl). Missing java or mvn fails this test.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createAcls } from '../../src/client/admin-acls.js'
import { createTopic } from '../../src/client/admin-topics.js'
import { AclOperation as Op, ResourceType as Res } from '../../src/ports/authorizer.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { javaCommand, runProcess, show } from '../helpers/run-process.js'
import { adminClient, allowAcl, PLAIN_USERS, saslBrokerOverrides } from '../helpers/sasl.js'
import { buildJavaPrograms, type JavaPrograms } from '../interop/txn-broker.js'

describe('share group offsets per topic: Java 4.4 Admin as a SASL user', () => {
  let broker: BrokerProcess | undefined
  let java: JavaPrograms | undefined

  before(async () => {
    broker = await startBrokerProcess({
      overrides: saslBrokerOverrides(['PLAIN'], {
        'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        'super.users': 'User:admin',
      }),
    })
    const admin = await adminClient(broker.bootstrap)
    try {
      for (const name of ['share-acl-open', 'share-acl-closed']) await createTopic(admin, { name, numPartitions: 1, replicationFactor: 1 })
      const allow = (resourceType: number, resourceName: string, operation: number) =>
        allowAcl('User:alice', resourceType, resourceName, operation)
      await createAcls(admin, [
        allow(Res.GROUP, 'share-acl', Op.READ),
        allow(Res.GROUP, 'share-acl', Op.DELETE),
        allow(Res.TOPIC, 'share-acl-open', Op.READ),
        allow(Res.TOPIC, 'share-acl-closed', Op.DESCRIBE),
      ])
    } finally {
      await admin.close()
    }
  })

  after(async () => {
    java?.remove()
    await stopAndCheck(broker)
  })

  test('alter and delete: the readable topic succeeds, the other is TopicAuthorizationException', { timeout: 16 * 60_000 }, async () => {
    assert.ok(broker, 'broker not started')
    java = await buildJavaPrograms()
    const r = await runProcess(
      javaCommand(),
      [
        '-cp',
        java.classpath,
        'io.tributary.interop.ShareOffsetsAcl',
        broker.bootstrap,
        'alice',
        PLAIN_USERS.alice,
        'share-acl',
        'share-acl-open',
        'share-acl-closed',
      ],
      { timeoutMs: 120_000, installHint: 'this test needs Java 17+ and Maven', env: { INTEROP_LOG_LEVEL: 'warn' } },
    )
    assert.equal(r.code, 0, show(r))
    const line = r.stdout.split(/\r?\n/).find((l) => l.startsWith('SHARE-OFFSETS-ACL '))
    assert.equal(line, 'SHARE-OFFSETS-ACL alter ok TopicAuthorizationException delete ok TopicAuthorizationException', show(r))
  })
})
