// The steps a plain commit (offsets.ts) and a transactional one (txn-offsets.ts) share, as Kafka's
// group coordinator takes them for both: the group the commit goes to, and which of its offsets
// may be written.
//
// An unknown group with generation -1 is created Empty (simple consumers, admin resets, a producer
// without its consumer's group metadata); with a generation it is refused — ILLEGAL_GENERATION, or
// GROUP_ID_NOT_FOUND from the version that declares it (OffsetCommit v9, TxnOffsetCommit v6).
// An offset whose metadata is longer than offset.metadata.max.bytes answers
// OFFSET_METADATA_TOO_LARGE for its partition; a null metadata is stored as "" (Kafka's
// NoMetadata). The rest are written with one call and answered once durable.
import type { OffsetToCommit } from '../../ports/groups.js'
import { ErrorCode, type ErrorName } from '../../protocol/errors.js'
import { ClassicGroup } from './group.js'
import type { CommittedOffset, OffsetEntry } from './persistence.js'
import type { CoordinatorEnv } from './rebalance.js'

export interface CommitTarget {
  groupId: string
  generationId: number
  apiVersion: number
}

/** The group to commit to (created Empty when missing and generation is -1), or the error. */
export function groupForCommit(env: CoordinatorEnv, p: CommitTarget, groupIdNotFoundSince: number): ClassicGroup | ErrorName {
  const existing = env.groups.get(p.groupId)
  if (existing) return existing
  if (p.generationId >= 0) return p.apiVersion >= groupIdNotFoundSince ? 'GROUP_ID_NOT_FOUND' : 'ILLEGAL_GENERATION'
  const group = new ClassicGroup(p.groupId, 'Empty', env.clock.now())
  env.groups.set(p.groupId, group)
  return group
}

export interface AcceptedOffset {
  /** The offset's index in the request (and in the answer's codes). */
  index: number
  entry: OffsetEntry & { value: CommittedOffset }
}

/**
 * The offsets that may be written, committed at `now` and expiring at `expireTimestampMs` (-1: by
 * offsets.retention.minutes); a refused one gets its code in `codes` (same indexes as `offsets`).
 */
export function acceptOffsets(
  offsets: readonly OffsetToCommit[],
  metadataMaxBytes: number,
  codes: number[],
  now: number,
  expireTimestampMs: number,
): AcceptedOffset[] {
  const accepted: AcceptedOffset[] = []
  offsets.forEach((o, index) => {
    const metadata = o.metadata ?? ''
    if (metadata.length > metadataMaxBytes) {
      codes[index] = ErrorCode.OFFSET_METADATA_TOO_LARGE.code
      return
    }
    const value = { offset: o.offset, leaderEpoch: o.leaderEpoch, metadata, commitTimestampMs: now, expireTimestampMs }
    accepted.push({ index, entry: { topic: o.topic, partition: o.partition, value } })
  })
  return accepted
}
