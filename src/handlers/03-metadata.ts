// Metadata v0–13. Topics: null (v1+) or an empty list in v0 = all topics; an empty list in v1+ =
// none. A missing topic is auto-created when auto.create.topics.enable and the request's
// allow_auto_topic_creation (v4+) both allow it; creation is synchronous here, so the answer
// already carries the new topic's partitions. v10+ may name topics by id (UNKNOWN_TOPIC_ID).
// Errors per topic: UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID, INVALID_TOPIC_EXCEPTION.
// v13's top-level error code is always NONE: as Kafka's KafkaApis, this broker never asks a client
// to bootstrap again (REBOOTSTRAP_REQUIRED, KIP-1102, is for brokers that know the client's view
// of the cluster is stale, and every broker here answers with the current cluster).
// Partitions: leader, leader epoch, replicas and ISR from the partition state in the metadata
// store; replicas on brokers that are not registered are listed offline, and a partition whose
// leader is gone (or none) answers LEADER_NOT_AVAILABLE with leader -1 until one is elected.
// Authorization (Kafka's KafkaApis): all topics = those the caller may DESCRIBE, without an error
// for the others; a named topic it may not DESCRIBE answers TOPIC_AUTHORIZATION_FAILED whether it
// exists or not; auto-creation needs CREATE on the cluster or the topic (else
// TOPIC_AUTHORIZATION_FAILED). Authorized operations (v8+) when the request asks for them.
import type { TopicRecord } from '../ports/metadata-store.js'
import { INTERNAL_TOPICS } from '../cluster/topic-names.js'
import { ErrorCode, KafkaError, toErrorCode } from '../protocol/errors.js'
import { MetadataRequest, MetadataResponse } from '../protocol/messages/03-metadata.js'
import { ZERO_UUID } from '../protocol/primitives/uuid.js'
import { defineHandler, type RequestContext } from './define.js'
import { partitionMetadata } from './partition-metadata.js'
import {
  authorizedOperations,
  canCreateTopic,
  clusterOperations,
  canTopic,
  OPERATIONS_NOT_REQUESTED,
  Op,
  ResourceType,
  topicDenied,
} from './authorize.js'

function describeTopic(ctx: RequestContext, topic: TopicRecord, live: ReadonlySet<number>, withOperations: boolean) {
  const partitions = []
  for (let i = 0; i < topic.partitions; i++) {
    const p = partitionMetadata(ctx.broker, topic.name, i, live)
    partitions.push({ errorCode: p.leaderId >= 0 ? 0 : ErrorCode.LEADER_NOT_AVAILABLE.code, ...p })
  }
  return {
    errorCode: 0,
    name: topic.name,
    topicId: topic.topicId,
    isInternal: INTERNAL_TOPICS.has(topic.name),
    partitions,
    topicAuthorizedOperations: withOperations ? authorizedOperations(ctx, ResourceType.TOPIC, topic.name) : OPERATIONS_NOT_REQUESTED,
  }
}

export default defineHandler(MetadataRequest, MetadataResponse, { minVersion: 0, maxVersion: 13 }, async (ctx, req) => {
  const { topics } = ctx.broker
  const all = req.topics === null || (ctx.apiVersion === 0 && req.topics.length === 0)
  const out = []
  const brokers = ctx.broker.brokers(ctx.conn.listenerName)
  const live = new Set(brokers.map((b) => b.nodeId))
  const ops = req.includeTopicAuthorizedOperations
  if (all) {
    for (const t of topics.list()) if (canTopic(ctx, Op.DESCRIBE, t.name)) out.push(describeTopic(ctx, t, live, ops))
  } else {
    for (const rt of req.topics!) {
      try {
        if (rt.name === null || rt.name === '') {
          // Topics may be named by id only from v12 (earlier versions cannot even carry a null name).
          if (rt.topicId === ZERO_UUID || ctx.apiVersion < 12) throw new KafkaError('INVALID_REQUEST', 'topic without name or id')
          const byId = topics.getById(rt.topicId)
          if (!byId) throw new KafkaError('UNKNOWN_TOPIC_ID')
          if (!canTopic(ctx, Op.DESCRIBE, byId.name)) throw topicDenied()
          out.push(describeTopic(ctx, byId, live, ops))
          continue
        }
        if (!canTopic(ctx, Op.DESCRIBE, rt.name)) throw topicDenied()
        const exists = topics.get(rt.name)
        if (!exists && req.allowAutoTopicCreation && ctx.broker.settings.autoCreateTopics && !canCreateTopic(ctx, rt.name))
          throw topicDenied()
        const t = exists ?? (await topics.getOrAutoCreate(rt.name, req.allowAutoTopicCreation))
        if (!t) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
        out.push(describeTopic(ctx, t, live, ops))
      } catch (err) {
        // Below v12 the name cannot be null on the wire.
        const name = rt.name ?? (ctx.apiVersion >= 12 ? null : '')
        out.push({ errorCode: toErrorCode(err), name, topicId: rt.topicId, isInternal: false, partitions: [] })
      }
    }
  }
  return {
    throttleTimeMs: 0,
    brokers,
    clusterId: ctx.broker.clusterId,
    controllerId: ctx.broker.controllerId(),
    topics: out,
    errorCode: 0,
    clusterAuthorizedOperations: clusterOperations(ctx, req.includeClusterAuthorizedOperations),
  }
})
