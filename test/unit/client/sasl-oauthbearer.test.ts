// Tributary's OAUTHBEARER client messages against the broker's mechanism: a token (string or
// function, asked again for each authentication) is accepted; a refused one gets %x01 back and the
// exchange fails with Kafka's JSON error.
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { describe, it } from 'node:test'
import { oauthBearerInitialResponse, oauthBearerReply } from '../../../src/client/sasl-oauthbearer.js'
import { SaslAuthenticationError } from '../../../src/security/sasl/mechanism.js'
import { CTX, jwksFile, jwksOf, mechanismFor, signingKey, tokenFor } from '../../helpers/oauth.js'

describe('OAUTHBEARER client', () => {
  it('is accepted with a valid token and refused, after %x01, with an expired one', async () => {
    const key = await signingKey('k')
    const f = await jwksFile(jwksOf(key))
    const mech = await mechanismFor(f.url)
    try {
      const tokens = [await tokenFor(key, { sub: 'svc' }), await tokenFor(key, { iat: 1, exp: 2 })]
      let asked = 0
      const sasl = { mechanism: 'OAUTHBEARER', token: () => tokens[asked++]! }

      const ok = mech.create(CTX)
      const first = await ok.evaluate(await oauthBearerInitialResponse(sasl))
      assert.equal(oauthBearerReply(first), undefined)
      assert.equal(ok.principal().name, 'svc')

      const refused = mech.create(CTX)
      const answer = await refused.evaluate(await oauthBearerInitialResponse(sasl))
      const reply = oauthBearerReply(answer)
      assert.deepEqual(reply, Buffer.from([1]))
      await assert.rejects(
        Promise.resolve().then(() => refused.evaluate(reply!)),
        (err: Error) => err instanceof SaslAuthenticationError && err.message === '{"status":"invalid_token"}',
      )
      assert.equal(asked, 2)
    } finally {
      mech.close()
      await rm(f.dir, { recursive: true, force: true })
    }
  })

  it('refuses to start without a token, without naming it', async () => {
    await assert.rejects(oauthBearerInitialResponse({ mechanism: 'OAUTHBEARER' }), /security\.sasl\.token must give a token/)
    await assert.rejects(oauthBearerInitialResponse({ mechanism: 'OAUTHBEARER', token: async () => '' }), /security\.sasl\.token/)
  })
})
