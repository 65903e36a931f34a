// DescribeProducers (key 61) v0, flexible: request and response written out by hand field by field
// from Kafka's message layout, decoded and re-encoded byte for byte, and a round trip with several
// topics, partitions and producers (an id past 2^32, epochs above int16, negative defaults).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { DescribeProducersRequest, DescribeProducersResponse } from '../../../src/protocol/messages/61-describe-producers.js'
import { hex } from '../../helpers/message-fixtures.js'

describe('DescribeProducers v0', () => {
  test('declares v0 only, flexible', () => {
    assert.equal(DescribeProducersRequest.apiKey, 61)
    assert.deepEqual([DescribeProducersRequest.versions.min, DescribeProducersRequest.versions.max], [0, 0])
    assert.deepEqual([DescribeProducersResponse.versions.min, DescribeProducersResponse.versions.max], [0, 0])
    assert.equal(DescribeProducersRequest.isFlexible(0), true)
    assert.equal(DescribeProducersResponse.isFlexible(0), true)
  })

  test('request from bytes', () => {
    const value = { topics: [{ name: 'tp', partitionIndexes: [0, 2] }] }
    const bytes = hex(
      '02', // topics: compact array, 1
      '03 7470', //   name: compact string "tp"
      '03 00000000 00000002', //   partitionIndexes: compact array [0, 2]
      '00', //   topic tagged fields
      '00', // tagged fields
    )
    assert.deepEqual(DescribeProducersRequest.decode(0, bytes), value)
    assert.equal(DescribeProducersRequest.encode(0, value).toString('hex'), bytes.toString('hex'))
  })

  test('response from bytes', () => {
    const value = {
      throttleTimeMs: 5,
      topics: [
        {
          name: 't',
          partitions: [
            {
              partitionIndex: 1,
              errorCode: 0,
              errorMessage: null,
              activeProducers: [
                { producerId: 7, producerEpoch: 2, lastSequence: 9, lastTimestamp: 1000, coordinatorEpoch: -1, currentTxnStartOffset: -1 },
              ],
            },
            { partitionIndex: 3, errorCode: 6, errorMessage: 'not here', activeProducers: [] },
          ],
        },
      ],
    }
    const bytes = hex(
      '00000005', // throttleTimeMs
      '02', // topics: 1
      '02 74', //   name "t"
      '03', //   partitions: 2
      '00000001 0000 00', //     index 1, no error, errorMessage null
      '02', //     activeProducers: 1
      '0000000000000007', //       producerId
      '00000002', //       producerEpoch (int32)
      '00000009', //       lastSequence
      '00000000000003e8', //       lastTimestamp 1000
      'ffffffff', //       coordinatorEpoch -1
      'ffffffffffffffff', //       currentTxnStartOffset -1
      '00', //       producer tagged fields
      '00', //     partition tagged fields
      '00000003 0006', //     index 3, NOT_LEADER_OR_FOLLOWER
      '09 6e6f742068657265', //     errorMessage "not here"
      '01', //     activeProducers: 0
      '00', //     partition tagged fields
      '00', //   topic tagged fields
      '00', // tagged fields
    )
    assert.deepEqual(DescribeProducersResponse.decode(0, bytes), value)
    assert.equal(DescribeProducersResponse.encode(0, value).toString('hex'), bytes.toString('hex'))
  })

  test('omitted producer fields take their defaults (-1)', () => {
    const encoded = DescribeProducersResponse.encode(0, {
      throttleTimeMs: 0,
      topics: [
        {
          name: 'x',
          partitions: [{ partitionIndex: 0, errorCode: 0, activeProducers: [{ producerId: 1, producerEpoch: 0, coordinatorEpoch: 0 }] }],
        },
      ],
    })
    const p = DescribeProducersResponse.decode(0, encoded).topics[0]!.partitions[0]!
    assert.equal(p.errorMessage, null)
    assert.deepEqual(p.activeProducers[0], {
      producerId: 1,
      producerEpoch: 0,
      lastSequence: -1,
      lastTimestamp: -1,
      coordinatorEpoch: 0,
      currentTxnStartOffset: -1,
    })
  })

  test('round trip over several topics, partitions and producers', () => {
    const value = {
      throttleTimeMs: 0,
      topics: [
        {
          name: 'a',
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              errorMessage: null,
              activeProducers: [
                {
                  producerId: 2 ** 40 + 3,
                  producerEpoch: 40000,
                  lastSequence: 2147483647,
                  lastTimestamp: 1_700_000_000_000,
                  coordinatorEpoch: -1,
                  currentTxnStartOffset: -1,
                },
                { producerId: 0, producerEpoch: 0, lastSequence: -1, lastTimestamp: -1, coordinatorEpoch: 5, currentTxnStartOffset: 12 },
              ],
            },
          ],
        },
        { name: 'b', partitions: [{ partitionIndex: 9, errorCode: 3, errorMessage: null, activeProducers: [] }] },
      ],
    }
    assert.deepEqual(DescribeProducersResponse.decode(0, DescribeProducersResponse.encode(0, value)), value)
    const req = {
      topics: [
        { name: 'a', partitionIndexes: [] },
        { name: 'b', partitionIndexes: [1, 2, 3] },
      ],
    }
    assert.deepEqual(DescribeProducersRequest.decode(0, DescribeProducersRequest.encode(0, req)), req)
  })
})
