// SASL/OAUTHBEARER on the broker (KIP-255; token validation against a JWKS, KIP-768), as Kafka's
// OAuthBearerSaslServer with OAuthBearerValidatorCallbackHandler behaves:
//
// 1. The client's initial response is parsed strictly (protocol/sasl/oauthbearer-message.ts). A malformed one
//    fails the exchange at once with Kafka's generic message.
// 2. The token is validated (oauthbearer-jwt.ts) with keys from the JWKS (jwks-source.ts). A token
//    that fails is answered, not refused: the server token is the RFC 7628 JSON error
//    {"status":"invalid_token"}; the client then sends a single %x01 and the exchange fails with
//    that JSON as the error message (SASL_AUTHENTICATION_FAILED). Why the token failed is logged at
//    debug, never the token itself.
// 3. An authzid, when given, must equal the token's principal name.
// 4. Success: the principal is User:<sub claim>; credentialLifetimeMs() is the time left to exp, so
//    the session lifetime (KIP-368) follows the token.
//
// Settings are read per listener, as Kafka reads them (BrokerConfig.listenerValue: the listener and
// mechanism prefix first); a missing JWKS URL, an unverified audience or issuer without the
// allow.unverified.* opt-out, a URL outside tributary.sasl.oauthbearer.allowed.urls or an
// unreadable JWKS file fail start-up with a ConfigError naming the key; an unreachable JWKS endpoint
// rejects `jwks.ready` with one (and is logged), tokens being refused until the JWKS is had.
import { type BrokerConfig, type BrokerConfigName, ConfigError } from '../../config/config.js'
import { type KafkaPrincipal, userPrincipal } from '../../network/principal.js'
import { type Clock, systemClock } from '../../util/clock.js'
import { type Logger, silentLogger } from '../../util/logger.js'
import { type JwksSource, createJwksSource } from './jwks-source.js'
import { SaslAuthenticationError, type SaslContext, type SaslMechanism, type SaslServer } from './mechanism.js'
import { type JwtValidationSettings, JwtValidationError, type ValidatedToken, validateJwt } from './oauthbearer-jwt.js'
import {
  type OAuthBearerInitialResponse,
  OAuthBearerMessageError,
  jsonErrorResponse,
  parseInitialResponse,
} from '../../protocol/sasl/oauthbearer-message.js'

export const OAUTHBEARER = 'OAUTHBEARER'

/** What Kafka's SaslServerAuthenticator tells a client whose SASL message could not be used. */
export const INVALID_CREDENTIALS_MESSAGE = `Authentication failed during authentication due to invalid credentials with SASL mechanism ${OAUTHBEARER}`

export interface OAuthBearerSettings {
  jwksUrl: URL
  /** The key the JWKS URL was read from (named in errors). */
  jwksKey: string
  refreshMs: number
  retryBackoffMs: number
  retryBackoffMaxMs: number
  validation: JwtValidationSettings
}

/** The OAUTHBEARER settings of one listener; throws ConfigError naming the key when they cannot work. */
export function oauthBearerSettings(config: BrokerConfig, listener: string): OAuthBearerSettings {
  const get = <N extends BrokerConfigName>(name: N) => config.listenerValue(listener, name, OAUTHBEARER)
  const keyOf = (name: BrokerConfigName) => config.listenerKey(listener, name, OAUTHBEARER)
  const jwksKey = keyOf('sasl.oauthbearer.jwks.endpoint.url')
  const url = get('sasl.oauthbearer.jwks.endpoint.url')
  if (url === null) {
    throw new ConfigError(
      `${jwksKey} must be set: OAUTHBEARER is enabled on listener ${listener} and tokens are validated against a JWKS`,
      jwksKey,
      '',
    )
  }
  const allowed = get('tributary.sasl.oauthbearer.allowed.urls')
  if (allowed !== null && !allowed.includes('*') && !allowed.includes(url)) {
    throw new ConfigError(
      `The JWKS URL ${url} of ${jwksKey} cannot be accessed due to restrictions: it is not in tributary.sasl.oauthbearer.allowed.urls`,
      jwksKey,
      url,
    )
  }
  const audience = get('sasl.oauthbearer.expected.audience')
  if ((audience === null || audience.length === 0) && !get('sasl.oauthbearer.allow.unverified.audience')) {
    const k = keyOf('sasl.oauthbearer.expected.audience')
    throw new ConfigError(
      `${k} must be set so that the token's audience (aud) can be verified; or set sasl.oauthbearer.allow.unverified.audience=true to accept any audience`,
      k,
      '',
    )
  }
  const issuer = get('sasl.oauthbearer.expected.issuer')
  if (issuer === null && !get('sasl.oauthbearer.allow.unverified.issuer')) {
    const k = keyOf('sasl.oauthbearer.expected.issuer')
    throw new ConfigError(
      `${k} must be set so that the token's issuer (iss) can be verified; or set sasl.oauthbearer.allow.unverified.issuer=true to accept any issuer`,
      k,
      '',
    )
  }
  return {
    jwksUrl: new URL(url),
    jwksKey,
    refreshMs: get('sasl.oauthbearer.jwks.endpoint.refresh.ms'),
    retryBackoffMs: get('sasl.oauthbearer.jwks.endpoint.retry.backoff.ms'),
    retryBackoffMaxMs: get('sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms'),
    validation: {
      clockSkewSeconds: get('sasl.oauthbearer.clock.skew.seconds'),
      expectedAudience: audience,
      expectedIssuer: issuer,
      subClaimName: get('sasl.oauthbearer.sub.claim.name'),
      scopeClaimName: get('sasl.oauthbearer.scope.claim.name'),
    },
  }
}

export interface OAuthBearerOptions {
  log?: Logger
  clock?: Clock
  /** HTTP fetch for an http(s) JWKS (tests). */
  fetch?: typeof fetch
}

export class OAuthBearerMechanism implements SaslMechanism {
  readonly name = OAUTHBEARER
  private readonly log: Logger
  private readonly clock: Clock

  constructor(
    readonly jwks: JwksSource,
    private readonly validation: JwtValidationSettings,
    opts: OAuthBearerOptions = {},
  ) {
    this.log = opts.log ?? silentLogger
    this.clock = opts.clock ?? systemClock
  }

  create(ctx: SaslContext): SaslServer {
    return new OAuthBearerServer(this, ctx)
  }

  /** @internal */
  validate(token: string): Promise<ValidatedToken> {
    return validateJwt(token, this.jwks.getKey, this.validation, this.clock.now())
  }

  /** @internal */
  logFailure(ctx: SaslContext, reason: string): void {
    this.log.debug('OAUTHBEARER authentication failed', { listener: ctx.listenerName, remote: ctx.remoteAddress, reason })
  }

  /** @internal */
  now(): number {
    return this.clock.now()
  }

  close(): void {
    this.jwks.close()
  }
}

/**
 * One listener's OAUTHBEARER mechanism, as the SASL registry builds it: settings read (ConfigError
 * naming the key), a file JWKS read, an http(s) one being fetched (`jwks.ready` says when).
 */
export function createOAuthBearerMechanism(config: BrokerConfig, listener: string, opts: OAuthBearerOptions = {}): OAuthBearerMechanism {
  const s = oauthBearerSettings(config, listener)
  const jwks = createJwksSource({
    url: s.jwksUrl,
    key: s.jwksKey,
    refreshMs: s.refreshMs,
    retryBackoffMs: s.retryBackoffMs,
    retryBackoffMaxMs: s.retryBackoffMaxMs,
    log: opts.log ?? silentLogger,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  })
  return new OAuthBearerMechanism(jwks, s.validation, opts)
}

/** The same, once its first keys are had (rejects with the ConfigError when they cannot be). */
export async function openOAuthBearerMechanism(
  config: BrokerConfig,
  listener: string,
  opts: OAuthBearerOptions = {},
): Promise<OAuthBearerMechanism> {
  const mech = createOAuthBearerMechanism(config, listener, opts)
  try {
    await mech.jwks.ready
  } catch (err) {
    mech.close()
    throw err
  }
  return mech
}

class OAuthBearerServer implements SaslServer {
  complete = false
  private token: ValidatedToken | undefined
  /** The JSON error sent for a refused token, until the client's %x01. */
  private errorMessage: string | undefined

  constructor(
    private readonly mechanism: OAuthBearerMechanism,
    private readonly ctx: SaslContext,
  ) {}

  async evaluate(response: Buffer): Promise<Buffer> {
    if (this.complete) throw new SaslAuthenticationError(INVALID_CREDENTIALS_MESSAGE)
    if (response.length === 1 && response[0] === 0x01 && this.errorMessage !== undefined) {
      throw new SaslAuthenticationError(this.errorMessage)
    }
    this.errorMessage = undefined
    let message: OAuthBearerInitialResponse
    try {
      message = parseInitialResponse(response)
    } catch (err) {
      if (!(err instanceof OAuthBearerMessageError)) throw err
      this.mechanism.logFailure(this.ctx, err.message)
      throw new SaslAuthenticationError(INVALID_CREDENTIALS_MESSAGE)
    }
    let token: ValidatedToken
    try {
      token = await this.mechanism.validate(message.token)
    } catch (err) {
      if (!(err instanceof JwtValidationError)) throw err
      this.mechanism.logFailure(this.ctx, err.message)
      this.errorMessage = jsonErrorResponse('invalid_token')
      return Buffer.from(this.errorMessage, 'utf8')
    }
    if (message.authzid !== '' && message.authzid !== token.principalName) {
      this.mechanism.logFailure(this.ctx, 'authorization id differs from the principal')
      throw new SaslAuthenticationError(
        `Authentication failed: Client requested an authorization id (${message.authzid.slice(0, 256)}) that is different from the token's principal name (${token.principalName})`,
      )
    }
    this.token = token
    this.complete = true
    return Buffer.alloc(0)
  }

  principal(): KafkaPrincipal {
    if (!this.token) throw new Error('OAUTHBEARER exchange has not completed')
    return userPrincipal(this.token.principalName)
  }

  /** Scopes of the token (read; not used for authorization). */
  scopes(): readonly string[] {
    return this.token?.scopes ?? []
  }

  credentialLifetimeMs(): number | undefined {
    return this.token ? Math.max(0, this.token.expiresAtMs - this.mechanism.now()) : undefined
  }
}
