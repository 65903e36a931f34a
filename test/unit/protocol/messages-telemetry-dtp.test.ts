// Hand-built bytes for GetTelemetrySubscriptions (71), PushTelemetry (72) and
// DescribeTopicPartitions (75), all v0 and flexible: each hex fragment is one field.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  GetTelemetrySubscriptionsRequest,
  GetTelemetrySubscriptionsResponse,
} from '../../../src/protocol/messages/71-get-telemetry-subscriptions.js'
import { PushTelemetryRequest, PushTelemetryResponse } from '../../../src/protocol/messages/72-push-telemetry.js'
import {
  DescribeTopicPartitionsRequest,
  DescribeTopicPartitionsResponse,
} from '../../../src/protocol/messages/75-describe-topic-partitions.js'
import type { Message } from '../../../src/protocol/schema.js'
import { ZERO_UUID as ZERO_ID } from '../../helpers/message-fixtures.js'

const hex = (...parts: string[]) => Buffer.from(parts.join('').replace(/\s+/g, ''), 'hex')

function fixture(msg: Message<any>, value: unknown, bytes: Buffer): void {
  assert.deepEqual(msg.decode(0, bytes), value)
  assert.equal(msg.encode(0, value as any).toString('hex'), bytes.toString('hex'))
}

// The uuid 01 02 … 10 in Kafka's base64url form.
const ID = 'AQIDBAUGBwgJCgsMDQ4PEA'
const ID_HEX = '0102030405060708090a0b0c0d0e0f10'

describe('GetTelemetrySubscriptions v0', () => {
  test('request: the zero instance id of a first request', () => {
    fixture(GetTelemetrySubscriptionsRequest, { clientInstanceId: ZERO_ID }, hex('00'.repeat(16), '00'))
  })
  test('response: assigned id, subscription, codecs, interval, limit, temporality, no metrics', () => {
    const value = {
      throttleTimeMs: 0,
      errorCode: 0,
      clientInstanceId: ID,
      subscriptionId: -2,
      acceptedCompressionTypes: [4, 3, 1, 2],
      pushIntervalMs: 300000,
      telemetryMaxBytes: 1048576,
      deltaTemporality: true,
      requestedMetrics: [],
    }
    const bytes = hex(
      '00000000', // throttle_time_ms
      '0000', // error_code
      ID_HEX, // client_instance_id
      'fffffffe', // subscription_id -2
      '05 04 03 01 02', // accepted_compression_types: compact array of 4 int8
      '000493e0', // push_interval_ms 300000
      '00100000', // telemetry_max_bytes 1 MiB
      '01', // delta_temporality
      '01', // requested_metrics: empty compact array
      '00', // no tagged fields
    )
    fixture(GetTelemetrySubscriptionsResponse, value, bytes)
    // With metrics: compact strings.
    const some = { ...value, requestedMetrics: ['org.apache.kafka.producer', ''] }
    const tail = hex('03', '1a', Buffer.from('org.apache.kafka.producer').toString('hex'), '01', '00')
    assert.deepEqual(GetTelemetrySubscriptionsResponse.encode(0, some).subarray(-tail.length), tail)
    assert.deepEqual(GetTelemetrySubscriptionsResponse.decode(0, GetTelemetrySubscriptionsResponse.encode(0, some)), some)
  })
})

describe('PushTelemetry v0', () => {
  test('request: id, subscription, terminating, codec, compact bytes', () => {
    const value = { clientInstanceId: ID, subscriptionId: 7, terminating: true, compressionType: 4, metrics: Buffer.from([1, 2, 3]) }
    fixture(PushTelemetryRequest, value, hex(ID_HEX, '00000007', '01', '04', '04 010203', '00'))
  })
  test('response: throttle and error', () => {
    fixture(PushTelemetryResponse, { throttleTimeMs: 0, errorCode: 118 }, hex('00000000', '0076', '00'))
  })
})

describe('DescribeTopicPartitions v0', () => {
  test('request with a cursor', () => {
    const value = { topics: [{ name: 't' }], responsePartitionLimit: 2000, cursor: { topicName: 't', partitionIndex: 3 } }
    const bytes = hex(
      '02', // topics: compact array of 1
      '02 74 00', //   name "t", no tags
      '000007d0', // response_partition_limit 2000
      '01', // cursor present
      '02 74',
      '00000003',
      '00', //   topic "t", partition 3, no tags
      '00', // no tagged fields
    )
    fixture(DescribeTopicPartitionsRequest, value, bytes)
  })
  test('request without a cursor (null struct) takes the defaults', () => {
    const bytes = hex('01', '000007d0', 'ff', '00')
    fixture(DescribeTopicPartitionsRequest, { topics: [], responsePartitionLimit: 2000, cursor: null }, bytes)
    assert.deepEqual(DescribeTopicPartitionsRequest.encode(0, {}), bytes)
  })
  test('response: a topic, one partition with empty and null ELR lists, and a next cursor', () => {
    const value = {
      throttleTimeMs: 0,
      topics: [
        {
          errorCode: 0,
          name: 't',
          topicId: ID,
          isInternal: false,
          partitions: [
            {
              errorCode: 0,
              partitionIndex: 0,
              leaderId: 1,
              leaderEpoch: 5,
              replicaNodes: [1],
              isrNodes: [1],
              eligibleLeaderReplicas: [],
              lastKnownElr: null,
              offlineReplicas: [],
            },
          ],
          topicAuthorizedOperations: 3576,
        },
      ],
      nextCursor: { topicName: 't', partitionIndex: 1 },
    }
    const bytes = hex(
      '00000000', // throttle_time_ms
      '02', // topics: 1
      '0000', //   error_code
      '02 74', //   name "t" (compact nullable)
      ID_HEX, //   topic_id
      '00', //   is_internal
      '02', //   partitions: 1
      '0000 00000000 00000001 00000005', //     error, index 0, leader 1, epoch 5
      '02 00000001', //     replica_nodes [1]
      '02 00000001', //     isr_nodes [1]
      '01', //     eligible_leader_replicas []
      '00', //     last_known_elr null
      '01', //     offline_replicas []
      '00', //     no tags
      '00000df8', //   topic_authorized_operations 3576
      '00', //   no tags
      '01 02 74 00000001 00', // next_cursor: present, "t", partition 1, no tags
      '00', // no tagged fields
    )
    fixture(DescribeTopicPartitionsResponse, value, bytes)
  })
})
