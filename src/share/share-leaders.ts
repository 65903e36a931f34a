// The share-partition leaders of one broker (KIP-932), assembled: the share-partitions it leads
// (share-partition-manager.ts), the share session cache (share-sessions.ts), the ShareFetch /
// ShareAcknowledge service over them (share-requests.ts) and the dead-letter sink
// (dead-letters.ts). The composition root builds this once, hands `service` to the handlers,
// calls onResignation when the broker stops leading a partition, and close() at shutdown.
import type { ClientSecurity } from '../client/security.js'
import type { BrokerEndpoint } from '../ports/broker-services.js'
import type { ReplicaService } from '../ports/replicas.js'
import type { ShareFetchService } from '../ports/share-fetch.js'
import type { ShareGroupSettingsSource, ShareStatePersister } from '../ports/shares.js'
import type { TopicService } from '../ports/topics.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import { ClusterShareStarts } from './cluster-share-starts.js'
import { BrokerDeadLetterSink } from './dead-letters.js'
import { SharePartitionManager } from './share-partition-manager.js'
import { ShareRequests } from './share-requests.js'
import { ShareSessionCache } from './share-sessions.js'

export interface ShareLeadersOptions {
  nodeId: number
  topics: TopicService
  replicas: ReplicaService
  persister: ShareStatePersister
  settings: ShareGroupSettingsSource
  brokers: (listenerName: string) => BrokerEndpoint[]
  /** The listener brokers reach each other on (dead letters produced to another leader). */
  interBrokerListener: string
  /** How this broker logs in on that listener (security/sasl/setup.ts interBrokerSecurity). */
  interBrokerSecurity?: ClientSecurity
  clock: Clock
  logger: Logger
  fetchMaxBytes: number
  messageMaxBytes: number
  maxInFlightRecords?: number
  maxSessions?: number
  /** errors.deadletterqueue.topic.name.prefix ("dlq." when omitted). */
  deadLetterTopicPrefix?: () => string
  /** errors.deadletterqueue.auto.create.topics.enable (false when omitted). */
  deadLetterAutoCreate?: () => boolean
}

export interface ShareLeaders {
  readonly service: ShareFetchService
  readonly manager: SharePartitionManager
  readonly sessions: ShareSessionCache
  /** This broker stopped leading the partition: its share-partitions go (timers cancelled). */
  onResignation(topic: string, partition: number): void
  close(): Promise<void>
}

export function createShareLeaders(o: ShareLeadersOptions): ShareLeaders {
  const deadLetters = new BrokerDeadLetterSink({
    nodeId: o.nodeId,
    topics: o.topics,
    replicas: o.replicas,
    clock: o.clock,
    logger: o.logger.child('dead-letters'),
    messageMaxBytes: o.messageMaxBytes,
    bootstrap: () => o.brokers(o.interBrokerListener).map((b) => `${b.host}:${b.port}`),
    ...(o.interBrokerSecurity ? { security: o.interBrokerSecurity } : {}),
    topicPrefix: o.deadLetterTopicPrefix ?? (() => 'dlq.'),
    autoCreate: o.deadLetterAutoCreate ?? (() => false),
  })
  const starts = new ClusterShareStarts(
    () => o.brokers(o.interBrokerListener).map((b) => `${b.host}:${b.port}`),
    `tributary-share-${o.nodeId}`,
    o.interBrokerSecurity,
  )
  const manager = new SharePartitionManager({
    replicas: o.replicas,
    topics: o.topics,
    persister: o.persister,
    settings: o.settings,
    deadLetters,
    clusterStart: (topic, partition) => starts.smallestStart(topic, partition),
    clock: o.clock,
    logger: o.logger,
    ...(o.maxInFlightRecords !== undefined ? { maxInFlightRecords: o.maxInFlightRecords } : {}),
  })
  const sessions = new ShareSessionCache(o.maxSessions)
  const service = new ShareRequests({
    manager,
    sessions,
    topics: o.topics,
    settings: o.settings,
    brokers: o.brokers,
    waiters: o.replicas.waiters,
    clock: o.clock,
    logger: o.logger,
    fetchMaxBytes: o.fetchMaxBytes,
  })
  return {
    service,
    manager,
    sessions,
    onResignation: (topic, partition) => manager.onResignation(topic, partition),
    async close() {
      manager.close()
      await deadLetters.close()
      await starts.close()
    },
  }
}
