// The gauges read from the broker's services when /metrics is scraped, rather than kept up to date
// on every change: partition and leader counts, under-replicated and offline partitions (Kafka's
// ReplicaManager and KafkaController gauges) and consumer groups' lag.
//
// Kafka's rules, kept here: UnderReplicatedPartitions counts the partitions this broker leads whose
// ISR is smaller than their replica set; OfflinePartitionsCount (partitions without a leader) and
// ActiveControllerCount are the controller's — 0 on every other broker, so that a sum over the
// cluster counts each once.
//
// Lag: for each group this broker coordinates (its committed offsets are here), for each committed
// partition this broker leads (its high watermark is here), high watermark − committed offset. A
// group's partitions led elsewhere have no series on this broker. The cost is bounded: at most
// MAX_LAG_SERIES series per scrape; what is left out is counted in
// tributary_consumergroup_lag_series_dropped.
//
// Fetch sessions (Kafka's FetchSessionCache gauges): the sessions and their partitions in the
// cache, and the sessions evicted so far (a counter, brought up to the cache's count at each
// scrape).
//
// The tail cache (storage/tail-cache.ts): the bytes it holds and its limit, and its reads served
// from memory or sent to the files (counters, brought up to the cache's counts at each scrape).
import type { Counter, Gauge, Registry } from 'prom-client'
import type { BrokerServices } from '../../ports/broker-services.js'
import { instrumentsOf } from './instruments.js'

/** Most lag series one scrape exports (each is a group × topic × partition). */
export const MAX_LAG_SERIES = 10_000

export class ScrapeGauges {
  private readonly partitionCount: Gauge
  private readonly leaderCount: Gauge
  private readonly underReplicated: Gauge
  private readonly offline: Gauge
  private readonly activeController: Gauge
  private readonly lag: Gauge<'group' | 'topic' | 'partition'>
  private readonly lagDropped: Gauge
  private readonly fetchSessions: Gauge
  private readonly fetchSessionPartitions: Gauge
  private readonly fetchSessionEvictions: Counter
  private evictionsExported = 0
  private readonly tailBytes: Gauge
  private readonly tailLimit: Gauge
  private readonly tailReads: Counter<'result'>
  private readonly tailEvicted: Counter
  private readonly tailExported = { hits: 0, misses: 0, evictedBytes: 0 }

  constructor(registry: Registry) {
    const { counter, gauge } = instrumentsOf(registry)
    this.partitionCount = gauge('kafka_server_replicamanager_partitioncount', 'Partitions with a replica on this broker.')
    this.leaderCount = gauge('kafka_server_replicamanager_leadercount', 'Partitions this broker leads.')
    this.underReplicated = gauge(
      'kafka_server_replicamanager_underreplicatedpartitions',
      'Partitions this broker leads whose ISR is smaller than their replica set.',
    )
    this.offline = gauge(
      'kafka_controller_kafkacontroller_offlinepartitionscount',
      'Partitions without a leader (reported by the controller; 0 elsewhere).',
    )
    this.activeController = gauge('kafka_controller_kafkacontroller_activecontrollercount', '1 on the controller, 0 elsewhere.')
    this.lag = gauge(
      'kafka_consumergroup_lag',
      'High watermark minus committed offset, per group, topic and partition (groups coordinated and partitions led by this broker).',
      ['group', 'topic', 'partition'],
    )
    this.lagDropped = gauge(
      'tributary_consumergroup_lag_series_dropped',
      `Lag series left out of the last scrape (more than ${MAX_LAG_SERIES}).`,
    )
    this.fetchSessions = gauge(
      'kafka_server_fetchsessioncache_numincrementalfetchsessions',
      'Incremental fetch sessions (KIP-227) in the cache.',
    )
    this.fetchSessionPartitions = gauge(
      'kafka_server_fetchsessioncache_numincrementalfetchpartitionscached',
      'Partitions of all incremental fetch sessions.',
    )
    this.fetchSessionEvictions = counter(
      'kafka_server_fetchsessioncache_incrementalfetchsessionevictions_total',
      'Incremental fetch sessions evicted to make room for new ones.',
    )
    this.tailBytes = gauge('tributary_log_tail_cache_bytes', 'Bytes of recently appended batches kept in memory for reads at the tail.')
    this.tailLimit = gauge('tributary_log_tail_cache_limit_bytes', 'The most the tail cache may hold (tributary.log.tail.cache.bytes).')
    this.tailReads = counter(
      'tributary_log_tail_cache_reads_total',
      'Log reads (fetches of consumers and followers) by where they were answered from: result="hit" from memory, "miss" from the segment files.',
      ['result'],
    )
    this.tailEvicted = counter(
      'tributary_log_tail_cache_evicted_bytes_total',
      'Bytes that left the tail cache to make room for newer appends.',
    )
  }

  /** Reads the services once and sets every gauge. */
  refresh(services: BrokerServices): void {
    const self = services.nodeId
    const controller = services.controllerId() === self
    let partitions = 0
    let leaders = 0
    let underReplicated = 0
    let offline = 0
    for (const topic of services.topics.list()) {
      for (let i = 0; i < topic.partitions; i++) {
        const state = services.topics.partitionState(topic.name, i)
        if (!state) continue
        if (state.replicas.includes(self)) partitions++
        if (state.leader === -1) offline++
        if (state.leader !== self) continue
        leaders++
        if (state.isr.length < state.replicas.length) underReplicated++
      }
    }
    this.partitionCount.set(partitions)
    this.leaderCount.set(leaders)
    this.underReplicated.set(underReplicated)
    this.offline.set(controller ? offline : 0)
    this.activeController.set(controller ? 1 : 0)
    this.refreshLag(services)
    this.refreshFetchSessions(services)
    this.refreshTailCache(services)
  }

  private refreshTailCache(services: BrokerServices): void {
    const s = services.tailCache?.stats()
    if (!s) return
    this.tailBytes.set(s.bytes)
    this.tailLimit.set(s.limitBytes)
    const e = this.tailExported
    if (s.hits > e.hits) this.tailReads.labels('hit').inc(s.hits - e.hits)
    if (s.misses > e.misses) this.tailReads.labels('miss').inc(s.misses - e.misses)
    if (s.evictedBytes > e.evictedBytes) this.tailEvicted.inc(s.evictedBytes - e.evictedBytes)
    e.hits = s.hits
    e.misses = s.misses
    e.evictedBytes = s.evictedBytes
  }

  private refreshFetchSessions(services: BrokerServices): void {
    const cache = services.fetchSessions
    this.fetchSessions.set(cache?.size ?? 0)
    this.fetchSessionPartitions.set(cache?.totalPartitions ?? 0)
    const evictions = cache?.evictions ?? 0
    if (evictions > this.evictionsExported) this.fetchSessionEvictions.inc(evictions - this.evictionsExported)
    this.evictionsExported = evictions
  }

  private refreshLag(services: BrokerServices): void {
    this.lag.reset()
    let series = 0
    let dropped = 0
    const { groups } = services.groups.listGroups({ states: [], types: [] })
    for (const g of groups) {
      if (g.groupType === 'share') continue // share groups commit no offsets (KIP-932)
      const fetched = services.groups.fetchOffsets(g.groupId, null, false)
      if (fetched.errorCode !== 0) continue
      for (const t of fetched.topics) {
        for (const p of t.partitions) {
          if (p.errorCode !== 0 || p.committedOffset < 0) continue
          if (services.topics.partitionState(t.name, p.partitionIndex)?.leader !== services.nodeId) continue
          const replica = services.replicas.get(t.name, p.partitionIndex)
          if (!replica) continue
          if (series >= MAX_LAG_SERIES) {
            dropped++
            continue
          }
          series++
          this.lag.labels(g.groupId, t.name, String(p.partitionIndex)).set(Math.max(0, replica.log.highWatermark - p.committedOffset))
        }
      }
    }
    this.lagDropped.set(dropped)
  }
}
