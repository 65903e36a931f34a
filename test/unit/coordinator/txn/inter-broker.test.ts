// The transaction coordinator's requests to another broker (InterBrokerTxnChannel) against a real
// in-process broker: AddPartitionsToTxn v5 in the broker form reaches that broker's coordinator
// (verify-only and adding), WriteTxnMarkers reaches its partitions (a marker ends the producer's
// transaction there: the partition's last stable offset moves past it), and an unreachable broker
// answers every partition NETWORK_EXCEPTION.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type RunningBroker, startBroker } from '../../../../src/broker/start.js'
import { InterBrokerTxnChannel } from '../../../../src/coordinator/txn/inter-broker.js'
import { ErrorCode } from '../../../../src/protocol/errors.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../../../src/protocol/messages/10-find-coordinator.js'
import { CreateTopicsRequest, CreateTopicsResponse } from '../../../../src/protocol/messages/19-create-topics.js'
import { InitProducerIdRequest, InitProducerIdResponse } from '../../../../src/protocol/messages/22-init-producer-id.js'
import { ListOffsetsRequest, ListOffsetsResponse } from '../../../../src/protocol/messages/02-list-offsets.js'
import { ProduceRequest, ProduceResponse } from '../../../../src/protocol/messages/00-produce.js'
import { buildRecordBatch } from '../../../../src/protocol/records/builder.js'
import { silentLogger } from '../../../../src/util/logger.js'
import { RawClient } from '../../../helpers/clients.js'

const E = (name: keyof typeof ErrorCode) => ErrorCode[name].code
const TOPIC = 'ib-orders'

describe('InterBrokerTxnChannel', () => {
  let broker: RunningBroker
  let raw: RawClient
  let channel: InterBrokerTxnChannel

  before(async () => {
    broker = await startBroker({ storage: 'memory' })
    raw = await RawClient.connect(broker.host, broker.port)
    channel = new InterBrokerTxnChannel({
      nodeId: 5,
      endpointOf: (id) => (id === 0 ? { host: broker.host, port: broker.port } : id === 9 ? { host: '127.0.0.1', port: 1 } : undefined),
      requestTimeoutMs: 5000,
      logger: silentLogger,
    })
    await raw.request(CreateTopicsRequest, CreateTopicsResponse, 5, {
      topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 5000,
      validateOnly: false,
    })
    // The coordinator topic exists and its partitions are loaded once a lookup answers.
    for (let i = 0; i < 100; i++) {
      const r = await raw.request(FindCoordinatorRequest, FindCoordinatorResponse, 4, { keyType: 1, coordinatorKeys: ['ib-tx'] })
      if (r.coordinators[0]!.errorCode === 0) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })

  after(async () => {
    channel.close()
    raw.close()
    await broker.close()
  })

  async function initProducer(): Promise<{ producerId: number; producerEpoch: number }> {
    for (let i = 0; i < 100; i++) {
      const r = await raw.request(InitProducerIdRequest, InitProducerIdResponse, 4, {
        transactionalId: 'ib-tx',
        transactionTimeoutMs: 60_000,
        producerId: -1,
        producerEpoch: -1,
      })
      if (r.errorCode === 0) return r
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error('InitProducerId never succeeded')
  }

  it('AddPartitionsToTxn v5: verify-only, then adding, then verify-only again; an unknown id is INVALID_PRODUCER_ID_MAPPING', async () => {
    const { producerId, producerEpoch } = await initProducer()
    const q = { transactionalId: 'ib-tx', producerId, producerEpoch, topic: TOPIC, partition: 0 }
    assert.equal(await channel.verify(0, { ...q, addPartition: false }), E('TRANSACTION_ABORTABLE'))
    assert.equal(await channel.verify(0, { ...q, addPartition: true }), 0)
    assert.equal(await channel.verify(0, { ...q, addPartition: false }), 0)
    assert.equal(await channel.verify(0, { ...q, transactionalId: 'nobody', addPartition: false }), E('INVALID_PRODUCER_ID_MAPPING'))
    assert.equal(await channel.verify(0, { ...q, producerEpoch: producerEpoch + 1, addPartition: false }), E('PRODUCER_FENCED'))
    // Several partitions in one transaction entry, each answered in the order asked.
    const { topic: _t, partition: _p, ...id } = q
    const partitions = [
      { topic: TOPIC, partition: 1 },
      { topic: TOPIC, partition: 0 },
    ]
    assert.deepEqual(await channel.verifyPartitions(0, { ...id, partitions, addPartition: false }), [E('TRANSACTION_ABORTABLE'), 0])
    assert.deepEqual(await channel.verifyPartitions(0, { ...id, partitions, addPartition: true }), [0, 0])
    assert.deepEqual(await channel.verifyPartitions(0, { ...id, partitions, addPartition: false }), [0, 0])
  })

  it('WriteTxnMarkers ends the producer’s transaction in the partition: the last stable offset passes it', async () => {
    const producerId = 900_001
    const batch = buildRecordBatch({
      records: [{ key: null, value: Buffer.from('t') }],
      producerId,
      producerEpoch: 0,
      baseSequence: 0,
      attributes: 0x10,
      baseTimestamp: Date.now(),
    })
    // Without a transactional id the leader does not ask a coordinator: the batch opens a transaction.
    const p = await raw.request(ProduceRequest, ProduceResponse, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: batch }] }],
    })
    assert.equal(p.responses[0]!.partitionResponses[0]!.errorCode, 0)
    const lso = async () => {
      const r = await raw.request(ListOffsetsRequest, ListOffsetsResponse, 5, {
        replicaId: -1,
        isolationLevel: 1,
        topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1 }] }],
      })
      return Number(r.topics[0]!.partitions[0]!.offset)
    }
    const before = await lso()
    const marker = { producerId, producerEpoch: 0, coordinatorEpoch: 0, commit: true, transactionVersion: 0 }
    const res = await channel.writeMarkers(0, marker, [
      { topic: TOPIC, partition: 0 },
      { topic: 'ib-missing', partition: 0 },
    ])
    assert.deepEqual(
      res.map((r) => r.errorCode),
      [0, E('UNKNOWN_TOPIC_OR_PARTITION')],
    )
    assert.ok((await lso()) > before, 'the committed transaction is stable now')
  })

  it('an unreachable or unknown broker answers every partition NETWORK_EXCEPTION (verification: NOT_COORDINATOR)', async () => {
    const marker = { producerId: 1, producerEpoch: 0, coordinatorEpoch: 0, commit: false, transactionVersion: 2 }
    for (const node of [9, 4]) {
      const res = await channel.writeMarkers(node, marker, [{ topic: TOPIC, partition: 0 }])
      assert.deepEqual(
        res.map((r) => r.errorCode),
        [E('NETWORK_EXCEPTION')],
      )
      const v = await channel.verify(node, {
        transactionalId: 'x',
        producerId: 1,
        producerEpoch: 0,
        topic: TOPIC,
        partition: 0,
        addPartition: false,
      })
      assert.equal(v, E('NOT_COORDINATOR'))
    }
  })
})
