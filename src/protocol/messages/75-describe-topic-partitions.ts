// DescribeTopicPartitions (key 75), v0; flexible. KIP-966: Metadata's topic description, paged —
// at most ResponsePartitionLimit partitions per answer, resumed from a (topic, partition) cursor.
// Adds each partition's eligible leader replicas (ELR) and last known ELR. The Java Admin
// describeTopics() uses it when a broker advertises it.
import { f, type Infer, message, T } from '../schema.js'

const cursor = {
  topicName: f.string('0+'),
  partitionIndex: f.int32('0+'),
}

export const DescribeTopicPartitionsRequest = message({
  apiKey: 75,
  name: 'DescribeTopicPartitions',
  versions: '0',
  flexible: '0+',
  fields: {
    topics: f.array('0+', { name: f.string('0+') }),
    responsePartitionLimit: f.int32('0+', { default: 2000 }),
    cursor: f.struct('0+', cursor, { nullable: '0+', default: null }),
  },
})

export const DescribeTopicPartitionsResponse = message({
  apiKey: 75,
  name: 'DescribeTopicPartitions',
  versions: '0',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    topics: f.array('0+', {
      errorCode: f.int16('0+'),
      name: f.string('0+', { nullable: '0+' }),
      topicId: f.uuid('0+'),
      isInternal: f.bool('0+'),
      partitions: f.array('0+', {
        errorCode: f.int16('0+'),
        partitionIndex: f.int32('0+'),
        leaderId: f.int32('0+'),
        leaderEpoch: f.int32('0+', { default: -1 }),
        replicaNodes: f.arrayOf('0+', T.int32),
        isrNodes: f.arrayOf('0+', T.int32),
        eligibleLeaderReplicas: f.arrayOf('0+', T.int32, { nullable: '0+', default: null }),
        lastKnownElr: f.arrayOf('0+', T.int32, { nullable: '0+', default: null }),
        offlineReplicas: f.arrayOf('0+', T.int32),
      }),
      topicAuthorizedOperations: f.int32('0+', { default: -2147483648 }),
    }),
    nextCursor: f.struct('0+', cursor, { nullable: '0+', default: null }),
  },
})

export type DescribeTopicPartitionsRequestData = Infer<typeof DescribeTopicPartitionsRequest>
export type DescribeTopicPartitionsResponseData = Infer<typeof DescribeTopicPartitionsResponse>
