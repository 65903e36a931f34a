// The contract between the socket layer and whatever answers requests. The network layer knows
// Kafka's framing (an int32 size, then that many bytes) and nothing of the message schemas: it hands
// each complete request frame to a Dispatcher and writes the answers back in request order, which is
// what Kafka clients rely on to match responses to requests (they pipeline; correlation ids are only
// checked, not used to reorder).

import type { X509Certificate } from 'node:crypto'
import type { SecureContextOptions } from 'node:tls'
import type { SecurityProtocol } from './listeners.js'
import type { KafkaPrincipal } from './principal.js'

/** What a dispatcher knows about the connection a frame arrived on. */
export interface ConnectionInfo {
  /** Unique per server, increasing. */
  id: number
  remoteAddress: string
  remotePort: number
  /** The listener (e.g. "PLAINTEXT") the connection was accepted on. */
  listenerName: string
  /** The listener's security protocol. */
  securityProtocol: SecurityProtocol
  /**
   * Who the connection acts for: User:ANONYMOUS until TLS client authentication or SASL says
   * otherwise (see principal.ts). Set by the security layer, read by authorization and quotas.
   */
  principal: KafkaPrincipal
  /**
   * False on a SASL listener until SaslAuthenticate succeeds (set by the security layer, see
   * ports/authentication.ts); true from the start on PLAINTEXT and SSL. Before, the connection
   * takes one request at a time and frames up to sasl.server.max.receive.size.
   */
  authenticated: boolean
  /** KIP-368: when the SASL session ends (Clock.monotonic() ms); undefined = never. Set by the security layer. */
  sessionExpiresAtMs?: number | undefined
  /** Aborts when the connection closes or the server shuts down, so long-polls (Fetch, JoinGroup) stop waiting. */
  closed: AbortSignal
}

/**
 * The response to one request: chunks written back-to-back after a 4-byte size prefix that the
 * network layer computes. They are written one by one while the socket is corked, never concatenated,
 * so a Fetch response can be a header plus stored byte ranges (docs/architecture.md §4).
 * null = no response (Produce with acks=0), but the request still keeps its place in the order.
 * onWritten, when set, is called once the socket has taken every chunk (or will never take them):
 * buffers the chunks point into may be reused from then on.
 * muteMs, when set, stops reading the connection's requests for that long once the response is
 * written (a client over its quota, KIP-219). silent: nothing is written, as for null, but muteMs
 * still applies (a throttled request that has no response).
 */
export type ResponseChunks = (Buffer[] & { onWritten?: () => void; muteMs?: number; silent?: boolean }) | null

export interface Dispatcher {
  /**
   * Called synchronously, in arrival order, for each complete frame (without its size prefix).
   * `frame` is valid only until the returned promise settles (it may be a view on a socket buffer).
   * Throwing (sync or async) — a CloseConnection or any other error — closes the connection once
   * the responses of the requests before it were written.
   */
  dispatch(frame: Buffer, conn: ConnectionInfo): Promise<ResponseChunks> | ResponseChunks
}

/**
 * Why a connection was closed for a protocol reason (each is logged and counted, see close-log.ts):
 * - invalid-frame-size: a size prefix ≤ 0 or past socket.request.max.bytes;
 * - malformed-header / malformed-request: a header or body that does not parse;
 * - unknown-api / unsupported-version: an API key or version the broker does not serve;
 * - on-request: the handler closes on purpose (a Produce with acks=0 that failed: the producer's
 *   only way to learn of it);
 * - request-failed: an unexpected error while answering;
 * - response-too-large: a response past 2 GiB;
 * - unauthenticated: a request other than ApiVersions, SaslHandshake or SaslAuthenticate before SASL
 *   authentication, or out of the exchange's order;
 * - authentication-failed: a failed SASL exchange (answered first, as Kafka does);
 * - session-expired: a request after the SASL session's lifetime (KIP-368);
 * - tls-handshake: a TLS handshake that failed (an old protocol version, no shared cipher, a client
 *   certificate missing or not trusted, or no principal mapping rule for it), or did not finish.
 * - connection-rate: a connection from an address past its connection creation rate (KIP-612),
 *   closed at accept.
 * - connection-limit: a connection from an address that already holds max.connections.per.ip (or
 *   its override) connections, closed at accept.
 */
export type CloseKind =
  | 'invalid-frame-size'
  | 'malformed-header'
  | 'malformed-request'
  | 'unknown-api'
  | 'unsupported-version'
  | 'on-request'
  | 'request-failed'
  | 'response-too-large'
  | 'unauthenticated'
  | 'authentication-failed'
  | 'session-expired'
  | 'tls-handshake'
  | 'connection-rate'
  | 'connection-limit'

/** The request a close is about, as far as its header was read. */
export interface RequestSummary {
  apiKey: number
  apiVersion: number
  /** The API's name when the broker serves it. */
  apiName?: string
  correlationId: number
  clientId: string | null
}

/**
 * Thrown by a dispatcher to close the connection on purpose; the message is the reason, for logs.
 * With `response`, that answer is written first (a failed SASL exchange is answered, then closed).
 */
export class CloseConnection extends Error {
  override name = 'CloseConnection'
  constructor(
    message: string,
    readonly kind: CloseKind = 'on-request',
    public request?: RequestSummary,
    options?: ErrorOptions & { response?: NonNullable<ResponseChunks> },
  ) {
    super(message, options)
    this.response = options?.response
  }
  readonly response: NonNullable<ResponseChunks> | undefined
}

/**
 * What the network layer reports to the broker's metrics (ports/metrics.ts extends it; the HTTP
 * listener's /metrics implements it). Optional: a server without one pays a null check per
 * connection, nothing per request.
 */
export interface NetworkMetrics {
  connectionOpened(listener: string): void
  connectionClosed(listener: string): void
  /** A connection closed for a protocol reason (close-log.ts), by kind. */
  protocolClose(listener: string, kind: CloseKind): void
  /** The listener's acceptor waits `ms` before taking a connection (KIP-612 connection creation rates). */
  acceptThrottled?(listener: string, ms: number): void
}

export interface ListenerConfig {
  name: string
  /** Interface to bind; "0.0.0.0" for all IPv4 interfaces, "::" for all, "::1" without brackets. */
  host: string
  /** 0 = any free port (see NetworkServer.boundPorts()). */
  port: number
  /** Default PLAINTEXT. */
  securityProtocol?: SecurityProtocol
  /** Required for SSL and SASL_SSL listeners: how the listener's TLS is set up (security/tls/). */
  tls?: ListenerTls
}

/**
 * The TLS of one listener, as the security layer builds it from the listener's ssl.* settings.
 * The network layer makes a TLS server of it and asks it for the principal of each connection.
 */
export interface ListenerTls {
  /** The server's key, certificates, trusted CAs, TLS versions and ciphers (the current ones). */
  contextOptions(): SecureContextOptions
  /** ssl.client.auth. */
  readonly clientAuth: 'required' | 'requested' | 'none'
  /**
   * The principal of a connection whose client presented a trusted certificate (SSL listeners;
   * SASL_SSL leaves the principal to SASL). Throws to refuse the connection (no mapping rule applies).
   */
  principalOf?(cert: X509Certificate): KafkaPrincipal
  /**
   * Calls `changed` each time the material was re-read from disk after a change, for new
   * connections; returns a function that stops watching.
   */
  watch(changed: () => void): () => void
}

export interface NetworkConfig {
  /** socket.request.max.bytes (Kafka: 104857600). A larger, negative or zero frame size closes the connection. */
  maxRequestBytes: number
  /** connections.max.idle.ms (Kafka: 600000). A connection with nothing in flight and no bytes in either
   * direction for this long is closed. 0 or a non-finite value disables the check. */
  connectionsMaxIdleMs: number
  /** sasl.server.max.receive.size (Kafka: 524288): the largest frame a SASL listener takes before the
   * connection is authenticated; a larger one closes it (CVE-2022-34917: no big buffers for strangers). */
  saslMaxReceiveBytes?: number
  /** Stop reading a connection's socket while this many of its requests are unanswered (dispatched
   * or waiting for an earlier response). Kafka answers one request per connection at a time; we
   * pipeline up to this many. */
  maxInFlightPerConnection: number
  /** Stop reading while more than this many response bytes wait in the socket's user-space buffer
   * (client not reading). Default: as soon as socket.write() reports the buffer full (its high-water
   * mark, 16 KiB); smaller values behave as that mark. */
  maxPendingWriteBytes?: number
  /** When a connection is being closed gracefully (server close(), failed request, client
   * half-close), how long in-flight responses and the client's hang-up are waited for before the
   * socket is destroyed. Default 5000. */
  closeGraceMs?: number
}

/** Kafka's defaults, and a pipelining depth close to what Java clients use (5 in flight per
 * connection for producers; consumers and admin clients far fewer). */
export const DEFAULT_NETWORK_CONFIG: Readonly<Required<Omit<NetworkConfig, 'maxPendingWriteBytes'>>> = {
  maxRequestBytes: 104_857_600,
  saslMaxReceiveBytes: 524_288,
  connectionsMaxIdleMs: 600_000,
  maxInFlightPerConnection: 100,
  closeGraceMs: 5_000,
}

/** Live connection counts the acceptor's limits are judged on. */
export interface LiveConnections {
  /** Every connection of the broker. */
  total: number
  /** Those of the listener asked about. */
  listener: number
}

/**
 * The acceptor's connection limits (Kafka's ConnectionQuotas: max.connections, its per-listener
 * form, max.connections.per.ip and its overrides), asked at every new connection so a change
 * applies to the next one.
 */
export interface ConnectionLimits {
  /** Whether one more connection may be taken on the listener now; else the acceptor waits for a close. */
  slotAvailable(listener: string, live: LiveConnections): boolean
  /** The most connections one address may hold (Infinity: no limit). */
  maxConnectionsPerIp(address: string): number
}
