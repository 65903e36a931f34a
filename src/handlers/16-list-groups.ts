// ListGroups v0–5: every group this coordinator knows. v4 filters by state and reports it
// (KIP-518); v5 filters by type and reports it ("classic", "consumer" (KIP-848), "share" (KIP-932),
// whose protocol type is "share" too). Filters compare case-insensitively; an empty filter
// matches everything.
import { ListGroupsRequest, ListGroupsResponse } from '../protocol/messages/16-list-groups.js'
import { canCluster, canGroup, Op } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(ListGroupsRequest, ListGroupsResponse, { minVersion: 0, maxVersion: 5 }, (ctx, req) => {
  const r = ctx.broker.groups.listGroups({
    states: ctx.apiVersion >= 4 ? req.statesFilter : [],
    types: ctx.apiVersion >= 5 ? req.typesFilter : [],
  })
  // DESCRIBE on the cluster lists every group; else only the groups the caller may DESCRIBE.
  const groups = canCluster(ctx, Op.DESCRIBE) ? r.groups : r.groups.filter((g) => canGroup(ctx, Op.DESCRIBE, g.groupId))
  return { throttleTimeMs: 0, errorCode: r.errorCode, groups }
})
