// PushTelemetry v0 (KIP-714): hands the client's metrics to the telemetry service
// (telemetry/client-telemetry.ts), which keeps the last payload per instance. Errors, as Kafka's
// ClientMetricsManager: INVALID_REQUEST (zero/reserved instance id, or a push after a terminating
// one), THROTTLING_QUOTA_EXCEEDED, UNKNOWN_SUBSCRIPTION_ID, UNSUPPORTED_COMPRESSION_TYPE,
// TELEMETRY_TOO_LARGE.
import { PushTelemetryRequest, PushTelemetryResponse } from '../protocol/messages/72-push-telemetry.js'
import { defineHandler } from './define.js'

export default defineHandler(PushTelemetryRequest, PushTelemetryResponse, { minVersion: 0, maxVersion: 0 }, (ctx, req) => ({
  throttleTimeMs: 0,
  errorCode: ctx.broker.telemetry.push({ ...req, clientId: ctx.header.clientId }, ctx.conn),
}))
