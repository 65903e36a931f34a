// Builds the broker's SASL authenticator from its config, failing the start-up with a ConfigError
// that names the key for anything Kafka would refuse: a SASL listener with no mechanism, a mechanism
// Tributary does not serve, a JAAS config that does not parse (its value, a secret, is never
// quoted), an inter-broker SASL mechanism the inter-broker listener does not enable.
import { type BrokerConfig, ConfigError } from '../../config/config.js'
import { listenerScopedKey } from '../../config/listener-scoped.js'
import type { ClientSecurity } from '../../client/security.js'
import type { MetadataStore } from '../../ports/metadata-store.js'
import type { Clock } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import { type ListenerSasl, SaslAuthenticator } from './authenticator.js'
import { type JaasEntry, JaasSyntaxError, parseSaslJaasConfig } from './jaas.js'
import type { SaslMechanism } from './mechanism.js'
import { SASL_MECHANISMS } from './registry.js'

export interface SaslSetupDeps {
  store: MetadataStore
  clock: Clock
  logger: Logger
}

/** The JAAS login module of a mechanism on a listener, and the key it came from (undefined: none set). */
export function listenerJaas(config: BrokerConfig, listener: string, mechanism: string): { entry?: JaasEntry; key: string } {
  const text = config.listenerValue(listener, 'sasl.jaas.config', mechanism)
  // Nothing set: the key to set is the listener's and mechanism's.
  if (text === null || text === '') return { key: listenerScopedKey(listener, 'sasl.jaas.config', mechanism) }
  const key = config.listenerKey(listener, 'sasl.jaas.config', mechanism)
  try {
    return { entry: parseSaslJaasConfig(text), key }
  } catch (err) {
    if (err instanceof JaasSyntaxError) throw new ConfigError(`Invalid value [hidden] for configuration ${key}: ${err.message}`, key)
    throw err
  }
}

/**
 * How this broker connects to the others (replica fetchers, coordinators' connections), as Kafka
 * does: the inter-broker listener's security protocol and, when it is SASL,
 * sasl.mechanism.inter.broker.protocol with the username and password of that mechanism's JAAS
 * config on that listener. Undefined for PLAINTEXT. (TLS settings for SSL / SASL_SSL are the TLS
 * work's.)
 */
export function interBrokerSecurity(config: BrokerConfig, name = config.interBrokerListenerName): ClientSecurity | undefined {
  const listener = config.listeners.find((l) => l.name === name) ?? config.advertisedListeners.find((l) => l.name === name)
  const protocol = listener?.securityProtocol ?? 'PLAINTEXT'
  if (protocol === 'PLAINTEXT') return undefined
  if (!protocol.startsWith('SASL_')) return { protocol }
  const mechanism = config.get('sasl.mechanism.inter.broker.protocol')
  const jaas = listenerJaas(config, name, mechanism)
  const username = jaas.entry?.options.get('username')
  const password = jaas.entry?.options.get('password')
  if (username === undefined || password === undefined) {
    throw new ConfigError(
      `The inter-broker listener ${name} uses ${protocol} with ${mechanism}: ${jaas.key} must give the broker's own username and password options`,
      jaas.key,
    )
  }
  return { protocol, sasl: { mechanism, username, password } }
}

/** The authenticator of the broker's SASL listeners; undefined when no listener uses SASL. */
export function createSaslAuthenticator(config: BrokerConfig, deps: SaslSetupDeps): SaslAuthenticator | undefined {
  const listeners = new Map<string, ListenerSasl>()
  for (const l of config.listeners) {
    if (!l.securityProtocol.startsWith('SASL_')) continue
    const enabledKey = config.listenerKey(l.name, 'sasl.enabled.mechanisms')
    const enabled = config.listenerValue(l.name, 'sasl.enabled.mechanisms')
    if (enabled.length === 0) {
      throw new ConfigError(`Listener ${l.name} uses ${l.securityProtocol} but ${enabledKey} is empty`, enabledKey, '')
    }
    const mechanisms = new Map<string, SaslMechanism>()
    for (const name of enabled) {
      const factory = SASL_MECHANISMS.get(name)
      if (!factory) {
        throw new ConfigError(
          `${enabledKey} names SASL mechanism ${name}, which Tributary does not serve (it serves ${[...SASL_MECHANISMS.keys()].join(', ')})`,
          enabledKey,
          enabled.join(','),
        )
      }
      const jaas = listenerJaas(config, l.name, name)
      mechanisms.set(name, factory({ listenerName: l.name, mechanism: name, jaas: jaas.entry, jaasKey: jaas.key, config, ...deps }))
    }
    listeners.set(l.name, {
      mechanisms,
      maxReauthMs: (m) => config.listenerValue(l.name, 'connections.max.reauth.ms', m),
    })
  }
  if (listeners.size === 0) return undefined
  const inter = listeners.get(config.interBrokerListenerName)
  const interMechanism = config.get('sasl.mechanism.inter.broker.protocol')
  if (inter && !inter.mechanisms.has(interMechanism)) {
    throw new ConfigError(
      `sasl.mechanism.inter.broker.protocol (${interMechanism}) must be one of the mechanisms enabled on the inter-broker listener ${config.interBrokerListenerName} (${[...inter.mechanisms.keys()].join(', ')})`,
      'sasl.mechanism.inter.broker.protocol',
      interMechanism,
    )
  }
  return new SaslAuthenticator({
    listeners,
    failedAuthenticationDelayMs: config.get('connection.failed.authentication.delay.ms'),
    clock: deps.clock,
    logger: deps.logger,
  })
}
