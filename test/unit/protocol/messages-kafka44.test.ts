// The versions raised to Kafka 4.4's maxima: Metadata v13, ListOffsets v10–11, OffsetCommit v10,
// OffsetFetch v10, DescribeGroups v6, DeleteGroups v3, DescribeCluster v2. Byte fixtures written
// out by hand, field by field, from Kafka's published message layouts; each is decoded and
// re-encoded, and the field a version adds is checked to be absent one version below.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ListOffsetsRequest, ListOffsetsResponse } from '../../../src/protocol/messages/02-list-offsets.js'
import { MetadataRequest, MetadataResponse } from '../../../src/protocol/messages/03-metadata.js'
import { OffsetCommitRequest, OffsetCommitResponse } from '../../../src/protocol/messages/08-offset-commit.js'
import { OffsetFetchRequest, OffsetFetchResponse } from '../../../src/protocol/messages/09-offset-fetch.js'
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../../../src/protocol/messages/15-describe-groups.js'
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../../../src/protocol/messages/42-delete-groups.js'
import { DescribeClusterRequest, DescribeClusterResponse } from '../../../src/protocol/messages/60-describe-cluster.js'
import { fixture, hex, ID_1_16, ID_1_16_HEX, ZERO_UUID as ZERO_ID, ZERO_UUID_HEX as ZERO_ID_HEX } from '../../helpers/message-fixtures.js'

// The uuid 01 02 03 … 10 in Kafka's base64url form.

describe('Metadata v13', () => {
  test('is the highest version declared', () => {
    assert.equal(MetadataRequest.versions.max, 13)
    assert.equal(MetadataResponse.versions.max, 13)
  })

  test('request v13 has the v12 layout', () => {
    const value = {
      topics: [{ topicId: ZERO_ID, name: 't' }],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    }
    const bytes = hex(
      '02', // topics: count 1
      ZERO_ID_HEX, //   topicId: zero
      '02 74', //   name: "t"
      '00', //   tagged fields
      '01', // allowAutoTopicCreation: true
      '00', // includeTopicAuthorizedOperations: false
      '00', // tagged fields
    )
    fixture(MetadataRequest, 13, value, bytes)
    fixture(MetadataRequest, 12, value, bytes)
  })

  test('response v13 ends with the top-level error code (REBOOTSTRAP_REQUIRED = 129)', () => {
    const value = {
      throttleTimeMs: 0,
      brokers: [{ nodeId: 1, host: 'h', port: 9092, rack: null }],
      clusterId: 'c',
      controllerId: 1,
      topics: [],
      clusterAuthorizedOperations: -2147483648,
      errorCode: 129,
    }
    const head = [
      '00000000', // throttleTimeMs: 0
      '02', // brokers: count 1
      '00000001', //   nodeId: 1
      '02 68', //   host: "h"
      '00002384', //   port: 9092
      '00', //   rack: null
      '00', //   tagged fields
      '02 63', // clusterId: "c"
      '00000001', // controllerId: 1
      '01', // topics: count 0
    ]
    fixture(MetadataResponse, 13, value, hex(...head, '0081', '00')) // errorCode 129, tagged fields
    // v12 has no error code: the same answer is two bytes shorter and decodes with NONE.
    fixture(MetadataResponse, 12, { ...value, errorCode: 0 }, hex(...head, '00'))
    assert.equal(MetadataResponse.encode(12, value).length, MetadataResponse.encode(13, value).length - 2)
  })
})

describe('ListOffsets v10–11', () => {
  const request = {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: 't', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -6 }] }],
    timeoutMs: 30000,
  }
  const requestHead = [
    'ffffffff', // replicaId: -1
    '00', // isolationLevel: 0
    '02', // topics: count 1
    '02 74', //   name: "t"
    '02', //   partitions: count 1
    '00000000', //     partitionIndex: 0
    'ffffffff', //     currentLeaderEpoch: -1
    'fffffffffffffffa', //     timestamp: -6 (earliest pending upload, KIP-1023)
    '00', //     tagged fields
    '00', //   tagged fields
  ]

  test('request v10 and v11 end with timeoutMs (KIP-1075)', () => {
    const bytes = hex(...requestHead, '00007530', '00') // timeoutMs: 30000, tagged fields
    fixture(ListOffsetsRequest, 10, request, bytes)
    fixture(ListOffsetsRequest, 11, request, bytes)
    // v9 has no timeout: it decodes as 0 and is not written.
    fixture(ListOffsetsRequest, 9, { ...request, timeoutMs: 0 }, hex(...requestHead, '00'))
  })

  test('response v11 has the v9 layout', () => {
    const value = {
      throttleTimeMs: 0,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0, timestamp: -1, offset: -1, leaderEpoch: -1 }] }],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs: 0
      '02', // topics: count 1
      '02 74', //   name: "t"
      '02', //   partitions: count 1
      '00000000', //     partitionIndex: 0
      '0000', //     errorCode: 0
      'ffffffffffffffff', //     timestamp: -1
      'ffffffffffffffff', //     offset: -1
      'ffffffff', //     leaderEpoch: -1
      '00', //     tagged fields
      '00', //   tagged fields
      '00', // tagged fields
    )
    for (const v of [9, 10, 11]) fixture(ListOffsetsResponse, v, value, bytes)
  })
})

describe('OffsetCommit v10: topics by id', () => {
  test('request v10 carries the topic id and no name', () => {
    const value = {
      groupId: 'g',
      generationIdOrMemberEpoch: 3,
      memberId: 'm',
      groupInstanceId: null,
      retentionTimeMs: -1,
      topics: [
        {
          name: '',
          topicId: ID_1_16,
          partitions: [{ partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: -1, committedMetadata: '' }],
        },
      ],
    }
    const bytes = hex(
      '02 67', // groupId: "g"
      '00000003', // generationIdOrMemberEpoch: 3
      '02 6d', // memberId: "m"
      '00', // groupInstanceId: null
      '02', // topics: count 1
      ID_1_16_HEX, //   topicId
      '02', //   partitions: count 1
      '00000000', //     partitionIndex: 0
      '000000000000002a', //     committedOffset: 42
      'ffffffff', //     committedLeaderEpoch: -1
      '01', //     committedMetadata: ""
      '00', //     tagged fields
      '00', //   tagged fields
      '00', // tagged fields
    )
    fixture(OffsetCommitRequest, 10, value, bytes)
    // v9 names the topic and has no id.
    const v9 = OffsetCommitRequest.decode(9, OffsetCommitRequest.encode(9, { ...value, topics: [{ ...value.topics[0]!, name: 't' }] }))
    assert.deepEqual([v9.topics[0]!.name, v9.topics[0]!.topicId], ['t', ZERO_ID])
  })

  test('response v10 answers by topic id (UNKNOWN_TOPIC_ID = 100)', () => {
    const value = { throttleTimeMs: 0, topics: [{ name: '', topicId: ID_1_16, partitions: [{ partitionIndex: 0, errorCode: 100 }] }] }
    const bytes = hex(
      '00000000', // throttleTimeMs: 0
      '02', // topics: count 1
      ID_1_16_HEX, //   topicId
      '02', //   partitions: count 1
      '00000000', //     partitionIndex: 0
      '0064', //     errorCode: 100
      '00', //     tagged fields
      '00', //   tagged fields
      '00', // tagged fields
    )
    fixture(OffsetCommitResponse, 10, value, bytes)
  })
})

describe('OffsetFetch v10: topics by id', () => {
  test('request v10 names the topics of a group by id', () => {
    const value = {
      groupId: '',
      topics: [],
      groups: [{ groupId: 'g', memberId: null, memberEpoch: -1, topics: [{ name: '', topicId: ID_1_16, partitionIndexes: [0] }] }],
      requireStable: false,
    }
    const bytes = hex(
      '02', // groups: count 1
      '02 67', //   groupId: "g"
      '00', //   memberId: null
      'ffffffff', //   memberEpoch: -1
      '02', //   topics: count 1
      ID_1_16_HEX, //     topicId
      '02 00000000', //     partitionIndexes: [0]
      '00', //     tagged fields
      '00', //   tagged fields
      '00', // requireStable: false
      '00', // tagged fields
    )
    fixture(OffsetFetchRequest, 10, value, bytes)
  })

  test('response v10 answers by topic id', () => {
    const value = {
      throttleTimeMs: 0,
      topics: [],
      errorCode: 0,
      groups: [
        {
          groupId: 'g',
          topics: [
            {
              name: '',
              topicId: ID_1_16,
              partitions: [{ partitionIndex: 0, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: 100 }],
            },
          ],
          errorCode: 0,
        },
      ],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs: 0
      '02', // groups: count 1
      '02 67', //   groupId: "g"
      '02', //   topics: count 1
      ID_1_16_HEX, //     topicId
      '02', //     partitions: count 1
      '00000000', //       partitionIndex: 0
      'ffffffffffffffff', //       committedOffset: -1
      'ffffffff', //       committedLeaderEpoch: -1
      '01', //       metadata: ""
      '0064', //       errorCode: 100 (UNKNOWN_TOPIC_ID)
      '00', //       tagged fields
      '00', //     tagged fields
      '0000', //   errorCode: 0
      '00', //   tagged fields
      '00', // tagged fields
    )
    fixture(OffsetFetchResponse, 10, value, bytes)
  })
})

describe('DescribeGroups v6', () => {
  test('request v6 has the v5 layout', () => {
    const value = { groups: ['x'], includeAuthorizedOperations: false }
    const bytes = hex('02 02 78', '00', '00') // groups: ["x"], includeAuthorizedOperations, tagged fields
    fixture(DescribeGroupsRequest, 6, value, bytes)
    fixture(DescribeGroupsRequest, 5, value, bytes)
  })

  test('response v6 carries an error message after the error code (GROUP_ID_NOT_FOUND = 69)', () => {
    const value = {
      throttleTimeMs: 0,
      groups: [
        {
          errorCode: 69,
          errorMessage: 'gone',
          groupId: 'x',
          groupState: 'Dead',
          protocolType: '',
          protocolData: '',
          members: [],
          authorizedOperations: -2147483648,
        },
      ],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs: 0
      '02', // groups: count 1
      '0045', //   errorCode: 69
      '05 676f6e65', //   errorMessage: "gone"
      '02 78', //   groupId: "x"
      '05 44656164', //   groupState: "Dead"
      '01', //   protocolType: ""
      '01', //   protocolData: ""
      '01', //   members: count 0
      '80000000', //   authorizedOperations: INT32_MIN
      '00', //   tagged fields
      '00', // tagged fields
    )
    fixture(DescribeGroupsResponse, 6, value, bytes)
    // v5 has no message: it is not written and decodes as null.
    const v5 = DescribeGroupsResponse.encode(5, value)
    assert.equal(v5.length, bytes.length - 5)
    assert.equal(DescribeGroupsResponse.decode(5, v5).groups[0]!.errorMessage, null)
  })
})

describe('DeleteGroups v3', () => {
  test('request v3 has the v2 layout', () => {
    const bytes = hex('02 02 78', '00') // groupsNames: ["x"], tagged fields
    fixture(DeleteGroupsRequest, 3, { groupsNames: ['x'] }, bytes)
    fixture(DeleteGroupsRequest, 2, { groupsNames: ['x'] }, bytes)
  })

  test('response v3 carries a message with each result', () => {
    const value = { throttleTimeMs: 0, results: [{ groupId: 'x', errorCode: 69, errorMessage: 'gone' }] }
    const bytes = hex(
      '00000000', // throttleTimeMs: 0
      '02', // results: count 1
      '02 78', //   groupId: "x"
      '0045', //   errorCode: 69
      '05 676f6e65', //   errorMessage: "gone"
      '00', //   tagged fields
      '00', // tagged fields
    )
    fixture(DeleteGroupsResponse, 3, value, bytes)
    fixture(
      DeleteGroupsResponse,
      3,
      { throttleTimeMs: 0, results: [{ groupId: 'x', errorCode: 0, errorMessage: null }] },
      hex('00000000', '02', '02 78', '0000', '00', '00', '00'),
    )
    fixture(
      DeleteGroupsResponse,
      2,
      { ...value, results: [{ ...value.results[0]!, errorMessage: null }] },
      hex('00000000', '02', '02 78', '0045', '00', '00'),
    )
  })
})

describe('DescribeCluster v2', () => {
  test('request v2 ends with includeFencedBrokers (KIP-1073)', () => {
    fixture(
      DescribeClusterRequest,
      2,
      { includeClusterAuthorizedOperations: false, endpointType: 1, includeFencedBrokers: true },
      hex(
        '00', // includeClusterAuthorizedOperations: false
        '01', // endpointType: 1 (brokers)
        '01', // includeFencedBrokers: true
        '00', // tagged fields
      ),
    )
  })

  test('response v2 flags each broker as fenced or not', () => {
    const value = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      endpointType: 1,
      clusterId: 'c',
      controllerId: 1,
      brokers: [{ brokerId: 1, host: 'h', port: 9092, rack: null, isFenced: true }],
      clusterAuthorizedOperations: -2147483648,
    }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '0000', // errorCode
      '00', // errorMessage: null
      '01', // endpointType: 1
      '02 63', // clusterId: "c"
      '00000001', // controllerId: 1
      '02', // brokers: count 1
      '00000001', //   brokerId: 1
      '02 68', //   host: "h"
      '00002384', //   port: 9092
      '00', //   rack: null
      '01', //   isFenced: true
      '00', //   tagged fields
      '80000000', // clusterAuthorizedOperations: INT32_MIN
      '00', // tagged fields
    )
    fixture(DescribeClusterResponse, 2, value, bytes)
    assert.equal(DescribeClusterResponse.encode(1, value).length, bytes.length - 1)
  })
})
