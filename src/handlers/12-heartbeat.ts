// Heartbeat v0–4: keeps a member's session alive and tells it when to rejoin.
// Errors: REBALANCE_IN_PROGRESS (rejoin), ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID (also for an
// unknown group, as Kafka), FENCED_INSTANCE_ID (v3+), INVALID_GROUP_ID,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE.
import { HeartbeatRequest, HeartbeatResponse } from '../protocol/messages/12-heartbeat.js'
import { canGroup, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(HeartbeatRequest, HeartbeatResponse, { minVersion: 0, maxVersion: 4 }, (ctx, req) => ({
  throttleTimeMs: 0,
  // READ on the group, else GROUP_AUTHORIZATION_FAILED.
  errorCode: !canGroup(ctx, Op.READ, req.groupId)
    ? ErrorCode.GROUP_AUTHORIZATION_FAILED.code
    : ctx.broker.groups.heartbeat({
        groupId: req.groupId,
        generationId: req.generationId,
        memberId: req.memberId,
        groupInstanceId: ctx.apiVersion >= 3 ? req.groupInstanceId : null,
      }),
}))
