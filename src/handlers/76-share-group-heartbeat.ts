// ShareGroupHeartbeat v1 (KIP-932): a share group member joins (epoch 0, with the member id it
// generated), heartbeats, or leaves (-1); answered by the group coordinator
// (coordinator/group/share/share-groups.ts) once the change is durable, with the member's epoch,
// its heartbeat interval and, on a join or when it changed, the partitions it may fetch from.
// Errors: INVALID_REQUEST, UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH, GROUP_MAX_SIZE_REACHED,
// GROUP_ID_NOT_FOUND (a classic or consumer group holds the id; leaving a group not known),
// INVALID_GROUP_ID, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR.
import { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse } from '../protocol/messages/76-share-group-heartbeat.js'
import { ErrorCode } from '../protocol/errors.js'
import { canGroup, canTopic, HEARTBEAT_GROUP_DENIED, Op } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse, { minVersion: 1, maxVersion: 1 }, (ctx, req) => {
  // READ on the group, DESCRIBE on each subscribed topic (Kafka's KafkaApis: TOPIC_AUTHORIZATION_FAILED, no message).
  if (!canGroup(ctx, Op.READ, req.groupId)) return HEARTBEAT_GROUP_DENIED
  if ((req.subscribedTopicNames ?? []).some((t) => !canTopic(ctx, Op.DESCRIBE, t))) {
    return { ...HEARTBEAT_GROUP_DENIED, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code }
  }
  return ctx.broker.groups.shareGroupHeartbeat(req, { clientId: ctx.header.clientId ?? '', clientHost: `/${ctx.conn.remoteAddress}` })
})
