// OffsetDelete v0: deletes a group's committed offsets for partitions it no longer consumes.
// Partitions of unknown topics are answered UNKNOWN_TOPIC_OR_PARTITION here (as Kafka's
// KafkaApis); the coordinator refuses partitions of topics a member of a non-empty consumer group
// subscribes to (GROUP_SUBSCRIBED_TO_TOPIC, from the members' ConsumerProtocolSubscription).
// Top-level errors: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP (a non-empty group of another protocol
// type), INVALID_GROUP_ID, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR, a failed write's code.
import { ErrorCode } from '../protocol/errors.js'
import { OffsetDeleteRequest, OffsetDeleteResponse } from '../protocol/messages/47-offset-delete.js'
import { canGroup, canTopic, Op } from './authorize.js'
import { defineHandler } from './define.js'
import type { TopicPartitions } from '../ports/groups.js'

export default defineHandler(OffsetDeleteRequest, OffsetDeleteResponse, { minVersion: 0, maxVersion: 0 }, async (ctx, req) => {
  const { topics, groups } = ctx.broker
  // DELETE on the group (else GROUP_AUTHORIZATION_FAILED), READ on each topic (else
  // TOPIC_AUTHORIZATION_FAILED for its partitions), as Kafka's KafkaApis.
  if (!canGroup(ctx, Op.DELETE, req.groupId)) return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code, throttleTimeMs: 0, topics: [] }
  const deniedTopics = new Set(req.topics.filter((t) => !canTopic(ctx, Op.READ, t.name)).map((t) => t.name))
  const unknown = new Map<string, number[]>()
  const known: TopicPartitions[] = []
  for (const t of req.topics) {
    const topic = deniedTopics.has(t.name) ? undefined : topics.get(t.name)
    const ok: number[] = []
    for (const p of t.partitions) {
      if (topic && p.partitionIndex >= 0 && p.partitionIndex < topic.partitions) ok.push(p.partitionIndex)
      else unknown.set(t.name, [...(unknown.get(t.name) ?? []), p.partitionIndex])
    }
    if (ok.length > 0) known.push({ name: t.name, partitions: ok })
  }
  const r = await groups.deleteOffsets(req.groupId, known)
  if (r.errorCode !== 0) return { errorCode: r.errorCode, throttleTimeMs: 0, topics: [] }
  const answered = new Map(r.topics.map((t) => [t.name, t.partitions]))
  return {
    errorCode: 0,
    throttleTimeMs: 0,
    topics: req.topics
      .filter((t, i, all) => all.findIndex((x) => x.name === t.name) === i)
      .map((t) => ({
        name: t.name,
        partitions: [
          ...(answered.get(t.name) ?? []),
          ...(unknown.get(t.name) ?? []).map((partitionIndex) => ({
            partitionIndex,
            errorCode: deniedTopics.has(t.name) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED.code : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code,
          })),
        ],
      })),
  }
})
