// The SASL mechanisms the broker serves, by the name clients send in SaslHandshake. Each entry
// builds one listener's SaslMechanism from that listener's settings; a mechanism named in
// sasl.enabled.mechanisms but missing here fails the start-up (setup.ts). Adding a mechanism =
// adding its factory here. A factory throws ConfigError (naming the key) for a setting it cannot use.
import { ConfigError, type BrokerConfig } from '../../config/config.js'
import type { MetadataStore } from '../../ports/metadata-store.js'
import type { Clock } from '../../util/clock.js'
import type { Logger } from '../../util/logger.js'
import type { JaasEntry } from './jaas.js'
import type { SaslMechanism } from './mechanism.js'
import { OAUTHBEARER, createOAuthBearerMechanism } from './oauthbearer.js'
import { plainMechanism, plainUsers } from './plain.js'
import { scramMechanism } from './scram.js'
import { SCRAM_MECHANISMS } from '../../protocol/sasl/scram-crypto.js'

/** What a mechanism may use to set itself up on one listener. */
export interface MechanismSetup {
  listenerName: string
  /** The SASL name, e.g. "PLAIN". */
  mechanism: string
  /** The mechanism's JAAS login module on this listener (listener.name.<l>.<mechanism>.sasl.jaas.config, else sasl.jaas.config). */
  jaas: JaasEntry | undefined
  /** The key the JAAS config was read from, for error messages. */
  jaasKey: string
  config: BrokerConfig
  /** The cluster metadata (SCRAM credentials are security entries of kind 'scram'). */
  store: MetadataStore
  clock: Clock
  logger: Logger
}

export type MechanismFactory = (setup: MechanismSetup) => SaslMechanism

export const SASL_MECHANISMS: ReadonlyMap<string, MechanismFactory> = new Map<string, MechanismFactory>([
  [
    'PLAIN',
    (s) => {
      if (!s.jaas) {
        throw new ConfigError(
          `SASL mechanism PLAIN on listener ${s.listenerName} needs a JAAS config with its users: set ${s.jaasKey}`,
          s.jaasKey,
        )
      }
      return plainMechanism(plainUsers(s.jaas))
    },
  ],
  // SCRAM's users are the credentials in the metadata store (AlterUserScramCredentials); its JAAS
  // config only matters for the broker's own inter-broker login.
  ...SCRAM_MECHANISMS.map((m): [string, MechanismFactory] => [m.name, (s) => scramMechanism(m, s.store)]),
  // Tokens validated against the listener's JWKS (oauthbearer.ts reads its settings, naming the key).
  [OAUTHBEARER, (s) => createOAuthBearerMechanism(s.config, s.listenerName, { log: s.logger, clock: s.clock })],
])
