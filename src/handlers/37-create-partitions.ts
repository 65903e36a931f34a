// CreatePartitions v0–3: raises topics' partition counts. Per topic, as Kafka answers:
// INVALID_REQUEST (a topic named twice), UNKNOWN_TOPIC_OR_PARTITION, INVALID_PARTITIONS (a count
// that does not grow, with Kafka's message), INVALID_REPLICA_ASSIGNMENT (assignments that are not
// one replica list per new partition on live brokers — on a single node, [[this node]] each).
// validate_only checks and creates nothing. New partitions' logs exist, and Metadata, Produce and
// Fetch see them, once the answer is sent; the new count is persisted in the metadata store.
// timeout_ms is not needed: the change is complete when the answer goes out.
// Controller mutation quota (KIP-599): each new partition counts; from v3 a topic asked for while
// the quota is exhausted gets THROTTLING_QUOTA_EXCEEDED (older versions are throttled instead).
import { ErrorCode, KafkaError, toErrorCode } from '../protocol/errors.js'
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../protocol/messages/37-create-partitions.js'
import { canTopic, Op, topicDenied } from './authorize.js'
import { defineHandler } from './define.js'
import { THROTTLED } from './throttle.js'

export default defineHandler(CreatePartitionsRequest, CreatePartitionsResponse, { minVersion: 0, maxVersion: 3 }, async (ctx, req) => {
  const counts = new Map<string, number>()
  for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1)
  const results = []
  const quota = req.validateOnly ? undefined : ctx.controllerMutationQuota?.(3)
  for (const t of req.topics) {
    if (quota && !quota.admit()) {
      results.push({ name: t.name, errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED.code, errorMessage: THROTTLED })
      continue
    }
    try {
      if ((counts.get(t.name) ?? 0) > 1) throw new KafkaError('INVALID_REQUEST', 'Duplicate topic in request.')
      // ALTER on the topic (Kafka's KafkaApis).
      if (!canTopic(ctx, Op.ALTER, t.name)) throw topicDenied()
      const assignments = t.assignments === null ? null : t.assignments.map((a) => a.brokerIds)
      const before = ctx.broker.topics.get(t.name)?.partitions ?? t.count
      await ctx.broker.topics.createPartitions(t.name, t.count, assignments, req.validateOnly)
      quota?.record(t.count - before)
      results.push({ name: t.name, errorCode: 0, errorMessage: null })
    } catch (err) {
      if (!(err instanceof KafkaError)) ctx.broker.logger.error('create partitions failed', { topic: t.name, err })
      const message = err instanceof KafkaError && err.message === err.errorName ? null : err instanceof Error ? err.message : String(err)
      results.push({ name: t.name, errorCode: toErrorCode(err), errorMessage: message })
    }
  }
  return { throttleTimeMs: 0, results }
})
