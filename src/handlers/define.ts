// How a handler is declared: the API's request/response declarations, the version range it
// serves, and a function from a decoded request to a response. Handlers are thin: validate,
// delegate to a service, map failures to Kafka error codes. They never touch sockets
// or files.
import type { CloseKind, ConnectionInfo } from '../network/types.js'
import type { RequestHeader } from '../protocol/header.js'
import type { Encodable, Message } from '../protocol/schema.js'
import type { BrokerServices } from '../ports/broker-services.js'
import type { MutationQuota } from '../ports/quotas.js'

/** An API this broker serves and its version range (registry.ts derives them from the handlers). */
export interface AdvertisedApi {
  apiKey: number
  minVersion: number
  maxVersion: number
}

export interface RequestContext {
  readonly header: RequestHeader
  readonly apiVersion: number
  readonly conn: ConnectionInfo
  readonly broker: BrokerServices
  /** The APIs and versions this broker serves (for ApiVersions). */
  readonly apis: readonly AdvertisedApi[]
  /** Runs fn once the socket has taken the response (pooled read buffers go back then). */
  afterResponse?(fn: () => void): void
  /** Runs fn when a quota replaces the response by a throttled one that carries none of its data. */
  onThrottled?(fn: () => void): void
  /**
   * The request's controller mutation quota (KIP-599), strict from `strictSinceVersion` (the
   * first version that knows THROTTLING_QUOTA_EXCEEDED); its throttle goes into the response.
   */
  controllerMutationQuota?(strictSinceVersion: number): MutationQuota
}

/** A response, or null when the API sends none (Produce with acks=0). */
export type HandlerResult<Res> = Encodable<Res> | null

export interface Handler<Req = any, Res = any> {
  readonly request: Message<Req>
  readonly response: Message<Res>
  /** Lowest version accepted. */
  readonly minVersion: number
  readonly maxVersion: number
  /** Lowest version advertised in ApiVersions, when it differs from minVersion (Produce: KAFKA-18659). */
  readonly advertisedMinVersion: number
  handle(ctx: RequestContext, req: Req): Promise<HandlerResult<Res>> | HandlerResult<Res>
}

export function defineHandler<Req, Res>(
  request: Message<Req>,
  response: Message<Res>,
  range: { minVersion: number; maxVersion: number; advertisedMinVersion?: number },
  handle: (ctx: RequestContext, req: Req) => Promise<HandlerResult<Res>> | HandlerResult<Res>,
): Handler<Req, Res> {
  if (range.minVersion < request.versions.min || range.maxVersion > request.versions.max) {
    throw new Error(`${request.name}: handler range ${range.minVersion}-${range.maxVersion} exceeds the declaration`)
  }
  return {
    request,
    response,
    minVersion: range.minVersion,
    maxVersion: range.maxVersion,
    advertisedMinVersion: range.advertisedMinVersion ?? range.minVersion,
    handle,
  }
}

/**
 * Thrown by a handler whose answer must be written and the connection then closed (a failed SASL
 * exchange, as Kafka does): the dispatcher encodes `response` and closes with `kind` and the message.
 */
export class CloseAfterResponse extends Error {
  override name = 'CloseAfterResponse'
  constructor(
    readonly response: unknown,
    message: string,
    readonly kind: CloseKind,
  ) {
    super(message)
  }
}
