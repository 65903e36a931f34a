// DeleteAcls v1–3: deletes every binding each filter matches and lists them. Needs ALTER on the
// cluster. Errors per filter: SECURITY_DISABLED without an authorizer,
// CLUSTER_AUTHORIZATION_FAILED, INVALID_REQUEST for a filter with an UNKNOWN element.
import { ErrorCode } from '../protocol/errors.js'
import { DeleteAclsRequest, DeleteAclsResponse } from '../protocol/messages/31-delete-acls.js'
import { aclFilterOf, authorizerOf, canCluster, Op } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(DeleteAclsRequest, DeleteAclsResponse, { minVersion: 1, maxVersion: 3 }, async (ctx, req) => {
  const all = (errorCode: number, errorMessage: string | null) => ({
    throttleTimeMs: 0,
    filterResults: req.filters.map(() => ({ errorCode, errorMessage, matchingAcls: [] })),
  })
  if (!canCluster(ctx, Op.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, null)
  const authorizer = authorizerOf(ctx)
  if (!authorizer.enabled) return all(ErrorCode.SECURITY_DISABLED.code, 'No Authorizer is configured.')
  const results = await authorizer.deleteAcls(req.filters.map(aclFilterOf))
  return {
    throttleTimeMs: 0,
    filterResults: results.map((r) => ({
      errorCode: r.errorCode,
      errorMessage: r.errorMessage,
      matchingAcls: r.deleted.map((b) => ({ errorCode: 0, errorMessage: null, ...b })),
    })),
  }
})
