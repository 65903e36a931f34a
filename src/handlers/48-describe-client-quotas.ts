// DescribeClientQuotas v0–1: the quota entities matching the filter, with their values.
// A bad filter (empty or repeated type, a match string where none belongs or missing, an
// unknown match type, ip with user or client-id) is INVALID_REQUEST; an unknown entity type
// UNSUPPORTED_VERSION — in the response's error, with entries null, as Kafka answers.
import { ErrorCode, toErrorCode } from '../protocol/errors.js'
import { canCluster, Op } from './authorize.js'
import { DescribeClientQuotasRequest, DescribeClientQuotasResponse } from '../protocol/messages/48-describe-client-quotas.js'
import { defineHandler } from './define.js'

export default defineHandler(DescribeClientQuotasRequest, DescribeClientQuotasResponse, { minVersion: 0, maxVersion: 1 }, (ctx, req) => {
  // Kafka: DESCRIBE_CONFIGS on the cluster.
  if (!canCluster(ctx, Op.DESCRIBE_CONFIGS))
    return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, errorMessage: null, entries: null }
  try {
    const entries = ctx.broker.quotas.describe(req.components, req.strict)
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, entries }
  } catch (err) {
    return { throttleTimeMs: 0, errorCode: toErrorCode(err), errorMessage: err instanceof Error ? err.message : String(err), entries: null }
  }
})
