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
