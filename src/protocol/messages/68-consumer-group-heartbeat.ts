// ConsumerGroupHeartbeat (key 68), v0–1; flexible. KIP-848's single group RPC: a consumer joins,
// heartbeats, reports what it owns and leaves through it, and the coordinator answers with the
// member's epoch and, when it changed, its assignment (topic ids, partitions) computed on the
// broker. memberEpoch 0 joins, -1 leaves, -2 leaves as a static member (instanceId kept).
// v1 adds subscribedTopicRegex and makes the client generate its own memberId (KIP-1082).
import { f, type Infer, message, T } from '../schema.js'

export const ConsumerGroupHeartbeatRequest = message({
  apiKey: 68,
  name: 'ConsumerGroupHeartbeat',
  versions: '0-1',
  flexible: '0+',
  fields: {
    groupId: f.string('0+'),
    memberId: f.string('0+'),
    memberEpoch: f.int32('0+'),
    instanceId: f.string('0+', { nullable: '0+', default: null }),
    rackId: f.string('0+', { nullable: '0+', default: null }),
    rebalanceTimeoutMs: f.int32('0+', { default: -1 }),
    subscribedTopicNames: f.arrayOf('0+', T.string, { nullable: '0+', default: null }),
    subscribedTopicRegex: f.string('1+', { nullable: '1+', default: null }),
    serverAssignor: f.string('0+', { nullable: '0+', default: null }),
    topicPartitions: f.array(
      '0+',
      {
        topicId: f.uuid('0+'),
        partitions: f.arrayOf('0+', T.int32),
      },
      { nullable: '0+', default: null },
    ),
  },
})

export const ConsumerGroupHeartbeatResponse = message({
  apiKey: 68,
  name: 'ConsumerGroupHeartbeat',
  versions: '0-1',
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

export type ConsumerGroupHeartbeatRequestData = Infer<typeof ConsumerGroupHeartbeatRequest>
export type ConsumerGroupHeartbeatResponseData = Infer<typeof ConsumerGroupHeartbeatResponse>
