// DescribeGroups v0–5: state ("Empty", "PreparingRebalance", "CompletingRebalance", "Stable",
// "Dead"), protocol type, and members; as Kafka, the selected protocol and each member's
// metadata and assignment bytes only once the group is Stable. An unknown group is described as
// "Dead" without an error, as Kafka does. Authorized operations (v3+) are not computed (no ACLs
// yet): the field keeps its "not provided" value.
// Errors per group: INVALID_GROUP_ID (over 255 characters), COORDINATOR_LOAD_IN_PROGRESS,
// NOT_COORDINATOR.
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../protocol/messages/15-describe-groups.js'
import { defineHandler } from './define.js'

export default defineHandler(DescribeGroupsRequest, DescribeGroupsResponse, { minVersion: 0, maxVersion: 5 }, (ctx, req) => ({
  throttleTimeMs: 0,
  groups: ctx.broker.groups.describeGroups(req.groups),
}))
