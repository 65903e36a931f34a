// The transaction APIs through their codecs and handlers, on fake services: FindCoordinator key
// type 1, InitProducerId with a transactional id, AddPartitionsToTxn in its producer (v0–3) and
// broker (v4+) forms, AddOffsetsToTxn, EndTxn (v5 answers the epoch), WriteTxnMarkers; the produce
// path's verification of a transactional batch (asked only when the producer has no transaction
// open in the partition, adding the partition from v12, refusals mapped as Kafka's ReplicaManager
// maps them); and the parts behind ctx.broker: the local marker writer, the marker router and the
// verifier.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { LocalTxnMarkerWriter } from '../../../src/coordinator/txn/local-markers.js'
import { MarkerRouter } from '../../../src/coordinator/txn/marker-router.js'
import { TxnVerifier } from '../../../src/coordinator/txn/verifier.js'
import produce from '../../../src/handlers/00-produce.js'
import findCoordinator from '../../../src/handlers/10-find-coordinator.js'
import initProducerId from '../../../src/handlers/22-init-producer-id.js'
import addPartitionsToTxn from '../../../src/handlers/24-add-partitions-to-txn.js'
import addOffsetsToTxn from '../../../src/handlers/25-add-offsets-to-txn.js'
import endTxn from '../../../src/handlers/26-end-txn.js'
import writeTxnMarkers from '../../../src/handlers/27-write-txn-markers.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import type { AddPartitionsParams, MarkerPartition, TransactionService, TxnMarker } from '../../../src/ports/transactions.js'
import { ErrorCode, KafkaError } from '../../../src/protocol/errors.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { callHandler } from '../../helpers/local-broker.js'
import { settle } from '../coordinator/txn/txn-helpers.js'

const E = (name: keyof typeof ErrorCode) => ErrorCode[name].code
const TRANSACTIONAL = 0x10

function fakeTransactions(calls: Array<[string, unknown]>): TransactionService {
  return {
    partitionFor: () => 3,
    ensureCoordinatorTopic: async () => {
      calls.push(['ensure', null])
    },
    initProducerId: async (p) => {
      calls.push(['init', p])
      return { errorCode: 0, producerId: 77, producerEpoch: 4 }
    },
    addPartitions: async (p: AddPartitionsParams) => {
      calls.push(['add', p])
      return p.partitions.flatMap((t) =>
        t.partitions.map((partition) => ({ topic: t.topic, partition, errorCode: partition === 9 ? E('TRANSACTION_ABORTABLE') : 0 })),
      )
    },
    addOffsets: async (p) => {
      calls.push(['offsets', p])
      return E('CONCURRENT_TRANSACTIONS')
    },
    endTxn: async (p) => {
      calls.push(['end', p])
      if (p.producerEpoch === 99) return { errorCode: E('PRODUCER_FENCED'), producerId: -1, producerEpoch: -1 }
      return { errorCode: 0, producerId: 77, producerEpoch: 5 }
    },
    describe: () => [],
    list: () => ({ errorCode: 0, unknownStateFilters: [], transactions: [] }),
  }
}

function broker(extra: Partial<Record<keyof BrokerServices, unknown>>): BrokerServices {
  return { nodeId: 0, clock: new ManualClock(), logger: silentLogger, ...extra } as unknown as BrokerServices
}

describe('transaction handlers', () => {
  it('FindCoordinator key type 1: creates __transaction_state and names the leader of the id’s partition', async () => {
    const calls: Array<[string, unknown]> = []
    let leader = -1
    const b = broker({
      transactions: fakeTransactions(calls),
      brokers: () => [{ nodeId: 2, host: 'h2', port: 9092, rack: null }],
      topics: {
        get: (name: string) => (name === '__transaction_state' ? { name, partitions: 50 } : undefined),
        partitionState: (topic: string, partition: number) => {
          calls.push(['state', `${topic}-${partition}`])
          return { leader }
        },
      },
    })
    const none = await callHandler(b, findCoordinator, 6, { keyType: 1, coordinatorKeys: ['my-txn'] })
    assert.equal(none.coordinators[0]!.errorCode, E('COORDINATOR_NOT_AVAILABLE'))
    leader = 2
    const found = await callHandler(b, findCoordinator, 6, { keyType: 1, coordinatorKeys: ['my-txn'] })
    assert.deepEqual(
      { nodeId: found.coordinators[0]!.nodeId, host: found.coordinators[0]!.host, errorCode: found.coordinators[0]!.errorCode },
      { nodeId: 2, host: 'h2', errorCode: 0 },
    )
    // abs("my-txn".hashCode()) % 50 = 1061187895 % 50 = 45
    assert.ok(calls.some(([k, v]) => k === 'state' && v === '__transaction_state-45'))
    assert.ok(calls.some(([k]) => k === 'ensure'))
    const v1 = await callHandler(b, findCoordinator, 1, { keyType: 1, key: 'my-txn' })
    assert.equal(v1.errorCode, 0)
    assert.equal(v1.nodeId, 2)
  })

  it('InitProducerId with a transactional id goes to the coordinator (v3+ with the producer’s id and epoch)', async () => {
    const calls: Array<[string, unknown]> = []
    const b = broker({ transactions: fakeTransactions(calls) })
    const r = await callHandler(b, initProducerId, 4, { transactionalId: 't', transactionTimeoutMs: 1000, producerId: 5, producerEpoch: 1 })
    assert.deepEqual([r.errorCode, r.producerId, r.producerEpoch], [0, 77, 4])
    assert.deepEqual(calls[0], [
      'init',
      { transactionalId: 't', transactionTimeoutMs: 1000, producerId: 5, producerEpoch: 1, apiVersion: 4 },
    ])
    await callHandler(b, initProducerId, 1, { transactionalId: 't', transactionTimeoutMs: 1000 })
    assert.deepEqual(calls[1], [
      'init',
      { transactionalId: 't', transactionTimeoutMs: 1000, producerId: -1, producerEpoch: -1, apiVersion: 1 },
    ])
  })

  it('AddPartitionsToTxn: v3 answers per topic; v5 per transaction, passing verifyOnly', async () => {
    const calls: Array<[string, unknown]> = []
    const b = broker({ transactions: fakeTransactions(calls) })
    const v3 = await callHandler(b, addPartitionsToTxn, 3, {
      v3AndBelowTransactionalId: 't',
      v3AndBelowProducerId: 7,
      v3AndBelowProducerEpoch: 1,
      v3AndBelowTopics: [{ name: 'a', partitions: [0, 9] }],
    })
    assert.deepEqual(v3.resultsByTopicV3AndBelow, [
      {
        name: 'a',
        resultsByPartition: [
          { partitionIndex: 0, partitionErrorCode: 0 },
          // Before v5 TRANSACTION_ABORTABLE is INVALID_TXN_STATE.
          { partitionIndex: 9, partitionErrorCode: E('INVALID_TXN_STATE') },
        ],
      },
    ])
    assert.equal((calls[0]![1] as AddPartitionsParams).verifyOnly, false)
    const v5 = await callHandler(b, addPartitionsToTxn, 5, {
      transactions: [
        { transactionalId: 't1', producerId: 1, producerEpoch: 0, verifyOnly: true, topics: [{ name: 'a', partitions: [9] }] },
        { transactionalId: 't2', producerId: 2, producerEpoch: 0, verifyOnly: false, topics: [{ name: 'b', partitions: [1] }] },
      ],
    })
    assert.equal(v5.errorCode, 0)
    assert.deepEqual(
      v5.resultsByTransaction.map((t) => [t.transactionalId, t.topicResults[0]!.resultsByPartition[0]!.partitionErrorCode]),
      [
        ['t1', E('TRANSACTION_ABORTABLE')],
        ['t2', 0],
      ],
    )
    assert.deepEqual(
      calls.slice(1).map(([, p]) => (p as AddPartitionsParams).verifyOnly),
      [true, false],
    )
  })

  it('AddOffsetsToTxn passes the group; EndTxn v5 answers the producer id and the bumped epoch', async () => {
    const calls: Array<[string, unknown]> = []
    const b = broker({ transactions: fakeTransactions(calls) })
    const ao = await callHandler(b, addOffsetsToTxn, 3, { transactionalId: 't', producerId: 1, producerEpoch: 0, groupId: 'g' })
    assert.equal(ao.errorCode, E('CONCURRENT_TRANSACTIONS'))
    assert.deepEqual(calls[0], ['offsets', { transactionalId: 't', producerId: 1, producerEpoch: 0, groupId: 'g' }])
    const r = await callHandler(b, endTxn, 5, { transactionalId: 't', producerId: 77, producerEpoch: 4, committed: true })
    assert.deepEqual([r.errorCode, r.producerId, r.producerEpoch], [0, 77, 5])
    assert.deepEqual(calls[1], ['end', { transactionalId: 't', producerId: 77, producerEpoch: 4, commit: true, apiVersion: 5 }])
  })

  it('older versions get the codes they know: INVALID_PRODUCER_EPOCH for PRODUCER_FENCED, INVALID_TXN_STATE for TRANSACTION_ABORTABLE', async () => {
    const b = broker({ transactions: fakeTransactions([]) })
    const fenced = { transactionalId: 't', producerId: 77, producerEpoch: 99, committed: true }
    assert.equal((await callHandler(b, endTxn, 1, fenced)).errorCode, E('INVALID_PRODUCER_EPOCH'))
    assert.equal((await callHandler(b, endTxn, 2, fenced)).errorCode, E('PRODUCER_FENCED'))
    const verify = {
      transactions: [{ transactionalId: 't', producerId: 1, producerEpoch: 0, verifyOnly: true, topics: [{ name: 'a', partitions: [9] }] }],
    }
    const v4 = await callHandler(b, addPartitionsToTxn, 4, verify)
    assert.equal(v4.resultsByTransaction[0]!.topicResults[0]!.resultsByPartition[0]!.partitionErrorCode, E('INVALID_TXN_STATE'))
  })

  it('WriteTxnMarkers writes each marker to its partitions and answers each partition', async () => {
    const written: Array<{ marker: TxnMarker; partitions: MarkerPartition[] }> = []
    const b = broker({
      txnMarkers: {
        writeMarkers: async (marker: TxnMarker, partitions: MarkerPartition[]) => {
          written.push({ marker, partitions })
          return partitions.map((p) => ({ ...p, errorCode: p.partition === 1 ? E('NOT_LEADER_OR_FOLLOWER') : 0 }))
        },
      },
    })
    const res = await callHandler(b, writeTxnMarkers, 2, {
      markers: [
        {
          producerId: 9,
          producerEpoch: 3,
          transactionResult: true,
          coordinatorEpoch: 6,
          transactionVersion: 2,
          topics: [
            { name: 'a', partitionIndexes: [0, 1] },
            { name: 'b', partitionIndexes: [4] },
          ],
        },
      ],
    })
    assert.deepEqual(written[0]!.marker, { producerId: 9, producerEpoch: 3, coordinatorEpoch: 6, commit: true, transactionVersion: 2 })
    assert.deepEqual(res.markers[0]!.topics, [
      {
        name: 'a',
        partitions: [
          { partitionIndex: 0, errorCode: 0 },
          { partitionIndex: 1, errorCode: E('NOT_LEADER_OR_FOLLOWER') },
        ],
      },
      { name: 'b', partitions: [{ partitionIndex: 4, errorCode: 0 }] },
    ])
    await callHandler(b, writeTxnMarkers, 1, {
      markers: [
        { producerId: 9, producerEpoch: 3, transactionResult: false, coordinatorEpoch: 6, topics: [{ name: 'a', partitionIndexes: [0] }] },
      ],
    })
    assert.equal(written[1]!.marker.transactionVersion, 0)
    assert.equal(written[1]!.marker.commit, false)
  })
})

describe('Produce: verification of transactional batches', () => {
  const batch = (attributes: number) =>
    buildRecordBatch({
      records: [{ key: null, value: Buffer.from('v') }],
      producerId: 42,
      producerEpoch: 3,
      baseSequence: 0,
      attributes,
      baseTimestamp: 1,
    })

  function produceBroker(opts: { ongoing: boolean; verdict: number | ((partition: number) => number); ongoingEpoch?: number }) {
    const asked: unknown[] = []
    const started: string[] = []
    const appended: string[] = []
    const topic = { name: 'orders', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: 3, configs: {} }
    const openEpoch = opts.ongoingEpoch ?? 3
    const b = broker({
      topics: {
        get: (name: string) => (name === 'orders' ? topic : undefined),
        getById: () => undefined,
        getOrAutoCreate: async () => undefined,
        effectiveConfig: () => ({
          'compression.type': 'producer',
          'message.timestamp.type': 'CreateTime',
          'message.timestamp.before.max.ms': Number.MAX_SAFE_INTEGER,
          'message.timestamp.after.max.ms': Number.MAX_SAFE_INTEGER,
          'cleanup.policy': 'delete',
          'min.insync.replicas': 1,
          'max.message.bytes': 1 << 20,
        }),
      },
      replicas: {
        require: (t: string, p: number) => ({ topic: t, index: p }),
        hasOngoingTransaction: (_p: unknown, _id: number, epoch: number) => opts.ongoing && epoch === openEpoch,
        // As ReplicaManager.startTxnVerification: an open transaction of an older epoch at v12 waits for its marker.
        startTxnVerification: (p: { topic: string; index: number }, id: number, seq: number, epoch: number, bump: boolean) => {
          if (opts.ongoing && epoch === openEpoch) return false
          started.push(`${p.topic}-${p.index} ${id} ${seq} ${epoch} ${bump}`)
          if (opts.ongoing && bump) throw new KafkaError('NOT_ENOUGH_REPLICAS', 'the previous transaction is still completing')
          return true
        },
        append: async (p: { topic: string; index: number }) => {
          appended.push(`${p.topic}-${p.index}`)
          return { baseOffset: 0, logAppendTimeMs: -1, logStartOffset: 0 }
        },
      },
      txnVerifier: {
        verify: async () => {
          throw new Error('Produce verifies its partitions together')
        },
        verifyPartitions: async (q: { partitions: Array<{ topic: string; partition: number }> }) => {
          asked.push(q)
          const v = opts.verdict
          return q.partitions.map((p) => (typeof v === 'number' ? v : v(p.partition)))
        },
      },
    })
    return { b, asked, started, appended }
  }

  const request = (transactionalId: string | null, records: Buffer) => ({
    transactionalId,
    acks: -1,
    timeoutMs: 1000,
    topicData: [{ name: 'orders', partitionData: [{ index: 1, records }] }],
  })

  it('asks the coordinator for a transactional batch of a producer with no transaction open there; v12 adds the partition', async () => {
    for (const version of [11, 12]) {
      const { b, asked, started, appended } = produceBroker({ ongoing: false, verdict: 0 })
      const res = await callHandler(b, produce, version, request('tx', batch(TRANSACTIONAL)))
      assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, 0)
      assert.deepEqual(started, [`orders-1 42 0 3 ${version >= 12}`], 'the log records the verification first')
      assert.deepEqual(asked, [
        {
          transactionalId: 'tx',
          producerId: 42,
          producerEpoch: 3,
          partitions: [{ topic: 'orders', partition: 1 }],
          addPartition: version >= 12,
        },
      ])
      assert.deepEqual(appended, ['orders-1'])
    }
  })

  it('verifies the partitions of one request in one call, each answered by its own verdict, appended in request order', async () => {
    const { b, asked, appended } = produceBroker({
      ongoing: false,
      verdict: (partition) => (partition === 1 ? E('TRANSACTION_ABORTABLE') : 0),
    })
    const res = await callHandler(b, produce, 12, {
      transactionalId: 'tx',
      acks: -1,
      timeoutMs: 1000,
      topicData: [
        {
          name: 'orders',
          partitionData: [
            { index: 2, records: batch(TRANSACTIONAL) },
            { index: 1, records: batch(TRANSACTIONAL) },
            { index: 0, records: batch(TRANSACTIONAL) },
          ],
        },
      ],
    })
    assert.deepEqual(asked, [
      {
        transactionalId: 'tx',
        producerId: 42,
        producerEpoch: 3,
        partitions: [
          { topic: 'orders', partition: 2 },
          { topic: 'orders', partition: 1 },
          { topic: 'orders', partition: 0 },
        ],
        addPartition: true,
      },
    ])
    assert.deepEqual(
      res.responses[0]!.partitionResponses.map((p: { index: number; errorCode: number }) => [p.index, p.errorCode]),
      [
        [2, 0],
        [1, E('TRANSACTION_ABORTABLE')],
        [0, 0],
      ],
    )
    assert.deepEqual(appended, ['orders-2', 'orders-0'])
  })

  it('does not ask for a non-transactional batch, without a transactional id, or when the transaction is already open there', async () => {
    for (const [id, attrs, ongoing] of [
      ['tx', 0, false],
      [null, TRANSACTIONAL, false],
      ['tx', TRANSACTIONAL, true],
    ] as const) {
      const { b, asked, appended } = produceBroker({ ongoing, verdict: E('INVALID_TXN_STATE') })
      const res = await callHandler(b, produce, 9, request(id, batch(attrs)))
      assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, 0)
      assert.equal(asked.length, 0)
      assert.equal(appended.length, 1)
    }
  })

  it('v12: a batch of a newer epoch than the transaction open in the partition waits for its marker (NOT_ENOUGH_REPLICAS, KAFKA-18575)', async () => {
    const older = produceBroker({ ongoing: true, ongoingEpoch: 2, verdict: 0 })
    const res = await callHandler(older.b, produce, 12, request('tx', batch(TRANSACTIONAL)))
    assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, E('NOT_ENOUGH_REPLICAS'))
    assert.equal(older.asked.length, 0)
    assert.deepEqual(older.appended, [])
    // The same epoch is the open transaction's own batch: nothing to verify.
    const same = produceBroker({ ongoing: true, ongoingEpoch: 3, verdict: E('CONCURRENT_TRANSACTIONS') })
    const r = await callHandler(same.b, produce, 12, request('tx', batch(TRANSACTIONAL)))
    assert.equal(r.responses[0]!.partitionResponses[0]!.errorCode, 0)
    assert.equal(same.asked.length, 0)
    // Before v12, an open transaction of an older epoch (a fenced producer's) is verified, as Kafka's
    // hasOngoingTransaction(producerId, epoch) requires.
    const v11 = produceBroker({ ongoing: true, ongoingEpoch: 2, verdict: E('CONCURRENT_TRANSACTIONS') })
    const r11 = await callHandler(v11.b, produce, 11, request('tx', batch(TRANSACTIONAL)))
    assert.equal(r11.responses[0]!.partitionResponses[0]!.errorCode, E('NOT_ENOUGH_REPLICAS'))
    assert.equal(v11.asked.length, 1)
  })

  it('refuses the batch with the coordinator’s verdict, mapped as Kafka does, and appends nothing', async () => {
    const cases: Array<[number, number, number]> = [
      // verdict, produce version, answer
      [E('INVALID_PRODUCER_EPOCH'), 12, E('INVALID_PRODUCER_EPOCH')],
      [E('TRANSACTION_ABORTABLE'), 11, E('TRANSACTION_ABORTABLE')],
      [E('TRANSACTION_ABORTABLE'), 10, E('INVALID_TXN_STATE')],
      [E('CONCURRENT_TRANSACTIONS'), 12, E('NOT_ENOUGH_REPLICAS')],
      [E('NOT_COORDINATOR'), 9, E('NOT_ENOUGH_REPLICAS')],
      [E('INVALID_PRODUCER_ID_MAPPING'), 9, E('INVALID_PRODUCER_ID_MAPPING')],
    ]
    for (const [verdict, version, answer] of cases) {
      const { b, appended } = produceBroker({ ongoing: false, verdict })
      const res = await callHandler(b, produce, version, request('tx', batch(TRANSACTIONAL)))
      assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, answer, `verdict ${verdict} at v${version}`)
      assert.deepEqual(appended, [])
    }
  })
})

describe('marker writer, router and verifier', () => {
  it('the local writer writes each partition’s marker, then completes a __consumer_offsets partition’s transactional offsets', async () => {
    const order: string[] = []
    const writer = new LocalTxnMarkerWriter({
      replicas: {
        require: (topic: string, partition: number) => {
          if (partition === 5) throw new KafkaError('NOT_LEADER_OR_FOLLOWER')
          return { topic, index: partition } as never
        },
        writeTxnMarker: async (p: { topic: string; index: number }, m: TxnMarker) => {
          order.push(`marker ${p.topic}-${p.index} ${m.commit}`)
        },
      },
      groups: {
        completeTransaction: (partition: number, producerId: number, commit: boolean) =>
          order.push(`offsets ${partition} ${producerId} ${commit}`),
      },
      timeoutMs: 1000,
      logger: silentLogger,
    })
    const marker = { producerId: 8, producerEpoch: 1, coordinatorEpoch: 2, commit: true, transactionVersion: 2 }
    const res = await writer.writeMarkers(marker, [
      { topic: 'a', partition: 0 },
      { topic: '__consumer_offsets', partition: 3 },
      { topic: 'a', partition: 5 },
    ])
    assert.deepEqual(
      res.map((r) => r.errorCode),
      [0, 0, E('NOT_LEADER_OR_FOLLOWER')],
    )
    assert.deepEqual(order, ['marker a-0 true', 'marker __consumer_offsets-3 true', 'offsets 3 8 true'])
  })

  it('the router writes local partitions here, others to their leaders, drops deleted partitions, retries leaderless ones', async () => {
    const local: MarkerPartition[] = []
    const remote: Array<[number, MarkerPartition[]]> = []
    const leaders: Record<string, number | undefined> = { 'a:0': 0, 'a:1': 2, 'b:0': 2, 'c:0': -1 }
    const router = new MarkerRouter({
      nodeId: 0,
      leaderOf: (t, p) => leaders[`${t}:${p}`],
      local: {
        writeMarkers: async (_m, ps) => {
          local.push(...ps)
          return ps.map((p) => ({ ...p, errorCode: 0 }))
        },
      },
      remote: async (node, _m, ps) => {
        remote.push([node, ps])
        return ps.map((p) => ({ ...p, errorCode: 0 }))
      },
      logger: silentLogger,
    })
    const marker = { producerId: 8, producerEpoch: 1, coordinatorEpoch: 2, commit: false, transactionVersion: 0 }
    const res = await router.send(marker, [
      { topic: 'a', partition: 0 },
      { topic: 'a', partition: 1 },
      { topic: 'b', partition: 0 },
      { topic: 'c', partition: 0 },
      { topic: 'gone', partition: 0 },
    ])
    const byKey = Object.fromEntries(res.map((r) => [`${r.topic}:${r.partition}`, r.errorCode]))
    assert.deepEqual(byKey, { 'a:0': 0, 'a:1': 0, 'b:0': 0, 'c:0': E('NOT_LEADER_OR_FOLLOWER'), 'gone:0': 0 })
    assert.deepEqual(local, [{ topic: 'a', partition: 0 }])
    assert.deepEqual(remote, [
      [
        2,
        [
          { topic: 'a', partition: 1 },
          { topic: 'b', partition: 0 },
        ],
      ],
    ])
  })

  it('the verifier asks the local or the remote coordinator and answers PRODUCER_FENCED as INVALID_PRODUCER_EPOCH', async () => {
    const seen: string[] = []
    let coordinator = 0
    const v = new TxnVerifier({
      nodeId: 0,
      coordinatorOf: () => coordinator,
      local: async (req) => {
        seen.push('local')
        return req.partitions.map(() => E('PRODUCER_FENCED'))
      },
      remote: async (node, req) => {
        seen.push(`remote ${node} ${req.partitions.length}`)
        return req.partitions.map(() => 0)
      },
      clock: new ManualClock(),
    })
    const q = { transactionalId: 't', producerId: 1, producerEpoch: 0, topic: 'a', partition: 0, addPartition: true }
    assert.equal(await v.verify(q), E('INVALID_PRODUCER_EPOCH'))
    coordinator = 3
    assert.equal(await v.verify(q), 0)
    const two = [
      { topic: 'a', partition: 0 },
      { topic: 'b', partition: 1 },
    ]
    assert.deepEqual(
      await v.verifyPartitions({ transactionalId: 't', producerId: 1, producerEpoch: 0, partitions: two, addPartition: true }),
      [0, 0],
    )
    coordinator = -1
    assert.equal(await v.verify(q), E('COORDINATOR_NOT_AVAILABLE'))
    assert.deepEqual(seen, ['local', 'remote 3 1', 'remote 3 2'])
  })

  it('the verifier retries an add that meets the previous transaction completing, every 20 ms for up to 100 ms', async () => {
    const clock = new ManualClock()
    let asked = 0
    let answer = E('CONCURRENT_TRANSACTIONS')
    const v = new TxnVerifier({
      nodeId: 0,
      coordinatorOf: () => 0,
      local: async (req) => {
        asked++
        return req.partitions.map(() => answer)
      },
      remote: async (_node, req) => req.partitions.map(() => 0),
      clock,
    })
    const q = { transactionalId: 't', producerId: 1, producerEpoch: 0, topic: 'a', partition: 0, addPartition: true }
    const pending = v.verify(q)
    for (let i = 0; i < 2; i++) {
      await settle()
      clock.advance(20)
    }
    answer = 0
    assert.equal(await pending, 0)
    assert.equal(asked, 3)
    // Given up after 100 ms; a verify-only check is never retried.
    answer = E('CONCURRENT_TRANSACTIONS')
    asked = 0
    const late = v.verify(q)
    for (let i = 0; i < 10; i++) {
      await settle()
      clock.advance(20)
    }
    assert.equal(await late, E('CONCURRENT_TRANSACTIONS'))
    assert.equal(asked, 6)
    asked = 0
    assert.equal(await v.verify({ ...q, addPartition: false }), E('CONCURRENT_TRANSACTIONS'))
    assert.equal(asked, 1)
  })

  it('the verifier asks again only for the partitions answered CONCURRENT_TRANSACTIONS', async () => {
    const clock = new ManualClock()
    const asks: string[][] = []
    const v = new TxnVerifier({
      nodeId: 0,
      coordinatorOf: () => 0,
      local: async (req) => {
        asks.push(req.partitions.map((p) => `${p.topic}-${p.partition}`))
        return req.partitions.map((p) =>
          asks.length === 1 && p.partition === 1 ? E('CONCURRENT_TRANSACTIONS') : p.partition === 2 ? E('TRANSACTION_ABORTABLE') : 0,
        )
      },
      remote: async (_node, req) => req.partitions.map(() => 0),
      clock,
    })
    const pending = v.verifyPartitions({
      transactionalId: 't',
      producerId: 1,
      producerEpoch: 0,
      partitions: [0, 1, 2].map((partition) => ({ topic: 'a', partition })),
      addPartition: true,
    })
    await settle()
    clock.advance(20)
    assert.deepEqual(await pending, [0, 0, E('TRANSACTION_ABORTABLE')])
    assert.deepEqual(asks, [['a-0', 'a-1', 'a-2'], ['a-1']])
  })
})
