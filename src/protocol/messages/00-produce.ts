// Produce (key 0). Declared for v3–13 (record batch v2 only; we advertise min 0 but accept ≥3, see
// KAFKA-18659, docs/architecture.md §1.1). Flexible from v9.
//   v3  transactionalId          v5  logStartOffset in the response
//   v7  zstd allowed             v8  per-record errors and an error message in the response (KIP-467)
//   v9  flexible                 v10 currentLeader / nodeEndpoints tagged fields (KIP-951)
//   v11 TRANSACTION_ABORTABLE may be returned (KIP-890); same layout as v10.
//   v12 same layout as v11: a transactional producer on transaction protocol v2 (KIP-890) sends it
//       to add the partition to its transaction implicitly.
//   v13 topics named by id instead of name, in the request and the response (KIP-516); an unknown
//       id is UNKNOWN_TOPIC_ID.
import { f, type Infer, message } from '../schema.js'

export const ProduceRequest = message({
  apiKey: 0,
  name: 'Produce',
  versions: '3-13',
  flexible: '9+',
  fields: {
    transactionalId: f.string('3+', { nullable: '3+', default: null }),
    acks: f.int16('0+'),
    timeoutMs: f.int32('0+'),
    topicData: f.array('0+', {
      name: f.string('0-12'),
      topicId: f.uuid('13+'),
      partitionData: f.array('0+', {
        index: f.int32('0+'),
        records: f.records('0+', { nullable: '0+' }),
      }),
    }),
  },
})

export const ProduceResponse = message({
  apiKey: 0,
  name: 'Produce',
  versions: '3-13',
  flexible: '9+',
  fields: {
    responses: f.array('0+', {
      name: f.string('0-12'),
      topicId: f.uuid('13+'),
      partitionResponses: f.array('0+', {
        index: f.int32('0+'),
        errorCode: f.int16('0+'),
        baseOffset: f.int64('0+'),
        logAppendTimeMs: f.int64('2+', { default: -1 }),
        logStartOffset: f.int64('5+', { default: -1 }),
        recordErrors: f.array('8+', {
          batchIndex: f.int32('8+'),
          batchIndexErrorMessage: f.string('8+', { nullable: '8+', default: null }),
        }),
        errorMessage: f.string('8+', { nullable: '8+', default: null }),
        currentLeader: f.struct(
          '10+',
          {
            leaderId: f.int32('10+', { default: -1 }),
            leaderEpoch: f.int32('10+', { default: -1 }),
          },
          { tagged: '10+', tag: 0 },
        ),
      }),
    }),
    throttleTimeMs: f.int32('1+', { default: 0 }),
    nodeEndpoints: f.array(
      '10+',
      {
        nodeId: f.int32('10+'),
        host: f.string('10+'),
        port: f.int32('10+'),
        rack: f.string('10+', { nullable: '10+', default: null }),
      },
      { tagged: '10+', tag: 0 },
    ),
  },
})

export type ProduceRequestData = Infer<typeof ProduceRequest>
export type ProduceResponseData = Infer<typeof ProduceResponse>
