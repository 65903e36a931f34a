// DeleteGroups v0–2: removes Empty groups with their committed offsets (tombstones for the group
// and every offset in `__consumer_offsets`).
// Errors per group: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP (members remain), INVALID_GROUP_ID,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR, a failed write's code.
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../protocol/messages/42-delete-groups.js'
import { defineHandler } from './define.js'

export default defineHandler(DeleteGroupsRequest, DeleteGroupsResponse, { minVersion: 0, maxVersion: 2 }, async (ctx, req) => ({
  throttleTimeMs: 0,
  results: await ctx.broker.groups.deleteGroups(req.groupsNames),
}))
