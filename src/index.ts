// Public API of the `tributary` package: start a broker in-process, and the types around it.
export * from './broker/start.js'
export {
  type BrokerConfig,
  type BrokerConfigName,
  type BrokerConfigValue,
  ConfigError,
  type ConfigOrigin,
  type DescribedConfig,
  type Listener,
  type LoadBrokerConfigOptions,
  loadBrokerConfig,
  type TopicConfigName,
  type TopicConfigValues,
} from './config/config.js'
export type { MetadataStore, TopicRecord } from './ports/metadata-store.js'
export type { Clock } from './util/clock.js'
export { createLogger, type Logger, type LogLevel, silentLogger } from './util/logger.js'
// The share-group (KIP-932 queue) consumer of the client library.
export {
  type AckKind,
  type AcknowledgementResult,
  type AssignedPartition,
  ShareConsumer,
  type ShareConsumerOptions,
  type ShareRecord,
} from './client/share-consumer.js'
