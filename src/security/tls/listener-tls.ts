// The TLS of one SSL or SASL_SSL listener (network/types.ts ListenerTls), built from its ssl.*
// settings (ssl-settings.ts), and the same material as a client's, for the broker's own
// connections to other brokers on that listener (it presents its key store, trusts its trust store).
//
// Reload: the key store and trust store files are polled (fs.watchFile, every RELOAD_POLL_MS, so a
// file replaced by a rename is seen too). On a change both are re-read and checked; good material
// is used by new connections (the server's setSecureContext, and the next inter-broker
// connection), bad material is logged and the previous kept. Open connections keep theirs.
//
// The principal of an SSL connection with a trusted client certificate is User:<name>, the name
// being its subject DN in RFC 2253 form mapped by ssl.principal.mapping.rules
// (principal-mapping.ts); without a certificate it stays User:ANONYMOUS. A SASL_SSL listener
// leaves the principal to SASL.

import type { X509Certificate } from 'node:crypto'
import { type Stats, unwatchFile, watchFile } from 'node:fs'
import type { SecureContextOptions } from 'node:tls'
import type { ClientSecurity, ClientTlsOptions } from '../../client/security.js'
import type { BrokerConfig } from '../../config/config.js'
import { ConfigError } from '../../config/config.js'
import type { SecurityProtocol } from '../../network/listeners.js'
import { type KafkaPrincipal, userPrincipal } from '../../network/principal.js'
import type { ListenerTls } from '../../network/types.js'
import type { Logger } from '../../util/logger.js'
import { PrincipalMapper, rfc2253 } from './principal-mapping.js'
import { readSslSettings, rereadMaterial, type SslSettings, type TlsMaterial } from './ssl-settings.js'

/** How often the key and trust store files are checked for changes. */
export const RELOAD_POLL_MS = 1000

export class ListenerTlsContext implements ListenerTls {
  readonly clientAuth: SslSettings['clientAuth']
  readonly principalOf?: (cert: X509Certificate) => KafkaPrincipal
  private material: TlsMaterial
  private readonly settings: SslSettings

  private constructor(
    private readonly config: BrokerConfig,
    private readonly listener: string,
    protocol: SecurityProtocol,
    private readonly log: Logger,
  ) {
    this.settings = readSslSettings(config, listener)
    this.material = this.settings.material
    // KIP-684: on SASL_SSL listeners only the listener's own ssl.client.auth counts; the
    // broker-wide one is for SSL listeners.
    const ownClientAuth = config.listenerKey(listener, 'ssl.client.auth') !== 'ssl.client.auth'
    this.clientAuth = protocol === 'SASL_SSL' && !ownClientAuth ? 'none' : this.settings.clientAuth
    let mapper: PrincipalMapper
    try {
      mapper = new PrincipalMapper(this.settings.principalMappingRules)
    } catch (err) {
      const key = config.listenerKey(listener, 'ssl.principal.mapping.rules')
      throw new ConfigError(`Invalid ${key}: ${(err as Error).message}`, key, this.settings.principalMappingRules)
    }
    if (protocol === 'SSL') this.principalOf = (cert) => userPrincipal(mapper.name(rfc2253(cert.subject)))
  }

  /** The TLS of a listener; throws ConfigError naming the ssl.* key at fault. */
  static fromConfig(config: BrokerConfig, listener: string, protocol: SecurityProtocol, logger: Logger): ListenerTlsContext {
    return new ListenerTlsContext(config, listener, protocol, logger)
  }

  contextOptions(): SecureContextOptions {
    return { ...this.material, ...this.settings.protocol }
  }

  /** This listener's material as a client's: for this broker's connections to other brokers on it. */
  clientTls(): ClientTlsOptions {
    const m = this.material
    return {
      ...(m.ca !== undefined ? { ca: m.ca } : {}),
      ...(m.cert !== undefined ? { cert: m.cert } : {}),
      ...(m.key !== undefined ? { key: m.key } : {}),
      ...(m.pfx !== undefined ? { pfx: m.pfx } : {}),
      ...(m.passphrase !== undefined ? { passphrase: m.passphrase } : {}),
      checkHostname: this.settings.checkHostname,
    }
  }

  watch(changed: () => void): () => void {
    const paths = [this.settings.files.keystore, this.settings.files.truststore].filter((p): p is string => p !== undefined)
    const onChange = (cur: Stats, prev: Stats) => {
      if (cur.mtimeMs === prev.mtimeMs && cur.size === prev.size && cur.ino === prev.ino) return
      try {
        this.material = rereadMaterial(this.config, this.listener, this.settings.protocol)
      } catch (err) {
        this.log.warn('TLS material changed on disk but cannot be used; keeping the previous', {
          listener: this.listener,
          reason: (err as Error).message,
        })
        return
      }
      changed()
    }
    for (const p of new Set(paths)) watchFile(p, { interval: RELOAD_POLL_MS, persistent: false }, onChange)
    return () => {
      for (const p of new Set(paths)) unwatchFile(p, onChange)
    }
  }
}

/** The TLS of every SSL and SASL_SSL listener, by listener name; throws ConfigError on a bad setting. */
export function listenerTlsContexts(config: BrokerConfig, logger: Logger): Map<string, ListenerTlsContext> {
  const out = new Map<string, ListenerTlsContext>()
  for (const l of config.listeners) {
    if (l.securityProtocol === 'SSL' || l.securityProtocol === 'SASL_SSL') {
      out.set(l.name, ListenerTlsContext.fromConfig(config, l.name, l.securityProtocol, logger))
    }
  }
  return out
}

/**
 * How this broker connects to others: the inter-broker listener's security protocol, and over
 * TLS that listener's current material (read at each call, so a reload reaches new connections).
 */
export function interBrokerSecurity(
  config: BrokerConfig,
  contexts: ReadonlyMap<string, ListenerTlsContext>,
): () => ClientSecurity | undefined {
  const name = config.interBrokerListenerName
  const protocol = config.advertisedListeners.find((l) => l.name === name)?.securityProtocol ?? 'PLAINTEXT'
  if (protocol === 'PLAINTEXT') return () => undefined
  const tls = contexts.get(name)
  return () => ({ protocol, ...(tls ? { tls: tls.clientTls() } : {}) })
}
