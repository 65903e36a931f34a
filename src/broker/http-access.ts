// How the HTTP modules' Kafka clients reach this broker (tributary.http.authentication,
// src/http/auth.ts): which advertised listener they use and with what security.
// - none: a PLAINTEXT listener, else an SSL one (trusting the listener's own trust store, never
//   presenting the broker's key store: HTTP callers must not act as the broker); they act as
//   User:ANONYMOUS.
// - basic: a SASL listener (SASL_PLAINTEXT or SASL_SSL), logging in as the HTTP request's user
//   with tributary.http.sasl.mechanism, else with SCRAM-SHA-512, SCRAM-SHA-256 and PLAIN, those the
//   listener enables, in that order until one accepts the user. A broker without one fails start-up.
// A broker with only SASL listeners and authentication none still starts (a Kafka server.properties
// works as is): its HTTP requests are answered with the reason.
import type { KafkaClientOptions } from '../client/client.js'
import type { ClientSecurity } from '../client/security.js'
import { type BrokerConfig, ConfigError } from '../config/config.js'
import type { HttpUser } from '../http/auth.js'
import type { ListenerTlsContext } from '../security/tls/listener-tls.js'
import type { Logger } from '../util/logger.js'

const HTTP_MECHANISMS = ['SCRAM-SHA-512', 'SCRAM-SHA-256', 'PLAIN']

export function httpClientOptions(
  config: BrokerConfig,
  tlsContexts: ReadonlyMap<string, ListenerTlsContext>,
  address: (listener: string) => string | undefined,
  logger: Logger,
): { options: (clientId: string, user: HttpUser | null) => KafkaClientOptions; mechanisms: readonly string[] } {
  const mode = config.get('tributary.http.authentication')
  const listeners = config.advertisedListeners
  const pick =
    mode === 'basic'
      ? listeners.find((l) => l.securityProtocol.startsWith('SASL_'))
      : (listeners.find((l) => l.securityProtocol === 'PLAINTEXT') ?? listeners.find((l) => l.securityProtocol === 'SSL'))
  if (!pick) {
    if (mode === 'basic') {
      throw new ConfigError(
        'tributary.http.authentication=basic needs a SASL_PLAINTEXT or SASL_SSL listener to log HTTP users in on',
        'tributary.http.authentication',
        mode,
      )
    }
    // Kafka's own server.properties (SASL listeners only) must still start: HTTP answers each
    // request with the reason instead.
    const why =
      'this broker has no PLAINTEXT or SSL listener for anonymous HTTP requests: set tributary.http.authentication=basic (or tributary.http.listeners= to turn HTTP off)'
    logger.warn(`HTTP cannot reach Kafka: ${why}`)
    return {
      options: () => {
        throw new Error(why)
      },
      mechanisms: [],
    }
  }
  const protocol = pick.securityProtocol
  const tlsContext = protocol === 'SSL' || protocol === 'SASL_SSL' ? tlsContexts.get(pick.name) : undefined
  // The mechanisms an HTTP user may log in with, tried in order (auth.ts remembers the one that
  // worked): SCRAM users come from the metadata store, PLAIN users from the listener's JAAS config.
  let mechanisms: string[] = []
  if (mode === 'basic') {
    const enabled = config.listenerValue(pick.name, 'sasl.enabled.mechanisms')
    const chosen = config.get('tributary.http.sasl.mechanism')
    mechanisms = chosen !== null ? [chosen] : HTTP_MECHANISMS.filter((m) => enabled.includes(m))
    if (mechanisms.length === 0 || !mechanisms.every((m) => enabled.includes(m))) {
      throw new ConfigError(
        `tributary.http.authentication=basic logs in with ${chosen ?? 'PLAIN or SCRAM'}, which listener ${pick.name} does not enable`,
        'tributary.http.sasl.mechanism',
        chosen ?? '',
      )
    }
  }
  const options = (clientId: string, user: HttpUser | null): KafkaClientOptions => {
    const tls = tlsContext?.clientTls()
    const security: ClientSecurity | undefined =
      protocol === 'PLAINTEXT'
        ? undefined
        : {
            protocol,
            ...(tls ? { tls: { ...(tls.ca !== undefined ? { ca: tls.ca } : {}), checkHostname: tls.checkHostname } } : {}),
            ...(user ? { sasl: { mechanism: user.mechanism ?? mechanisms[0]!, username: user.username, password: user.password } } : {}),
          }
    return { bootstrap: [address(pick.name) ?? ''], clientId, ...(security ? { security } : {}) }
  }
  return { options, mechanisms }
}
