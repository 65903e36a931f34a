// Declarations of batch B (topics admin, producer ids, configs, cluster, consumer groups):
// byte fixtures written out by hand, field by field, from Kafka's published message layouts.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { OffsetCommitRequest } from '../../../src/protocol/messages/08-offset-commit.js'
import { OffsetFetchRequest, OffsetFetchResponse } from '../../../src/protocol/messages/09-offset-fetch.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../../src/protocol/messages/10-find-coordinator.js'
import { JoinGroupRequest, JoinGroupResponse } from '../../../src/protocol/messages/11-join-group.js'
import { CreateTopicsRequest, CreateTopicsResponse } from '../../../src/protocol/messages/19-create-topics.js'
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../../../src/protocol/messages/20-delete-topics.js'
import { InitProducerIdRequest, InitProducerIdResponse } from '../../../src/protocol/messages/22-init-producer-id.js'
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../../../src/protocol/messages/32-describe-configs.js'
import { DescribeClusterRequest, DescribeClusterResponse } from '../../../src/protocol/messages/60-describe-cluster.js'
import { fixture, hex, ID_1_16, ID_1_16_HEX, ZERO_UUID as ZERO_ID } from '../../helpers/message-fixtures.js'

// ---------------------------------------------------------------------------------------------
// Hand-written fixtures. Each hex string is one field (or one length/count prefix).

// The uuid 01 02 03 … 10 in Kafka's base64url form.

describe('CreateTopics fixtures', () => {
  test('request v2 (non-flexible): manual assignment, null config value', () => {
    const value = {
      topics: [
        {
          name: 't1',
          numPartitions: -1,
          replicationFactor: -1,
          assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }],
          configs: [{ name: 'a.b', value: null }],
        },
      ],
      timeoutMs: 30000,
      validateOnly: false,
    }
    const bytes = hex(
      '00000001', // topics: int32 count 1
      '0002 7431', //   name: int16 length 2, "t1"
      'ffffffff', //   numPartitions: -1
      'ffff', //   replicationFactor: -1
      '00000001', //   assignments: count 1
      '00000000', //     partitionIndex: 0
      '00000002', //     brokerIds: count 2
      '00000001 00000002', //       1, 2
      '00000001', //   configs: count 1
      '0003 612e62', //     name: "a.b"
      'ffff', //     value: null (int16 -1)
      '00007530', // timeoutMs: 30000
      '00', // validateOnly: false
    )
    fixture(CreateTopicsRequest, 2, value, bytes)
  })

  test('request v5 (flexible): compact lengths and tag sections', () => {
    const value = {
      topics: [{ name: 't1', numPartitions: 3, replicationFactor: 2, assignments: [], configs: [{ name: 'x', value: '1' }] }],
      timeoutMs: 60000,
      validateOnly: true,
    }
    const bytes = hex(
      '02', // topics: uvarint count+1 = 2
      '03 7431', //   name: uvarint length+1 = 3, "t1"
      '00000003', //   numPartitions: 3
      '0002', //   replicationFactor: 2
      '01', //   assignments: empty (0+1)
      '02', //   configs: count 1
      '02 78', //     name: "x"
      '02 31', //     value: "1"
      '00', //     config tagged fields: none
      '00', //   topic tagged fields: none
      '0000ea60', // timeoutMs: 60000
      '01', // validateOnly: true
      '00', // top-level tagged fields: none
    )
    fixture(CreateTopicsRequest, 5, value, bytes)
  })

  test('request v2: omitted timeoutMs takes the default 60000', () => {
    const bytes = CreateTopicsRequest.encode(2, { topics: [] })
    assert.equal(bytes.toString('hex'), '00000000' + '0000ea60' + '00')
  })

  test('response v2 (non-flexible): absent v5+/v7 fields decode to their defaults', () => {
    const value = {
      throttleTimeMs: 100,
      topics: [
        {
          name: 't1',
          topicId: ZERO_ID,
          errorCode: 36,
          errorMessage: 'exists',
          topicConfigErrorCode: 0,
          numPartitions: -1,
          replicationFactor: -1,
          configs: [],
        },
      ],
    }
    const bytes = hex(
      '00000064', // throttleTimeMs: 100
      '00000001', // topics: count 1
      '0002 7431', //   name: "t1"
      '0024', //   errorCode: 36 TOPIC_ALREADY_EXISTS
      '0006 657869737473', //   errorMessage: "exists"
    )
    fixture(CreateTopicsResponse, 2, value, bytes)
  })

  test('response v7 (flexible): topic id, null configs, tagged topicConfigErrorCode', () => {
    const value = {
      throttleTimeMs: 0,
      topics: [
        {
          name: 't1',
          topicId: ID_1_16,
          errorCode: 0,
          errorMessage: null,
          topicConfigErrorCode: 29,
          numPartitions: 3,
          replicationFactor: 1,
          configs: null,
        },
      ],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs: 0
      '02', // topics: count 1
      '03 7431', //   name: "t1"
      ID_1_16_HEX, //   topicId: 16 raw bytes
      '0000', //   errorCode: 0
      '00', //   errorMessage: null (compact length 0)
      '00000003', //   numPartitions: 3
      '0001', //   replicationFactor: 1
      '00', //   configs: null (compact count 0)
      '01', //   topic tagged fields: 1 field
      '00 02 001d', //     tag 0, size 2, topicConfigErrorCode 29 TOPIC_AUTHORIZATION_FAILED
      '00', // top-level tagged fields: none
    )
    fixture(CreateTopicsResponse, 7, value, bytes)
  })

  test('response v5 (flexible): configs listed, tag omitted when default', () => {
    const value = {
      throttleTimeMs: 0,
      topics: [
        {
          name: 'a',
          topicId: ZERO_ID,
          errorCode: 0,
          errorMessage: null,
          topicConfigErrorCode: 0,
          numPartitions: 1,
          replicationFactor: 1,
          configs: [{ name: 'k', value: null, readOnly: false, configSource: 5, isSensitive: true }],
        },
      ],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '02', // topics: count 1
      '02 61', //   name: "a"
      '0000', //   errorCode
      '00', //   errorMessage: null
      '00000001', //   numPartitions: 1
      '0001', //   replicationFactor: 1
      '02', //   configs: count 1
      '02 6b', //     name: "k"
      '00', //     value: null
      '00', //     readOnly: false
      '05', //     configSource: 5 DEFAULT_CONFIG
      '01', //     isSensitive: true
      '00', //     config tagged fields
      '00', //   topic tagged fields: none (topicConfigErrorCode is 0, the default)
      '00', // top-level tagged fields
    )
    fixture(CreateTopicsResponse, 5, value, bytes)
  })
})

describe('DeleteTopics fixtures', () => {
  test('request v1 (non-flexible): topic names', () => {
    const value = { topics: [], topicNames: ['a', 'bc'], timeoutMs: 5000 }
    const bytes = hex(
      '00000002', // topicNames: count 2
      '0001 61', //   "a"
      '0002 6263', //   "bc"
      '00001388', // timeoutMs: 5000
    )
    fixture(DeleteTopicsRequest, 1, value, bytes)
  })

  test('request v6 (flexible): by name and by id', () => {
    const value = {
      topics: [
        { name: 'a', topicId: ZERO_ID },
        { name: null, topicId: ID_1_16 },
      ],
      topicNames: [],
      timeoutMs: 5000,
    }
    const bytes = hex(
      '03', // topics: count 2
      '02 61', //   name: "a"
      '00000000000000000000000000000000', //   topicId: zero
      '00', //   tagged fields
      '00', //   name: null
      ID_1_16_HEX, //   topicId
      '00', //   tagged fields
      '00001388', // timeoutMs: 5000
      '00', // tagged fields
    )
    fixture(DeleteTopicsRequest, 6, value, bytes)
  })

  test('response v1 (non-flexible)', () => {
    const value = { throttleTimeMs: 0, responses: [{ name: 'a', topicId: ZERO_ID, errorCode: 3, errorMessage: null }] }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '00000001', // responses: count 1
      '0001 61', //   name: "a"
      '0003', //   errorCode: 3 UNKNOWN_TOPIC_OR_PARTITION
    )
    fixture(DeleteTopicsResponse, 1, value, bytes)
  })

  test('response v5 (flexible): error message', () => {
    const value = { throttleTimeMs: 10, responses: [{ name: 'a', topicId: ZERO_ID, errorCode: 41, errorMessage: 'no' }] }
    const bytes = hex(
      '0000000a', // throttleTimeMs: 10
      '02', // responses: count 1
      '02 61', //   name: "a"
      '0029', //   errorCode: 41 NOT_CONTROLLER
      '03 6e6f', //   errorMessage: "no"
      '00', //   tagged fields
      '00', // tagged fields
    )
    fixture(DeleteTopicsResponse, 5, value, bytes)
  })

  test('response v6 (flexible): null name with topic id', () => {
    const value = { throttleTimeMs: 0, responses: [{ name: null, topicId: ID_1_16, errorCode: 100, errorMessage: null }] }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '02', // responses: count 1
      '00', //   name: null
      ID_1_16_HEX, //   topicId
      '0064', //   errorCode: 100 UNKNOWN_TOPIC_ID
      '00', //   errorMessage: null
      '00', //   tagged fields
      '00', // tagged fields
    )
    fixture(DeleteTopicsResponse, 6, value, bytes)
  })
})

describe('InitProducerId fixtures', () => {
  test('request v0 (non-flexible): idempotent producer; v3 fields take -1', () => {
    const value = { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 }
    const bytes = hex(
      'ffff', // transactionalId: null
      '0000ea60', // transactionTimeoutMs: 60000
    )
    fixture(InitProducerIdRequest, 0, value, bytes)
  })

  test('request v3 (flexible): resume with id and epoch', () => {
    const value = { transactionalId: 'tx', transactionTimeoutMs: 60000, producerId: 4294967301, producerEpoch: 7 }
    const bytes = hex(
      '03 7478', // transactionalId: "tx"
      '0000ea60', // transactionTimeoutMs: 60000
      '00000001 00000005', // producerId: 2^32 + 5
      '0007', // producerEpoch: 7
      '00', // tagged fields
    )
    fixture(InitProducerIdRequest, 3, value, bytes)
  })

  test('request v2: omitted producerId/epoch are not sent', () => {
    assert.equal(InitProducerIdRequest.encode(2, { transactionalId: null }).toString('hex'), '00' + '00000000' + '00')
  })

  test('response v1 (non-flexible)', () => {
    const value = { throttleTimeMs: 0, errorCode: 0, producerId: 1000, producerEpoch: 0 }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '0000', // errorCode
      '00000000000003e8', // producerId: 1000
      '0000', // producerEpoch: 0
    )
    fixture(InitProducerIdResponse, 1, value, bytes)
  })

  test('response v4 (flexible): PRODUCER_FENCED, default producer id', () => {
    const value = { throttleTimeMs: 0, errorCode: 90, producerId: -1, producerEpoch: -1 }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '005a', // errorCode: 90 PRODUCER_FENCED
      'ffffffffffffffff', // producerId: -1
      'ffff', // producerEpoch: -1
      '00', // tagged fields
    )
    fixture(InitProducerIdResponse, 4, value, bytes)
    // producerId defaults to -1 when left out.
    assert.deepEqual(InitProducerIdResponse.encode(4, { errorCode: 90, producerEpoch: -1 }), bytes)
  })
})

describe('DescribeConfigs fixtures', () => {
  test('request v1 (non-flexible): all keys of a topic, with synonyms', () => {
    const value = {
      resources: [{ resourceType: 2, resourceName: 't', configurationKeys: null }],
      includeSynonyms: true,
      includeDocumentation: false,
    }
    const bytes = hex(
      '00000001', // resources: count 1
      '02', //   resourceType: 2 TOPIC
      '0001 74', //   resourceName: "t"
      'ffffffff', //   configurationKeys: null (int32 -1)
      '01', // includeSynonyms: true
    )
    fixture(DescribeConfigsRequest, 1, value, bytes)
  })

  test('request v4 (flexible): named keys of a broker, with documentation', () => {
    const value = {
      resources: [{ resourceType: 4, resourceName: '1', configurationKeys: ['a'] }],
      includeSynonyms: false,
      includeDocumentation: true,
    }
    const bytes = hex(
      '02', // resources: count 1
      '04', //   resourceType: 4 BROKER
      '02 31', //   resourceName: "1"
      '02', //   configurationKeys: count 1
      '02 61', //     "a"
      '00', //   tagged fields
      '00', // includeSynonyms: false
      '01', // includeDocumentation: true
      '00', // tagged fields
    )
    fixture(DescribeConfigsRequest, 4, value, bytes)
  })

  test('response v1 (non-flexible): config source and synonyms', () => {
    const value = {
      throttleTimeMs: 0,
      results: [
        {
          errorCode: 0,
          errorMessage: null,
          resourceType: 2,
          resourceName: 't',
          configs: [
            {
              name: 'k',
              value: 'v',
              readOnly: false,
              isDefault: false,
              configSource: 1,
              isSensitive: false,
              synonyms: [{ name: 'k', value: 'v', source: 1 }],
              configType: 0,
              documentation: '',
            },
          ],
        },
      ],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '00000001', // results: count 1
      '0000', //   errorCode
      'ffff', //   errorMessage: null
      '02', //   resourceType: 2 TOPIC
      '0001 74', //   resourceName: "t"
      '00000001', //   configs: count 1
      '0001 6b', //     name: "k"
      '0001 76', //     value: "v"
      '00', //     readOnly: false
      '01', //     configSource: 1 DYNAMIC_TOPIC_CONFIG
      '00', //     isSensitive: false
      '00000001', //     synonyms: count 1
      '0001 6b', //       name: "k"
      '0001 76', //       value: "v"
      '01', //       source: 1
    )
    fixture(DescribeConfigsResponse, 1, value, bytes)
  })

  test('response v4 (flexible): null value, config type, null documentation', () => {
    const value = {
      throttleTimeMs: 0,
      results: [
        {
          errorCode: 0,
          errorMessage: null,
          resourceType: 2,
          resourceName: 't',
          configs: [
            {
              name: 'k',
              value: null,
              readOnly: true,
              isDefault: false,
              configSource: 5,
              isSensitive: true,
              synonyms: [],
              configType: 3,
              documentation: null,
            },
          ],
        },
      ],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '02', // results: count 1
      '0000', //   errorCode
      '00', //   errorMessage: null
      '02', //   resourceType: 2 TOPIC
      '02 74', //   resourceName: "t"
      '02', //   configs: count 1
      '02 6b', //     name: "k"
      '00', //     value: null
      '01', //     readOnly: true
      '05', //     configSource: 5 DEFAULT_CONFIG
      '01', //     isSensitive: true
      '01', //     synonyms: empty
      '03', //     configType: 3 INT
      '00', //     documentation: null
      '00', //     config tagged fields
      '00', //   result tagged fields
      '00', // tagged fields
    )
    fixture(DescribeConfigsResponse, 4, value, bytes)
  })
})

describe('DescribeCluster fixtures', () => {
  test('request v0 (flexible)', () => {
    fixture(
      DescribeClusterRequest,
      0,
      { includeClusterAuthorizedOperations: true, endpointType: 1, includeFencedBrokers: false },
      hex(
        '01', // includeClusterAuthorizedOperations: true
        '00', // tagged fields
      ),
    )
  })

  test('response v1 (flexible)', () => {
    const value = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      endpointType: 1,
      clusterId: 'c',
      controllerId: 1,
      brokers: [{ brokerId: 1, host: 'h', port: 9092, rack: null, isFenced: false }],
      clusterAuthorizedOperations: -2147483648,
    }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '0000', // errorCode
      '00', // errorMessage: null
      '01', // endpointType: 1 brokers
      '02 63', // clusterId: "c"
      '00000001', // controllerId: 1
      '02', // brokers: count 1
      '00000001', //   brokerId: 1
      '02 68', //   host: "h"
      '00002384', //   port: 9092
      '00', //   rack: null
      '00', //   tagged fields
      '80000000', // clusterAuthorizedOperations: INT32_MIN (not requested)
      '00', // tagged fields
    )
    fixture(DescribeClusterResponse, 1, value, bytes)
    // Defaults fill the omitted fields.
    assert.deepEqual(
      DescribeClusterResponse.encode(1, { clusterId: 'c', controllerId: 1, brokers: [{ brokerId: 1, host: 'h', port: 9092 }] }),
      bytes,
    )
  })
})

describe('FindCoordinator fixtures', () => {
  test('request v0 (non-flexible): key only', () => {
    const value = { key: 'g', keyType: 0, coordinatorKeys: [] }
    fixture(FindCoordinatorRequest, 0, value, hex('0001 67')) // key: "g"
  })

  test('request v4 (flexible): batched keys', () => {
    const value = { key: '', keyType: 1, coordinatorKeys: ['a', 'b'] }
    const bytes = hex(
      '01', // keyType: 1 transaction
      '03', // coordinatorKeys: count 2
      '02 61', //   "a"
      '02 62', //   "b"
      '00', // tagged fields
    )
    fixture(FindCoordinatorRequest, 4, value, bytes)
  })

  test('response v1 (non-flexible): single coordinator', () => {
    const value = { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: 1, host: 'h', port: 9092, coordinators: [] }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '0000', // errorCode
      'ffff', // errorMessage: null
      '00000001', // nodeId: 1
      '0001 68', // host: "h"
      '00002384', // port: 9092
    )
    fixture(FindCoordinatorResponse, 1, value, bytes)
  })

  test('response v4 (flexible): one answer per key', () => {
    const value = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: '',
      nodeId: 0,
      host: '',
      port: 0,
      coordinators: [{ key: 'a', nodeId: -1, host: '', port: -1, errorCode: 15, errorMessage: null }],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '02', // coordinators: count 1
      '02 61', //   key: "a"
      'ffffffff', //   nodeId: -1
      '01', //   host: ""
      'ffffffff', //   port: -1
      '000f', //   errorCode: 15 COORDINATOR_NOT_AVAILABLE
      '00', //   errorMessage: null
      '00', //   tagged fields
      '00', // tagged fields
    )
    fixture(FindCoordinatorResponse, 4, value, bytes)
  })
})

describe('JoinGroup fixtures', () => {
  test('request v5 (non-flexible): static member', () => {
    const value = {
      groupId: 'g',
      sessionTimeoutMs: 10000,
      rebalanceTimeoutMs: 30000,
      memberId: '',
      groupInstanceId: 'i',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from([0, 1]) }],
      reason: null,
    }
    const bytes = hex(
      '0001 67', // groupId: "g"
      '00002710', // sessionTimeoutMs: 10000
      '00007530', // rebalanceTimeoutMs: 30000
      '0000', // memberId: ""
      '0001 69', // groupInstanceId: "i"
      '0008 636f6e73756d6572', // protocolType: "consumer"
      '00000001', // protocols: count 1
      '0005 72616e6765', //   name: "range"
      '00000002 0001', //   metadata: int32 length 2, 00 01
    )
    fixture(JoinGroupRequest, 5, value, bytes)
  })

  test('response v9 (flexible)', () => {
    const value = {
      throttleTimeMs: 0,
      errorCode: 0,
      generationId: 1,
      protocolType: 'consumer',
      protocolName: 'range',
      leader: 'm',
      skipAssignment: false,
      memberId: 'm',
      members: [{ memberId: 'm', groupInstanceId: null, metadata: Buffer.from([7]) }],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '0000', // errorCode
      '00000001', // generationId: 1
      '09 636f6e73756d6572', // protocolType: "consumer"
      '06 72616e6765', // protocolName: "range"
      '02 6d', // leader: "m"
      '00', // skipAssignment: false
      '02 6d', // memberId: "m"
      '02', // members: count 1
      '02 6d', //   memberId: "m"
      '00', //   groupInstanceId: null
      '02 07', //   metadata: compact length 1, 07
      '00', //   tagged fields
      '00', // tagged fields
    )
    fixture(JoinGroupResponse, 9, value, bytes)
  })
})

describe('OffsetCommit / OffsetFetch fixtures', () => {
  test('OffsetCommit request v2 (non-flexible): retention time', () => {
    const value = {
      groupId: 'g',
      generationIdOrMemberEpoch: 3,
      memberId: 'm',
      groupInstanceId: null,
      retentionTimeMs: -1,
      topics: [
        {
          name: 't',
          topicId: ZERO_ID,
          partitions: [{ partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: -1, committedMetadata: '' }],
        },
      ],
    }
    const bytes = hex(
      '0001 67', // groupId: "g"
      '00000003', // generationIdOrMemberEpoch: 3
      '0001 6d', // memberId: "m"
      'ffffffffffffffff', // retentionTimeMs: -1
      '00000001', // topics: count 1
      '0001 74', //   name: "t"
      '00000001', //   partitions: count 1
      '00000000', //     partitionIndex: 0
      '000000000000002a', //     committedOffset: 42
      '0000', //     committedMetadata: ""
    )
    fixture(OffsetCommitRequest, 2, value, bytes)
  })

  test('OffsetFetch request v8 (flexible): groups, all topics', () => {
    const value = {
      groupId: '',
      topics: [],
      groups: [{ groupId: 'g', memberId: null, memberEpoch: -1, topics: null }],
      requireStable: true,
    }
    const bytes = hex(
      '02', // groups: count 1
      '02 67', //   groupId: "g"
      '00', //   topics: null (all)
      '00', //   tagged fields
      '01', // requireStable: true
      '00', // tagged fields
    )
    fixture(OffsetFetchRequest, 8, value, bytes)
  })

  test('OffsetFetch response v5 (non-flexible)', () => {
    const value = {
      throttleTimeMs: 0,
      topics: [
        { name: 't', partitions: [{ partitionIndex: 1, committedOffset: -1, committedLeaderEpoch: -1, metadata: null, errorCode: 0 }] },
      ],
      errorCode: 0,
      groups: [],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '00000001', // topics: count 1
      '0001 74', //   name: "t"
      '00000001', //   partitions: count 1
      '00000001', //     partitionIndex: 1
      'ffffffffffffffff', //     committedOffset: -1 (none)
      'ffffffff', //     committedLeaderEpoch: -1
      'ffff', //     metadata: null
      '0000', //     errorCode
      '0000', // errorCode
    )
    fixture(OffsetFetchResponse, 5, value, bytes)
  })
})
