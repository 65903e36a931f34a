// A small Kafka client on Tributary's protocol layer (see client.ts).
export {
  type CommittedOffset,
  commitOffsets,
  deleteGroups,
  deleteOffsets,
  describeGroup,
  fetchCommittedOffsets,
  findCoordinator,
  type GroupDescription,
  type GroupListing,
  type GroupMemberDescription,
  listGroups,
  listOffsetsOf,
  type OffsetsByTopic,
  type PartitionOutcome,
} from './admin-groups.js'
export { describeProducers, type PartitionProducers, type ProducerDescription } from './admin-producers.js'
export {
  type AbortSpec,
  abortTransaction,
  describeTransactions,
  type FindHangingOptions,
  findHangingTransactions,
  findOpenTransaction,
  hangingAmong,
  type ListTransactionsOptions,
  listTransactions,
  type OpenTransaction,
  type TransactionDescription,
  type TransactionListing,
} from './admin-transactions.js'
export { createTopics, type CreateTopicResult, listOffsets, type NewTopic, OffsetSpec } from './admin.js'
export {
  alterTopicConfigs,
  brokerApiVersions,
  CONFIG_SOURCES,
  type ClusterDescription,
  type ConfigChange,
  type ConfigOp,
  type ConfigValue,
  type CreatedTopic,
  createPartitions,
  createTopic,
  deleteTopics,
  describeCluster,
  describeLogDirs,
  describeTopics,
  type LogDirView,
  listTopics,
  type PartitionDescription,
  type TopicDescription,
  type TopicListing,
  type TopicOutcome,
} from './admin-topics.js'
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
export { type GroupMetadata, TransactionalProducer, type TransactionalProducerOptions } from './transactional-producer.js'
export {
  type AckKind,
  type AcknowledgementResult,
  type AssignedPartition,
  ShareConsumer,
  type ShareConsumerOptions,
  type ShareRecord,
} from './share-consumer.js'
