// Transactional offset commits (TxnOffsetCommit, KIP-98 / KIP-447), as Kafka's group coordinator
// keeps them (OffsetMetadataManager: pendingTransactionalOffsets, openTransactionsByGroup).
//
// A TxnOffsetCommit's offsets are written to the group's `__consumer_offsets` partition as one
// transactional batch of the producer (GroupPersistence.storeTxnOffsets) and, once durable, kept
// pending per (group, producer id) — invisible to OffsetFetch, which answers such partitions
// UNSTABLE_OFFSET_COMMIT when asked with require_stable (while the write is in flight too). The
// transaction's marker, written by the transaction coordinator to the same partition, then ends
// them all for that producer in that partition (complete): COMMIT moves each to the committed
// offsets — unless a committed offset written later in the log is already there (record offsets
// compare, as Kafka's replayEndTransactionMarker: a plain OffsetCommit after the transactional
// one, before the marker, wins) — ABORT drops them. A load replays the same rules (Replay in
// group-coordinator.ts), so memory is always what a restart would rebuild.
//
// Validation (commit-offsets.ts: Kafka's validateTransactionalOffsetCommit and ClassicGroup.validateOffsetCommit with
// isTransactional): an unknown group with generation -1 is created empty (a producer that does
// not pass its consumer's group metadata, v0–2 always); an unknown group with a generation:
// ILLEGAL_GENERATION (GROUP_ID_NOT_FOUND from v6, as TxnOffsetCommit v6 declares); a Dead group:
// COORDINATOR_NOT_AVAILABLE; when v3+ passes a generation, member id or instance id the member
// must be current (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION) — but, unlike a plain
// commit, without them a non-empty group accepts the commit, and CompletingRebalance does not
// refuse it. Metadata above offset.metadata.max.bytes: OFFSET_METADATA_TOO_LARGE for the partition.
//
// What removes pending offsets besides a marker (Kafka's rules): an offset tombstone of the
// partition (OffsetDelete, DeleteGroups — which writes tombstones for pending partitions too)
// drops it from every open transaction of the group; deleting the group drops its pending offsets
// altogether (a load drops them at the group's tombstone). Retention never expires an offset of a
// partition with a pending transactional offset, nor removes a group with an open transaction:
// a producer stays open on a group until its marker, even once tombstones emptied its offsets.
import type { TxnOffsetCommitParams } from '../../ports/groups.js'
import { ErrorCode, type ErrorName, toErrorCode } from '../../protocol/errors.js'
import { acceptOffsets, groupForCommit, validateCommit } from './commit-offsets.js'
import type { ClassicGroup } from './group.js'
import { OffsetTable, recordOffsetAt, txnOffsetKey } from './offset-table.js'
import type { CommittedOffset, OffsetEntry } from './persistence.js'
import type { CoordinatorEnv } from './rebalance.js'

const code = (name: ErrorName): number => ErrorCode[name].code

/**
 * A marker committed the pending offsets: each replaces the committed one unless that was
 * written later (a larger record offset).
 */
export function materialize(committed: OffsetTable, pending: OffsetTable): void {
  for (const { topic, partition, value } of pending.entries()) {
    const existing = committed.get(topic, partition)
    if (!existing || (value.recordOffset ?? -1) > (existing.recordOffset ?? -1)) committed.set(topic, partition, value)
  }
}

/** An offset tombstone: the partition leaves every open transaction's pending offsets. */
export function dropPending(pendingTxn: Map<number, OffsetTable>, topic: string, partition: number): void {
  for (const table of pendingTxn.values()) table.delete(topic, partition)
}

export class TxnOffsets {
  /**
   * Producer id → the groups it may have pending offsets in (at least those; a group is added
   * when a write is issued and leaves at the producer's marker or when it leaves memory).
   */
  private readonly byProducer = new Map<number, Set<string>>()

  constructor(private readonly env: CoordinatorEnv) {}

  /** After the coordinator's own checks (group id, ownership) and the transaction verification. */
  async commit(p: TxnOffsetCommitParams): Promise<number[]> {
    const { groups, clock, config, persistence } = this.env
    const all = (c: number) => p.offsets.map(() => c)
    const group = groupForCommit(this.env, p, 6)
    if (typeof group === 'string') return all(code(group))
    const error = validateCommit(group, p, true)
    if (error) return all(code(error))

    const codes = all(0)
    const now = clock.now()
    const accepted = acceptOffsets(p.offsets, config.offsetMetadataMaxBytes, codes, now, -1)
    if (accepted.length === 0) return codes
    const g = group
    const entries = accepted.map((a) => a.entry)
    this.track(p.producerId, p.groupId)
    const producer = { producerId: p.producerId, producerEpoch: p.producerEpoch }
    const err = await g.writes.run(
      () => persistence.storeTxnOffsets(p.groupId, producer, entries),
      (e, baseOffset) => {
        // A group deleted (or unloaded) meanwhile keeps nothing: a load drops its pending offsets too.
        if (!e && groups.get(p.groupId) === g) addPending(g, p.producerId, entries, baseOffset)
      },
      entries.map((x) => txnOffsetKey(x.topic, x.partition)),
    )
    if (err) {
      this.env.logger.warn('transactional offset commit failed', { group: p.groupId, producerId: p.producerId, err })
      for (const a of accepted) codes[a.index] = toErrorCode(err)
    }
    return codes
  }

  /**
   * The producer's marker is in `offsetsPartition`: its pending offsets in that partition's groups
   * are committed or dropped. A group with writes still in flight gets the outcome after them, in
   * issue order, so a transactional write issued before the marker is ended by it.
   */
  complete(offsetsPartition: number, producerId: number, commit: boolean): void {
    const groupIds = this.byProducer.get(producerId)
    if (!groupIds) return
    for (const groupId of [...groupIds]) {
      if (this.env.persistence.partitionFor(groupId) !== offsetsPartition) continue
      groupIds.delete(groupId)
      const group = this.env.groups.get(groupId)
      if (!group) continue
      const end = () => endTransaction(group, producerId, commit)
      if (group.writes.pending) void group.writes.run(() => Promise.resolve(), end)
      else end()
    }
    if (groupIds.size === 0) this.byProducer.delete(producerId)
  }

  /** A loaded group's open transactions. */
  adopt(group: ClassicGroup): void {
    for (const producerId of group.pendingTxn.keys()) this.track(producerId, group.groupId)
  }

  /** The group left memory (its partition was unloaded). */
  forget(groupId: string): void {
    for (const [producerId, groupIds] of this.byProducer) {
      if (groupIds.delete(groupId) && groupIds.size === 0) this.byProducer.delete(producerId)
    }
  }

  private track(producerId: number, groupId: string): void {
    let set = this.byProducer.get(producerId)
    if (!set) this.byProducer.set(producerId, (set = new Set()))
    set.add(groupId)
  }
}

function addPending(
  group: ClassicGroup,
  producerId: number,
  entries: Array<OffsetEntry & { value: CommittedOffset }>,
  baseOffset: number | undefined,
): void {
  let table = group.pendingTxn.get(producerId)
  if (!table) group.pendingTxn.set(producerId, (table = new OffsetTable()))
  entries.forEach((e, i) => {
    table.set(e.topic, e.partition, { ...e.value, recordOffset: recordOffsetAt(baseOffset, i) })
  })
}

function endTransaction(group: ClassicGroup, producerId: number, commit: boolean): void {
  const pending = group.pendingTxn.get(producerId)
  if (!pending) return
  group.pendingTxn.delete(producerId)
  if (commit) materialize(group.offsets, pending)
}
