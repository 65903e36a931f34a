// The services a request handler reaches through its context: one port per concept (topics.ts,
// replicas.ts, groups.ts, configs.ts, log-dirs.ts, partition-admin.ts, telemetry.ts,
// transactions.ts, share-coordinator.ts, share-fetch.ts, quotas.ts, fetch-sessions.ts) gathered
// here. The broker's composition root (broker/broker.ts) provides them; handlers never import
// concrete services, so tests can hand them fakes. Ports depend on nothing above them: the
// layers that implement them (cluster/, replication/, coordinator/, telemetry/) import these.
import type { Authorizer } from './authorizer.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { AuthenticationService } from './authentication.js'
import type { ConfigService } from './configs.js'
import type { FetchSessionCache } from './fetch-sessions.js'
import type { ScramCredentialService } from './scram-credentials.js'
import type { GroupService } from './groups.js'
import type { LogDirService } from './log-dirs.js'
import type { PartitionAdminService } from './partition-admin.js'
import type { QuotaService } from './quotas.js'
import type { ReplicaService } from './replicas.js'
import type { ShareCoordinatorService } from './share-coordinator.js'
import type { ShareFetchService } from './share-fetch.js'
import type { TelemetryService } from './telemetry.js'
import type { TopicService } from './topics.js'
import type { TailCacheStats } from '../storage/tail-cache.js'
import type { TransactionService, TxnMarkerWriter, TxnProduceVerifier } from './transactions.js'

export interface BrokerEndpoint {
  nodeId: number
  host: string
  port: number
  rack: string | null
}

export interface ProducerIdService {
  /** A new producer id with epoch 0 (for a producer without a transactional id). */
  initProducerId(): Promise<{ producerId: number; producerEpoch: number }>
}

export interface BrokerSettings {
  messageMaxBytes: number
  fetchMaxBytes: number
  autoCreateTopics: boolean
  deleteTopicEnable: boolean
}

export interface BrokerServices {
  readonly nodeId: number
  readonly clusterId: string
  readonly clock: Clock
  readonly logger: Logger
  readonly settings: BrokerSettings
  /** The brokers as advertised on the given listener (clients must reconnect to that one). */
  brokers(listenerName: string): BrokerEndpoint[]
  /** The elected controller's node id (-1 while there is none); this broker on a single node. */
  controllerId(): number
  readonly topics: TopicService
  readonly replicas: ReplicaService
  readonly producerIds: ProducerIdService
  readonly configs: ConfigService
  readonly groups: GroupService
  readonly logDirs: LogDirService
  readonly partitionAdmin: PartitionAdminService
  /** Client telemetry (KIP-714): subscriptions and the last pushed metrics per client instance. */
  readonly telemetry: TelemetryService
  /** The transaction coordinator (the `__transaction_state` partitions this broker leads). */
  readonly transactions: TransactionService
  /** Whether a partition is (now) in a producer's transaction (KIP-890), asked before a transactional write. */
  readonly txnVerifier: TxnProduceVerifier
  /** Writes transaction markers to the partitions this broker leads (WriteTxnMarkers). */
  readonly txnMarkers: TxnMarkerWriter
  /** The share coordinator (the `__share_group_state` partitions this broker leads; KIP-932). */
  readonly shareCoordinator: ShareCoordinatorService
  /** The share-partition leaders' ShareFetch/ShareAcknowledge (KIP-932). */
  readonly shares: ShareFetchService
  /**
   * SASL authentication (SaslHandshake, SaslAuthenticate, the dispatcher's gate). Absent in test
   * fakes: then a SASL listener's connections are closed at their first request.
   */
  readonly authentication?: AuthenticationService
  /** SCRAM credentials (DescribeUserScramCredentials, AlterUserScramCredentials); absent in test fakes. */
  readonly scramCredentials?: ScramCredentialService
  /** Client quotas: their entities and the measures requests are throttled by. */
  readonly quotas: QuotaService
  /**
   * Incremental fetch sessions (KIP-227). Absent in test fakes: then every full fetch is answered
   * with session id 0 and an incremental one with FETCH_SESSION_ID_NOT_FOUND.
   */
  readonly fetchSessions?: FetchSessionCache
  /** The broker's cache of recent appends (storage/tail-cache.ts), for /metrics; absent in test fakes. */
  readonly tailCache?: { stats(): TailCacheStats }
  /** Who may do what (authorizer.class.name); absent = no authorization, as NO_AUTHORIZER. */
  readonly authorizer?: Authorizer
}
