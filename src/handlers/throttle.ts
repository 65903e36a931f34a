// Which client quotas a request is measured against, and what a throttled response looks like
// (the dispatcher calls these; ports/quotas.ts has the measures). As Kafka's KafkaApis:
// - every request's event-loop time counts against request_percentage (ClientRequestQuotaManager),
//   except the brokers' own traffic (follower Fetch, WriteTxnMarkers, the share state RPCs);
// - Produce counts its request size against producer_byte_rate;
// - a consumer Fetch counts its response size against consumer_byte_rate; its fetch max bytes is
//   first capped to what the quota allows in a window, and a throttled Fetch is answered empty (the
//   bytes it would have carried are taken back), so the client fetches them again after the throttle;
// - a ShareFetch likewise (Kafka's handleShareFetchRequest): max bytes capped, response bytes
//   against consumer_byte_rate, and a throttled one answered without topics (error NONE,
//   acquisition lock timeout 0). The records it had acquired go back to AVAILABLE at once, their
//   delivery count as before (RequestContext.onThrottled, ShareFetchAnswer.unsent): Kafka leaves
//   them acquired by a member who never saw them until their locks time out, and each such
//   throttle counts as a delivery, so under a tight quota records reached the delivery limit and
//   were archived undelivered. ShareAcknowledge counts against request_percentage only, as in Kafka;
// - CreateTopics, CreatePartitions and DeleteTopics add the controller mutation quota's throttle
//   (the handlers record their mutations, see RequestContext.controllerMutationQuota).
// The response carries the largest throttle in throttle_time_ms and the connection is muted for
// that long after it is written (KIP-219).
import type { KafkaPrincipal } from '../network/principal.js'
import type { ThrottleQuota } from '../ports/metrics.js'
import type { QuotaService } from '../ports/quotas.js'

/** Kafka's message of THROTTLING_QUOTA_EXCEEDED. */
export const THROTTLED = 'The throttling quota has been exceeded.'

/** The brokers' own requests, never throttled (Kafka's cluster actions). */
const EXEMPT = new Set([
  'WriteTxnMarkers',
  'InitializeShareGroupState',
  'ReadShareGroupState',
  'WriteShareGroupState',
  'DeleteShareGroupState',
  'ReadShareGroupStateSummary',
])

export interface Measured {
  principal: KafkaPrincipal
  clientId: string
  apiName: string
  req: unknown
  requestBytes: number
  /** Event-loop milliseconds the request took (request_percentage). */
  busyMs: number
  /** Encoded response size. */
  responseBytes: number
  /** Throttle already earned (the controller mutation quota). */
  earnedMs: number
}

export function isFollowerFetch(apiName: string, req: unknown): boolean {
  if (apiName !== 'Fetch') return false
  const r = req as { replicaId?: number; replicaState?: { replicaId?: number } }
  return (r.replicaState?.replicaId ?? -1) >= 0 || (r.replicaId ?? -1) >= 0
}

function exempt(apiName: string, req: unknown): boolean {
  return EXEMPT.has(apiName) || isFollowerFetch(apiName, req)
}

/** The APIs whose response bytes count against consumer_byte_rate (a follower's Fetch excepted). */
function isConsumerFetch(apiName: string): boolean {
  return apiName === 'Fetch' || apiName === 'ShareFetch'
}

/** Before the handler: a consumer Fetch asks for no more than its quota allows in a window. */
export function capFetch(quotas: QuotaService, principal: KafkaPrincipal, clientId: string, apiName: string, req: unknown): void {
  if (!isConsumerFetch(apiName) || isFollowerFetch(apiName, req)) return
  const cap = quotas.fetchBytesCap(principal, clientId)
  const r = req as { maxBytes: number }
  if (cap < r.maxBytes) r.maxBytes = Math.max(1, cap)
}

/** The throttle a request earned (ms 0: none) and the quota that earned the longest one. */
export interface Throttle {
  ms: number
  quota: ThrottleQuota
}

/** Records the request's measures; the throttle it earned. */
export function measure(quotas: QuotaService, m: Measured): Throttle {
  const t: Throttle = { ms: m.earnedMs, quota: 'controller_mutation' }
  if (exempt(m.apiName, m.req)) return { ms: 0, quota: 'request' }
  const take = (ms: number, quota: ThrottleQuota) => {
    if (ms > t.ms) {
      t.ms = ms
      t.quota = quota
    }
  }
  take(quotas.record('request', m.principal, m.clientId, m.busyMs), 'request')
  if (m.apiName === 'Produce') {
    take(quotas.record('produce', m.principal, m.clientId, m.requestBytes), 'produce')
  } else if (isConsumerFetch(m.apiName)) {
    take(quotas.record('fetch', m.principal, m.clientId, m.responseBytes), 'fetch')
    // Kafka: a throttled Fetch or ShareFetch answers empty, so its bytes do not count twice.
    if (t.ms > 0) quotas.unrecord('fetch', m.principal, m.clientId, m.responseBytes)
  }
  return t
}

/**
 * The response as sent to a throttled client: its throttle time set; a consumer Fetch or a
 * ShareFetch emptied (`emptied`: none of the handler's data goes out).
 */
export function throttledResponse(apiName: string, res: object, throttleMs: number): { response: object; emptied: boolean } {
  if (apiName === 'Fetch') return { response: { ...res, throttleTimeMs: throttleMs, responses: [] }, emptied: true }
  if (apiName === 'ShareFetch' && (res as { errorCode?: number }).errorCode === 0) {
    return {
      response: { ...res, throttleTimeMs: throttleMs, acquisitionLockTimeoutMs: 0, responses: [], nodeEndpoints: [] },
      emptied: true,
    }
  }
  return { response: { ...res, throttleTimeMs: throttleMs }, emptied: false }
}
