// JoinGroup, SyncGroup, Heartbeat and LeaveGroup against a classic group, answered as Kafka's
// GroupCoordinator answers them (the checks run in Kafka's order, so clients see the error they
// expect when several apply).
//
// JoinGroup
// - No member id: v4+ dynamic members get MEMBER_ID_REQUIRED with an id `${clientId}-${uuid}` and
//   rejoin with it (KIP-394); until then the id is pending (forgotten after the session timeout).
//   Static members (group.instance.id, KIP-345; id `${instanceId}-${uuid}`) join at once; a known
//   instance replaces its previous member id — whatever that id was waiting for is answered
//   FENCED_INSTANCE_ID. In a Stable group whose selected protocol would not change, the
//   replacement gets the current generation back without a rebalance (the group is stored
//   first; the answer names the previous leader id, so the member never runs the assignor).
// - Known member id: PreparingRebalance → held; CompletingRebalance with unchanged metadata →
//   the current generation again; Stable follower with unchanged metadata → the current
//   generation (it then syncs and gets its assignment); the leader, or changed metadata →
//   rebalance.
// - Errors: INVALID_SESSION_TIMEOUT, INVALID_REQUEST (limits.ts), UNKNOWN_MEMBER_ID,
//   FENCED_INSTANCE_ID, INCONSISTENT_GROUP_PROTOCOL (type differs, or no protocol in common),
//   GROUP_MAX_SIZE_REACHED (group.max.size; a known static instance is always let in, since it
//   replaces itself), COORDINATOR_NOT_AVAILABLE (group being deleted).
// SyncGroup: UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID, ILLEGAL_GENERATION, INCONSISTENT_GROUP_PROTOCOL
//   (v5 type/name), REBALANCE_IN_PROGRESS; the leader's assignment is stored before anyone is
//   answered; a failed store answers its error to everyone held and starts a rebalance.
// Heartbeat: as SyncGroup, plus REBALANCE_IN_PROGRESS while PreparingRebalance.
// LeaveGroup: per member; by instance id alone (memberId "") as admin tools do (KIP-345).
//
// Request buffers may be views on a socket buffer that is reused once the request is answered:
// metadata and assignments the group keeps are copied.
import { randomUUID } from 'node:crypto'
import type {
  HeartbeatParams,
  JoinGroupParams,
  JoinGroupResult,
  LeaveGroupResult,
  LeavingMember,
  SyncGroupParams,
  SyncGroupResult,
} from '../../ports/groups.js'
import { ErrorCode, type ErrorName, toErrorCode } from '../../protocol/errors.js'
import { ClassicGroup, type GroupMember, type Protocol } from './group.js'
import { MAX_JOIN_PROTOCOLS, MAX_PROTOCOL_METADATA_BYTES } from './limits.js'
import { type CoordinatorEnv, joinError, type Rebalancer, syncError } from './rebalance.js'

const EMPTY = Buffer.alloc(0)
const code = (name: ErrorName): number => ErrorCode[name].code

/** The member's protocols, owned (copied) and without repeated names (the first one counts). */
function ownProtocols(protocols: ReadonlyArray<{ name: string; metadata: Buffer }>): Protocol[] {
  const seen = new Set<string>()
  const out: Protocol[] = []
  for (const p of protocols) {
    if (seen.has(p.name)) continue
    seen.add(p.name)
    out.push({ name: p.name, metadata: Buffer.from(p.metadata) })
  }
  return out
}

export class Membership {
  constructor(
    private readonly env: CoordinatorEnv,
    private readonly rb: Rebalancer,
  ) {}

  // -------------------------------------------------------------------------------------------
  // JoinGroup

  join(p: JoinGroupParams): Promise<JoinGroupResult> {
    const { config, groups, clock } = this.env
    if (p.sessionTimeoutMs < config.minSessionTimeoutMs || p.sessionTimeoutMs > config.maxSessionTimeoutMs) {
      return Promise.resolve(joinError(p.memberId, 'INVALID_SESSION_TIMEOUT'))
    }
    if (p.protocols.length > MAX_JOIN_PROTOCOLS || p.protocols.some((x) => x.metadata.length > MAX_PROTOCOL_METADATA_BYTES)) {
      return Promise.resolve(joinError(p.memberId, 'INVALID_REQUEST'))
    }
    const isNewMember = p.memberId === ''
    let group = groups.get(p.groupId)
    if (!group) {
      // Only a member without an id may create the group.
      if (!isNewMember) return Promise.resolve(joinError(p.memberId, 'UNKNOWN_MEMBER_ID'))
      if (p.protocolType.length === 0 || p.protocols.length === 0) return Promise.resolve(joinError('', 'INCONSISTENT_GROUP_PROTOCOL'))
      group = new ClassicGroup(p.groupId, 'Empty', clock.now())
      groups.set(p.groupId, group)
    }
    if (group.is('Dead')) return Promise.resolve(joinError(p.memberId, 'COORDINATOR_NOT_AVAILABLE'))
    if (!this.acceptJoiningMember(group, p)) {
      const existing = group.get(p.memberId)
      if (existing) this.rb.removeMemberAndUpdateGroup(group, existing, 'the group is over its maximum size')
      return Promise.resolve(joinError('', 'GROUP_MAX_SIZE_REACHED'))
    }
    const protocols = ownProtocols(p.protocols)
    const g = group
    return new Promise<JoinGroupResult>((resolve) => {
      let answered = false
      let onAbort: (() => void) | undefined
      const respond = (r: JoinGroupResult) => {
        if (answered) return
        answered = true
        if (onAbort) p.signal?.removeEventListener('abort', onAbort)
        resolve(r)
      }
      const member = isNewMember ? this.joinNewMember(g, p, protocols, respond) : this.joinExistingMember(g, p, protocols, respond)
      if (answered || !member || !p.signal) return
      onAbort = () => {
        if (member.joinWaiter !== respond) return
        // The answer can no longer be delivered. A member that had a generation keeps its place
        // (as in Kafka); a new one goes back to pending so the rebalance does not count on it.
        if (member.isNew && member.groupInstanceId === null && g.get(member.memberId) === member) this.rb.demoteNewMember(g, member)
        else this.rb.dropJoinAnswer(member)
        respond(joinError(member.memberId, 'REBALANCE_IN_PROGRESS'))
      }
      if (p.signal.aborted) onAbort()
      else p.signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Kafka's acceptJoiningMember (group.max.size), letting a known static instance back in. */
  private acceptJoiningMember(group: ClassicGroup, p: JoinGroupParams): boolean {
    const max = this.env.config.maxGroupSize
    if (p.groupInstanceId !== null && group.staticMembers.has(p.groupInstanceId)) return true
    switch (group.state) {
      case 'Empty':
      case 'Dead':
        return true
      case 'PreparingRebalance':
        // Counting members that have rejoined lets the last ones to rejoin be the ones refused.
        return group.get(p.memberId)?.awaitingJoin === true || group.numAwaitingJoin < max
      default:
        return group.has(p.memberId) || group.size < max
    }
  }

  /** Returns the member whose JoinGroup is now held, or null once answered. */
  private joinNewMember(
    group: ClassicGroup,
    p: JoinGroupParams,
    protocols: Protocol[],
    respond: (r: JoinGroupResult) => void,
  ): GroupMember | null {
    if (!group.supportsProtocols(p.protocolType, protocols)) {
      respond(joinError('', 'INCONSISTENT_GROUP_PROTOCOL'))
      return null
    }
    const newMemberId = `${p.groupInstanceId ?? p.clientId}-${randomUUID()}`
    if (p.groupInstanceId !== null) {
      const existing = group.staticMembers.get(p.groupInstanceId)
      if (existing !== undefined) return this.replaceStaticMember(group, p, protocols, existing, newMemberId, respond)
      return this.rb.addMemberAndRebalance(group, newMemberId, p, protocols, respond)
    }
    if (p.requireKnownMemberId) {
      // KIP-394: the client learns its id first, so a retried JoinGroup cannot leave a ghost member.
      this.rb.addPendingMember(group, newMemberId, p.sessionTimeoutMs)
      respond(joinError(newMemberId, 'MEMBER_ID_REQUIRED'))
      return null
    }
    return this.rb.addMemberAndRebalance(group, newMemberId, p, protocols, respond)
  }

  private joinExistingMember(
    group: ClassicGroup,
    p: JoinGroupParams,
    protocols: Protocol[],
    respond: (r: JoinGroupResult) => void,
  ): GroupMember | null {
    if (!group.supportsProtocols(p.protocolType, protocols)) {
      respond(joinError(p.memberId, 'INCONSISTENT_GROUP_PROTOCOL'))
      return null
    }
    if (group.isPending(p.memberId)) {
      // A pending id is never a static member's.
      if (p.groupInstanceId !== null) {
        respond(joinError(p.memberId, 'UNKNOWN_MEMBER_ID'))
        return null
      }
      return this.rb.addMemberAndRebalance(group, p.memberId, p, protocols, respond)
    }
    const error = group.memberError(p.memberId, p.groupInstanceId)
    if (error) {
      respond(joinError(p.memberId, error))
      return null
    }
    const member = group.get(p.memberId)!
    const why = (what: string) => `${what} (member ${p.memberId}${p.reason ? `, reason: ${p.reason}` : ''})`
    switch (group.state) {
      case 'PreparingRebalance':
        this.rb.updateMemberAndRebalance(group, member, p, protocols, respond, why('member rejoined'))
        return member
      case 'CompletingRebalance':
        if (member.matches(protocols)) {
          // It probably missed its JoinGroup answer: the same generation again.
          respond(this.rb.joinResponse(group, member))
          return null
        }
        this.rb.updateMemberAndRebalance(group, member, p, protocols, respond, why('member metadata changed'))
        return member
      case 'Stable':
        if (group.isLeader(p.memberId) || !member.matches(protocols)) {
          // The leader rejoins to have the group reassigned (e.g. topic metadata changed).
          this.rb.updateMemberAndRebalance(group, member, p, protocols, respond, why('leader rejoined or metadata changed'))
          return member
        }
        respond(this.rb.joinResponse(group, member))
        return null
      default:
        respond(joinError(p.memberId, 'UNKNOWN_MEMBER_ID'))
        return null
    }
  }

  /** KIP-345: a known group.instance.id rejoined without (or with a new) member id. */
  private replaceStaticMember(
    group: ClassicGroup,
    p: JoinGroupParams,
    protocols: Protocol[],
    oldMemberId: string,
    newMemberId: string,
    respond: (r: JoinGroupResult) => void,
  ): GroupMember | null {
    const instanceId = p.groupInstanceId!
    const previousLeader = group.leaderId
    const old = group.get(oldMemberId)!
    this.rb.answerJoin(old, joinError(oldMemberId, 'FENCED_INSTANCE_ID'))
    this.rb.answerSync(old, syncError(code('FENCED_INSTANCE_ID')))
    old.expiry?.cancel()
    old.expiry = null
    const member = group.replaceStaticMember(instanceId, oldMemberId, newMemberId)
    const before = { protocols: member.protocols, rebalanceTimeoutMs: member.rebalanceTimeoutMs, sessionTimeoutMs: member.sessionTimeoutMs }
    this.rb.touch(group, member)
    group.updateProtocols(member, protocols)
    member.rebalanceTimeoutMs = p.rebalanceTimeoutMs
    member.sessionTimeoutMs = p.sessionTimeoutMs
    member.joinWaiter = respond
    this.env.logger.info('static member rejoined with a new member id', {
      group: group.groupId,
      instance: instanceId,
      old: oldMemberId,
      new: newMemberId,
      state: group.state,
    })
    switch (group.state) {
      case 'Stable':
        if (group.protocolName === group.selectProtocol()) {
          this.keepGenerationForStaticMember(group, member, oldMemberId, previousLeader, before)
        } else {
          this.rb.prepareRebalance(group, `static member ${instanceId} rejoined with a change of protocol`)
        }
        return member
      case 'CompletingRebalance':
        // The leader may be assigning to the old id: the assignment would miss the new one.
        this.rb.prepareRebalance(group, `static member ${instanceId} rejoined during CompletingRebalance`)
        return member
      case 'PreparingRebalance':
        this.rb.tryCompleteJoin(group)
        return member
      default:
        this.rb.answerJoin(member, joinError(newMemberId, 'COORDINATOR_NOT_AVAILABLE'))
        return null
    }
  }

  /** Stable and the selected protocol unchanged: store the new member id, then give the generation back. */
  private keepGenerationForStaticMember(
    group: ClassicGroup,
    member: GroupMember,
    oldMemberId: string,
    previousLeader: string | null,
    before: { protocols: Protocol[]; rebalanceTimeoutMs: number; sessionTimeoutMs: number },
  ): void {
    const { persistence, logger } = this.env
    const still = () => group.get(member.memberId) === member && member.awaitingJoin && group.is('Stable')
    persistence.storeGroup(group.groupId, this.rb.snapshot(group)).then(
      () => {
        // If a rebalance started meanwhile, the member simply takes part in it.
        if (!still()) return
        this.rb.answerJoin(member, {
          ...this.rb.joinResponse(group, member),
          // Not this member's id even if it leads: it must not run the assignor in a Stable group.
          leader: previousLeader ?? '',
          members: [],
        })
      },
      (err: unknown) => {
        logger.warn('failed to store a static member replacement', { group: group.groupId, err })
        if (!still()) return
        this.rb.answerJoin(member, { ...joinError('', 'NONE'), errorCode: toErrorCode(err) })
        member.expiry?.cancel()
        member.expiry = null
        group.updateProtocols(member, before.protocols)
        const restored = group.replaceStaticMember(member.groupInstanceId!, member.memberId, oldMemberId)
        restored.rebalanceTimeoutMs = before.rebalanceTimeoutMs
        restored.sessionTimeoutMs = before.sessionTimeoutMs
        this.rb.touch(group, restored)
      },
    )
  }

  // -------------------------------------------------------------------------------------------
  // SyncGroup

  sync(p: SyncGroupParams): Promise<SyncGroupResult> {
    const group = this.env.groups.get(p.groupId)
    const fail = (name: ErrorName) => Promise.resolve(syncError(code(name)))
    if (!group) return fail('UNKNOWN_MEMBER_ID')
    if (group.is('Dead')) return fail('COORDINATOR_NOT_AVAILABLE')
    const error = group.memberError(p.memberId, p.groupInstanceId)
    if (error) return fail(error)
    if (p.generationId !== group.generationId) return fail('ILLEGAL_GENERATION')
    if (
      (p.protocolType !== null && p.protocolType !== group.protocolType) ||
      (p.protocolName !== null && p.protocolName !== group.protocolName)
    ) {
      return fail('INCONSISTENT_GROUP_PROTOCOL')
    }
    const member = group.get(p.memberId)!
    switch (group.state) {
      case 'PreparingRebalance':
        return fail('REBALANCE_IN_PROGRESS')
      case 'Stable':
        this.rb.removeSyncMember(group, member.memberId)
        this.rb.touch(group, member)
        return Promise.resolve({
          errorCode: 0,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          assignment: member.assignment,
        })
      case 'CompletingRebalance':
        return this.holdSync(group, member, p)
      default:
        return fail('UNKNOWN_MEMBER_ID')
    }
  }

  private holdSync(group: ClassicGroup, member: GroupMember, p: SyncGroupParams): Promise<SyncGroupResult> {
    return new Promise<SyncGroupResult>((resolve) => {
      let answered = false
      let onAbort: (() => void) | undefined
      const respond = (r: SyncGroupResult) => {
        if (answered) return
        answered = true
        if (onAbort) p.signal?.removeEventListener('abort', onAbort)
        resolve(r)
      }
      if (member.syncWaiter) this.rb.answerSync(member, syncError(code('REBALANCE_IN_PROGRESS')))
      member.syncWaiter = respond
      this.rb.removeSyncMember(group, member.memberId)
      if (group.isLeader(member.memberId)) this.storeAssignment(group, p)
      if (answered || !p.signal) return
      onAbort = () => {
        if (member.syncWaiter !== respond) return
        // Still counts as synced; the answer is just lost.
        member.syncWaiter = () => {}
        respond(syncError(code('REBALANCE_IN_PROGRESS')))
      }
      if (p.signal.aborted) onAbort()
      else p.signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** The leader's assignment: stored, then relayed byte for byte (members it left out get nothing). */
  private storeAssignment(group: ClassicGroup, p: SyncGroupParams): void {
    const given = new Map<string, Buffer>()
    for (const a of p.assignments) given.set(a.memberId, a.assignment)
    const assignments = new Map<string, Buffer>()
    for (const id of group.members.keys()) assignments.set(id, given.has(id) ? Buffer.from(given.get(id)!) : EMPTY)
    const generation = group.generationId
    const current = () => group.is('CompletingRebalance') && group.generationId === generation
    this.env.persistence.storeGroup(group.groupId, this.rb.snapshot(group, assignments)).then(
      () => {
        if (current()) this.rb.setAndPropagateAssignment(group, assignments)
      },
      (err: unknown) => {
        this.env.logger.warn('failed to store the group assignment', { group: group.groupId, generation, err })
        if (!current()) return
        this.rb.resetAndPropagateAssignmentError(group, toErrorCode(err))
        this.rb.maybePrepareRebalance(group, 'the group assignment could not be stored')
      },
    )
  }

  // -------------------------------------------------------------------------------------------
  // Heartbeat

  heartbeat(p: HeartbeatParams): number {
    const group = this.env.groups.get(p.groupId)
    if (!group) return code('UNKNOWN_MEMBER_ID')
    if (group.is('Dead')) return code('COORDINATOR_NOT_AVAILABLE')
    const error = group.memberError(p.memberId, p.groupInstanceId)
    if (error) return code(error)
    if (p.generationId !== group.generationId) return code('ILLEGAL_GENERATION')
    const member = group.get(p.memberId)!
    switch (group.state) {
      case 'Stable':
      case 'CompletingRebalance':
        // Clients may heartbeat between their JoinGroup and SyncGroup answers.
        this.rb.touch(group, member)
        return 0
      case 'PreparingRebalance':
        this.rb.touch(group, member)
        return code('REBALANCE_IN_PROGRESS')
      default:
        return code('UNKNOWN_MEMBER_ID')
    }
  }

  // -------------------------------------------------------------------------------------------
  // LeaveGroup

  leave(groupId: string, leaving: LeavingMember[]): LeaveGroupResult {
    const group = this.env.groups.get(groupId)
    const result = (m: LeavingMember, name: ErrorName) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      errorCode: code(name),
    })
    if (!group) return { errorCode: 0, members: leaving.map((m) => result(m, 'UNKNOWN_MEMBER_ID')) }
    if (group.is('Dead')) return { errorCode: code('COORDINATOR_NOT_AVAILABLE'), members: [] }
    const members = leaving.map((m) => {
      const why = `member ${m.memberId || m.groupInstanceId} left${m.reason ? ` (${m.reason})` : ''}`
      if (m.memberId === '') {
        // Removal by group.instance.id alone (admin tools, KIP-345).
        const id = m.groupInstanceId === null ? undefined : group.staticMembers.get(m.groupInstanceId)
        const member = id === undefined ? undefined : group.get(id)
        if (!member) return result(m, 'UNKNOWN_MEMBER_ID')
        this.rb.removeMemberAndUpdateGroup(group, member, why)
        return result(m, 'NONE')
      }
      if (group.isPending(m.memberId)) {
        group.removePending(m.memberId)
        this.rb.tryCompleteJoin(group)
        return result(m, 'NONE')
      }
      const error = group.memberError(m.memberId, m.groupInstanceId)
      if (error) return result(m, error)
      this.rb.removeMemberAndUpdateGroup(group, group.get(m.memberId)!, why)
      return result(m, 'NONE')
    })
    return { errorCode: 0, members }
  }
}
