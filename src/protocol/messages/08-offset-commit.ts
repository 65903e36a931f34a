// OffsetCommit (key 8), v2–10; flexible from v8. v2–4 carry a retention time (dropped in v5);
// v6 adds the committed leader epoch; v7 adds groupInstanceId; v9 may be used by KIP-848
// consumers, whose member epoch then travels in generationIdOrMemberEpoch; v10 names topics by
// id only, in the request and the response (KIP-848), and may answer UNKNOWN_TOPIC_ID. Versions
// 0–1 are not served (v1's per-partition commitTimestamp is therefore not declared).
import { f, type Infer, message } from '../schema.js'

export const OffsetCommitRequest = message({
  apiKey: 8,
  name: 'OffsetCommit',
  versions: '2-10',
  flexible: '8+',
  fields: {
    groupId: f.string('0+'),
    generationIdOrMemberEpoch: f.int32('1+', { default: -1 }),
    memberId: f.string('1+'),
    groupInstanceId: f.string('7+', { nullable: '7+', default: null }),
    retentionTimeMs: f.int64('2-4', { default: -1 }),
    topics: f.array('0+', {
      name: f.string('0-9'),
      topicId: f.uuid('10+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        committedOffset: f.int64('0+'),
        committedLeaderEpoch: f.int32('6+', { default: -1 }),
        committedMetadata: f.string('0+', { nullable: '0+' }),
      }),
    }),
  },
})

export const OffsetCommitResponse = message({
  apiKey: 8,
  name: 'OffsetCommit',
  versions: '2-10',
  flexible: '8+',
  fields: {
    throttleTimeMs: f.int32('3+'),
    topics: f.array('0+', {
      name: f.string('0-9'),
      topicId: f.uuid('10+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        errorCode: f.int16('0+'),
      }),
    }),
  },
})

export type OffsetCommitRequestData = Infer<typeof OffsetCommitRequest>
export type OffsetCommitResponseData = Infer<typeof OffsetCommitResponse>
