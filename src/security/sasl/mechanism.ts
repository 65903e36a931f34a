// The server side of one SASL mechanism (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER), as the
// SaslAuthenticate handler drives it: each client token goes through evaluate(), whose answer is
// the server token sent back; once `complete` is true the exchange succeeded and principal() says
// who the client is. A failed exchange throws SaslAuthenticationError: its message is what the
// client is told (never a secret, never which of user or password was wrong), and the connection
// is closed after the answer, as Kafka does.

import type { KafkaPrincipal } from '../../network/principal.js'

export class SaslAuthenticationError extends Error {
  override name = 'SaslAuthenticationError'
}

export interface SaslServer {
  /** One step of the exchange; throws SaslAuthenticationError when the client fails it. */
  evaluate(token: Buffer): Promise<Buffer> | Buffer
  /** True once the exchange has succeeded. */
  readonly complete: boolean
  /** The authenticated identity; only after complete. */
  principal(): KafkaPrincipal
  /**
   * How long the credential stays valid, in ms from now (OAUTHBEARER: the token's expiry). The
   * session lifetime told to the client (KIP-368) is the smaller of this and connections.max.reauth.ms.
   */
  credentialLifetimeMs?(): number | undefined
}

/** What a mechanism may know of the connection it authenticates. */
export interface SaslContext {
  listenerName: string
  remoteAddress: string
}

export interface SaslMechanism {
  /** The IANA name clients send in SaslHandshake, e.g. "SCRAM-SHA-512". */
  readonly name: string
  create(ctx: SaslContext): SaslServer
}
