// The group coordinator: classic consumer groups and their committed offsets, behind the
// GroupService port (handlers/services.ts). It is pure logic on a Clock; everything durable goes
// through GroupPersistence (`__consumer_offsets` in the broker, memory in tests).
//
// Parts: group.ts (a group and its members), rebalance.ts (the state machine's transitions and
// timers), membership.ts (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), offsets.ts (commits,
// fetches, deletes, retention). This file checks what every request shares — the coordinator's
// own state, the group id (limits.ts) — and answers DescribeGroups and ListGroups.
//
// Lifecycle, as Kafka's coordinator for a partition:
// - load() replays the persistence. While it runs, requests are answered
//   COORDINATOR_LOAD_IN_PROGRESS (clients retry). A group stored with members comes back Stable,
//   with its generation, leader and assignments, and fresh session timers for every member — so
//   members that are gone time out and the group rebalances, while members that are still there
//   heartbeat on as if nothing happened. A group stored without members, or known only by its
//   offsets, comes back Empty.
// - close() cancels every timer and answers every held JoinGroup/SyncGroup NOT_COORDINATOR, as
//   Kafka does when it gives up a partition (clients look the coordinator up again); afterwards
//   every request is answered NOT_COORDINATOR.
import type {
  CommitOffsetsParams,
  DeleteOffsetsResult,
  DescribedGroup,
  FetchOffsetsResult,
  GroupService,
  HeartbeatParams,
  JoinGroupParams,
  JoinGroupResult,
  LeaveGroupResult,
  LeavingMember,
  ListedGroup,
  SyncGroupParams,
  SyncGroupResult,
  TopicPartitions,
} from '../../handlers/services.js'
import { ErrorCode, type ErrorName } from '../../protocol/errors.js'
import type { Clock, Timer } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import { ClassicGroup, GroupMember } from './group.js'
import { type GroupIdUse, groupIdError } from './limits.js'
import { Membership } from './membership.js'
import { OffsetTable } from './offset-table.js'
import { Offsets } from './offsets.js'
import type { GroupPersistence, GroupSnapshot } from './persistence.js'
import { type CoordinatorEnv, type GroupCoordinatorConfig, joinError, Rebalancer, syncError } from './rebalance.js'

export type { GroupCoordinatorConfig } from './rebalance.js'

/** Kafka's defaults. */
export const DEFAULT_GROUP_COORDINATOR_CONFIG: Readonly<GroupCoordinatorConfig> = {
  initialRebalanceDelayMs: 3000,
  minSessionTimeoutMs: 6000,
  maxSessionTimeoutMs: 1_800_000,
  maxGroupSize: 2_147_483_647,
  offsetsRetentionMs: 7 * 24 * 60 * 60 * 1000,
  offsetsRetentionCheckIntervalMs: 600_000,
  offsetMetadataMaxBytes: 4096,
}

export interface GroupCoordinatorOptions {
  clock: Clock
  logger: Logger
  persistence: GroupPersistence
  config: GroupCoordinatorConfig
  /** Creates `__consumer_offsets` if needed (OffsetsTopicPersistence.ensureTopic in the broker). */
  ensureTopic?: () => Promise<void>
}

type Status = 'ready' | 'loading' | 'failed' | 'closed'

const code = (name: ErrorName): number => ErrorCode[name].code

export class GroupCoordinator implements GroupService {
  private readonly env: CoordinatorEnv
  private readonly rb: Rebalancer
  private readonly membership: Membership
  private readonly offsets: Offsets
  private readonly groups = new Map<string, ClassicGroup>()
  private status: Status = 'ready'
  private retentionTimer: Timer | null = null

  constructor(private readonly opts: GroupCoordinatorOptions) {
    this.env = { clock: opts.clock, logger: opts.logger, persistence: opts.persistence, config: opts.config, groups: this.groups }
    this.rb = new Rebalancer(this.env)
    this.membership = new Membership(this.env, this.rb)
    this.offsets = new Offsets(this.env, this.rb)
    this.scheduleRetentionCheck()
  }

  /** Why this coordinator cannot serve now, or null. */
  private statusError(): ErrorName | null {
    switch (this.status) {
      case 'ready':
        return null
      case 'loading':
        return 'COORDINATOR_LOAD_IN_PROGRESS'
      case 'failed':
        return 'COORDINATOR_NOT_AVAILABLE'
      default:
        return 'NOT_COORDINATOR'
    }
  }

  /** The error for a request on this group, or null. */
  private refuse(groupId: string, use: GroupIdUse): ErrorName | null {
    if (groupIdError(groupId, use)) return 'INVALID_GROUP_ID'
    return this.statusError()
  }

  // -------------------------------------------------------------------------------------------
  // Membership

  joinGroup(params: JoinGroupParams): Promise<JoinGroupResult> {
    const error = this.refuse(params.groupId, 'membership')
    if (error) return Promise.resolve(joinError(params.memberId, error))
    return this.membership.join(params)
  }

  syncGroup(params: SyncGroupParams): Promise<SyncGroupResult> {
    const error = this.refuse(params.groupId, 'membership')
    if (error) return Promise.resolve(syncError(code(error)))
    return this.membership.sync(params)
  }

  heartbeat(params: HeartbeatParams): number {
    const error = this.refuse(params.groupId, 'membership')
    return error ? code(error) : this.membership.heartbeat(params)
  }

  leaveGroup(groupId: string, members: LeavingMember[]): LeaveGroupResult {
    const error = this.refuse(groupId, 'membership')
    return error ? { errorCode: code(error), members: [] } : this.membership.leave(groupId, members)
  }

  // -------------------------------------------------------------------------------------------
  // Offsets

  commitOffsets(params: CommitOffsetsParams): Promise<number[]> {
    const error = this.refuse(params.groupId, 'offsets')
    if (error) return Promise.resolve(params.offsets.map(() => code(error)))
    return this.offsets.commit(params)
  }

  fetchOffsets(groupId: string, topics: TopicPartitions[] | null, _requireStable: boolean): FetchOffsetsResult {
    // require_stable (KIP-447): no transactional commit can be pending yet, so every offset is stable.
    const error = this.refuse(groupId, 'offsets')
    return error ? { errorCode: code(error), topics: [] } : this.offsets.fetch(groupId, topics)
  }

  deleteOffsets(groupId: string, topics: TopicPartitions[]): Promise<DeleteOffsetsResult> {
    const error = this.refuse(groupId, 'membership')
    if (error) return Promise.resolve({ errorCode: code(error), topics: [] })
    return this.offsets.deleteOffsets(groupId, topics)
  }

  /** One retention sweep now (it also runs every offsets.retention.check.interval.ms). */
  expireOffsets(): Promise<number> {
    return this.statusError() ? Promise.resolve(0) : this.offsets.expire()
  }

  private scheduleRetentionCheck(): void {
    this.retentionTimer = this.opts.clock.setTimeout(() => {
      this.retentionTimer = null
      if (this.status === 'closed') return
      // The next check is due one interval from now whatever this one takes; a sweep never
      // writes a tombstone for an offset whose previous write is still in flight.
      this.scheduleRetentionCheck()
      this.expireOffsets().catch((err: unknown) => this.opts.logger.error('offset retention sweep failed', { err }))
    }, this.opts.config.offsetsRetentionCheckIntervalMs)
  }

  // -------------------------------------------------------------------------------------------
  // Admin

  describeGroups(groupIds: string[]): DescribedGroup[] {
    return groupIds.map((groupId) => {
      const error = this.refuse(groupId, 'admin')
      if (error) return { errorCode: code(error), groupId, groupState: '', protocolType: '', protocolData: '', members: [] }
      const group = this.groups.get(groupId)
      // Kafka answers an unknown group as a Dead one, without an error.
      if (!group) return { errorCode: 0, groupId, groupState: 'Dead', protocolType: '', protocolData: '', members: [] }
      const stable = group.is('Stable')
      return {
        errorCode: 0,
        groupId,
        groupState: group.state,
        protocolType: group.protocolType ?? '',
        // Kafka's GroupMetadata.summary: the protocol and member bytes only once Stable.
        protocolData: stable ? (group.protocolName ?? '') : '',
        members: [...group.members.values()].map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          memberMetadata: stable ? m.metadata(group.protocolName) : Buffer.alloc(0),
          memberAssignment: stable ? m.assignment : Buffer.alloc(0),
        })),
      }
    })
  }

  listGroups(filter: { states: string[]; types: string[] }): { errorCode: number; groups: ListedGroup[] } {
    const error = this.statusError()
    if (error) return { errorCode: code(error), groups: [] }
    const states = new Set(filter.states.map((s) => s.toLowerCase()))
    const types = new Set(filter.types.map((s) => s.toLowerCase()))
    const groups: ListedGroup[] = []
    for (const g of this.groups.values()) {
      if (states.size > 0 && !states.has(g.state.toLowerCase())) continue
      if (types.size > 0 && !types.has('classic')) continue
      groups.push({ groupId: g.groupId, protocolType: g.protocolType ?? '', groupState: g.state, groupType: 'classic' })
    }
    return { errorCode: 0, groups }
  }

  deleteGroups(groupIds: string[]): Promise<Array<{ groupId: string; errorCode: number }>> {
    return Promise.all(
      groupIds.map(async (groupId) => {
        const error = this.refuse(groupId, 'admin')
        return { groupId, errorCode: error ? code(error) : await this.offsets.deleteGroup(groupId) }
      }),
    )
  }

  ensureCoordinatorTopic(): Promise<void> {
    return this.opts.ensureTopic ? this.opts.ensureTopic() : Promise.resolve()
  }

  // -------------------------------------------------------------------------------------------
  // Lifecycle

  /** Replays the persistence into memory; call once, before serving. */
  async load(): Promise<void> {
    if (this.status === 'closed') throw new Error('group coordinator is closed')
    this.status = 'loading'
    for (const g of this.groups.values()) this.rb.shutDownGroup(g, code('COORDINATOR_LOAD_IN_PROGRESS'))
    this.groups.clear()
    const snapshots = new Map<string, GroupSnapshot | null>()
    const offsets = new Map<string, OffsetTable>()
    try {
      await this.opts.persistence.load({
        group: (groupId, snapshot) => snapshots.set(groupId, snapshot),
        offset: (groupId, topic, partition, value) => {
          let table = offsets.get(groupId)
          if (!table) offsets.set(groupId, (table = new OffsetTable()))
          if (value) table.set(topic, partition, value)
          else table.delete(topic, partition)
        },
      })
    } catch (err) {
      this.status = this.status === 'loading' ? 'failed' : this.status
      throw err
    }
    if (this.status !== 'loading') return // closed meanwhile
    for (const groupId of new Set([...snapshots.keys(), ...offsets.keys()])) {
      const snapshot = snapshots.get(groupId) ?? null
      const table = offsets.get(groupId)
      if (!snapshot && (!table || table.isEmpty)) continue
      const group = this.restoreGroup(groupId, snapshot)
      for (const e of table?.entries() ?? []) group.offsets.set(e.topic, e.partition, e.value)
      this.groups.set(groupId, group)
    }
    this.status = 'ready'
    this.opts.logger.info('loaded consumer groups', { groups: this.groups.size })
  }

  private restoreGroup(groupId: string, s: GroupSnapshot | null): ClassicGroup {
    const group = new ClassicGroup(groupId, 'Empty', this.opts.clock.now())
    if (!s) {
      // Known only by its offsets: a group that never had members, as far as we can tell.
      group.currentStateTimestampMs = null
      return group
    }
    group.generationId = s.generationId
    group.protocolType = s.protocolType === '' ? null : s.protocolType
    group.currentStateTimestampMs = s.currentStateTimestampMs
    if (s.members.length === 0 || s.protocolName === null) return group
    group.protocolName = s.protocolName
    for (const m of s.members) {
      const member = new GroupMember(
        m.memberId,
        m.groupInstanceId,
        m.clientId,
        m.clientHost,
        m.rebalanceTimeoutMs,
        m.sessionTimeoutMs,
        s.protocolType,
        [{ name: s.protocolName, metadata: m.subscription }],
      )
      member.assignment = m.assignment
      group.add(member)
    }
    if (s.leaderId !== null && group.has(s.leaderId)) group.leaderId = s.leaderId
    group.state = 'Stable'
    group.subscribedTopics = group.computeSubscribedTopics()
    for (const m of group.members.values()) this.rb.touch(group, m)
    return group
  }

  /** Stops every timer and answers every held request NOT_COORDINATOR. */
  close(): void {
    if (this.status === 'closed') return
    this.status = 'closed'
    this.retentionTimer?.cancel()
    this.retentionTimer = null
    for (const g of this.groups.values()) this.rb.shutDownGroup(g, code('NOT_COORDINATOR'))
    this.groups.clear()
  }

  /** For tests and tools: the group's state, or undefined when unknown. */
  groupState(groupId: string): string | undefined {
    return this.groups.get(groupId)?.state
  }
}
