// The share-group side of the group coordinator (group-coordinator.ts delegates here): one group
// coordinator serves classic, consumer-protocol and share groups, and a group id belongs to one
// type. This file holds what the coordinator's share APIs share — the coordinator's own checks
// (group id, ownership of the `__consumer_offsets` partition), the type clash with classic and
// consumer groups, the records' writes and replay, and the groups of ListGroups and DeleteGroups.
//
// Type clashes (Kafka's GroupMetadataManager: "Group … is not a share group." /
// "… is not a consumer group." / "… is not a classic group.", all GROUP_ID_NOT_FOUND):
// ShareGroupHeartbeat and the offsets admin APIs on a classic group with members or offsets, or on
// a consumer-protocol group, are refused; JoinGroup and ConsumerGroupHeartbeat on a share group
// id are refused by the coordinator with isShareGroup().
import type { ListedGroup } from '../../../ports/groups.js'
import type { ShareStatePersister } from '../../../ports/shares.js'
import { ErrorCode, type ErrorName } from '../../../protocol/errors.js'
import type {
  AlterShareGroupOffsetsRequestData,
  AlterShareGroupOffsetsResponseData,
} from '../../../protocol/messages/91-alter-share-group-offsets.js'
import type {
  DeleteShareGroupOffsetsRequestData,
  DeleteShareGroupOffsetsResponseData,
} from '../../../protocol/messages/92-delete-share-group-offsets.js'
import type {
  DescribeShareGroupOffsetsRequestData,
  DescribeShareGroupOffsetsResponseData,
} from '../../../protocol/messages/90-describe-share-group-offsets.js'
import type { ShareGroupDescribeResponseData } from '../../../protocol/messages/77-share-group-describe.js'
import type {
  ShareGroupHeartbeatRequestData,
  ShareGroupHeartbeatResponseData,
} from '../../../protocol/messages/76-share-group-heartbeat.js'
import type { Clock } from '../../../util/clock.js'
import type { Logger } from '../../../util/logger.js'
import type { ClientInfo, TopicSource } from '../consumer/consumer-groups.js'
import type { GroupIdUse } from '../limits.js'
import type { GroupPersistence } from '../persistence.js'
import { groupLevelRecords, type ShareGroupRecord, ShareGroupReplay } from './records.js'
import {
  DEFAULT_SHARE_GROUP_CONFIG,
  type ShareGroup,
  type ShareGroupConfig,
  ShareGroups,
  type ShareGroupTimeouts,
  shareHeartbeatRequestError,
} from './share-groups.js'
import {
  alterShareGroupOffsets,
  deleteShareGroupOffsets,
  deleteShareGroupState,
  describeShareGroupOffsets,
  type HighWatermarkSource,
  type ShareOffsetsEnv,
} from './share-offsets.js'

/** The group coordinator's options for share groups. */
export interface ShareGroupOptions {
  /** group.share.* of the broker (Kafka's defaults when absent). */
  config?: ShareGroupConfig
  /** A share group's own share.session.timeout.ms / share.heartbeat.interval.ms (its group configs). */
  timeouts?: ShareGroupTimeouts
  /** A partition's high watermark when known here (DescribeShareGroupOffsets v1's lag). */
  highWatermark?: HighWatermarkSource
}

export interface ShareCoordinationOptions extends ShareGroupOptions {
  clock: Clock
  logger: Logger
  topics: TopicSource
  persistence: GroupPersistence
  persister?: ShareStatePersister
  /** The coordinator's checks of the group id and of ownership; null when served here. */
  refuse: (groupId: string, use: GroupIdUse) => ErrorName | null
  /** The type of a group of another type that holds the id, or null. */
  otherType: (groupId: string) => 'classic' | 'consumer' | null
}

const code = (name: ErrorName): number => ErrorCode[name].code

export class ShareCoordination {
  readonly shares: ShareGroups
  private readonly env: ShareOffsetsEnv

  constructor(private readonly opts: ShareCoordinationOptions) {
    this.shares = new ShareGroups(
      opts.clock,
      opts.topics,
      (groupId, records) => this.store(groupId, records),
      opts.config ?? DEFAULT_SHARE_GROUP_CONFIG,
      opts.timeouts,
      (err) => opts.logger.warn('writing a share group change failed', { err }),
    )
    this.env = {
      shares: this.shares,
      topics: opts.topics,
      persister: opts.persister,
      highWatermark: opts.highWatermark ?? (() => null),
      refuse: (groupId) => {
        const error = opts.refuse(groupId, 'membership')
        if (error) return { error, message: null }
        return this.clash(groupId)
      },
    }
  }

  private store(groupId: string, records: ShareGroupRecord[]): Promise<void> {
    return this.opts.persistence.storeShareGroupRecords?.(groupId, records) ?? Promise.resolve()
  }

  private clash(groupId: string): { error: ErrorName; message: string } | null {
    return this.opts.otherType(groupId) === null ? null : { error: 'GROUP_ID_NOT_FOUND', message: `Group ${groupId} is not a share group.` }
  }

  isShareGroup(groupId: string): boolean {
    return this.shares.groups.has(groupId)
  }

  heartbeat(req: ShareGroupHeartbeatRequestData, client: ClientInfo): Promise<ShareGroupHeartbeatResponseData> {
    const fail = (name: ErrorName, message: string | null): ShareGroupHeartbeatResponseData => ({
      throttleTimeMs: 0,
      errorCode: code(name),
      errorMessage: message,
      memberId: null,
      memberEpoch: 0,
      heartbeatIntervalMs: 0,
      assignment: null,
    })
    // Kafka validates the request before anything else (an empty group id is INVALID_REQUEST here).
    const invalid = shareHeartbeatRequestError(req)
    if (invalid !== null) return Promise.resolve(fail('INVALID_REQUEST', invalid))
    const error = this.opts.refuse(req.groupId, 'membership')
    if (error) return Promise.resolve(fail(error, null))
    const clash = this.clash(req.groupId)
    if (clash) return Promise.resolve(fail(clash.error, clash.message))
    return this.shares.heartbeat(req, client)
  }

  describe(groupIds: string[]): ShareGroupDescribeResponseData['groups'] {
    return groupIds.map((groupId) => {
      const described = this.shares.describe(groupId)
      const error = this.opts.refuse(groupId, 'admin')
      if (error) return { ...described, errorCode: code(error), errorMessage: null, groupState: '', members: [] }
      const clash = this.clash(groupId)
      if (clash && !this.shares.groups.has(groupId)) return { ...described, errorMessage: clash.message }
      return described
    })
  }

  describeOffsets(groups: DescribeShareGroupOffsetsRequestData['groups']): Promise<DescribeShareGroupOffsetsResponseData['groups']> {
    return describeShareGroupOffsets(this.env, groups)
  }

  alterOffsets(req: AlterShareGroupOffsetsRequestData): Promise<AlterShareGroupOffsetsResponseData> {
    return alterShareGroupOffsets(this.env, req, (g) => this.storeGroupLevel(g))
  }

  deleteOffsets(req: DeleteShareGroupOffsetsRequestData): Promise<DeleteShareGroupOffsetsResponseData> {
    return deleteShareGroupOffsets(this.env, req, (g) => this.storeGroupLevel(g))
  }

  private storeGroupLevel(group: ShareGroup): Promise<void> {
    return this.store(group.groupId, groupLevelRecords(this.shares.image(group.groupId)!, this.opts.clock.now()))
  }

  /** DeleteGroups of a share group (the caller checked the id and ownership): 0 or an error code. */
  async deleteGroup(groupId: string): Promise<number> {
    const group = this.shares.groups.get(groupId)
    if (group === undefined) return code('GROUP_ID_NOT_FOUND')
    const result = await deleteShareGroupState(this.env, group)
    if (result !== 0) return result
    if (this.shares.groups.get(groupId) !== group || group.members.size > 0) return code('NON_EMPTY_GROUP')
    const tombstones = this.shares.delete(groupId)
    try {
      await this.store(groupId, tombstones)
    } catch (err) {
      const name = (err as { errorName?: ErrorName }).errorName
      return name !== undefined && name in ErrorCode ? code(name) : code('UNKNOWN_SERVER_ERROR')
    }
    return 0
  }

  /** ListGroups' share groups of the partitions owned (filters lower-cased; empty matches all). */
  listed(states: ReadonlySet<string>, types: ReadonlySet<string>, owned: (groupId: string) => boolean): ListedGroup[] {
    if (types.size > 0 && !types.has('share')) return []
    const out: ListedGroup[] = []
    for (const g of this.shares.groups.values()) {
      if (!owned(g.groupId)) continue
      if (states.size > 0 && !states.has(g.state.toLowerCase())) continue
      out.push({ groupId: g.groupId, protocolType: 'share', groupState: g.state, groupType: 'share' })
    }
    return out
  }

  /** A replay for one partition's load; install() puts what it rebuilt in memory. */
  replay(): ShareGroupReplay {
    return new ShareGroupReplay()
  }

  install(replay: ShareGroupReplay): number {
    const images = replay.images()
    for (const image of images.values()) this.shares.restore(image)
    return images.size
  }

  forgetPartition(partition: number): void {
    for (const groupId of [...this.shares.groups.keys()]) {
      if (this.opts.persistence.partitionFor(groupId) === partition) this.shares.forget(groupId)
    }
  }

  close(): void {
    for (const groupId of [...this.shares.groups.keys()]) this.shares.forget(groupId)
  }
}
