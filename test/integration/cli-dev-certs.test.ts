// `tributary dev-certs`: writes a CA, a broker certificate for localhost, 127.0.0.1 and each
// --host, and a client certificate (CN=client), by running openssl; reuses the CA of a directory
// that has one; fails with a clear message when openssl cannot be run.
import assert from 'node:assert/strict'
import { X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { tributary } from '../helpers/cli.js'

describe('tributary dev-certs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-dev-certs-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  test('writes a CA, a broker and a client certificate that chain to it', async () => {
    const r = await tributary(['dev-certs', '--dir', dir, '--host', 'kafka.internal', '--host', '10.1.2.3'])
    assert.equal(r.code, 0, r.stderr)
    const ca = new X509Certificate(readFileSync(join(dir, 'ca.pem')))
    const broker = new X509Certificate(readFileSync(join(dir, 'broker.pem')))
    const client = new X509Certificate(readFileSync(join(dir, 'client.pem')))
    assert.ok(ca.ca)
    assert.ok(broker.verify(ca.publicKey) && client.verify(ca.publicKey))
    assert.equal(broker.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, DNS:kafka.internal, IP Address:10.1.2.3')
    assert.equal(client.subject, 'CN=client')
    assert.match(readFileSync(join(dir, 'broker-keystore.pem'), 'utf8'), /PRIVATE KEY[\s\S]*CERTIFICATE/)
  })

  test('a second run keeps the CA and makes new certificates', async () => {
    const caBefore = readFileSync(join(dir, 'ca.pem'), 'utf8')
    const serialBefore = new X509Certificate(readFileSync(join(dir, 'broker.pem'))).serialNumber
    const r = await tributary(['dev-certs', '--dir', dir])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(readFileSync(join(dir, 'ca.pem'), 'utf8'), caBefore)
    assert.notEqual(new X509Certificate(readFileSync(join(dir, 'broker.pem'))).serialNumber, serialBefore)
  })

  test('without openssl on the PATH it says so and exits 1', async () => {
    const r = await tributary(['dev-certs', '--dir', join(dir, 'none')], { env: { PATH: '/nonexistent' } })
    assert.equal(r.code, 1)
    assert.match(r.stderr, /cannot run openssl: not found/)
    assert.match(r.stderr, /install OpenSSL/)
  })
})
