// What the group coordinator accepts, and the limits we chose where Kafka has none.
//
// Group ids (Kafka's GroupCoordinator.isValidGroupId): the APIs that only store or show offsets
// and groups — OffsetCommit, OffsetFetch, DescribeGroups, DeleteGroups — accept the empty id, for
// backwards compatibility and so that tools can see and delete such a group; every group-
// management API (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) and OffsetDelete refuse it with
// INVALID_GROUP_ID. Kafka sets no maximum length; we refuse ids longer than 255 UTF-16 units with
// INVALID_GROUP_ID on every API (a group id is written into every record key of
// `__consumer_offsets` and into logs, so an unbounded one is a memory and log-size lever).
//
// JoinGroup metadata (our limits; Kafka has none beyond the request size): more than 100
// protocols, or one protocol's metadata larger than 1 MiB, is refused with INVALID_REQUEST. Real
// consumers send 1–3 protocols (assignors) of a few hundred bytes; the leader receives every
// member's metadata in its JoinGroup response, so the cap bounds that response too.

export const MAX_GROUP_ID_LENGTH = 255
export const MAX_JOIN_PROTOCOLS = 100
export const MAX_PROTOCOL_METADATA_BYTES = 1 << 20

/** Kafka's GroupCoordinator.NewMemberJoinTimeoutMs: a member awaiting its first join is dropped after this. */
export const NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000

/** The APIs that allow the empty group id (Kafka's isValidGroupId). */
export type GroupIdUse = 'offsets' | 'admin' | 'membership'

/** null when valid, else why not (answered with INVALID_GROUP_ID). */
export function groupIdError(groupId: string | null | undefined, use: GroupIdUse): string | null {
  if (groupId === null || groupId === undefined) return 'the group id is null'
  if (groupId.length === 0 && use === 'membership') return 'the group id is empty'
  if (groupId.length > MAX_GROUP_ID_LENGTH) return `the group id is longer than ${MAX_GROUP_ID_LENGTH} characters`
  return null
}
