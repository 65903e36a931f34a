// Kafka 4.4's own kafka-acls tool (org.apache.kafka.tools.AclCommand, which drives the Java
// Admin's createAcls/describeAcls/deleteAcls) against Tributary with the StandardAuthorizer: it
// adds literal and prefixed ACLs, lists them in Kafka's format — compared binding by binding with
// what `tributary acl list --json` reads back — and removes them. Missing Java or Maven fails this
// test (the jars come from bench/kafka, as the other Apache Kafka tests).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { prepareKafka } from '../../bench/harness/brokers.js'
import { describeMachine } from '../../bench/harness/machine.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { tributaryOk } from '../helpers/cli.js'
import { runOk } from '../helpers/run-process.js'

describe("Kafka's kafka-acls (AclCommand) against Tributary", () => {
  let broker: BrokerProcess
  let aclCommand: (args: string[]) => Promise<string>

  before(async () => {
    const machine = await describeMachine()
    const env = await prepareKafka(machine.java, machine.maven, () => {})
    if ('skip' in env) throw new Error(`cannot run Apache Kafka's tools: ${env.skip}`)
    broker = await startBrokerProcess({
      overrides: {
        'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        'allow.everyone.if.no.acl.found': 'true',
      },
    })
    aclCommand = async (args) =>
      (
        await runOk(
          env.java,
          [...env.toolArgs, '-cp', env.classpath, 'org.apache.kafka.tools.AclCommand', '--bootstrap-server', broker.bootstrap, ...args],
          {
            timeoutMs: 120_000,
          },
        )
      ).stdout
  })

  after(async () => {
    await stopAndCheck(broker)
  })

  /** Kafka's listing as [pattern, entry] pairs: `ResourcePattern(...)` and `(principal=…, …)`. */
  function parseListing(out: string): string[] {
    const pairs: string[] = []
    let pattern = ''
    for (const line of out.split('\n')) {
      const p = /ResourcePattern\((.*)\)`/.exec(line)
      if (p) pattern = p[1]!
      const e = /^\s*\((principal=.*)\)\s*$/.exec(line)
      if (e && pattern) pairs.push(`${pattern} | ${e[1]}`)
    }
    return [...new Set(pairs)].sort()
  }

  test('add, list (same bindings as tributary acl list), remove', { timeout: 300_000 }, async () => {
    // This connection is User:ANONYMOUS: once the cluster has ACLs it needs one of its own.
    await aclCommand(['--add', '--allow-principal', 'User:ANONYMOUS', '--operation', 'All', '--cluster'])
    await aclCommand([
      '--add',
      '--allow-principal',
      'User:alice',
      '--allow-principal',
      'User:bob',
      '--operation',
      'Read',
      '--operation',
      'Describe',
      '--topic',
      'orders',
      '--group',
      'app',
    ])
    await aclCommand([
      '--add',
      '--deny-principal',
      'User:mallory',
      '--deny-host',
      '10.0.0.9',
      '--operation',
      'All',
      '--topic',
      'logs-',
      '--resource-pattern-type',
      'prefixed',
    ])
    await aclCommand(['--add', '--allow-principal', 'User:*', '--operation', 'IdempotentWrite', '--cluster'])

    const kafkaView = parseListing(await aclCommand(['--list']))
    const json = JSON.parse((await tributaryOk(['acl', 'list', '--bootstrap-server', broker.bootstrap, '--json'])).stdout) as {
      acls: Array<Record<string, string>>
    }
    const ourView = [
      ...new Set(
        json.acls.map(
          (a) =>
            `resourceType=${a.resourceType}, name=${a.resourceName}, patternType=${a.patternType} | principal=${a.principal}, host=${a.host}, operation=${a.operation}, permissionType=${a.permissionType}`,
        ),
      ),
    ].sort()
    assert.equal(kafkaView.length, 2 * 2 * 2 + 1 + 2, kafkaView.join('\n'))
    assert.deepEqual(kafkaView, ourView)
    assert.ok(
      kafkaView.includes(
        'resourceType=TOPIC, name=logs-, patternType=PREFIXED | principal=User:mallory, host=10.0.0.9, operation=ALL, permissionType=DENY',
      ),
    )

    const topicOnly = parseListing(await aclCommand(['--list', '--topic', 'orders']))
    assert.equal(topicOnly.length, 4, topicOnly.join('\n'))

    await aclCommand(['--remove', '--force', '--allow-principal', 'User:bob', '--operation', 'Read', '--topic', 'orders'])
    const after = parseListing(await aclCommand(['--list', '--topic', 'orders']))
    assert.deepEqual(after, [
      'resourceType=TOPIC, name=orders, patternType=LITERAL | principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW',
      'resourceType=TOPIC, name=orders, patternType=LITERAL | principal=User:alice, host=*, operation=READ, permissionType=ALLOW',
      'resourceType=TOPIC, name=orders, patternType=LITERAL | principal=User:bob, host=*, operation=DESCRIBE, permissionType=ALLOW',
    ])
  })
})
