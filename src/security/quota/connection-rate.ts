// The connection creation rates of KIP-612 that throttle the acceptor, as Kafka's ConnectionQuotas:
// `max.connection.creation.rate` counts new connections on every listener but the inter-broker
// one (when the broker has more than one listener), `listener.name.<l>.max.connection.creation.rate`
// those of one listener (the inter-broker one too). Each new connection is recorded on the
// measures that apply to its listener, and the acceptor then waits the longest throttle time
// they give (Kafka's QuotaUtils.throttleTime, at most one quota window) before taking it: the
// connection waits rather than being closed. (The per-ip connection_creation_rate quota, in
// client-quotas.ts, closes instead.) The rates can change at run time (reconfigure, from
// connection-quotas.ts); pure given the time, for unit tests.
import type { BrokerConfig } from '../../config/config.js'
import { INT_MAX } from '../../config/config-key.js'
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
  private limits: ConnectionRateLimits

  constructor(limits: ConnectionRateLimits) {
    this.limits = limits
    this.broker = new SampledRate(limits.samples, limits.windowMs)
    this.reconfigure(limits)
  }

  /**
   * New rates (KIP-226: max.connection.creation.rate and its listener form are dynamic). As Kafka
   * updates the quota of its sensors, what was measured so far is kept; a listener that gets a
   * rate starts measuring now. The window settings are the ones given at construction.
   */
  reconfigure(limits: ConnectionRateLimits): void {
    this.limits = { ...limits, samples: this.broker.samples, windowMs: this.broker.windowMs }
    for (const name of limits.listeners.keys()) {
      if (!this.perListener.has(name)) this.perListener.set(name, new SampledRate(this.broker.samples, this.broker.windowMs))
    }
    for (const name of [...this.perListener.keys()]) if (!limits.listeners.has(name)) this.perListener.delete(name)
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

/** The rates the broker's config sets (max.connection.creation.rate and its listener-prefixed form). */
export function connectionRateLimitsOf(config: BrokerConfig): ConnectionRateLimits {
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
  return {
    broker: unlimited(brokerRate) ? undefined : brokerRate,
    listeners,
    protectedListener: config.listeners.length > 1 ? config.interBrokerListenerName : undefined,
    samples: config.get('quota.window.num'),
    windowMs: config.get('quota.window.size.seconds') * 1000,
  }
}
