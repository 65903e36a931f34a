// Client telemetry (KIP-714): the broker side of GetTelemetrySubscriptions and PushTelemetry, and
// the last metrics payload each client instance pushed, for whoever exports them later.
//
// Subscriptions: Kafka configures them as CLIENT_METRICS config resources (IncrementalAlterConfigs);
// Tributary has no such resource, so nothing can configure one and every client gets the answer
// of a Kafka broker with no matching subscription (ClientMetricsManager): no requested metrics,
// the default push interval of 5 minutes, delta temporality. A Java client then pushes nothing and
// asks again after the interval.
//
// Rules, as ClientMetricsManager applies them:
//   - a zero client instance id gets a fresh random one (never a reserved id, never one in use);
//   - the subscription id is CRC-32C(metrics set + push interval) XOR the instance id's Java
//     hashCode, so it is the same on every broker for the same instance;
//   - a second GetTelemetrySubscriptions, or a PushTelemetry, sooner than the push interval after
//     the last request of the instance → THROTTLING_QUOTA_EXCEEDED (a push straight after a get,
//     and a terminating push, are allowed);
//   - PushTelemetry: a zero or reserved instance id → INVALID_REQUEST; any push after a
//     terminating one → INVALID_REQUEST; a subscription id that is not the instance's →
//     UNKNOWN_SUBSCRIPTION_ID; a compression id that is no codec → UNSUPPORTED_COMPRESSION_TYPE;
//     metrics longer than telemetry.max.bytes → TELEMETRY_TOO_LARGE.
//   - an instance is forgotten when its connection closes, when unused for max(60 s, 3 × push
//     interval), or when 16384 instances are known (the oldest goes first).
// Stored payloads are bounded by count and by total bytes; the oldest are evicted first.
import { ErrorCode } from '../protocol/errors.js'
import { crc32c } from '../protocol/records/crc32c.js'
import { METADATA_TOPIC_ID, randomUuid, uuidToBytes, ZERO_UUID } from '../cluster/uuid.js'
import type { Clock } from '../util/clock.js'
import type { PushParams, TelemetryConnection, TelemetryPush, TelemetryService, TelemetrySubscription } from '../ports/telemetry.js'

/** ClientMetricsConfigs.DEFAULT_INTERVAL_MS. */
export const DEFAULT_PUSH_INTERVAL_MS = 5 * 60_000
/** telemetry.max.bytes default. */
export const DEFAULT_TELEMETRY_MAX_BYTES = 1024 * 1024
/** The codecs accepted for pushes, in Kafka's order of preference: zstd, lz4, gzip, snappy. */
export const ACCEPTED_COMPRESSION_TYPES: readonly number[] = [4, 3, 1, 2]

const MAX_INSTANCES = 16_384
const INSTANCE_EXPIRY_MS = 60_000

const NONE = 0
const INVALID_REQUEST = ErrorCode.INVALID_REQUEST.code
const UNSUPPORTED_COMPRESSION_TYPE = ErrorCode.UNSUPPORTED_COMPRESSION_TYPE.code
const THROTTLING_QUOTA_EXCEEDED = ErrorCode.THROTTLING_QUOTA_EXCEEDED.code
const UNKNOWN_SUBSCRIPTION_ID = ErrorCode.UNKNOWN_SUBSCRIPTION_ID.code
const TELEMETRY_TOO_LARGE = ErrorCode.TELEMETRY_TOO_LARGE.code

export interface TelemetryOptions {
  clock: Clock
  telemetryMaxBytes?: number
  /** Bounds of the payload store. */
  maxStoredPushes?: number
  maxStoredBytes?: number
  random?: (n: number) => Buffer
}

interface Instance {
  id: string
  subscriptionId: number
  metrics: string[]
  pushIntervalMs: number
  lastGetMs: number
  lastPushMs: number
  lastSeenMs: number
  terminating: boolean
}

/** Java's Uuid.hashCode(): the XOR of its four 32-bit words. */
function uuidHashCode(id: string): number {
  const b = uuidToBytes(id)
  return b.readInt32BE(0) ^ b.readInt32BE(4) ^ b.readInt32BE(8) ^ b.readInt32BE(12)
}

/** ClientMetricsManager.computeSubscriptionId; metrics as Java prints a set ("[a, b]"). */
export function subscriptionIdOf(metrics: readonly string[], pushIntervalMs: number, clientInstanceId: string): number {
  const text = Buffer.from(`[${metrics.join(', ')}]${pushIntervalMs}`, 'utf8')
  return crc32c(text) ^ uuidHashCode(clientInstanceId)
}

export class ClientTelemetry implements TelemetryService {
  private readonly clock: Clock
  private readonly maxBytes: number
  private readonly maxStoredPushes: number
  private readonly maxStoredBytes: number
  private readonly random: ((n: number) => Buffer) | undefined
  /** By id; Map order = least recently used first. */
  private readonly instances = new Map<string, Instance>()
  private readonly byConnection = new Map<number, string>()
  private readonly stored = new Map<string, TelemetryPush>()
  private storedBytes = 0

  constructor(opts: TelemetryOptions) {
    this.clock = opts.clock
    this.maxBytes = opts.telemetryMaxBytes ?? DEFAULT_TELEMETRY_MAX_BYTES
    this.maxStoredPushes = opts.maxStoredPushes ?? 1000
    this.maxStoredBytes = opts.maxStoredBytes ?? 64 * 1024 * 1024
    this.random = opts.random
  }

  getSubscription(clientInstanceId: string, conn: TelemetryConnection): TelemetrySubscription {
    const now = this.clock.now()
    let id = clientInstanceId
    if (id === ZERO_UUID) {
      do id = randomUuid(this.random)
      while (this.instances.has(id))
    }
    const inst = this.instance(id, conn, now)
    if (now - Math.max(inst.lastGetMs, inst.lastPushMs) < inst.pushIntervalMs) {
      return {
        errorCode: THROTTLING_QUOTA_EXCEEDED,
        clientInstanceId: ZERO_UUID,
        subscriptionId: 0,
        acceptedCompressionTypes: [],
        pushIntervalMs: 0,
        telemetryMaxBytes: 0,
        deltaTemporality: false,
        requestedMetrics: [],
      }
    }
    inst.lastGetMs = now
    return {
      errorCode: NONE,
      clientInstanceId: id,
      subscriptionId: inst.subscriptionId,
      acceptedCompressionTypes: [...ACCEPTED_COMPRESSION_TYPES],
      pushIntervalMs: inst.pushIntervalMs,
      telemetryMaxBytes: this.maxBytes,
      deltaTemporality: true,
      requestedMetrics: [...inst.metrics],
    }
  }

  push(p: PushParams, conn: TelemetryConnection): number {
    if (p.clientInstanceId === ZERO_UUID || p.clientInstanceId === METADATA_TOPIC_ID) return INVALID_REQUEST
    const now = this.clock.now()
    const inst = this.instance(p.clientInstanceId, conn, now)
    const error = this.validatePush(inst, p, now)
    // As Kafka: the request's terminating flag is recorded whatever the outcome.
    inst.terminating = p.terminating
    if (error !== NONE) return error
    if (p.metrics.length > 0) this.store(p, now)
    return NONE
  }

  lastPush(clientInstanceId: string): TelemetryPush | undefined {
    return this.stored.get(clientInstanceId)
  }

  pushes(): TelemetryPush[] {
    return [...this.stored.values()]
  }

  private validatePush(inst: Instance, p: PushParams, now: number): number {
    if (inst.terminating) return INVALID_REQUEST
    // A push right after a get is accepted early: clients jitter the interval.
    const accept = inst.lastGetMs > inst.lastPushMs || now - inst.lastPushMs >= inst.pushIntervalMs
    if (accept) inst.lastPushMs = now
    else if (!p.terminating) return THROTTLING_QUOTA_EXCEEDED
    if (p.subscriptionId !== inst.subscriptionId) return UNKNOWN_SUBSCRIPTION_ID
    if (!Number.isInteger(p.compressionType) || p.compressionType < 0 || p.compressionType > 4) return UNSUPPORTED_COMPRESSION_TYPE
    if (p.metrics.length > this.maxBytes) return TELEMETRY_TOO_LARGE
    return NONE
  }

  /** The instance's state, created (or re-created once expired) as needed; marks it used. */
  private instance(id: string, conn: TelemetryConnection, now: number): Instance {
    let inst = this.instances.get(id)
    if (inst && now - inst.lastSeenMs > Math.max(INSTANCE_EXPIRY_MS, 3 * inst.pushIntervalMs)) inst = undefined
    if (inst) this.instances.delete(id)
    else {
      // No subscription can be configured (see the header): none matches any client.
      const metrics: string[] = []
      const pushIntervalMs = DEFAULT_PUSH_INTERVAL_MS
      inst = {
        id,
        subscriptionId: subscriptionIdOf(metrics, pushIntervalMs, id),
        metrics,
        pushIntervalMs,
        lastGetMs: Number.NEGATIVE_INFINITY,
        lastPushMs: Number.NEGATIVE_INFINITY,
        lastSeenMs: now,
        terminating: false,
      }
    }
    inst.lastSeenMs = now
    this.instances.set(id, inst)
    while (this.instances.size > MAX_INSTANCES) this.instances.delete(this.instances.keys().next().value!)
    this.track(conn, id)
    return inst
  }

  /** Forgets the connection's instance when the connection closes (Kafka's disconnect listener). */
  private track(conn: TelemetryConnection, id: string): void {
    const known = this.byConnection.has(conn.id)
    this.byConnection.set(conn.id, id)
    if (known) return
    const forget = () => {
      const instanceId = this.byConnection.get(conn.id)
      this.byConnection.delete(conn.id)
      if (instanceId !== undefined) this.instances.delete(instanceId)
    }
    if (conn.closed.aborted) forget()
    else conn.closed.addEventListener('abort', forget, { once: true })
  }

  private store(p: PushParams, now: number): void {
    const old = this.stored.get(p.clientInstanceId)
    if (old) {
      this.stored.delete(p.clientInstanceId)
      this.storedBytes -= old.metrics.length
    }
    // A copy: the request's bytes are a view into a pooled read buffer.
    const metrics = Buffer.from(p.metrics)
    this.stored.set(p.clientInstanceId, {
      clientInstanceId: p.clientInstanceId,
      clientId: p.clientId,
      receivedMs: now,
      compressionType: p.compressionType,
      metrics,
      terminating: p.terminating,
    })
    this.storedBytes += metrics.length
    while (this.stored.size > this.maxStoredPushes || this.storedBytes > this.maxStoredBytes) {
      const [oldestId, oldest] = this.stored.entries().next().value!
      this.stored.delete(oldestId)
      this.storedBytes -= oldest.metrics.length
    }
  }
}
