// Test helpers for OAUTHBEARER: an identity provider made with jose (RSA and EC signing keys, a
// JWKS of their public halves, tokens signed with them) and a mechanism over a JWKS file.
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type JWK, type JWTPayload, type KeyLike, SignJWT, exportJWK, generateKeyPair } from 'jose'
import { defaultBrokerConfig } from '../../src/config/config.js'
import { type OAuthBearerMechanism, openOAuthBearerMechanism } from '../../src/security/sasl/oauthbearer.js'
import type { Clock } from '../../src/util/clock.js'

export const ISSUER = 'https://idp.example'
export const AUDIENCE = 'tributary'

export interface SigningKey {
  kid: string
  alg: string
  privateKey: KeyLike
  publicJwk: JWK
}

export async function signingKey(kid: string, alg: 'RS256' | 'ES256' | 'PS256' = 'RS256'): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true })
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' }
  return { kid, alg, privateKey, publicJwk }
}

export const jwksOf = (...keys: SigningKey[]) => JSON.stringify({ keys: keys.map((k) => k.publicJwk) })

/** A token signed with `key`: iss, aud, sub alice, iat now, exp in an hour, unless claims say otherwise. */
export async function tokenFor(
  key: SigningKey,
  claims: JWTPayload = {},
  opts: { nowS?: number; header?: Record<string, unknown> } = {},
): Promise<string> {
  const now = opts.nowS ?? Math.floor(Date.now() / 1000)
  const payload: JWTPayload = { iss: ISSUER, aud: AUDIENCE, sub: 'alice', iat: now, exp: now + 3600, scope: 'kafka', ...claims }
  for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k]
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...opts.header }).sign(key.privateKey)
}

export async function jwksFile(text: string): Promise<{ dir: string; path: string; url: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'oauth-'))
  const path = join(dir, 'jwks.json')
  await writeFile(path, text)
  return { dir, path, url: pathToFileURL(path).href }
}

/** A mechanism for listener SASL_PLAINTEXT validating against `url`, with these extra settings. */
export function mechanismFor(
  url: string,
  extra: Record<string, string | number | boolean> = {},
  opts: { clock?: Clock; fetch?: typeof fetch } = {},
): Promise<OAuthBearerMechanism> {
  const config = defaultBrokerConfig({
    'sasl.oauthbearer.jwks.endpoint.url': url,
    'sasl.oauthbearer.expected.audience': AUDIENCE,
    'sasl.oauthbearer.expected.issuer': ISSUER,
    ...extra,
  })
  return openOAuthBearerMechanism(config, 'SASL_PLAINTEXT', opts)
}

export const CTX = { listenerName: 'SASL_PLAINTEXT', remoteAddress: '127.0.0.1:5555' }
