// ShareGroupDescribe (key 77), v1; flexible. Describes share groups: state, epochs, the assignor
// and each member with its subscription and assigned partitions (topic ids and names).
import { f, type Infer, message, T } from '../schema.js'

export const ShareGroupDescribeRequest = message({
  apiKey: 77,
  name: 'ShareGroupDescribe',
  versions: '1',
  flexible: '0+',
  fields: {
    groupIds: f.arrayOf('0+', T.string),
    includeAuthorizedOperations: f.bool('0+'),
  },
})

export const ShareGroupDescribeResponse = message({
  apiKey: 77,
  name: 'ShareGroupDescribe',
  versions: '1',
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
        rackId: f.string('0+', { nullable: '0+', default: null }),
        memberEpoch: f.int32('0+'),
        clientId: f.string('0+'),
        clientHost: f.string('0+'),
        subscribedTopicNames: f.arrayOf('0+', T.string),
        assignment: f.struct('0+', {
          topicPartitions: f.array('0+', {
            topicId: f.uuid('0+'),
            topicName: f.string('0+'),
            partitions: f.arrayOf('0+', T.int32),
          }),
        }),
      }),
      authorizedOperations: f.int32('0+', { default: -2147483648 }),
    }),
  },
})

export type ShareGroupDescribeRequestData = Infer<typeof ShareGroupDescribeRequest>
export type ShareGroupDescribeResponseData = Infer<typeof ShareGroupDescribeResponse>
