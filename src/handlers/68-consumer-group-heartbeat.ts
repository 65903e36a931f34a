// ConsumerGroupHeartbeat v0–1 (KIP-848): the consumer protocol's one group RPC, answered by the
// group coordinator (coordinator/group/consumer/consumer-groups.ts): the member's epoch, its
// heartbeat interval and, when it changed, its assignment. Errors: INVALID_REQUEST,
// UNSUPPORTED_ASSIGNOR, INVALID_REGULAR_EXPRESSION, UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH,
// UNRELEASED_INSTANCE_ID, GROUP_ID_NOT_FOUND (a classic group of that id has members that cannot
// be upgraded: not all of the consumer protocol type, or the heartbeat is not a join),
// the store errors of its records (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE; answered once durable),
// INVALID_GROUP_ID, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR.
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../protocol/messages/68-consumer-group-heartbeat.js'
import { canGroup, HEARTBEAT_GROUP_DENIED, Op } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, { minVersion: 0, maxVersion: 1 }, (ctx, req) =>
  // READ on the group (Kafka's KafkaApis).
  !canGroup(ctx, Op.READ, req.groupId)
    ? HEARTBEAT_GROUP_DENIED
    : ctx.broker.groups.consumerGroupHeartbeat(req, ctx.apiVersion, {
        clientId: ctx.header.clientId ?? '',
        clientHost: `/${ctx.conn.remoteAddress}`,
      }),
)
