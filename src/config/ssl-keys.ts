// The broker keys of TLS listeners (SSL and SASL_SSL) and of the broker's own TLS connections to
// other brokers, with Kafka's names, types and defaults (Kafka's SslConfigs and
// BrokerSecurityConfigs). Each may also be set for one listener as
// `listener.name.<listener>.<key>` (config.ts keeps those; the listener's value wins), which is how
// Kafka reads them. security/tls/ turns them into TLS material; config-defs.ts assembles the tables.
//
// Passwords and inline PEM (ssl.keystore.key, ssl.keystore.certificate.chain,
// ssl.truststore.certificates) are Kafka's PASSWORD type: never logged, described as null.
import type { ConfigKeyDef } from './config-key.js'

/** The TLS protocol versions Tributary serves (older ones are refused at start-up). */
export const SSL_PROTOCOLS = ['TLSv1.2', 'TLSv1.3'] as const

export const SSL_KEYS = [
  {
    name: 'ssl.keystore.type',
    type: 'string',
    default: 'JKS',
    scope: 'broker',
    doc: 'Format of the key store: PEM or PKCS12. JKS (Kafka’s default) is refused with an error naming this key: convert it to PKCS12 (keytool -importkeystore -deststoretype PKCS12) or PEM.',
  },
  {
    name: 'ssl.keystore.location',
    type: 'string',
    default: null,
    scope: 'broker',
    doc: 'The key store file: a PEM file with the private key and the certificate chain, or a PKCS12 file. Re-read when it changes on disk; new connections use the new material.',
  },
  {
    name: 'ssl.keystore.password',
    type: 'password',
    default: null,
    scope: 'broker',
    doc: 'Password of a PKCS12 key store.',
  },
  {
    name: 'ssl.key.password',
    type: 'password',
    default: null,
    scope: 'broker',
    doc: 'Password of the private key (an encrypted PEM key, or the key in a PKCS12 store when it differs from the store password).',
  },
  {
    name: 'ssl.keystore.certificate.chain',
    type: 'password',
    default: null,
    scope: 'broker',
    doc: 'The certificate chain in PEM, inline (with ssl.keystore.type=PEM and ssl.keystore.key), instead of ssl.keystore.location.',
  },
  {
    name: 'ssl.keystore.key',
    type: 'password',
    default: null,
    scope: 'broker',
    doc: 'The private key in PEM (PKCS#8), inline, with ssl.keystore.certificate.chain; encrypted keys take ssl.key.password.',
  },
  {
    name: 'ssl.truststore.type',
    type: 'string',
    default: 'JKS',
    scope: 'broker',
    doc: 'Format of the trust store: PEM. JKS (Kafka’s default) and PKCS12 trust stores are refused with an error naming this key: export the CA certificates to a PEM file.',
  },
  {
    name: 'ssl.truststore.location',
    type: 'string',
    default: null,
    scope: 'broker',
    doc: 'The trust store file: PEM CA certificates that client certificates (mTLS) and other brokers’ certificates must chain to. Re-read when it changes on disk.',
  },
  {
    name: 'ssl.truststore.password',
    type: 'password',
    default: null,
    scope: 'broker',
    doc: 'Password of the trust store (not used by PEM trust stores; accepted for Kafka compatibility).',
  },
  {
    name: 'ssl.truststore.certificates',
    type: 'password',
    default: null,
    scope: 'broker',
    doc: 'Trusted CA certificates in PEM, inline (with ssl.truststore.type=PEM), instead of ssl.truststore.location.',
  },
  {
    name: 'ssl.client.auth',
    type: 'string',
    default: 'none',
    validator: { oneOf: ['required', 'requested', 'none'] },
    scope: 'broker',
    doc: 'Client authentication on TLS listeners: required (a client without a certificate trusted by the trust store is refused), requested (a certificate is asked for but optional; one that is not trusted is refused) or none. SASL_SSL listeners take only their own listener.name.<listener>.ssl.client.auth (KIP-684).',
  },
  {
    name: 'ssl.principal.mapping.rules',
    type: 'string',
    default: 'DEFAULT',
    scope: 'broker',
    doc: 'Rules mapping the subject DN of a client certificate (RFC 2253 form, e.g. CN=alice,OU=eng,O=corp) to the principal name User:<name>: RULE:pattern/replacement/[LU] entries and DEFAULT (the DN as is), comma-separated, the first rule whose pattern matches the whole DN wins. A DN no rule matches fails the connection.',
  },
  {
    name: 'ssl.enabled.protocols',
    type: 'list',
    default: 'TLSv1.2,TLSv1.3',
    validator: { oneOf: SSL_PROTOCOLS },
    scope: 'broker',
    doc: 'TLS versions served (TLSv1.2 and/or TLSv1.3; older versions are refused at start-up).',
  },
  {
    name: 'ssl.protocol',
    type: 'string',
    default: 'TLSv1.3',
    scope: 'broker',
    ignored: true,
    doc: 'The SSLContext protocol of Java. Ignored: ssl.enabled.protocols chooses the versions.',
  },
  {
    name: 'ssl.cipher.suites',
    type: 'list',
    default: null,
    scope: 'broker',
    doc: 'Cipher suites allowed, by their IANA names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256) or OpenSSL names. Unset: the defaults of Node’s OpenSSL. An unknown suite fails start-up.',
  },
  {
    name: 'ssl.endpoint.identification.algorithm',
    type: 'string',
    default: 'https',
    scope: 'broker',
    doc: 'https: a broker connecting to another over TLS checks that the certificate names the host it connects to; empty turns the check off.',
  },
] as const satisfies readonly ConfigKeyDef[]

/** TLS to etcd (etcd.endpoints given as https:// URLs): Tributary's own, as etcd has no Kafka name. */
export const ETCD_TLS_KEYS = [
  {
    name: 'tributary.etcd.ssl.ca.location',
    type: 'string',
    default: null,
    scope: 'broker',
    doc: 'PEM file of the CA certificates etcd’s server certificate must chain to (etcdctl’s --cacert). Setting any tributary.etcd.ssl.* key makes the broker speak TLS to etcd; etcd.endpoints must then be https:// URLs. Unset with https:// endpoints: Node’s bundled CA certificates.',
  },
  {
    name: 'tributary.etcd.ssl.certificate.location',
    type: 'string',
    default: null,
    scope: 'broker',
    doc: 'PEM client certificate (chain) the broker presents to etcd (etcdctl’s --cert), with tributary.etcd.ssl.key.location, when etcd runs with --client-cert-auth.',
  },
  {
    name: 'tributary.etcd.ssl.key.location',
    type: 'string',
    default: null,
    scope: 'broker',
    doc: 'PEM private key (unencrypted) of tributary.etcd.ssl.certificate.location (etcdctl’s --key).',
  },
] as const satisfies readonly ConfigKeyDef[]
