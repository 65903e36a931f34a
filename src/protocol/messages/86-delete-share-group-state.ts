// DeleteShareGroupState (key 86), v0; flexible; inter-broker. Removes share-partitions' durable
// state (when a share group's offsets or the group itself are deleted).
import { f, type Infer, message } from '../schema.js'

export const DeleteShareGroupStateRequest = message({
  apiKey: 86,
  name: 'DeleteShareGroupState',
  versions: '0',
  flexible: '0+',
  fields: {
    groupId: f.string('0+'),
    topics: f.array('0+', {
      topicId: f.uuid('0+'),
      partitions: f.array('0+', {
        partition: f.int32('0+'),
      }),
    }),
  },
})

export const DeleteShareGroupStateResponse = message({
  apiKey: 86,
  name: 'DeleteShareGroupState',
  versions: '0',
  flexible: '0+',
  fields: {
    results: f.array('0+', {
      topicId: f.uuid('0+'),
      partitions: f.array('0+', {
        partition: f.int32('0+'),
        errorCode: f.int16('0+'),
        errorMessage: f.string('0+', { nullable: '0+', default: null }),
      }),
    }),
  },
})

export type DeleteShareGroupStateRequestData = Infer<typeof DeleteShareGroupStateRequest>
export type DeleteShareGroupStateResponseData = Infer<typeof DeleteShareGroupStateResponse>
