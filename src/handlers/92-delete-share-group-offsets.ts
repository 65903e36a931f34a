// DeleteShareGroupOffsets v0 (KIP-932): forgets an empty share group's state for whole topics.
// Errors: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, INVALID_GROUP_ID, COORDINATOR_LOAD_IN_PROGRESS,
// NOT_COORDINATOR; per topic: UNKNOWN_TOPIC_OR_PARTITION (unknown, or no share state in the group)
// and the share coordinator's errors.
// Authorization (Kafka's KafkaApis): DELETE on the group, else GROUP_AUTHORIZATION_FAILED for the
// whole request; READ on each topic, else that topic TOPIC_AUTHORIZATION_FAILED while the other
// topics are deleted (a group-level error answers alone, without topics).
import { DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse } from '../protocol/messages/92-delete-share-group-offsets.js'
import { ZERO_UUID } from '../protocol/primitives/uuid.js'
import { canGroup, Op, servedReadableTopics, TOPIC_DENIED_MESSAGE } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(
  DeleteShareGroupOffsetsRequest,
  DeleteShareGroupOffsetsResponse,
  { minVersion: 0, maxVersion: 0 },
  (ctx, req) => {
    if (!canGroup(ctx, Op.DELETE, req.groupId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code, responses: [] }
    }
    return servedReadableTopics(
      ctx,
      req,
      (r) => ctx.broker.groups.deleteShareGroupOffsets({ ...req, ...r }),
      (t) => ({
        topicName: t.topicName,
        topicId: ZERO_UUID,
        errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
        errorMessage: TOPIC_DENIED_MESSAGE,
      }),
      true,
    )
  },
)
