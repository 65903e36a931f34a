// How this broker connects to the others (replica fetchers, coordinators' connections, share
// leaders' clients): the inter-broker listener's security protocol, its TLS material (read again on
// each connection, so a reloaded certificate is used: tls/listener-tls.ts) and, on a SASL
// listener, the broker's own login (sasl.mechanism.inter.broker.protocol and the username and
// password of that mechanism's JAAS config: sasl/setup.ts). undefined = PLAINTEXT.
import type { ClientSecurity } from '../client/security.js'
import type { BrokerConfig } from '../config/config.js'
import { interBrokerSecurity as saslLogin } from './sasl/setup.js'
import { type ListenerTlsContext, interBrokerSecurity as tlsTransport } from './tls/listener-tls.js'

export function interBrokerSecurity(
  config: BrokerConfig,
  tlsContexts: ReadonlyMap<string, ListenerTlsContext>,
): () => ClientSecurity | undefined {
  // Both read and check their settings now: a missing login or key store fails start-up.
  const login = saslLogin(config)
  const transport = tlsTransport(config, tlsContexts)
  return () => {
    const tls = transport()
    if (login === undefined && tls === undefined) return undefined
    return { ...tls, ...login, protocol: (login ?? tls)!.protocol }
  }
}
