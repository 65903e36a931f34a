// AlterShareGroupOffsets (key 91), v0; flexible. Admin: sets a share group's start offsets; the
// group must have no members.
import { f, type Infer, message } from '../schema.js'

export const AlterShareGroupOffsetsRequest = message({
  apiKey: 91,
  name: 'AlterShareGroupOffsets',
  versions: '0',
  flexible: '0+',
  fields: {
    groupId: f.string('0+'),
    topics: f.array('0+', {
      topicName: f.string('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        startOffset: f.int64('0+'),
      }),
    }),
  },
})

export const AlterShareGroupOffsetsResponse = message({
  apiKey: 91,
  name: 'AlterShareGroupOffsets',
  versions: '0',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    errorMessage: f.string('0+', { nullable: '0+', default: null }),
    responses: f.array('0+', {
      topicName: f.string('0+'),
      topicId: f.uuid('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        errorCode: f.int16('0+'),
        errorMessage: f.string('0+', { nullable: '0+', default: null }),
      }),
    }),
  },
})

export type AlterShareGroupOffsetsRequestData = Infer<typeof AlterShareGroupOffsetsRequest>
export type AlterShareGroupOffsetsResponseData = Infer<typeof AlterShareGroupOffsetsResponse>
