// OffsetCommit v2–10. Partitions of unknown topics (or beyond a topic's partition count) are
// answered UNKNOWN_TOPIC_OR_PARTITION here (offsets-to-commit.ts), as Kafka's KafkaApis does before the coordinator sees
// the request; the rest go to the group coordinator in one commit, answered once durable. v10
// names topics by id: an id no topic has (the zero id included) answers UNKNOWN_TOPIC_ID for all
// its partitions, as KafkaApis does; the answer carries the ids back.
// generation -1 with an empty member id commits for a group without members (simple consumers,
// admin offset resets); v2–4 retention_time_ms is honoured (-1 = offsets.retention.minutes).
// Errors per partition: UNKNOWN_TOPIC_OR_PARTITION, OFFSET_METADATA_TOO_LARGE, INVALID_GROUP_ID,
// ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, REBALANCE_IN_PROGRESS,
// UNKNOWN_TOPIC_ID (v10), GROUP_ID_NOT_FOUND (v9+, unknown group), COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR,
// COORDINATOR_NOT_AVAILABLE.
import { OffsetCommitRequest, OffsetCommitResponse } from '../protocol/messages/08-offset-commit.js'
import { resolveOffsetsToCommit } from './offsets-to-commit.js'
import { canGroup, canTopic, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(OffsetCommitRequest, OffsetCommitResponse, { minVersion: 2, maxVersion: 10 }, async (ctx, req) => {
  const { topics, groups } = ctx.broker
  const byId = ctx.apiVersion >= 10
  // READ on the group (else GROUP_AUTHORIZATION_FAILED everywhere) and on each topic.
  const groupAllowed = canGroup(ctx, Op.READ, req.groupId)
  const { results, offsets, slots } = resolveOffsetsToCommit(topics, req.topics, byId, (topic) =>
    !groupAllowed
      ? ErrorCode.GROUP_AUTHORIZATION_FAILED.code
      : canTopic(ctx, Op.READ, topic)
        ? 0
        : ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
  )
  if (offsets.length > 0) {
    const codes = await groups.commitOffsets({
      groupId: req.groupId,
      generationId: req.generationIdOrMemberEpoch,
      memberId: req.memberId,
      groupInstanceId: ctx.apiVersion >= 7 ? req.groupInstanceId : null,
      retentionTimeMs: ctx.apiVersion <= 4 ? req.retentionTimeMs : -1,
      offsets,
      apiVersion: ctx.apiVersion,
    })
    codes.forEach((c, i) => {
      slots[i]!.errorCode = c
    })
  }
  return { throttleTimeMs: 0, topics: results }
})
