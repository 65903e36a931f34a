// SASL_SSL, the setup a real deployment runs: one listener that is TLS (the dev CA's broker
// certificate) and asks for SASL on top, PLAIN for the broker's admin and SCRAM-SHA-512 for a
// user created through AlterUserScramCredentials. kafkajs and confluent-kafka (librdkafka 2.16)
// log in over TLS with SCRAM-SHA-512, produce and read back, and so does the CLI with a Kafka
// client properties file (--command-config); a wrong password is refused; a
// client that skips TLS or SASL gets nothing.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, test } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import { KafkaClient } from '../../src/client/client.js'
import { upsertScramUser } from '../../src/client/scram-users.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { makeCerts, sslSettings, type TestCerts } from '../helpers/certs.js'
import { tributaryOk } from '../helpers/cli.js'
import { runProcess } from '../helpers/run-process.js'
import { PLAIN_USERS, plainJaas } from '../helpers/sasl.js'

const SCRIPT = fileURLToPath(new URL('../../../test/interop/python/tls-roundtrip.py', import.meta.url))

describe('SASL_SSL with SCRAM-SHA-512', () => {
  let certs: TestCerts
  let broker: BrokerProcess

  before(async () => {
    certs = await makeCerts()
    broker = await startBrokerProcess({
      overrides: {
        listeners: 'SASL_SSL://127.0.0.1:0',
        'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-512',
        'sasl.mechanism.inter.broker.protocol': 'PLAIN',
        'listener.name.sasl_ssl.plain.sasl.jaas.config': plainJaas(),
        'auto.create.topics.enable': 'true',
        'tributary.http.listeners': '',
        ...sslSettings(certs),
      },
    })
    const admin = await KafkaClient.connect({
      bootstrap: [broker.bootstrap],
      security: {
        protocol: 'SASL_SSL',
        tls: { ca: certs.pem.ca },
        sasl: { mechanism: 'PLAIN', username: 'admin', password: PLAIN_USERS.admin },
      },
    })
    try {
      await upsertScramUser(admin, 'carol', { mechanism: 'SCRAM-SHA-512', password: 'carol-secret' })
    } finally {
      await admin.close()
    }
  })
  after(async () => {
    await stopAndCheck(broker)
    certs?.remove()
  })

  const kafkajs = (password: string) =>
    new Kafka({
      clientId: 'it-sasl-ssl',
      brokers: [broker.bootstrap],
      ssl: { ca: [certs.pem.ca] },
      sasl: { mechanism: 'scram-sha-512', username: 'carol', password },
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    })

  test('kafkajs: produces and consumes as carol over TLS', async () => {
    const kafka = kafkajs('carol-secret')
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 'sasl-ssl-js', acks: -1, messages: [{ value: 'x1' }, { value: 'x2' }] })
    await producer.disconnect()
    const consumer = kafka.consumer({ groupId: 'sasl-ssl-js-g' })
    await consumer.connect()
    await consumer.subscribe({ topic: 'sasl-ssl-js', fromBeginning: true })
    const seen: string[] = []
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(message.value!.toString())
          if (seen.length === 2) resolve()
        },
      })
    })
    await consumer.disconnect()
    assert.deepEqual(seen, ['x1', 'x2'])
  })

  test('kafkajs: a wrong password is refused', async () => {
    const admin = kafkajs('not-carols').admin()
    await assert.rejects(admin.connect(), (err: Error) => err.name === 'KafkaJSSASLAuthenticationError')
  })

  test('confluent-kafka: produces and consumes as carol over TLS with SCRAM-SHA-512', async () => {
    const args = [
      SCRIPT,
      broker.bootstrap,
      'sasl-ssl-py',
      certs.ca,
      'security.protocol=SASL_SSL',
      'sasl.mechanism=SCRAM-SHA-512',
      'sasl.username=carol',
      'sasl.password=carol-secret',
    ]
    const r = await runProcess('python3', args, { timeoutMs: 90_000, installHint: 'pip install confluent-kafka==2.16.1' })
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { produced?: number; consumed?: string[]; error?: string }
    assert.deepEqual(out.consumed, ['py-0', 'py-1', 'py-2'], JSON.stringify(out))
  })

  test('the CLI with --command-config (SASL_SSL, SCRAM-SHA-512, a PEM trust store) produces and consumes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tributary-sasl-ssl-cli-'))
    try {
      const config = join(dir, 'carol.properties')
      writeFileSync(
        config,
        [
          'security.protocol=SASL_SSL',
          'sasl.mechanism=SCRAM-SHA-512',
          'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="carol" password="carol-secret";',
          'ssl.truststore.type=PEM',
          `ssl.truststore.location=${certs.ca}`,
        ].join('\n'),
      )
      const env = { TRIBUTARY_BOOTSTRAP: broker.bootstrap }
      const cc = ['--command-config', config]
      await tributaryOk(['produce', 'sasl-ssl-cli', ...cc], { env, input: 'one\ntwo\n' })
      const out = await tributaryOk(['consume', 'sasl-ssl-cli', '--from-beginning', '--exit-at-end', '--format', '%v\n', ...cc], { env })
      assert.deepEqual(out.stdout.trim().split('\n'), ['one', 'two'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a client without TLS, or with TLS and no SASL, gets nothing', async () => {
    const attempt = async (security?: { protocol: 'SSL'; tls: { ca: string } }) => {
      const c = await KafkaClient.connect({
        bootstrap: [broker.bootstrap],
        connectTimeoutMs: 3000,
        requestTimeoutMs: 3000,
        ...(security ? { security } : {}),
      })
      try {
        return await c.metadata([])
      } finally {
        await c.close()
      }
    }
    await assert.rejects(attempt(), 'plaintext bytes on the TLS listener')
    // ApiVersions is answered before authentication (as Kafka does); Metadata closes the connection.
    await assert.rejects(attempt({ protocol: 'SSL', tls: { ca: certs.pem.ca } }), 'TLS without SASL')
  })
})
