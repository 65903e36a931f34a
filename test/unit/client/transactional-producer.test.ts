// The TransactionalProducer against a scripted broker (fake-kafka.ts): the requests it sends and
// their order under each transaction protocol — v2 when the broker finalizes transaction.version 2
// (Produce v12+ adding partitions itself, TxnOffsetCommit v5 without AddOffsetsToTxn, EndTxn v5
// and the epoch it answers, sequences from 0 again), v1 otherwise (AddPartitionsToTxn v3 before a
// partition's first Produce, Produce ≤ v11, AddOffsetsToTxn, sequences continuing) — the batches'
// producer id, epoch, sequence and transactional bit, the retries of coordinator answers, a failed
// record making the transaction abortable (and the epoch bump after the abort under v1), a fenced
// producer, and an empty transaction ending without EndTxn.
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { KafkaClient } from '../../../src/client/client.js'
import { ClientError } from '../../../src/client/errors.js'
import { TransactionalProducer } from '../../../src/client/transactional-producer.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import { readBatchHeader } from '../../../src/protocol/records/batch.js'
import { type FakeKafka, fakeTopicId, startFakeKafka } from './fake-kafka.js'

const PID = 4000
const TXN = 'copier-1'

interface SentBatch {
  version: number
  transactionalId: string | null
  topic: string
  partition: number
  producerId: number
  producerEpoch: number
  baseSequence: number
  count: number
  transactional: boolean
}

/** A coordinator, group coordinator and partition leader in one scripted broker. */
function scripted(
  opts: {
    features?: Record<string, number>
    endTxn?: (n: number, body: any) => number
    initProducerId?: (n: number, body: any) => number
    produceError?: (batch: SentBatch) => number
  } = {},
) {
  const batches: SentBatch[] = []
  const ids = new Map([[fakeTopicId('out'), 'out']])
  let epoch = 5
  let endTxns = 0
  let inits = 0
  const offsets = new Map<string, number>()
  const handlers = {
    10: (body: any, v: number) => {
      const key = v >= 4 ? body.coordinatorKeys[0] : body.key
      const c = { key, nodeId: 0, host: '127.0.0.1', port: fake.port, errorCode: 0, errorMessage: null }
      return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: 0, host: c.host, port: c.port, coordinators: [c] }
    },
    22: (body: any) => {
      const code = opts.initProducerId?.(++inits, body) ?? 0
      if (code === 0 && body.producerId >= 0) epoch++ // KIP-360: the epoch bumped on request
      return { throttleTimeMs: 0, errorCode: code, producerId: code === 0 ? PID : -1, producerEpoch: code === 0 ? epoch : -1 }
    },
    24: (body: any) => ({
      throttleTimeMs: 0,
      resultsByTopicV3AndBelow: body.v3AndBelowTopics.map((t: any) => ({
        name: t.name,
        resultsByPartition: t.partitions.map((p: number) => ({ partitionIndex: p, partitionErrorCode: 0 })),
      })),
    }),
    25: () => ({ throttleTimeMs: 0, errorCode: 0 }),
    28: (body: any) => ({
      throttleTimeMs: 0,
      topics: body.topics.map((t: any) => ({
        name: t.name,
        partitions: t.partitions.map((p: any) => ({ partitionIndex: p.partitionIndex, errorCode: 0 })),
      })),
    }),
    26: (body: any, v: number) => {
      const code = opts.endTxn?.(++endTxns, body) ?? 0
      if (code === 0 && v >= 5) epoch++ // KIP-890 part 2: each transaction ends with a new epoch
      return { throttleTimeMs: 0, errorCode: code, producerId: PID, producerEpoch: epoch }
    },
    0: (body: any, v: number) => ({
      throttleTimeMs: 0,
      responses: body.topicData.map((t: any) => ({
        name: t.name,
        topicId: t.topicId,
        partitionResponses: t.partitionData.map((p: any) => {
          const h = readBatchHeader(p.records, 0)
          const b: SentBatch = {
            version: v,
            transactionalId: body.transactionalId,
            topic: v >= 13 ? ids.get(t.topicId)! : t.name,
            partition: p.index,
            producerId: h.producerId,
            producerEpoch: h.producerEpoch,
            baseSequence: h.baseSequence,
            count: h.recordCount,
            transactional: h.isTransactional,
          }
          batches.push(b)
          const errorCode = opts.produceError?.(b) ?? 0
          const key = `${b.topic}-${b.partition}`
          const baseOffset = offsets.get(key) ?? 0
          if (errorCode === 0) offsets.set(key, baseOffset + b.count)
          return { index: p.index, errorCode, baseOffset: errorCode === 0 ? baseOffset : -1, recordErrors: [], errorMessage: null }
        }),
      })),
    }),
  }
  let fake!: FakeKafka
  return {
    batches,
    start: async () => {
      fake = await startFakeKafka({ topics: { out: 2, in: 1 }, features: opts.features ?? {}, handlers })
      return fake
    },
  }
}

describe('TransactionalProducer', () => {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c()
  })

  async function open(s: ReturnType<typeof scripted>, extra: { transactionVersion?: 1 | 2 } = {}) {
    const fake = await s.start()
    const client = await KafkaClient.connect({ bootstrap: [fake.bootstrap] })
    const txn = await TransactionalProducer.create(client, { transactionalId: TXN, lingerMs: 0, transactionTimeoutMs: 30_000, ...extra })
    cleanups.push(async () => {
      await txn.close()
      await client.close()
      await fake.close()
    })
    return { fake, txn }
  }

  it('transactions v2: implicit partition adds, offsets without AddOffsetsToTxn, EndTxn v5 bumping the epoch', async () => {
    const s = scripted({ features: { 'transaction.version': 2 } })
    const { fake, txn } = await open(s)
    await txn.initTransactions()
    assert.equal(txn.transactionVersion, 2)
    assert.deepEqual([txn.producerId, txn.producerEpoch], [PID, 5])
    const init = fake.log.find((r) => r.name === 'InitProducerId')!
    assert.deepEqual([init.body.transactionalId, init.body.transactionTimeoutMs], [TXN, 30_000])
    const find = fake.log.find((r) => r.name === 'FindCoordinator')!
    assert.equal(find.body.keyType, 1)

    txn.beginTransaction()
    await txn.send('out', { key: null, value: Buffer.from('a'), partition: 0 })
    await txn.send('out', { key: null, value: Buffer.from('b'), partition: 1 })
    await (await txn.producer('out')).flush()
    await txn.sendOffsetsToTransaction([{ topic: 'in', partition: 0, offset: 42 }], { groupId: 'copier', generationId: 3, memberId: 'm-1' })
    await txn.commitTransaction()
    assert.deepEqual([txn.producerId, txn.producerEpoch], [PID, 6])

    txn.beginTransaction()
    await txn.send('out', { key: null, value: Buffer.from('c'), partition: 0 })
    await txn.commitTransaction()
    assert.equal(txn.committed, 2)

    assert.deepEqual(fake.sequence(), [
      'FindCoordinator',
      'InitProducerId',
      'Produce',
      'FindCoordinator',
      'TxnOffsetCommit',
      'EndTxn',
      'Produce',
      'EndTxn',
    ])
    const commit = fake.log.find((r) => r.name === 'TxnOffsetCommit')!
    assert.equal(commit.version, 5)
    assert.deepEqual(
      [
        commit.body.transactionalId,
        commit.body.groupId,
        commit.body.producerId,
        commit.body.producerEpoch,
        commit.body.generationIdOrMemberEpoch,
        commit.body.memberId,
      ],
      [TXN, 'copier', PID, 5, 3, 'm-1'],
    )
    assert.deepEqual(commit.body.topics[0].partitions[0].committedOffset, 42)
    const ends = fake.log.filter((r) => r.name === 'EndTxn')
    assert.deepEqual(
      ends.map((r) => [r.version, r.body.producerEpoch, r.body.committed]),
      [
        [5, 5, true],
        [5, 6, true],
      ],
    )
    assert.ok(s.batches.every((b) => b.version >= 12 && b.transactionalId === TXN && b.transactional && b.producerId === PID))
    assert.deepEqual(
      s.batches.map((b) => [b.partition, b.producerEpoch, b.baseSequence]),
      [
        [0, 5, 0],
        [1, 5, 0],
        [0, 6, 0], // a new epoch starts the sequence again
      ],
    )
  })

  it('transactions v1: AddPartitionsToTxn before Produce (≤ v11), AddOffsetsToTxn, the epoch kept and sequences continuing', async () => {
    const s = scripted()
    const { fake, txn } = await open(s)
    await txn.initTransactions()
    assert.equal(txn.transactionVersion, 1)
    txn.beginTransaction()
    const out = await txn.producer('out')
    out.send({ key: null, value: Buffer.from('a'), partition: 0 })
    out.send({ key: null, value: Buffer.from('b'), partition: 0 })
    await out.flush()
    await txn.sendOffsetsToTransaction([{ topic: 'in', partition: 0, offset: 7 }], 'copier')
    await txn.commitTransaction()
    txn.beginTransaction()
    out.send({ key: null, value: Buffer.from('c'), partition: 0 })
    await txn.commitTransaction()

    assert.deepEqual(fake.sequence(), [
      'FindCoordinator',
      'InitProducerId',
      'AddPartitionsToTxn',
      'Produce',
      'AddOffsetsToTxn',
      'FindCoordinator',
      'TxnOffsetCommit',
      'EndTxn',
      'AddPartitionsToTxn',
      'Produce',
      'EndTxn',
    ])
    const adds = fake.log.filter((r) => r.name === 'AddPartitionsToTxn')
    assert.ok(adds.every((r) => r.version <= 3))
    assert.deepEqual(adds[0]!.body.v3AndBelowTopics, [{ name: 'out', partitions: [0] }])
    assert.deepEqual(
      [adds[0]!.body.v3AndBelowTransactionalId, adds[0]!.body.v3AndBelowProducerId, adds[0]!.body.v3AndBelowProducerEpoch],
      [TXN, PID, 5],
    )
    assert.equal(fake.log.find((r) => r.name === 'AddOffsetsToTxn')!.body.groupId, 'copier')
    assert.ok(fake.log.find((r) => r.name === 'TxnOffsetCommit')!.version <= 4)
    assert.ok(fake.log.filter((r) => r.name === 'EndTxn').every((r) => r.version <= 4 && r.body.producerEpoch === 5))
    assert.ok(s.batches.every((b) => b.version <= 11 && b.transactional && b.producerEpoch === 5))
    assert.deepEqual(
      s.batches.map((b) => [b.baseSequence, b.count]),
      [
        [0, 2],
        [2, 1],
      ],
    )
  })

  it('retries CONCURRENT_TRANSACTIONS and finds the coordinator again after NOT_COORDINATOR', async () => {
    const s = scripted({
      features: { 'transaction.version': 2 },
      initProducerId: (n) => (n === 1 ? ErrorCode.NOT_COORDINATOR.code : 0),
      endTxn: (n) => (n === 1 ? ErrorCode.CONCURRENT_TRANSACTIONS.code : 0),
    })
    const { fake, txn } = await open(s)
    await txn.initTransactions()
    txn.beginTransaction()
    await txn.send('out', { key: null, value: Buffer.from('a'), partition: 1 })
    await txn.commitTransaction()
    assert.deepEqual(fake.sequence(), [
      'FindCoordinator',
      'InitProducerId',
      'FindCoordinator',
      'InitProducerId',
      'Produce',
      'EndTxn',
      'EndTxn',
    ])
    assert.equal(txn.committed, 1)
  })

  it('a record not stored makes the transaction abortable; the abort under v1 bumps the epoch and restarts sequences', async () => {
    let fail = true
    const s = scripted({ produceError: () => (fail ? ErrorCode.INVALID_RECORD.code : 0) })
    const { fake, txn } = await open(s)
    await txn.initTransactions()
    txn.beginTransaction()
    await txn.send('out', { key: null, value: Buffer.from('a'), partition: 0 })
    await assert.rejects(txn.commitTransaction(), (err: unknown) => err instanceof ClientError && err.code === 'INVALID_RECORD')
    await assert.rejects(
      txn.send('out', { key: null, value: Buffer.from('b'), partition: 0 }),
      (err: unknown) => err instanceof ClientError && err.code === 'INVALID_RECORD',
    )
    await txn.abortTransaction()
    const end = fake.log.filter((r) => r.name === 'EndTxn')
    assert.deepEqual(
      end.map((r) => r.body.committed),
      [false],
    )
    const inits = fake.log.filter((r) => r.name === 'InitProducerId')
    assert.deepEqual(
      inits.map((r) => [r.body.producerId, r.body.producerEpoch]),
      [
        [-1, -1],
        [PID, 5],
      ],
    )
    assert.equal(txn.producerEpoch, 6)
    fail = false
    txn.beginTransaction()
    await txn.send('out', { key: null, value: Buffer.from('c'), partition: 0 })
    await txn.commitTransaction()
    assert.deepEqual(s.batches.at(-1)!.baseSequence, 0)
    assert.deepEqual(s.batches.at(-1)!.producerEpoch, 6)
  })

  it('a fenced producer can do nothing more', async () => {
    const s = scripted({ initProducerId: () => ErrorCode.PRODUCER_FENCED.code })
    const { txn } = await open(s)
    await assert.rejects(txn.initTransactions(), (err: unknown) => err instanceof ClientError && err.code === 'PRODUCER_FENCED')
    assert.throws(
      () => txn.beginTransaction(),
      (err: unknown) => err instanceof ClientError && err.code === 'PRODUCER_FENCED',
    )
  })

  it('refuses sends outside a transaction or while it commits, and ends a transaction that wrote nothing without EndTxn', async () => {
    const s = scripted({ features: { 'transaction.version': 2 } })
    const { fake, txn } = await open(s)
    await txn.initTransactions()
    await assert.rejects(
      txn.send('out', { key: null, value: Buffer.from('a') }),
      (err: unknown) => err instanceof ClientError && err.code === 'INVALID_TXN_STATE',
    )
    txn.beginTransaction()
    await txn.commitTransaction()
    txn.beginTransaction()
    await txn.abortTransaction()
    assert.deepEqual(fake.sequence(), ['FindCoordinator', 'InitProducerId'])

    // Nothing joins a transaction while it commits.
    txn.beginTransaction()
    await txn.send('out', { key: null, value: Buffer.from('a'), partition: 0 })
    const committing = txn.commitTransaction()
    await assert.rejects(
      txn.send('out', { key: null, value: Buffer.from('late'), partition: 0 }),
      (err: unknown) => err instanceof ClientError && err.code === 'INVALID_TXN_STATE',
    )
    await committing
    assert.deepEqual(fake.sequence(), ['FindCoordinator', 'InitProducerId', 'Produce', 'EndTxn'])

    // The topic producer used directly outside a transaction: the records fail, nothing is sent.
    const out = await txn.producer('out')
    out.send({ key: null, value: Buffer.from('stray'), partition: 1 })
    await out.flush()
    assert.equal(fake.sequence().length, 4)
    assert.ok(
      s.batches.every((b) => b.partition === 0),
      'no batch reached partition 1',
    )
    // …and its sequence number was given back: partition 1's first batch starts at 0.
    txn.beginTransaction()
    await txn.send('out', { key: null, value: Buffer.from('b'), partition: 1 })
    await txn.commitTransaction()
    assert.deepEqual(
      s.batches.filter((b) => b.partition === 1).map((b) => b.baseSequence),
      [0],
    )
  })

  it('transactionVersion pins the protocol whatever the broker finalized', async () => {
    const s = scripted({ features: { 'transaction.version': 2 } })
    const { fake, txn } = await open(s, { transactionVersion: 1 })
    await txn.initTransactions()
    txn.beginTransaction()
    await txn.send('out', { key: null, value: Buffer.from('a'), partition: 0 })
    await txn.commitTransaction()
    assert.deepEqual(fake.sequence(), ['FindCoordinator', 'InitProducerId', 'AddPartitionsToTxn', 'Produce', 'EndTxn'])
  })
})
