// The broker's SASL/OAUTHBEARER keys (KIP-768: validating a client's JWT against the identity
// provider's JWKS), with Kafka 4.4's names, types and defaults. A listener may override any of them
// as Kafka reads them: listener.name.<listener>.oauthbearer.<key>, else listener.name.<listener>.<key>
// (BrokerConfig.listenerValue). src/security/sasl/oauthbearer-config.ts turns them into settings and
// refuses a bad combination at start-up, naming the key.
import { type ConfigKeyDef, HOUR_MS } from './config-key.js'

// A JWKS URL as Kafka takes it: file:, http: or https:.
const jwksUrl = (v: string | null) => {
  if (v === null) return undefined
  try {
    const u = new URL(v)
    return ['file:', 'http:', 'https:'].includes(u.protocol) ? undefined : 'a file:, http: or https: URL'
  } catch {
    return 'a file:, http: or https: URL'
  }
}

export const OAUTHBEARER_KEYS = [
  {
    name: 'sasl.oauthbearer.jwks.endpoint.url',
    type: 'string',
    default: null,
    validator: { check: jwksUrl },
    scope: 'broker',
    doc: 'Where the identity provider publishes its JWKS: a file: URL (re-read when the file changes) or an http(s): URL (fetched at start-up, refreshed every sasl.oauthbearer.jwks.endpoint.refresh.ms, and at once when a token names an unknown kid). Required when OAUTHBEARER is enabled.',
  },
  {
    name: 'sasl.oauthbearer.jwks.endpoint.refresh.ms',
    type: 'long',
    default: String(HOUR_MS),
    validator: { min: 1 },
    scope: 'broker',
    doc: 'How often the JWKS of an http(s) sasl.oauthbearer.jwks.endpoint.url is fetched again.',
  },
  {
    name: 'sasl.oauthbearer.jwks.endpoint.retry.backoff.ms',
    type: 'long',
    default: '100',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'First wait between attempts to fetch the JWKS; doubled after each failure up to sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms.',
  },
  {
    name: 'sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms',
    type: 'long',
    default: '10000',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'Longest wait between attempts to fetch the JWKS.',
  },
  {
    name: 'sasl.oauthbearer.clock.skew.seconds',
    type: 'int',
    default: '30',
    validator: { min: 0 },
    scope: 'broker',
    doc: "Seconds of difference allowed between the broker's clock and the identity provider's when checking exp, nbf and iat.",
  },
  {
    name: 'sasl.oauthbearer.expected.audience',
    type: 'list',
    default: null,
    scope: 'broker',
    doc: 'Audiences this cluster answers to: a token is accepted when one of its aud values is one of these. Required with a JWKS URL unless sasl.oauthbearer.allow.unverified.audience=true.',
  },
  {
    name: 'sasl.oauthbearer.expected.issuer',
    type: 'string',
    default: null,
    scope: 'broker',
    doc: 'The issuer (iss) tokens must carry. Required with a JWKS URL unless sasl.oauthbearer.allow.unverified.issuer=true.',
  },
  {
    name: 'sasl.oauthbearer.allow.unverified.audience',
    type: 'boolean',
    default: 'false',
    scope: 'broker',
    doc: 'Accept tokens whatever their audience when sasl.oauthbearer.expected.audience is unset (insecure).',
  },
  {
    name: 'sasl.oauthbearer.allow.unverified.issuer',
    type: 'boolean',
    default: 'false',
    scope: 'broker',
    doc: 'Accept tokens whatever their issuer when sasl.oauthbearer.expected.issuer is unset (insecure).',
  },
  {
    name: 'sasl.oauthbearer.sub.claim.name',
    type: 'string',
    default: 'sub',
    scope: 'broker',
    doc: "The claim whose value is the client's principal name (User:<value>).",
  },
  {
    name: 'sasl.oauthbearer.scope.claim.name',
    type: 'string',
    default: 'scope',
    scope: 'broker',
    doc: "The claim holding the token's scopes (a space-separated string or a list).",
  },
  {
    name: 'tributary.sasl.oauthbearer.allowed.urls',
    type: 'list',
    default: null,
    scope: 'broker',
    doc: "The JWKS URLs that may be used, like Kafka's org.apache.kafka.sasl.oauthbearer.allowed.urls system property (a broker config here). Unset: any URL; set: sasl.oauthbearer.jwks.endpoint.url must be one of them.",
  },
] as const satisfies readonly ConfigKeyDef[]
