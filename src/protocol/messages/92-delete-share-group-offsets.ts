// DeleteShareGroupOffsets (key 92), v0; flexible. Admin: forgets a share group's state for whole
// topics; the group must have no members.
import { f, type Infer, message } from '../schema.js'

export const DeleteShareGroupOffsetsRequest = message({
  apiKey: 92,
  name: 'DeleteShareGroupOffsets',
  versions: '0',
  flexible: '0+',
  fields: {
    groupId: f.string('0+'),
    topics: f.array('0+', {
      topicName: f.string('0+'),
    }),
  },
})

export const DeleteShareGroupOffsetsResponse = message({
  apiKey: 92,
  name: 'DeleteShareGroupOffsets',
  versions: '0',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    errorMessage: f.string('0+', { nullable: '0+', default: null }),
    responses: f.array('0+', {
      topicName: f.string('0+'),
      topicId: f.uuid('0+'),
      errorCode: f.int16('0+'),
      errorMessage: f.string('0+', { nullable: '0+', default: null }),
    }),
  },
})

export type DeleteShareGroupOffsetsRequestData = Infer<typeof DeleteShareGroupOffsetsRequest>
export type DeleteShareGroupOffsetsResponseData = Infer<typeof DeleteShareGroupOffsetsResponse>
