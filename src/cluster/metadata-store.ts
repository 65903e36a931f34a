// The MetadataStore port (DESIGN §1.5): the cluster metadata every broker agrees on — the cluster
// id, the topics (name, id, partition count, replication factor, topic-level config overrides),
// the dynamic broker configs (KIP-226: per broker, and the cluster-wide default) and the
// producer-id allocator. Two implementations: LocalMetadataStore (single node, journaled to the
// data dir) and the etcd store (multi-broker). Reads are synchronous from an in-memory image; every
// write resolves only once it is durable.
//
// Contract every implementation keeps:
// - topic names and topic ids are unique; a deleted topic's id is never given to another topic;
// - a topic id never changes while the topic exists, across restarts included;
// - partitions only grow (updateTopic refuses fewer: INVALID_PARTITIONS);
// - producer-id blocks never overlap, across restarts included;
// - failures map to Kafka error codes (KafkaError): TOPIC_ALREADY_EXISTS,
//   UNKNOWN_TOPIC_OR_PARTITION, INVALID_PARTITIONS, INVALID_REQUEST; a failed write leaves the
//   image unchanged.

export interface TopicRecord {
  name: string
  /** Kafka Uuid as base64url, 22 chars, like Kafka's Uuid.toString(). */
  topicId: string
  partitions: number
  replicationFactor: number
  /** Topic-level overrides only (the broker config supplies the rest). */
  configs: Record<string, string>
  createdMs: number
}

export type NewTopic = Omit<TopicRecord, 'topicId' | 'createdMs'> & { topicId?: string }

export interface MetadataStore {
  clusterId(): string
  listTopics(): TopicRecord[]
  getTopic(name: string): TopicRecord | undefined
  getTopicById(id: string): TopicRecord | undefined
  /** Throws KafkaError TOPIC_ALREADY_EXISTS if the name (or the given id) is taken. */
  createTopic(t: NewTopic): Promise<TopicRecord>
  /** Throws KafkaError UNKNOWN_TOPIC_OR_PARTITION if absent. */
  deleteTopic(name: string): Promise<void>
  /**
   * Raises the partition count and/or replaces the whole override map (`configs` is the new set,
   * not a diff). Throws UNKNOWN_TOPIC_OR_PARTITION, or INVALID_PARTITIONS when partitions shrink.
   */
  updateTopic(name: string, patch: Partial<Pick<TopicRecord, 'partitions' | 'configs'>>): Promise<TopicRecord>
  /**
   * Dynamic broker configs (KIP-226) of one resource: "" is the cluster-wide default, a node id
   * (as text) that broker's own. Values are canonical texts, already validated. {} when none.
   */
  getBrokerConfigs(resourceName: string): Readonly<Record<string, string>>
  /** Replaces the whole dynamic config set of a resource (an empty set removes it). */
  setBrokerConfigs(resourceName: string, configs: Readonly<Record<string, string>>): Promise<void>
  /** Durable allocation: producer ids in [start, start + size) are never handed out again. */
  nextProducerIdBlock(size: number): Promise<{ start: number; size: number }>
  close(): Promise<void>
}
