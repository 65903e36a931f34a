// DescribeGroups v0–6: state ("Empty", "PreparingRebalance", "CompletingRebalance", "Stable",
// "Dead"), protocol type, and members; as Kafka, the selected protocol and each member's
// metadata and assignment bytes only once the group is Stable. An unknown group is described as
// "Dead": without an error before v6, with GROUP_ID_NOT_FOUND and a message from v6 (KIP-1043),
// as Kafka's GroupMetadataManager.describeGroups answers; so is a KIP-848 consumer group ("is not
// a classic group"), which ConsumerGroupDescribe describes. Authorized operations (v3+) when asked
// for. DESCRIBE on each group is needed (else GROUP_AUTHORIZATION_FAILED).
// Errors per group: GROUP_ID_NOT_FOUND (v6+), INVALID_GROUP_ID (over 255 characters),
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR.
import { ErrorCode } from '../protocol/errors.js'
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../protocol/messages/15-describe-groups.js'
import { authorizedOperations, canGroup, OPERATIONS_NOT_REQUESTED, Op, ResourceType } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(DescribeGroupsRequest, DescribeGroupsResponse, { minVersion: 0, maxVersion: 6 }, (ctx, req) => ({
  throttleTimeMs: 0,
  groups: ctx.broker.groups.describeGroups(req.groups).map((g) => {
    // DESCRIBE on each group (Kafka's KafkaApis), else GROUP_AUTHORIZATION_FAILED and nothing else.
    if (!canGroup(ctx, Op.DESCRIBE, g.groupId)) {
      return {
        groupId: g.groupId,
        errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code,
        errorMessage: null,
        groupState: '',
        protocolType: '',
        protocolData: '',
        members: [],
        authorizedOperations: OPERATIONS_NOT_REQUESTED,
      }
    }
    const authorized = req.includeAuthorizedOperations ? authorizedOperations(ctx, ResourceType.GROUP, g.groupId) : OPERATIONS_NOT_REQUESTED
    // The coordinator describes a group it does not know (or one that is not classic) as Dead;
    // live groups are never Dead (a group that dies is forgotten at once).
    const unknown = g.groupState === 'Dead' && (g.errorCode === 0 || g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND.code)
    const { errorMessage, ...described } = g
    const group = { ...described, authorizedOperations: authorized }
    if (!unknown) return { ...group, errorMessage: null }
    if (ctx.apiVersion < 6) return { ...group, errorCode: 0, errorMessage: null }
    return { ...group, errorCode: ErrorCode.GROUP_ID_NOT_FOUND.code, errorMessage: errorMessage ?? `Group ${g.groupId} not found.` }
  }),
}))
