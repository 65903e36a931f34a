// WriteShareGroupState (key 85), v0–1; flexible; inter-broker. A partition leader writes the
// changes of a share-partition's state (start offset, the batches of records whose state or
// delivery count changed) to its share coordinator, which makes them durable before answering.
//   v1 deliveryCompleteCount
import { f, type Infer, message } from '../schema.js'

export const WriteShareGroupStateRequest = message({
  apiKey: 85,
  name: 'WriteShareGroupState',
  versions: '0-1',
  flexible: '0+',
  fields: {
    groupId: f.string('0+'),
    topics: f.array('0+', {
      topicId: f.uuid('0+'),
      partitions: f.array('0+', {
        partition: f.int32('0+'),
        stateEpoch: f.int32('0+'),
        leaderEpoch: f.int32('0+'),
        startOffset: f.int64('0+'),
        deliveryCompleteCount: f.int32('1+', { default: -1 }),
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

export const WriteShareGroupStateResponse = message({
  apiKey: 85,
  name: 'WriteShareGroupState',
  versions: '0-1',
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

export type WriteShareGroupStateRequestData = Infer<typeof WriteShareGroupStateRequest>
export type WriteShareGroupStateResponseData = Infer<typeof WriteShareGroupStateResponse>
