// DescribeUserScramCredentials v0: each user's SCRAM mechanisms and iteration counts (never a key
// or salt). Errors per user: RESOURCE_NOT_FOUND (no credential), DUPLICATE_RESOURCE (named twice).
import {
  DescribeUserScramCredentialsRequest,
  DescribeUserScramCredentialsResponse,
} from '../protocol/messages/50-describe-user-scram-credentials.js'
import { ErrorCode } from '../protocol/errors.js'
import { canCluster, Op } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(
  DescribeUserScramCredentialsRequest,
  DescribeUserScramCredentialsResponse,
  { minVersion: 0, maxVersion: 0 },
  (ctx, req) => {
    const service = ctx.broker.scramCredentials
    if (!service) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION.code, errorMessage: 'SCRAM is not available', results: [] }
    }
    // Kafka: DESCRIBE on the cluster.
    if (!canCluster(ctx, Op.DESCRIBE)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, results: [] }
    return { throttleTimeMs: 0, errorCode: 0, results: service.describe(req.users?.map((u) => u.name) ?? null) }
  },
)
