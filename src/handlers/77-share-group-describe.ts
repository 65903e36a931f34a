// ShareGroupDescribe v1 (KIP-932): share groups with their state (Empty, Stable), epochs, the
// `simple` assignor and each member's subscription and assignment (topic ids and names).
// Errors per group: GROUP_ID_NOT_FOUND (unknown, or a group of another type), INVALID_GROUP_ID,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR. DESCRIBE on each group is needed (else GROUP_AUTHORIZATION_FAILED); authorized operations when asked for.
import { ShareGroupDescribeRequest, ShareGroupDescribeResponse } from '../protocol/messages/77-share-group-describe.js'
import { describedGroupsAuthorized } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(ShareGroupDescribeRequest, ShareGroupDescribeResponse, { minVersion: 1, maxVersion: 1 }, (ctx, req) => ({
  throttleTimeMs: 0,
  // DESCRIBE on each group and on the topics its members are assigned (Kafka's KafkaApis); its
  // authorized operations when asked for.
  groups: describedGroupsAuthorized(ctx, ctx.broker.groups.shareGroupDescribe(req.groupIds), req.includeAuthorizedOperations, (g) =>
    g.members.flatMap((m) => m.assignment.topicPartitions.map((t) => t.topicName)),
  ),
}))
