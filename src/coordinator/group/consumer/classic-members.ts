// Classic-protocol members of a KIP-848 consumer group (Kafka 4's mixed groups, the
// `group.consumer.migration.policy` upgrade; GroupMetadataManager.classicGroupJoinToConsumerGroup,
// classicGroupSyncToConsumerGroup, classicGroupHeartbeatToConsumerGroup,
// classicGroupLeaveToConsumerGroup and convertToConsumerGroup).
//
// - Upgrade (fromClassic): a ConsumerGroupHeartbeat joining a classic group whose members all use
//   the embedded consumer protocol turns it into a consumer group: each classic member becomes a
//   member with its subscription (from its JoinGroup metadata), its assignment (from the last
//   SyncGroup) and its generation as its epoch; the group epoch is the generation. Held JoinGroup
//   and SyncGroup requests are answered REBALANCE_IN_PROGRESS by the caller.
// - The server assignor decides for classic members too. A classic member learns that its
//   assignment changed from a Heartbeat answered REBALANCE_IN_PROGRESS (its epoch is behind the
//   group's target, or it waits for partitions others still own); it then rejoins. Its JoinGroup
//   reports what it still owns (the subscription's owned partitions; an eager consumer has revoked
//   everything first), so it reconciles at once and is answered with its member epoch as the
//   generation, no leader (no client-side assignment); SyncGroup hands it its partitions.
// - A classic member's session is its own session.timeout.ms; LeaveGroup removes it; its commits
//   are checked against its epoch (ILLEGAL_GENERATION otherwise).
// - Downgrade (downgradeSnapshot): when the last consumer-protocol member leaves (or times out),
//   the classic members that remain become a classic group at the group epoch as generation, which
//   then rebalances (the caller installs it); the consumer group's records are tombstoned.
// - A classic member's session timeout and protocols are kept in its member record
//   (ClassicMemberMetadata), so a coordinator that takes the group over serves it as classic.
// - New classic members join a consumer group as Kafka lets them (classicGroupJoinToConsumerGroup):
//   with a protocol every classic member there supports (else INCONSISTENT_GROUP_PROTOCOL), a
//   dynamic member without an id learning one first (MEMBER_ID_REQUIRED); the group epoch moves and
//   the server assignor gives them partitions as it does a consumer-protocol member.
import { randomUUID } from 'node:crypto'
import type { ClassicGroup } from '../group.js'
import type { GroupSnapshot } from '../persistence.js'
import type { JoinGroupParams, JoinGroupResult, LeavingMember, SyncGroupResult } from '../../../ports/groups.js'
import { ErrorCode, type ErrorName } from '../../../protocol/errors.js'
import { decodeAssignment, decodeSubscription, encodeAssignment } from '../../../protocol/consumer-protocol.js'
import { addPartition, type Assignment, emptyAssignment, partitionsOf } from './assignment.js'
import { type ConsumerGroup, ConsumerMember, type ConsumerGroups, type TopicSource } from './consumer-groups.js'

const CONSUMER = 'consumer'
const code = (name: ErrorName): number => ErrorCode[name].code

/** Whether the classic group can become a consumer group (Kafka's validateOnlineUpgrade). */
export function canUpgrade(group: ClassicGroup): boolean {
  if (group.protocolType !== CONSUMER) return false
  for (const m of group.members.values()) if (m.protocolType !== CONSUMER) return false
  return true
}

export class ClassicMembers {
  constructor(
    private readonly groups: ConsumerGroups,
    private readonly topics: TopicSource,
  ) {}

  private ids(): Map<string, string> {
    return new Map([...this.topics()].map(([name, t]) => [name, t.id]))
  }

  private toAssignment(tps: ReadonlyArray<{ topic: string; partitions: readonly number[] }> | null): Assignment {
    const ids = this.ids()
    const out = emptyAssignment()
    for (const tp of tps ?? []) {
      const id = ids.get(tp.topic)
      if (id !== undefined) for (const p of tp.partitions) addPartition(out, id, p)
    }
    return out
  }

  private toNames(a: Assignment): Array<{ topic: string; partitions: number[] }> {
    const names = new Map([...this.topics()].map(([name, t]) => [t.id, name]))
    const byTopic = new Map<string, number[]>()
    for (const [t, p] of partitionsOf(a)) {
      const name = names.get(t)
      if (name === undefined) continue
      let ps = byTopic.get(name)
      if (ps === undefined) byTopic.set(name, (ps = []))
      ps.push(p)
    }
    return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }))
  }

  /** The consumer group made of a classic group's members (the caller retires the classic group). */
  fromClassic(classic: ClassicGroup): ConsumerGroup {
    const members: ConsumerMember[] = []
    for (const m of classic.members.values()) {
      const member = new ConsumerMember(m.memberId, m.groupInstanceId, m.clientId, m.clientHost)
      const metadata = m.protocols.find((p) => p.name === classic.protocolName)?.metadata ?? m.protocols[0]?.metadata
      const subscription = metadata === undefined ? null : decodeSubscription(metadata)
      member.subscribedTopicNames = [...new Set(subscription?.topics ?? [])].sort()
      member.rebalanceTimeoutMs = m.rebalanceTimeoutMs
      member.classic = { sessionTimeoutMs: m.sessionTimeoutMs, protocols: m.protocols.map((p) => ({ ...p })) }
      member.assigned = this.toAssignment(decodeAssignment(m.assignment))
      member.memberEpoch = classic.generationId
      member.previousMemberEpoch = classic.generationId
      members.push(member)
    }
    return this.groups.install(classic.groupId, classic.generationId, members)
  }

  /**
   * The classic group the members become when no consumer-protocol member is left (Kafka's
   * online downgrade, ClassicGroup.fromConsumerGroup): generation = the group epoch, the protocol
   * one every member supports, each member's partitions as its assignment. Null when a
   * consumer-protocol member remains or no protocol is common to all.
   */
  downgradeSnapshot(group: ConsumerGroup, nowMs: number): GroupSnapshot | null {
    const members = [...group.members.values()]
    if (members.length === 0 || members.some((m) => m.classic === null)) return null
    const common = members[0]!
      .classic!.protocols.map((p) => p.name)
      .find((name) => members.every((m) => m.classic!.protocols.some((p) => p.name === name)))
    if (common === undefined) return null
    return {
      protocolType: CONSUMER,
      generationId: group.groupEpoch,
      protocolName: common,
      leaderId: members[0]!.memberId,
      currentStateTimestampMs: nowMs,
      members: members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.instanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        sessionTimeoutMs: m.classic!.sessionTimeoutMs,
        subscription: m.classic!.protocols.find((p) => p.name === common)!.metadata,
        assignment: encodeAssignment(this.toNames(m.assigned)),
      })),
    }
  }

  /**
   * Whether a classic member with these protocols may be in the group (Kafka's
   * ConsumerGroup.supportsClassicProtocols): the embedded consumer protocol, and a protocol every
   * classic member already there supports.
   */
  private supports(group: ConsumerGroup, params: JoinGroupParams): boolean {
    if (params.protocolType !== CONSUMER || params.protocols.length === 0) return false
    const classic = [...group.members.values()].filter((m) => m.classic !== null && m.memberId !== params.memberId)
    return params.protocols.some((p) => classic.every((m) => m.classic!.protocols.some((q) => q.name === p.name)))
  }

  /**
   * JoinGroup of a classic member of a non-empty consumer group (Kafka's
   * classicGroupJoinToConsumerGroup): a new dynamic member without an id learns one first
   * (MEMBER_ID_REQUIRED, JoinGroup v4+); then the member is created, or taken over by a restarted
   * static member, or updated, and reconciles against what it reports owning. `replaced` tells the
   * caller a static member took another's place (the group may now have no consumer-protocol member).
   */
  join(group: ConsumerGroup, params: JoinGroupParams): JoinGroupResult & { replaced: boolean } {
    const fail = (name: ErrorName, memberId = params.memberId): JoinGroupResult & { replaced: boolean } => ({
      errorCode: code(name),
      generationId: -1,
      protocolType: null,
      protocolName: null,
      leader: '',
      memberId,
      skipAssignment: false,
      members: [],
      replaced: false,
    })
    if (!this.supports(group, params)) return fail('INCONSISTENT_GROUP_PROTOCOL')
    const fresh = params.memberId === ''
    const memberId = fresh ? randomUUID() : params.memberId
    if (fresh && params.groupInstanceId === null && params.requireKnownMemberId) return fail('MEMBER_ID_REQUIRED', memberId)
    const chosen = params.protocols[0]!
    const subscription = decodeSubscription(chosen.metadata)
    if (subscription === null) return fail('INCONSISTENT_GROUP_PROTOCOL')
    const holder = params.groupInstanceId === null ? undefined : group.staticMember(params.groupInstanceId)
    const found = this.groups.classicMember(group, memberId, params.groupInstanceId, fresh, {
      clientId: params.clientId,
      clientHost: params.clientHost,
    })
    if (typeof found === 'string') return fail(found)
    const { member, created } = found
    const names = [...new Set(subscription.topics)].sort()
    const changed = created || names.join('\0') !== member.subscribedTopicNames.join('\0')
    member.subscribedTopicNames = names
    member.rebalanceTimeoutMs = params.rebalanceTimeoutMs
    member.classic = { sessionTimeoutMs: params.sessionTimeoutMs, protocols: params.protocols.map((p) => ({ ...p })) }
    const owned = this.toAssignment(subscription.ownedPartitions ?? [])
    this.groups.advanceClassic(group, member, changed, owned)
    return {
      errorCode: 0,
      generationId: member.memberEpoch,
      protocolType: CONSUMER,
      protocolName: chosen.name,
      leader: '',
      memberId: member.memberId,
      skipAssignment: false,
      members: [],
      replaced: holder !== undefined && holder.memberId !== member.memberId,
    }
  }

  /** SyncGroup of a classic member: its partitions, encoded as the embedded consumer protocol's assignment. */
  sync(group: ConsumerGroup, memberId: string, generationId: number): SyncGroupResult {
    const member = group.members.get(memberId)
    const fail = (name: ErrorName): SyncGroupResult => ({
      errorCode: code(name),
      protocolType: null,
      protocolName: null,
      assignment: Buffer.alloc(0),
    })
    if (member === undefined || member.classic === null) return fail('UNKNOWN_MEMBER_ID')
    if (generationId !== member.memberEpoch) return fail('ILLEGAL_GENERATION')
    return {
      errorCode: 0,
      protocolType: CONSUMER,
      protocolName: member.classic.protocols[0]?.name ?? null,
      assignment: encodeAssignment(this.toNames(member.assigned)),
    }
  }

  /** Heartbeat of a classic member: REBALANCE_IN_PROGRESS while its assignment is not its target's. */
  heartbeat(group: ConsumerGroup, memberId: string, generationId: number): number {
    const member = group.members.get(memberId)
    if (member === undefined || member.classic === null) return code('UNKNOWN_MEMBER_ID')
    if (generationId !== member.memberEpoch) return code('ILLEGAL_GENERATION')
    this.groups.touchClassic(group, member)
    if (member.memberEpoch !== group.targetAssignmentEpoch || member.state !== 'STABLE') return code('REBALANCE_IN_PROGRESS')
    return 0
  }

  /** LeaveGroup on a consumer group: each member named leaves (a classic member, or by instance id). */
  leave(group: ConsumerGroup, leaving: LeavingMember[]): { errorCode: number; members: Array<LeavingMember & { errorCode: number }> } {
    const members = leaving.map((l) => {
      const member =
        l.groupInstanceId !== null ? group.staticMember(l.groupInstanceId) : l.memberId === '' ? undefined : group.members.get(l.memberId)
      if (member === undefined) return { ...l, errorCode: code('UNKNOWN_MEMBER_ID') }
      if (l.groupInstanceId !== null && l.memberId !== '' && l.memberId !== member.memberId)
        return { ...l, errorCode: code('FENCED_INSTANCE_ID') }
      this.groups.removeMember(group, member)
      return { ...l, errorCode: 0 }
    })
    return { errorCode: 0, members }
  }
}
