// How a client secures its connections, as Kafka's client properties say it: security.protocol,
// the SASL mechanism and credentials, and the TLS settings (PEM). The CLI reads these from
// --command-config (a Kafka client properties file) or TRIBUTARY_ environment variables; a broker
// uses them for its inter-broker connections. Secrets here are never logged.

import type { SecurityProtocol } from '../network/listeners.js'

export interface ClientSaslOptions {
  /** PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER. */
  mechanism: string
  username?: string
  password?: string
  /** OAUTHBEARER: the token to send (a JWT), or a function asked for a fresh one per authentication. */
  token?: string | (() => Promise<string> | string)
}

export interface ClientTlsOptions {
  /** PEM certificates of the CAs to trust (ssl.truststore.certificates / ssl.truststore.location). */
  ca?: string
  /** PEM certificate chain and private key, for mTLS (ssl.keystore.certificate.chain / ssl.keystore.key). */
  cert?: string
  key?: string
  /** ssl.key.password, for an encrypted key. */
  passphrase?: string
  /** ssl.endpoint.identification.algorithm=https (the default) checks the broker's host name. */
  checkHostname?: boolean
}

export interface ClientSecurity {
  protocol: SecurityProtocol
  sasl?: ClientSaslOptions
  tls?: ClientTlsOptions
}

/** Where and how a broker reaches another broker: its inter-broker listener's address and security. */
export interface InterBrokerEndpoint {
  host: string
  port: number
  security?: ClientSecurity
}
