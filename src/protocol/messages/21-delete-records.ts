// DeleteRecords (key 21), v0–2; v1 is v0 (throttling after the response), v2 is flexible. Moves
// each partition's log start offset up to the given offset (-1 = the high watermark); the answer
// carries the new low watermark.
import { f, type Infer, message } from '../schema.js'

export const DeleteRecordsRequest = message({
  apiKey: 21,
  name: 'DeleteRecords',
  versions: '0-2',
  flexible: '2+',
  fields: {
    topics: f.array('0+', {
      name: f.string('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        offset: f.int64('0+'),
      }),
    }),
    timeoutMs: f.int32('0+'),
  },
})

export const DeleteRecordsResponse = message({
  apiKey: 21,
  name: 'DeleteRecords',
  versions: '0-2',
  flexible: '2+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    topics: f.array('0+', {
      name: f.string('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        lowWatermark: f.int64('0+'),
        errorCode: f.int16('0+'),
      }),
    }),
  },
})

export type DeleteRecordsRequestData = Infer<typeof DeleteRecordsRequest>
export type DeleteRecordsResponseData = Infer<typeof DeleteRecordsResponse>
