// An https:// address in tributary.http.listeners: the HTTP listener is TLS with the broker's own
// certificate (the ssl.* keys; the dev CA's here), so Basic credentials never cross the network in
// clear. A client trusting the CA gets the REST answers; a plain-HTTP request to it gets none.
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { after, before, describe, it } from 'node:test'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { makeCerts, sslSettings, type TestCerts } from '../helpers/certs.js'

function get(url: string, ca?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = (url.startsWith('https') ? httpsRequest : httpRequest)(url, { ...(ca ? { ca } : {}), timeout: 5000 }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', reject)
    req.end()
  })
}

describe('the HTTP listener over TLS', () => {
  let certs: TestCerts
  let b: BrokerProcess
  before(async () => {
    certs = await makeCerts()
    b = await startBrokerProcess({ overrides: { 'tributary.http.listeners': 'https://127.0.0.1:0', ...sslSettings(certs) } })
  })
  after(async () => {
    await stopAndCheck(b)
    certs?.remove()
  })

  it('serves REST over https to a client trusting the CA', async () => {
    assert.match(b.http!, /^https:\/\/127\.0\.0\.1:\d+$/)
    const r = await get(`${b.http}/v3/clusters`, certs.pem.ca)
    assert.equal(r.status, 200)
    assert.equal((JSON.parse(r.body) as { kind: string }).kind, 'KafkaClusterList')
  })

  it('refuses a client that does not trust the certificate, and plain HTTP', async () => {
    await assert.rejects(get(`${b.http}/v3/clusters`), /self[- ]signed|unable to verify|certificate/i)
    await assert.rejects(get(`${b.http!.replace('https', 'http')}/v3/clusters`))
  })
})
