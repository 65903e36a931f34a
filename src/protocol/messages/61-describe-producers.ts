// DescribeProducers (key 61), v0 only; flexible in every version (KIP-664). Lists the producer
// state a partition replica holds: each producer id's epoch, the last sequence and timestamp it
// wrote, and the start of its open transaction (-1 when none). Admin.describeProducers sends it to
// each partition's leader (or to a chosen broker).
import { f, type Infer, message, T } from '../schema.js'

export const DescribeProducersRequest = message({
  apiKey: 61,
  name: 'DescribeProducers',
  versions: '0',
  flexible: '0+',
  fields: {
    topics: f.array('0+', {
      name: f.string('0+'),
      partitionIndexes: f.arrayOf('0+', T.int32),
    }),
  },
})

export const DescribeProducersResponse = message({
  apiKey: 61,
  name: 'DescribeProducers',
  versions: '0',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    topics: f.array('0+', {
      name: f.string('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        errorCode: f.int16('0+'),
        errorMessage: f.string('0+', { nullable: '0+', default: null }),
        activeProducers: f.array('0+', {
          producerId: f.int64('0+'),
          /** int32 on the wire although epochs are int16 elsewhere. */
          producerEpoch: f.int32('0+'),
          lastSequence: f.int32('0+', { default: -1 }),
          lastTimestamp: f.int64('0+', { default: -1 }),
          coordinatorEpoch: f.int32('0+'),
          currentTxnStartOffset: f.int64('0+', { default: -1 }),
        }),
      }),
    }),
  },
})

export type DescribeProducersRequestData = Infer<typeof DescribeProducersRequest>
export type DescribeProducersResponseData = Infer<typeof DescribeProducersResponse>
