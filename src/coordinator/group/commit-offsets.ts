// The steps a plain commit (offsets.ts) and a transactional one (txn-offsets.ts) share, as Kafka's
// group coordinator takes them for both: the group the commit goes to, whether the committer may
// commit to it, and which of its offsets may be written.
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

/**
 * Kafka's ClassicGroup.validateOffsetCommit. A commit naming a generation, member or instance id
 * must come from the current member of that generation (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID,
 * ILLEGAL_GENERATION); generation -1 without them is accepted by an Empty group. A plain commit
 * is also refused without a member by a non-empty group (UNKNOWN_MEMBER_ID) and while the group
 * is CompletingRebalance (REBALANCE_IN_PROGRESS); a transactional one is not. A Dead group:
 * COORDINATOR_NOT_AVAILABLE.
 */
export function validateCommit(
  group: ClassicGroup,
  p: { generationId: number; memberId: string; groupInstanceId: string | null },
  transactional: boolean,
): ErrorName | null {
  if (group.is('Dead')) return 'COORDINATOR_NOT_AVAILABLE'
  if (p.generationId < 0 && group.is('Empty')) return null
  if (p.generationId >= 0 || p.memberId !== '' || p.groupInstanceId !== null) {
    const error = group.memberError(p.memberId, p.groupInstanceId)
    if (error) return error
    if (p.generationId !== group.generationId) return 'ILLEGAL_GENERATION'
  } else if (!transactional && !group.is('Empty')) {
    return 'UNKNOWN_MEMBER_ID'
  }
  if (!transactional && group.is('CompletingRebalance')) return 'REBALANCE_IN_PROGRESS'
  return null
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
