// The classic rebalance protocol's transitions and timers, as Kafka's GroupCoordinator runs them
// (DelayedJoin, InitialDelayedJoin, DelayedSync, DelayedHeartbeat), on the Clock port so tests
// drive them with a ManualClock.
//
// - prepareRebalance: Stable/CompletingRebalance/Empty → PreparingRebalance. Members held in
//   SyncGroup are answered REBALANCE_IN_PROGRESS. From Empty the join phase lasts
//   group.initial.rebalance.delay.ms (KIP-134), extended by the same delay while new members keep
//   arriving during the group's first rebalance, never past the rebalance timeout; otherwise it
//   ends as soon as every member has rejoined, or at the rebalance timeout (the largest of the
//   members' rebalance.timeout.ms).
// - completeJoin: dynamic members that did not rejoin are removed (static ones stay until their
//   session times out); if the leader did not rejoin, a member that did leads; the generation is
//   bumped and the protocol chosen by vote; every held JoinGroup is answered (the leader gets all
//   members' metadata); each member then has its rebalance timeout to send SyncGroup, or it is
//   removed and the group rebalances (Kafka's DelayedSync). A group left without members becomes
//   Empty and is stored.
// - Sessions: each member has a session timer (session.timeout.ms), restarted by heartbeats,
//   commits and syncs. Members held in JoinGroup/SyncGroup count as alive; a member that joined
//   during the current rebalance and never got a generation is dropped after 5 minutes instead
//   (Kafka's NewMemberJoinTimeoutMs). Expiry removes the member: a rebalance, or the end of the
//   join phase. An id handed out with MEMBER_ID_REQUIRED is forgotten after the session timeout.
import type { JoinGroupParams, JoinGroupResult, SyncGroupResult } from '../../ports/groups.js'
import { ErrorCode, type ErrorName } from '../../protocol/errors.js'
import type { Clock } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import { type ClassicGroup, GroupMember, type Protocol } from './group.js'
import { NEW_MEMBER_JOIN_TIMEOUT_MS } from './limits.js'
import type { GroupPersistence, GroupSnapshot } from './persistence.js'

export interface GroupCoordinatorConfig {
  /** group.initial.rebalance.delay.ms (Kafka: 3000) */
  initialRebalanceDelayMs: number
  /** group.min.session.timeout.ms (Kafka: 6000) */
  minSessionTimeoutMs: number
  /** group.max.session.timeout.ms (Kafka: 1800000) */
  maxSessionTimeoutMs: number
  /** group.max.size (Kafka: Integer.MAX_VALUE) */
  maxGroupSize: number
  /** offsets.retention.minutes in ms (Kafka: 7 days) */
  offsetsRetentionMs: number
  /** offsets.retention.check.interval.ms (Kafka: 600000) */
  offsetsRetentionCheckIntervalMs: number
  /** offset.metadata.max.bytes (Kafka: 4096) */
  offsetMetadataMaxBytes: number
}

/** What the coordinator's parts share. */
export interface CoordinatorEnv {
  readonly clock: Clock
  readonly logger: Logger
  readonly persistence: GroupPersistence
  readonly config: GroupCoordinatorConfig
  readonly groups: Map<string, ClassicGroup>
}

const EMPTY = Buffer.alloc(0)
const NO_JOIN: (r: JoinGroupResult) => void = () => {}

export function joinError(memberId: string, name: ErrorName): JoinGroupResult {
  return {
    errorCode: ErrorCode[name].code,
    generationId: -1,
    protocolType: null,
    protocolName: null,
    leader: '',
    memberId,
    skipAssignment: false,
    members: [],
  }
}

export function syncError(code: number): SyncGroupResult {
  return { errorCode: code, protocolType: null, protocolName: null, assignment: EMPTY }
}

export class Rebalancer {
  constructor(private readonly env: CoordinatorEnv) {}

  private get now(): number {
    return this.env.clock.now()
  }

  // -------------------------------------------------------------------------------------------
  // Answers to held requests.

  answerJoin(member: GroupMember, result: JoinGroupResult): void {
    const waiter = member.joinWaiter
    member.joinWaiter = null
    waiter?.(result)
  }

  answerSync(member: GroupMember, result: SyncGroupResult): void {
    const waiter = member.syncWaiter
    member.syncWaiter = null
    waiter?.(result)
  }

  /** Holds the member's JoinGroup; a previous one still held is told to rejoin. */
  holdJoin(member: GroupMember, waiter: (r: JoinGroupResult) => void): void {
    if (member.joinWaiter && member.joinWaiter !== waiter) this.answerJoin(member, joinError(member.memberId, 'REBALANCE_IN_PROGRESS'))
    member.joinWaiter = waiter
  }

  /** The connection of a held JoinGroup closed: its answer is lost, the member keeps its place. */
  dropJoinAnswer(member: GroupMember): void {
    member.joinWaiter = NO_JOIN
  }

  joinResponse(group: ClassicGroup, member: GroupMember): JoinGroupResult {
    return {
      errorCode: 0,
      generationId: group.generationId,
      protocolType: group.protocolType,
      protocolName: group.protocolName,
      leader: group.leaderId ?? '',
      memberId: member.memberId,
      skipAssignment: false,
      members: group.isLeader(member.memberId)
        ? [...group.members.values()].map((m) => ({
            memberId: m.memberId,
            groupInstanceId: m.groupInstanceId,
            metadata: m.metadata(group.protocolName),
          }))
        : [],
    }
  }

  // -------------------------------------------------------------------------------------------
  // Sessions.

  /** (Re)starts the member's session timer (Kafka's completeAndScheduleNextHeartbeatExpiration). */
  touch(group: ClassicGroup, member: GroupMember, timeoutMs = member.sessionTimeoutMs): void {
    member.expiry?.cancel()
    member.expiry = this.env.clock.setTimeout(() => this.onMemberExpired(group, member), timeoutMs)
  }

  private onMemberExpired(group: ClassicGroup, member: GroupMember): void {
    member.expiry = null
    if (group.is('Dead') || group.get(member.memberId) !== member) return
    if (!member.isNew && (member.awaitingJoin || member.awaitingSync)) {
      // Held in a rebalance: alive by definition (Kafka's hasSatisfiedHeartbeat).
      this.touch(group, member)
      return
    }
    this.env.logger.info('member failed to heartbeat, removing it', { group: group.groupId, member: member.memberId })
    this.removeMemberAndUpdateGroup(group, member, `member ${member.memberId} session expired`)
  }

  addPendingMember(group: ClassicGroup, memberId: string, sessionTimeoutMs: number): void {
    const timer = this.env.clock.setTimeout(() => {
      if (group.removePending(memberId)) this.tryCompleteJoin(group)
    }, sessionTimeoutMs)
    group.addPending(memberId, timer)
  }

  // -------------------------------------------------------------------------------------------
  // Membership changes.

  addMemberAndRebalance(
    group: ClassicGroup,
    memberId: string,
    p: JoinGroupParams,
    protocols: Protocol[],
    waiter: (r: JoinGroupResult) => void,
  ): GroupMember {
    const member = new GroupMember(
      memberId,
      p.groupInstanceId,
      p.clientId,
      p.clientHost,
      p.rebalanceTimeoutMs,
      p.sessionTimeoutMs,
      p.protocolType,
      protocols,
    )
    member.isNew = true
    member.joinWaiter = waiter
    // KIP-134: a member arriving during the group's first rebalance extends the initial delay.
    if (group.is('PreparingRebalance') && group.generationId === 0) group.newMemberAdded = true
    group.add(member)
    // A new member cannot heartbeat before it has a generation: it gets Kafka's 5 minutes.
    this.touch(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS)
    this.maybePrepareRebalance(group, `adding member ${memberId}`)
    this.tryCompleteJoin(group)
    return member
  }

  updateMemberAndRebalance(
    group: ClassicGroup,
    member: GroupMember,
    p: JoinGroupParams,
    protocols: Protocol[],
    waiter: (r: JoinGroupResult) => void,
    reason: string,
  ): void {
    group.updateProtocols(member, protocols)
    member.rebalanceTimeoutMs = p.rebalanceTimeoutMs
    member.sessionTimeoutMs = p.sessionTimeoutMs
    this.holdJoin(member, waiter)
    this.maybePrepareRebalance(group, reason)
    this.tryCompleteJoin(group)
  }

  /** Kafka's removeMemberAndUpdateGroup: held requests are told UNKNOWN_MEMBER_ID. */
  removeMemberAndUpdateGroup(group: ClassicGroup, member: GroupMember, reason: string): void {
    this.answerJoin(member, joinError('', 'UNKNOWN_MEMBER_ID'))
    this.answerSync(member, syncError(ErrorCode.UNKNOWN_MEMBER_ID.code))
    member.expiry?.cancel()
    member.expiry = null
    group.remove(member.memberId)
    switch (group.state) {
      case 'Stable':
      case 'CompletingRebalance':
        this.maybePrepareRebalance(group, reason)
        break
      case 'PreparingRebalance':
        this.tryCompleteJoin(group)
        break
      default:
    }
  }

  /**
   * The connection of a new member's held JoinGroup closed: it goes back to being a pending id,
   * so a retry with that id is still welcome, and the rebalance does not wait for it (Kafka cannot
   * see the disconnect and keeps it for 5 minutes).
   */
  demoteNewMember(group: ClassicGroup, member: GroupMember): void {
    member.joinWaiter = null
    member.expiry?.cancel()
    member.expiry = null
    group.remove(member.memberId)
    this.addPendingMember(group, member.memberId, member.sessionTimeoutMs)
    this.tryCompleteJoin(group)
  }

  // -------------------------------------------------------------------------------------------
  // The join phase.

  maybePrepareRebalance(group: ClassicGroup, reason: string): void {
    if (group.canRebalance) this.prepareRebalance(group, reason)
  }

  prepareRebalance(group: ClassicGroup, reason: string): void {
    if (group.is('CompletingRebalance')) this.resetAndPropagateAssignmentError(group, ErrorCode.REBALANCE_IN_PROGRESS.code)
    this.clearPendingSync(group)
    group.joinTimer?.cancel()
    const fromEmpty = group.is('Empty')
    const rebalanceTimeoutMs = group.rebalanceTimeoutMs
    group.transitionTo('PreparingRebalance', this.now)
    this.env.logger.info('preparing to rebalance group', {
      group: group.groupId,
      generation: group.generationId,
      members: group.size,
      reason,
    })
    if (fromEmpty) {
      const delay = this.env.config.initialRebalanceDelayMs
      this.scheduleInitialDelay(group, delay, Math.max(rebalanceTimeoutMs - delay, 0))
    } else {
      this.scheduleJoinDeadline(group, rebalanceTimeoutMs)
      this.tryCompleteJoin(group)
    }
  }

  private scheduleInitialDelay(group: ClassicGroup, delayMs: number, remainingMs: number): void {
    group.joinTimerIsInitialDelay = true
    group.joinTimer = this.env.clock.setTimeout(() => {
      group.joinTimer = null
      if (!group.is('PreparingRebalance')) return
      if (group.newMemberAdded && remainingMs > 0) {
        group.newMemberAdded = false
        const delay = Math.min(this.env.config.initialRebalanceDelayMs, remainingMs)
        this.scheduleInitialDelay(group, delay, Math.max(remainingMs - delay, 0))
      } else {
        this.completeJoin(group)
      }
    }, delayMs)
  }

  private scheduleJoinDeadline(group: ClassicGroup, timeoutMs: number): void {
    group.joinTimerIsInitialDelay = false
    group.joinTimer = this.env.clock.setTimeout(() => {
      group.joinTimer = null
      if (group.is('PreparingRebalance')) this.completeJoin(group)
    }, timeoutMs)
  }

  /** Completes the join phase if every member has rejoined (never during the initial delay). */
  tryCompleteJoin(group: ClassicGroup): void {
    if (group.is('PreparingRebalance') && !group.joinTimerIsInitialDelay && group.hasAllMembersJoined) this.completeJoin(group)
  }

  /** Kafka's onCompleteJoin. */
  completeJoin(group: ClassicGroup): void {
    group.joinTimer?.cancel()
    group.joinTimer = null
    for (const m of [...group.members.values()]) {
      if (!m.awaitingJoin && m.groupInstanceId === null) {
        m.expiry?.cancel()
        m.expiry = null
        this.answerSync(m, syncError(ErrorCode.UNKNOWN_MEMBER_ID.code))
        group.remove(m.memberId)
      }
    }
    if (group.is('Dead')) return
    if (group.size > 0 && !this.electJoinedLeader(group)) {
      // Nobody rejoined (only absent static members are left): wait for their sessions to end.
      this.env.logger.warn('group could not complete its rebalance: no member rejoined', { group: group.groupId })
      this.scheduleJoinDeadline(group, group.rebalanceTimeoutMs)
      return
    }
    group.initNextGeneration(this.now)
    if (group.is('Empty')) {
      this.env.logger.info('group is now empty', { group: group.groupId, generation: group.generationId })
      this.storeInBackground(group)
      return
    }
    this.env.logger.info('stabilized group', { group: group.groupId, generation: group.generationId, members: group.size })
    for (const m of group.members.values()) {
      this.answerJoin(m, this.joinResponse(group, m))
      this.touch(group, m)
      m.isNew = false
      group.pendingSync.add(m.memberId)
    }
    this.schedulePendingSync(group)
  }

  /** Kafka's maybeElectNewJoinedLeader. */
  private electJoinedLeader(group: ClassicGroup): boolean {
    if (group.leaderId === null) return false
    if (group.get(group.leaderId)?.awaitingJoin) return true
    for (const m of group.members.values()) {
      if (m.awaitingJoin) {
        group.leaderId = m.memberId
        return true
      }
    }
    return false
  }

  // -------------------------------------------------------------------------------------------
  // The sync phase.

  private schedulePendingSync(group: ClassicGroup): void {
    group.syncTimer?.cancel()
    const generation = group.generationId
    group.syncTimer = this.env.clock.setTimeout(() => {
      group.syncTimer = null
      this.onSyncExpired(group, generation)
    }, group.rebalanceTimeoutMs)
  }

  private onSyncExpired(group: ClassicGroup, generation: number): void {
    if (generation !== group.generationId) return
    if (!group.is('CompletingRebalance') && !group.is('Stable')) return
    if (group.pendingSync.size === 0) return
    const late = [...group.pendingSync]
    for (const id of late) {
      const m = group.get(id)
      if (!m) continue
      m.expiry?.cancel()
      m.expiry = null
      this.answerJoin(m, joinError('', 'UNKNOWN_MEMBER_ID'))
      group.remove(id)
    }
    this.env.logger.info('removed members that did not sync in time', { group: group.groupId, members: late.join(',') })
    this.prepareRebalance(group, `members ${late.join(',')} did not send SyncGroup`)
  }

  /** The member has sent SyncGroup. */
  removeSyncMember(group: ClassicGroup, memberId: string): void {
    group.pendingSync.delete(memberId)
    if (group.pendingSync.size === 0) {
      group.syncTimer?.cancel()
      group.syncTimer = null
    }
  }

  private clearPendingSync(group: ClassicGroup): void {
    group.pendingSync.clear()
    group.syncTimer?.cancel()
    group.syncTimer = null
  }

  /** Every member held in SyncGroup gets its assignment; the group becomes Stable. */
  setAndPropagateAssignment(group: ClassicGroup, assignments: ReadonlyMap<string, Buffer>): void {
    for (const m of group.members.values()) m.assignment = assignments.get(m.memberId) ?? EMPTY
    this.propagate(group, 0)
    group.transitionTo('Stable', this.now)
  }

  resetAndPropagateAssignmentError(group: ClassicGroup, errorCode: number): void {
    for (const m of group.members.values()) m.assignment = EMPTY
    this.propagate(group, errorCode)
  }

  private propagate(group: ClassicGroup, errorCode: number): void {
    for (const m of group.members.values()) {
      if (!m.awaitingSync) continue
      this.answerSync(m, {
        errorCode,
        protocolType: group.protocolType,
        protocolName: group.protocolName,
        assignment: errorCode === 0 ? m.assignment : EMPTY,
      })
      // The session restarts once the member has its answer (Kafka's propagateAssignment).
      this.touch(group, m)
    }
  }

  // -------------------------------------------------------------------------------------------
  // Persistence and the end of a group.

  /** The group as stored: members with their metadata for the selected protocol. */
  snapshot(group: ClassicGroup, assignments?: ReadonlyMap<string, Buffer>): GroupSnapshot {
    return {
      protocolType: group.protocolType ?? '',
      generationId: group.generationId,
      protocolName: group.protocolName,
      leaderId: group.leaderId,
      currentStateTimestampMs: group.currentStateTimestampMs ?? this.now,
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        sessionTimeoutMs: m.sessionTimeoutMs,
        subscription: m.metadata(group.protocolName),
        assignment: assignments?.get(m.memberId) ?? m.assignment,
      })),
    }
  }

  /**
   * Stores the group without waiting: an empty generation. If the write fails, a restart brings
   * back the previous generation, whose members then simply time out (Kafka only warns too).
   */
  storeInBackground(group: ClassicGroup): void {
    this.env.persistence.storeGroup(group.groupId, this.snapshot(group)).catch((err: unknown) => {
      this.env.logger.warn('failed to store group metadata', { group: group.groupId, err })
    })
  }

  /** Cancels every timer of the group and answers everything it holds with errorCode. */
  shutDownGroup(group: ClassicGroup, errorCode: number): void {
    group.joinTimer?.cancel()
    group.joinTimer = null
    this.clearPendingSync(group)
    for (const id of [...group.pendingMembers.keys()]) group.removePending(id)
    for (const m of group.members.values()) {
      m.expiry?.cancel()
      m.expiry = null
      this.answerJoin(m, { ...joinError(m.memberId, 'NONE'), errorCode })
      this.answerSync(m, syncError(errorCode))
    }
  }
}
