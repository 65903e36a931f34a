// Turns request frames into responses: reads the header, finds the handler, checks the version,
// decodes the body, runs the handler and encodes header + body as chunks for the network layer.
//
// Bad input (as Kafka answers bad input): an unknown API key, a version outside the
// served range, or a body that does not parse closes the connection — except ApiVersions, which
// answers an unknown version in v0 form with UNSUPPORTED_VERSION and our ranges (KIP-511).
//
// Authentication (ports/authentication.ts): on a SASL listener the security layer says, for each
// request before authentication or once the session has a lifetime, whether it may be served;
// otherwise the connection is closed. After a SaslHandshake v0 the client's tokens arrive as raw
// frames, without a header, and are answered raw.
//
// Metrics (ports/metrics.ts), when the broker exports them: each decoded request's API — Fetch
// named FetchConsumer or FetchFollower as Kafka's RequestMetrics name it — its time from decoding
// until the handler answered (or failed), and the response (its error codes are counted there).
//
// Client quotas (throttle.ts says which apply to which request): once the handler answered, the
// request's measures are recorded; over a quota, the response carries the throttle time in its
// throttle_time_ms (set here, for every API, instead of in each handler) and the connection is
// muted for that long after writing it (KIP-219: answer at once, then read nothing more).
// request_percentage counts the event-loop time the request took here — the handler until its
// first await, and the encoding — as Kafka counts time on its threads and not time parked in
// purgatory: a long-poll's wait (Fetch max_wait_ms, JoinGroup) is no work.
import { CloseConnection, type ConnectionInfo, type Dispatcher, type RequestSummary, type ResponseChunks } from '../network/types.js'
import { ErrorCode } from '../protocol/errors.js'
import { API_VERSIONS_KEY, decodeRequestHeader, encodeResponseHeader, responseHeaderVersion } from '../protocol/header.js'
import { ApiVersionsResponse } from '../protocol/messages/18-api-versions.js'
import { Reader } from '../protocol/primitives/reader.js'
import { Writer } from '../protocol/primitives/writer.js'
import { CloseAfterResponse, type RequestContext } from './define.js'
import type { HandlerRegistry } from './registry.js'
import type { BrokerServices } from '../ports/broker-services.js'
import type { RequestMetrics } from '../ports/metrics.js'
import type { MutationQuota } from '../ports/quotas.js'
import { capFetch, isFollowerFetch, measure, throttledResponse } from './throttle.js'

export class RequestDispatcher implements Dispatcher {
  constructor(
    private readonly registry: HandlerRegistry,
    private readonly broker: BrokerServices,
    private readonly metrics?: RequestMetrics,
  ) {}

  dispatch(frame: Buffer, conn: ConnectionInfo): Promise<ResponseChunks> | ResponseChunks {
    const auth = this.broker.authentication
    if (!conn.authenticated && auth?.expectsRawToken(conn)) {
      return auth.rawToken(conn, Buffer.from(frame)).then(
        (token) => [token],
        (err: unknown) => {
          throw new CloseConnection((err as Error).message, 'authentication-failed')
        },
      )
    }
    let header: ReturnType<typeof decodeRequestHeader>
    try {
      header = decodeRequestHeader(frame, (k, v) => this.registry.isFlexible(k, v))
    } catch (err) {
      throw new CloseConnection(`malformed request header: ${(err as Error).message}`, 'malformed-header', peekHeader(frame))
    }
    const handler = this.registry.get(header.apiKey)
    const version = header.apiVersion
    const summary: RequestSummary = {
      apiKey: header.apiKey,
      apiVersion: version,
      apiName: handler?.request.name,
      correlationId: header.correlationId,
      clientId: header.clientId,
    }
    if (!conn.authenticated || conn.sessionExpiresAtMs !== undefined) {
      const refused = auth
        ? auth.refusal(conn, header.apiKey)
        : { kind: 'unauthenticated' as const, reason: 'this broker has no SASL authentication' }
      if (refused) throw new CloseConnection(refused.reason, refused.kind, summary)
    }
    if (!handler || version < handler.minVersion || version > handler.maxVersion) {
      if (header.apiKey === API_VERSIONS_KEY) return this.unsupportedApiVersions(header.correlationId)
      if (!handler) throw new CloseConnection(`unknown API key ${header.apiKey}`, 'unknown-api', summary)
      throw new CloseConnection(
        `${handler.request.name} v${version} is not supported (${handler.minVersion}-${handler.maxVersion})`,
        'unsupported-version',
        summary,
      )
    }
    let req: unknown
    try {
      // Bytes left after the body are ignored, as Kafka does (librdkafka 2.12+ leaves three after an
      // all-topics Metadata v12 request).
      req = handler.request.codec(version).decode(new Reader(frame, header.bodyOffset))
    } catch (err) {
      throw new CloseConnection(
        `malformed ${handler.request.name} v${version} request: ${(err as Error).message}`,
        'malformed-request',
        summary,
      )
    }
    const metrics = this.metrics
    const startedMs = performance.now()
    const apiName = handler.request.name
    const metricName = metrics ? requestMetricName(apiName, req) : ''
    const quotas = this.broker.quotas
    const clientId = header.clientId ?? ''
    capFetch(quotas, conn.principal, clientId, apiName, req)
    let after: Array<() => void> | undefined
    let onThrottled: Array<() => void> | undefined
    let mutation: MutationQuota | undefined
    /** Event-loop time this request took: the handler until its first await, and the encoding. */
    let busyMs = 0
    const ctx: RequestContext = {
      header,
      apiVersion: version,
      conn,
      broker: this.broker,
      apis: this.registry.advertised,
      afterResponse: (fn) => (after ??= []).push(fn),
      onThrottled: (fn) => (onThrottled ??= []).push(fn),
      controllerMutationQuota: (strictSince) => (mutation ??= quotas.mutationQuota(conn.principal, clientId, version >= strictSince)),
    }
    const runAfter = () => {
      for (const fn of after ?? []) fn()
    }
    const encode = (res: unknown): NonNullable<ResponseChunks> => {
      const w = new Writer(512)
      const flexible = handler.response.isFlexible(version)
      encodeResponseHeader(w, header.correlationId, responseHeaderVersion(header.apiKey, flexible))
      handler.response.codec(version).encode(w, res as never)
      return w.toChunks()
    }
    const respond = (res: unknown): ResponseChunks => {
      const respondStartMs = performance.now()
      metrics?.requestCompleted(metricName, (respondStartMs - startedMs) / 1000, res)
      const measured = {
        principal: conn.principal,
        clientId,
        apiName,
        req,
        requestBytes: frame.length,
        busyMs,
        responseBytes: 0,
        earnedMs: mutation?.throttleMs() ?? 0,
      }
      if (res === null) {
        // No response (Produce acks=0): measured all the same, and muted (Kafka mutes it too).
        const throttle = measure(quotas, measured)
        runAfter()
        if (throttle.ms <= 0) return null
        metrics?.throttled(throttle.quota, throttle.ms)
        return Object.assign([] as Buffer[], { muteMs: throttle.ms, silent: true })
      }
      let chunks = encode(res)
      for (const c of chunks) measured.responseBytes += c.length
      measured.busyMs += performance.now() - respondStartMs
      const throttle = measure(quotas, measured)
      // Versions without the field encode without it; the mute applies to every version.
      if (throttle.ms > 0 && typeof res === 'object' && res !== null) {
        const throttled = throttledResponse(apiName, res, throttle.ms)
        chunks = encode(throttled.response)
        chunks.muteMs = throttle.ms
        if (throttled.emptied) for (const fn of onThrottled ?? []) fn()
        metrics?.throttled(throttle.quota, throttle.ms)
      }
      if (after) chunks.onWritten = runAfter
      return chunks
    }
    // A failure past this point still names its request in the close log.
    const failed = (err: unknown): never => {
      metrics?.requestFailed(
        metricName,
        (performance.now() - startedMs) / 1000,
        err instanceof CloseConnection ? err.kind : 'request-failed',
      )
      if (err instanceof CloseConnection) {
        err.request ??= summary
        throw err
      }
      if (err instanceof CloseAfterResponse) {
        throw new CloseConnection(err.message, err.kind, summary, { response: encode(err.response) })
      }
      const msg = err instanceof Error ? err.message : String(err)
      throw new CloseConnection(`${handler.request.name} v${version} failed: ${msg}`, 'request-failed', summary, {
        cause: err,
      })
    }
    let out: ReturnType<typeof handler.handle>
    try {
      out = handler.handle(ctx, req)
      busyMs = performance.now() - startedMs
    } catch (err) {
      return failed(err)
    }
    if (out instanceof Promise) return out.then(respond).catch(failed)
    try {
      return respond(out)
    } catch (err) {
      return failed(err)
    }
  }

  /** KIP-511: an ApiVersions version we do not know is answered in v0 form, so the client can retry lower. */
  private unsupportedApiVersions(correlationId: number): ResponseChunks {
    const w = new Writer(512)
    encodeResponseHeader(w, correlationId, 0)
    ApiVersionsResponse.codec(0).encode(w, {
      errorCode: ErrorCode.UNSUPPORTED_VERSION.code,
      apiKeys: this.registry.advertised.filter((a) => a.apiKey === API_VERSIONS_KEY),
    })
    return w.toChunks()
  }
}

/** Kafka's RequestMetrics name: Fetch from a replica (replica id ≥ 0; v15+ in replica_state) is FetchFollower. */
function requestMetricName(apiName: string, req: unknown): string {
  if (apiName !== 'Fetch') return apiName
  return isFollowerFetch(apiName, req) ? 'FetchFollower' : 'FetchConsumer'
}

/** What can be read of a header that does not parse: the fixed fields, when there are enough bytes. */
function peekHeader(frame: Buffer): RequestSummary | undefined {
  if (frame.length < 8) return undefined
  return { apiKey: frame.readInt16BE(0), apiVersion: frame.readInt16BE(2), correlationId: frame.readInt32BE(4), clientId: null }
}
