// InitializeShareGroupState (key 83), v0; flexible; inter-broker. The group coordinator asks the
// share coordinator to create (or reset) a share-partition's durable state at a start offset,
// with a new state epoch.
import { f, type Infer, message } from '../schema.js'

export const InitializeShareGroupStateRequest = message({
  apiKey: 83,
  name: 'InitializeShareGroupState',
  versions: '0',
  flexible: '0+',
  fields: {
    groupId: f.string('0+'),
    topics: f.array('0+', {
      topicId: f.uuid('0+'),
      partitions: f.array('0+', {
        partition: f.int32('0+'),
        stateEpoch: f.int32('0+'),
        startOffset: f.int64('0+'),
      }),
    }),
  },
})

export const InitializeShareGroupStateResponse = message({
  apiKey: 83,
  name: 'InitializeShareGroupState',
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

export type InitializeShareGroupStateRequestData = Infer<typeof InitializeShareGroupStateRequest>
export type InitializeShareGroupStateResponseData = Infer<typeof InitializeShareGroupStateResponse>
