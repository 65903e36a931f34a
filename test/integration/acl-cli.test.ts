// `tributary acl create|list|delete` against a broker process with the StandardAuthorizer: the
// bindings it creates are the ones DescribeAcls lists (read back through kafkajs too), they take
// effect (a DENY hides a topic from Metadata, and any ACL on a topic closes it to those it does
// not allow), and delete removes exactly what it matches.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Admin, Kafka, logLevel } from 'kafkajs'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { tributary, tributaryOk } from '../helpers/cli.js'

describe('tributary acl', () => {
  let broker: BrokerProcess
  let admin: Admin
  const bs = () => ['--bootstrap-server', broker.bootstrap]

  before(async () => {
    broker = await startBrokerProcess({
      overrides: {
        'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        'allow.everyone.if.no.acl.found': 'true',
      },
    })
    admin = new Kafka({ clientId: 'acl-cli', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'cli-secret', numPartitions: 1 }], waitForLeaders: true })
  })

  after(async () => {
    await admin?.disconnect().catch(() => {})
    await stopAndCheck(broker)
  })

  test('create, list (text and JSON), effect, delete', async () => {
    const created = await tributaryOk(['acl', 'create', ...bs(), '--allow-principal', 'User:ANONYMOUS', '--operation', 'All', '--cluster'])
    assert.match(created.stdout, /resourceType=CLUSTER, name=kafka-cluster, patternType=LITERAL/)
    await tributaryOk([
      'acl',
      'create',
      ...bs(),
      '--deny-principal',
      'User:ANONYMOUS',
      '--operation',
      'Describe',
      '--operation',
      'write',
      '--topic',
      'cli-secret',
    ])
    await tributaryOk([
      'acl',
      'create',
      ...bs(),
      '--allow-principal',
      'User:alice',
      '--host',
      '10.0.0.1',
      '--operation',
      'Read',
      '--topic',
      'alice-',
      '--resource-pattern-type',
      'prefixed',
    ])

    const listed = await tributaryOk(['acl', 'list', ...bs(), '--topic', 'cli-secret'])
    assert.match(listed.stdout, /\(principal=User:ANONYMOUS, host=\*, operation=DESCRIBE, permissionType=DENY\)/)
    assert.match(listed.stdout, /\(principal=User:ANONYMOUS, host=\*, operation=WRITE, permissionType=DENY\)/)
    assert.doesNotMatch(listed.stdout, /User:alice/)
    const json = JSON.parse((await tributaryOk(['acl', 'list', ...bs(), '--principal', 'User:alice', '--json'])).stdout)
    assert.deepEqual(json.acls, [
      {
        resourceType: 'TOPIC',
        resourceName: 'alice-',
        patternType: 'PREFIXED',
        principal: 'User:alice',
        host: '10.0.0.1',
        operation: 'READ',
        permissionType: 'ALLOW',
      },
    ])
    const viaKafkajs = await admin.describeAcls({ resourceType: 1, resourcePatternType: 1, operation: 1, permissionType: 1 } as never)
    assert.equal(
      viaKafkajs.resources.reduce((n, r) => n + r.acls.length, 0),
      4,
    )
    assert.ok(!(await admin.listTopics()).includes('cli-secret'))

    const removed = await tributaryOk([
      'acl',
      'delete',
      ...bs(),
      '--deny-principal',
      'User:ANONYMOUS',
      '--operation',
      'Describe',
      '--topic',
      'cli-secret',
    ])
    assert.match(removed.stdout, /operation=DESCRIBE, permissionType=DENY/)
    assert.doesNotMatch(removed.stdout, /WRITE/)
    // The WRITE DENY still applies to the topic, and nothing allows DESCRIBE: still hidden.
    assert.ok(!(await admin.listTopics()).includes('cli-secret'))
    await tributaryOk(['acl', 'delete', ...bs(), '--deny-principal', 'User:ANONYMOUS', '--operation', 'Write', '--topic', 'cli-secret'])
    // No ACL applies any more: allow.everyone.if.no.acl.found opens it again.
    assert.ok((await admin.listTopics()).includes('cli-secret'))
    const left = JSON.parse((await tributaryOk(['acl', 'list', ...bs(), '--json'])).stdout)
    assert.equal(left.acls.length, 2)
  })

  test('usage errors exit 2 with the reason', async () => {
    const noPrincipal = await tributary(['acl', 'create', ...bs(), '--topic', 'x'])
    assert.equal(noPrincipal.code, 2)
    assert.match(noPrincipal.stderr, /--allow-principal or --deny-principal/)
    const badOp = await tributary(['acl', 'create', ...bs(), '--allow-principal', 'User:a', '--operation', 'Fly', '--topic', 'x'])
    assert.equal(badOp.code, 2)
    assert.match(badOp.stderr, /unknown operation 'Fly'/)
  })
})
