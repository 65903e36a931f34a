// tlsOptionsFromClientProperties: Kafka's client ssl.* properties (PEM) → the client's TLS options.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { tlsOptionsFromClientProperties } from '../../../src/client/tls-options.js'
import { makeCerts, type TestCerts } from '../../helpers/certs.js'

describe('tlsOptionsFromClientProperties', () => {
  let certs: TestCerts
  before(async () => {
    certs = await makeCerts()
  })
  after(() => certs?.remove())

  test('trust store and PEM key store files; the host name is checked by default', () => {
    const o = tlsOptionsFromClientProperties({
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': certs.ca,
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': certs.clientKeystore,
      'ssl.key.password': 'pw',
    })
    assert.equal(o.ca, certs.pem.ca)
    assert.equal(o.key?.trim(), certs.pem.clientKey.trim())
    assert.equal(o.cert?.trim(), certs.pem.clientCert.trim())
    assert.equal(o.passphrase, 'pw')
    assert.equal(o.checkHostname, true)
  })

  test('inline PEM, and an empty ssl.endpoint.identification.algorithm turns the host check off', () => {
    const o = tlsOptionsFromClientProperties({
      'ssl.truststore.certificates': certs.pem.ca,
      'ssl.keystore.certificate.chain': certs.pem.clientCert,
      'ssl.keystore.key': certs.pem.clientKey,
      'ssl.endpoint.identification.algorithm': '',
    })
    assert.equal(o.ca, certs.pem.ca.trim())
    assert.equal(o.cert, certs.pem.clientCert.trim())
    assert.equal(o.checkHostname, false)
  })

  test('JKS stores, a missing file, and half an inline key store are refused, naming the key', () => {
    assert.throws(() => tlsOptionsFromClientProperties({ 'ssl.truststore.type': 'JKS' }), /ssl\.truststore\.type=JKS/)
    assert.throws(
      () => tlsOptionsFromClientProperties({ 'ssl.truststore.location': '/nonexistent.pem' }),
      /ssl\.truststore\.location.*ENOENT/,
    )
    assert.throws(
      () => tlsOptionsFromClientProperties({ 'ssl.keystore.key': readFileSync(certs.clientKey, 'utf8') }),
      /ssl\.keystore\.certificate\.chain and ssl\.keystore\.key/,
    )
  })
})
