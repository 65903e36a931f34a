// ConsumerGroupDescribe v0–1 (KIP-848): consumer-protocol groups with their epochs and members
// (epoch, subscription, current and target assignment by topic id and name; v1 memberType 1 =
// consumer). Errors per group: GROUP_ID_NOT_FOUND (unknown, or a classic group), INVALID_GROUP_ID,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR. DESCRIBE on each group is needed (else GROUP_AUTHORIZATION_FAILED); authorized operations when asked for.
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../protocol/messages/69-consumer-group-describe.js'
import { describedGroupsAuthorized } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, { minVersion: 0, maxVersion: 1 }, (ctx, req) => ({
  throttleTimeMs: 0,
  // DESCRIBE on each group and on the topics its members are assigned (Kafka's KafkaApis); its
  // authorized operations when asked for.
  groups: describedGroupsAuthorized(ctx, ctx.broker.groups.consumerGroupDescribe(req.groupIds), req.includeAuthorizedOperations, (g) =>
    g.members.flatMap((m) => [...m.assignment.topicPartitions, ...m.targetAssignment.topicPartitions].map((t) => t.topicName)),
  ),
}))
