// ShareAcknowledge (key 79), v1–2; flexible. Acknowledges records a share-group member acquired,
// outside a fetch: per offset range, one type for the range or one per offset
// (0 gap, 1 accept, 2 release, 3 reject, 4 renew — v2).
import { f, type Infer, message, T } from '../schema.js'

export const ShareAcknowledgeRequest = message({
  apiKey: 79,
  name: 'ShareAcknowledge',
  versions: '1-2',
  flexible: '0+',
  fields: {
    groupId: f.string('0+', { nullable: '0+', default: null }),
    memberId: f.string('0+', { nullable: '0+' }),
    shareSessionEpoch: f.int32('0+'),
    isRenewAck: f.bool('2+', { default: false }),
    topics: f.array('0+', {
      topicId: f.uuid('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        acknowledgementBatches: f.array('0+', {
          firstOffset: f.int64('0+'),
          lastOffset: f.int64('0+'),
          acknowledgeTypes: f.arrayOf('0+', T.int8),
        }),
      }),
    }),
  },
})

export const ShareAcknowledgeResponse = message({
  apiKey: 79,
  name: 'ShareAcknowledge',
  versions: '1-2',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    errorMessage: f.string('0+', { nullable: '0+', default: null }),
    acquisitionLockTimeoutMs: f.int32('2+'),
    responses: f.array('0+', {
      topicId: f.uuid('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        errorCode: f.int16('0+'),
        errorMessage: f.string('0+', { nullable: '0+', default: null }),
        currentLeader: f.struct('0+', {
          leaderId: f.int32('0+'),
          leaderEpoch: f.int32('0+'),
        }),
      }),
    }),
    nodeEndpoints: f.array('0+', {
      nodeId: f.int32('0+'),
      host: f.string('0+'),
      port: f.int32('0+'),
      rack: f.string('0+', { nullable: '0+', default: null }),
    }),
  },
})

export type ShareAcknowledgeRequestData = Infer<typeof ShareAcknowledgeRequest>
export type ShareAcknowledgeResponseData = Infer<typeof ShareAcknowledgeResponse>
