// Metadata (key 3). Declared for v0–13. Flexible from v9.
//   v0  an empty topic list means "all topics"; from v1 a null list means all, an empty one none
//   v1  broker rack, controllerId, isInternal               v2  clusterId
//   v3  throttleTimeMs           v4  allowAutoTopicCreation  v5  offlineReplicas
//   v7  leaderEpoch              v8  authorized operations (cluster and topic)
//   v9  flexible                 v10 topic ids (request and response); name nullable in the request
//   v11 cluster authorized operations dropped (DescribeCluster serves them, KIP-700)
//   v12 lookup by topic id (request name null); response topic name nullable
//   v13 a top-level error code in the response (KIP-1102: REBOOTSTRAP_REQUIRED tells the client to
//       bootstrap again); the request is unchanged
import { f, type Infer, message, T } from '../schema.js'

export const MetadataRequest = message({
  apiKey: 3,
  name: 'Metadata',
  versions: '0-13',
  flexible: '9+',
  fields: {
    topics: f.array(
      '0+',
      {
        topicId: f.uuid('10+'),
        name: f.string('0+', { nullable: '10+' }),
      },
      { nullable: '1+' },
    ),
    allowAutoTopicCreation: f.bool('4+', { default: true }),
    includeClusterAuthorizedOperations: f.bool('8-10'),
    includeTopicAuthorizedOperations: f.bool('8+'),
  },
})

export const MetadataResponse = message({
  apiKey: 3,
  name: 'Metadata',
  versions: '0-13',
  flexible: '9+',
  fields: {
    throttleTimeMs: f.int32('3+'),
    brokers: f.array('0+', {
      nodeId: f.int32('0+'),
      host: f.string('0+'),
      port: f.int32('0+'),
      rack: f.string('1+', { nullable: '1+', default: null }),
    }),
    clusterId: f.string('2+', { nullable: '2+', default: null }),
    controllerId: f.int32('1+', { default: -1 }),
    topics: f.array('0+', {
      errorCode: f.int16('0+'),
      name: f.string('0+', { nullable: '12+' }),
      topicId: f.uuid('10+'),
      isInternal: f.bool('1+', { default: false }),
      partitions: f.array('0+', {
        errorCode: f.int16('0+'),
        partitionIndex: f.int32('0+'),
        leaderId: f.int32('0+'),
        leaderEpoch: f.int32('7+', { default: -1 }),
        replicaNodes: f.arrayOf('0+', T.int32),
        isrNodes: f.arrayOf('0+', T.int32),
        offlineReplicas: f.arrayOf('5+', T.int32),
      }),
      topicAuthorizedOperations: f.int32('8+', { default: -2147483648 }),
    }),
    clusterAuthorizedOperations: f.int32('8-10', { default: -2147483648 }),
    errorCode: f.int16('13+', { default: 0 }),
  },
})

export type MetadataRequestData = Infer<typeof MetadataRequest>
export type MetadataResponseData = Infer<typeof MetadataResponse>
