// CreateAcls v1–3: stores each valid binding (an existing one is kept and answered as success).
// Needs ALTER on the cluster. Errors per creation: SECURITY_DISABLED without an authorizer,
// CLUSTER_AUTHORIZATION_FAILED, INVALID_REQUEST (Kafka's checks, security/acl/bindings.ts).
import { ErrorCode } from '../protocol/errors.js'
import { CreateAclsRequest, CreateAclsResponse } from '../protocol/messages/30-create-acls.js'
import { authorizerOf, canCluster, Op } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(CreateAclsRequest, CreateAclsResponse, { minVersion: 1, maxVersion: 3 }, async (ctx, req) => {
  const all = (errorCode: number, errorMessage: string | null) => ({
    throttleTimeMs: 0,
    results: req.creations.map(() => ({ errorCode, errorMessage })),
  })
  if (!canCluster(ctx, Op.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, null)
  const authorizer = authorizerOf(ctx)
  if (!authorizer.enabled) return all(ErrorCode.SECURITY_DISABLED.code, 'No Authorizer is configured.')
  const results = await authorizer.createAcls(
    req.creations.map((c) => ({
      resourceType: c.resourceType,
      resourceName: c.resourceName,
      patternType: c.resourcePatternType,
      principal: c.principal,
      host: c.host,
      operation: c.operation,
      permissionType: c.permissionType,
    })),
  )
  return { throttleTimeMs: 0, results }
})
