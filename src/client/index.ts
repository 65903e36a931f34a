// A small Kafka client on Tributary's protocol layer (see client.ts).
export { createTopics, type CreateTopicResult, listOffsets, type NewTopic, OffsetSpec } from './admin.js'
export { ApiVersionTable, negotiateApiVersions, type VersionRange } from './api-versions.js'
export {
  type Address,
  KafkaClient,
  type KafkaClientOptions,
  type MetadataOptions,
  parseAddress,
  type RequestOptions,
} from './client.js'
export { Connection, type ConnectionOptions, type RawRequest } from './connection.js'
export { ClientError, errorName, throwIfError } from './errors.js'
export type { BrokerInfo, ClusterMetadata, PartitionInfo, TopicInfo } from './metadata.js'
