// DescribeAcls v1–3: the bindings matching one filter, grouped by resource pattern. Needs
// DESCRIBE on the cluster. Errors (top level): SECURITY_DISABLED without an authorizer,
// CLUSTER_AUTHORIZATION_FAILED, INVALID_REQUEST for a filter with an UNKNOWN element.
import { ErrorCode } from '../protocol/errors.js'
import { DescribeAclsRequest, DescribeAclsResponse, type DescribeAclsResponseData } from '../protocol/messages/29-describe-acls.js'
import { invalidFilter } from '../security/acl/bindings.js'
import { aclFilterOf, authorizerOf, canCluster, Op } from './authorize.js'
import { defineHandler } from './define.js'

type Resource = DescribeAclsResponseData['resources'][number]

export default defineHandler(DescribeAclsRequest, DescribeAclsResponse, { minVersion: 1, maxVersion: 3 }, (ctx, req) => {
  const fail = (code: number, errorMessage: string | null) => ({ throttleTimeMs: 0, errorCode: code, errorMessage, resources: [] })
  if (!canCluster(ctx, Op.DESCRIBE)) return fail(ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, null)
  const authorizer = authorizerOf(ctx)
  if (!authorizer.enabled) return fail(ErrorCode.SECURITY_DISABLED.code, 'No Authorizer is configured on the broker')
  const filter = aclFilterOf(req)
  const invalid = invalidFilter(filter)
  if (invalid) return fail(ErrorCode.INVALID_REQUEST.code, invalid)
  const byPattern = new Map<string, Resource>()
  for (const b of authorizer.acls(filter)) {
    const key = JSON.stringify([b.resourceType, b.resourceName, b.patternType])
    let r = byPattern.get(key)
    if (!r) byPattern.set(key, (r = { resourceType: b.resourceType, resourceName: b.resourceName, patternType: b.patternType, acls: [] }))
    r.acls.push({ principal: b.principal, host: b.host, operation: b.operation, permissionType: b.permissionType })
  }
  return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, resources: [...byPattern.values()] }
})
