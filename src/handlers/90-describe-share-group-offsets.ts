// DescribeShareGroupOffsets v0–1 (KIP-932): a share group's start offset per partition, read from
// the share coordinator's state (null topics: every partition with state); v1 adds the lag (high
// watermark − start offset − records whose delivery is complete; -1 when unknown here).
// Errors per group: GROUP_ID_NOT_FOUND, INVALID_GROUP_ID, COORDINATOR_LOAD_IN_PROGRESS,
// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE; per partition: UNKNOWN_TOPIC_OR_PARTITION and the
// share coordinator's errors.
import {
  DescribeShareGroupOffsetsRequest,
  DescribeShareGroupOffsetsResponse,
} from '../protocol/messages/90-describe-share-group-offsets.js'
import { canGroup, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(
  DescribeShareGroupOffsetsRequest,
  DescribeShareGroupOffsetsResponse,
  { minVersion: 0, maxVersion: 1 },
  async (ctx, req) => {
    // DESCRIBE on each group (Kafka's KafkaApis).
    const allowed = req.groups.filter((g) => canGroup(ctx, Op.DESCRIBE, g.groupId))
    const described = new Map((await ctx.broker.groups.describeShareGroupOffsets(allowed)).map((g) => [g.groupId, g]))
    return {
      throttleTimeMs: 0,
      groups: req.groups.map(
        (g) =>
          described.get(g.groupId) ?? {
            groupId: g.groupId,
            topics: [],
            errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code,
            errorMessage: null,
          },
      ),
    }
  },
)
