// DeleteGroups v0–3: removes Empty groups with their committed offsets (tombstones for the group
// and every offset in `__consumer_offsets`); a share group (KIP-932) only when it has no member,
// its share-partitions' state deleted through the share coordinator first. v3 carries a message
// with each failed group (null on success). Kafka's GROUP_DELETION_FAILED concerns the topology of streams groups, which do not
// exist here, so it is never answered.
// Errors per group: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP (members remain), INVALID_GROUP_ID,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR, a failed write's code.
import { ErrorCode, errorByCode } from '../protocol/errors.js'
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../protocol/messages/42-delete-groups.js'
import { canGroup, Op } from './authorize.js'
import { defineHandler } from './define.js'

function errorMessage(groupId: string, errorCode: number): string | null {
  if (errorCode === 0) return null
  const name = errorByCode(errorCode)?.name ?? `error code ${errorCode}`
  switch (name) {
    case 'GROUP_ID_NOT_FOUND':
      return `Group ${groupId} not found.`
    case 'NON_EMPTY_GROUP':
      return `Group ${groupId} is not empty: it still has members.`
    default:
      return `Group ${groupId} could not be deleted: ${name}.`
  }
}

export default defineHandler(DeleteGroupsRequest, DeleteGroupsResponse, { minVersion: 0, maxVersion: 3 }, async (ctx, req) => {
  // DELETE on each group, else GROUP_AUTHORIZATION_FAILED for it (Kafka's KafkaApis).
  const allowed = req.groupsNames.filter((g) => canGroup(ctx, Op.DELETE, g))
  const deleted = new Map((await ctx.broker.groups.deleteGroups(allowed)).map((r) => [r.groupId, r.errorCode]))
  return {
    throttleTimeMs: 0,
    results: req.groupsNames.map((groupId) => {
      const errorCode = deleted.get(groupId) ?? ErrorCode.GROUP_AUTHORIZATION_FAILED.code
      return { groupId, errorCode, errorMessage: errorMessage(groupId, errorCode) }
    }),
  }
})
