// JoinGroup v0–9: the classic group protocol's first phase; the response is held until the
// rebalance completes (released, unanswered, if the connection closes). v0 has no rebalance
// timeout (the session timeout serves); v4+ members without an id get MEMBER_ID_REQUIRED
// (KIP-394); v5+ static membership (KIP-345); v7+ echoes protocol type and name (KIP-559); v8's
// reason is logged; v9's skipAssignment is always false. The leader gets every member's
// metadata, followers an empty list. clientHost is "/address", as Kafka shows it.
// Errors: INVALID_GROUP_ID, INVALID_SESSION_TIMEOUT, INVALID_REQUEST (over 100 protocols or a
// protocol's metadata over 1 MiB), INCONSISTENT_GROUP_PROTOCOL, UNKNOWN_MEMBER_ID,
// MEMBER_ID_REQUIRED, FENCED_INSTANCE_ID, GROUP_MAX_SIZE_REACHED, REBALANCE_IN_PROGRESS,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE.
import { JoinGroupRequest, JoinGroupResponse } from '../protocol/messages/11-join-group.js'
import { canGroup, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(JoinGroupRequest, JoinGroupResponse, { minVersion: 0, maxVersion: 9 }, async (ctx, req) => {
  const v = ctx.apiVersion
  // READ on the group (Kafka's KafkaApis), else GROUP_AUTHORIZATION_FAILED.
  if (!canGroup(ctx, Op.READ, req.groupId)) {
    const errorCode = ErrorCode.GROUP_AUTHORIZATION_FAILED.code
    return {
      throttleTimeMs: 0,
      errorCode,
      generationId: -1,
      protocolType: null,
      protocolName: v >= 7 ? null : '',
      leader: '',
      skipAssignment: false,
      memberId: req.memberId,
      members: [],
    }
  }
  const r = await ctx.broker.groups.joinGroup({
    groupId: req.groupId,
    memberId: req.memberId,
    groupInstanceId: v >= 5 ? req.groupInstanceId : null,
    clientId: ctx.header.clientId ?? '',
    clientHost: `/${ctx.conn.remoteAddress}`,
    sessionTimeoutMs: req.sessionTimeoutMs,
    rebalanceTimeoutMs: v >= 1 ? req.rebalanceTimeoutMs : req.sessionTimeoutMs,
    protocolType: req.protocolType,
    protocols: req.protocols,
    requireKnownMemberId: v >= 4,
    reason: v >= 8 ? req.reason : null,
    signal: ctx.conn.closed,
  })
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    generationId: r.generationId,
    protocolType: r.protocolType,
    // Nullable only from v7.
    protocolName: v >= 7 ? r.protocolName : (r.protocolName ?? ''),
    leader: r.leader,
    skipAssignment: r.skipAssignment,
    memberId: r.memberId,
    members: r.members,
  }
})
