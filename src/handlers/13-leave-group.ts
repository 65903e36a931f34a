// LeaveGroup v0–5: v0–2 remove one member (memberId); v3+ a batch, each by member id and/or
// group instance id (memberId "" with an instance id removes a static member, as admin tools
// do), with an answer per member; v5 carries a reason (logged). Leaving starts a rebalance, or
// empties the group. v0–2 have only the top-level error: the member's error goes there.
// Errors: UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID (per member); INVALID_GROUP_ID,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE (top level).
import { LeaveGroupRequest, LeaveGroupResponse } from '../protocol/messages/13-leave-group.js'
import { canGroup, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(LeaveGroupRequest, LeaveGroupResponse, { minVersion: 0, maxVersion: 5 }, (ctx, req) => {
  const batch = ctx.apiVersion >= 3
  const leaving = batch
    ? req.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, reason: ctx.apiVersion >= 5 ? m.reason : null }))
    : [{ memberId: req.memberId, groupInstanceId: null, reason: null }]
  // READ on the group, else GROUP_AUTHORIZATION_FAILED.
  const r = canGroup(ctx, Op.READ, req.groupId)
    ? ctx.broker.groups.leaveGroup(req.groupId, leaving)
    : { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code, members: [] }
  if (batch) return { throttleTimeMs: 0, errorCode: r.errorCode, members: r.members }
  return { throttleTimeMs: 0, errorCode: r.errorCode !== 0 ? r.errorCode : (r.members[0]?.errorCode ?? 0) }
})
