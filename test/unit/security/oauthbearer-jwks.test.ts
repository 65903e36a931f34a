// Where OAUTHBEARER's keys come from: a JWKS file re-read when it changes, a JWKS over HTTP fetched
// again on an unknown kid (rate-limited) and every refresh.ms, and the start-up checks naming the
// key (no URL, unreadable file, unreachable endpoint, audience/issuer unverified, allowed URLs,
// listener-prefixed overrides).
import assert from 'node:assert/strict'
import { rm, writeFile } from 'node:fs/promises'
import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { before, describe, it } from 'node:test'
import { ConfigError, defaultBrokerConfig } from '../../../src/config/config.js'
import { buildInitialResponse } from '../../../src/protocol/sasl/oauthbearer-message.js'
import { type OAuthBearerMechanism, createOAuthBearerMechanism, oauthBearerSettings } from '../../../src/security/sasl/oauthbearer.js'
import { AUDIENCE, CTX, ISSUER, type SigningKey, jwksFile, jwksOf, mechanismFor, signingKey, tokenFor } from '../../helpers/oauth.js'

async function accepted(mech: OAuthBearerMechanism, token: string): Promise<boolean> {
  const server = mech.create(CTX)
  await server.evaluate(buildInitialResponse(token))
  return server.complete
}

/** A JWKS endpoint whose document the test sets (null: answers 503), counting requests. */
async function jwksServer(
  initial: string | null,
): Promise<{ server: Server; url: string; hits: () => number; set(doc: string | null): void }> {
  let doc = initial
  let hits = 0
  const server = createServer((_req, res) => {
    hits++
    if (doc === null) res.writeHead(503).end()
    else res.writeHead(200, { 'content-type': 'application/json' }).end(doc)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`
  return { server, url, hits: () => hits, set: (d) => void (doc = d) }
}

describe('OAUTHBEARER JWKS sources', () => {
  let k1: SigningKey
  let k2: SigningKey
  let k3: SigningKey
  before(async () => {
    k1 = await signingKey('key-1', 'RS256')
    k2 = await signingKey('key-2', 'ES256')
    k3 = await signingKey('key-3', 'RS256')
  })

  it('picks up a rotated JWKS file', async () => {
    const f = await jwksFile(jwksOf(k1))
    const mech = await mechanismFor(f.url)
    try {
      assert.equal(await accepted(mech, await tokenFor(k1)), true)
      assert.equal(await accepted(mech, await tokenFor(k2)), false)
      await writeFile(f.path, jwksOf(k2))
      assert.equal(await accepted(mech, await tokenFor(k2)), true)
      assert.equal(await accepted(mech, await tokenFor(k1)), false, 'the retired key is gone')
      // A broken file keeps the keys read before.
      await writeFile(f.path, '{"keys": [')
      assert.equal(await accepted(mech, await tokenFor(k2)), true)
    } finally {
      mech.close()
      await rm(f.dir, { recursive: true, force: true })
    }
  })

  it('fetches an HTTP JWKS again on an unknown kid, at most once per interval', async () => {
    const idp = await jwksServer(jwksOf(k1))
    const mech = await mechanismFor(idp.url)
    try {
      assert.equal(idp.hits(), 1)
      assert.equal(await accepted(mech, await tokenFor(k1)), true)
      assert.equal(idp.hits(), 1, 'a known kid needs no fetch')
      idp.set(jwksOf(k1, k2))
      assert.equal(await accepted(mech, await tokenFor(k2)), true)
      assert.equal(idp.hits(), 2)
      // Right after, another unknown kid does not make the broker fetch again.
      idp.set(jwksOf(k1, k2, k3))
      assert.equal(await accepted(mech, await tokenFor(k3)), false)
      assert.equal(idp.hits(), 2)
    } finally {
      mech.close()
      idp.server.close()
    }
  })

  it('fetches an HTTP JWKS every sasl.oauthbearer.jwks.endpoint.refresh.ms', async () => {
    const idp = await jwksServer(jwksOf(k1))
    const mech = await mechanismFor(idp.url, { 'sasl.oauthbearer.jwks.endpoint.refresh.ms': 50 })
    try {
      idp.set(jwksOf(k3))
      while (mech.jwks.loads < 3) await new Promise((r) => setTimeout(r, 20))
      assert.equal(await accepted(mech, await tokenFor(k3)), true)
      assert.equal(await accepted(mech, await tokenFor(k1)), false)
    } finally {
      mech.close()
      idp.server.close()
    }
  })

  it('refuses tokens while the first fetch has failed, and accepts them once the endpoint answers', async () => {
    const idp = await jwksServer(null)
    const config = defaultBrokerConfig({
      'sasl.oauthbearer.jwks.endpoint.url': idp.url,
      'sasl.oauthbearer.expected.audience': AUDIENCE,
      'sasl.oauthbearer.expected.issuer': ISSUER,
      'sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms': 0,
    })
    const mech = createOAuthBearerMechanism(config, 'SASL_PLAINTEXT')
    try {
      await assert.rejects(mech.jwks.ready, (err: ConfigError) => err instanceof ConfigError && /HTTP 503/.test(err.message))
      idp.set(jwksOf(k1))
      assert.equal(await accepted(mech, await tokenFor(k1)), true)
      assert.equal(idp.hits(), 2)
    } finally {
      mech.close()
      idp.server.close()
    }
  })

  it('fails start-up naming the key when the endpoint cannot be reached or answers no JWKS', async () => {
    const idp = await jwksServer('not json')
    try {
      await assert.rejects(
        mechanismFor(idp.url, { 'sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms': 200 }),
        (err: ConfigError) =>
          err instanceof ConfigError && err.key === 'sasl.oauthbearer.jwks.endpoint.url' && /not JSON/.test(err.message),
      )
      assert.ok(idp.hits() >= 2, `retried (${idp.hits()} requests)`)
    } finally {
      idp.server.close()
    }
    await assert.rejects(
      mechanismFor(idp.url, { 'sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms': 0 }),
      (err: ConfigError) => err instanceof ConfigError && err.key === 'sasl.oauthbearer.jwks.endpoint.url',
    )
  })

  it('fails start-up naming the key for a missing or unusable JWKS file', async () => {
    await assert.rejects(
      mechanismFor('file:///nonexistent/jwks.json'),
      (err: ConfigError) => err instanceof ConfigError && err.key === 'sasl.oauthbearer.jwks.endpoint.url' && /ENOENT/.test(err.message),
    )
    const f = await jwksFile('{"no": "keys"}')
    try {
      await assert.rejects(mechanismFor(f.url), (err: ConfigError) => err instanceof ConfigError && /JSON Web Key Set/.test(err.message))
    } finally {
      await rm(f.dir, { recursive: true, force: true })
    }
  })
})

describe('OAUTHBEARER settings', () => {
  const base = {
    'sasl.oauthbearer.jwks.endpoint.url': 'https://idp.example/jwks',
    'sasl.oauthbearer.expected.audience': AUDIENCE,
    'sasl.oauthbearer.expected.issuer': ISSUER,
  }
  const settingsOf = (values: Record<string, string | number | boolean>) =>
    oauthBearerSettings(defaultBrokerConfig(values), 'SASL_PLAINTEXT')
  const refusedFor = (values: Record<string, string | number | boolean>, key: string) =>
    assert.throws(
      () => settingsOf(values),
      (err: ConfigError) => err instanceof ConfigError && err.key === key,
      key,
    )

  it("has Kafka's defaults", () => {
    const s = settingsOf(base)
    assert.deepEqual(
      [
        s.refreshMs,
        s.retryBackoffMs,
        s.retryBackoffMaxMs,
        s.validation.clockSkewSeconds,
        s.validation.subClaimName,
        s.validation.scopeClaimName,
      ],
      [3_600_000, 100, 10_000, 30, 'sub', 'scope'],
    )
  })

  it('refuses to start without a JWKS URL, audience or issuer (unless opted out)', () => {
    refusedFor({ ...base, 'sasl.oauthbearer.jwks.endpoint.url': undefined as never }, 'sasl.oauthbearer.jwks.endpoint.url')
    refusedFor({ ...base, 'sasl.oauthbearer.expected.audience': undefined as never }, 'sasl.oauthbearer.expected.audience')
    refusedFor({ ...base, 'sasl.oauthbearer.expected.issuer': undefined as never }, 'sasl.oauthbearer.expected.issuer')
    const open = settingsOf({
      'sasl.oauthbearer.jwks.endpoint.url': 'https://idp.example/jwks',
      'sasl.oauthbearer.allow.unverified.audience': true,
      'sasl.oauthbearer.allow.unverified.issuer': true,
    })
    assert.deepEqual([open.validation.expectedAudience, open.validation.expectedIssuer], [null, null])
  })

  it('refuses a URL that is not file:, http: or https:, when the key is parsed', () => {
    assert.throws(
      () => defaultBrokerConfig({ 'sasl.oauthbearer.jwks.endpoint.url': 'ftp://idp.example/jwks' }),
      (err: ConfigError) => err instanceof ConfigError && err.key === 'sasl.oauthbearer.jwks.endpoint.url',
    )
  })

  it('refuses a URL outside tributary.sasl.oauthbearer.allowed.urls', () => {
    refusedFor({ ...base, 'tributary.sasl.oauthbearer.allowed.urls': 'https://other.example/jwks' }, 'sasl.oauthbearer.jwks.endpoint.url')
    assert.equal(
      settingsOf({ ...base, 'tributary.sasl.oauthbearer.allowed.urls': 'https://x,https://idp.example/jwks' }).jwksKey,
      'sasl.oauthbearer.jwks.endpoint.url',
    )
    assert.ok(settingsOf({ ...base, 'tributary.sasl.oauthbearer.allowed.urls': '*' }))
  })

  it('reads listener-prefixed values first, as Kafka does', () => {
    const s = settingsOf({
      ...base,
      'listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.expected.audience': 'orders',
      'listener.name.sasl_plaintext.sasl.oauthbearer.clock.skew.seconds': 5,
      'listener.name.other.oauthbearer.sasl.oauthbearer.expected.issuer': 'https://nope',
      'listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.jwks.endpoint.url': 'file:///etc/idp/jwks.json',
    })
    assert.deepEqual(s.validation.expectedAudience, ['orders'])
    assert.equal(s.validation.clockSkewSeconds, 5)
    assert.equal(s.validation.expectedIssuer, ISSUER)
    assert.equal(s.jwksKey, 'listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.jwks.endpoint.url')
    assert.equal(s.jwksUrl.href, 'file:///etc/idp/jwks.json')
    assert.throws(
      () => defaultBrokerConfig({ 'listener.name.x.oauthbearer.sasl.oauthbearer.clock.skew.seconds': 'soon' }),
      (err: ConfigError) => err instanceof ConfigError,
    )
  })
})
