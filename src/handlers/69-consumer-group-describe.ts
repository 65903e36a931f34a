// ConsumerGroupDescribe v0–1 (KIP-848): consumer-protocol groups with their epochs and members
// (epoch, subscription, current and target assignment by topic id and name; v1 memberType 1 =
// consumer). Errors per group: GROUP_ID_NOT_FOUND (unknown, or a classic group), INVALID_GROUP_ID,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR. Authorized operations are not computed (no ACLs).
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../protocol/messages/69-consumer-group-describe.js'
import { defineHandler } from './define.js'

export default defineHandler(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, { minVersion: 0, maxVersion: 1 }, (ctx, req) => ({
  throttleTimeMs: 0,
  groups: ctx.broker.groups.consumerGroupDescribe(req.groupIds),
}))
