// The SASL authentication port: what the SaslHandshake and SaslAuthenticate handlers and the
// dispatcher ask of the security layer (src/security/sasl/authenticator.ts implements it). Each
// connection's exchange state is kept by the implementation, keyed by its ConnectionInfo; the
// connection itself carries only `authenticated` and `sessionExpiresAtMs` (network/types.ts), which
// the network layer and the dispatcher read.
//
// Kafka's rules, as its SaslServerAuthenticator keeps them: on a SASL listener only ApiVersions,
// SaslHandshake and SaslAuthenticate are served before authentication, any other request closes
// the connection; a failed exchange is answered (after connection.failed.authentication.delay.ms)
// and then the connection is closed; a session past its lifetime (KIP-368) is closed at its next
// request.
import type { CloseKind, ConnectionInfo } from '../network/types.js'

/** Why a request is refused on a connection: it is closed (and the close logged) for this reason. */
export interface AuthenticationRefusal {
  kind: Extract<CloseKind, 'unauthenticated' | 'session-expired'>
  reason: string
}

export interface SaslHandshakeOutcome {
  errorCode: number
  mechanisms: string[]
  /** Set: the answer is written, then the connection is closed for this reason (logged). */
  closeReason?: string
}

export interface SaslAuthenticateOutcome {
  errorCode: number
  errorMessage: string | null
  authBytes: Buffer
  /** KIP-368 (v1+): ms until the session ends and the client must re-authenticate; 0 = never. */
  sessionLifetimeMs: number
  closeReason?: string
}

export interface AuthenticationService {
  /**
   * Asked by the dispatcher for each request on a connection not yet authenticated or whose session
   * has a lifetime: why it may not be served (the connection is closed), or undefined.
   */
  refusal(conn: ConnectionInfo, apiKey: number): AuthenticationRefusal | undefined
  handshake(conn: ConnectionInfo, mechanism: string, version: number): SaslHandshakeOutcome
  authenticate(conn: ConnectionInfo, authBytes: Buffer, version: number): Promise<SaslAuthenticateOutcome>
  /** After a SaslHandshake v0 the client's tokens come as raw frames, without a Kafka header. */
  expectsRawToken(conn: ConnectionInfo): boolean
  /** One raw token (SaslHandshake v0); the answer is the server token. Throws to close the connection. */
  rawToken(conn: ConnectionInfo, token: Buffer): Promise<Buffer>
}
