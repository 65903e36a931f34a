// DeleteShareGroupOffsets v0 (KIP-932): forgets an empty share group's state for whole topics.
// Errors: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, INVALID_GROUP_ID, COORDINATOR_LOAD_IN_PROGRESS,
// NOT_COORDINATOR; per topic: UNKNOWN_TOPIC_OR_PARTITION (unknown, or no share state in the group)
// and the share coordinator's errors.
import { DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse } from '../protocol/messages/92-delete-share-group-offsets.js'
import { defineHandler } from './define.js'

export default defineHandler(
  DeleteShareGroupOffsetsRequest,
  DeleteShareGroupOffsetsResponse,
  { minVersion: 0, maxVersion: 0 },
  (ctx, req) => ctx.broker.groups.deleteShareGroupOffsets(req),
)
