// The CLI against a SASL_PLAINTEXT broker: --command-config with a Kafka client properties file
// (PLAIN, then SCRAM-SHA-512 for a user made with `tributary user create`), the same through
// TRIBUTARY_* environment variables, and `tributary user create/list/delete`.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { tributary, tributaryOk } from '../helpers/cli.js'
import { saslBrokerOverrides } from '../helpers/sasl.js'

const TOPIC = 'it-sasl-cli'

describe('tributary CLI over SASL_PLAINTEXT', () => {
  let broker: BrokerProcess
  let dir: string
  let adminConfig: string
  const env = () => ({ TRIBUTARY_BOOTSTRAP: broker.bootstrap })

  before(async () => {
    broker = await startBrokerProcess({ overrides: saslBrokerOverrides(['PLAIN', 'SCRAM-SHA-512']) })
    dir = mkdtempSync(join(tmpdir(), 'tributary-sasl-cli-'))
    adminConfig = join(dir, 'admin.properties')
    writeFileSync(
      adminConfig,
      [
        'security.protocol=SASL_PLAINTEXT',
        'sasl.mechanism=PLAIN',
        'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret";',
      ].join('\n'),
    )
  })
  after(async () => {
    rmSync(dir, { recursive: true, force: true })
    await stopAndCheck(broker)
  })

  test('without --command-config the command cannot talk to the SASL listener', async () => {
    const r = await tributary(['topic', 'list', '--request-timeout-ms', '3000'], { env: env(), timeoutMs: 30_000 })
    assert.equal(r.code, 1, r.stderr)
  })

  test('--command-config with PLAIN: create a topic, produce and consume', async () => {
    const cc = ['--command-config', adminConfig]
    await tributaryOk(['topic', 'create', TOPIC, '--partitions', '1', ...cc], { env: env() })
    await tributaryOk(['produce', TOPIC, ...cc], { env: env(), input: 'one\ntwo\nthree\n' })
    const out = await tributaryOk(['consume', TOPIC, '--from-beginning', '--exit-at-end', '--format', '%v\n', ...cc], { env: env() })
    assert.deepEqual(out.stdout.trim().split('\n'), ['one', 'two', 'three'])
  })

  test('tributary user create/list/delete, and a SCRAM-SHA-512 login from the environment', async () => {
    const cc = ['--command-config', adminConfig]
    const pwFile = join(dir, 'carol.pw')
    writeFileSync(pwFile, 'carol-secret\n')
    await tributaryOk(['user', 'create', 'carol', '--mechanism', 'SCRAM-SHA-512', '--password-file', pwFile, ...cc], { env: env() })
    await tributaryOk(['user', 'create', 'dave', '--password', 'dave-secret', '--iterations', '8192', ...cc], { env: env() })
    const listed = JSON.parse((await tributaryOk(['user', 'list', '--json', ...cc], { env: env() })).stdout)
    assert.deepEqual(listed.users, [
      { user: 'carol', credentials: [{ mechanism: 'SCRAM-SHA-512', iterations: 4096 }] },
      { user: 'dave', credentials: [{ mechanism: 'SCRAM-SHA-512', iterations: 8192 }] },
    ])
    const scramEnv = {
      ...env(),
      TRIBUTARY_SECURITY_PROTOCOL: 'SASL_PLAINTEXT',
      TRIBUTARY_SASL_MECHANISM: 'SCRAM-SHA-512',
      TRIBUTARY_SASL_USERNAME: 'carol',
      TRIBUTARY_SASL_PASSWORD: 'carol-secret',
    }
    const out = await tributaryOk(['consume', TOPIC, '--from-beginning', '--exit-at-end', '--format', '%v\n'], { env: scramEnv })
    assert.deepEqual(out.stdout.trim().split('\n'), ['one', 'two', 'three'])
    const wrong = await tributary(['topic', 'list'], { env: { ...scramEnv, TRIBUTARY_SASL_PASSWORD: 'not-carols' } })
    assert.equal(wrong.code, 1)
    assert.match(wrong.stderr, /SASL_AUTHENTICATION_FAILED/)
    assert.doesNotMatch(wrong.stderr, /not-carols/)

    await tributaryOk(['user', 'delete', 'carol', ...cc], { env: env() })
    const after = JSON.parse((await tributaryOk(['user', 'list', '--json', ...cc], { env: env() })).stdout)
    assert.deepEqual(
      after.users.map((u: { user: string }) => u.user),
      ['dave'],
    )
    const gone = await tributary(['topic', 'list'], { env: scramEnv })
    assert.equal(gone.code, 1, 'a deleted user can no longer log in')
    const again = await tributary(['user', 'delete', 'carol', '--mechanism', 'SCRAM-SHA-512', ...cc], { env: env() })
    assert.equal(again.code, 1)
    assert.match(again.stderr, /RESOURCE_NOT_FOUND/)
  })

  test('a bad --command-config is a usage error naming the key', async () => {
    const bad = join(dir, 'bad.properties')
    writeFileSync(bad, 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.Foo required password="x"\n')
    const r = await tributary(['topic', 'list', '--command-config', bad], { env: env() })
    assert.equal(r.code, 2)
    assert.match(r.stderr, /sasl\.jaas\.config .*not terminated by semi-colon/)
  })
})
