// WriteTxnMarkers (key 27), v1–2; flexible in every version. Sent by a transaction coordinator to
// partition leaders; v2 carries the transaction version of the marker (KIP-1228).
import { f, type Infer, message, T } from '../schema.js'

export const WriteTxnMarkersRequest = message({
  apiKey: 27,
  name: 'WriteTxnMarkers',
  versions: '1-2',
  flexible: '1+',
  fields: {
    markers: f.array('0+', {
      producerId: f.int64('0+'),
      producerEpoch: f.int16('0+'),
      transactionResult: f.bool('0+'),
      topics: f.array('0+', {
        name: f.string('0+'),
        partitionIndexes: f.arrayOf('0+', T.int32),
      }),
      coordinatorEpoch: f.int32('0+'),
      transactionVersion: f.int8('2+', { default: 0 }),
    }),
  },
})

export const WriteTxnMarkersResponse = message({
  apiKey: 27,
  name: 'WriteTxnMarkers',
  versions: '1-2',
  flexible: '1+',
  fields: {
    markers: f.array('0+', {
      producerId: f.int64('0+'),
      topics: f.array('0+', {
        name: f.string('0+'),
        partitions: f.array('0+', {
          partitionIndex: f.int32('0+'),
          errorCode: f.int16('0+'),
        }),
      }),
    }),
  },
})

export type WriteTxnMarkersRequestData = Infer<typeof WriteTxnMarkersRequest>
export type WriteTxnMarkersResponseData = Infer<typeof WriteTxnMarkersResponse>
