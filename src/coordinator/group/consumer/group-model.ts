// The state of KIP-848 consumer groups as the coordinator keeps it (Kafka's ConsumerGroup and
// ConsumerGroupMember): a group's epochs, members and target assignment, and each member's epoch,
// subscription and current assignment. consumer-groups.ts changes them; describe.ts, records.ts and
// the rest read them.
import type { Timer } from '../../../util/clock.js'
import { type Assignment, emptyAssignment, hasPartition } from './assignment.js'
import type { MemberState } from './reconcile.js'
import type { ClassicMemberInfo } from './records.js'

export const LEAVE_EPOCH = -1
export const LEAVE_STATIC_EPOCH = -2

export interface ConsumerGroupConfig {
  sessionTimeoutMs: number
  heartbeatIntervalMs: number
  /** group.consumer.assignors; the first is the default. */
  assignors: readonly string[]
  /** A group's own consumer.session.timeout.ms / consumer.heartbeat.interval.ms (group configs), read when used. */
  timeouts?: (groupId: string) => { sessionTimeoutMs?: number; heartbeatIntervalMs?: number }
  /**
   * An authorizer is on (authorizer.class.name): a member restored from the log resolves its regex
   * to nothing until its first heartbeat brings its principal. Without one, to every topic.
   */
  authorizing?: boolean
}

export const DEFAULT_CONSUMER_GROUP_CONFIG: ConsumerGroupConfig = {
  sessionTimeoutMs: 45000,
  heartbeatIntervalMs: 5000,
  assignors: ['uniform', 'range'],
}

export interface TopicInfo {
  id: string
  partitions: number
}

/** The cluster's topics by name (non-internal ones are subscribable). */
export type TopicSource = () => ReadonlyMap<string, TopicInfo>

export interface ClientInfo {
  clientId: string
  clientHost: string
  /**
   * Which topics the member may see (DESCRIBE, the handler's authorizer check): only those are
   * resolved from its regex subscription. Absent: every topic (no authorizer).
   */
  topicVisible?: TopicFilter
}

/** Whether a topic (by name) may be resolved into a member's regex subscription. */
export type TopicFilter = (topic: string) => boolean

export const EVERY_TOPIC: TopicFilter = () => true
/** A member restored from the log under an authorizer has not told its principal yet: its regex resolves to nothing until it heartbeats. */
export const NO_TOPIC: TopicFilter = () => false

export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable'

export type { ClassicMemberInfo }

export class ConsumerMember {
  state: MemberState = 'STABLE'
  memberEpoch = 0
  previousMemberEpoch = 0
  assigned: Assignment = emptyAssignment()
  pendingRevocation: Assignment = emptyAssignment()
  subscribedTopicNames: string[] = []
  subscribedTopicRegex: string | null = null
  /** The topics its regex may resolve to: those its last heartbeat's principal may DESCRIBE (not durable). */
  topicVisible: TopicFilter = NO_TOPIC
  serverAssignor: string | null = null
  rackId: string | null = null
  rebalanceTimeoutMs = 0
  session: Timer | null = null
  revocationDeadline: Timer | null = null
  /** A classic-protocol member of this group (JoinGroup/SyncGroup/Heartbeat; classic-members.ts). */
  classic: ClassicMemberInfo | null = null

  constructor(
    readonly memberId: string,
    readonly instanceId: string | null,
    public clientId: string,
    public clientHost: string,
  ) {}
}

export class ConsumerGroup {
  groupEpoch = 0
  targetAssignmentEpoch = 0
  readonly members = new Map<string, ConsumerMember>()
  readonly target = new Map<string, Assignment>()
  /** Partition counts of the subscribed topics when the target was last computed. */
  subscribedPartitions = new Map<string, number>()

  constructor(readonly groupId: string) {}

  get state(): ConsumerGroupState {
    if (this.members.size === 0) return 'Empty'
    if (this.targetAssignmentEpoch < this.groupEpoch) return 'Assigning'
    for (const m of this.members.values()) {
      if (m.memberEpoch === LEAVE_STATIC_EPOCH) continue
      if (m.state !== 'STABLE' || m.memberEpoch !== this.targetAssignmentEpoch) return 'Reconciling'
    }
    return 'Stable'
  }

  staticMember(instanceId: string): ConsumerMember | undefined {
    for (const m of this.members.values()) if (m.instanceId === instanceId) return m
    return undefined
  }

  /** Whether a member other than `except` owns the partition (assigned or pending revocation). */
  ownedElsewhere(except: string, topicId: string, partition: number): boolean {
    for (const m of this.members.values()) {
      if (m.memberId === except) continue
      if (hasPartition(m.assigned, topicId, partition) || hasPartition(m.pendingRevocation, topicId, partition)) return true
    }
    return false
  }
}
