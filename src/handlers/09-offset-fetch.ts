// OffsetFetch v1–10. v8+ asks for several groups at once (groups[]); topics = null (v2+) means
// every committed offset of the group. A partition without a commit answers offset -1, leader
// epoch -1, metadata "". require_stable (v7+, KIP-447): a partition with a transactional commit
// still pending (TxnOffsetCommit before its transaction's marker) answers UNSTABLE_OFFSET_COMMIT
// on the partition, offset -1, as Kafka — the top-level (v2–7) and group (v8+) error codes stay
// NONE, and the consumer retries those partitions. v1 has no top-level error code, so a group-level
// error (INVALID_GROUP_ID, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR) is put on every
// requested partition, as Kafka answers v0–1. v9's member id/epoch are checked for KIP-848 groups
// only (STALE_MEMBER_EPOCH, UNKNOWN_MEMBER_ID as the group's error).
// v10 names topics by id: as Kafka's KafkaApis, an id no topic has answers UNKNOWN_TOPIC_ID on
// each of its partitions (offset -1), and every topic of the answer carries its id (the zero id
// for a committed topic that no longer exists).
import { ErrorCode } from '../protocol/errors.js'
import { OffsetFetchRequest, OffsetFetchResponse, type OffsetFetchRequestData } from '../protocol/messages/09-offset-fetch.js'
import { ZERO_UUID } from '../protocol/primitives/uuid.js'
import { canGroup, canTopic, Op } from './authorize.js'
import { defineHandler, type RequestContext } from './define.js'
import type { FetchedOffset, FetchOffsetsResult } from '../ports/groups.js'

type RequestedTopics = Array<{ name: string; partitionIndexes: number[] }> | null

export default defineHandler(OffsetFetchRequest, OffsetFetchResponse, { minVersion: 1, maxVersion: 10 }, (ctx, req) => {
  const members = new Map(
    ctx.apiVersion >= 9 ? req.groups.map((g) => [g.groupId, { memberId: g.memberId, memberEpoch: g.memberEpoch }]) : [],
  )
  // DESCRIBE on the group (else GROUP_AUTHORIZATION_FAILED), and on each topic: a named one the
  // caller may not describe answers TOPIC_AUTHORIZATION_FAILED, all topics leave it out.
  const fetch = (groupId: string, topics: RequestedTopics): FetchOffsetsResult => {
    if (!canGroup(ctx, Op.DESCRIBE, groupId)) return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code, topics: [] }
    const r = ctx.broker.groups.fetchOffsets(
      groupId,
      topics?.map((t) => ({ name: t.name, partitions: t.partitionIndexes })) ?? null,
      req.requireStable,
      members.get(groupId),
    )
    const denied = (t: { name: string }) => !canTopic(ctx, Op.DESCRIBE, t.name)
    if (!r.topics.some(denied)) return r
    if (topics === null) return { ...r, topics: r.topics.filter((t) => !denied(t)) }
    const code = ErrorCode.TOPIC_AUTHORIZATION_FAILED.code
    return {
      ...r,
      topics: r.topics.map((t) =>
        denied(t)
          ? {
              ...t,
              partitions: t.partitions.map((p) => ({ ...p, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: code })),
            }
          : t,
      ),
    }
  }

  if (ctx.apiVersion >= 10) return { throttleTimeMs: 0, groups: req.groups.map((g) => fetchByTopicId(ctx, g, fetch)) }
  if (ctx.apiVersion >= 8) {
    return {
      throttleTimeMs: 0,
      groups: req.groups.map((g) => {
        const r = fetch(g.groupId, g.topics)
        return { groupId: g.groupId, errorCode: r.errorCode, topics: r.topics }
      }),
    }
  }
  const r = fetch(req.groupId, req.topics)
  if (ctx.apiVersion < 2 && r.errorCode !== 0) {
    return {
      throttleTimeMs: 0,
      topics: (req.topics ?? []).map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((partitionIndex) => ({
          partitionIndex,
          committedOffset: -1,
          committedLeaderEpoch: -1,
          metadata: '',
          errorCode: r.errorCode,
        })),
      })),
    }
  }
  return { throttleTimeMs: 0, errorCode: r.errorCode, topics: r.topics }
})

type RequestGroup = OffsetFetchRequestData['groups'][number]

/** One group of a v10 request: ids resolved to names for the coordinator, and back for the answer. */
function fetchByTopicId(ctx: RequestContext, g: RequestGroup, fetch: (groupId: string, topics: RequestedTopics) => FetchOffsetsResult) {
  const { topics } = ctx.broker
  const idOf = (name: string) => topics.get(name)?.topicId ?? ZERO_UUID
  if (g.topics === null) {
    const r = fetch(g.groupId, null)
    return { groupId: g.groupId, errorCode: r.errorCode, topics: r.topics.map((t) => ({ ...t, topicId: idOf(t.name) })) }
  }
  const requested = g.topics.map((t) => ({ ...t, record: topics.getById(t.topicId) }))
  const known = requested.flatMap((t) => (t.record ? [{ name: t.record.name, partitionIndexes: t.partitionIndexes }] : []))
  const r = fetch(g.groupId, known)
  if (r.errorCode !== 0) return { groupId: g.groupId, errorCode: r.errorCode, topics: [] }
  const answered = new Map(r.topics.map((t) => [t.name, t.partitions]))
  const unknownId = (partitionIndex: number): FetchedOffset => ({
    partitionIndex,
    committedOffset: -1,
    committedLeaderEpoch: -1,
    metadata: '',
    errorCode: ErrorCode.UNKNOWN_TOPIC_ID.code,
  })
  return {
    groupId: g.groupId,
    errorCode: 0,
    topics: requested.map((t) => ({
      name: t.record?.name ?? '',
      topicId: t.topicId,
      partitions: t.record ? (answered.get(t.record.name) ?? []) : t.partitionIndexes.map(unknownId),
    })),
  }
}
