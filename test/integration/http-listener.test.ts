// The HTTP listener (src/http/server.ts, tributary.http.listeners): `tributary start` brings it up
// beside the Kafka listener and prints its URLs; startBroker() leaves it off unless asked;
// an empty list turns it off; an address that is not http(s)://host:port stops the start with a
// clear error; unknown paths answer JSON errors in REST Proxy's shape.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { startBroker } from '../../src/broker/start.js'
import { startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'

describe('the HTTP listener', () => {
  it('tributary start serves it on the configured address and prints the console, REST and metrics URLs', async () => {
    const b = await startBrokerProcess()
    try {
      assert.match(b.http ?? '', /^http:\/\/127\.0\.0\.1:\d+$/)
      assert.ok(b.stderr().includes(`console ${b.http}/ · REST ${b.http}/v3 · metrics ${b.http}/metrics`), b.stderr())
      const r = await fetch(`${b.http}/no/such/path?x=1`)
      assert.equal(r.status, 404)
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/)
      assert.deepEqual(await r.json(), { error_code: 404, message: 'HTTP 404 Not Found: GET /no/such/path' })
    } finally {
      await stopAndCheck(b)
    }
  })

  it('an empty tributary.http.listeners turns it off', async () => {
    const b = await startBrokerProcess({ overrides: { 'tributary.http.listeners': '' } })
    try {
      assert.equal(b.http, undefined)
      assert.ok(!b.stderr().includes('HTTP listening'), b.stderr())
    } finally {
      await stopAndCheck(b)
    }
  })

  it('an address that is not http(s)://host:port, or https without a key store, stops the start with a clear error', async () => {
    await assert.rejects(
      startBrokerProcess({ overrides: { 'tributary.http.listeners': 'ftp://127.0.0.1:0' } }),
      /tributary\.http\.listeners: "ftp:\/\/127\.0\.0\.1:0" is not http:\/\/host:port or https:\/\/host:port/,
    )
    await assert.rejects(
      startBrokerProcess({ overrides: { 'tributary.http.listeners': 'https://127.0.0.1:0' } }),
      /ssl\.keystore|key store|keystore/i,
    )
  })

  it('startBroker() has none unless asked; { http: true } gives one on a free port', async () => {
    const off = await startBroker({ storage: 'memory' })
    try {
      assert.equal(off.http, undefined)
    } finally {
      await off.close()
    }
    const on = await startBroker({ storage: 'memory', http: true })
    try {
      assert.match(on.http ?? '', /^http:\/\/127\.0\.0\.1:\d+$/)
      assert.equal((await fetch(`${on.http}/nothing`)).status, 404)
    } finally {
      await on.close()
    }
    await assert.rejects(fetch(`${on.http}/nothing`), 'closed with the broker')
  })
})
