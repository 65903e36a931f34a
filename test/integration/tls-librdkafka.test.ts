// librdkafka over TLS against real broker processes: kcat (Debian's librdkafka 2.0.2) and
// confluent-kafka for Python (its bundled librdkafka) produce and consume over an SSL listener
// trusting the dev CA (`-X security.protocol=ssl -X ssl.ca.location=…`); with
// ssl.client.auth=required, confluent-kafka with the client certificate gets in, kcat without
// one is refused.
// Missing kcat, python3 or confluent_kafka fails this file; it never skips.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { makeCerts, sslSettings, type TestCerts } from '../helpers/certs.js'
import { runKcat } from '../helpers/clients.js'
import { runProcess } from '../helpers/run-process.js'

const SCRIPT = fileURLToPath(new URL('../../../test/interop/python/tls-roundtrip.py', import.meta.url))
const INSTALL_HINT = 'install Python 3, then: pip install confluent-kafka==2.16.1'

async function python(broker: BrokerProcess, topic: string, certs: TestCerts, mtls: boolean) {
  const args = [SCRIPT, broker.bootstrap, topic, certs.ca, ...(mtls ? [certs.clientCert, certs.clientKey] : [])]
  const r = await runProcess('python3', args, { timeoutMs: 90_000, installHint: INSTALL_HINT })
  assert.equal(r.code, 0, `tls-roundtrip.py failed:\n${r.stderr}`)
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { produced?: number; consumed?: string[]; error?: string }
}

describe('librdkafka over TLS', () => {
  let certs: TestCerts
  let ssl: BrokerProcess
  let mtls: BrokerProcess
  before(async () => {
    certs = await makeCerts()
    const base = { listeners: 'SSL://127.0.0.1:0', 'auto.create.topics.enable': 'true' }
    ;[ssl, mtls] = await Promise.all([
      startBrokerProcess({ overrides: { ...base, ...sslSettings(certs) } }),
      startBrokerProcess({ overrides: { ...base, ...sslSettings(certs, { 'ssl.client.auth': 'required' }) } }),
    ])
  })
  after(async () => {
    await stopAndCheck(ssl)
    await stopAndCheck(mtls)
    certs?.remove()
  })

  test('kcat produces and consumes over SSL', async () => {
    const tls = ['-X', 'security.protocol=ssl', '-X', `ssl.ca.location=${certs.ca}`]
    const produced = await runKcat(['-b', ssl.bootstrap, ...tls, '-P', '-t', 'tls-kcat', '-X', 'acks=all'], 'a\nb\nc\n')
    assert.equal(produced.code, 0, produced.stderr)
    const consumed = await runKcat(['-b', ssl.bootstrap, ...tls, '-C', '-t', 'tls-kcat', '-o', 'beginning', '-e', '-q'])
    assert.equal(consumed.code, 0, consumed.stderr)
    assert.deepEqual(consumed.stdout.trim().split('\n'), ['a', 'b', 'c'])
  })

  test('kcat that does not trust the broker certificate gets no metadata', async () => {
    const r = await runKcat([
      '-b',
      ssl.bootstrap,
      '-X',
      'security.protocol=ssl',
      '-X',
      `ssl.ca.location=${certs.clientCert}`,
      '-L',
      '-m',
      '5',
    ])
    assert.notEqual(r.code, 0)
    assert.match(r.stderr, /certificate verify failed|SSL handshake failed/i)
  })

  test('confluent-kafka produces and consumes over SSL', async () => {
    const r = await python(ssl, 'tls-python', certs, false)
    assert.deepEqual(r, { ...r, produced: 3, consumed: ['py-0', 'py-1', 'py-2'] })
  })

  test('mTLS: confluent-kafka with the client certificate gets in; kcat without one is refused', async () => {
    const r = await python(mtls, 'tls-python-mtls', certs, true)
    assert.deepEqual(r, { ...r, produced: 3, consumed: ['py-0', 'py-1', 'py-2'] })
    const refused = await runKcat([
      '-b',
      mtls.bootstrap,
      '-X',
      'security.protocol=ssl',
      '-X',
      `ssl.ca.location=${certs.ca}`,
      '-L',
      '-m',
      '5',
    ])
    assert.notEqual(refused.code, 0)
    assert.match(mtls.stderr(), /tls-handshake/)
  })
})
