// DeleteTopics v1–6; v6 may name topics by id. Errors per topic: UNKNOWN_TOPIC_OR_PARTITION,
// UNKNOWN_TOPIC_ID, TOPIC_DELETION_DISABLED (delete.topic.enable=false), INVALID_TOPIC_EXCEPTION
// for internal topics. Controller mutation quota (KIP-599): each deleted partition counts; from v5
// a topic asked for while the quota is exhausted gets THROTTLING_QUOTA_EXCEEDED (older versions are
// throttled instead). Authorization as Kafka's controller: DELETE on the cluster, or DESCRIBE then
// DELETE on each topic.
import { INTERNAL_TOPICS } from '../cluster/topic-names.js'
import { ErrorCode, KafkaError, toErrorCode } from '../protocol/errors.js'
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../protocol/messages/20-delete-topics.js'
import { ZERO_UUID } from '../protocol/primitives/uuid.js'
import { canCluster, canTopic, Op, topicDenied } from './authorize.js'
import { defineHandler } from './define.js'
import { THROTTLED } from './throttle.js'

export default defineHandler(DeleteTopicsRequest, DeleteTopicsResponse, { minVersion: 1, maxVersion: 6 }, async (ctx, req) => {
  const { topics, settings } = ctx.broker
  const wanted = ctx.apiVersion >= 6 ? req.topics : req.topicNames.map((name) => ({ name, topicId: ZERO_UUID }))
  const responses = []
  const quota = ctx.controllerMutationQuota?.(5)
  const clusterDelete = canCluster(ctx, Op.DELETE)
  for (const w of wanted) {
    if (quota && !quota.admit()) {
      responses.push({ name: w.name, topicId: w.topicId, errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED.code, errorMessage: THROTTLED })
      continue
    }
    try {
      const byId = w.name === null
      const topic = byId ? topics.getById(w.topicId) : topics.get(w.name!)
      // Kafka's controller: DELETE on the cluster allows every topic; else DESCRIBE on the topic
      // (before existence, for a name) and then DELETE, each refused as TOPIC_AUTHORIZATION_FAILED.
      const may = (op: Op, name: string) => clusterDelete || canTopic(ctx, op, name)
      if ((topic || !byId) && !may(Op.DESCRIBE, topic?.name ?? w.name!)) throw topicDenied()
      if (!topic) throw new KafkaError(byId ? 'UNKNOWN_TOPIC_ID' : 'UNKNOWN_TOPIC_OR_PARTITION')
      if (!may(Op.DELETE, topic.name)) throw topicDenied()
      if (!settings.deleteTopicEnable) throw new KafkaError('TOPIC_DELETION_DISABLED')
      if (INTERNAL_TOPICS.has(topic.name)) throw new KafkaError('INVALID_TOPIC_EXCEPTION', `cannot delete internal topic ${topic.name}`)
      await topics.delete(topic.name)
      quota?.record(topic.partitions)
      responses.push({ name: topic.name, topicId: topic.topicId, errorCode: 0, errorMessage: null })
    } catch (err) {
      responses.push({
        name: w.name,
        topicId: w.topicId,
        errorCode: toErrorCode(err),
        errorMessage: err instanceof KafkaError && err.message !== err.errorName ? err.message : null,
      })
    }
  }
  return { throttleTimeMs: 0, responses }
})
