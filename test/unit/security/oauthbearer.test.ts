// OAUTHBEARER on the broker side: tokens made with jose (RSA and EC keys) validated against a JWKS
// file — accepted with their principal, or refused with RFC 7628's JSON error then a failed
// exchange; malformed client messages refused at once.
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { type KeyLike, SignJWT, UnsecuredJWT, exportSPKI, importJWK } from 'jose'
import { SaslAuthenticationError } from '../../../src/security/sasl/mechanism.js'
import { INVALID_CREDENTIALS_MESSAGE, type OAuthBearerMechanism } from '../../../src/security/sasl/oauthbearer.js'
import { MAX_INITIAL_RESPONSE_BYTES, buildInitialResponse } from '../../../src/protocol/sasl/oauthbearer-message.js'
import { AUDIENCE, CTX, type SigningKey, jwksFile, jwksOf, mechanismFor, signingKey, tokenFor } from '../../helpers/oauth.js'

const INVALID_TOKEN = '{"status":"invalid_token"}'

type Outcome = { ok: true; principal: string; lifetimeMs: number | undefined } | { ok: false; message: string }

/** Runs one exchange as a client would: on the JSON error it answers %x01, as RFC 7628 says. */
async function exchange(mech: OAuthBearerMechanism, clientMessage: Buffer): Promise<Outcome> {
  const server = mech.create(CTX)
  try {
    const answer = await server.evaluate(clientMessage)
    if (server.complete) {
      assert.equal(answer.length, 0)
      const p = server.principal()
      return { ok: true, principal: `${p.type}:${p.name}`, lifetimeMs: server.credentialLifetimeMs?.() }
    }
    assert.equal(answer.toString('utf8'), INVALID_TOKEN)
    await server.evaluate(Buffer.from([0x01]))
    assert.fail('the exchange went on after the client acknowledged the error')
  } catch (err) {
    assert.ok(err instanceof SaslAuthenticationError, `expected SaslAuthenticationError, got ${err}`)
    assert.equal(server.complete, false)
    return { ok: false, message: err.message }
  }
}

const authenticate = (mech: OAuthBearerMechanism, token: string, authzid?: string) => exchange(mech, buildInitialResponse(token, authzid))

const refusedToken = (o: Outcome) => assert.deepEqual(o, { ok: false, message: INVALID_TOKEN })
const refusedMessage = (o: Outcome) => assert.deepEqual(o, { ok: false, message: INVALID_CREDENTIALS_MESSAGE })

describe('OAUTHBEARER token validation', () => {
  let rsa: SigningKey
  let ec: SigningKey
  let other: SigningKey
  let file: { dir: string; url: string }
  let mech: OAuthBearerMechanism
  const now = () => Math.floor(Date.now() / 1000)

  before(async () => {
    rsa = await signingKey('rsa-1', 'RS256')
    ec = await signingKey('ec-1', 'ES256')
    other = await signingKey('rsa-1', 'RS256') // same kid, different key: a forged signature
    file = await jwksFile(jwksOf(rsa, ec))
    mech = await mechanismFor(file.url)
  })
  after(async () => {
    mech.close()
    await rm(file.dir, { recursive: true, force: true })
  })

  it('accepts a valid RSA token: principal from sub, lifetime to exp', async () => {
    const o = await authenticate(mech, await tokenFor(rsa, { exp: now() + 600 }))
    assert.equal(o.ok, true)
    if (!o.ok) return
    assert.equal(o.principal, 'User:alice')
    assert.ok(o.lifetimeMs !== undefined && o.lifetimeMs > 590_000 && o.lifetimeMs <= 600_000, `lifetime ${o.lifetimeMs}`)
  })

  it('accepts a valid EC token', async () => {
    const o = await authenticate(mech, await tokenFor(ec, { sub: 'bob' }))
    assert.deepEqual(o.ok && o.principal, 'User:bob')
  })

  it('accepts an authzid equal to the principal and refuses another', async () => {
    const t = await tokenFor(rsa)
    assert.equal((await authenticate(mech, t, 'alice')).ok, true)
    const o = await authenticate(mech, t, 'mallory')
    assert.equal(o.ok, false)
    assert.match(!o.ok ? o.message : '', /authorization id \(mallory\) that is different from the token's principal name \(alice\)/)
  })

  it('refuses an expired token, and honours the clock skew', async () => {
    refusedToken(await authenticate(mech, await tokenFor(rsa, { iat: now() - 600, exp: now() - 120 })))
    // 10 s past exp is within the default 30 s of skew.
    assert.equal((await authenticate(mech, await tokenFor(rsa, { iat: now() - 600, exp: now() - 10 }))).ok, true)
    const strict = await mechanismFor(file.url, { 'sasl.oauthbearer.clock.skew.seconds': 0 })
    try {
      refusedToken(await authenticate(strict, await tokenFor(rsa, { iat: now() - 600, exp: now() - 10 })))
    } finally {
      strict.close()
    }
  })

  it('refuses a token not yet valid (nbf, iat in the future) beyond the skew', async () => {
    refusedToken(await authenticate(mech, await tokenFor(rsa, { nbf: now() + 120 })))
    assert.equal((await authenticate(mech, await tokenFor(rsa, { nbf: now() + 10 }))).ok, true)
    refusedToken(await authenticate(mech, await tokenFor(rsa, { iat: now() + 120 })))
  })

  it('refuses a token without exp or without iat (both required, as Kafka requires them)', async () => {
    refusedToken(await authenticate(mech, await tokenFor(rsa, { exp: undefined })))
    refusedToken(await authenticate(mech, await tokenFor(rsa, { iat: undefined })))
  })

  it('refuses a wrong audience, and accepts any one of several expected', async () => {
    refusedToken(await authenticate(mech, await tokenFor(rsa, { aud: 'someone-else' })))
    refusedToken(await authenticate(mech, await tokenFor(rsa, { aud: undefined })))
    const multi = await mechanismFor(file.url, { 'sasl.oauthbearer.expected.audience': `first,${AUDIENCE}` })
    try {
      assert.equal((await authenticate(multi, await tokenFor(rsa, { aud: ['x', AUDIENCE] }))).ok, true)
      assert.equal((await authenticate(multi, await tokenFor(rsa, { aud: 'first' }))).ok, true)
      refusedToken(await authenticate(multi, await tokenFor(rsa, { aud: ['x', 'y'] })))
    } finally {
      multi.close()
    }
  })

  it('refuses a wrong or missing issuer', async () => {
    refusedToken(await authenticate(mech, await tokenFor(rsa, { iss: 'https://evil.example' })))
    refusedToken(await authenticate(mech, await tokenFor(rsa, { iss: undefined })))
  })

  it('refuses a bad signature: another key under the same kid, or a changed payload', async () => {
    refusedToken(await authenticate(mech, await tokenFor(other)))
    const [h, , s] = (await tokenFor(rsa)).split('.')
    const forged = Buffer.from(
      JSON.stringify({ iss: 'https://idp.example', aud: AUDIENCE, sub: 'admin', iat: now(), exp: now() + 60 }),
    ).toString('base64url')
    refusedToken(await authenticate(mech, `${h}.${forged}.${s}`))
  })

  it('refuses a kid the JWKS does not have', async () => {
    const stranger = await signingKey('nobody-knows-me')
    refusedToken(await authenticate(mech, await tokenFor(stranger)))
  })

  it('refuses alg none', async () => {
    const unsigned = new UnsecuredJWT({ iss: 'https://idp.example', aud: AUDIENCE, sub: 'alice', iat: now(), exp: now() + 60 }).encode()
    refusedToken(await authenticate(mech, unsigned))
    // The same with a made-up signature section.
    refusedToken(await authenticate(mech, `${unsigned}c2ln`))
  })

  it('refuses an HMAC token whose secret is the public key (algorithm confusion)', async () => {
    const pem = await exportSPKI((await importJWK(rsa.publicJwk, rsa.alg)) as KeyLike)
    for (const alg of ['HS256', 'HS512']) {
      const t = await new SignJWT({ iss: 'https://idp.example', aud: AUDIENCE, sub: 'admin', iat: now(), exp: now() + 60 })
        .setProtectedHeader({ alg, kid: rsa.kid })
        .sign(new TextEncoder().encode(pem))
      refusedToken(await authenticate(mech, t))
    }
  })

  it('takes the principal from sasl.oauthbearer.sub.claim.name and refuses a blank one', async () => {
    const byClient = await mechanismFor(file.url, { 'sasl.oauthbearer.sub.claim.name': 'client_id' })
    try {
      const o = await authenticate(byClient, await tokenFor(rsa, { client_id: ' svc-orders ' }))
      assert.deepEqual(o.ok && o.principal, 'User:svc-orders')
      refusedToken(await authenticate(byClient, await tokenFor(rsa, { client_id: '   ' })))
      refusedToken(await authenticate(byClient, await tokenFor(rsa)))
    } finally {
      byClient.close()
    }
  })

  it('reads the scope claim and refuses repeated scopes', async () => {
    assert.equal((await authenticate(mech, await tokenFor(rsa, { scope: ['read', 'write'] }))).ok, true)
    refusedToken(await authenticate(mech, await tokenFor(rsa, { scope: ['read', 'read'] })))
  })

  it('fails at once on a malformed client message, without a JSON answer', async () => {
    const t = await tokenFor(rsa)
    const cases = [
      `y,,\x01auth=Bearer ${t}\x01\x01`, // channel-binding flag other than n
      `n,x=alice,\x01auth=Bearer ${t}\x01\x01`, // not an authzid
      `n,a=al,ice,\x01auth=Bearer ${t}\x01\x01`, // unescaped comma in authzid
      `n,,auth=Bearer ${t}\x01\x01`, // no separator after the header
      `n,,\x01auth=Bearer ${t}\x01`, // no final separator
      'n,,\x01\x01', // no auth
      `n,,\x01foo=bar\x01\x01`, // extensions but no auth
      `n,,\x01auth=Basic ${t}\x01\x01`, // another scheme
      `n,,\x01auth=Bearer\x01\x01`, // no token
      `n,,\x01auth=Bearer ${t}\x01bad key=x\x01\x01`, // key not alphabetic
      `n,,\x01auth=Bearer ${t}\x01k=\x00\x01\x01`, // control character in a value
      '',
    ]
    for (const c of cases) refusedMessage(await exchange(mech, Buffer.from(c, 'latin1')))
  })

  it('refuses an oversized client message before parsing it', async () => {
    const huge = `n,,\x01auth=Bearer ${'a'.repeat(MAX_INITIAL_RESPONSE_BYTES)}\x01\x01`
    refusedMessage(await exchange(mech, Buffer.from(huge)))
  })

  it('accepts SASL extensions beside auth', async () => {
    const t = await tokenFor(rsa)
    const o = await exchange(mech, buildInitialResponse(t, '', { traceId: 'abc 123', logicalCluster: 'lkc-1' }))
    assert.equal(o.ok, true)
  })

  it('after the JSON error, only %x01 ends the exchange; a new message is evaluated afresh', async () => {
    const server = mech.create(CTX)
    const bad = await server.evaluate(buildInitialResponse(await tokenFor(rsa, { aud: 'x' })))
    assert.equal(bad.toString(), INVALID_TOKEN)
    // As Kafka's OAuthBearerSaslServer: another initial response is processed from the start.
    assert.equal((await server.evaluate(buildInitialResponse(await tokenFor(rsa)))).length, 0)
    assert.equal(server.complete, true)
    await assert.rejects(
      Promise.resolve().then(() => server.evaluate(Buffer.from([1]))),
      SaslAuthenticationError,
    )
  })
})
