// The configuration keys Tributary knows, with Kafka's names, types and defaults (docs/architecture.md §1.7),
// declared as data in broker-keys.ts, log-keys.ts and topic-keys.ts and put together here, with the
// types derived from them. config.ts parses, validates and resolves them; DescribeConfigs reads them back.
//
// Defaults are written as Kafka documents them (strings), parsed once at module load by config.ts,
// so the table itself is checked. Where our default differs from Kafka's, the doc says so:
//   listeners                         PLAINTEXT://127.0.0.1:9092 (Kafka: PLAINTEXT://:9092, all interfaces)
//   log.dir                           ./tributary-data            (Kafka: /tmp/kafka-logs)
//   node.id, broker.id                0                           (Kafka: -1, must be set in KRaft mode)
//   offsets.topic.replication.factor  1                           (Kafka: 3)
//   transaction.state.log.replication.factor 1, transaction.state.log.min.isr 1 (Kafka: 3 and 2)
//   share.coordinator.state.topic.replication.factor 1, .min.isr 1 (Kafka: 3 and 2)
// so that `tributary start` with no configuration is a complete single-node broker. A cluster sets
// these to 3 / 2 like Kafka.
//
// Longs: Kafka's Long.MAX_VALUE (9223372036854775807) means "never" (flush.messages, flush.ms,
// max.compaction.lag.ms, timestamp bounds). Values are JS numbers (docs/architecture.md §1.4): any long beyond
// ±Number.MAX_SAFE_INTEGER is clamped to it, which is still "never" (2^53 ms ≈ 285,000 years), and is
// described back as 9223372036854775807.
//
// `ignored` keys are accepted (type-checked, described) so that a Kafka server.properties can be
// reused without warnings, but have no effect: Node runs one event loop, and there is no KRaft
// quorum or ZooKeeper (cluster metadata lives in the local store or etcd, docs/architecture.md §1.5).
import { MEMBERSHIP_AND_NETWORK_KEYS, SERVICE_KEYS } from './broker-keys.js'
import { AUTHORIZER_KEYS } from './authorizer-keys.js'
import { HTTP_KEYS } from './http-keys.js'
import { SHARE_COORDINATOR_KEYS, SHARE_GROUP_KEYS } from './share-keys.js'
import type { ConfigType } from './config-key.js'
import { LOG_KEYS } from './log-keys.js'
import { OAUTHBEARER_KEYS } from './oauthbearer-keys.js'
import { SASL_KEYS } from './sasl-keys.js'
import { ETCD_TLS_KEYS, SSL_KEYS } from './ssl-keys.js'
import { QUOTA_KEYS } from './quota-keys.js'
import type { TOPIC_CONFIG_DEFS } from './topic-keys.js'

export * from './config-key.js'
export { BROKER_SYNONYM_GROUPS, TOPIC_CONFIG_DEFS } from './topic-keys.js'

/** Every broker key, in the order DescribeConfigs lists them. */
export const BROKER_CONFIG_DEFS = [
  ...MEMBERSHIP_AND_NETWORK_KEYS,
  ...LOG_KEYS,
  ...SERVICE_KEYS,
  ...SHARE_GROUP_KEYS,
  ...SHARE_COORDINATOR_KEYS,
  ...SSL_KEYS,
  ...ETCD_TLS_KEYS,
  ...HTTP_KEYS,
  ...SASL_KEYS,
  ...OAUTHBEARER_KEYS,
  ...QUOTA_KEYS,
  ...AUTHORIZER_KEYS,
] as const

// ---------------------------------------------------------------------------------------------
// Types derived from the tables
// ---------------------------------------------------------------------------------------------

type BrokerDef = (typeof BROKER_CONFIG_DEFS)[number]
type TopicDef = (typeof TOPIC_CONFIG_DEFS)[number]

export type BrokerConfigName = BrokerDef['name']
export type TopicConfigName = TopicDef['name']

/** The JS type of a parsed value of each config type. */
export type ValueOfType<T extends ConfigType> = T extends 'int' | 'long' | 'double'
  ? number
  : T extends 'boolean'
    ? boolean
    : T extends 'list'
      ? readonly string[]
      : string

type ValueOfDef<D extends { type: ConfigType; default: string | null }> =
  | ValueOfType<D['type']>
  | (D['default'] extends null ? null : never)

export type BrokerConfigValue<N extends BrokerConfigName> = ValueOfDef<Extract<BrokerDef, { name: N }>>
export type TopicConfigValue<N extends TopicConfigName> = ValueOfDef<Extract<TopicDef, { name: N }>>

/** Every topic config, resolved (no key is ever null at topic level). */
export type TopicConfigValues = { readonly [N in TopicConfigName]: TopicConfigValue<N> }
