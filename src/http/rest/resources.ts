// The REST API's resources in Confluent REST Proxy v3's JSON shapes (its openapi spec, api/v3):
// every resource has a `kind` and `metadata` {self, resource_name}; a collection has `kind`
// "<Kind>List", `metadata` {self, next: null} and `data`; other resources are reached through
// {"related": url} links. URLs are absolute, built from the request's Host header, so that a
// client follows them to the address it used; resource names are CRNs,
// crn:///kafka=<cluster_id>/topic=<name>/partition=<n>.
//
// Rules: pure functions of what the routes found (no I/O); field names as REST Proxy spells them.

/** Builds URLs and CRNs under /v3/clusters/<cluster_id> for one request. */
export class Links {
  readonly clusterUrl: string
  readonly crn: string

  constructor(
    readonly base: string,
    readonly clusterId: string,
  ) {
    this.clusterUrl = `${base}/v3/clusters/${enc(clusterId)}`
    this.crn = `crn:///kafka=${clusterId}`
  }

  url(...parts: Array<string | number>): string {
    return [this.clusterUrl, ...parts.map((p) => enc(String(p)))].join('/')
  }

  related(...parts: Array<string | number>): { related: string } {
    return { related: this.url(...parts) }
  }
}

const enc = (s: string): string => encodeURIComponent(s)

type Json = Record<string, unknown>

export function list(kind: string, self: string, data: Json[]): Json {
  return { kind: `${kind}List`, metadata: { self, next: null }, data }
}

function resource(kind: string, self: string, resourceName: string): Json {
  return { kind, metadata: { self, resource_name: resourceName } }
}

export function clusterData(l: Links, controllerId: number): Json {
  return {
    ...resource('KafkaCluster', l.clusterUrl, l.crn),
    cluster_id: l.clusterId,
    ...(controllerId >= 0 ? { controller: l.related('brokers', controllerId) } : {}),
    acls: l.related('acls'),
    brokers: l.related('brokers'),
    broker_configs: l.related('broker-configs'),
    consumer_groups: l.related('consumer-groups'),
    topics: l.related('topics'),
    partition_reassignments: { related: `${l.url('topics', '-', 'partitions', '-')}/reassignment` },
  }
}

export interface BrokerView {
  nodeId: number
  host: string
  port: number
  rack: string | null
}

export function brokerData(l: Links, b: BrokerView): Json {
  return {
    ...resource('KafkaBroker', l.url('brokers', b.nodeId), `${l.crn}/broker=${b.nodeId}`),
    cluster_id: l.clusterId,
    broker_id: b.nodeId,
    host: b.host,
    port: b.port,
    rack: b.rack,
    configs: l.related('brokers', b.nodeId, 'configs'),
    partition_replicas: l.related('brokers', b.nodeId, 'partition-replicas'),
  }
}

export interface TopicView {
  name: string
  internal: boolean
  partitions: number
  replicationFactor: number
}

export function topicData(l: Links, t: TopicView): Json {
  return {
    ...resource('KafkaTopic', l.url('topics', t.name), `${l.crn}/topic=${t.name}`),
    cluster_id: l.clusterId,
    topic_name: t.name,
    is_internal: t.internal,
    replication_factor: t.replicationFactor,
    partitions_count: t.partitions,
    partitions: l.related('topics', t.name, 'partitions'),
    configs: l.related('topics', t.name, 'configs'),
    partition_reassignments: { related: `${l.url('topics', t.name, 'partitions', '-')}/reassignment` },
    authorized_operations: [],
  }
}

export function partitionData(l: Links, topic: string, partition: number, leader: number): Json {
  const self = l.url('topics', topic, 'partitions', partition)
  return {
    ...resource('KafkaPartition', self, `${l.crn}/topic=${topic}/partition=${partition}`),
    cluster_id: l.clusterId,
    topic_name: topic,
    partition_id: partition,
    ...(leader >= 0 ? { leader: { related: `${self}/replicas/${leader}` } } : {}),
    replicas: { related: `${self}/replicas` },
    reassignment: { related: `${self}/reassignment` },
  }
}

export function replicaData(l: Links, topic: string, partition: number, brokerId: number, leader: boolean, inSync: boolean): Json {
  return {
    ...resource(
      'KafkaReplica',
      l.url('topics', topic, 'partitions', partition, 'replicas', brokerId),
      `${l.crn}/topic=${topic}/partition=${partition}/replica=${brokerId}`,
    ),
    cluster_id: l.clusterId,
    topic_name: topic,
    partition_id: partition,
    broker_id: brokerId,
    is_leader: leader,
    is_in_sync: inSync,
    broker: l.related('brokers', brokerId),
  }
}

export interface ConfigSynonym {
  name: string
  value: string | null
  source: string
}

export interface ConfigView {
  name: string
  value: string | null
  isDefault: boolean
  readOnly: boolean
  sensitive: boolean
  source: string
  synonyms: ConfigSynonym[]
}

export function topicConfigData(l: Links, topic: string, c: ConfigView): Json {
  return {
    ...resource('KafkaTopicConfig', l.url('topics', topic, 'configs', c.name), `${l.crn}/topic=${topic}/config=${c.name}`),
    cluster_id: l.clusterId,
    topic_name: topic,
    name: c.name,
    value: c.value,
    is_default: c.isDefault,
    is_read_only: c.readOnly,
    is_sensitive: c.sensitive,
    source: c.source,
    synonyms: c.synonyms.map((s) => ({ name: s.name, value: s.value, source: s.source })),
  }
}

export interface GroupView {
  groupId: string
  simple: boolean
  assignor: string
  state: string
  type: string
  coordinator: number
}

export function consumerGroupData(l: Links, g: GroupView): Json {
  const id = g.groupId
  return {
    ...resource('KafkaConsumerGroup', l.url('consumer-groups', id), `${l.crn}/consumer-group=${id}`),
    cluster_id: l.clusterId,
    consumer_group_id: id,
    is_simple: g.simple,
    partition_assignor: g.assignor,
    state: g.state,
    type: g.type,
    is_mixed_consumer_group: false,
    coordinator: l.related('brokers', g.coordinator),
    consumers: l.related('consumer-groups', id, 'consumers'),
    lag_summary: l.related('consumer-groups', id, 'lag-summary'),
  }
}

export interface ConsumerView {
  consumerId: string
  instanceId: string | null
  clientId: string
}

export function consumerData(l: Links, groupId: string, c: ConsumerView): Json {
  return {
    ...resource(
      'KafkaConsumer',
      l.url('consumer-groups', groupId, 'consumers', c.consumerId),
      `${l.crn}/consumer-group=${groupId}/consumer=${c.consumerId}`,
    ),
    cluster_id: l.clusterId,
    consumer_group_id: groupId,
    consumer_id: c.consumerId,
    instance_id: c.instanceId,
    client_id: c.clientId,
    assignments: l.related('consumer-groups', groupId, 'consumers', c.consumerId, 'assignments'),
  }
}

export function assignmentData(l: Links, groupId: string, consumerId: string, topic: string, partition: number): Json {
  return {
    ...resource(
      'KafkaConsumerAssignment',
      l.url('consumer-groups', groupId, 'consumers', consumerId, 'assignments', topic, 'partitions', partition),
      `${l.crn}/consumer-group=${groupId}/consumer=${consumerId}/assignment=${topic}/partition=${partition}`,
    ),
    cluster_id: l.clusterId,
    consumer_group_id: groupId,
    consumer_id: consumerId,
    topic_name: topic,
    partition_id: partition,
    partition: l.related('topics', topic, 'partitions', partition),
    lag: l.related('consumer-groups', groupId, 'lags', topic, 'partitions', partition),
  }
}

export interface LagView extends ConsumerView {
  topic: string
  partition: number
  currentOffset: number
  logEndOffset: number
  lag: number
}

export function consumerLagData(l: Links, groupId: string, x: LagView): Json {
  return {
    ...resource(
      'KafkaConsumerLag',
      l.url('consumer-groups', groupId, 'lags', x.topic, 'partitions', x.partition),
      `${l.crn}/consumer-group=${groupId}/lag=${x.topic}/partition=${x.partition}`,
    ),
    cluster_id: l.clusterId,
    consumer_group_id: groupId,
    topic_name: x.topic,
    partition_id: x.partition,
    current_offset: x.currentOffset,
    log_end_offset: x.logEndOffset,
    lag: x.lag,
    consumer_id: x.consumerId,
    instance_id: x.instanceId,
    client_id: x.clientId,
  }
}

export function lagSummaryData(l: Links, groupId: string, lags: readonly LagView[]): Json {
  const max = lags.reduce<LagView | null>((m, x) => (m === null || x.lag > m.lag ? x : m), null)
  const total = lags.reduce((n, x) => n + x.lag, 0)
  return {
    ...resource(
      'KafkaConsumerGroupLagSummary',
      l.url('consumer-groups', groupId, 'lag-summary'),
      `${l.crn}/consumer-group=${groupId}/lag-summary`,
    ),
    cluster_id: l.clusterId,
    consumer_group_id: groupId,
    max_lag_consumer_id: max?.consumerId ?? '',
    max_lag_instance_id: max?.instanceId ?? null,
    max_lag_client_id: max?.clientId ?? '',
    max_lag_topic_name: max?.topic ?? '',
    max_lag_partition_id: max?.partition ?? -1,
    max_lag: max?.lag ?? 0,
    total_lag: total,
    ...(max && max.consumerId !== '' ? { max_lag_consumer: l.related('consumer-groups', groupId, 'consumers', max.consumerId) } : {}),
    ...(max ? { max_lag_partition: l.related('topics', max.topic, 'partitions', max.partition) } : {}),
  }
}
