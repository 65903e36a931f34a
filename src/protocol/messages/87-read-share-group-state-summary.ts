// ReadShareGroupStateSummary (key 87), v0–1; flexible; inter-broker. The start offset (and, v1,
// the count of records delivered past it) of share-partitions, for describing a share group's
// offsets and lag.
import { f, type Infer, message } from '../schema.js'

export const ReadShareGroupStateSummaryRequest = message({
  apiKey: 87,
  name: 'ReadShareGroupStateSummary',
  versions: '0-1',
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

export const ReadShareGroupStateSummaryResponse = message({
  apiKey: 87,
  name: 'ReadShareGroupStateSummary',
  versions: '0-1',
  flexible: '0+',
  fields: {
    results: f.array('0+', {
      topicId: f.uuid('0+'),
      partitions: f.array('0+', {
        partition: f.int32('0+'),
        errorCode: f.int16('0+'),
        errorMessage: f.string('0+', { nullable: '0+', default: null }),
        stateEpoch: f.int32('0+'),
        leaderEpoch: f.int32('0+'),
        startOffset: f.int64('0+'),
        deliveryCompleteCount: f.int32('1+', { default: -1 }),
      }),
    }),
  },
})

export type ReadShareGroupStateSummaryRequestData = Infer<typeof ReadShareGroupStateSummaryRequest>
export type ReadShareGroupStateSummaryResponseData = Infer<typeof ReadShareGroupStateSummaryResponse>
