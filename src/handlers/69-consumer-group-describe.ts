// ConsumerGroupDescribe v0–1 (KIP-848): consumer-protocol groups with their epochs and members
// (epoch, subscription, current and target assignment by topic id and name; v1 memberType 1 =
// consumer). Errors per group: GROUP_ID_NOT_FOUND (unknown, or a classic group), INVALID_GROUP_ID,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR. Authorized operations are not computed (no ACLs).
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../protocol/messages/69-consumer-group-describe.js'
import { authorizedOperations, canGroup, OPERATIONS_NOT_REQUESTED, Op, ResourceType } from './authorize.js'
import { ErrorCode } from '../protocol/errors.js'
import { defineHandler } from './define.js'

const denied = (groupId: string) => ({
  errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code,
  groupId,
  groupState: '',
  groupEpoch: -1,
  assignmentEpoch: -1,
  assignorName: '',
  members: [],
})

export default defineHandler(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, { minVersion: 0, maxVersion: 1 }, (ctx, req) => ({
  throttleTimeMs: 0,
  // DESCRIBE on each group (Kafka's KafkaApis); its authorized operations when asked for.
  groups: ctx.broker.groups.consumerGroupDescribe(req.groupIds).map((g) =>
    !canGroup(ctx, Op.DESCRIBE, g.groupId)
      ? denied(g.groupId)
      : {
          ...g,
          authorizedOperations: req.includeAuthorizedOperations
            ? authorizedOperations(ctx, ResourceType.GROUP, g.groupId)
            : OPERATIONS_NOT_REQUESTED,
        },
  ),
}))
