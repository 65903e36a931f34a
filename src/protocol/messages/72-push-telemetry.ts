// PushTelemetry (key 72), v0; flexible. KIP-714: a client sends its metrics, OpenTelemetry
// MetricsData protobuf, compressed with one of the accepted codecs (0 = none).
import { f, type Infer, message } from '../schema.js'

export const PushTelemetryRequest = message({
  apiKey: 72,
  name: 'PushTelemetry',
  versions: '0',
  flexible: '0+',
  fields: {
    clientInstanceId: f.uuid('0+'),
    subscriptionId: f.int32('0+'),
    terminating: f.bool('0+'),
    compressionType: f.int8('0+'),
    metrics: f.bytes('0+'),
  },
})

export const PushTelemetryResponse = message({
  apiKey: 72,
  name: 'PushTelemetry',
  versions: '0',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
  },
})

export type PushTelemetryRequestData = Infer<typeof PushTelemetryRequest>
export type PushTelemetryResponseData = Infer<typeof PushTelemetryResponse>
