// OffsetFetch (key 9), v1–10; flexible from v6. v2 allows topics = null (all committed topics) and
// adds a top-level error code; v5 returns the committed leader epoch; v7 adds requireStable;
// v8 asks for several groups at once (groups[] replaces groupId/topics, and the answer moves into
// groups[] too); v9 adds the KIP-848 member id and epoch; v10 names the topics of groups[] by id
// only, in the request and the response (KIP-848), and may answer UNKNOWN_TOPIC_ID. Version 0
// (ZooKeeper offsets) is not served.
import { f, type Infer, message, T } from '../schema.js'

export const OffsetFetchRequest = message({
  apiKey: 9,
  name: 'OffsetFetch',
  versions: '1-10',
  flexible: '6+',
  fields: {
    groupId: f.string('0-7'),
    topics: f.array(
      '0-7',
      {
        name: f.string('0-7'),
        partitionIndexes: f.arrayOf('0-7', T.int32),
      },
      { nullable: '2-7' },
    ),
    groups: f.array('8+', {
      groupId: f.string('8+'),
      memberId: f.string('9+', { nullable: '9+', default: null }),
      memberEpoch: f.int32('9+', { default: -1 }),
      topics: f.array(
        '8+',
        {
          name: f.string('8-9'),
          topicId: f.uuid('10+'),
          partitionIndexes: f.arrayOf('8+', T.int32),
        },
        { nullable: '8+' },
      ),
    }),
    requireStable: f.bool('7+', { default: false }),
  },
})

export const OffsetFetchResponse = message({
  apiKey: 9,
  name: 'OffsetFetch',
  versions: '1-10',
  flexible: '6+',
  fields: {
    throttleTimeMs: f.int32('3+'),
    topics: f.array('0-7', {
      name: f.string('0-7'),
      partitions: f.array('0-7', {
        partitionIndex: f.int32('0-7'),
        /** -1 when nothing is committed. */
        committedOffset: f.int64('0-7'),
        committedLeaderEpoch: f.int32('5-7', { default: -1 }),
        metadata: f.string('0-7', { nullable: '0-7' }),
        errorCode: f.int16('0-7'),
      }),
    }),
    errorCode: f.int16('2-7', { default: 0 }),
    groups: f.array('8+', {
      groupId: f.string('8+'),
      topics: f.array('8+', {
        name: f.string('8-9'),
        topicId: f.uuid('10+'),
        partitions: f.array('8+', {
          partitionIndex: f.int32('8+'),
          committedOffset: f.int64('8+'),
          committedLeaderEpoch: f.int32('8+', { default: -1 }),
          metadata: f.string('8+', { nullable: '8+' }),
          errorCode: f.int16('8+'),
        }),
      }),
      errorCode: f.int16('8+', { default: 0 }),
    }),
  },
})

export type OffsetFetchRequestData = Infer<typeof OffsetFetchRequest>
export type OffsetFetchResponseData = Infer<typeof OffsetFetchResponse>
