// ShareGroupDescribe v1 (KIP-932): share groups with their state (Empty, Stable), epochs, the
// `simple` assignor and each member's subscription and assignment (topic ids and names).
// Errors per group: GROUP_ID_NOT_FOUND (unknown, or a group of another type), INVALID_GROUP_ID,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR. Authorized operations are not computed.
import { ShareGroupDescribeRequest, ShareGroupDescribeResponse } from '../protocol/messages/77-share-group-describe.js'
import { defineHandler } from './define.js'

export default defineHandler(ShareGroupDescribeRequest, ShareGroupDescribeResponse, { minVersion: 1, maxVersion: 1 }, (ctx, req) => ({
  throttleTimeMs: 0,
  groups: ctx.broker.groups.shareGroupDescribe(req.groupIds),
}))
