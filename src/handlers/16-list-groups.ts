// ListGroups v0–5: every group this coordinator knows. v4 filters by state and reports it
// (KIP-518); v5 filters by type and reports it ("classic", "consumer" (KIP-848), "share" (KIP-932),
// whose protocol type is "share" too). Filters compare case-insensitively; an empty filter
// matches everything.
import { ListGroupsRequest, ListGroupsResponse } from '../protocol/messages/16-list-groups.js'
import { defineHandler } from './define.js'

export default defineHandler(ListGroupsRequest, ListGroupsResponse, { minVersion: 0, maxVersion: 5 }, (ctx, req) => {
  const r = ctx.broker.groups.listGroups({
    states: ctx.apiVersion >= 4 ? req.statesFilter : [],
    types: ctx.apiVersion >= 5 ? req.typesFilter : [],
  })
  return { throttleTimeMs: 0, errorCode: r.errorCode, groups: r.groups }
})
