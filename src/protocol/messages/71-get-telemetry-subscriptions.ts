// GetTelemetrySubscriptions (key 71), v0; flexible. KIP-714: a client asks which of its metrics
// the cluster wants, how often and how compressed; a client without an instance id sends the zero
// uuid and is given one.
import { f, type Infer, message, T } from '../schema.js'

export const GetTelemetrySubscriptionsRequest = message({
  apiKey: 71,
  name: 'GetTelemetrySubscriptions',
  versions: '0',
  flexible: '0+',
  fields: {
    clientInstanceId: f.uuid('0+'),
  },
})

export const GetTelemetrySubscriptionsResponse = message({
  apiKey: 71,
  name: 'GetTelemetrySubscriptions',
  versions: '0',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    clientInstanceId: f.uuid('0+'),
    subscriptionId: f.int32('0+'),
    /** Record-batch compression ids (1 gzip, 2 snappy, 3 lz4, 4 zstd), in order of preference. */
    acceptedCompressionTypes: f.arrayOf('0+', T.int8),
    pushIntervalMs: f.int32('0+'),
    telemetryMaxBytes: f.int32('0+'),
    deltaTemporality: f.bool('0+'),
    /** Metric name prefixes; [] = none, [''] = every metric. */
    requestedMetrics: f.arrayOf('0+', T.string),
  },
})

export type GetTelemetrySubscriptionsRequestData = Infer<typeof GetTelemetrySubscriptionsRequest>
export type GetTelemetrySubscriptionsResponseData = Infer<typeof GetTelemetrySubscriptionsResponse>
