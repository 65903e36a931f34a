// Hostile input on a SASL_PLAINTEXT listener, over raw sockets: each attempt is refused or closed
// and the broker keeps serving. Oversized frames before authentication (sasl.server.max.receive.size),
// requests before authentication, truncated PLAIN and SCRAM tokens, a SCRAM final message with
// another nonce, a replayed client final, channel binding, authzid ≠ authcid.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { MetadataRequest } from '../../src/protocol/messages/03-metadata.js'
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../../src/protocol/messages/36-sasl-authenticate.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { assertServes, frame, RawClient } from '../helpers/clients.js'
import { createScramUsers, rawHandshake, saslBrokerOverrides, scramClientFinal } from '../helpers/sasl.js'

const FAILED = 58 // SASL_AUTHENTICATION_FAILED

describe('hostile SASL input', () => {
  let broker: BrokerProcess
  const open = () => RawClient.connect(broker.host, broker.port)

  /** Sends one SaslAuthenticate and expects SASL_AUTHENTICATION_FAILED, then the close. */
  async function expectRefused(c: RawClient, token: Buffer, message: RegExp): Promise<void> {
    const res = await c.request(SaslAuthenticateRequest, SaslAuthenticateResponse, 2, { authBytes: token })
    assert.equal(res.errorCode, FAILED)
    assert.match(res.errorMessage ?? '', message)
    assert.equal((await c.expectClose()).closed, true, 'closed after the failure')
  }

  before(async () => {
    broker = await startBrokerProcess({ overrides: saslBrokerOverrides(['PLAIN', 'SCRAM-SHA-512']) })
    await createScramUsers(broker.bootstrap, { bob: 'bob-secret' }, ['SCRAM-SHA-512'])
  })
  after(async () => {
    await assertServes(broker.host, broker.port)
    await stopAndCheck(broker)
  })

  test('a request other than ApiVersions/SaslHandshake before authentication closes the connection', async () => {
    const c = await open()
    c.sendRequest(MetadataRequest, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false })
    assert.deepEqual(await c.expectClose(), { closed: true, frames: 0 })
  })

  test('SaslAuthenticate without a handshake closes the connection', async () => {
    const c = await open()
    c.sendRequest(SaslAuthenticateRequest, 2, { authBytes: Buffer.from('\u0000alice\u0000alice-secret') })
    assert.deepEqual(await c.expectClose(), { closed: true, frames: 0 })
  })

  test('a SaslAuthenticate larger than 512 KiB before authentication closes the connection', async () => {
    const c = await open()
    await rawHandshake(c, 'PLAIN')
    c.sendRequest(SaslAuthenticateRequest, 2, { authBytes: Buffer.alloc(600 * 1024, 0x41) })
    assert.deepEqual(await c.expectClose(), { closed: true, frames: 0 })
  })

  test('a 10 MiB frame before authentication closes the connection without waiting for its bytes', async () => {
    const c = await open()
    const prefix = Buffer.alloc(4)
    prefix.writeInt32BE(10 * 1024 * 1024, 0)
    c.writeRaw(Buffer.concat([prefix, Buffer.alloc(1024)]))
    assert.deepEqual(await c.expectClose(), { closed: true, frames: 0 })
  })

  test('PLAIN: truncated tokens are refused', async () => {
    for (const token of ['\u0000alice', 'alice', '']) {
      const c = await open()
      await rawHandshake(c, 'PLAIN')
      await expectRefused(c, Buffer.from(token), /Invalid SASL\/PLAIN response: expected 3 tokens/)
    }
  })

  test('PLAIN: an authorization id other than the user is refused (CVE-2017-12610)', async () => {
    const c = await open()
    await rawHandshake(c, 'PLAIN')
    await expectRefused(c, Buffer.from('admin\u0000alice\u0000alice-secret'), /authorization id that is different from username/)
  })

  test('SCRAM: truncated or malformed client-first messages are refused', async () => {
    for (const token of ['n,,n=bob', 'n,,n=bob,r=', 'n,', 'p=tls-unique,,n=bob,r=abc', 'y,,n=bob,r=abc', '\u00ff\u00fe']) {
      const c = await open()
      await rawHandshake(c, 'SCRAM-SHA-512')
      await expectRefused(c, Buffer.from(token, 'latin1'), /invalid credentials with SASL mechanism SCRAM-SHA-512/)
    }
  })

  test('SCRAM: an authorization id other than the user is refused', async () => {
    const c = await open()
    await rawHandshake(c, 'SCRAM-SHA-512')
    await expectRefused(c, Buffer.from('n,a=admin,n=bob,r=abcdef'), /authorization id that is different from username/)
  })

  test('SCRAM: a final message with another nonce is refused (CVE-2024-56128)', async () => {
    for (const alter of [(n: string) => `${n}x`, (n: string) => n.slice(0, -1), (n: string) => n.slice(6)]) {
      const c = await open()
      await rawHandshake(c, 'SCRAM-SHA-512')
      const { final } = await scramClientFinal(c, 'bob', 'bob-secret', { nonce: alter })
      await expectRefused(c, final, /invalid credentials/)
    }
  })

  test('SCRAM: a truncated final message and a wrong channel binding are refused', async () => {
    for (const change of [(f: string) => f.slice(0, f.indexOf(',p=')), (f: string) => f.replace(/^c=[^,]*/, 'c=cCwsdGxz')]) {
      const c = await open()
      await rawHandshake(c, 'SCRAM-SHA-512')
      const { final } = await scramClientFinal(c, 'bob', 'bob-secret')
      await expectRefused(c, Buffer.from(change(final.toString())), /invalid credentials/)
    }
  })

  test('SCRAM: a client final replayed on another connection is refused', async () => {
    const first = await open()
    await rawHandshake(first, 'SCRAM-SHA-512')
    const recorded = await scramClientFinal(first, 'bob', 'bob-secret', { clientNonce: 'fixed-client-nonce' })
    const ok = await first.request(SaslAuthenticateRequest, SaslAuthenticateResponse, 2, { authBytes: recorded.final })
    assert.equal(ok.errorCode, 0, 'the genuine exchange succeeds')
    first.close()
    const second = await open()
    await rawHandshake(second, 'SCRAM-SHA-512')
    // Same client nonce, so the only difference is the broker's fresh part of the nonce.
    await scramClientFinal(second, 'bob', 'bob-secret', { clientNonce: 'fixed-client-nonce' })
    await expectRefused(second, recorded.final, /invalid credentials/)
  })

  test('a token in a bad frame does not hurt: a frame of garbage after the handshake closes', async () => {
    const c = await open()
    await rawHandshake(c, 'PLAIN')
    c.writeRaw(frame(Buffer.from([0, 36, 0, 2, 0, 0, 0, 9, 0xff, 0xff, 0xff])))
    assert.equal((await c.expectClose()).closed, true)
  })
})
