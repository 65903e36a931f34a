// The client side of SASL/OAUTHBEARER (RFC 7628, KIP-255), as Tributary's client speaks it when
// security.sasl.mechanism is OAUTHBEARER: the initial response carries security.sasl.token (a
// string, or a function asked for a fresh token on each authentication). A server that refuses
// the token answers a JSON error instead of an empty message; the client then sends %x01, as the
// RFC and Kafka's OAuthBearerSaslClient do, and the broker fails the exchange with
// SASL_AUTHENTICATION_FAILED. The token is never logged or put in an error message.
import { buildInitialResponse } from '../protocol/sasl/oauthbearer-message.js'
import { ClientError } from './errors.js'
import type { ClientSaslOptions } from './security.js'

export const OAUTHBEARER = 'OAUTHBEARER'

/** The first client message: `auth=Bearer <token>` with the token from the options. */
export async function oauthBearerInitialResponse(sasl: ClientSaslOptions): Promise<Buffer> {
  const token = typeof sasl.token === 'function' ? await sasl.token() : sasl.token
  if (typeof token !== 'string' || token === '') {
    throw new ClientError('INVALID_REQUEST', 'security.sasl.token must give a token (a JWT) for SASL mechanism OAUTHBEARER')
  }
  return buildInitialResponse(token)
}

/**
 * The client's answer to a server message: undefined when the exchange is over on our side (an
 * empty server message: accepted), else %x01 (the server sent its JSON error).
 */
export function oauthBearerReply(serverMessage: Buffer): Buffer | undefined {
  return serverMessage.length === 0 ? undefined : Buffer.from([0x01])
}

/** The exchange sasl.ts runs (its SaslClientExchange): the initial response, then %x01 after an error. */
export function oauthBearerClient(opts: ClientSaslOptions): { start(): Promise<Buffer>; next(serverToken: Buffer): Buffer | undefined } {
  return { start: () => oauthBearerInitialResponse(opts), next: oauthBearerReply }
}
