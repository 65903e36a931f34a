// The Java 4.4 clients over SASL_PLAINTEXT: a SCRAM-SHA-512 user made with Kafka's own
// ConfigCommand (kafka-configs --alter --add-config 'SCRAM-SHA-512=[...]' --entity-type users,
// logged in with PLAIN through --command-config), then an admin, a producer and a consumer group
// with SCRAM-SHA-512 and with PLAIN; a wrong password and an unknown user fail with
// SaslAuthenticationException. test/interop/java's SecuredClients runs the clients, every login in
// one JVM (over SASL_SSL, with ACLs: test/integration/sasl-ssl.test.ts). Missing java or mvn
// fails this file; it never skips.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { describeScramUsers } from '../../src/client/scram-users.js'
import { runKafkaTool } from '../helpers/apache-kafka.js'
import { securedClientsOutcome, writeClientProperties } from '../helpers/client-properties.js'
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
    const props = writeClientProperties(dir, 'admin', broker.bootstrap, { mechanism: 'PLAIN', user: 'admin', password: PLAIN_USERS.admin })
    const r = await runKafkaTool('org.apache.kafka.tools.ConfigCommand', [
      ...['--bootstrap-server', broker.bootstrap, '--command-config', props, '--alter'],
      ...['--add-config', 'SCRAM-SHA-512=[iterations=8192,password=frank-secret]', '--entity-type', 'users', '--entity-name', 'frank'],
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

  test('SCRAM-SHA-512 and PLAIN (one JVM): admin, producer and consumer group; wrong password and unknown user refused', {
    timeout: TIMEOUT_MS,
  }, async () => {
    assert.ok(built, 'the Maven build failed (see the first test)')
    const logins = {
      'scram-sha-512': { mechanism: 'SCRAM-SHA-512', user: 'frank', password: 'frank-secret' },
      plain: { mechanism: 'PLAIN', user: 'alice', password: PLAIN_USERS.alice },
    } as const
    const specs: string[] = []
    for (const [label, l] of Object.entries(logins)) {
      specs.push(`ok:${label}:${writeClientProperties(dir, label, broker.bootstrap, l)}`)
      specs.push(
        `refused:${label}-wrong-password:${writeClientProperties(dir, `${label}-wrong`, broker.bootstrap, { ...l, password: 'wrong' })}`,
      )
      specs.push(
        `refused:${label}-unknown-user:${writeClientProperties(dir, `${label}-unknown`, broker.bootstrap, { ...l, user: `nobody-${l.user}` })}`,
      )
    }
    // No authorizer here: '-' skips the denied steps (test/integration/sasl-ssl.test.ts has them).
    const r = await run(javaCommand(), ['-cp', CLASSPATH, 'io.tributary.interop.SecuredClients', 'it-java-sasl-', '-', '-', ...specs])
    const context = `${show(r)}\n${broker.stderr().slice(-3000)}`
    assert.equal(r.code, 0, `SecuredClients failed: ${context}`)
    for (const label of Object.keys(logins)) {
      assert.equal(securedClientsOutcome(r.stdout, label, 'ok'), '3', `${label}\n${context}`)
      for (const bad of ['wrong-password', 'unknown-user']) {
        assert.equal(
          securedClientsOutcome(r.stdout, `${label}-${bad}`, 'refused'),
          'SaslAuthenticationException',
          `${label} ${bad}\n${context}`,
        )
      }
    }
  })
})
