// The connection creation rates of KIP-612 that throttle the acceptor, as Kafka's ConnectionQuotas:
// `max.connection.creation.rate` counts new connections on every listener but the inter-broker
// one (when the broker has more than one listener), `listener.name.<l>.max.connection.creation.rate`
// those of one listener (the inter-broker one too). Each new connection is recorded on the
// measures that apply to its listener, and the acceptor then waits the longest throttle time
// they give (Kafka's QuotaUtils.throttleTime, at most one quota window) before taking it: the
// connection waits rather than being closed. (The per-ip connection_creation_rate quota, in
// client-quotas.ts, closes instead.) Read at start; pure given the time, for unit tests.
import type { BrokerConfig } from '../../config/config.js'
import { INT_MAX } from '../../config/config-key.js'
import type { Clock } from '../../util/clock.js'
import { SampledRate } from './rate.js'

export interface ConnectionRateLimits {
  /** max.connection.creation.rate; undefined: none (Kafka's default, Int.MaxValue). */
  broker: number | undefined
  /** listener (upper case) → its listener.name.<l>.max.connection.creation.rate. */
  listeners: ReadonlyMap<string, number>
  /** The inter-broker listener when the broker-wide rate does not apply to it (more than one listener). */
  protectedListener: string | undefined
  samples: number
  windowMs: number
}

export class ConnectionCreationRates {
  private readonly broker: SampledRate
  private readonly perListener = new Map<string, SampledRate>()

  constructor(private readonly limits: ConnectionRateLimits) {
    this.broker = new SampledRate(limits.samples, limits.windowMs)
    for (const name of limits.listeners.keys()) this.perListener.set(name, new SampledRate(limits.samples, limits.windowMs))
  }

  /** Whether any rate applies to connections of the listener. */
  applies(listener: string): boolean {
    return this.perListener.has(listener) || (this.limits.broker !== undefined && listener !== this.limits.protectedListener)
  }

  /** Records a new connection on the listener; how long (ms) the acceptor waits before taking it. */
  acceptDelayMs(listener: string, nowMs: number): number {
    let wait = 0
    const { broker, protectedListener, windowMs } = this.limits
    if (broker !== undefined && listener !== protectedListener) {
      this.broker.record(1, nowMs)
      wait = this.broker.throttleMs(broker, nowMs)
    }
    const own = this.perListener.get(listener)
    if (own !== undefined) {
      own.record(1, nowMs)
      wait = Math.max(wait, own.throttleMs(this.limits.listeners.get(listener)!, nowMs))
    }
    // A quota of 0 gives an infinite throttle: Kafka bounds it by one window.
    return Math.min(wait, windowMs)
  }
}

/** The NetworkServer's acceptor throttle from the broker's config; undefined when no rate is set. */
export function connectionRatesOf(
  config: BrokerConfig,
  clock: Clock,
): { applies(listener: string): boolean; delayMs(listener: string): number } | undefined {
  const KEY = 'max.connection.creation.rate'
  const unlimited = (v: number) => v === Number(INT_MAX)
  const brokerRate = config.get(KEY)
  const listeners = new Map<string, number>()
  for (const l of config.listeners) {
    // Only the listener's own key: the broker-wide rate is counted apart, not inherited.
    if (config.listenerKey(l.name, KEY) === KEY) continue
    const v = config.listenerValue(l.name, KEY)
    if (!unlimited(v)) listeners.set(l.name, v)
  }
  if (unlimited(brokerRate) && listeners.size === 0) return undefined
  const rates = new ConnectionCreationRates({
    broker: unlimited(brokerRate) ? undefined : brokerRate,
    listeners,
    protectedListener: config.listeners.length > 1 ? config.interBrokerListenerName : undefined,
    samples: config.get('quota.window.num'),
    windowMs: config.get('quota.window.size.seconds') * 1000,
  })
  return { applies: (l) => rates.applies(l), delayMs: (l) => rates.acceptDelayMs(l, clock.monotonic()) }
}
