// ConsumerGroupHeartbeat (68) and ConsumerGroupDescribe (69), v0–1. Byte fixtures written out by
// hand, field by field, from Kafka's published message layouts; each is decoded and re-encoded, and
// the field v1 adds (the request's subscribedTopicRegex, the member's memberType) is checked to be
// absent at v0.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
} from '../../../src/protocol/messages/68-consumer-group-heartbeat.js'
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../../../src/protocol/messages/69-consumer-group-describe.js'
import { apiByKey } from '../../../src/protocol/messages/index.js'
import { fixture, hex, ID_1_16, ID_1_16_HEX } from '../../helpers/message-fixtures.js'

describe('ConsumerGroupHeartbeat', () => {
  test('declares v0–1 under key 68', () => {
    assert.equal(ConsumerGroupHeartbeatRequest.versions.max, 1)
    assert.equal(ConsumerGroupHeartbeatResponse.versions.min, 0)
    assert.equal(apiByKey.get(68)?.request, ConsumerGroupHeartbeatRequest)
  })

  const joinHead = [
    '02 67', // groupId: "g"
    '02 6d', // memberId: "m"
    '00000000', // memberEpoch: 0
    '00', // instanceId: null
    '00', // rackId: null
    '0000afc8', // rebalanceTimeoutMs: 45000
    '02 02 74', // subscribedTopicNames: ["t"]
  ]
  const joinTail = [
    '00', // serverAssignor: null
    '01', // topicPartitions: empty
    '00', // tagged fields
  ]
  const join = {
    groupId: 'g',
    memberId: 'm',
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: 45000,
    subscribedTopicNames: ['t'],
    serverAssignor: null,
    topicPartitions: [],
  }

  test('request v1 carries subscribedTopicRegex between names and assignor', () => {
    const value = { ...join, subscribedTopicRegex: 'o.*' }
    fixture(ConsumerGroupHeartbeatRequest, 1, value, hex(...joinHead, '04 6f 2e 2a', ...joinTail))
  })

  test('request v0 has no regex field', () => {
    fixture(ConsumerGroupHeartbeatRequest, 0, { ...join, subscribedTopicRegex: null }, hex(...joinHead, ...joinTail))
  })

  test('response with an assignment of one topic id', () => {
    const value = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId: 'm',
      memberEpoch: 3,
      heartbeatIntervalMs: 5000,
      assignment: { topicPartitions: [{ topicId: ID_1_16, partitions: [0, 2] }] },
    }
    const bytes = hex(
      '00000000', // throttleTimeMs
      '0000', // errorCode
      '00', // errorMessage: null
      '02 6d', // memberId: "m"
      '00000003', // memberEpoch: 3
      '00001388', // heartbeatIntervalMs: 5000
      '01', // assignment: present
      '02', //   topicPartitions: count 1
      ID_1_16_HEX, //     topicId
      '03 00000000 00000002', //     partitions [0, 2]
      '00', //     tagged fields
      '00', //   tagged fields (assignment)
      '00', // tagged fields
    )
    fixture(ConsumerGroupHeartbeatResponse, 1, value, bytes)
    fixture(ConsumerGroupHeartbeatResponse, 0, value, bytes)
  })

  test('response without an assignment (nothing changed) encodes it as absent', () => {
    const value = {
      throttleTimeMs: 0,
      errorCode: 113,
      errorMessage: null,
      memberId: null,
      memberEpoch: -1,
      heartbeatIntervalMs: 0,
      assignment: null,
    }
    fixture(ConsumerGroupHeartbeatResponse, 1, value, hex('00000000', '0071', '00', '00', 'ffffffff', '00000000', 'ff', '00'))
  })
})

describe('ConsumerGroupDescribe', () => {
  test('declares v0–1 under key 69', () => {
    assert.equal(ConsumerGroupDescribeRequest.versions.max, 1)
    assert.equal(apiByKey.get(69)?.response, ConsumerGroupDescribeResponse)
  })

  test('request', () => {
    fixture(ConsumerGroupDescribeRequest, 1, { groupIds: ['g'], includeAuthorizedOperations: false }, hex('02 02 67', '00', '00'))
  })

  const member = {
    memberId: 'm',
    instanceId: null,
    rackId: null,
    memberEpoch: 2,
    clientId: 'c',
    clientHost: '/h',
    subscribedTopicNames: ['t'],
    subscribedTopicRegex: null,
    assignment: { topicPartitions: [{ topicId: ID_1_16, topicName: 't', partitions: [1] }] },
    targetAssignment: { topicPartitions: [] },
  }
  const memberHead = [
    '02 6d', // memberId
    '00', // instanceId: null
    '00', // rackId: null
    '00000002', // memberEpoch
    '02 63', // clientId: "c"
    '03 2f 68', // clientHost: "/h"
    '02 02 74', // subscribedTopicNames: ["t"]
    '00', // subscribedTopicRegex: null
    '02',
    ID_1_16_HEX,
    '02 74',
    '02 00000001',
    '00',
    '00', // assignment: t-1
    '01',
    '00', // targetAssignment: empty
  ]
  const groupHead = [
    '00000000', // throttleTimeMs
    '02', // groups: count 1
    '0000', // errorCode
    '00', // errorMessage: null
    '02 67', // groupId: "g"
    '0c',
    ...'Reconciling'.split('').map((c) => c.charCodeAt(0).toString(16)), // groupState
    '00000003', // groupEpoch
    '00000003', // assignmentEpoch
    '08 756e69666f726d', // assignorName: "uniform"
    '02', // members: count 1
  ]
  const groupTail = ['80000000', '00', '00'] // authorizedOperations, tagged fields (group, response)

  test('response v1 ends each member with memberType', () => {
    const value = {
      throttleTimeMs: 0,
      groups: [
        {
          errorCode: 0,
          errorMessage: null,
          groupId: 'g',
          groupState: 'Reconciling',
          groupEpoch: 3,
          assignmentEpoch: 3,
          assignorName: 'uniform',
          members: [{ ...member, memberType: 1 }],
          authorizedOperations: -2147483648,
        },
      ],
    }
    fixture(ConsumerGroupDescribeResponse, 1, value, hex(...groupHead, ...memberHead, '01', '00', ...groupTail))
    const v0 = { ...value, groups: [{ ...value.groups[0]!, members: [{ ...member, memberType: -1 }] }] }
    fixture(ConsumerGroupDescribeResponse, 0, v0, hex(...groupHead, ...memberHead, '00', ...groupTail))
  })
})
