// The Java 4.4 clients (test/interop/java, TlsClients) over TLS with PEM stores against real
// broker processes: admin, the default idempotent producer (acks=all) and a consumer over an SSL
// listener trusting the dev CA (ssl.truststore.type=PEM, ssl.truststore.location=ca.pem); with
// ssl.client.auth=required, the client with its PEM key store gets in and one without is refused.
// The Maven project is built here (offline once ~/.m2 has the client). Missing java or mvn fails
// this file; it never skips.
import assert from 'node:assert/strict'
import { delimiter, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { makeCerts, sslSettings, type TestCerts } from '../helpers/certs.js'
import { javaCommand, runProcess, show } from '../helpers/run-process.js'

const PROJECT_DIR = fileURLToPath(new URL('../../../test/interop/java/', import.meta.url))
const CLASSPATH = [join(PROJECT_DIR, 'target', 'interop.jar'), join(PROJECT_DIR, 'target', 'lib', '*')].join(delimiter)
const HINT = 'this test needs Java 17+ and Maven'

async function tlsClients(broker: BrokerProcess, topic: string, certs: TestCerts, keystore?: string): Promise<string> {
  const args = ['-cp', CLASSPATH, 'io.tributary.interop.TlsClients', broker.bootstrap, topic, certs.ca, ...(keystore ? [keystore] : [])]
  const r = await runProcess(javaCommand(), args, { timeoutMs: 120_000, installHint: HINT })
  assert.equal(r.code, 0, show(r))
  return r.stdout.trim().split('\n').at(-1)!
}

describe('Java clients over TLS', () => {
  let certs: TestCerts
  let ssl: BrokerProcess
  let mtls: BrokerProcess
  let built = false
  before(async () => {
    certs = await makeCerts()
    ;[ssl, mtls] = await Promise.all([
      startBrokerProcess({ overrides: { listeners: 'SSL://127.0.0.1:0', ...sslSettings(certs) } }),
      startBrokerProcess({ overrides: { listeners: 'SSL://127.0.0.1:0', ...sslSettings(certs, { 'ssl.client.auth': 'required' }) } }),
    ])
  })
  after(async () => {
    await stopAndCheck(ssl)
    await stopAndCheck(mtls)
    certs?.remove()
  })

  test('the Maven project builds', { timeout: 6 * 60_000 }, async () => {
    const build = await runProcess('mvn', ['-q', '-B', '-Dstyle.color=never', '-f', join(PROJECT_DIR, 'pom.xml'), 'package'], {
      timeoutMs: 5 * 60_000,
      installHint: HINT,
    })
    assert.equal(build.code, 0, show(build))
    built = true
  })

  test('admin, producer and consumer over SSL with a PEM trust store', async () => {
    assert.ok(built, 'the Maven build failed (see the previous test)')
    assert.equal(await tlsClients(ssl, 'tls-java', certs), 'TLS OK java-0,java-1,java-2')
  })

  test('mTLS: with a PEM key store the client gets in; without one it is refused', async () => {
    assert.ok(built, 'the Maven build failed (see the previous test)')
    assert.equal(await tlsClients(mtls, 'tls-java-mtls', certs, certs.clientKeystore), 'TLS OK java-0,java-1,java-2')
    assert.match(await tlsClients(mtls, 'tls-java-refused', certs), /^TLS REFUSED /)
  })
})
