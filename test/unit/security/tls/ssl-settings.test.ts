// A listener's ssl.* settings: what is accepted, and what fails start-up with a ConfigError naming
// the key (and never showing a password); listener.name.<listener>.ssl.* wins over the broker's.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createPrivateKey } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { buildBrokerConfig, ConfigError } from '../../../../src/config/config.js'
import { listenerTlsContexts } from '../../../../src/security/tls/listener-tls.js'
import { opensslCipherName, readSslSettings } from '../../../../src/security/tls/ssl-settings.js'
import { silentLogger } from '../../../../src/util/logger.js'
import { makeCerts, sslSettings, type TestCerts } from '../../../helpers/certs.js'

const config = (values: Record<string, string>) => buildBrokerConfig({ values: { listeners: 'SSL://127.0.0.1:0', ...values } }).config

/** The ConfigError a setting gives, checked to name `key`. */
function refused(values: Record<string, string>, key: string, message?: RegExp): void {
  assert.throws(
    () => listenerTlsContexts(config(values), silentLogger),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError, String(err))
      assert.equal(err.key, key, err.message)
      if (message) assert.match(err.message, message)
      return true
    },
  )
}

describe('TLS listener settings', () => {
  let certs: TestCerts
  let other: TestCerts
  before(async () => {
    certs = await makeCerts()
    other = await makeCerts()
  })
  after(() => {
    certs?.remove()
    other?.remove()
  })

  test('PEM key store and trust store files, with TLS 1.2 and 1.3 by default', () => {
    const s = readSslSettings(config(sslSettings(certs)), 'SSL')
    assert.match(s.material.key!, /PRIVATE KEY/)
    assert.match(s.material.cert!, /CERTIFICATE/)
    assert.equal(s.material.ca, `${readFileSync(certs.ca, 'utf8').trim()}\n`)
    assert.deepEqual({ min: s.protocol.minVersion, max: s.protocol.maxVersion }, { min: 'TLSv1.2', max: 'TLSv1.3' })
    assert.equal(s.clientAuth, 'none')
    assert.deepEqual(s.files, { keystore: certs.brokerKeystore, truststore: certs.ca })
  })

  test('inline PEM (ssl.keystore.certificate.chain, ssl.keystore.key, ssl.truststore.certificates)', () => {
    const s = readSslSettings(
      config({
        'ssl.keystore.type': 'PEM',
        'ssl.keystore.certificate.chain': readFileSync(certs.brokerCert, 'utf8'),
        'ssl.keystore.key': readFileSync(certs.brokerKey, 'utf8'),
        'ssl.truststore.type': 'PEM',
        'ssl.truststore.certificates': certs.pem.ca,
      }),
      'SSL',
    )
    assert.match(s.material.cert!, /BEGIN CERTIFICATE/)
    assert.deepEqual(s.files, {})
  })

  test('listener.name.<listener>.ssl.* wins over the broker-wide value', () => {
    const c = config({
      ...sslSettings(certs),
      'ssl.client.auth': 'none',
      'listener.name.ssl.ssl.client.auth': 'required',
      'listener.name.ssl.ssl.keystore.location': other.brokerKeystore,
    })
    const s = readSslSettings(c, 'SSL')
    assert.equal(s.clientAuth, 'required')
    assert.equal(s.files.keystore, other.brokerKeystore)
  })

  test('a missing key store, file or key, a JKS store and a key that does not match fail with the key named', () => {
    refused({ 'ssl.keystore.type': 'PEM' }, 'ssl.keystore.location', /needs a key store/)
    refused({ ...sslSettings(certs), 'ssl.keystore.location': '/nonexistent/ks.pem' }, 'ssl.keystore.location', /ENOENT/)
    refused({ ...sslSettings(certs), 'ssl.keystore.type': 'JKS' }, 'ssl.keystore.type', /PKCS12/)
    refused({ ...sslSettings(certs), 'ssl.truststore.type': 'JKS' }, 'ssl.truststore.type', /PEM/)
    refused({ ...sslSettings(certs), 'listener.name.ssl.ssl.keystore.location': '/nonexistent' }, 'listener.name.ssl.ssl.keystore.location')
    const mismatched = join(certs.dir, 'mismatched.pem')
    writeFileSync(mismatched, readFileSync(other.brokerKey, 'utf8') + readFileSync(certs.brokerCert, 'utf8'))
    refused({ ...sslSettings(certs), 'ssl.keystore.location': mismatched }, 'ssl.keystore.location', /mismatch/)
  })

  test('an encrypted key needs ssl.key.password; a wrong one fails without being shown', () => {
    const encrypted = join(certs.dir, 'encrypted.pem')
    // The same key, encrypted (PKCS#8) with the password "s3cret-pass".
    const key = createPrivateKey(readFileSync(certs.brokerKey)).export({
      format: 'pem',
      type: 'pkcs8',
      cipher: 'aes-256-cbc',
      passphrase: 's3cret-pass',
    })
    writeFileSync(encrypted, String(key) + readFileSync(certs.brokerCert, 'utf8'))
    const ok = readSslSettings(
      config({ ...sslSettings(certs), 'ssl.keystore.location': encrypted, 'ssl.key.password': 's3cret-pass' }),
      'SSL',
    )
    assert.equal(ok.material.passphrase, 's3cret-pass')
    assert.throws(
      () => readSslSettings(config({ ...sslSettings(certs), 'ssl.keystore.location': encrypted, 'ssl.key.password': 'wrong-pass' }), 'SSL'),
      (err: Error) => err instanceof ConfigError && err.key === 'ssl.keystore.location' && !err.message.includes('wrong-pass'),
    )
  })

  test('TLS versions older than 1.2 and unknown cipher suites are refused; IANA names are accepted', () => {
    assert.throws(() => config({ ...sslSettings(certs), 'ssl.enabled.protocols': 'TLSv1.1,TLSv1.2' }), /ssl\.enabled\.protocols/)
    refused({ ...sslSettings(certs), 'ssl.cipher.suites': 'TLS_NOT_A_SUITE' }, 'ssl.cipher.suites')
    const s = readSslSettings(
      config({ ...sslSettings(certs), 'ssl.cipher.suites': 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384' }),
      'SSL',
    )
    assert.equal(s.protocol.ciphers, 'ECDHE-ECDSA-AES128-GCM-SHA256:TLS_AES_256_GCM_SHA384')
    assert.equal(opensslCipherName('TLS_RSA_WITH_AES_256_CBC_SHA'), 'AES256-SHA')
    assert.equal(opensslCipherName('TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256'), 'ECDHE-RSA-CHACHA20-POLY1305')
    assert.equal(opensslCipherName('TLS_DHE_RSA_WITH_AES_128_CBC_SHA256'), 'DHE-RSA-AES128-SHA256')
  })

  test('bad ssl.principal.mapping.rules fail start-up with the key named', () => {
    refused({ ...sslSettings(certs), 'ssl.principal.mapping.rules': 'RULE:^CN=(.*$/$1/' }, 'ssl.principal.mapping.rules')
  })

  test('passwords and inline keys are described as sensitive, without their value', () => {
    const c = config({ ...sslSettings(certs), 'ssl.key.password': 'hidden-one', 'ssl.keystore.password': 'hidden-two' })
    for (const name of ['ssl.key.password', 'ssl.keystore.password', 'ssl.keystore.key', 'ssl.truststore.certificates']) {
      const d = c.describe(name)!
      assert.equal(d.isSensitive, true, name)
      assert.equal(d.value, null, name)
    }
    assert.equal(c.describe('ssl.keystore.location')!.value, certs.brokerKeystore)
  })
})

describe('PKCS12 key stores', () => {
  test('a PKCS12 key store with ssl.keystore.password is read; a wrong password fails naming the location', async () => {
    const certs = await makeCerts()
    try {
      const p12 = join(certs.dir, 'broker.p12')
      execFileSync('openssl', [
        'pkcs12',
        '-export',
        '-in',
        certs.brokerCert,
        '-inkey',
        certs.brokerKey,
        '-out',
        p12,
        '-passout',
        'pass:store-pw',
      ])
      const values = { ...sslSettings(certs), 'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': p12 }
      const s = readSslSettings(config({ ...values, 'ssl.keystore.password': 'store-pw' }), 'SSL')
      assert.ok(s.material.pfx && s.material.pfx.length > 0)
      refused({ ...values, 'ssl.keystore.password': 'not-it' }, 'ssl.keystore.location')
    } finally {
      certs.remove()
    }
  })
})

describe('ssl.client.auth on SASL_SSL listeners (KIP-684)', () => {
  test('only the listener-prefixed value applies; the broker-wide one is for SSL listeners', async () => {
    const certs = await makeCerts()
    try {
      const values = { ...sslSettings(certs), listeners: 'SSL://127.0.0.1:0,SASL_SSL://127.0.0.1:0', 'ssl.client.auth': 'required' }
      const broad = listenerTlsContexts(buildBrokerConfig({ values }).config, silentLogger)
      assert.equal(broad.get('SSL')!.clientAuth, 'required')
      assert.equal(broad.get('SASL_SSL')!.clientAuth, 'none')
      const own = listenerTlsContexts(
        buildBrokerConfig({ values: { ...values, 'listener.name.sasl_ssl.ssl.client.auth': 'requested' } }).config,
        silentLogger,
      )
      assert.equal(own.get('SASL_SSL')!.clientAuth, 'requested')
      assert.equal(own.get('SASL_SSL')!.principalOf, undefined, 'SASL sets the principal of a SASL_SSL connection')
    } finally {
      certs.remove()
    }
  })
})
