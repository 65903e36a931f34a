// ShareGroupDescribe v1 (KIP-932): share groups with their state (Empty, Stable), epochs, the
// `simple` assignor and each member's subscription and assignment (topic ids and names).
// Errors per group: GROUP_ID_NOT_FOUND (unknown, or a group of another type), INVALID_GROUP_ID,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR. Authorized operations are not computed.
import { ShareGroupDescribeRequest, ShareGroupDescribeResponse } from '../protocol/messages/77-share-group-describe.js'
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

export default defineHandler(ShareGroupDescribeRequest, ShareGroupDescribeResponse, { minVersion: 1, maxVersion: 1 }, (ctx, req) => ({
  throttleTimeMs: 0,
  // DESCRIBE on each group (Kafka's KafkaApis); its authorized operations when asked for.
  groups: ctx.broker.groups.shareGroupDescribe(req.groupIds).map((g) =>
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
