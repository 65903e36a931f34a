// Builds the broker's SASL authenticator from its config, failing the start-up with a ConfigError
// that names the key for anything Kafka would refuse: a SASL listener with no mechanism, a mechanism
// Tributary does not serve, a JAAS config that does not parse (its value, a secret, is never
// quoted), an inter-broker SASL mechanism the inter-broker listener does not enable.
import { type BrokerConfig, ConfigError } from '../../config/config.js'
import { listenerScopedKey } from '../../config/listener-scoped.js'
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
