// The broker keys of SASL authentication (src/security/sasl/), with Kafka's names and defaults.
// Each may also be given per listener, and the JAAS config and the re-authentication limit per
// listener and mechanism, in Kafka's prefixed forms (listener-scoped.ts):
//   listener.name.<listener>.sasl.enabled.mechanisms
//   listener.name.<listener>.<mechanism lower-case>.sasl.jaas.config
//   listener.name.<listener>.<mechanism lower-case>.connections.max.reauth.ms
// config-defs.ts assembles the tables.
import type { ConfigKeyDef } from './config-key.js'

export const SASL_KEYS = [
  {
    name: 'sasl.enabled.mechanisms',
    type: 'list',
    default: 'GSSAPI',
    scope: 'broker',
    doc: 'The SASL mechanisms a SASL listener enables (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER). As in Kafka the default is GSSAPI, which Tributary does not serve: a SASL listener must name its mechanisms.',
  },
  {
    name: 'sasl.mechanism.inter.broker.protocol',
    type: 'string',
    default: 'GSSAPI',
    scope: 'broker',
    doc: 'The SASL mechanism brokers use to reach each other when the inter-broker listener is SASL; its credentials are the username and password of that mechanism’s JAAS config on that listener.',
  },
  {
    name: 'sasl.jaas.config',
    type: 'password',
    default: null,
    scope: 'broker',
    doc: 'JAAS login context in Kafka’s syntax (e.g. org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";), used by a listener and mechanism without their own listener.name.<listener>.<mechanism>.sasl.jaas.config.',
  },
  {
    name: 'sasl.server.max.receive.size',
    type: 'int',
    default: '524288',
    validator: { min: 1 },
    scope: 'broker',
    doc: 'The largest frame a SASL connection may send before it is authenticated; a larger one closes it.',
  },
  {
    name: 'connections.max.reauth.ms',
    type: 'long',
    default: '0',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'KIP-368: the longest a SASL session lasts before the client must re-authenticate on its connection (a connection past it is closed at its next request). 0: no limit.',
  },
  {
    name: 'connection.failed.authentication.delay.ms',
    type: 'int',
    default: '100',
    validator: { min: 0 },
    scope: 'broker',
    doc: 'How long the answer to a failed authentication is held back before the connection is closed (slows down password guessing).',
  },
] as const satisfies readonly ConfigKeyDef[]
