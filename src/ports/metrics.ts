// The BrokerMetrics port: what the broker's layers report to its metrics — the network layer
// (connections, protocol closes: network/types.ts NetworkMetrics), the dispatcher (each request's
// API, latency and error codes) and replication (bytes and messages per topic, ISR changes).
// http/metrics/ implements it over prom-client and serves it at /metrics; no other layer imports
// prom-client. Gauges that can be read from the broker's services (partition counts, groups' lag)
// are computed when scraped instead, so nothing here reports them.
//
// Rules for the callers: every hook is optional (a broker without the HTTP listener has none, and
// pays a null check), is called at most once per request or per partition of a request — never
// per record — and never throws.
import type { NetworkMetrics } from '../network/types.js'

export type { NetworkMetrics } from '../network/types.js'

/** What the dispatcher reports (handlers/dispatcher.ts). */
export interface RequestMetrics {
  /**
   * One answered request. `request` is Kafka's RequestMetrics name: the API's name, Fetch split
   * into FetchConsumer and FetchFollower. `response` is the decoded response the handler gave
   * (null for none, e.g. Produce acks=0); its error codes are counted by the implementation.
   */
  requestCompleted(request: string, seconds: number, response: unknown): void
  /** A request whose handling closed the connection (counted, with its latency, under error `kind`). */
  requestFailed(request: string, seconds: number, kind: string): void
  /** A response throttled for `ms` by a client quota of type `quota` (the one that earned the longest throttle). */
  throttled(quota: ThrottleQuota, ms: number): void
}

/** Kafka's client quota types (its Produce, Fetch, Request and ControllerMutation throttle-time sensors). */
export type ThrottleQuota = 'produce' | 'fetch' | 'request' | 'controller_mutation'

/** What replication reports (replication/replica-manager.ts, replica-sync.ts). */
export interface ReplicationMetrics {
  /** A leader appended `bytes` in `messages` records to one of its partitions (Kafka's BytesIn/MessagesIn). */
  appended(topic: string, bytes: number, messages: number): void
  /** A consumer's read of a partition returned `bytes` (Kafka's BytesOut). */
  readByConsumer(topic: string, bytes: number): void
  /** A follower's read returned `bytes` (Kafka's ReplicationBytesOut). */
  readByFollower(topic: string, bytes: number): void
  /** The leader's ISR change was applied; `shrink` when it lost replicas, else it grew. */
  isrChanged(shrink: boolean): void
}

export interface BrokerMetrics extends NetworkMetrics, RequestMetrics, ReplicationMetrics {}
