// The TelemetryService port (KIP-714): what the GetTelemetrySubscriptions and PushTelemetry
// handlers call, and what a metrics exporter reads. telemetry/client-telemetry.ts implements it.

/** One metrics push, as the client sent it (still compressed). */
export interface TelemetryPush {
  clientInstanceId: string
  clientId: string | null
  receivedMs: number
  /** Record-batch codec id the payload is compressed with (0 = none). */
  compressionType: number
  /** OpenTelemetry MetricsData v1, protobuf; a copy owned by the store. */
  metrics: Buffer
  terminating: boolean
}

/** What a metrics exporter reads. */
export interface TelemetryReader {
  /** The last payload the instance pushed, while it is kept. */
  lastPush(clientInstanceId: string): TelemetryPush | undefined
  /** Every kept payload, oldest first. */
  pushes(): TelemetryPush[]
}

export interface TelemetryConnection {
  id: number
  /** Aborts when the connection closes. */
  closed: AbortSignal
}

export interface TelemetrySubscription {
  errorCode: number
  clientInstanceId: string
  subscriptionId: number
  acceptedCompressionTypes: number[]
  pushIntervalMs: number
  telemetryMaxBytes: number
  deltaTemporality: boolean
  requestedMetrics: string[]
}

export interface PushParams {
  clientInstanceId: string
  subscriptionId: number
  terminating: boolean
  compressionType: number
  metrics: Buffer
  clientId: string | null
}

/** The port the handlers of APIs 71 and 72 call. */
export interface TelemetryService extends TelemetryReader {
  getSubscription(clientInstanceId: string, conn: TelemetryConnection): TelemetrySubscription
  /** Kafka's error code for the push (0 = accepted). */
  push(params: PushParams, conn: TelemetryConnection): number
}
