// Declarations for replication and reassignment (OffsetForLeaderEpoch, ElectLeaders,
// AlterPartitionReassignments, ListPartitionReassignments): every version round-trips, and byte
// fixtures written out by hand, field by field, from Kafka's published message layouts pin the field
// order, the version each field appears in, and the flexible encoding.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
} from '../../../src/protocol/messages/45-alter-partition-reassignments.js'
import { ElectLeadersRequest, ElectLeadersResponse } from '../../../src/protocol/messages/43-elect-leaders.js'
import { apiByKey } from '../../../src/protocol/messages/index.js'
import {
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
} from '../../../src/protocol/messages/46-list-partition-reassignments.js'
import { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from '../../../src/protocol/messages/23-offset-for-leader-epoch.js'
import type { Message } from '../../../src/protocol/schema.js'
import { sampleMessage } from '../../helpers/sample-values.js'
import { fixture, hex } from '../../helpers/message-fixtures.js'

// ---------------------------------------------------------------------------------------------
// Declared ranges and registration.

const declared: [Message<any>, Message<any>, number, string, string][] = [
  [OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, 23, '0-4', '4+'],
  [ElectLeadersRequest, ElectLeadersResponse, 43, '0-2', '2+'],
  [AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, 45, '0-1', '0+'],
  [ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, 46, '0-0', '0+'],
]

for (const [request, response, apiKey, versions, flexible] of declared) {
  describe(`${request.name} (key ${apiKey})`, () => {
    test(`declares versions ${versions}, flexible ${flexible}, and is registered`, () => {
      const [min, max] = versions.split('-').map(Number)
      const flexMin = Number(flexible.replace('+', ''))
      for (const msg of [request, response]) {
        assert.equal(msg.apiKey, apiKey)
        assert.equal(msg.versions.min, min)
        assert.equal(msg.versions.max, max)
        for (let v = min!; v <= max!; v++) assert.equal(msg.isFlexible(v), v >= flexMin, `v${v}`)
      }
      const registered = apiByKey.get(apiKey)
      assert.equal(registered?.request, request)
      assert.equal(registered?.response, response)
    })
    for (const msg of [request, response]) {
      const kind = msg === request ? 'request' : 'response'
      for (let v = msg.versions.min; v <= msg.versions.max; v++) {
        test(`${kind} v${v}: encode then decode gives the value back`, () => {
          for (const seed of [1, 2, 3]) {
            const value = sampleMessage(msg, v, seed + v * 11)
            const bytes = msg.encode(v, value)
            assert.deepEqual(msg.decode(v, bytes), value)
            assert.deepEqual(msg.encode(v, msg.decode(v, bytes)), bytes)
          }
        })
      }
    }
  })
}

// ---------------------------------------------------------------------------------------------
// OffsetForLeaderEpoch.

describe('OffsetForLeaderEpoch fixtures', () => {
  test('request v3 (non-flexible): replicaId, then topic, partition, currentLeaderEpoch, leaderEpoch', () => {
    const value = {
      replicaId: 1,
      topics: [
        {
          topic: 't1',
          partitions: [
            { partition: 0, currentLeaderEpoch: 5, leaderEpoch: 4 },
            { partition: 2, currentLeaderEpoch: -1, leaderEpoch: 3 },
          ],
        },
      ],
    }
    const bytes = hex(
      '00000001', // replicaId: 1
      '00000001', // topics: int32 count 1
      '0002 7431', //   topic: int16 length 2, "t1"
      '00000002', //   partitions: count 2
      '00000000', //     partition: 0
      '00000005', //     currentLeaderEpoch: 5
      '00000004', //     leaderEpoch: 4
      '00000002', //     partition: 2
      'ffffffff', //     currentLeaderEpoch: -1
      '00000003', //     leaderEpoch: 3
    )
    fixture(OffsetForLeaderEpochRequest, 3, value, bytes)
  })

  test('request v0: no replicaId, no currentLeaderEpoch; both decode to their defaults', () => {
    const value = {
      replicaId: -2,
      topics: [{ topic: 't1', partitions: [{ partition: 1, currentLeaderEpoch: -1, leaderEpoch: 7 }] }],
    }
    const bytes = hex(
      '00000001', // topics: count 1
      '0002 7431', //   topic: "t1"
      '00000001', //   partitions: count 1
      '00000001', //     partition: 1
      '00000007', //     leaderEpoch: 7
    )
    fixture(OffsetForLeaderEpochRequest, 0, value, bytes)
  })

  test('request v4 (flexible): compact lengths and tag sections', () => {
    const value = {
      replicaId: -1,
      topics: [{ topic: 't1', partitions: [{ partition: 0, currentLeaderEpoch: 2, leaderEpoch: 1 }] }],
    }
    const bytes = hex(
      'ffffffff', // replicaId: -1 (a consumer)
      '02', // topics: uvarint count+1
      '03 7431', //   topic: uvarint length+1, "t1"
      '02', //   partitions: count 1
      '00000000', //     partition: 0
      '00000002', //     currentLeaderEpoch: 2
      '00000001', //     leaderEpoch: 1
      '00', //     partition tagged fields: none
      '00', //   topic tagged fields: none
      '00', // top-level tagged fields: none
    )
    fixture(OffsetForLeaderEpochRequest, 4, value, bytes)
  })

  test('response v0: errorCode, partition, endOffset (no throttleTimeMs, no leaderEpoch)', () => {
    const value = {
      throttleTimeMs: 0,
      topics: [{ topic: 't1', partitions: [{ errorCode: 0, partition: 3, leaderEpoch: -1, endOffset: 100 }] }],
    }
    const bytes = hex(
      '00000001', // topics: count 1
      '0002 7431', //   topic: "t1"
      '00000001', //   partitions: count 1
      '0000', //     errorCode: 0
      '00000003', //     partition: 3
      '0000000000000064', //     endOffset: 100
    )
    fixture(OffsetForLeaderEpochResponse, 0, value, bytes)
  })

  test('response v2: throttleTimeMs first, leaderEpoch between partition and endOffset', () => {
    const value = {
      throttleTimeMs: 10,
      topics: [{ topic: 't1', partitions: [{ errorCode: 74, partition: 0, leaderEpoch: -1, endOffset: -1 }] }],
    }
    const bytes = hex(
      '0000000a', // throttleTimeMs: 10
      '00000001', // topics: count 1
      '0002 7431', //   topic: "t1"
      '00000001', //   partitions: count 1
      '004a', //     errorCode: 74 FENCED_LEADER_EPOCH
      '00000000', //     partition: 0
      'ffffffff', //     leaderEpoch: -1
      'ffffffffffffffff', //     endOffset: -1
    )
    fixture(OffsetForLeaderEpochResponse, 2, value, bytes)
  })

  test('response v4 (flexible)', () => {
    const value = {
      throttleTimeMs: 0,
      topics: [{ topic: 't1', partitions: [{ errorCode: 0, partition: 1, leaderEpoch: 6, endOffset: 42 }] }],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs: 0
      '02', // topics: count 1
      '03 7431', //   topic: "t1"
      '02', //   partitions: count 1
      '0000', //     errorCode: 0
      '00000001', //     partition: 1
      '00000006', //     leaderEpoch: 6
      '000000000000002a', //     endOffset: 42
      '00', //     partition tagged fields
      '00', //   topic tagged fields
      '00', // top-level tagged fields
    )
    fixture(OffsetForLeaderEpochResponse, 4, value, bytes)
  })
})

// ---------------------------------------------------------------------------------------------
// ElectLeaders.

describe('ElectLeaders fixtures', () => {
  test('request v0: topicPartitions then timeoutMs; electionType absent (preferred)', () => {
    const value = { electionType: 0, topicPartitions: [{ topic: 't1', partitions: [0, 2] }], timeoutMs: 30000 }
    const bytes = hex(
      '00000001', // topicPartitions: count 1
      '0002 7431', //   topic: "t1"
      '00000002', //   partitions: count 2
      '00000000 00000002', //     0, 2
      '00007530', // timeoutMs: 30000
    )
    fixture(ElectLeadersRequest, 0, value, bytes)
  })

  test('request v1: electionType first; null topicPartitions = every partition', () => {
    const value = { electionType: 1, topicPartitions: null, timeoutMs: 60000 }
    const bytes = hex(
      '01', // electionType: 1 UNCLEAN
      'ffffffff', // topicPartitions: null (int32 -1)
      '0000ea60', // timeoutMs: 60000
    )
    fixture(ElectLeadersRequest, 1, value, bytes)
  })

  test('request v2 (flexible)', () => {
    const value = { electionType: 0, topicPartitions: [{ topic: 't1', partitions: [5] }], timeoutMs: 1000 }
    const bytes = hex(
      '00', // electionType: 0 PREFERRED
      '02', // topicPartitions: count 1
      '03 7431', //   topic: "t1"
      '02 00000005', //   partitions: [5]
      '00', //   topic tagged fields
      '000003e8', // timeoutMs: 1000
      '00', // top-level tagged fields
    )
    fixture(ElectLeadersRequest, 2, value, bytes)
  })

  test('request v2: null topicPartitions is a compact 0', () => {
    assert.equal(ElectLeadersRequest.encode(2, { electionType: 0, topicPartitions: null }).toString('hex'), '00' + '00' + '0000ea60' + '00')
  })

  test('response v0: no top-level errorCode', () => {
    const value = {
      throttleTimeMs: 0,
      errorCode: 0,
      replicaElectionResults: [{ topic: 't1', partitionResult: [{ partitionId: 0, errorCode: 84, errorMessage: 'not needed' }] }],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs: 0
      '00000001', // replicaElectionResults: count 1
      '0002 7431', //   topic: "t1"
      '00000001', //   partitionResult: count 1
      '00000000', //     partitionId: 0
      '0054', //     errorCode: 84 ELECTION_NOT_NEEDED
      '000a 6e6f74206e6565646564', //     errorMessage: "not needed"
    )
    fixture(ElectLeadersResponse, 0, value, bytes)
  })

  test('response v2 (flexible): top-level errorCode after throttleTimeMs', () => {
    const value = {
      throttleTimeMs: 5,
      errorCode: 31,
      replicaElectionResults: [{ topic: 't1', partitionResult: [{ partitionId: 1, errorCode: 0, errorMessage: null }] }],
    }
    const bytes = hex(
      '00000005', // throttleTimeMs: 5
      '001f', // errorCode: 31 CLUSTER_AUTHORIZATION_FAILED
      '02', // replicaElectionResults: count 1
      '03 7431', //   topic: "t1"
      '02', //   partitionResult: count 1
      '00000001', //     partitionId: 1
      '0000', //     errorCode: 0
      '00', //     errorMessage: null (compact 0)
      '00', //     partition tagged fields
      '00', //   topic tagged fields
      '00', // top-level tagged fields
    )
    fixture(ElectLeadersResponse, 2, value, bytes)
  })
})

// ---------------------------------------------------------------------------------------------
// AlterPartitionReassignments.

describe('AlterPartitionReassignments fixtures', () => {
  test('request v0: timeoutMs, topics; null replicas cancels; allowReplicationFactorChange decodes true', () => {
    const value = {
      timeoutMs: 30000,
      allowReplicationFactorChange: true,
      topics: [
        {
          name: 't1',
          partitions: [
            { partitionIndex: 0, replicas: [1, 2] },
            { partitionIndex: 1, replicas: null },
          ],
        },
      ],
    }
    const bytes = hex(
      '00007530', // timeoutMs: 30000
      '02', // topics: count 1
      '03 7431', //   name: "t1"
      '03', //   partitions: count 2
      '00000000', //     partitionIndex: 0
      '03 00000001 00000002', //     replicas: [1, 2]
      '00', //     partition tagged fields
      '00000001', //     partitionIndex: 1
      '00', //     replicas: null
      '00', //     partition tagged fields
      '00', //   topic tagged fields
      '00', // top-level tagged fields
    )
    fixture(AlterPartitionReassignmentsRequest, 0, value, bytes)
  })

  test('request v1: allowReplicationFactorChange between timeoutMs and topics', () => {
    const value = {
      timeoutMs: 60000,
      allowReplicationFactorChange: false,
      topics: [{ name: 't1', partitions: [{ partitionIndex: 2, replicas: [3] }] }],
    }
    const bytes = hex(
      '0000ea60', // timeoutMs: 60000
      '00', // allowReplicationFactorChange: false
      '02', // topics: count 1
      '03 7431', //   name: "t1"
      '02', //   partitions: count 1
      '00000002', //     partitionIndex: 2
      '02 00000003', //     replicas: [3]
      '00', //     partition tagged fields
      '00', //   topic tagged fields
      '00', // top-level tagged fields
    )
    fixture(AlterPartitionReassignmentsRequest, 1, value, bytes)
  })

  test('request v1: omitted fields take Kafka defaults (60000, allowed, replicas null)', () => {
    const bytes = AlterPartitionReassignmentsRequest.encode(1, { topics: [{ name: 'x', partitions: [{ partitionIndex: 0 }] }] })
    assert.equal(bytes.toString('hex'), hex('0000ea60', '01', '02', '02 78', '02', '00000000', '00', '00', '00', '00').toString('hex'))
  })

  test('response v0', () => {
    const value = {
      throttleTimeMs: 0,
      allowReplicationFactorChange: true,
      errorCode: 0,
      errorMessage: null,
      responses: [{ name: 't1', partitions: [{ partitionIndex: 1, errorCode: 85, errorMessage: 'none' }] }],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs: 0
      '0000', // errorCode: 0
      '00', // errorMessage: null
      '02', // responses: count 1
      '03 7431', //   name: "t1"
      '02', //   partitions: count 1
      '00000001', //     partitionIndex: 1
      '0055', //     errorCode: 85 NO_REASSIGNMENT_IN_PROGRESS
      '05 6e6f6e65', //     errorMessage: "none"
      '00', //     partition tagged fields
      '00', //   topic tagged fields
      '00', // top-level tagged fields
    )
    fixture(AlterPartitionReassignmentsResponse, 0, value, bytes)
  })

  test('response v1: allowReplicationFactorChange echoed after throttleTimeMs', () => {
    const value = {
      throttleTimeMs: 7,
      allowReplicationFactorChange: false,
      errorCode: 0,
      errorMessage: null,
      responses: [{ name: 't1', partitions: [{ partitionIndex: 0, errorCode: 38, errorMessage: null }] }],
    }
    const bytes = hex(
      '00000007', // throttleTimeMs: 7
      '00', // allowReplicationFactorChange: false
      '0000', // errorCode: 0
      '00', // errorMessage: null
      '02', // responses: count 1
      '03 7431', //   name: "t1"
      '02', //   partitions: count 1
      '00000000', //     partitionIndex: 0
      '0026', //     errorCode: 38 INVALID_REPLICATION_FACTOR
      '00', //     errorMessage: null
      '00', //     partition tagged fields
      '00', //   topic tagged fields
      '00', // top-level tagged fields
    )
    fixture(AlterPartitionReassignmentsResponse, 1, value, bytes)
  })
})

// ---------------------------------------------------------------------------------------------
// ListPartitionReassignments.

describe('ListPartitionReassignments fixtures', () => {
  test('request v0: null topics lists everything', () => {
    fixture(ListPartitionReassignmentsRequest, 0, { timeoutMs: 60000, topics: null }, hex('0000ea60', '00', '00'))
    // Left out, topics takes Kafka's default: null.
    assert.equal(ListPartitionReassignmentsRequest.encode(0, {}).toString('hex'), '0000ea600000')
  })

  test('request v0: named topics and partitions', () => {
    const value = { timeoutMs: 1000, topics: [{ name: 't1', partitionIndexes: [0, 1] }] }
    const bytes = hex(
      '000003e8', // timeoutMs: 1000
      '02', // topics: count 1
      '03 7431', //   name: "t1"
      '03 00000000 00000001', //   partitionIndexes: [0, 1]
      '00', //   topic tagged fields
      '00', // top-level tagged fields
    )
    fixture(ListPartitionReassignmentsRequest, 0, value, bytes)
  })

  test('response v0: replicas, addingReplicas, removingReplicas in that order', () => {
    const value = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      topics: [{ name: 't1', partitions: [{ partitionIndex: 0, replicas: [1, 2, 3], addingReplicas: [3], removingReplicas: [1] }] }],
    }
    const bytes = hex(
      '00000000', // throttleTimeMs: 0
      '0000', // errorCode: 0
      '00', // errorMessage: null
      '02', // topics: count 1
      '03 7431', //   name: "t1"
      '02', //   partitions: count 1
      '00000000', //     partitionIndex: 0
      '04 00000001 00000002 00000003', //     replicas: [1, 2, 3]
      '02 00000003', //     addingReplicas: [3]
      '02 00000001', //     removingReplicas: [1]
      '00', //     partition tagged fields
      '00', //   topic tagged fields
      '00', // top-level tagged fields
    )
    fixture(ListPartitionReassignmentsResponse, 0, value, bytes)
  })
})
