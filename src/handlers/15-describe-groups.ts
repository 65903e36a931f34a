// DescribeGroups v0–6: state ("Empty", "PreparingRebalance", "CompletingRebalance", "Stable",
// "Dead"), protocol type, and members; as Kafka, the selected protocol and each member's
// metadata and assignment bytes only once the group is Stable. An unknown group is described as
// "Dead": without an error before v6, with GROUP_ID_NOT_FOUND and a message from v6 (KIP-1043),
// as Kafka's GroupMetadataManager.describeGroups answers; so is a KIP-848 consumer group ("is not
// a classic group"), which ConsumerGroupDescribe describes. Authorized operations (v3+) are not
// computed (no ACLs yet): the field keeps its "not provided" value.
// Errors per group: GROUP_ID_NOT_FOUND (v6+), INVALID_GROUP_ID (over 255 characters),
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR.
import { ErrorCode } from '../protocol/errors.js'
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../protocol/messages/15-describe-groups.js'
import { defineHandler } from './define.js'

export default defineHandler(DescribeGroupsRequest, DescribeGroupsResponse, { minVersion: 0, maxVersion: 6 }, (ctx, req) => ({
  throttleTimeMs: 0,
  groups: ctx.broker.groups.describeGroups(req.groups).map((g) => {
    // The coordinator describes a group it does not know (or one that is not classic) as Dead;
    // live groups are never Dead (a group that dies is forgotten at once).
    const unknown = g.groupState === 'Dead' && (g.errorCode === 0 || g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND.code)
    const { errorMessage, ...group } = g
    if (!unknown) return { ...group, errorMessage: null }
    if (ctx.apiVersion < 6) return { ...group, errorCode: 0, errorMessage: null }
    return { ...group, errorCode: ErrorCode.GROUP_ID_NOT_FOUND.code, errorMessage: errorMessage ?? `Group ${g.groupId} not found.` }
  }),
}))
