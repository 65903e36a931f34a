// `tributary cluster info`: the cluster id, the controller, the brokers (id, host:port, rack) and
// how many topics and partitions there are — what a user checks first against any Kafka-compatible
// cluster. Brokers come from DescribeCluster (API 60) when the broker serves it, from Metadata
// otherwise. The protocol does not carry a broker's software version (ApiVersions v3+ carries only
// the client's), so `--apis` shows what the protocol gives: the API version ranges the broker
// advertises. `rebalance`, `reassignments` and `elect-leaders` live in partition-reassignment.ts.
import type { Command } from 'commander'
import { brokerApiVersions, describeCluster, listTopics } from '../client/admin-topics.js'
import {
  type ConnectionOptions,
  runTool,
  type ToolIo,
  table,
  withClient,
  withConnectionOptions,
  withExamples,
  withJsonOption,
} from './common.js'
import { registerReassignmentCommands } from './partition-reassignment.js'
import type { CliDeps } from './deps.js'

/** Kafka's API names by key (the protocol's ApiKeys), for the --apis table. */
const API_NAMES: readonly string[] = [
  'Produce',
  'Fetch',
  'ListOffsets',
  'Metadata',
  'LeaderAndIsr',
  'StopReplica',
  'UpdateMetadata',
  'ControlledShutdown',
  'OffsetCommit',
  'OffsetFetch',
  'FindCoordinator',
  'JoinGroup',
  'Heartbeat',
  'LeaveGroup',
  'SyncGroup',
  'DescribeGroups',
  'ListGroups',
  'SaslHandshake',
  'ApiVersions',
  'CreateTopics',
  'DeleteTopics',
  'DeleteRecords',
  'InitProducerId',
  'OffsetForLeaderEpoch',
  'AddPartitionsToTxn',
  'AddOffsetsToTxn',
  'EndTxn',
  'WriteTxnMarkers',
  'TxnOffsetCommit',
  'DescribeAcls',
  'CreateAcls',
  'DeleteAcls',
  'DescribeConfigs',
  'AlterConfigs',
  'AlterReplicaLogDirs',
  'DescribeLogDirs',
  'SaslAuthenticate',
  'CreatePartitions',
  'CreateDelegationToken',
  'RenewDelegationToken',
  'ExpireDelegationToken',
  'DescribeDelegationToken',
  'DeleteGroups',
  'ElectLeaders',
  'IncrementalAlterConfigs',
  'AlterPartitionReassignments',
  'ListPartitionReassignments',
  'OffsetDelete',
  'DescribeClientQuotas',
  'AlterClientQuotas',
  'DescribeUserScramCredentials',
  'AlterUserScramCredentials',
  'Vote',
  'BeginQuorumEpoch',
  'EndQuorumEpoch',
  'DescribeQuorum',
  'AlterPartition',
  'UpdateFeatures',
  'Envelope',
  'FetchSnapshot',
  'DescribeCluster',
  'DescribeProducers',
  'BrokerRegistration',
  'BrokerHeartbeat',
  'UnregisterBroker',
  'DescribeTransactions',
  'ListTransactions',
  'AllocateProducerIds',
  'ConsumerGroupHeartbeat',
  'ConsumerGroupDescribe',
  'ControllerRegistration',
  'GetTelemetrySubscriptions',
  'PushTelemetry',
  'AssignReplicasToDirs',
  'ListConfigResources',
  'DescribeTopicPartitions',
  'ShareGroupHeartbeat',
  'ShareGroupDescribe',
  'ShareFetch',
  'ShareAcknowledge',
  'AddRaftVoter',
  'RemoveRaftVoter',
  'UpdateRaftVoter',
  'InitializeShareGroupState',
  'ReadShareGroupState',
  'WriteShareGroupState',
  'DeleteShareGroupState',
  'ReadShareGroupStateSummary',
  'StreamsGroupHeartbeat',
  'StreamsGroupDescribe',
  'DescribeShareGroupOffsets',
  'AlterShareGroupOffsets',
  'DeleteShareGroupOffsets',
  'StreamsGroupTopologyDescriptionUpdate',
  'UnregisterController',
]

export const apiName = (key: number): string => API_NAMES[key] ?? `Unknown(${key})`

interface InfoOptions extends ConnectionOptions {
  json: boolean
  apis: boolean
}

export function registerClusterCommand(program: Command, deps: CliDeps): void {
  const cluster = withExamples(program.command('cluster').description('inspect the cluster, move replicas and elect leaders'), [
    'tributary cluster info',
    'tributary cluster info --apis --bootstrap-server broker1:9092',
    'tributary cluster rebalance --execute',
    'tributary cluster elect-leaders',
  ])
  withExamples(
    withJsonOption(
      withConnectionOptions(cluster.command('info').description('cluster id, controller, brokers, topic and partition counts')),
    ),
    ['tributary cluster info', 'tributary cluster info --apis', 'TRIBUTARY_BOOTSTRAP=broker1:9092 tributary cluster info --json'],
  )
    .option('--apis', 'also list the API versions the broker advertises (ApiVersions)', false)
    .addHelpText(
      'after',
      '\nJSON output (--json):\n' +
        '  {"clusterId", "controllerId", "source": "DescribeCluster"|"Metadata", "brokers": [{"id", "host", "port", "rack"}],\n' +
        '   "topicCount", "internalTopicCount", "partitionCount",\n' +
        '   "apis": {"brokerId", "versions": [{"apiKey", "name", "minVersion", "maxVersion"}]}}   (apis only with --apis)\n',
    )
    .action((opts: InfoOptions) => runTool(deps, 'cluster info', (io) => info(opts, io)))
  registerReassignmentCommands(cluster, deps)
}

async function info(opts: InfoOptions, io: ToolIo): Promise<void> {
  const { cluster, topics, apis } = await withClient(opts, async (client) => {
    const cluster = await describeCluster(client)
    const topics = await listTopics(client, { internal: true })
    let apis: { brokerId: number; versions: Array<{ apiKey: number; name: string; minVersion: number; maxVersion: number }> } | undefined
    if (opts.apis) {
      // The broker we are connected to: the controller if it is listed, else the first broker.
      const brokerId = cluster.brokers.some((b) => b.nodeId === cluster.controllerId)
        ? cluster.controllerId
        : (cluster.brokers[0]?.nodeId ?? -1)
      const versions = await brokerApiVersions(client, brokerId)
      apis = {
        brokerId,
        versions: versions.map((v) => ({ apiKey: v.apiKey, name: apiName(v.apiKey), minVersion: v.minVersion, maxVersion: v.maxVersion })),
      }
    }
    return { cluster, topics, apis }
  })
  const internal = topics.filter((t) => t.internal).length
  const partitions = topics.reduce((n, t) => n + t.partitions, 0)
  if (opts.json) {
    const out = {
      clusterId: cluster.clusterId,
      controllerId: cluster.controllerId,
      source: cluster.source,
      brokers: cluster.brokers.map((b) => ({ id: b.nodeId, host: b.host, port: b.port, rack: b.rack })),
      topicCount: topics.length,
      internalTopicCount: internal,
      partitionCount: partitions,
      ...(apis ? { apis } : {}),
    }
    io.stdout(`${JSON.stringify(out, null, 2)}\n`)
    return
  }
  const lines = [
    `Cluster id:  ${cluster.clusterId ?? 'unknown'}`,
    `Controller:  ${cluster.controllerId < 0 ? 'unknown' : cluster.controllerId}`,
    `Brokers:     ${cluster.brokers.length}`,
    `Topics:      ${topics.length}${internal > 0 ? ` (${internal} internal)` : ''}`,
    `Partitions:  ${partitions}`,
    `Source:      ${cluster.source}`,
  ]
  let text = `${lines.join('\n')}\n\n`
  text += table(
    ['BROKER', 'HOST', 'PORT', 'RACK'],
    cluster.brokers.map((b) => [b.nodeId, b.host, b.port, b.rack ?? '-']),
  )
  if (apis) {
    text += `\nAPI versions served by broker ${apis.brokerId}:\n`
    text += table(
      ['KEY', 'API', 'MIN', 'MAX'],
      apis.versions.map((v) => [v.apiKey, v.name, v.minVersion, v.maxVersion]),
    )
  }
  io.stdout(text)
}
