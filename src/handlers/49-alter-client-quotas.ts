// AlterClientQuotas v0–1: sets and removes quota values per entity (security/quota/entity.ts has
// Kafka's rules). Each entity is answered on its own: INVALID_REQUEST for a bad entity, key or
// value, a repeated entity or key; the valid ones are written together (unless validate_only) and
// every broker applies them through the metadata store's change events.
import { AlterClientQuotasRequest, AlterClientQuotasResponse } from '../protocol/messages/49-alter-client-quotas.js'
import { ErrorCode } from '../protocol/errors.js'
import { canCluster, Op } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(AlterClientQuotasRequest, AlterClientQuotasResponse, { minVersion: 0, maxVersion: 1 }, async (ctx, req) => {
  // Kafka: ALTER_CONFIGS on the cluster, else every entry is answered CLUSTER_AUTHORIZATION_FAILED.
  if (!canCluster(ctx, Op.ALTER_CONFIGS)) {
    return {
      throttleTimeMs: 0,
      entries: req.entries.map((e) => ({ errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, errorMessage: null, entity: e.entity })),
    }
  }
  return { throttleTimeMs: 0, entries: await ctx.broker.quotas.alter(req.entries, req.validateOnly) }
})
