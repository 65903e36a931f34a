// The acceptor's connection quotas, as Kafka's ConnectionQuotas, changeable at run time as Kafka's
// DynamicConnectionQuota and ListenerConnectionQuota make them (KIP-226: AlterConfigs on a BROKER
// resource, per broker or as the cluster-wide default):
//
// - max.connections: connections the broker holds at once. The inter-broker listener is spared
//   when the broker has more than one listener (Kafka's protected listener; Kafka then closes the
//   least recently used connection of another listener, which Tributary does not: it takes the
//   inter-broker connection beside them). listener.name.<l>.max.connections limits one listener.
//   At the limit the acceptor waits for a connection to close: lowering it closes nothing.
// - max.connections.per.ip, max.connections.per.ip.overrides (host:count pairs; hostnames are
//   resolved when the value is set, to every address they have): an address at its maximum has
//   its next connection closed at once. 0 only with overrides (Kafka's rule, config.ts).
// - max.connection.creation.rate and its listener form: the acceptor's throttle (connection-rate.ts).
//
// The NetworkServer asks this object at every new connection (its acceptThrottle and
// connectionLimits hooks), so reconfigure() applies to the next connection; then the broker calls
// the server's quotasChanged() (onChange) so connections waiting for a slot are reconsidered.
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import type { BrokerConfig } from '../../config/config.js'
import { INT_MAX, parseConnectionOverrides } from '../../config/config-key.js'
import type { Clock } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import { ConnectionCreationRates, connectionRateLimitsOf } from './connection-rate.js'

/** The connection limits of one configuration; Infinity where none is set (Kafka's Int.MaxValue). */
export interface ConnectionLimitValues {
  broker: number
  /** listener (upper case) → its listener.name.<l>.max.connections. */
  listeners: ReadonlyMap<string, number>
  protectedListener: string | undefined
  perIp: number
  /** Address → its own maximum (max.connections.per.ip.overrides, resolved). */
  perIpOverrides: ReadonlyMap<string, number>
}

const unlimited = (v: number): number => (v === Number(INT_MAX) ? Number.POSITIVE_INFINITY : v)

/** The limits a config sets, with the override hosts that are addresses already (names are resolved apart). */
export function connectionLimitsOf(config: BrokerConfig): { limits: ConnectionLimitValues; hostnames: Map<string, number> } {
  const KEY = 'max.connections'
  const listeners = new Map<string, number>()
  for (const l of config.listeners) {
    // Only the listener's own key: the broker-wide limit is counted apart, not inherited.
    if (config.listenerKey(l.name, KEY) === KEY) continue
    const v = unlimited(config.listenerValue(l.name, KEY))
    if (v !== Number.POSITIVE_INFINITY) listeners.set(l.name, v)
  }
  const perIpOverrides = new Map<string, number>()
  const hostnames = new Map<string, number>()
  for (const [host, count] of parseConnectionOverrides(config.get('max.connections.per.ip.overrides'))) {
    if (isIP(host) !== 0) perIpOverrides.set(host.toLowerCase(), count)
    else hostnames.set(host, count)
  }
  return {
    limits: {
      broker: unlimited(config.get(KEY)),
      listeners,
      protectedListener: config.listeners.length > 1 ? config.interBrokerListenerName : undefined,
      perIp: unlimited(config.get('max.connections.per.ip')),
      perIpOverrides,
    },
    hostnames,
  }
}

export interface ConnectionQuotasOptions {
  clock: Clock
  logger?: Logger
  /** Resolves an override's hostname to its addresses (tests); default node:dns lookup. */
  resolve?: (host: string) => Promise<string[]>
}

export class ConnectionQuotas {
  private readonly rates: ConnectionCreationRates
  private limits: ConnectionLimitValues
  private readonly listeners: Array<() => void> = []
  /** Counts reconfigurations, so a slow hostname lookup never overwrites a newer setting. */
  private generation = 0
  private readonly resolve: (host: string) => Promise<string[]>

  constructor(
    config: BrokerConfig,
    private readonly opts: ConnectionQuotasOptions,
  ) {
    this.resolve = opts.resolve ?? (async (host) => (await lookup(host, { all: true })).map((a) => a.address))
    this.rates = new ConnectionCreationRates(connectionRateLimitsOf(config))
    this.limits = this.apply(config)
  }

  /** Called after every change of the limits (hostnames of overrides resolved included). */
  onChange(listener: () => void): void {
    this.listeners.push(listener)
  }

  /** The broker's config changed: the limits and rates it sets apply to the next connection. */
  reconfigure(config: BrokerConfig): void {
    this.rates.reconfigure(connectionRateLimitsOf(config))
    this.limits = this.apply(config)
    this.changed()
  }

  /** The current limits (for tests and logs). */
  get values(): ConnectionLimitValues {
    return this.limits
  }

  private changed(): void {
    for (const l of this.listeners) l()
  }

  private apply(config: BrokerConfig): ConnectionLimitValues {
    const generation = ++this.generation
    const { limits, hostnames } = connectionLimitsOf(config)
    if (hostnames.size > 0) void this.resolveHostnames(generation, hostnames)
    return limits
  }

  private async resolveHostnames(generation: number, hostnames: ReadonlyMap<string, number>): Promise<void> {
    const resolved = new Map<string, number>()
    for (const [host, count] of hostnames) {
      try {
        for (const address of await this.resolve(host)) resolved.set(address.toLowerCase(), count)
      } catch (err) {
        // Kafka takes an unresolvable host too (the value is stored); it just matches no connection.
        this.opts.logger?.warn('max.connections.per.ip.overrides: cannot resolve a host; its override applies to no address', {
          host,
          error: (err as Error).message,
        })
      }
    }
    if (generation !== this.generation || resolved.size === 0) return
    // Addresses given as such win over those a name resolves to.
    const perIpOverrides = new Map([...resolved, ...this.limits.perIpOverrides])
    this.limits = { ...this.limits, perIpOverrides }
    this.changed()
  }

  // The NetworkServer's acceptThrottle hook.

  applies(listener: string): boolean {
    return this.rates.applies(listener)
  }

  delayMs(listener: string): number {
    return this.rates.acceptDelayMs(listener, this.opts.clock.monotonic())
  }

  // The NetworkServer's connectionLimits hook (Kafka's ConnectionQuotas.connectionSlotAvailable).

  slotAvailable(listener: string, live: { total: number; listener: number }): boolean {
    const own = this.limits.listeners.get(listener)
    if (own !== undefined && live.listener >= own) return false
    if (listener === this.limits.protectedListener) return true
    return live.total < this.limits.broker
  }

  maxConnectionsPerIp(address: string): number {
    return this.limits.perIpOverrides.get(address.toLowerCase()) ?? this.limits.perIp
  }
}
