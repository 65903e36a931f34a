import { ProduceRequest, ProduceResponse } from '../../../src/protocol/messages/00-produce.js'
import { FetchRequest, FetchResponse } from '../../../src/protocol/messages/01-fetch.js'
import { ListOffsetsRequest, ListOffsetsResponse } from '../../../src/protocol/messages/02-list-offsets.js'
import { MetadataRequest, MetadataResponse } from '../../../src/protocol/messages/03-metadata.js'
import { describeHexFixtures, type HexFixture, I64_MINUS_1, TOPIC_ID, TOPIC_ID_HEX, ZERO_UUID } from '../../helpers/message-fixtures.js'

/** Topic id 00 01 02 … 0f. */

const fixtures: HexFixture[] = [
  // ------------------------------------------------------------------------------------ Produce
  {
    name: 'Produce request v3 (non-flexible)',
    msg: ProduceRequest,
    version: 3,
    hex:
      'ffff' + // transactionalId = null (int16 length -1)
      'ffff' + // acks = -1
      '00007530' + // timeoutMs = 30000
      '00000001' + // topicData: 1 topic
      '0001' +
      '74' + //   name = "t"
      '00000001' + //   partitionData: 1 partition
      '00000000' + //     index = 0
      '00000004' +
      'deadbeef', //     records = 4 opaque bytes (int32 length)
    value: {
      transactionalId: null,
      acks: -1,
      timeoutMs: 30000,
      topicData: [{ name: 't', topicId: ZERO_UUID /* v13+ */, partitionData: [{ index: 0, records: Buffer.from('deadbeef', 'hex') }] }],
    },
    sparse: {
      acks: -1,
      timeoutMs: 30000,
      topicData: [{ name: 't', partitionData: [{ index: 0, records: Buffer.from('deadbeef', 'hex') }] }],
    },
  },
  {
    name: 'Produce request v9 (flexible)',
    msg: ProduceRequest,
    version: 9,
    hex:
      '03' +
      '7478' + // transactionalId = "tx" (compact: length + 1)
      '0001' + // acks = 1
      '000003e8' + // timeoutMs = 1000
      '02' + // topicData: 1 topic (compact: count + 1)
      '03' +
      '6162' + //   name = "ab"
      '02' + //   partitionData: 1 partition
      '00000002' + //     index = 2
      '00' + //     records = null (compact 0)
      '00' + //     partition tagged fields: none
      '00' + //   topic tagged fields: none
      '00', // request tagged fields: none
    value: {
      transactionalId: 'tx',
      acks: 1,
      timeoutMs: 1000,
      topicData: [{ name: 'ab', topicId: ZERO_UUID /* v13+ */, partitionData: [{ index: 2, records: null }] }],
    },
  },
  {
    name: 'Produce response v8 (non-flexible, record errors)',
    msg: ProduceResponse,
    version: 8,
    hex:
      '00000001' + // responses: 1 topic
      '0001' +
      '74' + //   name = "t"
      '00000001' + //   partitionResponses: 1
      '00000000' + //     index = 0
      '0057' + //     errorCode = 87 (INVALID_RECORD)
      I64_MINUS_1 + //     baseOffset = -1
      I64_MINUS_1 + //     logAppendTimeMs = -1
      '0000000000000000' + //     logStartOffset = 0
      '00000001' + //     recordErrors: 1
      '00000003' + //       batchIndex = 3
      '0003' +
      '626164' + //       batchIndexErrorMessage = "bad"
      'ffff' + //     errorMessage = null
      '00000000', // throttleTimeMs = 0
    value: {
      responses: [
        {
          name: 't',
          topicId: ZERO_UUID, // v13+
          partitionResponses: [
            {
              index: 0,
              errorCode: 87,
              baseOffset: -1,
              logAppendTimeMs: -1,
              logStartOffset: 0,
              recordErrors: [{ batchIndex: 3, batchIndexErrorMessage: 'bad' }],
              errorMessage: null,
              currentLeader: { leaderId: -1, leaderEpoch: -1 }, // absent before v10
            },
          ],
        },
      ],
      throttleTimeMs: 0,
      nodeEndpoints: [], // absent before v10
    },
  },
  {
    name: 'Produce response v10 (flexible, tagged currentLeader and nodeEndpoints)',
    msg: ProduceResponse,
    version: 10,
    hex:
      '02' + // responses: 1 topic
      '02' +
      '74' + //   name = "t"
      '02' + //   partitionResponses: 1
      '00000000' + //     index = 0
      '0006' + //     errorCode = 6 (NOT_LEADER_OR_FOLLOWER)
      I64_MINUS_1 + //     baseOffset = -1
      I64_MINUS_1 + //     logAppendTimeMs = -1
      I64_MINUS_1 + //     logStartOffset = -1
      '01' + //     recordErrors: empty
      '00' + //     errorMessage = null
      '01' + //     partition tagged fields: 1
      '00' +
      '09' + //       tag 0 (currentLeader), 9 bytes
      '00000002' + //         leaderId = 2
      '00000005' + //         leaderEpoch = 5
      '00' + //         its tagged fields: none
      '00' + //   topic tagged fields: none
      '00000000' + // throttleTimeMs = 0
      '01' + // response tagged fields: 1
      '00' +
      '0d' + //   tag 0 (nodeEndpoints), 13 bytes
      '02' + //     1 endpoint
      '00000002' + //       nodeId = 2
      '02' +
      '68' + //       host = "h"
      '00002384' + //       port = 9092
      '00' + //       rack = null
      '00', //       endpoint tagged fields: none
    value: {
      responses: [
        {
          name: 't',
          topicId: ZERO_UUID, // v13+
          partitionResponses: [
            {
              index: 0,
              errorCode: 6,
              baseOffset: -1,
              logAppendTimeMs: -1,
              logStartOffset: -1,
              recordErrors: [],
              errorMessage: null,
              currentLeader: { leaderId: 2, leaderEpoch: 5 },
            },
          ],
        },
      ],
      throttleTimeMs: 0,
      nodeEndpoints: [{ nodeId: 2, host: 'h', port: 9092, rack: null }],
    },
  },

  // -------------------------------------------------------------------------------------- Fetch
  {
    name: 'Fetch request v11 (non-flexible, session, forgotten topics, rackId)',
    msg: FetchRequest,
    version: 11,
    hex:
      'ffffffff' + // replicaId = -1 (consumer)
      '000001f4' + // maxWaitMs = 500
      '00000001' + // minBytes = 1
      '03200000' + // maxBytes = 52428800
      '01' + // isolationLevel = 1 (read_committed)
      '00000007' + // sessionId = 7
      '00000002' + // sessionEpoch = 2
      '00000001' + // topics: 1
      '0001' +
      '74' + //   topic = "t"
      '00000001' + //   partitions: 1
      '00000000' + //     partition = 0
      '00000003' + //     currentLeaderEpoch = 3
      '000000000000002a' + //     fetchOffset = 42
      I64_MINUS_1 + //     logStartOffset = -1
      '00100000' + //     partitionMaxBytes = 1048576
      '00000001' + // forgottenTopicsData: 1
      '0001' +
      '75' + //   topic = "u"
      '00000002' +
      '00000001' +
      '00000002' + //   partitions = [1, 2]
      '0002' +
      '7231', // rackId = "r1"
    value: {
      clusterId: null, // flexible-only tagged field
      replicaId: -1,
      replicaState: { replicaId: -1, replicaEpoch: -1 }, // v15+
      maxWaitMs: 500,
      minBytes: 1,
      maxBytes: 52428800,
      isolationLevel: 1,
      sessionId: 7,
      sessionEpoch: 2,
      topics: [
        {
          topic: 't',
          topicId: ZERO_UUID, // v13+
          partitions: [
            {
              partition: 0,
              currentLeaderEpoch: 3,
              fetchOffset: 42,
              lastFetchedEpoch: -1, // v12+
              logStartOffset: -1,
              partitionMaxBytes: 1048576,
              replicaDirectoryId: ZERO_UUID, // v17+
              highWatermark: Number.MAX_SAFE_INTEGER, // v18+ (Kafka's default, 2^63-1, as a safe integer)
            },
          ],
        },
      ],
      forgottenTopicsData: [{ topic: 'u', topicId: ZERO_UUID, partitions: [1, 2] }],
      rackId: 'r1',
    },
  },
  {
    name: 'Fetch request v15 (flexible, topic ids, tagged clusterId and replicaState)',
    msg: FetchRequest,
    version: 15,
    hex:
      // (no replicaId from v15: it moved into the replicaState tagged field)
      '000001f4' + // maxWaitMs = 500
      '00000001' + // minBytes = 1
      '7fffffff' + // maxBytes = 2147483647
      '00' + // isolationLevel = 0
      '00000000' + // sessionId = 0
      'ffffffff' + // sessionEpoch = -1 (full fetch, no session)
      '02' + // topics: 1
      TOPIC_ID_HEX + //   topicId
      '02' + //   partitions: 1
      '00000001' + //     partition = 1
      '00000004' + //     currentLeaderEpoch = 4
      '0000000000000064' + //     fetchOffset = 100
      '00000003' + //     lastFetchedEpoch = 3
      '0000000000000000' + //     logStartOffset = 0
      '00100000' + //     partitionMaxBytes = 1048576
      '00' + //     partition tagged fields: none
      '00' + //   topic tagged fields: none
      '01' + // forgottenTopicsData: empty
      '01' + // rackId = ""
      '02' + // request tagged fields: 2
      '00' +
      '02' +
      '0263' + //   tag 0 (clusterId), 2 bytes: "c"
      '01' +
      '0d' + //   tag 1 (replicaState), 13 bytes
      '00000001' + //     replicaId = 1
      '0000000000000009' + //     replicaEpoch = 9
      '00', //     its tagged fields: none
    value: {
      clusterId: 'c',
      replicaId: -1, // absent from v15
      replicaState: { replicaId: 1, replicaEpoch: 9 },
      maxWaitMs: 500,
      minBytes: 1,
      maxBytes: 2147483647,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: '', // absent from v13
          topicId: TOPIC_ID,
          partitions: [
            {
              partition: 1,
              currentLeaderEpoch: 4,
              fetchOffset: 100,
              lastFetchedEpoch: 3,
              logStartOffset: 0,
              partitionMaxBytes: 1048576,
              replicaDirectoryId: ZERO_UUID, // v17+
              highWatermark: Number.MAX_SAFE_INTEGER, // v18+ (Kafka's default, 2^63-1, as a safe integer)
            },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: '',
    },
  },
  {
    name: 'Fetch response v4 (non-flexible, records)',
    msg: FetchResponse,
    version: 4,
    hex:
      '00000000' + // throttleTimeMs = 0
      '00000001' + // responses: 1
      '0001' +
      '74' + //   topic = "t"
      '00000001' + //   partitions: 1
      '00000000' + //     partitionIndex = 0
      '0000' + //     errorCode = 0
      '000000000000000a' + //     highWatermark = 10
      '000000000000000a' + //     lastStableOffset = 10
      'ffffffff' + //     abortedTransactions = null
      '00000006' +
      'cafebabe0102', //     records = 6 opaque bytes (int32 length)
    value: {
      throttleTimeMs: 0,
      errorCode: 0, // v7+
      sessionId: 0, // v7+
      responses: [
        {
          topic: 't',
          topicId: ZERO_UUID, // v13+
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              highWatermark: 10,
              lastStableOffset: 10,
              logStartOffset: -1, // v5+
              divergingEpoch: { epoch: -1, endOffset: -1 }, // v12+
              currentLeader: { leaderId: -1, leaderEpoch: -1 }, // v12+
              snapshotId: { endOffset: -1, epoch: -1 }, // v12+
              abortedTransactions: null,
              preferredReadReplica: -1, // v11+
              records: Buffer.from('cafebabe0102', 'hex'),
            },
          ],
        },
      ],
      nodeEndpoints: [], // v16+
    },
  },
  {
    // divergingEpoch and snapshotId sit at their defaults, so encode(value) must leave their tags out.
    name: 'Fetch response v12 (flexible, records, aborted transactions, tagged currentLeader)',
    msg: FetchResponse,
    version: 12,
    hex:
      '00000000' + // throttleTimeMs = 0
      '0000' + // errorCode = 0
      '0000000c' + // sessionId = 12
      '02' + // responses: 1
      '02' +
      '74' + //   topic = "t"
      '02' + //   partitions: 1
      '00000001' + //     partitionIndex = 1
      '0000' + //     errorCode = 0
      '0000000000000064' + //     highWatermark = 100
      '000000000000005a' + //     lastStableOffset = 90
      '0000000000000000' + //     logStartOffset = 0
      '02' + //     abortedTransactions: 1
      '0000000000000005' + //       producerId = 5
      '000000000000005f' + //       firstOffset = 95
      '00' + //       its tagged fields: none
      'ffffffff' + //     preferredReadReplica = -1
      '05' +
      '01020304' + //     records = 4 opaque bytes (compact: length + 1)
      '01' + //     partition tagged fields: 1
      '01' +
      '09' + //       tag 1 (currentLeader), 9 bytes
      '00000001' + //         leaderId = 1
      '00000003' + //         leaderEpoch = 3
      '00' + //         its tagged fields: none
      '00' + //   topic tagged fields: none
      '00', // response tagged fields: none
    value: {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 12,
      responses: [
        {
          topic: 't',
          topicId: ZERO_UUID, // v13+
          partitions: [
            {
              partitionIndex: 1,
              errorCode: 0,
              highWatermark: 100,
              lastStableOffset: 90,
              logStartOffset: 0,
              divergingEpoch: { epoch: -1, endOffset: -1 }, // tag 0 not sent
              currentLeader: { leaderId: 1, leaderEpoch: 3 },
              snapshotId: { endOffset: -1, epoch: -1 }, // tag 2 not sent
              abortedTransactions: [{ producerId: 5, firstOffset: 95 }],
              preferredReadReplica: -1,
              records: Buffer.from('01020304', 'hex'),
            },
          ],
        },
      ],
      nodeEndpoints: [], // v16+
    },
    sparse: {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 12,
      responses: [
        {
          topic: 't',
          partitions: [
            {
              partitionIndex: 1,
              errorCode: 0,
              highWatermark: 100,
              lastStableOffset: 90,
              logStartOffset: 0,
              currentLeader: { leaderId: 1, leaderEpoch: 3 },
              abortedTransactions: [{ producerId: 5, firstOffset: 95 }],
              records: Buffer.from('01020304', 'hex'),
            },
          ],
        },
      ],
    },
  },

  // -------------------------------------------------------------------------------- ListOffsets
  {
    name: 'ListOffsets request v1 (non-flexible)',
    msg: ListOffsetsRequest,
    version: 1,
    hex:
      'ffffffff' + // replicaId = -1
      '00000001' + // topics: 1
      '0001' +
      '74' + //   name = "t"
      '00000001' + //   partitions: 1
      '00000000' + //     partitionIndex = 0
      I64_MINUS_1, //     timestamp = -1 (latest)
    value: {
      replicaId: -1,
      isolationLevel: 0, // v2+
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }],
      timeoutMs: 0, // v10+
    },
  },
  {
    name: 'ListOffsets request v7 (flexible)',
    msg: ListOffsetsRequest,
    version: 7,
    hex:
      'ffffffff' + // replicaId = -1
      '01' + // isolationLevel = 1
      '02' + // topics: 1
      '02' +
      '74' + //   name = "t"
      '02' + //   partitions: 1
      '00000002' + //     partitionIndex = 2
      '00000005' + //     currentLeaderEpoch = 5
      'fffffffffffffffd' + //     timestamp = -3 (max timestamp)
      '00' + //     partition tagged fields: none
      '00' + //   topic tagged fields: none
      '00', // request tagged fields: none
    value: {
      replicaId: -1,
      isolationLevel: 1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 2, currentLeaderEpoch: 5, timestamp: -3 }] }],
      timeoutMs: 0, // v10+
    },
  },
  {
    name: 'ListOffsets response v4 (non-flexible)',
    msg: ListOffsetsResponse,
    version: 4,
    hex:
      '00000000' + // throttleTimeMs = 0
      '00000001' + // topics: 1
      '0001' +
      '74' + //   name = "t"
      '00000001' + //   partitions: 1
      '00000000' + //     partitionIndex = 0
      '0000' + //     errorCode = 0
      I64_MINUS_1 + //     timestamp = -1
      '000000000000002a' + //     offset = 42
      '00000003', //     leaderEpoch = 3
    value: {
      throttleTimeMs: 0,
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, errorCode: 0, timestamp: -1, offset: 42, leaderEpoch: 3 }],
        },
      ],
    },
  },
  {
    name: 'ListOffsets response v9 (flexible)',
    msg: ListOffsetsResponse,
    version: 9,
    hex:
      '00000000' + // throttleTimeMs = 0
      '02' + // topics: 1
      '02' +
      '74' + //   name = "t"
      '02' + //   partitions: 1
      '00000000' + //     partitionIndex = 0
      '0000' + //     errorCode = 0
      '0000018bcfe56800' + //     timestamp = 1700000000000
      '0000000000000007' + //     offset = 7
      '00000000' + //     leaderEpoch = 0
      '00' + //     partition tagged fields: none
      '00' + //   topic tagged fields: none
      '00', // response tagged fields: none
    value: {
      throttleTimeMs: 0,
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, errorCode: 0, timestamp: 1700000000000, offset: 7, leaderEpoch: 0 }],
        },
      ],
    },
  },

  // ----------------------------------------------------------------------------------- Metadata
  {
    name: 'Metadata request v0 (non-flexible)',
    msg: MetadataRequest,
    version: 0,
    hex:
      '00000001' + // topics: 1
      '0001' +
      '74', //   name = "t"
    value: {
      topics: [{ topicId: ZERO_UUID, name: 't' }], // topicId: v10+
      allowAutoTopicCreation: true, // v4+, default true
      includeClusterAuthorizedOperations: false, // v8-10
      includeTopicAuthorizedOperations: false, // v8+
    },
    sparse: { topics: [{ name: 't' }] },
  },
  {
    name: 'Metadata request v4 (non-flexible, all topics)',
    msg: MetadataRequest,
    version: 4,
    hex:
      'ffffffff' + // topics = null (all topics)
      '00', // allowAutoTopicCreation = false
    value: {
      topics: null,
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    },
  },
  {
    name: 'Metadata request v12 (flexible, topic by id with a null name)',
    msg: MetadataRequest,
    version: 12,
    hex:
      '02' + // topics: 1
      TOPIC_ID_HEX + //   topicId
      '00' + //   name = null (compact 0)
      '00' + //   topic tagged fields: none
      '00' + // allowAutoTopicCreation = false
      '01' + // includeTopicAuthorizedOperations = true
      '00', // request tagged fields: none
    value: {
      topics: [{ topicId: TOPIC_ID, name: null }],
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false, // v8-10 only
      includeTopicAuthorizedOperations: true,
    },
  },
  {
    name: 'Metadata response v1 (non-flexible)',
    msg: MetadataResponse,
    version: 1,
    hex:
      '00000001' + // brokers: 1
      '00000001' + //   nodeId = 1
      '0001' +
      '68' + //   host = "h"
      '00002384' + //   port = 9092
      'ffff' + //   rack = null
      '00000001' + // controllerId = 1
      '00000001' + // topics: 1
      '0000' + //   errorCode = 0
      '0001' +
      '74' + //   name = "t"
      '00' + //   isInternal = false
      '00000001' + //   partitions: 1
      '0000' + //     errorCode = 0
      '00000000' + //     partitionIndex = 0
      '00000001' + //     leaderId = 1
      '00000001' +
      '00000001' + //     replicaNodes = [1]
      '00000001' +
      '00000001', //     isrNodes = [1]
    value: {
      throttleTimeMs: 0, // v3+
      brokers: [{ nodeId: 1, host: 'h', port: 9092, rack: null }],
      clusterId: null, // v2+
      controllerId: 1,
      topics: [
        {
          errorCode: 0,
          name: 't',
          topicId: ZERO_UUID, // v10+
          isInternal: false,
          partitions: [
            {
              errorCode: 0,
              partitionIndex: 0,
              leaderId: 1,
              leaderEpoch: -1, // v7+
              replicaNodes: [1],
              isrNodes: [1],
              offlineReplicas: [], // v5+
            },
          ],
          topicAuthorizedOperations: -2147483648, // v8+
        },
      ],
      clusterAuthorizedOperations: -2147483648, // v8-10
      errorCode: 0, // v13+
    },
  },
  {
    name: 'Metadata response v12 (flexible)',
    msg: MetadataResponse,
    version: 12,
    hex:
      '00000000' + // throttleTimeMs = 0
      '02' + // brokers: 1
      '00000001' + //   nodeId = 1
      '02' +
      '68' + //   host = "h"
      '00002384' + //   port = 9092
      '02' +
      '72' + //   rack = "r"
      '00' + //   broker tagged fields: none
      '02' +
      '63' + // clusterId = "c"
      '00000001' + // controllerId = 1
      '02' + // topics: 1
      '0000' + //   errorCode = 0
      '02' +
      '74' + //   name = "t"
      TOPIC_ID_HEX + //   topicId
      '00' + //   isInternal = false
      '02' + //   partitions: 1
      '0000' + //     errorCode = 0
      '00000000' + //     partitionIndex = 0
      '00000001' + //     leaderId = 1
      '00000002' + //     leaderEpoch = 2
      '03' +
      '00000001' +
      '00000002' + //     replicaNodes = [1, 2]
      '02' +
      '00000001' + //     isrNodes = [1]
      '02' +
      '00000002' + //     offlineReplicas = [2]
      '00' + //     partition tagged fields: none
      '80000000' + //   topicAuthorizedOperations = -2147483648 (not requested)
      '00' + //   topic tagged fields: none
      '00', // response tagged fields: none
    value: {
      throttleTimeMs: 0,
      brokers: [{ nodeId: 1, host: 'h', port: 9092, rack: 'r' }],
      clusterId: 'c',
      controllerId: 1,
      topics: [
        {
          errorCode: 0,
          name: 't',
          topicId: TOPIC_ID,
          isInternal: false,
          partitions: [
            {
              errorCode: 0,
              partitionIndex: 0,
              leaderId: 1,
              leaderEpoch: 2,
              replicaNodes: [1, 2],
              isrNodes: [1],
              offlineReplicas: [2],
            },
          ],
          topicAuthorizedOperations: -2147483648,
        },
      ],
      clusterAuthorizedOperations: -2147483648, // v8-10 only
      errorCode: 0, // v13+
    },
  },
]

describeHexFixtures('hand-checked byte fixtures: Produce, Fetch, ListOffsets, Metadata', fixtures)
