// The consumer-protocol groups of a coordinator made durable (KIP-848): every change of a group —
// a member joining or leaving, an epoch bump, a new target or current assignment, a session that
// timed out — is written to `__consumer_offsets` as Kafka's ConsumerGroup* records
// (GroupPersistence.storeConsumerGroupRecords; group-log.ts computes what changed), and a
// coordinator that takes a partition over rebuilds the groups from them (load), with their epochs
// and assignments and a fresh session timer per member: members still alive heartbeat on, those
// gone time out.
//
// Write, then answer (Kafka's coordinator runtime answers once the records are committed): a
// heartbeat is answered after its own records, and any written before them for the same group, are
// durable; one that changed nothing waits for the group's writes in flight. When a write fails the
// heartbeat is answered with the store's error (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, … as
// offsets-topic.ts maps them; the client looks the coordinator up again and retries), and the keys
// it carried are rewritten with the next change. Unlike Kafka, the change is not rolled back in
// memory: the member's previous epoch stays accepted (consumer-groups.ts), so the retry is not fenced.
//
// DeleteGroups (Kafka's ConsumerGroup.validateDeleteGroup): a group with members is NON_EMPTY_GROUP;
// an empty one is removed with tombstones of all its keys, its epoch key last.
import { KafkaError, type ErrorName, ErrorCode } from '../../../protocol/errors.js'
import type {
  ConsumerGroupHeartbeatRequestData,
  ConsumerGroupHeartbeatResponseData,
} from '../../../protocol/messages/68-consumer-group-heartbeat.js'
import type { Clock } from '../../../util/clock.js'
import type { Logger } from '../../../util/logger.js'
import type { GroupPersistence, GroupSnapshot } from '../persistence.js'
import { type ClientInfo, type ConsumerGroupConfig, ConsumerGroups, type TopicSource } from './consumer-groups.js'
import type { ClassicGroup } from '../group.js'
import type { JoinGroupParams, JoinGroupResult, LeaveGroupResult, LeavingMember, SyncGroupResult } from '../../../ports/groups.js'
import { ClassicMembers } from './classic-members.js'
import { ConsumerGroupLog, type ConsumerGroupReplay } from './group-log.js'
import { replayGroups } from './records.js'

export interface DurableConsumerGroupsOptions {
  clock: Clock
  logger: Logger
  persistence: Pick<GroupPersistence, 'storeConsumerGroupRecords'>
  topics: TopicSource
  config?: ConsumerGroupConfig
}

function errorNameOf(err: unknown): ErrorName {
  return err instanceof KafkaError ? err.errorName : 'UNKNOWN_SERVER_ERROR'
}

export class DurableConsumerGroups {
  readonly groups: ConsumerGroups
  /** Called when members left a group (a timeout, a LeaveGroup): the caller may downgrade it. */
  onMembersLeft: (groupId: string) => void = () => {}
  private readonly classic: ClassicMembers
  private readonly log = new ConsumerGroupLog()
  /** group id → its last write in flight (settles, never rejects). */
  private readonly inFlight = new Map<string, Promise<void>>()
  /**
   * group id → its epochs and size when last fully compared: while they stay, a heartbeat can
   * only have changed its own member, which is all that is compared then (not the whole group).
   */
  private readonly shapes = new Map<string, string>()

  constructor(private readonly opts: DurableConsumerGroupsOptions) {
    this.groups = new ConsumerGroups(opts.clock, opts.topics, opts.config)
    this.classic = new ClassicMembers(this.groups, opts.topics)
    this.groups.onTimeout = (groupId) => {
      this.flush(groupId).then((error) => {
        if (error !== null) opts.logger.warn('writing a consumer group after a member timed out failed', { group: groupId, error })
      })
      this.onMembersLeft(groupId)
    }
  }

  async heartbeat(
    req: ConsumerGroupHeartbeatRequestData,
    version: number,
    client: ClientInfo,
  ): Promise<ConsumerGroupHeartbeatResponseData> {
    const res = this.groups.heartbeat(req, version, client)
    // A join (epoch 0) may replace another member (a static member's new id): compare the whole group.
    const error = await this.flush(req.groupId, req.memberEpoch > 0 ? req.memberId : undefined)
    if (error === null) return res
    return {
      ...res,
      errorCode: ErrorCode[error].code,
      errorMessage: null,
      memberId: null,
      memberEpoch: 0,
      heartbeatIntervalMs: 0,
      assignment: null,
    }
  }

  /**
   * Writes what changed in the group since its last write; resolves once that and every earlier
   * write of the group are durable, with the error of its own write, or null.
   */
  flush(groupId: string, memberId?: string): Promise<ErrorName | null> {
    const g = this.groups.groups.get(groupId)
    const shape = g === undefined ? undefined : `${g.groupEpoch}:${g.targetAssignmentEpoch}:${g.members.size}`
    const partial = memberId !== undefined && shape !== undefined && this.shapes.get(groupId) === shape
    const only = partial ? new Set([memberId]) : undefined
    const records = this.log.recordsFor(groupId, this.groups.image(groupId), this.opts.clock.now(), only)
    if (shape === undefined) this.shapes.delete(groupId)
    else this.shapes.set(groupId, shape)
    const before = this.inFlight.get(groupId) ?? Promise.resolve()
    if (records.length === 0) return before.then(() => null)
    // Taken as written now, so the next change is computed on top of it; a failure undoes that.
    this.log.written(groupId, records)
    const own = this.opts.persistence.storeConsumerGroupRecords(groupId, records).then(
      () => null,
      (err: unknown) => {
        this.log.failed(groupId, records)
        this.shapes.delete(groupId) // the next write compares the whole group
        return errorNameOf(err)
      },
    )
    const done = Promise.all([before, own]).then(() => {
      if (this.inFlight.get(groupId) === done) this.inFlight.delete(groupId)
    })
    this.inFlight.set(groupId, done)
    return done.then(() => own)
  }

  /**
   * DeleteGroups on a consumer-protocol group: null when the id is not one (the classic path
   * decides), else the error ('NONE' once the tombstones are durable).
   */
  async deleteGroup(groupId: string): Promise<ErrorName | null> {
    const group = this.groups.groups.get(groupId)
    if (group === undefined) return null
    if (group.members.size > 0) return 'NON_EMPTY_GROUP'
    this.groups.forget(groupId)
    return (await this.flush(groupId)) ?? 'NONE'
  }

  // ---- classic members of consumer groups (classic-members.ts) ----

  /** The consumer group of that id when it has members (classic requests go to it), else undefined. */
  private live(groupId: string) {
    const g = this.groups.groups.get(groupId)
    return g !== undefined && g.members.size > 0 ? g : undefined
  }

  /**
   * A classic group whose members all speak the consumer protocol becomes a consumer group (the
   * caller has answered its held requests and retires it); its records are written with the
   * next flush.
   */
  upgrade(classic: ClassicGroup): void {
    this.classic.fromClassic(classic)
  }

  /**
   * The classic group the members become once none uses the consumer protocol (null: not so);
   * the consumer group leaves memory and its tombstones are written (in the background).
   */
  downgrade(groupId: string): GroupSnapshot | null {
    const group = this.groups.groups.get(groupId)
    const snapshot = group === undefined ? null : this.classic.downgradeSnapshot(group, this.opts.clock.now())
    if (snapshot === null) return null
    this.groups.forget(groupId)
    this.flush(groupId).then((error) => {
      if (error !== null) this.opts.logger.warn('tombstoning a downgraded consumer group failed', { group: groupId, error })
    })
    return snapshot
  }

  /** JoinGroup on a consumer group with members; undefined when the id is not one. */
  async classicJoin(params: JoinGroupParams): Promise<JoinGroupResult | undefined> {
    const group = this.live(params.groupId)
    if (group === undefined) return undefined
    const { replaced, ...res } = this.classic.join(group, params)
    const error = await this.flush(params.groupId)
    // A static classic member took the place of the last consumer-protocol member: the group downgrades.
    if (replaced) this.onMembersLeft(params.groupId)
    return error === null ? res : { ...res, errorCode: ErrorCode[error].code }
  }

  async classicSync(groupId: string, memberId: string, generationId: number): Promise<SyncGroupResult | undefined> {
    const group = this.live(groupId)
    if (group === undefined) return undefined
    const res = this.classic.sync(group, memberId, generationId)
    const error = await this.flush(groupId)
    return error === null ? res : { ...res, errorCode: ErrorCode[error].code, assignment: Buffer.alloc(0) }
  }

  classicHeartbeat(groupId: string, memberId: string, generationId: number): number | undefined {
    const group = this.live(groupId)
    return group === undefined ? undefined : this.classic.heartbeat(group, memberId, generationId)
  }

  /** LeaveGroup on a consumer group; the records are written in the background. */
  classicLeave(groupId: string, members: LeavingMember[]): LeaveGroupResult | undefined {
    const group = this.live(groupId)
    if (group === undefined) return undefined
    const res = this.classic.leave(group, members)
    this.flush(groupId).then((error) => {
      if (error !== null) this.opts.logger.warn('writing a consumer group after a LeaveGroup failed', { group: groupId, error })
    })
    this.onMembersLeft(groupId)
    return res
  }

  /** Installs the groups a partition's load replayed (records gathered by ConsumerGroupReplay). */
  install(replay: ConsumerGroupReplay): number {
    let count = 0
    for (const [groupId, live] of replay.groups) {
      this.log.seed(groupId, live.values())
      try {
        const image = replayGroups(live.values()).get(groupId)
        if (image === undefined) continue
        this.groups.restore(image)
        count++
      } catch (err) {
        // A value that does not decode: the group is not served rather than the partition.
        this.opts.logger.error('a consumer group could not be rebuilt from its records', { group: groupId, err })
      }
    }
    return count
  }

  /** Drops the group from memory (its partition left this coordinator); nothing is written. */
  forget(groupId: string): void {
    this.groups.forget(groupId)
    this.log.forget(groupId)
    this.inFlight.delete(groupId)
    this.shapes.delete(groupId)
  }
}
