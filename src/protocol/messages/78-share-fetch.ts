// ShareFetch (key 78), v1–2; flexible. A share-group member's fetch from a partition leader: it
// opens (shareSessionEpoch 0), continues (the next epoch) or closes (-1) a share session, carries
// acknowledgements of records it holds, and receives record batches with the offset ranges it
// acquired (AcquiredRecords: first, last, delivery count) and the lock's duration.
//   v1 maxRecords, batchSize; acquisitionLockTimeoutMs in the answer (KIP-1103 baseline)
//   v2 shareAcquireMode, isRenewAck (acknowledge type 4, RENEW, KIP-1222)
import { f, type Infer, message, T } from '../schema.js'

export const ShareFetchRequest = message({
  apiKey: 78,
  name: 'ShareFetch',
  versions: '1-2',
  flexible: '0+',
  fields: {
    groupId: f.string('0+', { nullable: '0+', default: null }),
    memberId: f.string('0+', { nullable: '0+' }),
    shareSessionEpoch: f.int32('0+'),
    maxWaitMs: f.int32('0+'),
    minBytes: f.int32('0+'),
    maxBytes: f.int32('0+', { default: 0x7fffffff }),
    maxRecords: f.int32('1+'),
    batchSize: f.int32('1+'),
    shareAcquireMode: f.int8('2+', { default: 0 }),
    isRenewAck: f.bool('2+', { default: false }),
    topics: f.array('0+', {
      topicId: f.uuid('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        partitionMaxBytes: f.int32('0'),
        acknowledgementBatches: f.array('0+', {
          firstOffset: f.int64('0+'),
          lastOffset: f.int64('0+'),
          acknowledgeTypes: f.arrayOf('0+', T.int8),
        }),
      }),
    }),
    forgottenTopicsData: f.array('0+', {
      topicId: f.uuid('0+'),
      partitions: f.arrayOf('0+', T.int32),
    }),
  },
})

export const ShareFetchResponse = message({
  apiKey: 78,
  name: 'ShareFetch',
  versions: '1-2',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    errorMessage: f.string('0+', { nullable: '0+', default: null }),
    acquisitionLockTimeoutMs: f.int32('1+'),
    responses: f.array('0+', {
      topicId: f.uuid('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        errorCode: f.int16('0+'),
        errorMessage: f.string('0+', { nullable: '0+', default: null }),
        acknowledgeErrorCode: f.int16('0+'),
        acknowledgeErrorMessage: f.string('0+', { nullable: '0+', default: null }),
        currentLeader: f.struct('0+', {
          leaderId: f.int32('0+'),
          leaderEpoch: f.int32('0+'),
        }),
        records: f.records('0+', { nullable: '0' }),
        acquiredRecords: f.array('0+', {
          firstOffset: f.int64('0+'),
          lastOffset: f.int64('0+'),
          deliveryCount: f.int16('0+'),
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

export type ShareFetchRequestData = Infer<typeof ShareFetchRequest>
export type ShareFetchResponseData = Infer<typeof ShareFetchResponse>
