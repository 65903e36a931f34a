// The composition root: builds every service of one broker from its configuration, starts the
// listeners, and shuts everything down in order — stop accepting requests, then flush the logs,
// write the checkpoints and the clean-shutdown marker, then close the metadata store.
import { statfs } from 'node:fs/promises'
import { resolve } from 'node:path'
import { Controller, logConfigOf } from '../cluster/controller.js'
import { LocalMetadataStore } from '../cluster/local-store.js'
import { type BrokerRegistration, type ClusterBackend, localClusterBackend } from '../cluster/membership.js'
import { ProducerIdManager } from '../cluster/producer-ids.js'
import { GroupCoordinator } from '../coordinator/group/group-coordinator.js'
import { OffsetsTopicPersistence } from '../coordinator/group/offsets-topic.js'
import { ShareCoordinatorChannel } from '../coordinator/share/inter-broker.js'
import { BrokerSharePersister } from '../coordinator/share/persister.js'
import { ShareCoordinator } from '../coordinator/share/share-coordinator.js'
import { ShareStateTopic } from '../coordinator/share/share-state-topic.js'
import { InterBrokerTxnChannel } from '../coordinator/txn/inter-broker.js'
import { LocalTxnMarkerWriter } from '../coordinator/txn/local-markers.js'
import { MarkerRouter } from '../coordinator/txn/marker-router.js'
import { TransactionCoordinator } from '../coordinator/txn/txn-coordinator.js'
import { TransactionStateTopic } from '../coordinator/txn/txn-log.js'
import { TxnVerifier } from '../coordinator/txn/verifier.js'
import { finalizedLevel } from '../cluster/features.js'
import { SHARE_GROUP_STATE_TOPIC, TRANSACTION_STATE_TOPIC } from '../cluster/topic-names.js'
import type { ShareStatePersister } from '../ports/shares.js'
import { RequestDispatcher } from '../handlers/dispatcher.js'
import { createRegistry } from '../handlers/index.js'
import type { BrokerEndpoint, BrokerServices } from '../ports/broker-services.js'
import type { LogDirDescription } from '../ports/log-dirs.js'
import { NetworkServer } from '../network/server.js'
import { StoreScramCredentials } from '../security/sasl/scram-credentials.js'
import { createSaslAuthenticator } from '../security/sasl/setup.js'
import { interBrokerSecurity } from '../security/inter-broker.js'
import { etcdTlsFromConfig } from '../security/tls/etcd-tls.js'
import { ListenerTlsContext, listenerTlsContexts } from '../security/tls/listener-tls.js'
import { httpClientOptions } from './http-access.js'
import { ClientQuotas } from '../security/quota/client-quotas.js'
import { ConnectionQuotas } from '../security/quota/connection-quotas.js'
import { ReplicaManager } from '../replication/replica-manager.js'
import { BrokerFetchSessionCache } from '../replication/fetch-session-cache.js'
import { PartitionAdmin } from '../cluster/reassignment.js'
import { nodeFs, type Fs } from '../storage/fs.js'
import { LogManager } from '../storage/log-manager.js'
import { TailCache } from '../storage/tail-cache.js'
import { retentionConfigOf } from '../storage/retention.js'
import { cleanerLogConfigOf } from '../storage/cleaner/config.js'
import { type Clock, systemClock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { BrokerConfig } from '../config/config.js'
import { BrokerConfigService } from './config-service.js'
import { topicDefaults } from '../config/topic-config.js'
import {
  type ClusterParts,
  followOffsetsLeadership,
  followShareStateLeadership,
  followTransactionLeadership,
  startClusterParts,
} from './cluster-parts.js'
import { ClientTelemetry } from '../telemetry/client-telemetry.js'
import type { HttpServer } from '../http/server.js'
import type { BrokerMetrics } from '../ports/metrics.js'
import { createShareLeaders, type ShareLeaders } from '../share/share-leaders.js'
import { authorizerFor } from '../security/acl/standard-authorizer.js'

/**
 * Requests of one connection handled at once. Kafka handles one at a time per connection; a few
 * let a pipelining producer overlap its appends, while bounding what one connection can make the
 * broker hold (each in-flight Fetch may build up to fetch.max.bytes of response).
 */
const MAX_IN_FLIGHT_PER_CONNECTION = 5
/** How long the transaction coordinator's writes and requests wait (Kafka: request.timeout.ms). */
const TXN_REQUEST_TIMEOUT_MS = 30_000
/** How long a share-state persister call keeps retrying (Kafka's persister: request.timeout.ms), and its backoff. */
const SHARE_PERSISTER_TIMEOUT_MS = 30_000
const SHARE_PERSISTER_BACKOFF_MS = 100

export interface BrokerDeps {
  config: BrokerConfig
  logger: Logger
  fs?: Fs
  clock?: Clock
  /**
   * The log dir failed (a write that could not be undone, a failed fsync: storage/log-manager.ts).
   * It is the broker's only log dir, and Kafka's broker halts then (ReplicaManager's log dir
   * failure handling: "all log dirs have failed"), so its leaderships move once its registration
   * expires, and a restart recovers the logs from their last fsync. `tributary start` exits 1
   * (broker/start.ts); by default an embedded broker closes itself.
   */
  onLogDirFailure?: (err: Error) => void
}

export class Broker {
  private closing: Promise<void> | undefined

  private constructor(
    readonly config: BrokerConfig,
    private readonly logger: Logger,
    private readonly replicas: ReplicaManager,
    private readonly groups: GroupCoordinator,
    private readonly transactions: { close(): void },
    private readonly shareState: { close(): void },
    /** Where share-partitions' durable state is read and written, wherever its share coordinator is (KIP-932). */
    readonly shareStatePersister: ShareStatePersister,
    private readonly shares: ShareLeaders,
    private readonly network: NetworkServer,
    private readonly advertised: Map<string, { host: string; port: number }>,
    private readonly backend: ClusterBackend,
    private readonly cluster: ClusterParts,
    /** The HTTP listener (tributary.http.listeners), when there is one. */
    readonly http: HttpServer | undefined,
  ) {}

  static async start(deps: BrokerDeps): Promise<Broker> {
    const { config, logger } = deps
    const fs = deps.fs ?? nodeFs
    const clock = deps.clock ?? systemClock
    const nodeId = config.nodeId
    const [logDir, ...otherDirs] = config.logDirs
    if (otherDirs.length > 0) logger.warn('several log.dirs are not supported yet; using the first', { logDir })

    // With etcd.endpoints the metadata lives in etcd and the broker joins a cluster; without, it
    // is a cluster of one on its local store. Either way the same parts follow the metadata.
    const rack = config.get('broker.rack') ?? null
    // TLS listeners' key and trust stores, read and checked before anything starts (a bad one fails start-up).
    const tlsContexts = listenerTlsContexts(config, logger.child('tls'))
    const brokerSecurity = interBrokerSecurity(config, tlsContexts)
    const backend: ClusterBackend =
      (await openEtcd(config, fs, logDir!, clock, logger)) ??
      localClusterBackend(await LocalMetadataStore.open({ fs, dataDir: logDir!, clock, nodeId, clusterId: config.get('cluster.id') }), {
        nodeId,
        rack,
        clock,
      })
    const store = backend.store
    let logs: LogManager | undefined
    let groups: GroupCoordinator | undefined
    let transactions: { close(): void } | undefined
    let shareState: { close(): void } | undefined
    let shares: ShareLeaders | undefined
    let cluster: ClusterParts | undefined
    let http: HttpServer | undefined
    let started: Broker | undefined
    let dirFailed: Error | undefined
    const onLogDirFailure = (err: Error, partitionDir: string) => {
      logger.error('log dir failed: stopping the broker, as its only log dir cannot be written safely', {
        logDir,
        partitionDir,
        error: err,
      })
      if (deps.onLogDirFailure) deps.onLogDirFailure(err)
      else if (started) void started.close().catch(() => {})
      else dirFailed = err
    }
    try {
      // Static config under the dynamic broker configs kept in the store (KIP-226).
      const configs = new BrokerConfigService(config, store, logger.child('config'))
      // The metrics /metrics serves, fed by the layers below; none (and no prom-client) without HTTP.
      const metrics = await loadMetrics(config)
      const tailCache = new TailCache(config.get('tributary.log.tail.cache.bytes'))
      logs = await LogManager.open({
        fs,
        clock,
        logDir: logDir!,
        config: logConfigOf(topicDefaults(configs.config)),
        logger: logger.child('log'),
        onLogDirFailure,
        checkpointIntervalMs: config.get('log.flush.offset.checkpoint.interval.ms'),
        producerIdExpirationMs: config.get('producer.id.expiration.ms'),
        producerIdExpirationCheckIntervalMs: config.get('producer.id.expiration.check.interval.ms'),
        tailCache,
      })
      const replicas: ReplicaManager = new ReplicaManager(logs, clock, logger.child('replicas'), {
        maxDecompressedBatchBytes: config.get('tributary.max.decompressed.batch.bytes'),
        nodeId,
        // A leader whose registration may have lapsed writes nothing: another broker may lead now.
        leaseAlive: () => backend.membership?.leaseValid ?? false,
        partitionExists: (topic, partition) => store.partitionState(topic, partition) !== undefined,
        // For the transaction markers' acks=-1. The controller is created below; markers come later.
        minInsyncReplicas: (name: string): number => {
          const topic = controller.get(name)
          return topic ? controller.effectiveConfig(topic)['min.insync.replicas'] : 1
        },
      })
      replicas.metrics = metrics
      replicas.loadExisting()
      // Until this broker is registered (its ports are known only once the listeners are bound)
      // it places replicas on itself alone.
      const liveBrokers = () => backend.membership?.brokers().map((b) => ({ id: b.nodeId, rack: b.rack })) ?? [{ id: nodeId, rack }]
      const controller = new Controller(store, replicas, configs.config, logger.child('controller'), liveBrokers, (topic) =>
        parts.sync.settled(topic),
      )
      configs.onChange((c) => controller.updateBrokerConfig(c))
      const parts = startClusterParts(backend, config, replicas, controller, clock, logger, brokerSecurity)
      cluster = parts
      await parts.sync.start()
      // Retention reads each topic's current effective config at every run (dynamic changes apply).
      logs.startRetention({
        checkIntervalMs: config.get('log.retention.check.interval.ms'),
        configOf: (log) => {
          const topic = controller.get(log.topic)
          return topic ? retentionConfigOf(controller.effectiveConfig(topic)) : null
        },
      })
      // The cleaner too: cleanup.policy=compact topics (__consumer_offsets among them).
      await logs.startCleaner({
        config: {
          enabled: config.get('log.cleaner.enable') && config.get('log.cleaner.threads') > 0,
          backoffMs: config.get('log.cleaner.backoff.ms'),
          dedupeBufferBytes: config.get('log.cleaner.dedupe.buffer.size'),
          dedupeLoadFactor: config.get('log.cleaner.io.buffer.load.factor'),
          ioBufferBytes: config.get('log.cleaner.io.buffer.size'),
          maxIoBytesPerSecond: config.get('log.cleaner.io.max.bytes.per.second'),
          maxDecompressedBytes: config.get('tributary.max.decompressed.batch.bytes'),
        },
        configOf: (log) => {
          const topic = controller.get(log.topic)
          return topic ? cleanerLogConfigOf(controller.effectiveConfig(topic)) : null
        },
      })

      // The share coordinator on __share_group_state, and the persister that reaches it wherever it is.
      const shareCoordinator = new ShareCoordinator({
        clock,
        logger: logger.child('share-coordinator'),
        log: new ShareStateTopic({
          topics: controller,
          replicas,
          numPartitions: config.get('share.coordinator.state.topic.num.partitions'),
          replicationFactor: config.get('share.coordinator.state.topic.replication.factor'),
          minIsr: config.get('share.coordinator.state.topic.min.isr'),
          segmentBytes: config.get('share.coordinator.state.topic.segment.bytes'),
          writeTimeoutMs: config.get('share.coordinator.write.timeout.ms'),
          loadChunkBytes: config.get('share.coordinator.load.buffer.size'),
          clock,
          logger: logger.child('share-state'),
        }),
        config: {
          updatesPerSnapshot: config.get('share.coordinator.snapshot.update.records.per.snapshot'),
          pruneIntervalMs: config.get('share.coordinator.state.topic.prune.interval.ms'),
          coldSnapshotIntervalMs: config.get('share.coordinator.cold.partition.snapshot.interval.ms'),
        },
        partitionExists: (topicId, partition) => {
          const t = controller.getById(topicId)
          return t !== undefined && partition < t.partitions
        },
      })
      const shareChannel = new ShareCoordinatorChannel({
        nodeId,
        endpointOf: (id) => parts.endpointOf(id),
        requestTimeoutMs: SHARE_PERSISTER_TIMEOUT_MS,
        logger: logger.child('share-channel'),
      })
      const shareStatePersister = new BrokerSharePersister({
        nodeId,
        clock,
        local: shareCoordinator,
        remote: shareChannel,
        leaderOf: (partition) => controller.partitionState(SHARE_GROUP_STATE_TOPIC, partition)?.leader,
        retryBackoffMs: SHARE_PERSISTER_BACKOFF_MS,
        timeoutMs: SHARE_PERSISTER_TIMEOUT_MS,
      })
      shareState = {
        close: () => {
          shareStatePersister.close()
          shareCoordinator.close()
          shareChannel.close()
        },
      }
      followShareStateLeadership(shareCoordinator, parts.sync, replicas)

      const offsetsTopic = new OffsetsTopicPersistence({
        topics: controller,
        replicas,
        clock,
        logger: logger.child('offsets'),
        numPartitions: config.get('offsets.topic.num.partitions'),
        replicationFactor: config.get('offsets.topic.replication.factor'),
        segmentBytes: config.get('offsets.topic.segment.bytes'),
        requiredAcks: config.get('offsets.commit.required.acks'),
        commitTimeoutMs: config.get('offsets.commit.timeout.ms'),
      })
      groups = new GroupCoordinator({
        clock,
        logger: logger.child('groups'),
        persistence: offsetsTopic,
        shareState: shareStatePersister,
        config: {
          initialRebalanceDelayMs: config.get('group.initial.rebalance.delay.ms'),
          minSessionTimeoutMs: config.get('group.min.session.timeout.ms'),
          maxSessionTimeoutMs: config.get('group.max.session.timeout.ms'),
          maxGroupSize: config.get('group.max.size'),
          offsetsRetentionMs: config.get('offsets.retention.minutes') * 60_000,
          offsetsRetentionCheckIntervalMs: config.get('offsets.retention.check.interval.ms'),
          offsetMetadataMaxBytes: config.get('offset.metadata.max.bytes'),
        },
        ensureTopic: () => offsetsTopic.ensureTopic(),
        topics: () => new Map(controller.list().map((t) => [t.name, { id: t.topicId, partitions: t.partitions }])),
        consumerGroups: {
          sessionTimeoutMs: config.get('group.consumer.session.timeout.ms'),
          heartbeatIntervalMs: config.get('group.consumer.heartbeat.interval.ms'),
          assignors: config.get('group.consumer.assignors'),
          // consumer.session.timeout.ms / consumer.heartbeat.interval.ms of the group's configs, read when used.
          timeouts: (groupId) => configs.groupTimeouts('consumer', groupId),
          authorizing: config.get('authorizer.class.name') !== '',
        },
        shareGroups: {
          config: {
            sessionTimeoutMs: config.get('group.share.session.timeout.ms'),
            heartbeatIntervalMs: config.get('group.share.heartbeat.interval.ms'),
            maxSize: config.get('group.share.max.size'),
          },
          // share.session.timeout.ms / share.heartbeat.interval.ms of the group's configs, read when used.
          timeouts: (groupId) => configs.groupTimeouts('share', groupId),
          // The lag of DescribeShareGroupOffsets v1 needs the partition's high watermark: known where it is led.
          highWatermark: (topic, partition) => replicas.get(topic, partition)?.log.highWatermark ?? null,
        },
      })
      // A group's coordinator is its __consumer_offsets partition's leader.
      followOffsetsLeadership(groups, parts.sync, replicas)

      // The transaction coordinator on __transaction_state, following its leadership the same way.
      const producerIds = new ProducerIdManager(store)
      const txnMarkers = new LocalTxnMarkerWriter({
        replicas,
        groups,
        timeoutMs: TXN_REQUEST_TIMEOUT_MS,
        logger: logger.child('txn-markers'),
      })
      const interBroker = new InterBrokerTxnChannel({
        nodeId,
        endpointOf: (id) => parts.endpointOf(id),
        requestTimeoutMs: TXN_REQUEST_TIMEOUT_MS,
        logger: logger.child('txn-channel'),
      })
      const txnCoordinator = new TransactionCoordinator({
        clock,
        logger: logger.child('transactions'),
        log: new TransactionStateTopic({
          topics: controller,
          replicas,
          numPartitions: config.get('transaction.state.log.num.partitions'),
          replicationFactor: config.get('transaction.state.log.replication.factor'),
          minIsr: config.get('transaction.state.log.min.isr'),
          segmentBytes: config.get('transaction.state.log.segment.bytes'),
          writeTimeoutMs: TXN_REQUEST_TIMEOUT_MS,
          loadChunkBytes: config.get('transaction.state.log.load.buffer.size'),
          clock,
          logger: logger.child('txn-log'),
        }),
        producerIds,
        markers: new MarkerRouter({
          nodeId,
          leaderOf: (topic, partition) => controller.partitionState(topic, partition)?.leader,
          local: txnMarkers,
          remote: (id, marker, partitions) => interBroker.writeMarkers(id, marker, partitions),
          logger: logger.child('txn-markers'),
        }),
        config: {
          transactionMaxTimeoutMs: config.get('transaction.max.timeout.ms'),
          abortTimedOutTransactionsIntervalMs: config.get('transaction.abort.timed.out.transaction.cleanup.interval.ms'),
          transactionalIdExpirationMs: config.get('transactional.id.expiration.ms'),
          removeExpiredTransactionalIdsIntervalMs: config.get('transaction.remove.expired.transaction.cleanup.interval.ms'),
          markerRetryBackoffMs: 100,
        },
        transactionVersion: () => finalizedLevel('transaction.version'),
        partitionExists: (topic, partition) => controller.partitionState(topic, partition) !== undefined,
        offsetsPartitionFor: (groupId) => offsetsTopic.partitionFor(groupId),
      })
      transactions = {
        close: () => {
          txnCoordinator.close()
          interBroker.close()
        },
      }
      const txnVerifier = new TxnVerifier({
        nodeId,
        coordinatorOf: (id) =>
          controller.get(TRANSACTION_STATE_TOPIC)
            ? (controller.partitionState(TRANSACTION_STATE_TOPIC, txnCoordinator.partitionFor(id))?.leader ?? -1)
            : -1,
        local: (req) => txnCoordinator.verifyLocalPartitions(req),
        remote: (id, req) => interBroker.verifyPartitions(id, req),
        clock,
      })
      followTransactionLeadership(txnCoordinator, parts.sync, replicas)

      const advertised = new Map<string, { host: string; port: number }>()
      // The share-partition leaders (KIP-932), keeping their durable state through the persister.
      shares = createShareLeaders({
        nodeId,
        topics: controller,
        replicas,
        persister: shareStatePersister,
        settings: (groupId) => configs.shareGroupSettings(groupId),
        brokers: (listenerName) => services.brokers(listenerName),
        interBrokerListener: config.interBrokerListenerName,
        interBrokerSecurity: brokerSecurity,
        clock,
        logger: logger.child('shares'),
        fetchMaxBytes: config.get('fetch.max.bytes'),
        messageMaxBytes: config.get('message.max.bytes'),
        maxInFlightRecords: config.get('group.share.partition.max.record.locks'),
        maxSessions: config.get('group.share.max.share.sessions'),
        deadLetterTopicPrefix: () => config.get('errors.deadletterqueue.topic.name.prefix'),
        deadLetterAutoCreate: () => config.get('errors.deadletterqueue.auto.create.topics.enable'),
      })
      const shareLeaders = shares
      // A partition this broker stops leading takes its share-partitions with it; the next
      // leader reads their persisted state.
      parts.sync.onLeadershipChange((topic, partition, leading) => {
        if (!leading) shareLeaders.onResignation(topic, partition)
      })
      const quotas = new ClientQuotas(
        store,
        {
          samples: config.get('quota.window.num'),
          windowMs: config.get('quota.window.size.seconds') * 1000,
          controllerSamples: config.get('controller.quota.window.num'),
          controllerWindowMs: config.get('controller.quota.window.size.seconds') * 1000,
        },
        clock,
        logger.child('quota'),
      )
      const services: BrokerServices = {
        nodeId,
        clusterId: store.clusterId(),
        clock,
        logger,
        settings: {
          messageMaxBytes: config.get('message.max.bytes'),
          fetchMaxBytes: config.get('fetch.max.bytes'),
          autoCreateTopics: config.get('auto.create.topics.enable'),
          deleteTopicEnable: config.get('delete.topic.enable'),
        },
        brokers: (listenerName) => {
          const a = advertised.get(listenerName) ?? advertised.values().next().value
          const self = a ? ({ nodeId, host: a.host, port: a.port, rack } satisfies BrokerEndpoint) : undefined
          const registered = backend.membership?.brokers()
          return registered ? registeredEndpoints(registered, listenerName, self) : self ? [self] : []
        },
        controllerId: () => backend.membership?.controllerId ?? nodeId,
        topics: controller,
        replicas,
        producerIds,
        configs,
        groups,
        logDirs: { describe: () => describeLogDirs(logDir!, replicas, fs === nodeFs) },
        partitionAdmin: new PartitionAdmin({
          store,
          liveBrokers: () => new Set(liveBrokers().map((b) => b.id)),
          elector: parts.election,
          clock,
          logger: logger.child('reassignment'),
        }),
        telemetry: new ClientTelemetry({ clock }),
        transactions: txnCoordinator,
        txnVerifier,
        txnMarkers,
        shareCoordinator,
        shares: shares.service,
        authentication: createSaslAuthenticator(config, { store, clock, logger: logger.child('sasl') }),
        scramCredentials: new StoreScramCredentials(store),
        quotas,
        tailCache,
        fetchSessions: new BrokerFetchSessionCache(
          config.get('max.incremental.fetch.session.cache.slots'),
          config.get('min.incremental.fetch.session.eviction.ms'),
        ),
        authorizer: authorizerFor(
          {
            className: config.get('authorizer.class.name'),
            superUsers: config.get('super.users'),
            allowEveryoneIfNoAclFound: config.get('allow.everyone.if.no.acl.found'),
          },
          store,
          logger.child('authorizer'),
        ),
      }
      // The acceptor's connection limits and rates follow the dynamic broker configs (KIP-226).
      const connectionQuotas = new ConnectionQuotas(configs.config, { clock, logger: logger.child('connection-quotas') })
      const network = new NetworkServer({
        listeners: config.listeners.map((l) => {
          const tls = tlsContexts.get(l.name)
          return { name: l.name, host: l.host, port: l.port, securityProtocol: l.securityProtocol, ...(tls ? { tls } : {}) }
        }),
        config: {
          maxRequestBytes: config.get('socket.request.max.bytes'),
          saslMaxReceiveBytes: config.get('sasl.server.max.receive.size'),
          connectionsMaxIdleMs: config.get('connections.max.idle.ms'),
          maxInFlightPerConnection: MAX_IN_FLIGHT_PER_CONNECTION,
        },
        dispatcher: new RequestDispatcher(createRegistry(), services, metrics),
        clock,
        logger: logger.child('network'),
        metrics,
        admit: (ip) => quotas.admitConnection(ip),
        acceptThrottle: connectionQuotas,
        connectionLimits: connectionQuotas,
        listenBacklog: config.get('socket.listen.backlog.size'),
      })
      configs.onChange((c) => connectionQuotas.reconfigure(c))
      connectionQuotas.onChange(() => network.quotasChanged())
      metrics?.attach(services)
      await network.start()
      // Advertised listeners given port 0 take the port actually bound by the listener of that name.
      const bound = network.boundPorts()
      for (const a of config.advertisedListeners) {
        advertised.set(a.name, { host: a.host, port: a.port === 0 ? (bound.get(a.name) ?? 0) : a.port })
      }
      // Registered once the ports are known; a refused registration (broker id in use) stops the start.
      const endpoints = config.advertisedListeners.map((l) => ({
        listener: l.name,
        ...advertised.get(l.name)!,
        securityProtocol: l.securityProtocol,
      }))
      const membership = await backend.join(endpoints).catch(async (err) => {
        await network.close()
        throw err
      })
      parts.attach(membership)
      http = await startHttp(config, services, logger, tlsContexts, (listener) => {
        const a = advertised.get(listener)
        return a ? `${a.host}:${a.port}` : undefined
      }).catch(async (err) => {
        await network.close()
        throw err
      })
      started = new Broker(
        config,
        logger,
        replicas,
        groups,
        transactions,
        shareState,
        shareStatePersister,
        shares,
        network,
        advertised,
        backend,
        parts,
        http,
      )
      if (dirFailed) throw dirFailed
      return started
    } catch (err) {
      await shares?.close().catch(() => {})
      shareState?.close()
      transactions?.close()
      groups?.close()
      await cluster?.close().catch(() => {})
      await logs?.close().catch(() => {})
      await backend.close().catch(() => {})
      throw err
    }
  }

  /** Where clients connect: the first advertised listener. */
  get endpoint(): { listener: string; host: string; port: number } {
    const [name, a] = this.advertised.entries().next().value!
    return { listener: name, ...a }
  }

  /** The port bound by a listener (the first one by default). */
  boundPort(listenerName?: string): number {
    const ports = this.network.boundPorts()
    return (listenerName ? ports.get(listenerName) : ports.values().next().value) ?? 0
  }

  /** Clean shutdown; safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.logger.info('shutting down')
      // The transaction coordinator's timers and marker loops stop (the next leader of each
      // __transaction_state partition resumes them); held JoinGroup/SyncGroup answers go out first
      // (NOT_COORDINATOR), so connections can drain.
      await this.http?.close()
      this.transactions.close()
      this.groups.close()
      await this.network.close()
      await this.shares.close()
      this.shareState.close()
      await this.cluster.close()
      await this.replicas.close()
      // Leave the cluster (with etcd the lease is revoked, so another broker takes over as
      // controller at once), then close the store.
      await this.backend.close()
      this.logger.info('shut down cleanly')
    })()
    return this.closing
  }
}

function httpListeners(config: BrokerConfig): string[] {
  return config.get('tributary.http.listeners').filter((l) => l.trim() !== '')
}

/** The metrics behind the HTTP listener's /metrics, when there is one; prom-client is loaded only then. */
async function loadMetrics(config: BrokerConfig): Promise<(BrokerMetrics & { attach(services: BrokerServices): unknown }) | undefined> {
  if (httpListeners(config).length === 0) return undefined
  const { PromBrokerMetrics } = await import('../http/metrics/broker-metrics.js')
  return new PromBrokerMetrics()
}

/** The HTTP listener when tributary.http.listeners names one; its code is loaded only then. */
async function startHttp(
  config: BrokerConfig,
  services: BrokerServices,
  logger: Logger,
  tlsContexts: ReadonlyMap<string, ListenerTlsContext>,
  address: (listener: string) => string | undefined,
): Promise<HttpServer | undefined> {
  const listeners = httpListeners(config)
  if (listeners.length === 0) return undefined
  const [{ HttpServer }, { HTTP_MODULES }] = await Promise.all([import('../http/server.js'), import('../http/modules.js')])
  const access = httpClientOptions(config, tlsContexts, address, logger.child('http'))
  const clientOptions = access.options
  const bootstrap = () => {
    try {
      return clientOptions('', null).bootstrap[0]!
    } catch {
      return ''
    }
  }
  // https:// addresses present the broker's own certificate: ssl.* keys, listener.name.http.ssl.* first.
  const tls = listeners.some((l) => l.trim().startsWith('https://'))
    ? ListenerTlsContext.fromConfig(config, 'HTTP', 'SSL', logger.child('http'))
    : undefined
  const deps = {
    services,
    config,
    logger: logger.child('http'),
    bootstrap,
    clientOptions,
    loginMechanisms: access.mechanisms,
    ...(tls ? { tls } : {}),
  }
  return HttpServer.start(listeners, deps, HTTP_MODULES)
}

/** The etcd cluster when etcd.endpoints is set; the etcd client is loaded only then. */
async function openEtcd(config: BrokerConfig, fs: Fs, dataDir: string, clock: Clock, logger: Logger): Promise<ClusterBackend | undefined> {
  const endpoints = config.get('etcd.endpoints')
  if (!endpoints || endpoints.length === 0) return undefined
  const { openEtcdCluster } = await import('../cluster/etcd-broker.js')
  const tls = etcdTlsFromConfig(config)
  return openEtcdCluster({
    endpoints,
    ...(tls ? { tls } : {}),
    prefix: config.get('etcd.prefix'),
    sessionTimeoutMs: config.get('broker.session.timeout.ms'),
    nodeId: config.nodeId,
    rack: config.get('broker.rack') ?? null,
    clusterId: config.get('cluster.id'),
    fs,
    dataDir,
    clock,
    logger: logger.child('etcd'),
  })
}

/**
 * The registered brokers as advertised on a listener (Kafka leaves out brokers without it); this
 * broker is always listed, from its own listeners, even while its registration is being renewed.
 */
function registeredEndpoints(
  registered: readonly BrokerRegistration[],
  listenerName: string,
  self: BrokerEndpoint | undefined,
): BrokerEndpoint[] {
  const out: BrokerEndpoint[] = []
  for (const b of registered) {
    if (b.nodeId === self?.nodeId) continue
    const e = b.endpoints.find((x) => x.listener === listenerName)
    if (e) out.push({ nodeId: b.nodeId, host: e.host, port: e.port, rack: b.rack })
  }
  if (self) out.push(self)
  return out.sort((x, y) => x.nodeId - y.nodeId)
}

/**
 * DescribeLogDirs' view of the one log dir: each hosted partition's segment bytes and lag, and
 * the volume's size and usable bytes (statfs, as Kafka's getTotalSpace/getUsableSpace; -1 if
 * the platform cannot tell, or when the logs are not on disk — a memory broker touches no file).
 */
async function describeLogDirs(logDir: string, replicas: ReplicaManager, onDisk: boolean): Promise<LogDirDescription[]> {
  const partitions = [...replicas.all()].map((p) => ({
    topic: p.topic,
    partition: p.index,
    sizeBytes: p.log.sizeBytes,
    offsetLag: Math.max(p.log.highWatermark - p.log.logEndOffset, 0),
  }))
  const unknown = { totalBytes: -1, usableBytes: -1 }
  if (!onDisk) return [{ path: logDir, errorCode: 0, ...unknown, partitions }]
  const volume = await statfs(logDir).then(
    (s) => ({ totalBytes: s.blocks * s.bsize, usableBytes: s.bavail * s.bsize }),
    () => unknown,
  )
  return [{ path: resolve(logDir), errorCode: 0, ...volume, partitions }]
}
