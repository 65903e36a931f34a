// AlterShareGroupOffsets v0 (KIP-932): sets an empty share group's start offsets (the share state
// of each partition is initialized anew); a group id not known yet becomes an empty share group.
// Errors: NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND (a group of another type), INVALID_GROUP_ID,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR; per partition: UNKNOWN_TOPIC_OR_PARTITION and the
// share coordinator's errors.
import { AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse } from '../protocol/messages/91-alter-share-group-offsets.js'
import { canGroup, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse, { minVersion: 0, maxVersion: 0 }, (ctx, req) =>
  // READ on the group (Kafka's KafkaApis).
  canGroup(ctx, Op.READ, req.groupId)
    ? ctx.broker.groups.alterShareGroupOffsets(req)
    : { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code, responses: [] },
)
