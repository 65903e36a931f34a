// ConsumerGroupDescribe (key 69), v0–1; flexible. KIP-848's describe of consumer-protocol groups:
// the group's epoch and assignment epoch, and per member its epoch, subscription (names or
// regex), current and target assignments. v1 adds memberType (-1 unknown, 0 classic, 1 consumer).
import { f, type Infer, message, T } from '../schema.js'

export const ConsumerGroupDescribeRequest = message({
  apiKey: 69,
  name: 'ConsumerGroupDescribe',
  versions: '0-1',
  flexible: '0+',
  fields: {
    groupIds: f.arrayOf('0+', T.string),
    includeAuthorizedOperations: f.bool('0+'),
  },
})

export const ConsumerGroupDescribeResponse = message({
  apiKey: 69,
  name: 'ConsumerGroupDescribe',
  versions: '0-1',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    groups: f.array('0+', {
      errorCode: f.int16('0+'),
      errorMessage: f.string('0+', { nullable: '0+', default: null }),
      groupId: f.string('0+'),
      groupState: f.string('0+'),
      groupEpoch: f.int32('0+'),
      assignmentEpoch: f.int32('0+'),
      assignorName: f.string('0+'),
      members: f.array('0+', {
        memberId: f.string('0+'),
        instanceId: f.string('0+', { nullable: '0+', default: null }),
        rackId: f.string('0+', { nullable: '0+', default: null }),
        memberEpoch: f.int32('0+'),
        clientId: f.string('0+'),
        clientHost: f.string('0+'),
        subscribedTopicNames: f.arrayOf('0+', T.string),
        subscribedTopicRegex: f.string('0+', { nullable: '0+', default: null }),
        assignment: f.struct('0+', {
          topicPartitions: f.array('0+', {
            topicId: f.uuid('0+'),
            topicName: f.string('0+'),
            partitions: f.arrayOf('0+', T.int32),
          }),
        }),
        targetAssignment: f.struct('0+', {
          topicPartitions: f.array('0+', {
            topicId: f.uuid('0+'),
            topicName: f.string('0+'),
            partitions: f.arrayOf('0+', T.int32),
          }),
        }),
        memberType: f.int8('1+', { default: -1 }),
      }),
      authorizedOperations: f.int32('0+', { default: -2147483648 }),
    }),
  },
})

export type ConsumerGroupDescribeRequestData = Infer<typeof ConsumerGroupDescribeRequest>
export type ConsumerGroupDescribeResponseData = Infer<typeof ConsumerGroupDescribeResponse>
