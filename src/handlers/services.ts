// The ports handlers call. The broker's composition root (broker/broker.ts) provides them;
// handlers never import concrete services, so tests can hand them fakes.
import type { TopicConfigValues } from '../config/config-defs.js'
import type { PartitionState, TopicRecord } from '../cluster/metadata-store.js'
import type { Partition, PartitionRead, AppendResult, AppendPolicy } from '../replication/replica-manager.js'
import type { AppendWaiters } from '../replication/append-waiters.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { KafkaError } from '../protocol/errors.js'
import type { TelemetryService } from '../telemetry/client-telemetry.js'

export interface BrokerEndpoint {
  nodeId: number
  host: string
  port: number
  rack: string | null
}

export interface TopicSpec {
  name: string
  /** -1 = the broker's num.partitions */
  numPartitions: number
  /** -1 = the broker's default.replication.factor */
  replicationFactor: number
  assignments: Array<{ partitionIndex: number; brokerIds: number[] }>
  configs: Array<{ name: string; value: string | null }>
}

export interface TopicService {
  get(name: string): TopicRecord | undefined
  getById(topicId: string): TopicRecord | undefined
  list(): TopicRecord[]
  /** Validates and (unless validateOnly) creates; throws KafkaError with the precise code. */
  create(spec: TopicSpec, validateOnly: boolean): Promise<TopicRecord>
  delete(name: string): Promise<void>
  /**
   * The topic, created with the broker defaults if it is missing and auto.create.topics.enable
   * allows it (and `allowed` — the client's allow_auto_topic_creation); undefined otherwise.
   * Throws INVALID_TOPIC_EXCEPTION for an illegal name.
   */
  getOrAutoCreate(name: string, allowed: boolean): Promise<TopicRecord | undefined>
  /** The partition's replicas, ISR, leader and leader epoch; undefined when it does not exist. */
  partitionState(topic: string, partition: number): PartitionState | undefined
  /** The topic's effective configuration (its overrides, else the broker-derived defaults). */
  effectiveConfig(topic: TopicRecord): TopicConfigValues
  /**
   * Replaces the topic's override set with `change(current)`, validated as a whole (INVALID_CONFIG
   * naming the key), persisted and applied to the live logs unless validateOnly. Changes of one
   * topic run one at a time. UNKNOWN_TOPIC_OR_PARTITION when the topic does not exist.
   */
  alterTopicConfigs(
    name: string,
    change: (current: Readonly<Record<string, string>>) => Record<string, string>,
    validateOnly: boolean,
  ): Promise<TopicRecord>
  /**
   * Raises the topic's partition count to `count` (CreatePartitions): INVALID_PARTITIONS unless it
   * grows, INVALID_REPLICA_ASSIGNMENT for assignments that are not one replica list per new
   * partition on live brokers. Creates the new logs, then records the count.
   */
  createPartitions(name: string, count: number, assignments: number[][] | null, validateOnly: boolean): Promise<void>
}

/** A partition with a reassignment in progress (ListPartitionReassignments). */
export interface PartitionReassignment {
  topic: string
  partition: number
  /** The current replica set: the target and the replicas leaving, together. */
  replicas: number[]
  addingReplicas: number[]
  removingReplicas: number[]
}

/**
 * Replica moves (KIP-455) and leader elections (KIP-460) — cluster/reassignment.ts. Failures are
 * KafkaErrors with Kafka's codes; on a single node only the no-op assignment [this node] exists.
 */
export interface PartitionAdminService {
  /**
   * Starts moving the partition to `target` (first = preferred leader), or cancels its move when
   * target is null; resolves once the change is recorded (the move completes in the background).
   * Throws UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICA_ASSIGNMENT (empty, duplicates, unregistered
   * brokers), INVALID_REPLICATION_FACTOR (a different count while not allowed),
   * NO_REASSIGNMENT_IN_PROGRESS (cancel with nothing to cancel).
   */
  alterReassignment(topic: string, partition: number, target: readonly number[] | null, allowReplicationFactorChange: boolean): Promise<void>
  /** The reassignments in progress: every one (null), or among the partitions named. */
  listReassignments(topics: ReadonlyArray<{ name: string; partitions: readonly number[] }> | null): PartitionReassignment[]
  /**
   * Elects the preferred replica (unclean false) or, when no in-sync replica lives, any live one.
   * Resolves with null (done) or ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE,
   * ELIGIBLE_LEADERS_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION.
   */
  electLeader(topic: string, partition: number, unclean: boolean): Promise<KafkaError | null>
}

export interface ReplicaService {
  get(topic: string, partition: number): Partition | undefined
  require(topic: string, partition: number): Partition
  /** `timestamps`: the topic's message.timestamp.* policy (CreateTime without bounds when omitted). */
  append(p: Partition, records: Buffer, maxBatchBytes: number, policy?: AppendPolicy): Promise<AppendResult>
  read(p: Partition, fetchOffset: number, maxBytes: number, minOneBatch: boolean): Promise<PartitionRead>
  /** A follower's fetch on the leader: records its position, reads up to the log end. */
  readForFollower(p: Partition, replicaId: number, fetchOffset: number, maxBytes: number): Promise<PartitionRead>
  listOffset(p: Partition, timestamp: number): Promise<{ offset: number; timestamp: number }>
  /** DeleteRecords: moves the log start up to offset (-1 = HW); resolves with the low watermark. */
  deleteRecords(p: Partition, offset: number, fileDeleteDelayMs: number): Promise<number>
  readonly waiters: AppendWaiters
}

export interface ProducerIdService {
  /** A new producer id with epoch 0 (for a producer without a transactional id). */
  initProducerId(): Promise<{ producerId: number; producerEpoch: number }>
}

export interface ConfigEntry {
  name: string
  value: string | null
  readOnly: boolean
  /** Kafka's ConfigSource: 1 topic, 2 dynamic broker, 3 dynamic default broker, 4 static broker, 5 default. */
  source: number
  isSensitive: boolean
  /** Kafka's ConfigType: 1 boolean, 2 string, 3 int, 4 short, 5 long, 6 double, 7 list, 8 class, 9 password. */
  type: number
  documentation: string | null
  synonyms: Array<{ name: string; value: string | null; source: number }>
}

export interface ConfigService {
  /** Every config of the topic (or only `keys`), with sources and synonyms. */
  describeTopic(topic: TopicRecord, keys: string[] | null): ConfigEntry[]
  /** Every config of this broker (or only `keys`). */
  describeBroker(keys: string[] | null): ConfigEntry[]
  /** The cluster-wide dynamic defaults (resource name ""): only the keys set there (or only `keys`). */
  describeBrokerDefaults(keys: string[] | null): ConfigEntry[]
  /**
   * Replaces the dynamic config set of a BROKER resource ("" = cluster-wide default, else this
   * node's id) with `change(current)`: validated (INVALID_CONFIG / INVALID_REQUEST), persisted and
   * applied unless validateOnly. INVALID_REQUEST for another broker's id.
   */
  alterBrokerConfigs(
    resourceName: string,
    change: (current: Readonly<Record<string, string>>) => Record<string, string>,
    validateOnly: boolean,
  ): Promise<void>
}

export interface LogDirPartition {
  topic: string
  partition: number
  /** Bytes of the partition's log segments (.log files; indexes not counted, as in Kafka). */
  sizeBytes: number
  /** max(HW − LEO, 0): how far the log end is behind the high watermark (0 on a leader). */
  offsetLag: number
}

export interface LogDirDescription {
  /** Absolute path. */
  path: string
  /** 0, or KAFKA_STORAGE_ERROR's code for an offline dir. */
  errorCode: number
  /** Size of the volume the dir is on and the bytes still usable there; -1 when unknown. */
  totalBytes: number
  usableBytes: number
  partitions: LogDirPartition[]
}

export interface LogDirService {
  /** Every log dir of this broker with the partitions it holds (DescribeLogDirs). */
  describe(): Promise<LogDirDescription[]>
}

// ---------------------------------------------------------------------------------------------
// Consumer groups (the classic protocol) and committed offsets: the coordinator in
// coordinator/group/ implements this port. Error codes are Kafka's; 0 = NONE.

export interface GroupProtocol {
  name: string
  /** The member's metadata for this protocol (for consumers, a ConsumerProtocolSubscription). */
  metadata: Buffer
}

export interface JoinGroupParams {
  groupId: string
  /** '' for a member joining for the first time. */
  memberId: string
  /** Static membership (KIP-345, JoinGroup v5+); null for a dynamic member. */
  groupInstanceId: string | null
  clientId: string
  clientHost: string
  sessionTimeoutMs: number
  /** JoinGroup v0 has none: pass the session timeout. */
  rebalanceTimeoutMs: number
  protocolType: string
  protocols: GroupProtocol[]
  /** JoinGroup v4+: a member without an id is answered MEMBER_ID_REQUIRED with one (KIP-394). */
  requireKnownMemberId: boolean
  reason: string | null
  /** Aborts when the connection closes; the held response is then released. */
  signal?: AbortSignal
}

export interface JoinGroupResult {
  errorCode: number
  generationId: number
  protocolType: string | null
  protocolName: string | null
  leader: string
  memberId: string
  skipAssignment: boolean
  /** Every member with its metadata for the selected protocol, for the leader; [] for followers. */
  members: Array<{ memberId: string; groupInstanceId: string | null; metadata: Buffer }>
}

export interface SyncGroupParams {
  groupId: string
  generationId: number
  memberId: string
  groupInstanceId: string | null
  /** SyncGroup v5: checked against the group's when not null. */
  protocolType: string | null
  protocolName: string | null
  /** The leader's assignment; [] from followers. */
  assignments: Array<{ memberId: string; assignment: Buffer }>
  signal?: AbortSignal
}

export interface SyncGroupResult {
  errorCode: number
  protocolType: string | null
  protocolName: string | null
  /** Exactly the bytes the leader sent for this member. */
  assignment: Buffer
}

export interface HeartbeatParams {
  groupId: string
  generationId: number
  memberId: string
  groupInstanceId: string | null
}

export interface LeavingMember {
  memberId: string
  groupInstanceId: string | null
  reason: string | null
}

export interface LeaveGroupResult {
  errorCode: number
  members: Array<{ memberId: string; groupInstanceId: string | null; errorCode: number }>
}

export interface OffsetToCommit {
  topic: string
  partition: number
  offset: number
  leaderEpoch: number
  metadata: string | null
}

export interface CommitOffsetsParams {
  groupId: string
  /** -1 for a commit from outside group management (simple consumers, admin tools). */
  generationId: number
  memberId: string
  groupInstanceId: string | null
  /** OffsetCommit v2–4 retention_time_ms; -1 = the broker's offsets.retention.minutes. */
  retentionTimeMs: number
  offsets: OffsetToCommit[]
  /** Some answers depend on it (an unknown group: ILLEGAL_GENERATION before v9, GROUP_ID_NOT_FOUND from v9). */
  apiVersion: number
}

export interface TopicPartitions {
  name: string
  partitions: number[]
}

export interface FetchedOffset {
  partitionIndex: number
  /** -1 when nothing is committed. */
  committedOffset: number
  committedLeaderEpoch: number
  metadata: string
  errorCode: number
}

export interface FetchOffsetsResult {
  errorCode: number
  topics: Array<{ name: string; partitions: FetchedOffset[] }>
}

export interface DeleteOffsetsResult {
  errorCode: number
  topics: Array<{ name: string; partitions: Array<{ partitionIndex: number; errorCode: number }> }>
}

export interface DescribedGroup {
  errorCode: number
  groupId: string
  /** "Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead" ("" with an error). */
  groupState: string
  protocolType: string
  /** The selected protocol, only when Stable (as Kafka). */
  protocolData: string
  members: Array<{
    memberId: string
    groupInstanceId: string | null
    clientId: string
    clientHost: string
    memberMetadata: Buffer
    memberAssignment: Buffer
  }>
}

export interface ListedGroup {
  groupId: string
  protocolType: string
  groupState: string
  /** "classic" */
  groupType: string
}

export interface GroupService {
  /** Held until the rebalance completes (or params.signal aborts). */
  joinGroup(params: JoinGroupParams): Promise<JoinGroupResult>
  /** Followers are held until the leader's assignment is stored. */
  syncGroup(params: SyncGroupParams): Promise<SyncGroupResult>
  heartbeat(params: HeartbeatParams): number
  leaveGroup(groupId: string, members: LeavingMember[]): LeaveGroupResult
  /** One error code per params.offsets entry, in order; resolves once the commit is durable. */
  commitOffsets(params: CommitOffsetsParams): Promise<number[]>
  /** topics null = every committed offset of the group. */
  fetchOffsets(groupId: string, topics: TopicPartitions[] | null, requireStable: boolean): FetchOffsetsResult
  deleteOffsets(groupId: string, topics: TopicPartitions[]): Promise<DeleteOffsetsResult>
  describeGroups(groupIds: string[]): DescribedGroup[]
  /** Empty filters match everything; both compare case-insensitively. */
  listGroups(filter: { states: string[]; types: string[] }): { errorCode: number; groups: ListedGroup[] }
  deleteGroups(groupIds: string[]): Promise<Array<{ groupId: string; errorCode: number }>>
  /** Creates `__consumer_offsets` if it is missing (Kafka creates it on the first FindCoordinator). */
  ensureCoordinatorTopic(): Promise<void>
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
}
