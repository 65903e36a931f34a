// ShareGroupHeartbeat (key 76), v1; flexible. KIP-932's membership RPC for share groups: a member
// joins (memberEpoch 0, with the member id it generated), heartbeats and leaves (-1) through it;
// the coordinator answers with the member's epoch and, when it changed, the partitions it may
// fetch from. Unlike KIP-848 consumer groups there is no revocation: many members may share a
// partition, so an assignment takes effect at once. v0 (early access) is not part of Kafka 4.4.
import { f, type Infer, message, T } from '../schema.js'

export const ShareGroupHeartbeatRequest = message({
  apiKey: 76,
  name: 'ShareGroupHeartbeat',
  versions: '1',
  flexible: '0+',
  fields: {
    groupId: f.string('0+'),
    memberId: f.string('0+'),
    memberEpoch: f.int32('0+'),
    rackId: f.string('0+', { nullable: '0+', default: null }),
    subscribedTopicNames: f.arrayOf('0+', T.string, { nullable: '0+', default: null }),
  },
})

export const ShareGroupHeartbeatResponse = message({
  apiKey: 76,
  name: 'ShareGroupHeartbeat',
  versions: '1',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    errorMessage: f.string('0+', { nullable: '0+', default: null }),
    memberId: f.string('0+', { nullable: '0+', default: null }),
    memberEpoch: f.int32('0+'),
    heartbeatIntervalMs: f.int32('0+'),
    assignment: f.struct(
      '0+',
      {
        topicPartitions: f.array('0+', {
          topicId: f.uuid('0+'),
          partitions: f.arrayOf('0+', T.int32),
        }),
      },
      { nullable: '0+', default: null },
    ),
  },
})

export type ShareGroupHeartbeatRequestData = Infer<typeof ShareGroupHeartbeatRequest>
export type ShareGroupHeartbeatResponseData = Infer<typeof ShareGroupHeartbeatResponse>
