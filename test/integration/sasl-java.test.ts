// The Java 4.4 clients over SASL_PLAINTEXT: a SCRAM-SHA-512 user made with Kafka's own
// ConfigCommand (kafka-configs --alter --add-config 'SCRAM-SHA-512=[...]' --entity-type users,
// logged in with PLAIN through --command-config), then a producer and a consumer group with
// SCRAM-SHA-512 and with PLAIN; a wrong password and an unknown user fail with
// SaslAuthenticationException. test/interop/java's SaslClients runs the clients. Missing java or mvn
// fails this file; it never skips.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { describeScramUsers } from '../../src/client/scram-users.js'
import { apacheKafkaTools } from '../helpers/apache-kafka.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { javaCommand, type ProcResult, runProcess, show } from '../helpers/run-process.js'
import { adminClient, PLAIN_USERS, saslBrokerOverrides } from '../helpers/sasl.js'

const PROJECT_DIR = fileURLToPath(new URL('../../../test/interop/java/', import.meta.url))
const POM = join(PROJECT_DIR, 'pom.xml')
const CLASSPATH = [join(PROJECT_DIR, 'target', 'interop.jar'), join(PROJECT_DIR, 'target', 'lib', '*')].join(delimiter)
const TIMEOUT_MS = 5 * 60_000
const JAVA_HINT = 'this test needs Java 17+ and Maven'
const run = (cmd: string, args: string[], timeoutMs = TIMEOUT_MS): Promise<ProcResult> =>
  runProcess(cmd, args, { timeoutMs, installHint: JAVA_HINT })

describe('Java clients over SASL_PLAINTEXT', () => {
  let broker: BrokerProcess
  let dir: string
  let built = false

  before(async () => {
    broker = await startBrokerProcess({ overrides: saslBrokerOverrides(['PLAIN', 'SCRAM-SHA-512']) })
    dir = mkdtempSync(join(tmpdir(), 'tributary-sasl-java-'))
  })
  after(async () => {
    rmSync(dir, { recursive: true, force: true })
    await stopAndCheck(broker)
  })

  test('the Maven project builds', { timeout: TIMEOUT_MS + 60_000 }, async () => {
    const build = await run('mvn', ['-q', '-B', '-Dstyle.color=never', '-f', POM, 'package'])
    assert.equal(build.code, 0, `Maven build failed: ${show(build)}`)
    assert.ok(existsSync(join(PROJECT_DIR, 'target', 'interop.jar')))
    built = true
  })

  test("Kafka's ConfigCommand creates a SCRAM-SHA-512 user", { timeout: TIMEOUT_MS + 60_000 }, async () => {
    const tools = await apacheKafkaTools()
    const props = join(dir, 'admin.properties')
    writeFileSync(
      props,
      'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n' +
        'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret";\n',
    )
    const r = await run(tools.java, [
      '-cp',
      tools.classpath,
      'org.apache.kafka.tools.ConfigCommand',
      '--bootstrap-server',
      broker.bootstrap,
      '--command-config',
      props,
      '--alter',
      '--add-config',
      'SCRAM-SHA-512=[iterations=8192,password=frank-secret]',
      '--entity-type',
      'users',
      '--entity-name',
      'frank',
    ])
    assert.equal(r.code, 0, `ConfigCommand failed: ${show(r)}\n${broker.stderr().slice(-3000)}`)
    const client = await adminClient(broker.bootstrap)
    try {
      assert.deepEqual(await describeScramUsers(client, ['frank']), [
        { user: 'frank', credentials: [{ mechanism: 'SCRAM-SHA-512', iterations: 8192 }] },
      ])
    } finally {
      await client.close()
    }
  })

  for (const [mechanism, user, password] of [
    ['SCRAM-SHA-512', 'frank', 'frank-secret'],
    ['PLAIN', 'alice', PLAIN_USERS.alice],
  ] as const) {
    test(`${mechanism}: producer and consumer group; wrong password and unknown user refused`, { timeout: TIMEOUT_MS }, async () => {
      assert.ok(built, 'the Maven build failed (see the first test)')
      const topic = `it-java-sasl-${mechanism.toLowerCase()}`
      const r = await run(javaCommand(), [
        '-cp',
        CLASSPATH,
        'io.tributary.interop.SaslClients',
        broker.bootstrap,
        topic,
        mechanism,
        user,
        password,
      ])
      const lines = r.stdout.split(/\r?\n/)
      assert.equal(r.code, 0, `SaslClients failed: ${show(r)}\n${broker.stderr().slice(-3000)}`)
      assert.ok(lines.includes('SASL OK'), show(r))
      assert.ok(lines.includes('SASL consumed 100'), show(r))
      assert.match(lines.find((l) => l.startsWith('SASL wrong-password ')) ?? '', /SaslAuthenticationException/)
      assert.match(lines.find((l) => l.startsWith('SASL unknown-user ')) ?? '', /SaslAuthenticationException/)
    })
  }
})
