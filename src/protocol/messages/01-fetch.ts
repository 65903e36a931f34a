// Fetch (key 1). Declared for v4–18 (record batch v2 only). Flexible from v12.
//   v4  isolationLevel, abortedTransactions, lastStableOffset   v5  logStartOffset
//   v7  incremental fetch sessions (sessionId/sessionEpoch, forgottenTopicsData)
//   v9  currentLeaderEpoch       v10 zstd allowed         v11 rackId, preferredReadReplica
//   v12 flexible; lastFetchedEpoch; tagged clusterId (request) and divergingEpoch / currentLeader /
//       snapshotId (response partitions)
//   v13 topic ids replace topic names                     v14 same layout as v13
//   v15 replicaState (tagged) replaces replicaId (KIP-903)
//   v16 nodeEndpoints in the response (KIP-951)           v17 replicaDirectoryId (KIP-853)
//   v18 highWatermark (tagged) per requested partition: the high watermark a follower knows
//       (KIP-1166; -1 unknown). Kafka's default, 2^63-1 ("not supported"), is beyond a JS safe
//       integer: an absent tag reads as Number.MAX_SAFE_INTEGER instead. Kafka's generated code
//       sends the tag only when it differs from that default. The response is the same as v17.
import { f, type Infer, message, T } from '../schema.js'

/** A Fetch v18 partition's highWatermark when the tag is absent (Kafka's 2^63-1, see the header). */
export const NOT_SENT_HIGH_WATERMARK = Number.MAX_SAFE_INTEGER

export const FetchRequest = message({
  apiKey: 1,
  name: 'Fetch',
  versions: '4-18',
  flexible: '12+',
  fields: {
    clusterId: f.string('12+', { nullable: '12+', default: null, tagged: '12+', tag: 0 }),
    replicaId: f.int32('0-14', { default: -1 }),
    replicaState: f.struct(
      '15+',
      {
        replicaId: f.int32('15+', { default: -1 }),
        replicaEpoch: f.int64('15+', { default: -1 }),
      },
      { tagged: '15+', tag: 1 },
    ),
    maxWaitMs: f.int32('0+'),
    minBytes: f.int32('0+'),
    maxBytes: f.int32('3+', { default: 0x7fffffff }),
    isolationLevel: f.int8('4+', { default: 0 }),
    sessionId: f.int32('7+', { default: 0 }),
    sessionEpoch: f.int32('7+', { default: -1 }),
    topics: f.array('0+', {
      topic: f.string('0-12'),
      topicId: f.uuid('13+'),
      partitions: f.array('0+', {
        partition: f.int32('0+'),
        currentLeaderEpoch: f.int32('9+', { default: -1 }),
        fetchOffset: f.int64('0+'),
        lastFetchedEpoch: f.int32('12+', { default: -1 }),
        logStartOffset: f.int64('5+', { default: -1 }),
        partitionMaxBytes: f.int32('0+'),
        replicaDirectoryId: f.uuid('17+', { tagged: '17+', tag: 0 }),
        highWatermark: f.int64('18+', { default: NOT_SENT_HIGH_WATERMARK, tagged: '18+', tag: 1 }),
      }),
    }),
    forgottenTopicsData: f.array('7+', {
      topic: f.string('7-12'),
      topicId: f.uuid('13+'),
      partitions: f.arrayOf('7+', T.int32),
    }),
    rackId: f.string('11+', { default: '' }),
  },
})

export const FetchResponse = message({
  apiKey: 1,
  name: 'Fetch',
  versions: '4-18',
  flexible: '12+',
  fields: {
    throttleTimeMs: f.int32('1+'),
    errorCode: f.int16('7+'),
    sessionId: f.int32('7+', { default: 0 }),
    responses: f.array('0+', {
      topic: f.string('0-12'),
      topicId: f.uuid('13+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        errorCode: f.int16('0+'),
        highWatermark: f.int64('0+'),
        lastStableOffset: f.int64('4+', { default: -1 }),
        logStartOffset: f.int64('5+', { default: -1 }),
        divergingEpoch: f.struct(
          '12+',
          {
            epoch: f.int32('12+', { default: -1 }),
            endOffset: f.int64('12+', { default: -1 }),
          },
          { tagged: '12+', tag: 0 },
        ),
        currentLeader: f.struct(
          '12+',
          {
            leaderId: f.int32('12+', { default: -1 }),
            leaderEpoch: f.int32('12+', { default: -1 }),
          },
          { tagged: '12+', tag: 1 },
        ),
        snapshotId: f.struct(
          '12+',
          {
            endOffset: f.int64('0+', { default: -1 }),
            epoch: f.int32('0+', { default: -1 }),
          },
          { tagged: '12+', tag: 2 },
        ),
        abortedTransactions: f.array(
          '4+',
          {
            producerId: f.int64('4+'),
            firstOffset: f.int64('4+'),
          },
          { nullable: '4+' },
        ),
        preferredReadReplica: f.int32('11+', { default: -1 }),
        records: f.records('0+', { nullable: '0+' }),
      }),
    }),
    nodeEndpoints: f.array(
      '16+',
      {
        nodeId: f.int32('16+'),
        host: f.string('16+'),
        port: f.int32('16+'),
        rack: f.string('16+', { nullable: '16+', default: null }),
      },
      { tagged: '16+', tag: 0 },
    ),
  },
})

export type FetchRequestData = Infer<typeof FetchRequest>
export type FetchResponseData = Infer<typeof FetchResponse>
