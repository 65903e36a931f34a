// DeleteShareGroupOffsets v0 (KIP-932): forgets an empty share group's state for whole topics.
// Errors: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, INVALID_GROUP_ID, COORDINATOR_LOAD_IN_PROGRESS,
// NOT_COORDINATOR; per topic: UNKNOWN_TOPIC_OR_PARTITION (unknown, or no share state in the group)
// and the share coordinator's errors.
import { DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse } from '../protocol/messages/92-delete-share-group-offsets.js'
import { canGroup, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(
  DeleteShareGroupOffsetsRequest,
  DeleteShareGroupOffsetsResponse,
  { minVersion: 0, maxVersion: 0 },
  // DELETE on the group (Kafka's KafkaApis).
  (ctx, req) =>
    canGroup(ctx, Op.DELETE, req.groupId)
      ? ctx.broker.groups.deleteShareGroupOffsets(req)
      : { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code, responses: [] },
)
