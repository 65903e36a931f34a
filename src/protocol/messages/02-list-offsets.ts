// ListOffsets (key 2). Declared for v1–11 (v0's multi-offset form is not served). Flexible from v6.
//   v2  isolationLevel; throttleTimeMs in the response     v4  currentLeaderEpoch / leaderEpoch
//   v5  OFFSET_NOT_AVAILABLE may be returned              v6  flexible
//   v7  timestamp -3 = max timestamp (KIP-734)            v8  -4 = local log start (KIP-405)
//   v9  -5 = last tiered offset (KIP-1005). v7–9 change only the meaning of timestamp, not the layout.
//   v10 timeoutMs in the request: how long a broker may wait for remote (tiered) lookups (KIP-1075)
//   v11 -6 = earliest offset not yet uploaded to tiered storage (KIP-1023); same layout as v10.
import { f, type Infer, message } from '../schema.js'

export const ListOffsetsRequest = message({
  apiKey: 2,
  name: 'ListOffsets',
  versions: '1-11',
  flexible: '6+',
  fields: {
    replicaId: f.int32('0+'),
    isolationLevel: f.int8('2+'),
    topics: f.array('0+', {
      name: f.string('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        currentLeaderEpoch: f.int32('4+', { default: -1 }),
        timestamp: f.int64('0+'),
      }),
    }),
    timeoutMs: f.int32('10+', { default: 0 }),
  },
})

export const ListOffsetsResponse = message({
  apiKey: 2,
  name: 'ListOffsets',
  versions: '1-11',
  flexible: '6+',
  fields: {
    throttleTimeMs: f.int32('2+'),
    topics: f.array('0+', {
      name: f.string('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        errorCode: f.int16('0+'),
        timestamp: f.int64('1+', { default: -1 }),
        offset: f.int64('1+', { default: -1 }),
        leaderEpoch: f.int32('4+', { default: -1 }),
      }),
    }),
  },
})

export type ListOffsetsRequestData = Infer<typeof ListOffsetsRequest>
export type ListOffsetsResponseData = Infer<typeof ListOffsetsResponse>
