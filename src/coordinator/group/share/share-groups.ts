// The share groups of one coordinator (KIP-932; Kafka's ShareGroup and
// GroupMetadataManager.shareGroupHeartbeat): ShareGroupHeartbeat and ShareGroupDescribe, in memory
// on a Clock, each change handed to a record sink (`__consumer_offsets`, records.ts).
//
// - A member generates its own id (ShareGroupHeartbeat v1) and joins with epoch 0 and a non-empty
//   subscription; it leaves with epoch -1. Kafka's checks, all INVALID_REQUEST: empty (or blank)
//   member id, group id or rack id; epoch 0 without SubscribedTopicNames; an epoch below -1 — and
//   ours: a member id or rack id over 255 characters (MAX_SHARE_MEMBER_ID_LENGTH).
// - Any other epoch must be the member's current one, else FENCED_MEMBER_EPOCH — there is no
//   revocation in a share group, so a member's epoch jumps straight to the target epoch and a lost
//   response is cheap: the member rejoins at epoch 0 (which, for a member id still known, starts
//   the member over, as a consumer-protocol member's rejoin does). A positive epoch for a member
//   or a group not known is UNKNOWN_MEMBER_ID (Kafka answers GROUP_ID_NOT_FOUND for a group it
//   does not know; UNKNOWN_MEMBER_ID makes the client rejoin, which a group lost with its
//   coordinator needs). Leaving a group not known is GROUP_ID_NOT_FOUND, as Kafka.
// - The group epoch advances when a member joins or goes, a subscription changes, or a
//   subscribed topic appears, disappears or gains partitions; the target assignment is then
//   recomputed by the `simple` assignor (simple-assignor.ts) and every member picks its new
//   assignment up with its next heartbeat. The response carries the assignment on a join and
//   whenever it changed.
// - A member's session (share.session.timeout.ms of the group's configs, else
//   group.share.session.timeout.ms) restarts with each heartbeat; when it expires the member is
//   removed. group.share.max.size bounds the members: GROUP_MAX_SIZE_REACHED.
// - States: Empty (no member) and Stable — Kafka's ShareGroup has no others but Dead.
// - Records: every change writes the group's image (records.ts) through the sink, with the
//   tombstones of members that went; the heartbeat is answered once the sink resolved (a failed
//   write answers its error code, what is in memory stays, as the next write carries it again).
import { ErrorCode, type ErrorName } from '../../../protocol/errors.js'
import type { ShareGroupDescribeResponseData } from '../../../protocol/messages/77-share-group-describe.js'
import type {
  ShareGroupHeartbeatRequestData,
  ShareGroupHeartbeatResponseData,
} from '../../../protocol/messages/76-share-group-heartbeat.js'
import type { Clock, Timer } from '../../../util/clock.js'
import { type Assignment, copyAssignment, emptyAssignment, partitionsOf, sameAssignment, toWire } from '../consumer/assignment.js'
import type { ClientInfo, TopicInfo, TopicSource } from '../consumer/consumer-groups.js'
import {
  type ShareGroupImage,
  type ShareGroupRecord,
  type ShareStateTopic,
  shareGroupRecords,
  shareGroupTombstones,
  shareMemberTombstones,
} from './records.js'
import { assignShare, SIMPLE_ASSIGNOR } from './simple-assignor.js'

export const SHARE_LEAVE_EPOCH = -1

export interface ShareGroupConfig {
  /** group.share.session.timeout.ms */
  sessionTimeoutMs: number
  /** group.share.heartbeat.interval.ms */
  heartbeatIntervalMs: number
  /** group.share.max.size */
  maxSize: number
}

export const DEFAULT_SHARE_GROUP_CONFIG: Readonly<ShareGroupConfig> = Object.freeze({
  sessionTimeoutMs: 45_000,
  heartbeatIntervalMs: 5_000,
  maxSize: 200,
})

/** A group's own share.session.timeout.ms / share.heartbeat.interval.ms (group configs), when set. */
export type ShareGroupTimeouts = (groupId: string) => { sessionTimeoutMs?: number; heartbeatIntervalMs?: number }

/** Writes a group's records durably (the coordinator's `__consumer_offsets` partition). */
export type ShareRecordSink = (groupId: string, records: ShareGroupRecord[]) => Promise<void>

export class ShareMember {
  memberEpoch = 0
  previousMemberEpoch = 0
  rackId: string | null = null
  subscribedTopicNames: string[] = []
  assigned: Assignment = emptyAssignment()
  session: Timer | null = null

  constructor(
    readonly memberId: string,
    public clientId: string,
    public clientHost: string,
  ) {}
}

export class ShareGroup {
  groupEpoch = 0
  targetAssignmentEpoch = 0
  readonly members = new Map<string, ShareMember>()
  readonly target = new Map<string, Assignment>()
  /** Partition counts (by topic id) of the subscribed topics when the target was last computed. */
  subscribedPartitions = new Map<string, number>()
  /** topic id → the topic's name and the partitions whose share state exists for this group. */
  readonly stateTopics = new Map<string, { topicName: string; partitions: Set<number> }>()

  constructor(readonly groupId: string) {}

  get state(): 'Empty' | 'Stable' {
    return this.members.size === 0 ? 'Empty' : 'Stable'
  }
}

class HeartbeatError extends Error {
  constructor(
    readonly errorName: ErrorName,
    message?: string,
  ) {
    super(message ?? errorName)
  }
}

const blank = (s: string | null | undefined): boolean => s !== null && s !== undefined && s.trim() === ''

/**
 * Our bound on a member id and rack id (Kafka has none; clients send a 22- or 36-character UUID):
 * both go into every record key or value of the member, and a key's strings hold at most 32767 bytes.
 */
export const MAX_SHARE_MEMBER_ID_LENGTH = 255

/** Kafka's throwIfShareGroupHeartbeatRequestIsInvalid, and our length bound; null when valid. */
export function shareHeartbeatRequestError(req: ShareGroupHeartbeatRequestData): string | null {
  if (blank(req.memberId)) return "MemberId can't be empty."
  if (blank(req.groupId)) return "GroupId can't be empty."
  if (blank(req.rackId)) return "RackId can't be empty."
  if (req.memberId.length > MAX_SHARE_MEMBER_ID_LENGTH) return `MemberId must be at most ${MAX_SHARE_MEMBER_ID_LENGTH} characters.`
  if ((req.rackId?.length ?? 0) > MAX_SHARE_MEMBER_ID_LENGTH) return `RackId must be at most ${MAX_SHARE_MEMBER_ID_LENGTH} characters.`
  if (req.memberEpoch === 0) {
    if (req.subscribedTopicNames === null || req.subscribedTopicNames.length === 0) {
      return 'SubscribedTopicNames must be set in first request.'
    }
  } else if (req.memberEpoch < SHARE_LEAVE_EPOCH) return 'MemberEpoch is invalid.'
  return null
}

const failure = (name: ErrorName, message: string | null): ShareGroupHeartbeatResponseData => ({
  throttleTimeMs: 0,
  errorCode: ErrorCode[name].code,
  errorMessage: message,
  memberId: null,
  memberEpoch: 0,
  heartbeatIntervalMs: 0,
  assignment: null,
})

export class ShareGroups {
  readonly groups = new Map<string, ShareGroup>()

  constructor(
    private readonly clock: Clock,
    private readonly topics: TopicSource,
    private readonly sink: ShareRecordSink,
    readonly config: ShareGroupConfig = DEFAULT_SHARE_GROUP_CONFIG,
    private readonly timeouts: ShareGroupTimeouts = () => ({}),
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Answers once the change is durable; errors are answered with their Kafka code. */
  async heartbeat(req: ShareGroupHeartbeatRequestData, client: ClientInfo): Promise<ShareGroupHeartbeatResponseData> {
    let result: { response: ShareGroupHeartbeatResponseData; records: ShareGroupRecord[] }
    try {
      const invalid = shareHeartbeatRequestError(req)
      if (invalid !== null) throw new HeartbeatError('INVALID_REQUEST', invalid)
      result = req.memberEpoch === SHARE_LEAVE_EPOCH ? this.leave(req) : this.handle(req, client)
    } catch (err) {
      if (!(err instanceof HeartbeatError)) throw err
      return failure(err.errorName, err.message === err.errorName ? null : err.message)
    }
    if (result.records.length > 0) {
      try {
        await this.sink(req.groupId, result.records)
      } catch (err) {
        const name = (err as { errorName?: ErrorName }).errorName
        return failure(name !== undefined && name in ErrorCode ? name : 'UNKNOWN_SERVER_ERROR', (err as Error).message ?? null)
      }
    }
    return result.response
  }

  private handle(req: ShareGroupHeartbeatRequestData, client: ClientInfo) {
    const joining = req.memberEpoch === 0
    let group = this.groups.get(req.groupId)
    if (group === undefined) {
      if (!joining) throw new HeartbeatError('UNKNOWN_MEMBER_ID', `Group ${req.groupId} has no member ${req.memberId}.`)
      group = new ShareGroup(req.groupId)
      this.groups.set(req.groupId, group)
    }
    const removed: string[] = []
    let member = group.members.get(req.memberId)
    if (joining) {
      if (member === undefined && group.members.size >= this.config.maxSize) {
        if (group.members.size === 0) this.groups.delete(req.groupId)
        throw new HeartbeatError(
          'GROUP_MAX_SIZE_REACHED',
          `The share group has reached its maximum capacity of ${this.config.maxSize} members.`,
        )
      }
      if (member !== undefined) {
        // Epoch 0 from a known member: it gave everything up; start it over.
        this.drop(group, member)
        removed.push(member.memberId)
      }
      member = new ShareMember(req.memberId, client.clientId, client.clientHost)
      group.members.set(member.memberId, member)
    } else {
      if (member === undefined)
        throw new HeartbeatError('UNKNOWN_MEMBER_ID', `Member ${req.memberId} is not a member of group ${req.groupId}.`)
      if (req.memberEpoch !== member.memberEpoch) {
        throw new HeartbeatError(
          'FENCED_MEMBER_EPOCH',
          `The share group member has a ${req.memberEpoch > member.memberEpoch ? 'greater' : 'smaller'} member epoch (${req.memberEpoch}) than the one known by the group coordinator (${member.memberEpoch}).`,
        )
      }
    }
    // A join, a subscription change and a partition count change together advance the epoch once.
    let bump = joining
    let changed = joining
    if (member.clientId !== client.clientId || member.clientHost !== client.clientHost) changed = true
    member.clientId = client.clientId
    member.clientHost = client.clientHost
    if (req.rackId !== null && req.rackId !== member.rackId) {
      member.rackId = req.rackId
      changed = true
    }
    if (req.subscribedTopicNames !== null) {
      const names = [...new Set(req.subscribedTopicNames)].sort()
      if (names.join('\0') !== member.subscribedTopicNames.join('\0')) {
        member.subscribedTopicNames = names
        changed = true
        bump = true
      }
    }
    if (bump || this.partitionsChanged(group)) {
      group.groupEpoch++
      changed = true
    }
    if (group.targetAssignmentEpoch < group.groupEpoch) {
      this.refreshTarget(group)
      changed = true
    }
    const previous = copyAssignment(member.assigned)
    const target = group.target.get(member.memberId) ?? emptyAssignment()
    if (member.memberEpoch !== group.targetAssignmentEpoch || !sameAssignment(member.assigned, target)) {
      member.previousMemberEpoch = member.memberEpoch
      member.memberEpoch = group.targetAssignmentEpoch
      member.assigned = copyAssignment(target)
      changed = true
    }
    this.armSession(group, member)
    const response: ShareGroupHeartbeatResponseData = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.heartbeatIntervalMs(group.groupId),
      assignment: joining || !sameAssignment(previous, member.assigned) ? { topicPartitions: toWire(member.assigned) } : null,
    }
    const records = changed ? this.records(group, removed) : []
    return { response, records }
  }

  private leave(req: ShareGroupHeartbeatRequestData) {
    const group = this.groups.get(req.groupId)
    if (group === undefined) throw new HeartbeatError('GROUP_ID_NOT_FOUND', `Group ${req.groupId} not found.`)
    const member = group.members.get(req.memberId)
    if (member === undefined)
      throw new HeartbeatError('UNKNOWN_MEMBER_ID', `Member ${req.memberId} is not a member of group ${req.groupId}.`)
    this.drop(group, member)
    group.groupEpoch++
    if (group.members.size === 0) group.targetAssignmentEpoch = group.groupEpoch
    const response: ShareGroupHeartbeatResponseData = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId: req.memberId,
      memberEpoch: SHARE_LEAVE_EPOCH,
      heartbeatIntervalMs: 0,
      assignment: null,
    }
    return { response, records: this.records(group, [member.memberId]) }
  }

  private heartbeatIntervalMs(groupId: string): number {
    return this.timeouts(groupId).heartbeatIntervalMs ?? this.config.heartbeatIntervalMs
  }

  private drop(group: ShareGroup, member: ShareMember): void {
    member.session?.cancel()
    member.session = null
    group.members.delete(member.memberId)
    group.target.delete(member.memberId)
  }

  private armSession(group: ShareGroup, member: ShareMember): void {
    member.session?.cancel()
    const ms = this.timeouts(group.groupId).sessionTimeoutMs ?? this.config.sessionTimeoutMs
    member.session = this.clock.setTimeout(() => this.expire(group, member), ms)
  }

  /** The session expired: the member goes, its partitions go to the others at their next heartbeat. */
  private expire(group: ShareGroup, member: ShareMember): void {
    if (this.groups.get(group.groupId) !== group || group.members.get(member.memberId) !== member) return
    this.drop(group, member)
    group.groupEpoch++
    if (group.members.size === 0) group.targetAssignmentEpoch = group.groupEpoch
    this.sink(group.groupId, this.records(group, [member.memberId])).catch(this.onError)
  }

  /** topic id → partition count of every existing topic some member subscribes to. */
  private subscribed(group: ShareGroup, all: ReadonlyMap<string, TopicInfo> = this.topics()): Map<string, number> {
    const out = new Map<string, number>()
    for (const m of group.members.values()) {
      for (const name of m.subscribedTopicNames) {
        const t = all.get(name)
        if (t !== undefined) out.set(t.id, t.partitions)
      }
    }
    return out
  }

  private partitionsChanged(group: ShareGroup): boolean {
    const now = this.subscribed(group)
    const was = group.subscribedPartitions
    return now.size !== was.size || [...now].some(([t, n]) => was.get(t) !== n)
  }

  private refreshTarget(group: ShareGroup): void {
    const all = this.topics()
    group.subscribedPartitions = this.subscribed(group, all)
    const names = new Map([...all].map(([name, t]) => [t.id, name]))
    const members = [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      topics: new Set(m.subscribedTopicNames.flatMap((n) => (all.has(n) ? [all.get(n)!.id] : []))),
      previous: group.target.get(m.memberId) ?? emptyAssignment(),
    }))
    const target = assignShare(members, group.subscribedPartitions)
    group.target.clear()
    for (const [id, a] of target) {
      group.target.set(id, a)
      // Every partition handed out may get share state: DeleteGroups and the offsets admin APIs find it here.
      for (const [t, p] of partitionsOf(a)) this.addStateTopic(group, t, names.get(t) ?? '', [p])
    }
    group.targetAssignmentEpoch = group.groupEpoch
  }

  addStateTopic(group: ShareGroup, topicId: string, topicName: string, partitions: readonly number[]): void {
    let entry = group.stateTopics.get(topicId)
    if (entry === undefined) group.stateTopics.set(topicId, (entry = { topicName, partitions: new Set() }))
    for (const p of partitions) entry.partitions.add(p)
  }

  /** The group's records after a change (tombstones of the members gone first). */
  records(group: ShareGroup, removed: readonly string[]): ShareGroupRecord[] {
    const image = this.image(group.groupId)!
    return [...removed.flatMap((m) => shareMemberTombstones(group.groupId, m)), ...shareGroupRecords(image, this.clock.now())]
  }

  /** An empty group's creation for the offsets admin APIs (AlterShareGroupOffsets on a new group id). */
  getOrCreate(groupId: string): ShareGroup {
    let group = this.groups.get(groupId)
    if (group === undefined) this.groups.set(groupId, (group = new ShareGroup(groupId)))
    return group
  }

  /** Removes an empty group; returns its tombstones. */
  delete(groupId: string): ShareGroupRecord[] {
    const group = this.groups.get(groupId)
    if (group === undefined) return []
    for (const m of group.members.values()) m.session?.cancel()
    this.groups.delete(groupId)
    return shareGroupTombstones(groupId, [...group.members.keys()])
  }

  /** Drops the group from memory (its partition moved to another coordinator). */
  forget(groupId: string): void {
    for (const m of this.groups.get(groupId)?.members.values() ?? []) m.session?.cancel()
    this.groups.delete(groupId)
  }

  image(groupId: string): ShareGroupImage | undefined {
    const g = this.groups.get(groupId)
    if (g === undefined) return undefined
    const stateTopics: ShareStateTopic[] = [...g.stateTopics]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([topicId, t]) => ({ topicId, topicName: t.topicName, partitions: [...t.partitions].sort((a, b) => a - b) }))
    return {
      groupId,
      groupEpoch: g.groupEpoch,
      targetAssignmentEpoch: g.targetAssignmentEpoch,
      stateTopics,
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId,
        rackId: m.rackId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: m.subscribedTopicNames,
        memberEpoch: m.memberEpoch,
        previousMemberEpoch: m.previousMemberEpoch,
        assigned: m.assigned,
        target: g.target.get(m.memberId) ?? emptyAssignment(),
      })),
    }
  }

  /** Installs a group rebuilt from its records: each member gets a fresh session timeout. */
  restore(image: ShareGroupImage): void {
    this.forget(image.groupId)
    const g = new ShareGroup(image.groupId)
    g.groupEpoch = image.groupEpoch
    g.targetAssignmentEpoch = image.targetAssignmentEpoch
    for (const t of image.stateTopics) this.addStateTopic(g, t.topicId, t.topicName, t.partitions)
    for (const mi of image.members) {
      const m = new ShareMember(mi.memberId, mi.clientId, mi.clientHost)
      Object.assign(m, {
        rackId: mi.rackId,
        subscribedTopicNames: mi.subscribedTopicNames,
        memberEpoch: mi.memberEpoch,
        previousMemberEpoch: mi.previousMemberEpoch,
        assigned: mi.assigned,
      })
      g.members.set(m.memberId, m)
      g.target.set(m.memberId, mi.target)
      this.armSession(g, m)
    }
    g.subscribedPartitions = this.subscribed(g)
    this.groups.set(g.groupId, g)
  }

  describe(groupId: string): ShareGroupDescribeResponseData['groups'][number] {
    const group = this.groups.get(groupId)
    const base = { errorMessage: null, groupId, authorizedOperations: -2147483648 }
    if (group === undefined) {
      return {
        ...base,
        errorCode: ErrorCode.GROUP_ID_NOT_FOUND.code,
        errorMessage: `Group ${groupId} not found.`,
        groupState: 'Dead',
        groupEpoch: -1,
        assignmentEpoch: -1,
        assignorName: '',
        members: [],
      }
    }
    const names = new Map([...this.topics()].map(([name, t]) => [t.id, name]))
    return {
      ...base,
      errorCode: 0,
      groupState: group.state,
      groupEpoch: group.groupEpoch,
      assignmentEpoch: group.targetAssignmentEpoch,
      assignorName: SIMPLE_ASSIGNOR,
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        rackId: m.rackId,
        memberEpoch: m.memberEpoch,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: m.subscribedTopicNames,
        assignment: { topicPartitions: toWire(m.assigned).map((tp) => ({ ...tp, topicName: names.get(tp.topicId) ?? '' })) },
      })),
    }
  }
}
