// Hand-checked byte fixtures for the newest Produce (v12, v13) and Fetch (v18) versions, written out
// field by field from Kafka 4.4's layouts (not produced by our encoder). Each fixture checks
// decode(bytes) = value and encode(value) = bytes; `sparse` leaves defaulted fields out.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ProduceRequest, ProduceResponse } from '../../../src/protocol/messages/00-produce.js'
import { FetchRequest, FetchResponse, NOT_SENT_HIGH_WATERMARK } from '../../../src/protocol/messages/01-fetch.js'
import { describeHexFixtures, type HexFixture, I64_MINUS_1, TOPIC_ID, TOPIC_ID_HEX, ZERO_UUID } from '../../helpers/message-fixtures.js'

/** Topic id 00 01 02 … 0f. */
/** Directory id f0 f1 … ff. */
const DIR_ID = '8PHy8_T19vf4-fr7_P3-_w'
const DIR_ID_HEX = 'f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff'

const fixtures: HexFixture[] = [
  {
    name: 'Produce request v12 (same layout as v11: topic by name)',
    msg: ProduceRequest,
    version: 12,
    hex:
      '03' +
      '7478' + // transactionalId = "tx"
      'ffff' + // acks = -1
      '000003e8' + // timeoutMs = 1000
      '02' + // topicData: 1
      '02' +
      '74' + //   name = "t"
      '02' + //   partitionData: 1
      '00000001' + //     index = 1
      '05' +
      'deadbeef' + //     records = 4 opaque bytes (compact: length + 1)
      '00' + //     partition tagged fields
      '00' + //   topic tagged fields
      '00', // request tagged fields
    value: {
      transactionalId: 'tx',
      acks: -1,
      timeoutMs: 1000,
      topicData: [{ name: 't', topicId: ZERO_UUID, partitionData: [{ index: 1, records: Buffer.from('deadbeef', 'hex') }] }],
    },
  },
  {
    name: 'Produce request v13 (topic by id, no name)',
    msg: ProduceRequest,
    version: 13,
    hex:
      '00' + // transactionalId = null
      '0001' + // acks = 1
      '00007530' + // timeoutMs = 30000
      '02' + // topicData: 1
      TOPIC_ID_HEX + //   topicId
      '02' + //   partitionData: 1
      '00000000' + //     index = 0
      '05' +
      'cafebabe' + //     records
      '00' + //     partition tagged fields
      '00' + //   topic tagged fields
      '00', // request tagged fields
    value: {
      transactionalId: null,
      acks: 1,
      timeoutMs: 30000,
      topicData: [{ name: '', topicId: TOPIC_ID, partitionData: [{ index: 0, records: Buffer.from('cafebabe', 'hex') }] }],
    },
    sparse: {
      acks: 1,
      timeoutMs: 30000,
      topicData: [{ name: 'ignored at v13', topicId: TOPIC_ID, partitionData: [{ index: 0, records: Buffer.from('cafebabe', 'hex') }] }],
    },
  },
  {
    name: 'Produce response v13 (topic by id, record errors and error message)',
    msg: ProduceResponse,
    version: 13,
    hex:
      '02' + // responses: 1
      TOPIC_ID_HEX + //   topicId
      '02' + //   partitionResponses: 1
      '00000000' + //     index = 0
      '0057' + //     errorCode = 87 (INVALID_RECORD)
      I64_MINUS_1 + //     baseOffset = -1
      I64_MINUS_1 + //     logAppendTimeMs = -1
      '0000000000000005' + //     logStartOffset = 5
      '03' + //     recordErrors: 2
      '00000001' +
      '026b' +
      '00' + //       batchIndex 1, message "k", tagged fields
      '00000003' +
      '00' +
      '00' + //       batchIndex 3, message null, tagged fields
      '026d' + //     errorMessage = "m"
      '00' + //     partition tagged fields (currentLeader at its default: not sent)
      '00' + //   topic tagged fields
      '00000000' + // throttleTimeMs = 0
      '00', // response tagged fields
    value: {
      responses: [
        {
          name: '', // absent from v13
          topicId: TOPIC_ID,
          partitionResponses: [
            {
              index: 0,
              errorCode: 87,
              baseOffset: -1,
              logAppendTimeMs: -1,
              logStartOffset: 5,
              recordErrors: [
                { batchIndex: 1, batchIndexErrorMessage: 'k' },
                { batchIndex: 3, batchIndexErrorMessage: null },
              ],
              errorMessage: 'm',
              currentLeader: { leaderId: -1, leaderEpoch: -1 },
            },
          ],
        },
      ],
      throttleTimeMs: 0,
      nodeEndpoints: [],
    },
  },
  {
    name: 'Fetch request v18 (follower: tagged replicaDirectoryId and highWatermark)',
    msg: FetchRequest,
    version: 18,
    hex:
      '000001f4' + // maxWaitMs = 500
      '00000001' + // minBytes = 1
      '7fffffff' + // maxBytes
      '00' + // isolationLevel = 0
      '00000000' + // sessionId = 0
      'ffffffff' + // sessionEpoch = -1
      '02' + // topics: 1
      TOPIC_ID_HEX + //   topicId
      '02' + //   partitions: 1
      '00000000' + //     partition = 0
      '00000002' + //     currentLeaderEpoch = 2
      '000000000000000a' + //     fetchOffset = 10
      '00000002' + //     lastFetchedEpoch = 2
      '0000000000000000' + //     logStartOffset = 0
      '00100000' + //     partitionMaxBytes = 1048576
      '02' + //     partition tagged fields: 2
      '00' +
      '10' +
      DIR_ID_HEX + //       tag 0 (replicaDirectoryId), 16 bytes
      '01' +
      '08' +
      '0000000000000007' + //       tag 1 (highWatermark), 8 bytes: 7
      '00' + //   topic tagged fields
      '01' + // forgottenTopicsData: empty
      '01' + // rackId = ""
      '01' + // request tagged fields: 1
      '01' +
      '0d' + //   tag 1 (replicaState), 13 bytes
      '00000001' + //     replicaId = 1
      '0000000000000004' + //     replicaEpoch = 4
      '00', //     its tagged fields
    value: {
      clusterId: null,
      replicaId: -1, // absent from v15
      replicaState: { replicaId: 1, replicaEpoch: 4 },
      maxWaitMs: 500,
      minBytes: 1,
      maxBytes: 0x7fffffff,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: '',
          topicId: TOPIC_ID,
          partitions: [
            {
              partition: 0,
              currentLeaderEpoch: 2,
              fetchOffset: 10,
              lastFetchedEpoch: 2,
              logStartOffset: 0,
              partitionMaxBytes: 1048576,
              replicaDirectoryId: DIR_ID,
              highWatermark: 7,
            },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: '',
    },
  },
  {
    name: 'Fetch request v18 (consumer: no highWatermark tag, which reads as "not supported")',
    msg: FetchRequest,
    version: 18,
    hex:
      '00000064' + // maxWaitMs = 100
      '00000001' + // minBytes = 1
      '00100000' + // maxBytes = 1048576
      '01' + // isolationLevel = 1
      '00000000' + // sessionId = 0
      'ffffffff' + // sessionEpoch = -1
      '02' + // topics: 1
      TOPIC_ID_HEX + //   topicId
      '02' + //   partitions: 1
      '00000003' + //     partition = 3
      'ffffffff' + //     currentLeaderEpoch = -1
      '0000000000000000' + //     fetchOffset = 0
      'ffffffff' + //     lastFetchedEpoch = -1
      I64_MINUS_1 + //     logStartOffset = -1
      '00010000' + //     partitionMaxBytes = 65536
      '00' + //     partition tagged fields: none
      '00' + //   topic tagged fields
      '01' + // forgottenTopicsData: empty
      '03' +
      '7231' + // rackId = "r1"
      '00', // request tagged fields: none
    value: {
      clusterId: null,
      replicaId: -1,
      replicaState: { replicaId: -1, replicaEpoch: -1 },
      maxWaitMs: 100,
      minBytes: 1,
      maxBytes: 1048576,
      isolationLevel: 1,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: '',
          topicId: TOPIC_ID,
          partitions: [
            {
              partition: 3,
              currentLeaderEpoch: -1,
              fetchOffset: 0,
              lastFetchedEpoch: -1,
              logStartOffset: -1,
              partitionMaxBytes: 65536,
              replicaDirectoryId: ZERO_UUID,
              highWatermark: NOT_SENT_HIGH_WATERMARK,
            },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: 'r1',
    },
    sparse: {
      maxWaitMs: 100,
      minBytes: 1,
      maxBytes: 1048576,
      isolationLevel: 1,
      topics: [{ topicId: TOPIC_ID, partitions: [{ partition: 3, fetchOffset: 0, partitionMaxBytes: 65536 }] }],
      rackId: 'r1',
    },
  },
  {
    name: 'Fetch response v18 (same layout as v17)',
    msg: FetchResponse,
    version: 18,
    hex:
      '00000000' + // throttleTimeMs = 0
      '0000' + // errorCode = 0
      '00000000' + // sessionId = 0
      '02' + // responses: 1
      TOPIC_ID_HEX + //   topicId
      '02' + //   partitions: 1
      '00000000' + //     partitionIndex = 0
      '0000' + //     errorCode = 0
      '0000000000000003' + //     highWatermark = 3
      '0000000000000003' + //     lastStableOffset = 3
      '0000000000000000' + //     logStartOffset = 0
      '00' + //     abortedTransactions = null
      'ffffffff' + //     preferredReadReplica = -1
      '03' +
      '0102' + //     records = 2 opaque bytes
      '00' + //     partition tagged fields
      '00' + //   topic tagged fields
      '00', // response tagged fields
    value: {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topic: '',
          topicId: TOPIC_ID,
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              highWatermark: 3,
              lastStableOffset: 3,
              logStartOffset: 0,
              divergingEpoch: { epoch: -1, endOffset: -1 },
              currentLeader: { leaderId: -1, leaderEpoch: -1 },
              snapshotId: { endOffset: -1, epoch: -1 },
              abortedTransactions: null,
              preferredReadReplica: -1,
              records: Buffer.from('0102', 'hex'),
            },
          ],
        },
      ],
      nodeEndpoints: [],
    },
  },
]

describeHexFixtures('hand-checked byte fixtures: Produce v12-13, Fetch v18', fixtures, () => {
  test('the v13 request is the v12 one with a 16-byte id where the name was', () => {
    const body = { acks: 1, timeoutMs: 5, topicData: [{ name: 'abc', topicId: TOPIC_ID, partitionData: [{ index: 0, records: null }] }] }
    const v12 = ProduceRequest.encode(12, body)
    const v13 = ProduceRequest.encode(13, body)
    assert.equal(v13.length - v12.length, 16 - (1 + 3))
    assert.equal(ProduceRequest.decode(12, v12).topicData[0]!.topicId, ZERO_UUID, 'no id before v13')
    assert.equal(ProduceRequest.decode(13, v13).topicData[0]!.name, '', 'no name from v13')
  })

  test('Fetch v17 knows no highWatermark tag: it is skipped as an unknown tag', () => {
    // The v18 follower partition above, read as v17 (tag 1 of a partition is unknown there).
    const v18 = FetchRequest.encode(18, fixtures[3]!.value)
    const asV17 = FetchRequest.decode(17, v18)
    assert.equal(asV17.topics[0]!.partitions[0]!.highWatermark, NOT_SENT_HIGH_WATERMARK)
    assert.equal(asV17.topics[0]!.partitions[0]!.replicaDirectoryId, DIR_ID)
  })
})
