// The GroupService port: consumer groups (the classic protocol and KIP-848's), share groups
// (KIP-932) and committed offsets, implemented by the coordinator in coordinator/group/. Error
// codes are Kafka's; 0 = NONE.
import type {
  ConsumerGroupHeartbeatRequestData,
  ConsumerGroupHeartbeatResponseData,
} from '../protocol/messages/68-consumer-group-heartbeat.js'
import type { ConsumerGroupDescribeResponseData } from '../protocol/messages/69-consumer-group-describe.js'
import type { ShareGroupHeartbeatRequestData, ShareGroupHeartbeatResponseData } from '../protocol/messages/76-share-group-heartbeat.js'
import type { ShareGroupDescribeResponseData } from '../protocol/messages/77-share-group-describe.js'
import type {
  DescribeShareGroupOffsetsRequestData,
  DescribeShareGroupOffsetsResponseData,
} from '../protocol/messages/90-describe-share-group-offsets.js'
import type {
  AlterShareGroupOffsetsRequestData,
  AlterShareGroupOffsetsResponseData,
} from '../protocol/messages/91-alter-share-group-offsets.js'
import type {
  DeleteShareGroupOffsetsRequestData,
  DeleteShareGroupOffsetsResponseData,
} from '../protocol/messages/92-delete-share-group-offsets.js'

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

/** TxnOffsetCommit: offsets committed inside a transaction, visible once its marker is written. */
export interface TxnOffsetCommitParams {
  transactionalId: string
  groupId: string
  producerId: number
  producerEpoch: number
  /** v3+: -1 / '' / null when the producer does not pass its consumer's group metadata. */
  generationId: number
  memberId: string
  groupInstanceId: string | null
  offsets: OffsetToCommit[]
  apiVersion: number
  /**
   * The transaction verification (KIP-890), called with the group's `__consumer_offsets`
   * partition once the coordinator has checked the group id and that it coordinates the group,
   * before anything is written; a non-zero code refuses every offset with it.
   */
  verify?: (offsetsPartition: number) => Promise<number>
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
  /** Why the group is not described (DescribeGroups v6+), when the coordinator says more than the code. */
  errorMessage?: string
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
  /** "classic", "consumer" or "share" */
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
  /**
   * One error code per params.offsets entry, in order; resolves once the transactional batch is
   * durable. The offsets stay pending (invisible to OffsetFetch, UNSTABLE_OFFSET_COMMIT with
   * require_stable) until completeTransaction.
   */
  txnOffsetCommit(params: TxnOffsetCommitParams): Promise<number[]>
  /** A marker reached __consumer_offsets partition `offsetsPartition` (after it is written): the
   *  producer's pending transactional offsets there are committed (commit=true) or dropped. */
  completeTransaction(offsetsPartition: number, producerId: number, commit: boolean): void
  /**
   * topics null = every committed offset of the group. member: OffsetFetch v9+'s member id and
   * epoch, checked for a consumer-protocol group (STALE_MEMBER_EPOCH, UNKNOWN_MEMBER_ID).
   */
  fetchOffsets(
    groupId: string,
    topics: TopicPartitions[] | null,
    requireStable: boolean,
    member?: { memberId: string | null; memberEpoch: number },
  ): FetchOffsetsResult
  deleteOffsets(groupId: string, topics: TopicPartitions[]): Promise<DeleteOffsetsResult>
  describeGroups(groupIds: string[]): DescribedGroup[]
  /** Empty filters match everything; both compare case-insensitively. */
  listGroups(filter: { states: string[]; types: string[] }): { errorCode: number; groups: ListedGroup[] }
  deleteGroups(groupIds: string[]): Promise<Array<{ groupId: string; errorCode: number }>>
  /** Creates `__consumer_offsets` if it is missing (Kafka creates it on the first FindCoordinator). */
  ensureCoordinatorTopic(): Promise<void>
  /**
   * ConsumerGroupHeartbeat (KIP-848): join, heartbeat, reconcile or leave a consumer-protocol
   * group. Resolves once the group's changes are durable (never rejects).
   */
  consumerGroupHeartbeat(
    req: ConsumerGroupHeartbeatRequestData,
    apiVersion: number,
    /** topicVisible: the topics a regex subscription may resolve to (the member's DESCRIBE); absent, all. */
    client: { clientId: string; clientHost: string; topicVisible?: (topic: string) => boolean },
  ): Promise<ConsumerGroupHeartbeatResponseData>
  /** ConsumerGroupDescribe: one entry per group id, in order. */
  consumerGroupDescribe(groupIds: string[]): ConsumerGroupDescribeResponseData['groups']
  /** ShareGroupHeartbeat (KIP-932): join, heartbeat or leave a share group; resolves once the change is durable. */
  shareGroupHeartbeat(
    req: ShareGroupHeartbeatRequestData,
    client: { clientId: string; clientHost: string },
  ): Promise<ShareGroupHeartbeatResponseData>
  /** ShareGroupDescribe: one entry per group id, in order. */
  shareGroupDescribe(groupIds: string[]): ShareGroupDescribeResponseData['groups']
  /** DescribeShareGroupOffsets: start offsets (and, v1, lag) per partition; one entry per group, in order. */
  describeShareGroupOffsets(
    groups: DescribeShareGroupOffsetsRequestData['groups'],
  ): Promise<DescribeShareGroupOffsetsResponseData['groups']>
  /** AlterShareGroupOffsets: an empty share group's start offsets. */
  alterShareGroupOffsets(req: AlterShareGroupOffsetsRequestData): Promise<AlterShareGroupOffsetsResponseData>
  /** DeleteShareGroupOffsets: an empty share group's state for whole topics. */
  deleteShareGroupOffsets(req: DeleteShareGroupOffsetsRequestData): Promise<DeleteShareGroupOffsetsResponseData>
}
