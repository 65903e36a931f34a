// DescribeShareGroupOffsets (key 90), v0–1; flexible. Admin: a share group's start offset per
// partition (all of the group's topics when topics is null).
//   v1 lag per partition
import { f, type Infer, message, T } from '../schema.js'

export const DescribeShareGroupOffsetsRequest = message({
  apiKey: 90,
  name: 'DescribeShareGroupOffsets',
  versions: '0-1',
  flexible: '0+',
  fields: {
    groups: f.array('0+', {
      groupId: f.string('0+'),
      topics: f.array(
        '0+',
        {
          topicName: f.string('0+'),
          partitions: f.arrayOf('0+', T.int32),
        },
        { nullable: '0+' },
      ),
    }),
  },
})

export const DescribeShareGroupOffsetsResponse = message({
  apiKey: 90,
  name: 'DescribeShareGroupOffsets',
  versions: '0-1',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    groups: f.array('0+', {
      groupId: f.string('0+'),
      topics: f.array('0+', {
        topicName: f.string('0+'),
        topicId: f.uuid('0+'),
        partitions: f.array('0+', {
          partitionIndex: f.int32('0+'),
          startOffset: f.int64('0+'),
          leaderEpoch: f.int32('0+'),
          lag: f.int64('1+', { default: -1 }),
          errorCode: f.int16('0+'),
          errorMessage: f.string('0+', { nullable: '0+', default: null }),
        }),
      }),
      errorCode: f.int16('0+'),
      errorMessage: f.string('0+', { nullable: '0+', default: null }),
    }),
  },
})

export type DescribeShareGroupOffsetsRequestData = Infer<typeof DescribeShareGroupOffsetsRequest>
export type DescribeShareGroupOffsetsResponseData = Infer<typeof DescribeShareGroupOffsetsResponse>
