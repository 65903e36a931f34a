// DescribeTopicPartitions v0 (KIP-966), as Kafka's DescribeTopicPartitionsRequestHandler answers:
//   - topics: the names asked for, or every topic when the list is empty; only names ≥ the cursor's
//     topic, deduplicated and sorted by name;
//   - the cursor (topic, partition) resumes a paged answer: that topic starts at that partition,
//     later ones at 0. INVALID_REQUEST (for every topic asked) when the cursor's partition is
//     negative or, with a topic list, the cursor's topic is not in it;
//   - at most max(min(ResponsePartitionLimit, max.request.partition.size.limit = 2000), 1)
//     partitions: a topic cut short sets NextCursor to its first partition left out; when the limit
//     is used up exactly, NextCursor names the next topic at partition 0;
//   - a topic asked for by name that does not exist: UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION
//     for an illegal name), without partitions and without using the limit; with an empty list
//     there are none. Topics are never auto-created here.
// Partitions are described as Metadata describes them (partition-metadata.ts), without a partition
// error: Kafka leaves it 0 even while there is no leader (leader -1). Eligible leader replicas and
// the last known ELR are empty: leaders come from the ISR only (no eligible.leader.replicas.version).
// Authorization: DESCRIBE on each topic (all topics: the others are left out; a named one answers
// TOPIC_AUTHORIZATION_FAILED); each topic carries the caller's authorized operations on it.
import { INTERNAL_TOPICS, topicNameError } from '../cluster/topic-names.js'
import { ErrorCode } from '../protocol/errors.js'
import {
  DescribeTopicPartitionsRequest,
  DescribeTopicPartitionsResponse,
  type DescribeTopicPartitionsResponseData,
} from '../protocol/messages/75-describe-topic-partitions.js'
import { ZERO_UUID } from '../protocol/primitives/uuid.js'
import { defineHandler } from './define.js'
import { partitionMetadata } from './partition-metadata.js'
import { authorizedOperations, canTopic, Op, ResourceType } from './authorize.js'

/** Kafka's max.request.partition.size.limit default: the most partitions one answer carries. */
export const MAX_REQUEST_PARTITION_SIZE_LIMIT = 2000

type ResponseTopic = DescribeTopicPartitionsResponseData['topics'][number]

export default defineHandler(
  DescribeTopicPartitionsRequest,
  DescribeTopicPartitionsResponse,
  { minVersion: 0, maxVersion: 0 },
  (ctx, req) => {
    const { topics } = ctx.broker
    const all = req.topics.length === 0
    const cursor = req.cursor
    const from = cursor?.topicName ?? ''
    const asked = all ? topics.list().map((t) => t.name) : req.topics.map((t) => t.name)
    const names = [...new Set(asked.filter((n) => n >= from))].sort()
    if ((cursor && !all && !names.includes(cursor.topicName)) || (cursor && cursor.partitionIndex < 0)) {
      return {
        throttleTimeMs: 0,
        topics: req.topics.map((t) => ({ errorCode: ErrorCode.INVALID_REQUEST.code, name: t.name, isInternal: false, partitions: [] })),
      }
    }

    const live = new Set(ctx.broker.brokers(ctx.conn.listenerName).map((b) => b.nodeId))
    let remaining = Math.max(Math.min(MAX_REQUEST_PARTITION_SIZE_LIMIT, req.responsePartitionLimit), 1)
    const out: ResponseTopic[] = []
    let nextCursor: { topicName: string; partitionIndex: number } | null = null
    for (const name of names) {
      if (remaining === 0) {
        nextCursor = { topicName: name, partitionIndex: 0 }
        break
      }
      // DESCRIBE on the topic (Kafka's KafkaApis): all topics leave it out, a named one is refused.
      if (!canTopic(ctx, Op.DESCRIBE, name)) {
        if (!all)
          out.push({
            errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
            name,
            topicId: ZERO_UUID,
            isInternal: false,
            partitions: [],
            topicAuthorizedOperations: 0,
          })
        continue
      }
      const topic = topics.get(name)
      if (!topic) {
        if (!all) {
          const errorCode = topicNameError(name) ? ErrorCode.INVALID_TOPIC_EXCEPTION.code : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
          out.push({
            errorCode,
            name,
            topicId: ZERO_UUID,
            isInternal: INTERNAL_TOPICS.has(name),
            partitions: [],
            topicAuthorizedOperations: authorizedOperations(ctx, ResourceType.TOPIC, name),
          })
        }
        continue
      }
      const start = cursor && name === cursor.topicName ? cursor.partitionIndex : 0
      const end = Math.min(topic.partitions, start + remaining)
      const partitions: ResponseTopic['partitions'] = []
      for (let i = start; i < end; i++) {
        partitions.push({ errorCode: 0, ...partitionMetadata(ctx.broker, name, i, live), eligibleLeaderReplicas: [], lastKnownElr: [] })
      }
      out.push({
        errorCode: 0,
        name,
        topicId: topic.topicId,
        isInternal: INTERNAL_TOPICS.has(name),
        partitions,
        topicAuthorizedOperations: authorizedOperations(ctx, ResourceType.TOPIC, name),
      })
      if (end < topic.partitions) {
        nextCursor = { topicName: name, partitionIndex: end }
        break
      }
      remaining -= partitions.length
    }
    return { throttleTimeMs: 0, topics: out, nextCursor }
  },
)
