// The broker's side of SASL on each connection (the AuthenticationService of
// ports/authentication.ts), as Kafka's SaslServerAuthenticator and KafkaApis answer:
//
// - Before authentication a SASL connection may send ApiVersions (before its handshake),
//   SaslHandshake once, then SaslAuthenticate until the mechanism completes; anything else, or out
//   of this order, closes it. SaslHandshake v0 means the tokens then come as raw frames.
// - A mechanism the listener does not enable is answered UNSUPPORTED_SASL_MECHANISM with the
//   enabled list, then the connection is closed. A failed exchange is answered
//   SASL_AUTHENTICATION_FAILED with the mechanism's message (never a secret, never which of user
//   and password was wrong) after connection.failed.authentication.delay.ms, counted, then closed.
// - On success the connection's principal is set, and (KIP-368) its session lifetime is the
//   smaller of the listener's connections.max.reauth.ms for the mechanism and the credential's
//   lifetime; a request after it closes the connection. A client that used SaslAuthenticate v1+
//   may re-authenticate on the connection with a new SaslHandshake: same mechanism, same
//   principal, or it is closed.
// - On an authenticated connection, or a listener without SASL, SaslHandshake and SaslAuthenticate
//   are answered ILLEGAL_SASL_STATE (no re-authentication), as KafkaApis does.
//
// The exchange state of each connection is kept here, in a WeakMap keyed by its ConnectionInfo.
import { formatPrincipal, type KafkaPrincipal, samePrincipal } from '../../network/principal.js'
import type { ConnectionInfo } from '../../network/types.js'
import type {
  AuthenticationRefusal,
  AuthenticationService,
  SaslAuthenticateOutcome,
  SaslHandshakeOutcome,
} from '../../ports/authentication.js'
import { ErrorCode } from '../../protocol/errors.js'
import type { Clock } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import { SaslAuthenticationError, type SaslMechanism, type SaslServer } from './mechanism.js'

const API_VERSIONS = 18
const SASL_HANDSHAKE = 17
const SASL_AUTHENTICATE = 36

/** One SASL listener: its enabled mechanisms (in the configured order) and their session limits. */
export interface ListenerSasl {
  mechanisms: ReadonlyMap<string, SaslMechanism>
  /** connections.max.reauth.ms for a mechanism on this listener (0 = no limit). */
  maxReauthMs(mechanism: string): number
}

export interface SaslAuthenticatorOptions {
  /** By listener name; a SASL listener missing here refuses every handshake. */
  listeners: ReadonlyMap<string, ListenerSasl>
  /** connection.failed.authentication.delay.ms */
  failedAuthenticationDelayMs: number
  clock: Clock
  logger: Logger
}

type Phase = 'start' | 'handshaken' | 'done' | 'failed'

interface Session {
  phase: Phase
  /** The mechanism chosen by the handshake in progress, and its server. */
  mechanism?: string
  server?: SaslServer
  /** SaslHandshake v0: tokens as raw frames. */
  raw: boolean
  /** The client sent SaslAuthenticate v1+: it can re-authenticate (KIP-368). */
  reauthCapable: boolean
  /** Set while re-authenticating: what the session was. */
  previous?: { mechanism: string; principal: KafkaPrincipal }
  /** Re-authentication asked for another mechanism: the next token fails with this. */
  badMechanism?: string
}

/** Counts of the SASL outcomes, by listener (for metrics and tests). */
export interface SaslCounts {
  successful: number
  failed: number
  reauthenticated: number
}

export class SaslAuthenticator implements AuthenticationService {
  private readonly sessions = new WeakMap<ConnectionInfo, Session>()
  private readonly counts = new Map<string, SaslCounts>()

  constructor(private readonly opts: SaslAuthenticatorOptions) {}

  /** The outcomes counted on a listener so far. */
  stats(listener: string): SaslCounts {
    return { ...(this.counts.get(listener) ?? { successful: 0, failed: 0, reauthenticated: 0 }) }
  }

  refusal(conn: ConnectionInfo, apiKey: number): AuthenticationRefusal | undefined {
    const s = this.session(conn)
    if (!conn.authenticated) {
      const allowed =
        (apiKey === API_VERSIONS && s.phase === 'start') ||
        (apiKey === SASL_HANDSHAKE && s.phase === 'start') ||
        (apiKey === SASL_AUTHENTICATE && s.phase === 'handshaken' && !s.raw)
      if (allowed) return undefined
      return { kind: 'unauthenticated', reason: `Unexpected Kafka request of API key ${apiKey} during SASL authentication` }
    }
    if (conn.sessionExpiresAtMs !== undefined && this.opts.clock.monotonic() >= conn.sessionExpiresAtMs) {
      // A re-authentication begun before the end may finish.
      if (apiKey === SASL_AUTHENTICATE && s.previous !== undefined && s.phase === 'handshaken') return undefined
      return { kind: 'session-expired', reason: 'SASL session expired (KIP-368): the client did not re-authenticate in time' }
    }
    return undefined
  }

  handshake(conn: ConnectionInfo, mechanism: string, version: number): SaslHandshakeOutcome {
    const listener = this.opts.listeners.get(conn.listenerName)
    const enabled = listener ? [...listener.mechanisms.keys()] : []
    if (!listener || !conn.securityProtocol.startsWith('SASL_')) return { errorCode: ErrorCode.ILLEGAL_SASL_STATE.code, mechanisms: [] }
    const s = this.session(conn)
    if (conn.authenticated) {
      // KIP-368 re-authentication: only for a client that showed it can (SaslAuthenticate v1+).
      if (version < 1 || !s.reauthCapable || s.phase !== 'done' || !s.mechanism) {
        return { errorCode: ErrorCode.ILLEGAL_SASL_STATE.code, mechanisms: enabled }
      }
      s.previous = { mechanism: s.mechanism, principal: conn.principal }
    }
    const chosen = listener.mechanisms.get(mechanism)
    if (!chosen) {
      s.phase = 'failed'
      return {
        errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM.code,
        mechanisms: enabled,
        closeReason: `Unsupported SASL mechanism ${JSON.stringify(mechanism)} (enabled: ${enabled.join(', ')})`,
      }
    }
    s.badMechanism =
      s.previous && s.previous.mechanism !== mechanism
        ? `SASL mechanism '${mechanism}' requested by client is not supported for re-authentication of mechanism '${s.previous.mechanism}'`
        : undefined
    s.mechanism = mechanism
    s.server = chosen.create({ listenerName: conn.listenerName, remoteAddress: conn.remoteAddress })
    s.raw = version === 0
    s.phase = 'handshaken'
    return { errorCode: 0, mechanisms: enabled }
  }

  async authenticate(conn: ConnectionInfo, authBytes: Buffer, version: number): Promise<SaslAuthenticateOutcome> {
    const s = this.session(conn)
    if (s.phase !== 'handshaken' || s.raw || !s.server) {
      return {
        errorCode: ErrorCode.ILLEGAL_SASL_STATE.code,
        errorMessage: 'SaslAuthenticate request received after successful authentication',
        authBytes: Buffer.alloc(0),
        sessionLifetimeMs: 0,
      }
    }
    if (version > 0) s.reauthCapable = true
    const step = await this.step(conn, s, authBytes)
    if (!step.ok) {
      return {
        errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED.code,
        errorMessage: step.message,
        authBytes: Buffer.alloc(0),
        sessionLifetimeMs: 0,
        closeReason: `SASL ${s.mechanism} ${s.previous ? 're-authentication' : 'authentication'} failed: ${step.message}`,
      }
    }
    return { errorCode: 0, errorMessage: null, authBytes: step.token, sessionLifetimeMs: step.lifetimeMs }
  }

  expectsRawToken(conn: ConnectionInfo): boolean {
    const s = this.sessions.get(conn)
    return s?.raw === true && s.phase === 'handshaken'
  }

  async rawToken(conn: ConnectionInfo, token: Buffer): Promise<Buffer> {
    const s = this.session(conn)
    const step = await this.step(conn, s, token)
    if (!step.ok) throw new SaslAuthenticationError(`SASL ${s.mechanism} authentication failed: ${step.message}`)
    return step.token
  }

  /** One token through the mechanism; on completion the connection is authenticated. */
  private async step(
    conn: ConnectionInfo,
    s: Session,
    token: Buffer,
  ): Promise<{ ok: true; token: Buffer; lifetimeMs: number } | { ok: false; message: string }> {
    const reauth = s.previous !== undefined
    const what = reauth ? 're-authentication' : 'authentication'
    let answer: Buffer
    let principal: KafkaPrincipal | undefined
    try {
      if (s.badMechanism) throw new SaslAuthenticationError(s.badMechanism)
      answer = await s.server!.evaluate(token)
      if (s.server!.complete) {
        principal = s.server!.principal()
        if (s.previous && !samePrincipal(s.previous.principal, principal)) {
          throw new SaslAuthenticationError(
            `Cannot change principals during re-authentication from ${formatPrincipal(s.previous.principal)}: ${formatPrincipal(principal)}`,
          )
        }
      }
    } catch (err) {
      s.phase = 'failed'
      this.count(conn.listenerName, 'failed')
      // Only a mechanism's own refusal is told to the client; anything else could say too much.
      const message =
        err instanceof SaslAuthenticationError
          ? err.message
          : `Authentication failed during ${what} due to invalid credentials with SASL mechanism ${s.mechanism}`
      if (!(err instanceof SaslAuthenticationError)) {
        this.opts.logger.debug('SASL mechanism error', { conn: conn.id, mechanism: s.mechanism, err })
      }
      await this.delay(this.opts.failedAuthenticationDelayMs)
      return { ok: false, message }
    }
    if (!principal) return { ok: true, token: answer, lifetimeMs: 0 }
    const lifetimeMs = this.sessionLifetimeMs(conn, s)
    conn.principal = principal
    conn.authenticated = true
    conn.sessionExpiresAtMs = lifetimeMs === undefined ? undefined : this.opts.clock.monotonic() + lifetimeMs
    s.phase = 'done'
    s.previous = undefined
    s.server = undefined
    this.count(conn.listenerName, reauth ? 'reauthenticated' : 'successful')
    this.opts.logger.debug(`SASL ${what} succeeded`, {
      conn: conn.id,
      listener: conn.listenerName,
      mechanism: s.mechanism,
      principal: formatPrincipal(principal),
      sessionLifetimeMs: lifetimeMs ?? 0,
    })
    return { ok: true, token: answer, lifetimeMs: lifetimeMs ?? 0 }
  }

  /** KIP-368, as Kafka computes it: undefined when neither the broker nor the credential limits the session. */
  private sessionLifetimeMs(conn: ConnectionInfo, s: Session): number | undefined {
    const maxReauthMs = this.opts.listeners.get(conn.listenerName)?.maxReauthMs(s.mechanism!) ?? 0
    const credentialMs = s.server!.credentialLifetimeMs?.()
    if (credentialMs === undefined && maxReauthMs <= 0) return undefined
    const ms = credentialMs === undefined ? maxReauthMs : maxReauthMs <= 0 ? credentialMs : Math.min(credentialMs, maxReauthMs)
    return Math.max(0, ms)
  }

  private session(conn: ConnectionInfo): Session {
    let s = this.sessions.get(conn)
    if (!s) {
      s = { phase: 'start', raw: false, reauthCapable: false }
      this.sessions.set(conn, s)
    }
    return s
  }

  private count(listener: string, what: keyof SaslCounts): void {
    let c = this.counts.get(listener)
    if (!c) this.counts.set(listener, (c = { successful: 0, failed: 0, reauthenticated: 0 }))
    c[what]++
  }

  private delay(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve()
    return new Promise((resolve) => this.opts.clock.setTimeout(resolve, ms))
  }
}
