// The parts every broker runs to follow its cluster — a single broker being a cluster of one
// (cluster/membership.ts): replica fetchers, the ReplicaSync that applies partition states to the
// local replicas, the leader election the controller runs, and the wiring of group coordinators to
// the leadership of their __consumer_offsets partitions, of the transaction coordinator to
// that of its __transaction_state partitions, and of the share coordinator to that of its
// __share_group_state partitions. The same on the local store and on etcd.
import type { InterBrokerEndpoint } from '../client/security.js'
import { interBrokerSecurity } from '../security/sasl/setup.js'
import type { Controller } from '../cluster/controller.js'
import { LeaderElection } from '../cluster/leader-election.js'
import type { ClusterBackend, Membership } from '../cluster/membership.js'
import type { GroupCoordinator } from '../coordinator/group/group-coordinator.js'
import { OFFSETS_TOPIC } from '../coordinator/group/offsets-topic.js'
import type { ShareCoordinator } from '../coordinator/share/share-coordinator.js'
import type { TransactionCoordinator } from '../coordinator/txn/txn-coordinator.js'
import { SHARE_GROUP_STATE_TOPIC, TRANSACTION_STATE_TOPIC } from '../cluster/topic-names.js'
import { FetcherManager } from '../replication/replica-fetcher.js'
import type { ReplicaManager } from '../replication/replica-manager.js'
import { ReplicaSync } from '../replication/replica-sync.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { BrokerConfig } from '../config/config.js'

/**
 * The group coordinator takes over the groups of the `__consumer_offsets` partitions this broker
 * leads, and gives them up when it stops leading (Kafka's onElection / onResignation). Partitions
 * it already led before the coordinator existed (applied at start-up) are elected now; an event
 * heard twice for the same epoch is ignored by the coordinator.
 */
export function followOffsetsLeadership(groups: GroupCoordinator, sync: ReplicaSync, replicas: ReplicaManager): void {
  sync.onLeadershipChange((topic, partition, leading, leaderEpoch) => {
    if (topic !== OFFSETS_TOPIC) return
    if (leading) void groups.onElection(partition, leaderEpoch)
    else groups.onResignation(partition, leaderEpoch)
  })
  for (const p of replicas.all()) {
    if (p.topic === OFFSETS_TOPIC && p.isLeader && p.state !== undefined) void groups.onElection(p.index, p.leaderEpoch)
  }
}

/**
 * The transaction coordinator follows the leadership of the `__transaction_state` partitions as
 * the group coordinator follows `__consumer_offsets`: elected — it loads the partition (and
 * resumes the transactions found completing), at the leader epoch as its coordinator epoch;
 * resigned — it drops the partition's state.
 */
export function followTransactionLeadership(transactions: TransactionCoordinator, sync: ReplicaSync, replicas: ReplicaManager): void {
  sync.onLeadershipChange((topic, partition, leading, leaderEpoch) => {
    if (topic !== TRANSACTION_STATE_TOPIC) return
    if (leading) void transactions.onElection(partition, leaderEpoch)
    else transactions.onResignation(partition, leaderEpoch)
  })
  for (const p of replicas.all()) {
    if (p.topic === TRANSACTION_STATE_TOPIC && p.isLeader && p.state !== undefined) void transactions.onElection(p.index, p.leaderEpoch)
  }
}

/**
 * The share coordinator follows the leadership of the `__share_group_state` partitions the same
 * way: elected — it loads the partition (its keys are served once loaded); resigned — it drops
 * the partition's keys.
 */
export function followShareStateLeadership(shares: ShareCoordinator, sync: ReplicaSync, replicas: ReplicaManager): void {
  sync.onLeadershipChange((topic, partition, leading, leaderEpoch) => {
    if (topic !== SHARE_GROUP_STATE_TOPIC) return
    if (leading) void shares.onElection(partition, leaderEpoch)
    else shares.onResignation(partition, leaderEpoch)
  })
  for (const p of replicas.all()) {
    if (p.topic === SHARE_GROUP_STATE_TOPIC && p.isLeader && p.state !== undefined) void shares.onElection(p.index, p.leaderEpoch)
  }
}

/** What a broker runs to follow its cluster. */
export interface ClusterParts {
  readonly sync: ReplicaSync
  /** Leader elections (runs its sweep only while this broker is the controller). */
  readonly election: LeaderElection
  /** A registered broker's address on the inter-broker listener (undefined when unknown). */
  endpointOf(nodeId: number): InterBrokerEndpoint | undefined
  /** Once registered: fetch from leaders' registered endpoints, take part in leader election. */
  attach(membership: Membership): void
  close(): Promise<void>
}

export function startClusterParts(
  backend: ClusterBackend,
  config: BrokerConfig,
  replicas: ReplicaManager,
  controller: Controller,
  clock: Clock,
  logger: Logger,
): ClusterParts {
  const store = backend.store
  const nodeId = config.nodeId
  const interBroker = config.get('inter.broker.listener.name') ?? config.advertisedListeners[0]?.name
  // Every connection to another broker authenticates as this broker (sasl.mechanism.inter.broker.protocol).
  const security = interBrokerSecurity(config, interBroker)
  const endpointOf = (id: number): InterBrokerEndpoint | undefined => {
    const b = backend.membership?.brokers().find((x) => x.nodeId === id)
    const e = b?.endpoints.find((x) => x.listener === interBroker) ?? b?.endpoints[0]
    return e ? { host: e.host, port: e.port, ...(security ? { security } : {}) } : undefined
  }
  const fetchers = new FetcherManager({
    nodeId,
    clock,
    logger: logger.child('fetcher'),
    config: {
      partitionMaxBytes: config.get('replica.fetch.max.bytes'),
      responseMaxBytes: config.get('replica.fetch.response.max.bytes'),
      maxWaitMs: config.get('replica.fetch.wait.max.ms'),
      minBytes: config.get('replica.fetch.min.bytes'),
      backoffMs: config.get('replica.fetch.backoff.ms'),
      socketTimeoutMs: config.get('replica.socket.timeout.ms'),
    },
    endpointOf: (id) => endpointOf(id),
  })
  const sync = new ReplicaSync({
    nodeId,
    store,
    replicas,
    fetchers,
    clock,
    logger: logger.child('replica-sync'),
    logConfigOf: (t) => controller.logConfigOf(t),
    replicaLagTimeMaxMs: config.get('replica.lag.time.max.ms'),
  })
  const election = new LeaderElection(
    store,
    () => new Set(backend.membership?.brokers().map((b) => b.nodeId) ?? []),
    clock,
    logger.child('election'),
    {
      autoLeaderRebalance: config.get('auto.leader.rebalance.enable'),
      imbalanceCheckIntervalMs: config.get('leader.imbalance.check.interval.seconds') * 1000,
      imbalancePercentage: config.get('leader.imbalance.per.broker.percentage'),
      uncleanElection: (t) => controller.effectiveConfig(t)['unclean.leader.election.enable'],
    },
  )
  store.onChange((change) => {
    if (change.kind === 'topic') sync.topicChanged(change.name)
    else if (change.kind === 'partition') void sync.schedule(change.topic, change.partition)
    if (change.kind !== 'brokerConfigs') election.trigger()
  })
  return {
    sync,
    election,
    endpointOf,
    attach(membership) {
      membership.onControllerChange((s) => election.setActive(s.isController))
      membership.onBrokersChange(() => election.trigger())
      election.setActive(membership.isController)
    },
    async close() {
      election.setActive(false)
      await sync.close()
      await fetchers.close()
    },
  }
}
