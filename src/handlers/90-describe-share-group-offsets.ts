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
import { defineHandler } from './define.js'

export default defineHandler(
  DescribeShareGroupOffsetsRequest,
  DescribeShareGroupOffsetsResponse,
  { minVersion: 0, maxVersion: 1 },
  async (ctx, req) => ({ throttleTimeMs: 0, groups: await ctx.broker.groups.describeShareGroupOffsets(req.groups) }),
)
