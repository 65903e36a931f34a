// SyncGroup v0–5: the classic protocol's second phase. The leader sends every member's
// assignment; it is stored (`__consumer_offsets`) and then relayed to each member exactly as the
// leader sent it, so any assignor works (range, round-robin, sticky, cooperative-sticky).
// Followers are held until then (released, unanswered, if the connection closes). v3+ carries
// the group instance id; v5 the protocol type and name, both ways (KIP-559).
// Errors: UNKNOWN_MEMBER_ID (also for an unknown group), ILLEGAL_GENERATION, FENCED_INSTANCE_ID,
// REBALANCE_IN_PROGRESS, INCONSISTENT_GROUP_PROTOCOL (v5), INVALID_GROUP_ID, a failed store's
// code (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, UNKNOWN_SERVER_ERROR for a too-large group),
// COORDINATOR_LOAD_IN_PROGRESS.
import { SyncGroupRequest, SyncGroupResponse } from '../protocol/messages/14-sync-group.js'
import { canGroup, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(SyncGroupRequest, SyncGroupResponse, { minVersion: 0, maxVersion: 5 }, async (ctx, req) => {
  const v = ctx.apiVersion
  // READ on the group, else GROUP_AUTHORIZATION_FAILED.
  if (!canGroup(ctx, Op.READ, req.groupId)) {
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code,
      protocolType: null,
      protocolName: null,
      assignment: Buffer.alloc(0),
    }
  }
  const r = await ctx.broker.groups.syncGroup({
    groupId: req.groupId,
    generationId: req.generationId,
    memberId: req.memberId,
    groupInstanceId: v >= 3 ? req.groupInstanceId : null,
    protocolType: v >= 5 ? req.protocolType : null,
    protocolName: v >= 5 ? req.protocolName : null,
    assignments: req.assignments,
    signal: ctx.conn.closed,
  })
  return { throttleTimeMs: 0, ...r }
})
