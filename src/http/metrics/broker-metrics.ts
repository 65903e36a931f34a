// The broker's metrics over prom-client: implements the BrokerMetrics port (ports/metrics.ts) the
// network layer, the dispatcher and replication report to, and keeps them in one Registry per
// broker — several brokers run in one test process, so the global default registry is never used
// — and serves them with the process' metrics, kept once per process.
//
// Names follow Kafka's JMX names as Prometheus' JMX exporter maps them: the domain, type and name
// lowercased and joined (kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec →
// kafka_server_brokertopicmetrics_bytesin_total), rates as `_total` counters (Prometheus derives
// the rate), times in seconds. Metrics Kafka has no JMX name for start with `tributary_`.
//
// Rules: the hooks are called per request or per partition of a request, never per record; they
// take the label children they need from small maps (one entry per API, error, topic or listener),
// so the hot path allocates nothing once a label set has been seen; they never throw.
import { type Counter, collectDefaultMetrics, type Gauge, Histogram, Registry } from 'prom-client'
import type { CloseKind } from '../../network/types.js'
import type { BrokerServices } from '../../ports/broker-services.js'
import type { BrokerMetrics, ThrottleQuota } from '../../ports/metrics.js'
import { errorByCode } from '../../protocol/errors.js'
import { instrumentsOf } from './instruments.js'

/** Request latency buckets, seconds: sub-millisecond answers up to Fetch long-polls (fetch.max.wait.ms). */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
/** How deep a response is searched for error codes (Produce/Fetch: response → topics → partitions). */
const MAX_ERROR_DEPTH = 5

type CounterChild = ReturnType<Counter<string>['labels']>
type HistogramChild = ReturnType<Histogram<string>['labels']>

interface RequestChildren {
  name: string
  requests: CounterChild
  time: HistogramChild
  errors: Map<string, CounterChild>
}

interface TopicChildren {
  bytesIn: CounterChild
  bytesOut: CounterChild
  messagesIn: CounterChild
}

interface ListenerChildren {
  count: ReturnType<Gauge<string>['labels']>
  created: CounterChild
  closed: CounterChild
}

const brokers = new WeakMap<BrokerServices, PromBrokerMetrics>()

/**
 * The process' own metrics (CPU, memory, event loop, GC), in a registry of their own, made once
 * per process: they describe the process, not one broker, and prom-client's collectors (an
 * event-loop monitor, a GC observer) are never stopped, so a test process starting many brokers
 * must not add a set per broker.
 */
let processRegistry: Registry | undefined

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry })
  }
  return processRegistry
}

export class PromBrokerMetrics implements BrokerMetrics {
  readonly registry = new Registry()
  private readonly requests: Counter<'request'>
  private readonly errors: Counter<'request' | 'error'>
  private readonly totalTime: Histogram<'request'>
  private readonly bytesIn: Counter<'topic'>
  private readonly bytesOut: Counter<'topic'>
  private readonly messagesIn: Counter<'topic'>
  private readonly replicationBytesOut: Counter
  private readonly isrShrinks: Counter
  private readonly isrExpands: Counter
  private readonly connections: Gauge<'listener'>
  private readonly connectionsCreated: Counter<'listener'>
  private readonly connectionsClosed: Counter<'listener'>
  private readonly protocolCloses: Counter<'listener' | 'kind'>
  private readonly throttleTime: Counter<'quota'>
  private readonly acceptThrottle: Counter<'listener'>
  private readonly acceptThrottles: Counter<'listener'>
  private readonly throttledResponses: Counter<'quota'>
  private readonly byRequest = new Map<string, RequestChildren>()
  private readonly byTopic = new Map<string, TopicChildren>()
  private readonly byListener = new Map<string, ListenerChildren>()

  constructor() {
    const registers = [this.registry]
    const { counter, gauge } = instrumentsOf(this.registry)
    this.requests = counter(
      'kafka_network_requestmetrics_requests_total',
      'Requests answered, per API (Fetch split into FetchConsumer and FetchFollower).',
      ['request'],
    )
    this.errors = counter(
      'kafka_network_requestmetrics_errors_total',
      'Error codes in responses (each partition or resource that failed counts once), per API and error; connection-closing failures by close kind.',
      ['request', 'error'],
    )
    this.totalTime = new Histogram({
      name: 'kafka_network_requestmetrics_totaltime_seconds',
      help: 'Time from a decoded request until its handler answered, per API (a Fetch long-poll included).',
      labelNames: ['request'],
      buckets: LATENCY_BUCKETS,
      registers,
    })
    this.bytesIn = counter('kafka_server_brokertopicmetrics_bytesin_total', 'Record bytes appended by this broker as leader, per topic.', [
      'topic',
    ])
    this.bytesOut = counter(
      'kafka_server_brokertopicmetrics_bytesout_total',
      'Record bytes read by consumers from this broker, per topic.',
      ['topic'],
    )
    this.messagesIn = counter('kafka_server_brokertopicmetrics_messagesin_total', 'Records appended by this broker as leader, per topic.', [
      'topic',
    ])
    this.replicationBytesOut = counter(
      'kafka_server_brokertopicmetrics_replicationbytesout_total',
      'Record bytes read by followers from this broker.',
    )
    this.isrShrinks = counter(
      'kafka_server_replicamanager_isrshrinks_total',
      'ISR changes this broker made as leader that removed replicas.',
    )
    this.isrExpands = counter(
      'kafka_server_replicamanager_isrexpands_total',
      'ISR changes this broker made as leader that added a replica.',
    )
    this.connections = gauge('kafka_server_socketservermetrics_connection_count', 'Open Kafka protocol connections, per listener.', [
      'listener',
    ])
    this.connectionsCreated = counter(
      'kafka_server_socketservermetrics_connection_creation_total',
      'Kafka protocol connections accepted, per listener.',
      ['listener'],
    )
    this.connectionsClosed = counter(
      'kafka_server_socketservermetrics_connection_close_total',
      'Kafka protocol connections closed, per listener.',
      ['listener'],
    )
    this.protocolCloses = counter(
      'tributary_network_protocol_closes_total',
      'Connections the broker closed for a protocol reason (network/types.ts CloseKind), per listener and kind.',
      ['listener', 'kind'],
    )
    this.acceptThrottle = counter(
      'kafka_network_acceptor_throttle_time_seconds_total',
      "Time a listener's acceptor waited for the connection creation rates (KIP-612; Kafka's connection-accept-throttle-time).",
      ['listener'],
    )
    this.acceptThrottles = counter(
      'kafka_network_acceptor_throttled_connections_total',
      'Connections that waited for a throttled acceptor, per listener.',
      ['listener'],
    )
    this.throttleTime = counter(
      'kafka_server_quota_throttle_time_seconds_total',
      "Time responses were throttled by client quotas, per quota type (Kafka's Produce, Fetch, Request, ControllerMutation throttle-time).",
      ['quota'],
    )
    this.throttledResponses = counter(
      'kafka_server_quota_throttled_responses_total',
      'Responses throttled by client quotas, per quota type.',
      ['quota'],
    )
    processMetrics()
  }

  /** The exposition /metrics serves: this broker's families, then the process'. */
  async exposition(): Promise<string> {
    const [own, proc] = await Promise.all([this.registry.metrics(), processMetrics().metrics()])
    return own.endsWith('\n') ? own + proc : `${own}\n${proc}`
  }

  /** Ties these metrics to the broker whose services they describe (the /metrics module finds them so). */
  attach(services: BrokerServices): this {
    brokers.set(services, this)
    return this
  }

  /** The metrics a broker was started with (broker/broker.ts creates them when HTTP is on). */
  static of(services: BrokerServices): PromBrokerMetrics | undefined {
    return brokers.get(services)
  }

  // --- NetworkMetrics

  connectionOpened(listener: string): void {
    const c = this.listener(listener)
    c.count.inc()
    c.created.inc()
  }

  connectionClosed(listener: string): void {
    const c = this.listener(listener)
    c.count.dec()
    c.closed.inc()
  }

  protocolClose(listener: string, kind: CloseKind): void {
    this.protocolCloses.labels(listener, kind).inc()
  }

  acceptThrottled(listener: string, ms: number): void {
    this.acceptThrottle.labels(listener).inc(ms / 1000)
    this.acceptThrottles.labels(listener).inc()
  }

  // --- RequestMetrics

  requestCompleted(request: string, seconds: number, response: unknown): void {
    const c = this.request(request)
    c.requests.inc()
    c.time.observe(seconds)
    if (response !== null && typeof response === 'object') this.countErrors(c, response, 0)
  }

  requestFailed(request: string, seconds: number, kind: string): void {
    const c = this.request(request)
    c.requests.inc()
    c.time.observe(seconds)
    this.error(c, kind).inc()
  }

  throttled(quota: ThrottleQuota, ms: number): void {
    this.throttleTime.labels(quota).inc(ms / 1000)
    this.throttledResponses.labels(quota).inc()
  }

  // --- ReplicationMetrics

  appended(topic: string, bytes: number, messages: number): void {
    const c = this.topic(topic)
    c.bytesIn.inc(bytes)
    c.messagesIn.inc(messages)
  }

  readByConsumer(topic: string, bytes: number): void {
    if (bytes > 0) this.topic(topic).bytesOut.inc(bytes)
  }

  readByFollower(_topic: string, bytes: number): void {
    if (bytes > 0) this.replicationBytesOut.inc(bytes)
  }

  isrChanged(shrink: boolean): void {
    ;(shrink ? this.isrShrinks : this.isrExpands).inc()
  }

  /** Drops the per-topic series of topics that no longer exist (called at each scrape). */
  forgetTopics(exists: (topic: string) => boolean): void {
    for (const topic of this.byTopic.keys()) {
      if (exists(topic)) continue
      this.byTopic.delete(topic)
      this.bytesIn.remove(topic)
      this.bytesOut.remove(topic)
      this.messagesIn.remove(topic)
    }
  }

  private request(name: string): RequestChildren {
    let c = this.byRequest.get(name)
    if (!c) {
      c = { name, requests: this.requests.labels(name), time: this.totalTime.labels(name), errors: new Map() }
      this.byRequest.set(name, c)
    }
    return c
  }

  private error(c: RequestChildren, error: string): CounterChild {
    let e = c.errors.get(error)
    if (!e) {
      e = this.errors.labels(c.name, error)
      c.errors.set(error, e)
    }
    return e
  }

  /** Counts every non-zero `errorCode` field of a response, down to its partitions (Buffers are skipped). */
  private countErrors(c: RequestChildren, value: object, depth: number): void {
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === 'object') this.countErrors(c, item as object, depth)
      return
    }
    if (depth > MAX_ERROR_DEPTH || Buffer.isBuffer(value)) return
    const fields = value as Record<string, unknown>
    for (const key in fields) {
      const field = fields[key]
      if (key === 'errorCode') {
        if (typeof field === 'number' && field !== 0) {
          this.error(c, errorByCode(field)?.name ?? `UNKNOWN_${field}`).inc()
        }
      } else if (field !== null && typeof field === 'object' && !Buffer.isBuffer(field)) {
        this.countErrors(c, field as object, depth + 1)
      }
    }
  }

  private topic(topic: string): TopicChildren {
    let c = this.byTopic.get(topic)
    if (!c) {
      c = { bytesIn: this.bytesIn.labels(topic), bytesOut: this.bytesOut.labels(topic), messagesIn: this.messagesIn.labels(topic) }
      this.byTopic.set(topic, c)
    }
    return c
  }

  private listener(listener: string): ListenerChildren {
    let c = this.byListener.get(listener)
    if (!c) {
      c = {
        count: this.connections.labels(listener),
        created: this.connectionsCreated.labels(listener),
        closed: this.connectionsClosed.labels(listener),
      }
      this.byListener.set(listener, c)
    }
    return c
  }
}
