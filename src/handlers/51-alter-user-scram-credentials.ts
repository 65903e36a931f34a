// AlterUserScramCredentials v0: deletes and upserts SCRAM credentials, kept as StoredKey/ServerKey
// in the metadata store (security/sasl/scram-credentials.ts). Errors per user, as Kafka's
// controller answers: UNACCEPTABLE_CREDENTIAL (empty name, iterations outside 4096..16384),
// UNSUPPORTED_SASL_MECHANISM, DUPLICATE_RESOURCE (a user altered twice), RESOURCE_NOT_FOUND
// (deleting what does not exist).
import {
  AlterUserScramCredentialsRequest,
  AlterUserScramCredentialsResponse,
} from '../protocol/messages/51-alter-user-scram-credentials.js'
import { ErrorCode } from '../protocol/errors.js'
import { canCluster, Op } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(
  AlterUserScramCredentialsRequest,
  AlterUserScramCredentialsResponse,
  { minVersion: 0, maxVersion: 0 },
  async (ctx, req) => {
    const service = ctx.broker.scramCredentials
    const users = () => [...new Set([...req.deletions, ...req.upsertions].map((x) => x.name))]
    if (!service) {
      return {
        throttleTimeMs: 0,
        results: users().map((user) => ({ user, errorCode: ErrorCode.UNSUPPORTED_VERSION.code, errorMessage: 'SCRAM is not available' })),
      }
    }
    // Kafka: ALTER on the cluster, else every user is answered CLUSTER_AUTHORIZATION_FAILED.
    if (!canCluster(ctx, Op.ALTER)) {
      return {
        throttleTimeMs: 0,
        results: users().map((user) => ({ user, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, errorMessage: null })),
      }
    }
    return { throttleTimeMs: 0, results: await service.alter(req.deletions, req.upsertions) }
  },
)
