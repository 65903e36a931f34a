// A classic consumer group (Kafka's GroupMetadata / ClassicGroup): its members, its state and the
// facts every request checks. Pure data and bookkeeping; the transitions are driven by
// rebalance.ts, the requests by membership.ts and offsets.ts.
//
// States, as Kafka names them (DescribeGroups, ListGroups):
//   Empty ──join──▶ PreparingRebalance ──all joined / timeout──▶ CompletingRebalance
//     ▲                 ▲        │                                 │ leader's SyncGroup stored
//     └──last member────┘        └──no member left──▶ Empty        ▼
//        left                      Stable ◀────────────────────────┘
//   Stable / CompletingRebalance ──join, leave, expiry──▶ PreparingRebalance
//   any ──DeleteGroups, or empty without offsets──▶ Dead (and forgotten)
//
// Members are kept in insertion order; when the leader goes, the next member in that order leads
// (Kafka picks the first key of its member map the same way).
import type { JoinGroupResult, SyncGroupResult } from '../../ports/groups.js'
import type { Timer } from '../../util/clock.js'
import { decodeSubscriptionTopics } from '../../protocol/consumer-protocol.js'
import { OffsetTable, OrderedWrites, txnOffsetKey } from './offset-table.js'

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead'
export const GROUP_STATES: readonly GroupState[] = ['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead']

/** Kafka's ClassicGroupState.validPreviousStates. */
const VALID_PREVIOUS: Record<GroupState, readonly GroupState[]> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
}

export const CONSUMER_PROTOCOL_TYPE = 'consumer'
const EMPTY = Buffer.alloc(0)

export interface Protocol {
  name: string
  metadata: Buffer
}

export class GroupMember {
  assignment: Buffer = EMPTY
  /** Set while a JoinGroup is held; the member then counts as rejoined. */
  joinWaiter: ((r: JoinGroupResult) => void) | null = null
  /** Set while a SyncGroup is held for the leader's assignment. */
  syncWaiter: ((r: SyncGroupResult) => void) | null = null
  /** Joined during the current rebalance and never received a generation (Kafka's isNew). */
  isNew = false
  /** Session (or new-member) expiry. */
  expiry: Timer | null = null

  constructor(
    readonly memberId: string,
    readonly groupInstanceId: string | null,
    readonly clientId: string,
    readonly clientHost: string,
    public rebalanceTimeoutMs: number,
    public sessionTimeoutMs: number,
    readonly protocolType: string,
    public protocols: Protocol[],
  ) {}

  get awaitingJoin(): boolean {
    return this.joinWaiter !== null
  }

  get awaitingSync(): boolean {
    return this.syncWaiter !== null
  }

  metadata(protocolName: string | null): Buffer {
    return this.protocols.find((p) => p.name === protocolName)?.metadata ?? EMPTY
  }

  /** Same protocols, in the same order, with the same metadata (Kafka's MemberMetadata.matches). */
  matches(protocols: readonly Protocol[]): boolean {
    if (protocols.length !== this.protocols.length) return false
    return protocols.every((p, i) => p.name === this.protocols[i]!.name && p.metadata.equals(this.protocols[i]!.metadata))
  }

  /** The member's most preferred protocol among the candidates. */
  vote(candidates: ReadonlySet<string>): string | undefined {
    return this.protocols.find((p) => candidates.has(p.name))?.name
  }
}

export class ClassicGroup {
  state: GroupState
  /** Wall-clock time of the last transition; null for a group restored without one. */
  currentStateTimestampMs: number | null
  generationId = 0
  protocolType: string | null = null
  protocolName: string | null = null
  leaderId: string | null = null
  readonly members = new Map<string, GroupMember>()
  /** group.instance.id → member id */
  readonly staticMembers = new Map<string, string>()
  /** KIP-394: ids handed out with MEMBER_ID_REQUIRED, not yet rejoined; value = their expiry. */
  readonly pendingMembers = new Map<string, Timer>()
  /** Members of the current generation that have not sent SyncGroup yet. */
  readonly pendingSync = new Set<string>()
  /** How many members support each protocol. */
  private readonly supported = new Map<string, number>()
  /** Topics the members subscribe to (consumer protocol only); null when unknown. */
  subscribedTopics: ReadonlySet<string> | null = null
  /** A member joined during the first rebalance: the initial delay may be extended. */
  newMemberAdded = false
  /** The PreparingRebalance deadline (initial delay or rebalance timeout). */
  joinTimer: Timer | null = null
  /** The join timer is the initial delay (KIP-134): never completes early. */
  joinTimerIsInitialDelay = false
  /** Deadline for the SyncGroup of every member of the generation (its rebalance timeout). */
  syncTimer: Timer | null = null
  readonly offsets = new OffsetTable()
  /** Offset writes in flight, applied to `offsets` in the order they were issued. */
  readonly writes = new OrderedWrites()
  /**
   * Transactional offsets awaiting their transaction's marker, per producer id (txn-offsets.ts).
   * A producer stays here until its marker even once its table is empty (tombstones removed its
   * offsets): its transaction is still open on this group, as Kafka's openTransactionsByGroup.
   */
  readonly pendingTxn = new Map<number, OffsetTable>()

  constructor(
    readonly groupId: string,
    state: GroupState,
    nowMs: number,
  ) {
    this.state = state
    this.currentStateTimestampMs = nowMs
  }

  is(state: GroupState): boolean {
    return this.state === state
  }

  transitionTo(state: GroupState, nowMs: number): void {
    if (!VALID_PREVIOUS[state].includes(this.state)) {
      throw new Error(`group ${this.groupId}: illegal transition ${this.state} -> ${state}`)
    }
    this.state = state
    this.currentStateTimestampMs = nowMs
  }

  /** Kafka's canRebalance: PreparingRebalance may be entered from here. */
  get canRebalance(): boolean {
    return VALID_PREVIOUS.PreparingRebalance.includes(this.state)
  }

  get size(): number {
    return this.members.size
  }

  get usesConsumerProtocol(): boolean {
    return this.protocolType === CONSUMER_PROTOCOL_TYPE
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId
  }

  has(memberId: string): boolean {
    return this.members.has(memberId)
  }

  get(memberId: string): GroupMember | undefined {
    return this.members.get(memberId)
  }

  isPending(memberId: string): boolean {
    return this.pendingMembers.has(memberId)
  }

  /** A static member's instance id is mapped to another member id (KIP-345 fencing). */
  isStaticMemberFenced(groupInstanceId: string | null, memberId: string): boolean {
    if (groupInstanceId === null) return false
    const current = this.staticMembers.get(groupInstanceId)
    return current !== undefined && current !== memberId
  }

  /** Some open transaction committed an offset of the partition, or is writing one now. */
  hasPendingTxnOffset(topic: string, partition: number): boolean {
    if (this.writes.isInFlight(txnOffsetKey(topic, partition))) return true
    for (const table of this.pendingTxn.values()) if (table.get(topic, partition)) return true
    return false
  }

  /** A transaction is open on the group (Kafka keeps such a group, and its offsets, from expiring). */
  get hasOpenTransactions(): boolean {
    return this.pendingTxn.size > 0 || this.writes.hasInFlightTxn
  }

  /** Kafka's validateMember: the error name for a member that is fenced or unknown, else null. */
  memberError(memberId: string, groupInstanceId: string | null): 'UNKNOWN_MEMBER_ID' | 'FENCED_INSTANCE_ID' | null {
    if (groupInstanceId !== null) {
      const current = this.staticMembers.get(groupInstanceId)
      if (current === undefined) return 'UNKNOWN_MEMBER_ID'
      if (current !== memberId) return 'FENCED_INSTANCE_ID'
    }
    return this.members.has(memberId) ? null : 'UNKNOWN_MEMBER_ID'
  }

  get numAwaitingJoin(): number {
    let n = 0
    for (const m of this.members.values()) if (m.awaitingJoin) n++
    return n
  }

  /**
   * Every member has rejoined and no member is still pending after MEMBER_ID_REQUIRED (as Kafka:
   * the rebalance waits for a pending member to come back with its id, or for its session timeout
   * to drop it, so members starting together land in one generation).
   */
  get hasAllMembersJoined(): boolean {
    return this.numAwaitingJoin === this.members.size && this.pendingMembers.size === 0
  }

  /** The largest rebalance timeout of the members (Kafka's group.rebalanceTimeoutMs). */
  get rebalanceTimeoutMs(): number {
    let max = 0
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs)
    return max
  }

  /** Kafka's supportsProtocols: the member could join (type matches, one protocol all members share). */
  supportsProtocols(protocolType: string, protocols: readonly Protocol[]): boolean {
    if (this.is('Empty')) return protocolType.length > 0 && protocols.length > 0
    return this.protocolType === protocolType && protocols.some((p) => (this.supported.get(p.name) ?? 0) === this.members.size)
  }

  add(member: GroupMember): void {
    if (member.groupInstanceId !== null) {
      if (this.staticMembers.has(member.groupInstanceId)) throw new Error(`static member ${member.groupInstanceId} already in group`)
      this.staticMembers.set(member.groupInstanceId, member.memberId)
    }
    if (this.members.size === 0) this.protocolType = member.protocolType
    this.leaderId ??= member.memberId
    this.members.set(member.memberId, member)
    this.count(member.protocols, 1)
    this.removePending(member.memberId)
  }

  remove(memberId: string): GroupMember | undefined {
    const member = this.members.get(memberId)
    if (member) {
      this.members.delete(memberId)
      this.count(member.protocols, -1)
      if (member.groupInstanceId !== null && this.staticMembers.get(member.groupInstanceId) === memberId) {
        this.staticMembers.delete(member.groupInstanceId)
      }
    }
    if (this.isLeader(memberId)) this.leaderId = this.members.keys().next().value ?? null
    this.removePending(memberId)
    this.pendingSync.delete(memberId)
    return member
  }

  addPending(memberId: string, expiry: Timer): void {
    this.removePending(memberId)
    this.pendingMembers.set(memberId, expiry)
  }

  removePending(memberId: string): boolean {
    const timer = this.pendingMembers.get(memberId)
    if (!timer) return false
    timer.cancel()
    this.pendingMembers.delete(memberId)
    return true
  }

  updateProtocols(member: GroupMember, protocols: Protocol[]): void {
    this.count(member.protocols, -1)
    member.protocols = protocols
    this.count(protocols, 1)
  }

  /**
   * A static member rejoined with a new member id (KIP-345): the new id takes over everything of
   * the old one — its place in the member order, its assignment, its leadership.
   */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMemberId: string): GroupMember {
    const old = this.members.get(oldMemberId)
    if (!old) throw new Error(`cannot replace unknown member ${oldMemberId}`)
    const replacement = new GroupMember(
      newMemberId,
      groupInstanceId,
      old.clientId,
      old.clientHost,
      old.rebalanceTimeoutMs,
      old.sessionTimeoutMs,
      old.protocolType,
      old.protocols,
    )
    replacement.assignment = old.assignment
    const entries = [...this.members.entries()].map(([id, m]): [string, GroupMember] =>
      id === oldMemberId ? [newMemberId, replacement] : [id, m],
    )
    this.members.clear()
    for (const [id, m] of entries) this.members.set(id, m)
    if (this.isLeader(oldMemberId)) this.leaderId = newMemberId
    if (this.pendingSync.delete(oldMemberId)) this.pendingSync.add(newMemberId)
    this.staticMembers.set(groupInstanceId, newMemberId)
    return replacement
  }

  /** Protocols supported by every member. */
  candidateProtocols(): Set<string> {
    const out = new Set<string>()
    for (const [name, n] of this.supported) if (n === this.members.size) out.add(name)
    return out
  }

  /**
   * Kafka's selectProtocol: among the protocols every member supports, each member votes for its
   * most preferred one; the most votes wins (ties: the protocol voted for first, in member order).
   */
  selectProtocol(): string {
    const candidates = this.candidateProtocols()
    const votes = new Map<string, number>()
    for (const m of this.members.values()) {
      const v = m.vote(candidates)
      if (v !== undefined) votes.set(v, (votes.get(v) ?? 0) + 1)
    }
    let best: string | undefined
    let bestVotes = 0
    for (const [name, n] of votes) {
      if (n > bestVotes) {
        best = name
        bestVotes = n
      }
    }
    if (best === undefined) throw new Error(`group ${this.groupId}: no protocol supported by every member`)
    return best
  }

  /** Kafka's initNextGeneration. */
  initNextGeneration(nowMs: number): void {
    this.generationId++
    if (this.members.size > 0) {
      this.protocolName = this.selectProtocol()
      this.subscribedTopics = this.computeSubscribedTopics()
      this.transitionTo('CompletingRebalance', nowMs)
    } else {
      this.protocolName = null
      this.subscribedTopics = this.computeSubscribedTopics()
      this.transitionTo('Empty', nowMs)
    }
    this.pendingSync.clear()
  }

  /**
   * The union of the members' subscribed topics, decoded from their ConsumerProtocolSubscription
   * for the selected protocol; null when the group is not a consumer group or a subscription does
   * not decode (then every topic counts as subscribed, as Kafka's isSubscribedToTopic).
   */
  computeSubscribedTopics(): ReadonlySet<string> | null {
    if (this.protocolType !== CONSUMER_PROTOCOL_TYPE) return null
    if (this.members.size === 0) return new Set()
    if (this.protocolName === null) return null
    const out = new Set<string>()
    for (const m of this.members.values()) {
      const topics = decodeSubscriptionTopics(m.metadata(this.protocolName))
      if (topics === null) return null
      for (const t of topics) out.add(t)
    }
    return out
  }

  isSubscribedToTopic(topic: string): boolean {
    return this.subscribedTopics ? this.subscribedTopics.has(topic) : this.usesConsumerProtocol
  }

  private count(protocols: readonly Protocol[], delta: number): void {
    for (const p of protocols) {
      const n = (this.supported.get(p.name) ?? 0) + delta
      if (n === 0) this.supported.delete(p.name)
      else this.supported.set(p.name, n)
    }
  }
}
