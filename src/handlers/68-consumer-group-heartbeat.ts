// ConsumerGroupHeartbeat v0–1 (KIP-848): the consumer protocol's one group RPC, answered by the
// group coordinator (coordinator/group/consumer/consumer-groups.ts): the member's epoch, its
// heartbeat interval and, when it changed, its assignment. Errors: INVALID_REQUEST,
// UNSUPPORTED_ASSIGNOR, INVALID_REGULAR_EXPRESSION, UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH,
// UNRELEASED_INSTANCE_ID, GROUP_ID_NOT_FOUND (a classic group of that id has members that cannot
// be upgraded: not all of the consumer protocol type, or the heartbeat is not a join),
// the store errors of its records (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE; answered once durable),
// INVALID_GROUP_ID, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR.
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../protocol/messages/68-consumer-group-heartbeat.js'
import { authorizerOf, canGroup, canTopic, HEARTBEAT_GROUP_DENIED, Op, ResourceType } from './authorize.js'
import { ErrorCode } from '../protocol/errors.js'
import { defineHandler } from './define.js'

export default defineHandler(
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  { minVersion: 0, maxVersion: 1 },
  (ctx, req) => {
    // READ on the group, DESCRIBE on each subscribed topic (Kafka's KafkaApis).
    if (!canGroup(ctx, Op.READ, req.groupId)) return HEARTBEAT_GROUP_DENIED
    const denied = (req.subscribedTopicNames ?? []).filter((t) => !canTopic(ctx, Op.DESCRIBE, t))
    if (denied.length > 0) {
      return {
        ...HEARTBEAT_GROUP_DENIED,
        errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
        errorMessage: `The group has subscribed to topics which are not authorized: ${[...new Set(denied)].sort().join(', ')}`,
      }
    }
    // A regex resolves only to the topics this member's principal may DESCRIBE (Kafka's TopicRegexResolver).
    const authorizer = authorizerOf(ctx)
    const who = { principal: ctx.conn.principal, remoteAddress: ctx.conn.remoteAddress }
    return ctx.broker.groups.consumerGroupHeartbeat(req, ctx.apiVersion, {
      clientId: ctx.header.clientId ?? '',
      clientHost: `/${ctx.conn.remoteAddress}`,
      ...(authorizer.enabled ? { topicVisible: (topic: string) => authorizer.authorize(who, Op.DESCRIBE, ResourceType.TOPIC, topic) } : {}),
    })
  },
)
