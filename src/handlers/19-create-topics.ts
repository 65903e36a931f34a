// CreateTopics v2–7 (validate_only from v1). Each topic is checked on its own: illegal or
// colliding name (INVALID_TOPIC_EXCEPTION), existing (TOPIC_ALREADY_EXISTS), partitions ≤ 0 other
// than -1 (INVALID_PARTITIONS), replication factor above the live brokers or ≤ 0 other than -1
// (INVALID_REPLICATION_FACTOR), bad manual assignment (INVALID_REPLICA_ASSIGNMENT), unknown or
// invalid config (INVALID_CONFIG), duplicate in the request (INVALID_REQUEST).
// v5+ answers with the topic's partitions, replication factor and configs when the caller may
// DESCRIBE_CONFIGS the topic (else topicConfigErrorCode TOPIC_AUTHORIZATION_FAILED); v7+ with its id.
// Controller mutation quota (KIP-599): each created partition counts; from v6 a topic asked for
// while the quota is exhausted gets THROTTLING_QUOTA_EXCEEDED (older versions are throttled instead).
import { ErrorCode, KafkaError, toErrorCode } from '../protocol/errors.js'
import { CreateTopicsRequest, CreateTopicsResponse } from '../protocol/messages/19-create-topics.js'
import { canCreateTopic, canTopic, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { THROTTLED } from './throttle.js'

export default defineHandler(CreateTopicsRequest, CreateTopicsResponse, { minVersion: 2, maxVersion: 7 }, async (ctx, req) => {
  const { topics, configs } = ctx.broker
  const counts = new Map<string, number>()
  for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1)
  const results = []
  const quota = req.validateOnly ? undefined : ctx.controllerMutationQuota?.(6)
  for (const t of req.topics) {
    if (quota && !quota.admit()) {
      results.push({ name: t.name, errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED.code, errorMessage: THROTTLED, configs: null })
      continue
    }
    if ((counts.get(t.name) ?? 0) > 1) {
      results.push({
        name: t.name,
        errorCode: ErrorCode.INVALID_REQUEST.code,
        errorMessage: `Create topics request from client contains duplicate topic ${t.name}`,
        configs: null,
      })
      continue
    }
    // CREATE on the cluster or on the topic (Kafka's KafkaApis), else TOPIC_AUTHORIZATION_FAILED.
    if (!canCreateTopic(ctx, t.name)) {
      results.push({
        name: t.name,
        errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
        errorMessage: 'Authorization failed.',
        configs: null,
      })
      continue
    }
    try {
      const created = await topics.create(t, req.validateOnly)
      quota?.record(created.partitions)
      // Partitions, replication factor and configs only with DESCRIBE_CONFIGS on the topic
      // (Kafka's controller), else topicConfigErrorCode says why they are missing.
      if (!canTopic(ctx, Op.DESCRIBE_CONFIGS, t.name)) {
        results.push({
          name: t.name,
          topicId: created.topicId,
          errorCode: 0,
          errorMessage: null,
          topicConfigErrorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
          configs: [],
        })
        continue
      }
      results.push({
        name: t.name,
        topicId: created.topicId,
        errorCode: 0,
        errorMessage: null,
        numPartitions: created.partitions,
        replicationFactor: created.replicationFactor,
        configs: configs.describeTopic(created, null).map((c) => ({
          name: c.name,
          value: c.isSensitive ? null : c.value,
          readOnly: c.readOnly,
          configSource: c.source,
          isSensitive: c.isSensitive,
        })),
      })
    } catch (err) {
      if (!(err instanceof KafkaError)) ctx.broker.logger.error('create topic failed', { topic: t.name, err })
      results.push({
        name: t.name,
        errorCode: toErrorCode(err),
        errorMessage: err instanceof Error ? err.message : String(err),
        configs: null,
      })
    }
  }
  return { throttleTimeMs: 0, topics: results }
})
