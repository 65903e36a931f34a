// The SASL settings a broker starts with (security/sasl/setup.ts over config/listener-scoped.ts):
// Kafka's keys and listener/mechanism prefixes are read, and what Kafka would refuse fails with a
// ConfigError naming the key — never quoting a JAAS value.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { buildBrokerConfig, ConfigError } from '../../../src/config/config.js'
import type { MetadataStore } from '../../../src/ports/metadata-store.js'
import { createSaslAuthenticator, interBrokerSecurity } from '../../../src/security/sasl/setup.js'
import { silentLogger } from '../../../src/util/logger.js'
import { systemClock } from '../../../src/util/clock.js'

const JAAS =
  'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="s3cret-admin" user_admin="s3cret-admin";'
const deps = { store: {} as MetadataStore, clock: systemClock, logger: silentLogger }

function config(values: Record<string, string>) {
  return buildBrokerConfig({ values: { listeners: 'SASL_PLAINTEXT://127.0.0.1:0', ...values } }).config
}

function refused(values: Record<string, string>, key: string, why: RegExp): void {
  assert.throws(
    () => {
      const c = config(values)
      createSaslAuthenticator(c, deps)
      interBrokerSecurity(c)
    },
    (err: Error) => {
      assert.ok(err instanceof ConfigError, `${err.name}: ${err.message}`)
      assert.equal(err.key, key)
      assert.match(err.message, why)
      assert.doesNotMatch(err.message, /s3cret/)
      return true
    },
  )
}

describe('SASL broker settings', () => {
  test('listener- and mechanism-prefixed keys win over the plain ones; the inter-broker login comes from the JAAS config', () => {
    const c = config({
      'sasl.enabled.mechanisms': 'GSSAPI',
      'listener.name.sasl_plaintext.sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-512',
      'sasl.mechanism.inter.broker.protocol': 'PLAIN',
      'listener.name.sasl_plaintext.plain.sasl.jaas.config': JAAS,
      'connections.max.reauth.ms': '1000',
      'listener.name.sasl_plaintext.scram-sha-512.connections.max.reauth.ms': '5000',
    })
    assert.deepEqual(c.listenerValue('SASL_PLAINTEXT', 'sasl.enabled.mechanisms'), ['PLAIN', 'SCRAM-SHA-512'])
    assert.equal(c.listenerValue('SASL_PLAINTEXT', 'connections.max.reauth.ms', 'SCRAM-SHA-512'), 5000)
    assert.equal(c.listenerValue('SASL_PLAINTEXT', 'connections.max.reauth.ms', 'PLAIN'), 1000)
    assert.ok(createSaslAuthenticator(c, deps))
    assert.deepEqual(interBrokerSecurity(c), {
      protocol: 'SASL_PLAINTEXT',
      sasl: { mechanism: 'PLAIN', username: 'admin', password: 's3cret-admin' },
    })
  })

  test('a JAAS config is masked in DescribeConfigs', () => {
    const c = config({ 'sasl.jaas.config': JAAS })
    assert.equal(c.describe('sasl.jaas.config')?.value, null)
    assert.equal(c.describe('sasl.jaas.config')?.isSensitive, true)
  })

  test('what Kafka refuses fails the start-up, naming the key', () => {
    const prefixed = 'listener.name.sasl_plaintext.plain.sasl.jaas.config'
    refused({}, 'sasl.enabled.mechanisms', /GSSAPI, which Tributary does not serve/)
    refused({ 'sasl.enabled.mechanisms': 'PLAIN,MD5' }, 'sasl.enabled.mechanisms', /MD5/)
    refused({ 'sasl.enabled.mechanisms': '' }, 'sasl.enabled.mechanisms', /is empty/)
    refused({ 'sasl.enabled.mechanisms': 'PLAIN', 'sasl.mechanism.inter.broker.protocol': 'PLAIN' }, prefixed, /needs a JAAS config/)
    refused(
      { 'sasl.enabled.mechanisms': 'PLAIN', 'sasl.mechanism.inter.broker.protocol': 'PLAIN', [prefixed]: JAAS.replace(/;$/, '') },
      prefixed,
      /not terminated by semi-colon/,
    )
    refused(
      {
        'sasl.enabled.mechanisms': 'PLAIN',
        'sasl.mechanism.inter.broker.protocol': 'PLAIN',
        'sasl.jaas.config': 'a.B maybe password="s3cret";',
      },
      'sasl.jaas.config',
      /control flag/,
    )
    refused(
      { 'sasl.enabled.mechanisms': 'PLAIN', [prefixed]: JAAS },
      'sasl.mechanism.inter.broker.protocol',
      /GSSAPI.*enabled on the inter-broker listener/,
    )
    refused(
      {
        'sasl.enabled.mechanisms': 'SCRAM-SHA-512',
        'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512',
      },
      'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config',
      /username and password/,
    )
    refused(
      { 'listener.name.sasl_plaintext.connections.max.reauth.ms': '-1' },
      'listener.name.sasl_plaintext.connections.max.reauth.ms',
      /Invalid value/,
    )
  })
})
