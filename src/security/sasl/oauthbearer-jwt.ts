// Validation of an OAUTHBEARER token as Kafka 4.4's BrokerJwtValidator does it (KIP-768): a signed
// JWT (JWS compact form, three sections) whose signature verifies against the JWKS; `alg: none` and
// symmetric algorithms are refused (only RSA, RSA-PSS, ECDSA and EdDSA keys come from a JWKS).
// Claims: exp and iat are required; exp, nbf and iat are checked against the clock with
// sasl.oauthbearer.clock.skew.seconds of tolerance (iat may not lie in the future); aud must
// include one of sasl.oauthbearer.expected.audience and iss equal sasl.oauthbearer.expected.issuer
// when they are set; the principal is the claim sasl.oauthbearer.sub.claim.name (a non-blank
// string, trimmed); the scopes are sasl.oauthbearer.scope.claim.name (a string is one scope, as
// Kafka reads it, or a list; no blank or repeated scope). Errors say what failed, never the token.
import { type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose'

export const ASYMMETRIC_JWS_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']

export interface JwtValidationSettings {
  clockSkewSeconds: number
  /** Any one must be in aud; null: aud not checked. */
  expectedAudience: readonly string[] | null
  /** null: iss not checked. */
  expectedIssuer: string | null
  subClaimName: string
  scopeClaimName: string
}

export interface ValidatedToken {
  principalName: string
  scopes: readonly string[]
  /** exp, in ms since the epoch. */
  expiresAtMs: number
  issuedAtMs: number
  claims: JWTPayload
}

export class JwtValidationError extends Error {
  override name = 'JwtValidationError'
}

export async function validateJwt(
  token: string,
  getKey: JWTVerifyGetKey,
  settings: JwtValidationSettings,
  nowMs: number,
): Promise<ValidatedToken> {
  const jwt = token.trim()
  const sections = jwt.split('.')
  if (sections.length !== 3 || sections.some((s) => s === '')) {
    throw new JwtValidationError('Malformed JWT provided; expected three sections (header, payload, and signature)')
  }
  let payload: JWTPayload
  try {
    const verified = await jwtVerify(jwt, getKey, {
      algorithms: ASYMMETRIC_JWS_ALGORITHMS,
      clockTolerance: settings.clockSkewSeconds,
      currentDate: new Date(nowMs),
      requiredClaims: ['exp', 'iat'],
      ...(settings.expectedIssuer !== null ? { issuer: settings.expectedIssuer } : {}),
      ...(settings.expectedAudience !== null && settings.expectedAudience.length > 0 ? { audience: [...settings.expectedAudience] } : {}),
    })
    payload = verified.payload
  } catch (err) {
    throw new JwtValidationError(`Could not validate the access token: ${(err as Error).message}`)
  }
  const iat = payload.iat!
  if (iat * 1000 > nowMs + settings.clockSkewSeconds * 1000) {
    throw new JwtValidationError('Could not validate the access token: "iat" claim is in the future')
  }
  const sub = payload[settings.subClaimName]
  if (typeof sub !== 'string' || sub.trim() === '') {
    throw new JwtValidationError(`The ${settings.subClaimName} claim is required and must be a non-blank string`)
  }
  return {
    principalName: sub.trim(),
    scopes: readScopes(payload[settings.scopeClaimName], settings.scopeClaimName),
    expiresAtMs: payload.exp! * 1000,
    issuedAtMs: iat * 1000,
    claims: payload,
  }
}

function readScopes(raw: unknown, claim: string): string[] {
  const list = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : []
  const out = new Set<string>()
  for (const s of list) {
    if (typeof s !== 'string' || s.trim() === '') throw new JwtValidationError(`The ${claim} claim holds a blank or non-string scope`)
    if (out.has(s.trim())) throw new JwtValidationError(`The ${claim} claim repeats the scope ${JSON.stringify(s.trim())}`)
    out.add(s.trim())
  }
  return [...out]
}
