// Committed offsets: OffsetCommit, OffsetFetch, OffsetDelete, DeleteGroups and the retention
// sweep, as Kafka's GroupCoordinator / GroupMetadataManager answer them.
//
// OffsetCommit (Kafka's validateOffsetCommit; the checks shared with TxnOffsetCommit in commit-offsets.ts):
// - generation -1 into an Empty group: accepted from anyone (simple consumers, admin resets to
//   earliest/latest/a timestamp/an offset); a group that does not exist is created Empty;
// - otherwise the member must be current: UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID,
//   ILLEGAL_GENERATION; REBALANCE_IN_PROGRESS while CompletingRebalance (allowed during
//   PreparingRebalance: the member learns of the rebalance from its heartbeat);
// - an unknown group with generation ≥ 0: ILLEGAL_GENERATION before v9, GROUP_ID_NOT_FOUND from v9;
// - metadata longer than offset.metadata.max.bytes: OFFSET_METADATA_TOO_LARGE for that partition;
//   a null metadata is stored as "" (Kafka's NoMetadata);
// - the accepted offsets are written with one storeOffsets call and answered once durable; a
//   failed write answers its code (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, …) per partition.
// OffsetFetch: a partition without a commit answers offset -1, leader epoch -1, metadata "";
//   topics = null lists every committed offset. With require_stable (OffsetFetch v7+, KIP-447) a
//   partition with a pending transactional offset (txn-offsets.ts) answers UNSTABLE_OFFSET_COMMIT
//   (offset -1) on the partition, as Kafka; the group's error stays NONE. Without it, the
//   committed offset is answered as if the transaction did not exist.
// OffsetDelete: GROUP_ID_NOT_FOUND; an Empty group's offsets may all go; a non-empty consumer
//   group's only for topics no member subscribes to (else GROUP_SUBSCRIBED_TO_TOPIC); any other
//   non-empty group: NON_EMPTY_GROUP. A partition with only pending transactional offsets gets a
//   tombstone too, which drops them from their transactions (Kafka's deleteOffsets).
// DeleteGroups: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP unless Empty; tombstones for every offset,
//   committed or pending in a transaction, and for the group.
// Retention (KIP-211): every offsets.retention.check.interval.ms, offsets matching the group's
//   expiration condition (offset-table.ts) get tombstones — except those of a partition with a
//   pending transactional offset; an Empty group left without offsets (or members, or pending
//   ids, or open transactions) becomes Dead and its group record gets a tombstone too.
import type { CommitOffsetsParams, DeleteOffsetsResult, FetchOffsetsResult, TopicPartitions } from '../../ports/groups.js'
import { ErrorCode, type ErrorName, toErrorCode } from '../../protocol/errors.js'
import { type ClassicGroup, CONSUMER_PROTOCOL_TYPE } from './group.js'
import { offsetKey, recordOffsetAt } from './offset-table.js'
import { dropPending } from './txn-offsets.js'
import { acceptOffsets, groupForCommit, validateCommit } from './commit-offsets.js'
import type { CommittedOffset, OffsetEntry } from './persistence.js'
import type { CoordinatorEnv, Rebalancer } from './rebalance.js'

const code = (name: ErrorName): number => ErrorCode[name].code

export class Offsets {
  constructor(
    private readonly env: CoordinatorEnv,
    private readonly rb: Rebalancer,
  ) {}

  async commit(p: CommitOffsetsParams): Promise<number[]> {
    const { clock, config, persistence } = this.env
    const all = (c: number) => p.offsets.map(() => c)
    const group = groupForCommit(this.env, p, 9)
    if (typeof group === 'string') return all(code(group))
    const error = validateCommit(group, p, false)
    if (error) return all(code(error))
    const member = group.get(p.memberId)
    if (member && (group.is('Stable') || group.is('PreparingRebalance'))) this.rb.touch(group, member)

    const codes = all(0)
    const now = clock.now()
    // OffsetCommit v2–4 may set a retention; -1 = the broker's (KIP-211).
    const expireTimestampMs = p.retentionTimeMs === -1 ? -1 : now + p.retentionTimeMs
    const accepted = acceptOffsets(p.offsets, config.offsetMetadataMaxBytes, codes, now, expireTimestampMs)
    if (accepted.length === 0) return codes
    const g = group
    const entries = accepted.map((a) => a.entry)
    const err = await g.writes.run(
      () => persistence.storeOffsets(p.groupId, entries),
      (e, baseOffset) => {
        if (e) return
        entries.forEach((x, i) => {
          g.offsets.set(x.topic, x.partition, { ...x.value, recordOffset: recordOffsetAt(baseOffset, i) })
        })
      },
      entries.map((x) => offsetKey(x.topic, x.partition)),
    )
    if (err) {
      this.env.logger.warn('offset commit failed', { group: p.groupId, err })
      for (const a of accepted) codes[a.index] = toErrorCode(err)
    }
    return codes
  }

  fetch(groupId: string, topics: TopicPartitions[] | null, requireStable: boolean): FetchOffsetsResult {
    const group = this.env.groups.get(groupId)
    const row = (topic: string, partitionIndex: number, v: CommittedOffset | undefined) => {
      const unstable = requireStable && group?.hasPendingTxnOffset(topic, partitionIndex) === true
      return {
        partitionIndex,
        committedOffset: v && !unstable ? v.offset : -1,
        committedLeaderEpoch: v && !unstable ? v.leaderEpoch : -1,
        metadata: unstable ? '' : (v?.metadata ?? ''),
        errorCode: unstable ? code('UNSTABLE_OFFSET_COMMIT') : 0,
      }
    }
    if (topics === null) {
      if (!group) return { errorCode: 0, topics: [] }
      return {
        errorCode: 0,
        topics: group.offsets
          .topics()
          .sort()
          .map((name) => ({ name, partitions: group.offsets.partitions(name).map(([i, v]) => row(name, i, v)) })),
      }
    }
    return {
      errorCode: 0,
      topics: topics.map((t) => ({ name: t.name, partitions: t.partitions.map((i) => row(t.name, i, group?.offsets.get(t.name, i))) })),
    }
  }

  /**
   * OffsetDelete. `consumerSubscribed`: the topics a consumer-protocol group of this id subscribes
   * to (its offsets are kept here by a carrier group, which may not exist when it has none).
   */
  async deleteOffsets(groupId: string, topics: TopicPartitions[], consumerSubscribed?: ReadonlySet<string>): Promise<DeleteOffsetsResult> {
    const group = this.env.groups.get(groupId)
    const failed = (name: ErrorName): DeleteOffsetsResult => ({ errorCode: code(name), topics: [] })
    if (consumerSubscribed === undefined && (!group || group.is('Dead'))) return failed('GROUP_ID_NOT_FOUND')
    const nonEmpty = group !== undefined && !group.is('Empty')
    if (consumerSubscribed === undefined && nonEmpty && group?.protocolType !== CONSUMER_PROTOCOL_TYPE) return failed('NON_EMPTY_GROUP')
    const tombstones: OffsetEntry[] = []
    const result = topics.map((t) => {
      const subscribed = consumerSubscribed !== undefined ? consumerSubscribed.has(t.name) : nonEmpty && group!.isSubscribedToTopic(t.name)
      return {
        name: t.name,
        partitions: t.partitions.map((partitionIndex) => {
          if (subscribed) return { partitionIndex, errorCode: code('GROUP_SUBSCRIBED_TO_TOPIC') }
          if (group && (group.offsets.get(t.name, partitionIndex) || group.hasPendingTxnOffset(t.name, partitionIndex))) {
            tombstones.push({ topic: t.name, partition: partitionIndex, value: null })
          }
          return { partitionIndex, errorCode: 0 }
        }),
      }
    })
    if (group && tombstones.length > 0) {
      const err = await this.writeTombstones(group, tombstones)
      if (err) return { errorCode: toErrorCode(err), topics: [] }
    }
    return { errorCode: 0, topics: result }
  }

  /**
   * Writes tombstones and, once durable, removes those offsets. Resolves with the error, or null.
   * Until then the partitions count as in flight, so a retention sweep leaves them alone.
   */
  private writeTombstones(group: ClassicGroup, tombstones: OffsetEntry[]): Promise<unknown> {
    return group.writes.run(
      () => this.env.persistence.storeOffsets(group.groupId, tombstones),
      (err) => {
        if (err) {
          this.env.logger.warn('failed to delete offsets', { group: group.groupId, err })
          return
        }
        for (const t of tombstones) {
          group.offsets.delete(t.topic, t.partition)
          dropPending(group.pendingTxn, t.topic, t.partition)
        }
      },
      tombstones.map((t) => offsetKey(t.topic, t.partition)),
    )
  }

  async deleteGroup(groupId: string): Promise<number> {
    const { groups, persistence } = this.env
    const group = groups.get(groupId)
    if (!group || group.is('Dead')) return code('GROUP_ID_NOT_FOUND')
    if (!group.is('Empty')) return code('NON_EMPTY_GROUP')
    // Kafka's deleteAllOffsets: the committed offsets, and the partitions only pending in a transaction.
    const tombstones: OffsetEntry[] = []
    const listed = new Set<string>()
    for (const table of [group.offsets, ...group.pendingTxn.values()]) {
      for (const e of table.entries()) {
        const key = offsetKey(e.topic, e.partition)
        if (listed.has(key)) continue
        listed.add(key)
        tombstones.push({ topic: e.topic, partition: e.partition, value: null })
      }
    }
    this.killEmptyGroup(group)
    // Both writes are issued now, so they land after anything this group wrote before.
    const writes: Promise<unknown>[] = []
    if (tombstones.length > 0) writes.push(persistence.storeOffsets(groupId, tombstones))
    writes.push(persistence.storeGroup(groupId, null))
    try {
      await Promise.all(writes)
      return 0
    } catch (err) {
      this.env.logger.warn('failed to delete group', { group: groupId, err })
      return toErrorCode(err)
    }
  }

  /** An Empty group goes Dead and is forgotten (its pending ids and transactional offsets with it). */
  private killEmptyGroup(group: ClassicGroup): void {
    this.rb.shutDownGroup(group, code('COORDINATOR_NOT_AVAILABLE'))
    group.offsets.clear()
    group.pendingTxn.clear()
    group.transitionTo('Dead', this.env.clock.now())
    if (this.env.groups.get(group.groupId) === group) this.env.groups.delete(group.groupId)
  }

  /** One retention sweep (KIP-211); returns how many offsets were expired. */
  async expire(): Promise<number> {
    const { groups, clock, config } = this.env
    const now = clock.now()
    let expired = 0
    const writes: Promise<unknown>[] = []
    for (const group of [...groups.values()]) {
      const base = this.expirationBase(group)
      const tombstones: OffsetEntry[] = []
      if (base) {
        for (const { topic, partition, value } of group.offsets.entries()) {
          if (group.writes.isInFlight(offsetKey(topic, partition))) continue
          // Kafka's cleanupExpiredOffsets: not while a transaction may still replace it.
          if (group.hasPendingTxnOffset(topic, partition)) continue
          const at = base(topic, value)
          if (at === null) continue
          const due = value.expireTimestampMs !== -1 ? now >= value.expireTimestampMs : now - at >= config.offsetsRetentionMs
          if (due) tombstones.push({ topic, partition, value: null })
        }
      }
      if (tombstones.length === 0) {
        this.maybeDropEmptyGroup(group)
        continue
      }
      expired += tombstones.length
      this.env.logger.info('expiring committed offsets', { group: group.groupId, count: tombstones.length })
      writes.push(this.writeTombstones(group, tombstones).then(() => this.maybeDropEmptyGroup(group)))
    }
    await Promise.all(writes)
    return expired
  }

  /**
   * Kafka's offsetExpirationCondition: the timestamp an offset's retention counts from, or null
   * when it does not expire; no function when nothing in the group expires.
   */
  private expirationBase(group: ClassicGroup): ((topic: string, v: CommittedOffset) => number | null) | null {
    if (group.protocolType === null) return (_t, v) => v.commitTimestampMs
    if (group.is('Empty')) return (_t, v) => group.currentStateTimestampMs ?? v.commitTimestampMs
    if (group.usesConsumerProtocol && group.subscribedTopics !== null && group.is('Stable')) {
      const subscribed = group.subscribedTopics
      return (t, v) => (subscribed.has(t) ? null : v.commitTimestampMs)
    }
    return null
  }

  private maybeDropEmptyGroup(group: ClassicGroup): void {
    const idle =
      group.is('Empty') &&
      group.size === 0 &&
      group.pendingMembers.size === 0 &&
      group.offsets.isEmpty &&
      !group.hasOpenTransactions &&
      !group.writes.pending &&
      this.env.groups.get(group.groupId) === group
    if (!idle) return
    this.env.logger.info('removing empty group without offsets', { group: group.groupId })
    this.killEmptyGroup(group)
    this.env.persistence.storeGroup(group.groupId, null).catch((err: unknown) => {
      this.env.logger.warn('failed to write the group tombstone', { group: group.groupId, err })
    })
  }
}
