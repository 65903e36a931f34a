// The consumer-protocol groups of one coordinator (KIP-848; Kafka's ConsumerGroup and
// GroupMetadataManager.consumerGroupHeartbeat): ConsumerGroupHeartbeat, ConsumerGroupDescribe and
// the member checks of OffsetCommit/OffsetFetch v9+. In memory, driven by a Clock.
//
// - The group epoch advances whenever what the assignment depends on changes: a member joins or
//   goes, a subscription changes, a subscribed topic's partition count changes. The target
//   assignment is then recomputed at once by the member's (or the group's) server assignor, so the
//   group never stays in Assigning.
// - Each member reconciles towards its target (reconcile.ts): revoke first, then assign what others
//   released; its epoch reaches the group's target epoch when it holds exactly its target.
// - Epochs in a heartbeat: 0 joins, -1 leaves, -2 leaves as a static member (its assignment is kept
//   for a rejoin with the same group.instance.id within the session timeout); a positive epoch
//   must be the member's epoch, or its previous one when the heartbeat reports owning no more than
//   the member's assignment (a lost response), else FENCED_MEMBER_EPOCH. A positive epoch for a
//   group or member not known is UNKNOWN_MEMBER_ID (Kafka answers GROUP_ID_NOT_FOUND for an unknown
//   group; UNKNOWN_MEMBER_ID makes the client rejoin at epoch 0 instead, which is what a member
//   needs whose group's records never became durable).
// - Session timeout (group.consumer.session.timeout.ms) restarts with each heartbeat; a member
//   that does not revoke within its rebalance timeout is fenced too. Either removes the member.
// - Regex subscriptions (v1) resolve only to topics the member may DESCRIBE (the filter its last
//   heartbeat brought, as Kafka's TopicRegexResolver filters by the heartbeat's principal; under
//   an authorizer a member restored from the log resolves its regex to nothing until it
//   heartbeats), so a regex
//   never assigns a topic its member cannot see; an ACL change applies at the next heartbeat.
// - Regex subscriptions (v1) are evaluated with JavaScript's RegExp as a full match. Kafka uses
//   RE2/J; the two agree on ordinary patterns (classes, alternation, quantifiers) but not on every
//   construct (JS has lookaround and backreferences, RE2/J has neither), an approximation.
// - image()/restore() give and take a group's durable state, which records.ts turns into Kafka's
//   ConsumerGroup* records of `__consumer_offsets` and back; durable-groups.ts writes them after
//   every change (onTimeout tells it of the changes timers make) and restores the groups a load
//   replayed. Conversions (group-coordinator.ts): an empty classic group, or one whose members all
//   use the consumer protocol, becomes a consumer group on its first heartbeat (the latter's
//   members stay as classic members, classic-members.ts); an empty consumer group becomes a
//   classic one on a JoinGroup, and one left with classic members only a classic one that
//   rebalances. Not here: rack-aware assignment.
import { randomUUID } from 'node:crypto'
import { ErrorCode, type ErrorName } from '../../../protocol/errors.js'
import type {
  ConsumerGroupHeartbeatRequestData,
  ConsumerGroupHeartbeatResponseData,
} from '../../../protocol/messages/68-consumer-group-heartbeat.js'
import type { ConsumerGroupDescribeResponseData } from '../../../protocol/messages/69-consumer-group-describe.js'
import type { Clock } from '../../../util/clock.js'
import {
  type Assignment,
  copyAssignment,
  emptyAssignment,
  fromWire,
  hasPartition,
  partitionsOf,
  sameAssignment,
  toWire,
} from './assignment.js'
import { ASSIGNORS, type Assignor } from './assignors.js'
import { describeGroups } from './describe.js'
import {
  type ClientInfo,
  ConsumerGroup,
  type ConsumerGroupConfig,
  ConsumerMember,
  DEFAULT_CONSUMER_GROUP_CONFIG,
  EVERY_TOPIC,
  LEAVE_EPOCH,
  LEAVE_STATIC_EPOCH,
  NO_TOPIC,
  type TopicInfo,
  type TopicSource,
} from './group-model.js'
import { reconcile } from './reconcile.js'
import type { GroupImage } from './records.js'

export {
  type ClassicMemberInfo,
  type ClientInfo,
  ConsumerGroup,
  type ConsumerGroupConfig,
  type ConsumerGroupState,
  ConsumerMember,
  DEFAULT_CONSUMER_GROUP_CONFIG,
  LEAVE_EPOCH,
  LEAVE_STATIC_EPOCH,
  type TopicInfo,
  type TopicSource,
} from './group-model.js'

class HeartbeatError extends Error {
  constructor(
    readonly errorName: ErrorName,
    message?: string,
  ) {
    super(message ?? errorName)
  }
}

function errorAnswer(err: HeartbeatError): ConsumerGroupHeartbeatResponseData {
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode[err.errorName].code,
    errorMessage: err.message === err.errorName ? null : err.message,
    memberId: null,
    memberEpoch: 0,
    heartbeatIntervalMs: 0,
    assignment: null,
  }
}

export class ConsumerGroups {
  readonly groups = new Map<string, ConsumerGroup>()
  private readonly assignors: Assignor[]

  /** Called after a timer changed a group (a member's session or revocation timed out). */
  onTimeout: (groupId: string) => void = () => {}

  constructor(
    private readonly clock: Clock,
    private readonly topics: TopicSource,
    readonly config: ConsumerGroupConfig = DEFAULT_CONSUMER_GROUP_CONFIG,
  ) {
    this.assignors = config.assignors.map((n) => {
      const a = ASSIGNORS.get(n)
      if (a === undefined) throw new Error(`unknown group.consumer.assignors entry ${n}`)
      return a
    })
  }

  heartbeat(req: ConsumerGroupHeartbeatRequestData, version: number, client: ClientInfo): ConsumerGroupHeartbeatResponseData {
    try {
      return this.handle(req, version, client)
    } catch (err) {
      if (!(err instanceof HeartbeatError)) throw err
      return errorAnswer(err)
    }
  }

  /** The answer to a request that is invalid whatever the group (checked before a conversion), or null. */
  refusal(req: ConsumerGroupHeartbeatRequestData, version: number): ConsumerGroupHeartbeatResponseData | null {
    try {
      this.validate(req, version)
      return null
    } catch (err) {
      if (!(err instanceof HeartbeatError)) throw err
      return errorAnswer(err)
    }
  }

  private handle(req: ConsumerGroupHeartbeatRequestData, version: number, client: ClientInfo): ConsumerGroupHeartbeatResponseData {
    this.validate(req, version)
    if (req.memberEpoch === LEAVE_EPOCH || req.memberEpoch === LEAVE_STATIC_EPOCH) return this.leave(req)
    const group = this.groupFor(req.groupId, req.memberEpoch === 0)
    const before = group.groupEpoch
    const member = req.memberEpoch === 0 ? this.join(group, req, version, client) : this.known(group, req)
    const subscriptionChanged = this.updateMember(member, req, client)
    if (subscriptionChanged || this.partitionsChanged(group)) group.groupEpoch = Math.max(group.groupEpoch, before) + 1
    if (group.groupEpoch === before && req.memberEpoch === 0 && member.memberEpoch === 0) group.groupEpoch++
    this.refreshTarget(group)
    const previous = copyAssignment(member.assigned)
    const wasRevoking = member.state === 'UNREVOKED_PARTITIONS'
    const reported = req.topicPartitions === null ? null : fromWire(req.topicPartitions)
    Object.assign(
      member,
      reconcile(
        member,
        group.targetAssignmentEpoch,
        group.target.get(member.memberId) ?? emptyAssignment(),
        (t, p) => group.ownedElsewhere(member.memberId, t, p),
        reported,
      ),
    )
    this.armTimers(group, member, wasRevoking)
    const full = req.memberEpoch === 0 || req.topicPartitions !== null || req.subscribedTopicNames !== null || req.rebalanceTimeoutMs !== -1
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.config.timeouts?.(group.groupId).heartbeatIntervalMs ?? this.config.heartbeatIntervalMs,
      assignment: full || !sameAssignment(previous, member.assigned) ? { topicPartitions: toWire(member.assigned) } : null,
    }
  }

  private validate(req: ConsumerGroupHeartbeatRequestData, version: number): void {
    if (req.groupId === '') throw new HeartbeatError('INVALID_REQUEST', 'GroupId can not be empty.')
    if (version >= 1 && req.memberId === '') throw new HeartbeatError('INVALID_REQUEST', 'MemberId can not be empty.')
    if (req.memberEpoch < LEAVE_STATIC_EPOCH) throw new HeartbeatError('INVALID_REQUEST', 'MemberEpoch is invalid.')
    if (req.memberEpoch === LEAVE_STATIC_EPOCH && req.instanceId === null) {
      throw new HeartbeatError('INVALID_REQUEST', 'InstanceId can not be null when MemberEpoch is -2.')
    }
    if (req.memberEpoch === 0) {
      if (req.rebalanceTimeoutMs === -1)
        throw new HeartbeatError('INVALID_REQUEST', 'RebalanceTimeoutMs must be provided in first request.')
      if (req.topicPartitions === null || req.topicPartitions.length > 0) {
        throw new HeartbeatError('INVALID_REQUEST', 'TopicPartitions must be empty when (re-)joining.')
      }
      if (req.subscribedTopicNames === null && (req.subscribedTopicRegex ?? null) === null) {
        throw new HeartbeatError('INVALID_REQUEST', 'SubscribedTopicNames or SubscribedTopicRegex must be set in first request.')
      }
    }
    if (req.serverAssignor !== null && !this.assignors.some((a) => a.name === req.serverAssignor)) {
      throw new HeartbeatError('UNSUPPORTED_ASSIGNOR', `ServerAssignor ${req.serverAssignor} is not supported.`)
    }
    const regex = req.subscribedTopicRegex ?? null
    // The empty regex compiles (it matches no topic name); librdkafka sends it with a subscription by names.
    if (regex !== null && regex !== '') {
      try {
        new RegExp(regex)
      } catch {
        throw new HeartbeatError('INVALID_REGULAR_EXPRESSION', `SubscribedTopicRegex ${regex} is not a valid regular expression.`)
      }
    }
  }

  private groupFor(groupId: string, create: boolean): ConsumerGroup {
    let group = this.groups.get(groupId)
    if (group === undefined) {
      if (!create) throw new HeartbeatError('UNKNOWN_MEMBER_ID', `Group ${groupId} has no member.`)
      group = new ConsumerGroup(groupId)
      this.groups.set(groupId, group)
    }
    return group
  }

  /** Epoch 0: a new member, a static member taking over its instance id, or a member starting over. */
  private join(group: ConsumerGroup, req: ConsumerGroupHeartbeatRequestData, version: number, client: ClientInfo): ConsumerMember {
    const memberId = version === 0 && req.memberId === '' ? randomUUID() : req.memberId
    if (req.instanceId !== null) {
      const old = group.staticMember(req.instanceId)
      if (old !== undefined && old.memberEpoch !== LEAVE_STATIC_EPOCH && old.memberId !== memberId) {
        throw new HeartbeatError(
          'UNRELEASED_INSTANCE_ID',
          `Static member ${old.memberId} with instance id ${req.instanceId} is not released.`,
        )
      }
      if (old !== undefined && old.memberEpoch === LEAVE_STATIC_EPOCH) return this.replaceStatic(group, old, memberId, client)
    }
    const existing = group.members.get(memberId)
    // Rejoining at epoch 0 means the member gave up everything it had: start it over.
    if (existing !== undefined) this.remove(group, existing, false)
    const member = new ConsumerMember(memberId, req.instanceId, client.clientId, client.clientHost)
    group.members.set(memberId, member)
    return member
  }

  /**
   * The member a classic JoinGroup speaks for (classic-members.ts; Kafka's
   * getOrMaybeSubscribe{Dynamic,Static}ConsumerGroupMember with the classic protocol): a dynamic
   * member is created when its id is new; a static member without its member id takes its instance
   * id over from whichever member holds it, live or not (as a classic static member does), with
   * that member's assignment; a static member with a member id must be the one holding the
   * instance id (UNKNOWN_MEMBER_ID when none does, FENCED_INSTANCE_ID when another does).
   * `fresh`: the member id was made for this request (the JoinGroup had none).
   */
  classicMember(
    group: ConsumerGroup,
    memberId: string,
    instanceId: string | null,
    fresh: boolean,
    client: ClientInfo,
  ): { member: ConsumerMember; created: boolean } | ErrorName {
    if (instanceId !== null) {
      const old = group.staticMember(instanceId)
      if (fresh && old !== undefined) return { member: this.replaceStatic(group, old, memberId, client), created: false }
      if (!fresh) {
        if (old === undefined) return 'UNKNOWN_MEMBER_ID'
        return old.memberId === memberId ? { member: old, created: false } : 'FENCED_INSTANCE_ID'
      }
    }
    const existing = group.members.get(memberId)
    if (existing !== undefined) return { member: existing, created: false }
    const member = new ConsumerMember(memberId, instanceId, client.clientId, client.clientHost)
    group.members.set(memberId, member)
    return { member, created: true }
  }

  /** A static member rejoining under a new member id inherits the assignment it left with. */
  private replaceStatic(group: ConsumerGroup, old: ConsumerMember, memberId: string, client: ClientInfo): ConsumerMember {
    this.cancelTimers(old)
    group.members.delete(old.memberId)
    const member = new ConsumerMember(memberId, old.instanceId, client.clientId, client.clientHost)
    Object.assign(member, {
      state: old.state,
      memberEpoch: old.memberEpoch === LEAVE_STATIC_EPOCH ? old.previousMemberEpoch : old.memberEpoch,
      previousMemberEpoch: old.previousMemberEpoch,
      assigned: old.assigned,
      pendingRevocation: old.pendingRevocation,
      subscribedTopicNames: old.subscribedTopicNames,
      subscribedTopicRegex: old.subscribedTopicRegex,
      serverAssignor: old.serverAssignor,
    })
    group.members.set(memberId, member)
    const target = group.target.get(old.memberId)
    group.target.delete(old.memberId)
    if (target !== undefined) group.target.set(memberId, target)
    return member
  }

  private known(group: ConsumerGroup, req: ConsumerGroupHeartbeatRequestData): ConsumerMember {
    const member = group.members.get(req.memberId)
    if (member === undefined)
      throw new HeartbeatError('UNKNOWN_MEMBER_ID', `Member ${req.memberId} is not a member of group ${group.groupId}.`)
    if (req.memberEpoch > member.memberEpoch)
      throw new HeartbeatError(
        'FENCED_MEMBER_EPOCH',
        `The consumer group member has a greater member epoch (${req.memberEpoch}) than the one known by the group coordinator (${member.memberEpoch}).`,
      )
    if (req.memberEpoch < member.memberEpoch) {
      const reported = req.topicPartitions === null ? null : fromWire(req.topicPartitions)
      const ok =
        req.memberEpoch === member.previousMemberEpoch &&
        reported !== null &&
        [...partitionsOf(reported)].every(([t, p]) => hasPartition(member.assigned, t, p))
      if (!ok)
        throw new HeartbeatError(
          'FENCED_MEMBER_EPOCH',
          `The consumer group member has a smaller member epoch (${req.memberEpoch}) than the one known by the group coordinator (${member.memberEpoch}).`,
        )
    }
    return member
  }

  /** Applies the request's changes to the member; true when its subscription or assignor changed. */
  private updateMember(member: ConsumerMember, req: ConsumerGroupHeartbeatRequestData, client: ClientInfo): boolean {
    let changed = false
    member.clientId = client.clientId
    member.clientHost = client.clientHost
    member.topicVisible = client.topicVisible ?? EVERY_TOPIC
    if (req.rebalanceTimeoutMs !== -1) member.rebalanceTimeoutMs = req.rebalanceTimeoutMs
    if (req.rackId !== null) member.rackId = req.rackId
    if (req.subscribedTopicNames !== null) {
      const names = [...new Set(req.subscribedTopicNames)].sort()
      if (names.join('\0') !== member.subscribedTopicNames.join('\0')) changed = true
      member.subscribedTopicNames = names
    }
    // An empty regex subscribes to nothing by pattern: kept as none.
    const regex = req.subscribedTopicRegex === '' ? null : (req.subscribedTopicRegex ?? null)
    if (req.subscribedTopicRegex === '' && member.subscribedTopicRegex !== null) {
      member.subscribedTopicRegex = null
      changed = true
    }
    if (regex !== null && regex !== member.subscribedTopicRegex) {
      member.subscribedTopicRegex = regex
      changed = true
    }
    if (req.subscribedTopicNames !== null && regex === null && req.memberEpoch === 0) member.subscribedTopicRegex = null
    if (req.serverAssignor !== null && req.serverAssignor !== member.serverAssignor) {
      member.serverAssignor = req.serverAssignor
      changed = true
    }
    return changed
  }

  /** The names of the topics the group's members subscribe to (by name or regex); undefined: no such group. */
  subscribedTopicNames(groupId: string): Set<string> | undefined {
    const group = this.groups.get(groupId)
    if (group === undefined) return undefined
    const all = this.topics()
    const names = new Map([...all].map(([name, t]) => [t.id, name]))
    const out = new Set<string>()
    for (const m of group.members.values()) {
      for (const id of this.topicsOf(m, all).keys()) out.add(names.get(id)!)
      // A name subscribed to before its topic exists counts too (Kafka's subscribedTopicNames).
      for (const name of m.subscribedTopicNames) out.add(name)
    }
    return out
  }

  /** Topic id → partition count of every topic some member of the group subscribes to. */
  private subscribed(group: ConsumerGroup): Map<string, number> {
    const all = this.topics()
    const out = new Map<string, number>()
    for (const m of group.members.values()) for (const [t, n] of this.topicsOf(m, all)) out.set(t, n)
    return out
  }

  private topicsOf(m: ConsumerMember, all: ReadonlyMap<string, TopicInfo>): Map<string, number> {
    const out = new Map<string, number>()
    for (const name of m.subscribedTopicNames) {
      const t = all.get(name)
      if (t !== undefined) out.set(t.id, t.partitions)
    }
    if (m.subscribedTopicRegex !== null) {
      const re = new RegExp(`^(?:${m.subscribedTopicRegex})$`)
      for (const [name, t] of all) if (!name.startsWith('__') && re.test(name) && m.topicVisible(name)) out.set(t.id, t.partitions)
    }
    return out
  }

  private partitionsChanged(group: ConsumerGroup): boolean {
    const now = this.subscribed(group)
    const was = group.subscribedPartitions
    return now.size !== was.size || [...now].some(([t, n]) => was.get(t) !== n)
  }

  /** Recomputes the target assignment when the group epoch moved past it. */
  private refreshTarget(group: ConsumerGroup): void {
    if (group.targetAssignmentEpoch >= group.groupEpoch) return
    const all = this.topics()
    group.subscribedPartitions = this.subscribed(group)
    const members = [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      topics: new Set(this.topicsOf(m, all).keys()),
      previous: group.target.get(m.memberId) ?? emptyAssignment(),
    }))
    const target = this.assignorOf(group).assign(members, group.subscribedPartitions)
    group.target.clear()
    for (const [id, a] of target) group.target.set(id, a)
    group.targetAssignmentEpoch = group.groupEpoch
  }

  /** The assignor the members ask for most (ties to the configured order), else the default. */
  private assignorOf(group: ConsumerGroup): Assignor {
    const votes = new Map<string, number>()
    for (const m of group.members.values())
      if (m.serverAssignor !== null) votes.set(m.serverAssignor, (votes.get(m.serverAssignor) ?? 0) + 1)
    let best = this.assignors[0]!
    for (const a of this.assignors) if ((votes.get(a.name) ?? 0) > (votes.get(best.name) ?? 0)) best = a
    return best
  }

  /**
   * A classic member's JoinGroup or Heartbeat moved it (classic-members.ts): the group epoch moves
   * if it is new or its subscription changed, the target is recomputed, and the member reconciles
   * against the partitions it reports owning (null: the heartbeat says nothing of them).
   */
  advanceClassic(group: ConsumerGroup, member: ConsumerMember, changed: boolean, reported: Assignment | null): void {
    if (changed) group.groupEpoch++
    this.refreshTarget(group)
    const wasRevoking = member.state === 'UNREVOKED_PARTITIONS'
    const step = () =>
      Object.assign(
        member,
        reconcile(
          member,
          group.targetAssignmentEpoch,
          group.target.get(member.memberId) ?? emptyAssignment(),
          (t, p) => group.ownedElsewhere(member.memberId, t, p),
          reported,
        ),
      )
    step()
    // A rejoining classic member has given up what it reports not owning: it may advance at once.
    if (reported !== null && member.state === 'UNREVOKED_PARTITIONS') step()
    this.armTimers(group, member, wasRevoking)
  }

  /**
   * Installs a group converted from a classic one (classic-members.ts): its epoch and target are the
   * classic generation and the members' current assignments; every member gets a session timer.
   */
  install(groupId: string, epoch: number, members: ConsumerMember[]): ConsumerGroup {
    this.forget(groupId)
    const g = new ConsumerGroup(groupId)
    g.groupEpoch = epoch
    g.targetAssignmentEpoch = epoch
    for (const m of members) {
      g.members.set(m.memberId, m)
      g.target.set(m.memberId, copyAssignment(m.assigned))
    }
    g.subscribedPartitions = this.subscribed(g)
    this.groups.set(groupId, g)
    for (const m of members) this.armTimers(g, m, false)
    return g
  }

  /** A classic member's heartbeat: its session restarts. */
  touchClassic(group: ConsumerGroup, member: ConsumerMember): void {
    this.armTimers(group, member, member.state === 'UNREVOKED_PARTITIONS')
  }

  /** Removes a member (a classic LeaveGroup); the group epoch moves. */
  removeMember(group: ConsumerGroup, member: ConsumerMember): void {
    this.remove(group, member, true)
  }

  private armTimers(group: ConsumerGroup, member: ConsumerMember, wasRevoking: boolean): void {
    member.session?.cancel()
    member.session = this.clock.setTimeout(
      () => this.expire(group, member),
      member.classic?.sessionTimeoutMs ?? this.config.timeouts?.(group.groupId).sessionTimeoutMs ?? this.config.sessionTimeoutMs,
    )
    const revoking = member.state === 'UNREVOKED_PARTITIONS'
    if (revoking && !wasRevoking) {
      member.revocationDeadline = this.clock.setTimeout(() => this.expire(group, member), member.rebalanceTimeoutMs)
    } else if (!revoking && member.revocationDeadline !== null) {
      member.revocationDeadline.cancel()
      member.revocationDeadline = null
    }
  }

  private cancelTimers(m: ConsumerMember): void {
    m.session?.cancel()
    m.revocationDeadline?.cancel()
    m.session = null
    m.revocationDeadline = null
  }

  /** A session or revocation timeout: the member is fenced and its partitions freed. */
  private expire(group: ConsumerGroup, member: ConsumerMember): void {
    if (group.members.get(member.memberId) !== member) return
    this.remove(group, member, true)
    this.onTimeout(group.groupId)
  }

  private remove(group: ConsumerGroup, member: ConsumerMember, dropEmpty: boolean): void {
    this.cancelTimers(member)
    group.members.delete(member.memberId)
    group.target.delete(member.memberId)
    group.groupEpoch++
    if (dropEmpty && group.members.size === 0) group.targetAssignmentEpoch = group.groupEpoch
  }

  private leave(req: ConsumerGroupHeartbeatRequestData): ConsumerGroupHeartbeatResponseData {
    const group = this.groups.get(req.groupId)
    const member = group?.members.get(req.memberId)
    if (group === undefined || member === undefined)
      throw new HeartbeatError('UNKNOWN_MEMBER_ID', `Member ${req.memberId} is not a member of group ${req.groupId}.`)
    if (req.memberEpoch === LEAVE_STATIC_EPOCH && member.instanceId !== null) {
      // Kept, with its partitions, until it rejoins or its session expires.
      member.previousMemberEpoch = member.memberEpoch
      member.memberEpoch = LEAVE_STATIC_EPOCH
    } else {
      this.remove(group, member, true)
    }
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId: req.memberId,
      memberEpoch: req.memberEpoch,
      heartbeatIntervalMs: 0,
      assignment: null,
    }
  }

  /** OffsetCommit v9+ from a consumer-protocol member (Kafka's ConsumerGroup.validateOffsetCommit). */
  validateOffsetCommit(groupId: string, memberId: string, memberEpoch: number): ErrorName {
    const group = this.groups.get(groupId)
    if (group === undefined) return memberEpoch < 0 ? 'NONE' : 'ILLEGAL_GENERATION'
    // A commit without a member (an admin tool) is only accepted while the group has no member.
    if (memberEpoch < 0 && memberId === '') return group.members.size === 0 ? 'NONE' : 'UNKNOWN_MEMBER_ID'
    const member = group.members.get(memberId)
    if (member === undefined) return 'UNKNOWN_MEMBER_ID'
    if (memberEpoch === member.memberEpoch) return 'NONE'
    // A classic member's generation is its member epoch (Kafka's validateMemberEpoch for classic members).
    return member.classic !== null ? 'ILLEGAL_GENERATION' : 'STALE_MEMBER_EPOCH'
  }

  /** OffsetFetch v9+ carrying a member id and epoch (Kafka's ConsumerGroup.validateOffsetFetch). */
  validateOffsetFetch(groupId: string, memberId: string | null, memberEpoch: number): ErrorName {
    if (memberId === null || memberEpoch < 0) return 'NONE'
    const member = this.groups.get(groupId)?.members.get(memberId)
    if (member === undefined) return 'UNKNOWN_MEMBER_ID'
    return memberEpoch === member.memberEpoch ? 'NONE' : 'STALE_MEMBER_EPOCH'
  }

  /** Drops the group from memory, its timers cancelled (its partition moved to another coordinator). */
  forget(groupId: string): void {
    for (const m of this.groups.get(groupId)?.members.values() ?? []) this.cancelTimers(m)
    this.groups.delete(groupId)
  }

  /** The group's durable state (records.ts turns it into `__consumer_offsets` records). */
  image(groupId: string): GroupImage | undefined {
    const g = this.groups.get(groupId)
    if (g === undefined) return undefined
    return {
      groupId,
      groupEpoch: g.groupEpoch,
      targetAssignmentEpoch: g.targetAssignmentEpoch,
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId,
        instanceId: m.instanceId,
        rackId: m.rackId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: m.subscribedTopicNames,
        subscribedTopicRegex: m.subscribedTopicRegex,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        serverAssignor: m.serverAssignor,
        classic: m.classic,
        memberEpoch: m.memberEpoch,
        previousMemberEpoch: m.previousMemberEpoch,
        state: m.state,
        assigned: m.assigned,
        pendingRevocation: m.pendingRevocation,
        target: g.target.get(m.memberId) ?? emptyAssignment(),
      })),
    }
  }

  /**
   * Installs a group rebuilt from its records (a coordinator that took over the partition): every
   * member gets a fresh session timeout, so members still alive heartbeat on with their epochs and
   * those gone expire; a member that was revoking gets a fresh rebalance timeout.
   */
  restore(image: GroupImage): void {
    const g = new ConsumerGroup(image.groupId)
    g.groupEpoch = image.groupEpoch
    g.targetAssignmentEpoch = image.targetAssignmentEpoch
    for (const mi of image.members) {
      const m = new ConsumerMember(mi.memberId, mi.instanceId, mi.clientId, mi.clientHost)
      m.topicVisible = this.config.authorizing ? NO_TOPIC : EVERY_TOPIC
      Object.assign(m, {
        rackId: mi.rackId,
        subscribedTopicNames: mi.subscribedTopicNames,
        subscribedTopicRegex: mi.subscribedTopicRegex,
        rebalanceTimeoutMs: mi.rebalanceTimeoutMs,
        serverAssignor: mi.serverAssignor,
        classic: mi.classic ?? null,
        memberEpoch: mi.memberEpoch,
        previousMemberEpoch: mi.previousMemberEpoch,
        state: mi.state,
        assigned: mi.assigned,
        pendingRevocation: mi.pendingRevocation,
      })
      g.members.set(m.memberId, m)
      g.target.set(m.memberId, mi.target)
      this.armTimers(g, m, false)
    }
    g.subscribedPartitions = this.subscribed(g)
    for (const m of this.groups.get(image.groupId)?.members.values() ?? []) this.cancelTimers(m)
    this.groups.set(image.groupId, g)
  }

  describe(groupIds: readonly string[]): ConsumerGroupDescribeResponseData['groups'] {
    return describeGroups(groupIds, this.groups, this.topics(), (g) => this.assignorOf(g).name)
  }
}
