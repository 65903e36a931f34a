// GetTelemetrySubscriptions v0 (KIP-714): the subscription of the client instance, from the
// telemetry service (telemetry/client-telemetry.ts) — a zero instance id is assigned one; with no
// subscription configurable, the answer requests no metrics. THROTTLING_QUOTA_EXCEEDED when asked
// again within the push interval.
import { GetTelemetrySubscriptionsRequest, GetTelemetrySubscriptionsResponse } from '../protocol/messages/71-get-telemetry-subscriptions.js'
import { defineHandler } from './define.js'

export default defineHandler(
  GetTelemetrySubscriptionsRequest,
  GetTelemetrySubscriptionsResponse,
  { minVersion: 0, maxVersion: 0 },
  (ctx, req) => ({ throttleTimeMs: 0, ...ctx.broker.telemetry.getSubscription(req.clientInstanceId, ctx.conn) }),
)
