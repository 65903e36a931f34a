// OffsetDelete (key 47), v0 only; not flexible. Deletes committed offsets of partitions a group
// no longer consumes.
import { f, type Infer, message } from '../schema.js'

export const OffsetDeleteRequest = message({
  apiKey: 47,
  name: 'OffsetDelete',
  versions: '0',
  flexible: 'none',
  fields: {
    groupId: f.string('0+'),
    topics: f.array('0+', {
      name: f.string('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
      }),
    }),
  },
})

export const OffsetDeleteResponse = message({
  apiKey: 47,
  name: 'OffsetDelete',
  versions: '0',
  flexible: 'none',
  fields: {
    errorCode: f.int16('0+'),
    throttleTimeMs: f.int32('0+'),
    topics: f.array('0+', {
      name: f.string('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        errorCode: f.int16('0+'),
      }),
    }),
  },
})

export type OffsetDeleteRequestData = Infer<typeof OffsetDeleteRequest>
export type OffsetDeleteResponseData = Infer<typeof OffsetDeleteResponse>
