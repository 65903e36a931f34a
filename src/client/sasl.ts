// The client side of SASL on one connection, after ApiVersions (api-versions.ts calls it when
// security.protocol is SASL_PLAINTEXT or SASL_SSL): SaslHandshake v1 names the mechanism, then each
// token goes in a SaslAuthenticate request until the mechanism is done, as Kafka's
// SaslClientAuthenticator does. PLAIN sends one message; SCRAM-SHA-256/512 run RFC 5802 with the
// arithmetic the broker uses (protocol/sasl/scram-crypto.ts) and check the broker's signature, so a
// broker that does not know the password cannot pass for one that does. Mechanisms plug in through
// SASL_CLIENT_MECHANISMS (OAUTHBEARER adds its entry). Failures are ClientErrors with Kafka's codes
// (UNSUPPORTED_SASL_MECHANISM, SASL_AUTHENTICATION_FAILED, ILLEGAL_SASL_STATE); no message carries
// a password.
import { timingSafeEqual } from 'node:crypto'
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../protocol/messages/36-sasl-authenticate.js'
import { SaslHandshakeRequest, SaslHandshakeResponse } from '../protocol/messages/17-sasl-handshake.js'
import {
  clientProof,
  newNonce,
  SCRAM_MIN_ITERATIONS,
  type ScramMechanismParams,
  saltedPassword,
  scramMechanismByName,
  serverKey,
  serverSignature,
} from '../protocol/sasl/scram-crypto.js'
import {
  authMessage,
  clientFinalWithoutProof,
  clientFirstBare,
  parseServerFinal,
  parseServerFirst,
  ScramFormatError,
} from '../protocol/sasl/scram-messages.js'
import type { Connection } from './connection.js'
import { OAUTHBEARER, oauthBearerClient } from './sasl-oauthbearer.js'
import { ClientError, throwIfError } from './errors.js'
import type { ClientSaslOptions } from './security.js'

/** One client exchange: the first token, then the answer to each server token (undefined: done). */
export interface SaslClientExchange {
  start(): Promise<Buffer> | Buffer
  next(serverToken: Buffer): Promise<Buffer | undefined> | Buffer | undefined
}

export type SaslClientFactory = (opts: ClientSaslOptions) => SaslClientExchange

function credentials(opts: ClientSaslOptions): { username: string; password: string } {
  if (!opts.username || opts.password === undefined) {
    throw new ClientError('INVALID_REQUEST', `SASL ${opts.mechanism} needs a username and a password`)
  }
  return { username: opts.username, password: opts.password }
}

function plainClient(opts: ClientSaslOptions): SaslClientExchange {
  const { username, password } = credentials(opts)
  return {
    start: () => Buffer.from(`\u0000${username}\u0000${password}`, 'utf8'),
    next: () => undefined,
  }
}

const GS2_HEADER = 'n,,'

function scramClient(m: ScramMechanismParams, opts: ClientSaslOptions): SaslClientExchange {
  const { username, password } = credentials(opts)
  const nonce = newNonce()
  const bare = clientFirstBare(username, nonce)
  let expectedSignature: Buffer | undefined
  const refuse = (why: string) => new ClientError('SASL_AUTHENTICATION_FAILED', `${m.name}: ${why}`)
  return {
    start: () => Buffer.from(GS2_HEADER + bare),
    next(serverToken) {
      try {
        if (expectedSignature === undefined) {
          const first = parseServerFirst(serverToken)
          if (!first.nonce.startsWith(nonce) || first.nonce.length === nonce.length) throw refuse('the broker changed the nonce')
          if (first.iterations < SCRAM_MIN_ITERATIONS)
            throw refuse(`${first.iterations} iterations is below the minimum ${SCRAM_MIN_ITERATIONS}`)
          const salted = saltedPassword(m, password, first.salt, first.iterations)
          const withoutProof = clientFinalWithoutProof(GS2_HEADER, first.nonce)
          const message = authMessage(bare, first.text, withoutProof)
          expectedSignature = serverSignature(m, serverKey(m, salted), message)
          return Buffer.from(`${withoutProof},p=${clientProof(m, salted, message).toString('base64')}`)
        }
        const final = parseServerFinal(serverToken)
        if (final.error !== undefined) throw refuse(`the broker answered error ${final.error}`)
        const sig = final.signature!
        if (sig.length !== expectedSignature.length || !timingSafeEqual(sig, expectedSignature)) {
          throw refuse('the broker’s signature is wrong: it does not know this password')
        }
        return undefined
      } catch (err) {
        if (err instanceof ScramFormatError) throw refuse(err.message)
        throw err
      }
    },
  }
}

export const SASL_CLIENT_MECHANISMS = new Map<string, SaslClientFactory>([
  ['PLAIN', plainClient],
  ['SCRAM-SHA-256', (o) => scramClient(scramMechanismByName('SCRAM-SHA-256')!, o)],
  ['SCRAM-SHA-512', (o) => scramClient(scramMechanismByName('SCRAM-SHA-512')!, o)],
  [OAUTHBEARER, oauthBearerClient],
])

/** The result of a successful exchange. */
export interface SaslSession {
  /** KIP-368: ms until the broker wants a re-authentication; 0 = never. */
  sessionLifetimeMs: number
}

/** Authenticates a connection whose versions are negotiated; throws a ClientError when refused. */
export async function authenticateSasl(conn: Connection, opts: ClientSaslOptions): Promise<SaslSession> {
  const factory = SASL_CLIENT_MECHANISMS.get(opts.mechanism)
  if (!factory) {
    throw new ClientError('UNSUPPORTED_SASL_MECHANISM', `this client does not support SASL mechanism ${opts.mechanism}`)
  }
  const exchange = factory(opts)
  const versions = conn.versions!
  const hs = await conn.request(
    SaslHandshakeRequest,
    SaslHandshakeResponse,
    versions.pick(SaslHandshakeRequest, SaslHandshakeResponse, 1),
    { mechanism: opts.mechanism },
  )
  if (hs.errorCode !== 0) {
    throwIfError(
      hs.errorCode,
      `SaslHandshake with ${conn.address}`,
      `mechanism ${opts.mechanism}; the broker enables ${hs.mechanisms.join(', ') || 'none'}`,
    )
  }
  const version = versions.pick(SaslAuthenticateRequest, SaslAuthenticateResponse)
  let token: Buffer | undefined = await exchange.start()
  let lifetimeMs = 0
  while (token !== undefined) {
    const res = await conn.request(SaslAuthenticateRequest, SaslAuthenticateResponse, version, { authBytes: token })
    throwIfError(res.errorCode, `SASL ${opts.mechanism} authentication with ${conn.address}`, res.errorMessage)
    lifetimeMs = res.sessionLifetimeMs
    token = await exchange.next(res.authBytes)
  }
  return { sessionLifetimeMs: lifetimeMs }
}
