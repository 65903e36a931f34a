// The group coordinator: classic consumer groups and their committed offsets, behind the
// GroupService port (ports/groups.ts). It is pure logic on a Clock; everything durable goes
// through GroupPersistence (`__consumer_offsets` in the broker, memory in tests).
//
// Parts: group.ts (a group and its members), rebalance.ts (the state machine's transitions and
// timers), membership.ts (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), offsets.ts (commits,
// fetches, deletes, retention), txn-offsets.ts (TxnOffsetCommit and the transactions' markers),
// replay.ts (what loading a partition reads back).
// This file checks what every request shares — the coordinator's own state, the group id
// (limits.ts) — and answers DescribeGroups and ListGroups. Share groups (KIP-932) are served by
// share/share-coordination.ts; a group id belongs to one type (classic, consumer or share).
//
// KIP-848 consumer groups live in consumer/ (durable-groups.ts: written to and replayed from
// `__consumer_offsets` with the partition's classic groups); their offsets are kept here under an
// Empty classic carrier group of the same id. Classic requests on a consumer group with members go
// to its classic members (consumer/classic-members.ts); the conversions between the protocols are
// protocol-migration.ts's: upgrade on a ConsumerGroupHeartbeat joining a classic group whose
// members all use the consumer protocol (any other classic group with members: GROUP_ID_NOT_FOUND),
// downgrade when the last consumer-protocol member leaves; a JoinGroup on an empty consumer group
// tombstones it. DeleteGroups of a consumer group: NON_EMPTY_GROUP while it has members;
// OffsetDelete refuses its subscribed topics with GROUP_SUBSCRIBED_TO_TOPIC.
//
// TxnOffsetCommit (Kafka's GroupCoordinatorService.commitTransactionalOffsets): the empty group
// id is INVALID_GROUP_ID; ownership as any request; then the transaction verification the handler
// passes (params.verify: the transaction coordinator confirms — or, transactions v2, adds — the
// group's partition in the producer's transaction), after which ownership is checked again, since
// the partition may have moved while the coordinator answered. completeTransaction: the marker
// of a partition owned ends the producer's pending offsets there now; of a partition loading,
// once the load is installed (the load may or may not have read the marker; ending twice is
// harmless, as no later transaction of that producer can have written to the partition before
// the marker's completion was reported); of any other partition, nothing (its leader loads it).
//
// Ownership (Kafka's GroupCoordinator.onElection / onResignation). A group belongs to one
// `__consumer_offsets` partition (persistence.partitionFor) and is coordinated by that
// partition's leader — on one broker and on many alike: this coordinator owns a partition only
// after onElection(partition, leaderEpoch) replayed it. While that runs, requests for its groups
// are answered COORDINATOR_LOAD_IN_PROGRESS (clients retry); requests for groups of partitions not
// owned are answered NOT_COORDINATOR (the client looks the coordinator up again). A replayed group
// stored with members comes back Stable, with its generation, leader and assignments, and fresh
// session timers for every member — so members that are gone time out and the group rebalances,
// while members that are still there heartbeat on as if nothing happened. A group stored without
// members, or known only by its offsets, comes back Empty. onResignation drops the
// partition's groups from memory — held JoinGroup/SyncGroup answered NOT_COORDINATOR, timers
// cancelled, nothing written for them: the new leader's coordinator carries on from the log.
// Each partition keeps the newest leader epoch it heard of, and an election or resignation of an
// older epoch is ignored, so events that arrive late cannot undo newer ones. A newer election of
// a partition still owned (or loading) keeps what is in memory: this broker led it throughout.
// close() cancels every timer and answers every held JoinGroup/SyncGroup NOT_COORDINATOR, as
// Kafka does when it gives up a partition; afterwards every request is answered NOT_COORDINATOR.
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
  TxnOffsetCommitParams,
} from '../../ports/groups.js'
import { ErrorCode, type ErrorName } from '../../protocol/errors.js'
import type { Clock, Timer } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import { ClassicGroup, GroupMember } from './group.js'
import { type GroupIdUse, groupIdError } from './limits.js'
import { Membership } from './membership.js'
import { Offsets } from './offsets.js'
import type {
  ConsumerGroupHeartbeatRequestData,
  ConsumerGroupHeartbeatResponseData,
} from '../../protocol/messages/68-consumer-group-heartbeat.js'
import type { ConsumerGroupDescribeResponseData } from '../../protocol/messages/69-consumer-group-describe.js'
import type { ClientInfo, ConsumerGroupConfig, ConsumerGroups, TopicSource } from './consumer/consumer-groups.js'
import { canUpgrade } from './consumer/classic-members.js'
import { downgradeIfClassicOnly, type MigrationEnv, upgradeClassic } from './protocol-migration.js'
import { DurableConsumerGroups } from './consumer/durable-groups.js'
import type { GroupPersistence, GroupSnapshot } from './persistence.js'
import { type CoordinatorEnv, type GroupCoordinatorConfig, joinError, Rebalancer, syncError } from './rebalance.js'
import { PartitionReplay } from './replay.js'
import { TxnOffsets } from './txn-offsets.js'
import type { ShareStatePersister } from '../../ports/shares.js'
import { ShareCoordination, type ShareGroupOptions } from './share/share-coordination.js'

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
  /** The topics consumer-protocol groups subscribe to (none when absent). */
  topics?: TopicSource
  consumerGroups?: ConsumerGroupConfig
  /** group.share.* of the broker, a group's own timeouts, high watermarks for the lag. */
  shareGroups?: ShareGroupOptions
  /** The share coordinator's state of share-partitions (the offsets admin APIs, DeleteGroups). */
  shareState?: ShareStatePersister
}

type Status = 'ready' | 'closed'

/** One `__consumer_offsets` partition as this coordinator knows it. */
interface PartitionOwnership {
  /** The newest leader epoch heard of (election or resignation). */
  epoch: number
  state: 'loading' | 'owned' | 'failed' | 'resigned'
  /** Markers reported while loading, ended once the load is installed. */
  completions: Array<{ producerId: number; commit: boolean }>
}

const code = (name: ErrorName): number => ErrorCode[name].code

export class GroupCoordinator implements GroupService {
  private readonly env: CoordinatorEnv
  private readonly rb: Rebalancer
  private readonly membership: Membership
  private readonly offsets: Offsets
  private readonly txnOffsets: TxnOffsets
  private readonly groups = new Map<string, ClassicGroup>()
  private status: Status = 'ready'
  private retentionTimer: Timer | null = null
  private readonly partitions = new Map<number, PartitionOwnership>()
  private readonly consumer: ConsumerGroups
  private readonly share: ShareCoordination
  /** The consumer-protocol groups and their records (consumer/durable-groups.ts). */
  private readonly durable: DurableConsumerGroups
  private readonly migration: MigrationEnv

  constructor(private readonly opts: GroupCoordinatorOptions) {
    this.env = { clock: opts.clock, logger: opts.logger, persistence: opts.persistence, config: opts.config, groups: this.groups }
    this.rb = new Rebalancer(this.env)
    this.membership = new Membership(this.env, this.rb)
    this.offsets = new Offsets(this.env, this.rb)
    this.txnOffsets = new TxnOffsets(this.env)
    this.durable = new DurableConsumerGroups({
      clock: opts.clock,
      logger: opts.logger,
      persistence: opts.persistence,
      topics: opts.topics ?? (() => new Map()),
      ...(opts.consumerGroups && { config: opts.consumerGroups }),
    })
    this.consumer = this.durable.groups
    this.durable.onMembersLeft = (groupId) => this.maybeDowngrade(groupId)
    this.migration = {
      ...this.env,
      rb: this.rb,
      txnOffsets: this.txnOffsets,
      durable: this.durable,
      restoreGroup: (groupId, snapshot) => this.restoreGroup(groupId, snapshot),
    }
    this.share = new ShareCoordination({
      clock: opts.clock,
      logger: opts.logger,
      topics: opts.topics ?? (() => new Map()),
      persistence: opts.persistence,
      ...opts.shareGroups,
      persister: opts.shareState,
      refuse: (groupId, use) => this.refuse(groupId, use),
      otherType: (groupId) => this.otherType(groupId),
    })
    this.scheduleRetentionCheck()
  }

  /** Why this coordinator cannot serve now, or null. */
  private statusError(): ErrorName | null {
    return this.status === 'ready' ? null : 'NOT_COORDINATOR'
  }

  /** The error for a request on this group, or null. */
  private refuse(groupId: string, use: GroupIdUse): ErrorName | null {
    if (groupIdError(groupId, use)) return 'INVALID_GROUP_ID'
    return this.statusError() ?? this.ownershipError(groupId)
  }

  /** Why this coordinator does not serve the group's partition now, or null. */
  private ownershipError(groupId: string): ErrorName | null {
    switch (this.partitions.get(this.opts.persistence.partitionFor(groupId))?.state) {
      case 'owned':
        return null
      case 'loading':
        return 'COORDINATOR_LOAD_IN_PROGRESS'
      default:
        return 'NOT_COORDINATOR'
    }
  }

  // -------------------------------------------------------------------------------------------
  // Membership

  async joinGroup(params: JoinGroupParams): Promise<JoinGroupResult> {
    const error = this.refuse(params.groupId, 'membership') ?? (this.share.isShareGroup(params.groupId) ? 'GROUP_ID_NOT_FOUND' : null)
    if (error) return joinError(params.memberId, error)
    const consumerGroup = this.consumer.groups.get(params.groupId)
    if (consumerGroup !== undefined) {
      // Kafka's classicGroupJoin: a classic member of a consumer group with members is served
      // there (consumer/classic-members.ts); an empty consumer group becomes a classic one (its
      // records tombstoned, its offsets kept).
      const mixed = await this.durable.classicJoin(params)
      if (mixed !== undefined) return mixed
      const deleted = await this.durable.deleteGroup(params.groupId)
      if (deleted !== null && deleted !== 'NONE') return joinError(params.memberId, deleted)
      const again = this.refuse(params.groupId, 'membership')
      if (again) return joinError(params.memberId, again)
    }
    return this.membership.join(params)
  }

  syncGroup(params: SyncGroupParams): Promise<SyncGroupResult> {
    const error = this.refuse(params.groupId, 'membership')
    if (error) return Promise.resolve(syncError(code(error)))
    const mixed = this.durable.classicSync(params.groupId, params.memberId, params.generationId)
    return mixed.then((r) => r ?? this.membership.sync(params))
  }

  heartbeat(params: HeartbeatParams): number {
    const error = this.refuse(params.groupId, 'membership')
    if (error) return code(error)
    return this.durable.classicHeartbeat(params.groupId, params.memberId, params.generationId) ?? this.membership.heartbeat(params)
  }

  leaveGroup(groupId: string, members: LeavingMember[]): LeaveGroupResult {
    const error = this.refuse(groupId, 'membership')
    if (error) return { errorCode: code(error), members: [] }
    return this.durable.classicLeave(groupId, members) ?? this.membership.leave(groupId, members)
  }

  // -------------------------------------------------------------------------------------------
  // Offsets

  commitOffsets(params: CommitOffsetsParams): Promise<number[]> {
    const error = this.refuse(params.groupId, 'offsets')
    if (error) return Promise.resolve(params.offsets.map(() => code(error)))
    // Share groups have no committed offsets (their progress is the share state).
    if (this.share.isShareGroup(params.groupId)) return Promise.resolve(params.offsets.map(() => code('GROUP_ID_NOT_FOUND')))
    if (this.consumer.groups.has(params.groupId)) {
      // A consumer-protocol group: the member and its epoch are checked there; the offsets are kept
      // as any group's, under a carrier with no classic member (generation -1).
      const refused = this.consumer.validateOffsetCommit(params.groupId, params.memberId, params.generationId)
      if (refused !== 'NONE') return Promise.resolve(params.offsets.map(() => code(refused)))
      return this.offsets.commit({ ...params, generationId: -1, memberId: '', groupInstanceId: null })
    }
    return this.offsets.commit(params)
  }

  // -------------------------------------------------------------------------------------------
  // Consumer protocol (KIP-848)

  async consumerGroupHeartbeat(
    req: ConsumerGroupHeartbeatRequestData,
    apiVersion: number,
    client: ClientInfo,
  ): Promise<ConsumerGroupHeartbeatResponseData> {
    const fail = (name: ErrorName, message: string | null = null): ConsumerGroupHeartbeatResponseData => ({
      throttleTimeMs: 0,
      errorCode: code(name),
      errorMessage: message,
      memberId: null,
      memberEpoch: 0,
      heartbeatIntervalMs: 0,
      assignment: null,
    })
    const error = this.refuse(req.groupId, 'membership')
    if (error) return fail(error)
    const classic = this.groups.get(req.groupId)
    if (this.share.isShareGroup(req.groupId)) return fail('GROUP_ID_NOT_FOUND', `Group ${req.groupId} is not a consumer group.`)
    if (classic !== undefined && !classic.is('Empty')) {
      // Kafka's online upgrade (group.consumer.migration.policy): a member joining a classic group
      // whose members all use the consumer protocol turns it into a consumer group.
      if (req.memberEpoch !== 0 || !canUpgrade(classic)) return fail('GROUP_ID_NOT_FOUND', `Group ${req.groupId} is not a consumer group.`)
      const refused = this.consumer.refusal(req, apiVersion)
      if (refused !== null) return refused
      upgradeClassic(this.migration, classic)
    }
    const res = await this.durable.heartbeat(req, apiVersion, client)
    if (req.memberEpoch < 0 && res.errorCode === 0) this.maybeDowngrade(req.groupId)
    return res
  }

  /** Kafka's online downgrade (protocol-migration.ts), for a group of a partition owned here. */
  private maybeDowngrade(groupId: string): void {
    if (this.status === 'closed' || this.ownershipError(groupId) !== null) return
    downgradeIfClassicOnly(this.migration, groupId)
  }

  // -------------------------------------------------------------------------------------------
  // Share groups (KIP-932): share/share-coordination.ts

  /** A group of another type than share holding the id (a classic group with members or offsets). */
  private otherType(groupId: string): 'classic' | 'consumer' | null {
    if (this.consumer.groups.has(groupId)) return 'consumer'
    const classic = this.groups.get(groupId)
    if (classic !== undefined && (!classic.is('Empty') || !classic.offsets.isEmpty)) return 'classic'
    return null
  }

  readonly shareGroupHeartbeat: ShareCoordination['heartbeat'] = (req, client) => this.share.heartbeat(req, client)
  readonly shareGroupDescribe: ShareCoordination['describe'] = (groupIds) => this.share.describe(groupIds)
  readonly describeShareGroupOffsets: ShareCoordination['describeOffsets'] = (groups) => this.share.describeOffsets(groups)
  readonly alterShareGroupOffsets: ShareCoordination['alterOffsets'] = (req) => this.share.alterOffsets(req)
  readonly deleteShareGroupOffsets: ShareCoordination['deleteOffsets'] = (req) => this.share.deleteOffsets(req)

  consumerGroupDescribe(groupIds: string[]): ConsumerGroupDescribeResponseData['groups'] {
    return groupIds.map((groupId) => {
      const error = this.refuse(groupId, 'admin')
      const described = this.consumer.describe([groupId])[0]!
      if (error) return { ...described, errorCode: code(error), errorMessage: null, groupState: '', members: [] }
      if (!this.consumer.groups.has(groupId) && this.groups.has(groupId)) {
        return { ...described, errorMessage: `Group ${groupId} is not a consumer group.` }
      }
      return described
    })
  }

  async txnOffsetCommit(params: TxnOffsetCommitParams): Promise<number[]> {
    const all = (c: number) => params.offsets.map(() => c)
    // Kafka refuses the empty group id here, unlike a plain OffsetCommit.
    const error = this.refuse(params.groupId, 'membership')
    if (error) return all(code(error))
    if (params.verify) {
      const verified = await params.verify(this.opts.persistence.partitionFor(params.groupId))
      if (verified !== 0) return all(verified)
      const again = this.refuse(params.groupId, 'membership')
      if (again) return all(code(again))
    }
    return this.txnOffsets.commit(params)
  }

  completeTransaction(offsetsPartition: number, producerId: number, commit: boolean): void {
    if (this.status === 'closed') return
    const entry = this.partitions.get(offsetsPartition)
    if (entry?.state === 'loading') entry.completions.push({ producerId, commit })
    else if (entry?.state === 'owned') this.txnOffsets.complete(offsetsPartition, producerId, commit)
    else this.opts.logger.debug('a transaction marker of a partition not coordinated here', { offsetsPartition, producerId })
  }

  fetchOffsets(
    groupId: string,
    topics: TopicPartitions[] | null,
    requireStable: boolean,
    member?: { memberId: string | null; memberEpoch: number },
  ): FetchOffsetsResult {
    const error = this.refuse(groupId, 'offsets')
    if (error) return { errorCode: code(error), topics: [] }
    if (member !== undefined && this.consumer.groups.has(groupId)) {
      const refused = this.consumer.validateOffsetFetch(groupId, member.memberId, member.memberEpoch)
      if (refused !== 'NONE') return { errorCode: code(refused), topics: [] }
    }
    return this.offsets.fetch(groupId, topics, requireStable)
  }

  deleteOffsets(groupId: string, topics: TopicPartitions[]): Promise<DeleteOffsetsResult> {
    const error = this.refuse(groupId, 'membership')
    if (error) return Promise.resolve({ errorCode: code(error), topics: [] })
    const subscribed = this.consumer.subscribedTopicNames(groupId)
    // A consumer-protocol group: the topics its members subscribe to are refused
    // (GROUP_SUBSCRIBED_TO_TOPIC), whatever its state; its offsets are its carrier's.
    if (subscribed !== undefined) return this.offsets.deleteOffsets(groupId, topics, subscribed)
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
      if (this.share.isShareGroup(groupId)) {
        // As Kafka answers for a share group (ShareGroupDescribe describes it): Dead, no protocol;
        // the handler adds GROUP_ID_NOT_FOUND from v6, as for a group not known.
        return { errorCode: 0, groupId, groupState: 'Dead', protocolType: '', protocolData: '', members: [] }
      }
      if (this.consumer.groups.has(groupId)) {
        // Kafka's answer to DescribeGroups on a consumer-protocol group (ConsumerGroupDescribe
        // describes it): not found as a classic group (the handler drops the code before v6).
        return {
          errorCode: code('GROUP_ID_NOT_FOUND'),
          errorMessage: `Group ${groupId} is not a classic group.`,
          groupId,
          groupState: 'Dead',
          protocolType: '',
          protocolData: '',
          members: [],
        }
      }
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
    // The groups of the partitions owned; while one loads, the list is incomplete (as Kafka says).
    const loading = [...this.partitions.values()].some((p) => p.state === 'loading')
    const states = new Set(filter.states.map((s) => s.toLowerCase()))
    const types = new Set(filter.types.map((s) => s.toLowerCase()))
    const groups: ListedGroup[] = []
    for (const g of this.consumer.groups.values()) {
      if (this.ownershipError(g.groupId) !== null) continue
      if (states.size > 0 && !states.has(g.state.toLowerCase())) continue
      if (types.size > 0 && !types.has('consumer')) continue
      groups.push({ groupId: g.groupId, protocolType: 'consumer', groupState: g.state, groupType: 'consumer' })
    }
    groups.push(...this.share.listed(states, types, (groupId) => this.ownershipError(groupId) === null))
    for (const g of this.groups.values()) {
      // The offsets' carrier of a consumer group; an empty classic group whose id a share group took.
      if (this.consumer.groups.has(g.groupId) || this.share.isShareGroup(g.groupId)) continue
      if (states.size > 0 && !states.has(g.state.toLowerCase())) continue
      if (types.size > 0 && !types.has('classic')) continue
      groups.push({ groupId: g.groupId, protocolType: g.protocolType ?? '', groupState: g.state, groupType: 'classic' })
    }
    return { errorCode: loading ? code('COORDINATOR_LOAD_IN_PROGRESS') : 0, groups }
  }

  deleteGroups(groupIds: string[]): Promise<Array<{ groupId: string; errorCode: number }>> {
    return Promise.all(
      groupIds.map(async (groupId) => {
        const error = this.refuse(groupId, 'admin')
        if (error) return { groupId, errorCode: code(error) }
        if (this.share.isShareGroup(groupId)) return { groupId, errorCode: await this.share.deleteGroup(groupId) }
        const consumer = await this.durable.deleteGroup(groupId)
        if (consumer !== null && consumer !== 'NONE') return { groupId, errorCode: code(consumer) }
        // The offsets (kept by a carrier classic group) go with it; a consumer group without any is done.
        if (consumer === 'NONE' && !this.groups.has(groupId)) return { groupId, errorCode: 0 }
        return { groupId, errorCode: await this.offsets.deleteGroup(groupId) }
      }),
    )
  }

  ensureCoordinatorTopic(): Promise<void> {
    return this.opts.ensureTopic ? this.opts.ensureTopic() : Promise.resolve()
  }

  // -------------------------------------------------------------------------------------------
  // Lifecycle

  /** The replayed groups into memory (those known only by deleted offsets stay out). */
  private install(replay: PartitionReplay): number {
    let count = 0
    for (const groupId of new Set([...replay.snapshots.keys(), ...replay.offsets.keys(), ...replay.pending.keys()])) {
      const snapshot = replay.snapshots.get(groupId) ?? null
      const table = replay.offsets.get(groupId)
      const pending = replay.pending.get(groupId)
      if (!snapshot && (!table || table.isEmpty) && !pending?.size) continue
      const group = this.restoreGroup(groupId, snapshot)
      for (const e of table?.entries() ?? []) group.offsets.set(e.topic, e.partition, e.value)
      for (const [producerId, t] of pending ?? []) group.pendingTxn.set(producerId, t)
      this.groups.set(groupId, group)
      this.txnOffsets.adopt(group)
      count++
    }
    return count
  }

  /**
   * This broker now leads `__consumer_offsets` partition `partition` at `leaderEpoch`: its groups
   * are loaded, then served. Resolves once loaded, or once the load was
   * given up (failed, resigned or superseded meanwhile); never rejects.
   */
  onElection(partition: number, leaderEpoch: number): Promise<void> {
    if (this.status === 'closed') return Promise.resolve()
    const current = this.partitions.get(partition)
    if (current && leaderEpoch <= current.epoch) {
      this.opts.logger.debug('ignoring an election of an older epoch', { partition, leaderEpoch, epoch: current.epoch })
      return Promise.resolve()
    }
    if (current && (current.state === 'owned' || current.state === 'loading')) {
      current.epoch = leaderEpoch // led here throughout: what is in memory (or loading) stays
      return Promise.resolve()
    }
    const entry: PartitionOwnership = { epoch: leaderEpoch, state: 'loading', completions: [] }
    this.partitions.set(partition, entry)
    return this.loadPartition(partition, entry)
  }

  /**
   * This broker no longer leads the partition: its groups leave memory,
   * held requests are answered NOT_COORDINATOR, nothing is written for them. `leaderEpoch` is the
   * partition's epoch as of the change; a resignation older than the epoch known is ignored.
   */
  onResignation(partition: number, leaderEpoch: number): void {
    if (this.status === 'closed') return
    const current = this.partitions.get(partition)
    if (current && leaderEpoch < current.epoch) {
      this.opts.logger.debug('ignoring a resignation of an older epoch', { partition, leaderEpoch, epoch: current.epoch })
      return
    }
    this.partitions.set(partition, { epoch: leaderEpoch, state: 'resigned', completions: [] })
    const dropped = this.unloadPartition(partition)
    if (current?.state === 'owned' || current?.state === 'loading') {
      this.opts.logger.info('resigned as coordinator of an offsets partition', { partition, leaderEpoch, groups: dropped })
    }
  }

  private async loadPartition(partition: number, entry: PartitionOwnership): Promise<void> {
    const startMs = this.opts.clock.monotonic()
    const replay = new PartitionReplay(this.share.replay(), this.opts.logger)
    const current = () => this.partitions.get(partition) === entry && this.status !== 'closed'
    try {
      await this.opts.persistence.loadPartition(partition, replay.sink)
    } catch (err) {
      if (!current()) return
      entry.state = 'failed'
      entry.completions.length = 0
      this.opts.logger.error('loading an offsets partition failed; its groups are not served here', { partition, err })
      return
    }
    if (!current()) return // resigned (or closed) meanwhile: what was read is someone else's now
    this.unloadPartition(partition)
    const groups = this.install(replay) + this.durable.install(replay.consumer) + this.share.install(replay.shares)
    entry.state = 'owned'
    for (const c of entry.completions.splice(0)) this.txnOffsets.complete(partition, c.producerId, c.commit)
    this.opts.logger.info('loaded an offsets partition', {
      partition,
      leaderEpoch: entry.epoch,
      groups,
      ms: Math.round(this.opts.clock.monotonic() - startMs),
    })
  }

  /** Drops the partition's groups from memory, as Kafka's onGroupUnloaded: Dead, held requests answered. */
  private unloadPartition(partition: number): number {
    let count = 0
    this.share.forgetPartition(partition)
    for (const groupId of [...this.consumer.groups.keys()]) {
      if (this.opts.persistence.partitionFor(groupId) === partition) this.durable.forget(groupId)
    }
    for (const group of [...this.groups.values()]) {
      if (this.opts.persistence.partitionFor(group.groupId) !== partition) continue
      this.rb.shutDownGroup(group, code('NOT_COORDINATOR'))
      group.transitionTo('Dead', this.opts.clock.now())
      this.groups.delete(group.groupId)
      this.txnOffsets.forget(group.groupId)
      count++
    }
    return count
  }

  /** The partitions owned now (for tests and tools). */
  ownedPartitions(): number[] {
    return [...this.partitions]
      .filter(([, p]) => p.state === 'owned')
      .map(([i]) => i)
      .sort((a, b) => a - b)
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
    this.share.close()
    for (const groupId of [...this.consumer.groups.keys()]) this.durable.forget(groupId)
    this.partitions.clear()
  }

  /** For tests and tools: the group's state, or undefined when unknown. */
  groupState(groupId: string): string | undefined {
    return this.groups.get(groupId)?.state
  }
}
