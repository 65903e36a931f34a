// DescribeShareGroupOffsets v0–1 (KIP-932): a share group's start offset per partition, read from
// the share coordinator's state (null topics: every partition with state); v1 adds the lag (high
// watermark − start offset − records whose delivery is complete; -1 when unknown here).
// Errors per group: GROUP_ID_NOT_FOUND, INVALID_GROUP_ID, COORDINATOR_LOAD_IN_PROGRESS,
// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE; per partition: UNKNOWN_TOPIC_OR_PARTITION and the
// share coordinator's errors.
// Authorization (Kafka's KafkaApis): DESCRIBE on each group, else GROUP_AUTHORIZATION_FAILED for
// it; DESCRIBE on each topic asked for, else each of its partitions TOPIC_AUTHORIZATION_FAILED
// (start offset and lag -1, topic id zero) while the other topics are described; with null topics
// the topics the caller may not DESCRIBE are left out of the answer.
import {
  DescribeShareGroupOffsetsRequest,
  type DescribeShareGroupOffsetsRequestData,
  DescribeShareGroupOffsetsResponse,
} from '../protocol/messages/90-describe-share-group-offsets.js'
import { ZERO_UUID } from '../protocol/primitives/uuid.js'
import { canGroup, canTopic, Op, TOPIC_DENIED_MESSAGE } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

type AskedGroup = DescribeShareGroupOffsetsRequestData['groups'][number]

export default defineHandler(
  DescribeShareGroupOffsetsRequest,
  DescribeShareGroupOffsetsResponse,
  { minVersion: 0, maxVersion: 1 },
  async (ctx, req) => {
    const readable = (topic: string) => canTopic(ctx, Op.DESCRIBE, topic)
    const allowed: AskedGroup[] = req.groups
      .filter((g) => canGroup(ctx, Op.DESCRIBE, g.groupId))
      .map((g) => (g.topics === null ? g : { ...g, topics: g.topics.filter((t) => readable(t.topicName)) }))
    const described = new Map((await ctx.broker.groups.describeShareGroupOffsets(allowed)).map((g) => [g.groupId, g]))
    return {
      throttleTimeMs: 0,
      groups: req.groups.map((g) => {
        const d = described.get(g.groupId)
        if (d === undefined) {
          return { groupId: g.groupId, topics: [], errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code, errorMessage: null }
        }
        if (d.errorCode !== 0) return d
        if (g.topics === null) return { ...d, topics: d.topics.filter((t) => readable(t.topicName)) }
        const refused = g.topics
          .filter((t) => !readable(t.topicName))
          .map((t) => ({
            topicName: t.topicName,
            topicId: ZERO_UUID,
            partitions: t.partitions.map((p) => ({
              partitionIndex: p,
              startOffset: -1,
              leaderEpoch: 0,
              lag: -1,
              errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
              errorMessage: TOPIC_DENIED_MESSAGE,
            })),
          }))
        return refused.length === 0 ? d : { ...d, topics: [...d.topics, ...refused] }
      }),
    }
  },
)
