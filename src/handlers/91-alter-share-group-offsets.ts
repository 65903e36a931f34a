// AlterShareGroupOffsets v0 (KIP-932): sets an empty share group's start offsets (the share state
// of each partition is initialized anew); a group id not known yet becomes an empty share group.
// Errors: NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND (a group of another type), INVALID_GROUP_ID,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR; per partition: UNKNOWN_TOPIC_OR_PARTITION and the
// share coordinator's errors.
// Authorization (Kafka's KafkaApis): READ on the group, else GROUP_AUTHORIZATION_FAILED for the
// whole request; READ on each topic, else each of its partitions TOPIC_AUTHORIZATION_FAILED while
// the other topics are altered (a group-level error answers alone, without topics).
import { AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse } from '../protocol/messages/91-alter-share-group-offsets.js'
import { ZERO_UUID } from '../protocol/primitives/uuid.js'
import { canGroup, Op, servedReadableTopics, TOPIC_DENIED_MESSAGE } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(
  AlterShareGroupOffsetsRequest,
  AlterShareGroupOffsetsResponse,
  { minVersion: 0, maxVersion: 0 },
  (ctx, req) => {
    if (!canGroup(ctx, Op.READ, req.groupId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code, responses: [] }
    }
    return servedReadableTopics(
      ctx,
      req,
      (r) => ctx.broker.groups.alterShareGroupOffsets({ ...req, ...r }),
      (t) => ({
        topicName: t.topicName,
        topicId: ctx.broker.topics.get(t.topicName)?.topicId ?? ZERO_UUID,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
          errorMessage: TOPIC_DENIED_MESSAGE,
        })),
      }),
      false,
    )
  },
)
