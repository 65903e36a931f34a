// ReadShareGroupState (key 84), v0; flexible; inter-broker. A partition leader reads a
// share-partition's durable state (start offset, state batches) from its share coordinator when
// it starts serving share fetches for it.
import { f, type Infer, message } from '../schema.js'

export const ReadShareGroupStateRequest = message({
  apiKey: 84,
  name: 'ReadShareGroupState',
  versions: '0',
  flexible: '0+',
  fields: {
    groupId: f.string('0+'),
    topics: f.array('0+', {
      topicId: f.uuid('0+'),
      partitions: f.array('0+', {
        partition: f.int32('0+'),
        leaderEpoch: f.int32('0+'),
      }),
    }),
  },
})

export const ReadShareGroupStateResponse = message({
  apiKey: 84,
  name: 'ReadShareGroupState',
  versions: '0',
  flexible: '0+',
  fields: {
    results: f.array('0+', {
      topicId: f.uuid('0+'),
      partitions: f.array('0+', {
        partition: f.int32('0+'),
        errorCode: f.int16('0+'),
        errorMessage: f.string('0+', { nullable: '0+', default: null }),
        stateEpoch: f.int32('0+'),
        startOffset: f.int64('0+'),
        stateBatches: f.array('0+', {
          firstOffset: f.int64('0+'),
          lastOffset: f.int64('0+'),
          deliveryState: f.int8('0+'),
          deliveryCount: f.int16('0+'),
        }),
      }),
    }),
  },
})

export type ReadShareGroupStateRequestData = Infer<typeof ReadShareGroupStateRequest>
export type ReadShareGroupStateResponseData = Infer<typeof ReadShareGroupStateResponse>
