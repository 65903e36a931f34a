// The transaction coordinator's state machine on a virtual clock, with the transaction log, the
// producer ids and the markers in memory: every transition is persisted before the answer, in
// Kafka's order (Empty → Ongoing → PrepareCommit/PrepareAbort → markers → CompleteCommit/
// CompleteAbort); fencing by InitProducerId and by timeouts; transaction protocol v1 and v2 (the
// epoch bump of EndTxn v5 and its retries); marker retries; loading and resuming after a failover;
// resignation; expiry; epoch exhaustion; describe and list.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { TXN_STATE_IDS as S } from '../../../../src/coordinator/txn/txn-metadata.js'
import type { ListTransactionsFilter } from '../../../../src/ports/transactions.js'
import { ErrorCode } from '../../../../src/protocol/errors.js'
import { MemoryTxnLog, settle, txnRig, type TxnRig } from './txn-helpers.js'

const E = (name: keyof typeof ErrorCode) => ErrorCode[name].code
const ID = 'tx-1'

async function init(
  rig: TxnRig,
  id = ID,
  extra: { producerId?: number; producerEpoch?: number; transactionTimeoutMs?: number; apiVersion?: number } = {},
) {
  return rig.coordinator.initProducerId({
    transactionalId: id,
    transactionTimeoutMs: extra.transactionTimeoutMs ?? 60_000,
    producerId: extra.producerId ?? -1,
    producerEpoch: extra.producerEpoch ?? -1,
    apiVersion: extra.apiVersion ?? 4,
  })
}

async function add(
  rig: TxnRig,
  producerId: number,
  producerEpoch: number,
  partitions = [{ topic: 'orders', partitions: [0, 1] }],
  id = ID,
) {
  return rig.coordinator.addPartitions({ transactionalId: id, producerId, producerEpoch, partitions, verifyOnly: false, apiVersion: 3 })
}

async function end(rig: TxnRig, producerId: number, producerEpoch: number, commit: boolean, apiVersion = 4, id = ID) {
  return rig.coordinator.endTxn({ transactionalId: id, producerId, producerEpoch, commit, apiVersion })
}

/** The produce verification of transactions v2: adds orders-`partition` to ID's transaction. */
function addVerified(rig: TxnRig, producerId: number, producerEpoch: number, partition = 0) {
  return rig.coordinator.verifyLocal({ transactionalId: ID, producerId, producerEpoch, topic: 'orders', partition, addPartition: true })
}

async function started(): Promise<TxnRig> {
  const rig = txnRig()
  await rig.electAll()
  return rig
}

describe('transaction coordinator: InitProducerId', () => {
  it('gives a new transactional id a producer id at epoch 0, persisted Empty before answering; again bumps the epoch', async () => {
    const rig = await started()
    const first = await init(rig)
    assert.deepEqual(first, { errorCode: 0, producerId: 1000, producerEpoch: 0 })
    assert.deepEqual(rig.log.statesOf(ID), [S.Empty])
    assert.equal(rig.log.last(ID)?.producerEpoch, 0)
    const second = await init(rig)
    assert.deepEqual(second, { errorCode: 0, producerId: 1000, producerEpoch: 1 })
    // The old producer is fenced.
    const fenced = await add(rig, 1000, 0)
    assert.ok(fenced.every((r) => r.errorCode === E('PRODUCER_FENCED')))
  })

  it('refuses an empty id, and a timeout outside (0, transaction.max.timeout.ms]', async () => {
    const rig = await started()
    assert.equal((await init(rig, '')).errorCode, E('INVALID_REQUEST'))
    assert.equal((await init(rig, ID, { transactionTimeoutMs: 0 })).errorCode, E('INVALID_TRANSACTION_TIMEOUT'))
    assert.equal((await init(rig, ID, { transactionTimeoutMs: 900_001 })).errorCode, E('INVALID_TRANSACTION_TIMEOUT'))
    assert.equal((await init(rig, ID, { transactionTimeoutMs: 900_000 })).errorCode, 0)
  })

  it('answers NOT_COORDINATOR for a partition not elected here, COORDINATOR_LOAD_IN_PROGRESS while it loads', async () => {
    const rig = txnRig()
    assert.equal((await init(rig)).errorCode, E('NOT_COORDINATOR'))
    let open!: () => void
    rig.log.loadGate = new Promise((resolve) => (open = resolve))
    const loading = rig.electAll()
    assert.equal((await init(rig)).errorCode, E('COORDINATOR_LOAD_IN_PROGRESS'))
    open()
    await loading
    assert.equal((await init(rig)).errorCode, 0)
  })

  it('KIP-360: the current id and epoch bump; a retry naming the last epoch gets the same epoch; an older one is PRODUCER_FENCED', async () => {
    const rig = await started()
    await init(rig) // epoch 0
    const bumped = await init(rig, ID, { producerId: 1000, producerEpoch: 0 })
    assert.deepEqual(bumped, { errorCode: 0, producerId: 1000, producerEpoch: 1 })
    const retry = await init(rig, ID, { producerId: 1000, producerEpoch: 0 })
    assert.deepEqual(retry, { errorCode: 0, producerId: 1000, producerEpoch: 1 })
    await init(rig) // a new producer: epoch 2, last epoch forgotten
    assert.equal((await init(rig, ID, { producerId: 1000, producerEpoch: 1 })).errorCode, E('PRODUCER_FENCED'))
    assert.equal((await init(rig, ID, { producerId: 55, producerEpoch: 2 })).errorCode, E('PRODUCER_FENCED'))
  })

  it('fences an ongoing transaction: aborts it with the bumped epoch, answers CONCURRENT_TRANSACTIONS until done, then bumps again', async () => {
    const rig = await started()
    await init(rig)
    await add(rig, 1000, 0)
    const r = await init(rig)
    assert.equal(r.errorCode, E('CONCURRENT_TRANSACTIONS'))
    await settle()
    assert.deepEqual(rig.log.statesOf(ID), [S.Empty, S.Ongoing, S.PrepareAbort, S.CompleteAbort])
    const abort = rig.markers.calls.at(-1)!
    assert.equal(abort.marker.commit, false)
    assert.equal(abort.marker.producerEpoch, 1, 'transactions v1: the fenced epoch')
    const after = await init(rig)
    assert.deepEqual(after, { errorCode: 0, producerId: 1000, producerEpoch: 2 })
    assert.equal((await end(rig, 1000, 0, true)).errorCode, E('PRODUCER_FENCED'))
  })

  it('moves to a new producer id at epoch 0 when the epoch is exhausted', async () => {
    const log = new MemoryTxnLog()
    log.seed(ID, { producerId: 77, producerEpoch: 32766, state: 'CompleteCommit', txnStartTimestamp: 1, txnLastUpdateTimestamp: 1 })
    const rig = txnRig({}, log)
    await rig.electAll()
    const r = await init(rig)
    assert.deepEqual(r, { errorCode: 0, producerId: 1000, producerEpoch: 0 })
    assert.equal(log.last(ID)?.previousProducerId, 77)
  })

  it('a failed write answers its mapped code and leaves nothing pending', async () => {
    const rig = await started()
    rig.log.failures.push('COORDINATOR_NOT_AVAILABLE')
    assert.equal((await init(rig)).errorCode, E('COORDINATOR_NOT_AVAILABLE'))
    assert.deepEqual(await init(rig), { errorCode: 0, producerId: 1000, producerEpoch: 0 })
  })
})

describe('transaction coordinator: AddPartitionsToTxn / AddOffsetsToTxn', () => {
  it('Empty → Ongoing with the partitions persisted; repeated adds of the same partitions write nothing', async () => {
    const rig = await started()
    await init(rig)
    const r = await add(rig, 1000, 0)
    assert.deepEqual(
      r.map((x) => x.errorCode),
      [0, 0],
    )
    assert.deepEqual(rig.log.statesOf(ID), [S.Empty, S.Ongoing])
    assert.deepEqual(rig.log.last(ID)?.transactionPartitions, [{ topic: 'orders', partitionIds: [0, 1] }])
    assert.equal(rig.log.last(ID)?.transactionStartTimestampMs, rig.clock.now())
    await add(rig, 1000, 0, [{ topic: 'orders', partitions: [1] }])
    assert.equal(rig.log.statesOf(ID).length, 2)
  })

  it('refuses unknown ids and producer ids, old epochs, unknown partitions and a concurrent transition', async () => {
    const rig = await started()
    assert.equal((await add(rig, 1, 0, undefined, 'nobody'))[0]!.errorCode, E('INVALID_PRODUCER_ID_MAPPING'))
    await init(rig)
    assert.equal((await add(rig, 999, 0))[0]!.errorCode, E('INVALID_PRODUCER_ID_MAPPING'))
    assert.equal((await add(rig, 1000, 5))[0]!.errorCode, E('PRODUCER_FENCED'))
    const unknown = await add(rig, 1000, 0, [
      { topic: 'missing', partitions: [0] },
      { topic: 'orders', partitions: [0] },
    ])
    assert.deepEqual(
      unknown.map((x) => x.errorCode),
      [E('UNKNOWN_TOPIC_OR_PARTITION'), E('OPERATION_NOT_ATTEMPTED')],
    )
    rig.log.hold()
    const first = add(rig, 1000, 0)
    await settle(2)
    assert.equal((await add(rig, 1000, 0, [{ topic: 'other', partitions: [0] }]))[0]!.errorCode, E('CONCURRENT_TRANSACTIONS'))
    rig.log.release()
    assert.equal((await first)[0]!.errorCode, 0)
  })

  it("AddOffsetsToTxn adds the group's __consumer_offsets partition", async () => {
    const rig = await started()
    await init(rig)
    assert.equal(await rig.coordinator.addOffsets({ transactionalId: ID, producerId: 1000, producerEpoch: 0, groupId: 'g' }), 0)
    assert.deepEqual(rig.log.last(ID)?.transactionPartitions, [{ topic: '__consumer_offsets', partitionIds: [7] }])
  })

  it('verification of a Produce request’s partitions together: added in one transition, each answered', async () => {
    const rig = await started()
    await init(rig)
    const q = { transactionalId: ID, producerId: 1000, producerEpoch: 0 }
    const partitions = [
      { topic: 'orders', partition: 2 },
      { topic: 'orders', partition: 0 },
      { topic: 'audit', partition: 1 },
    ]
    assert.deepEqual(await rig.coordinator.verifyLocalPartitions({ ...q, partitions, addPartition: false }), [
      E('TRANSACTION_ABORTABLE'),
      E('TRANSACTION_ABORTABLE'),
      E('TRANSACTION_ABORTABLE'),
    ])
    assert.deepEqual(await rig.coordinator.verifyLocalPartitions({ ...q, partitions, addPartition: true }), [0, 0, 0])
    assert.deepEqual(rig.log.statesOf(ID), [S.Empty, S.Ongoing], 'one write for the three partitions')
    const added = rig.log.last(ID)?.transactionPartitions ?? []
    assert.deepEqual(added.flatMap((t) => t.partitionIds.map((i) => `${t.topic}-${i}`)).sort(), ['audit-1', 'orders-0', 'orders-2'])
    assert.deepEqual(
      await rig.coordinator.verifyLocalPartitions({
        ...q,
        partitions: [...partitions, { topic: 'orders', partition: 5 }],
        addPartition: false,
      }),
      [0, 0, 0, E('TRANSACTION_ABORTABLE')],
    )
  })

  it('verification (KIP-890): verify-only answers TRANSACTION_ABORTABLE for a partition not in the transaction; adding puts it in (transactions v2)', async () => {
    const rig = await started()
    await init(rig)
    const q = { transactionalId: ID, producerId: 1000, producerEpoch: 0, topic: 'orders', partition: 3 }
    assert.equal(await rig.coordinator.verifyLocal({ ...q, addPartition: false }), E('TRANSACTION_ABORTABLE'))
    assert.equal(await rig.coordinator.verifyLocal({ ...q, addPartition: true }), 0)
    assert.equal(await rig.coordinator.verifyLocal({ ...q, addPartition: false }), 0)
    assert.equal(await rig.coordinator.verifyLocal({ ...q, producerEpoch: 3, addPartition: false }), E('PRODUCER_FENCED'))
    assert.equal(rig.log.last(ID)?.clientTransactionVersion, 2)
    const v4 = await rig.coordinator.addPartitions({
      transactionalId: ID,
      producerId: 1000,
      producerEpoch: 0,
      partitions: [{ topic: 'orders', partitions: [3, 4] }],
      verifyOnly: true,
      apiVersion: 5,
    })
    assert.deepEqual(
      v4.map((x) => x.errorCode),
      [0, E('TRANSACTION_ABORTABLE')],
    )
  })
})

describe('transaction coordinator: EndTxn, transactions v1', () => {
  it('commit: PrepareCommit persisted before the answer, markers at the same epoch and the coordinator epoch, then CompleteCommit', async () => {
    const rig = txnRig()
    await rig.electAll(5)
    await init(rig)
    await add(rig, 1000, 0)
    rig.log.hold()
    let answered = false
    const ending = end(rig, 1000, 0, true).then((r) => {
      answered = true
      return r
    })
    await settle()
    assert.equal(answered, false, 'not answered before PrepareCommit is durable')
    rig.log.release()
    assert.equal((await ending).errorCode, 0)
    await settle()
    assert.deepEqual(rig.log.statesOf(ID), [S.Empty, S.Ongoing, S.PrepareCommit, S.CompleteCommit])
    const call = rig.markers.calls.at(-1)!
    assert.deepEqual(call.marker, { producerId: 1000, producerEpoch: 0, coordinatorEpoch: 5, commit: true, transactionVersion: 0 })
    assert.deepEqual(
      call.partitions.map((p) => `${p.topic}-${p.partition}`),
      ['orders-0', 'orders-1'],
    )
    assert.deepEqual(rig.log.last(ID)?.transactionPartitions, [])
  })

  it('a repeated EndTxn of the finished outcome is NONE; the other outcome, or ending an empty transaction, INVALID_TXN_STATE', async () => {
    const rig = await started()
    await init(rig)
    assert.equal((await end(rig, 1000, 0, true)).errorCode, E('INVALID_TXN_STATE'))
    await add(rig, 1000, 0)
    await end(rig, 1000, 0, true)
    await settle()
    assert.equal((await end(rig, 1000, 0, true)).errorCode, 0)
    assert.equal((await end(rig, 1000, 0, false)).errorCode, E('INVALID_TXN_STATE'))
    assert.equal((await end(rig, 1000, 1, true)).errorCode, E('PRODUCER_FENCED'))
    assert.equal((await end(rig, 1001, 0, true)).errorCode, E('INVALID_PRODUCER_ID_MAPPING'))
  })

  it('markers are retried until every partition has one; CONCURRENT_TRANSACTIONS meanwhile; completion only after the last', async () => {
    const rig = await started()
    await init(rig)
    await add(rig, 1000, 0)
    rig.markers.script.set('orders:1', [E('NOT_LEADER_OR_FOLLOWER'), E('NOT_ENOUGH_REPLICAS')])
    assert.equal((await end(rig, 1000, 0, false)).errorCode, 0)
    await settle()
    assert.deepEqual(rig.log.statesOf(ID).at(-1), S.PrepareAbort)
    assert.equal((await end(rig, 1000, 0, false)).errorCode, E('CONCURRENT_TRANSACTIONS'))
    assert.equal((await add(rig, 1000, 0))[0]!.errorCode, E('CONCURRENT_TRANSACTIONS'))
    rig.clock.advance(100)
    await settle()
    assert.deepEqual(rig.log.statesOf(ID).at(-1), S.PrepareAbort)
    rig.clock.advance(100)
    await settle()
    assert.deepEqual(rig.log.statesOf(ID).at(-1), S.CompleteAbort)
    // Only the partition still missing its marker was asked again.
    assert.deepEqual(
      rig.markers.calls.map((c) => c.partitions.map((p) => p.partition)),
      [[0, 1], [1], [1]],
    )
  })

  it('a completion write that fails is retried as it is', async () => {
    const rig = await started()
    await init(rig)
    await add(rig, 1000, 0)
    rig.log.failures.push(null, 'COORDINATOR_NOT_AVAILABLE')
    await end(rig, 1000, 0, true)
    await settle()
    assert.equal(rig.log.statesOf(ID).at(-1), S.PrepareCommit)
    rig.clock.advance(100)
    await settle()
    assert.equal(rig.log.statesOf(ID).at(-1), S.CompleteCommit)
  })

  it('a completion write refused NOT_COORDINATOR is retried while the partition is still owned here, not once it is gone', async () => {
    const rig = await started()
    await init(rig)
    await add(rig, 1000, 0)
    // The log's leader refuses for a moment (its registration not known alive), twice.
    rig.log.failures.push(null, 'NOT_COORDINATOR', 'NOT_COORDINATOR')
    await end(rig, 1000, 0, true)
    await settle()
    assert.equal(rig.log.statesOf(ID).at(-1), S.PrepareCommit)
    for (let i = 0; i < 3; i++) {
      rig.clock.advance(100)
      await settle()
    }
    assert.equal(rig.log.statesOf(ID).at(-1), S.CompleteCommit)
    assert.deepEqual(
      (await add(rig, 1000, 0)).map((x) => x.errorCode),
      [0, 0],
      'the next transaction is not refused',
    )

    // Once the partition has moved away, a refusal ends it here (the next coordinator resumes it).
    const moved = await started()
    await init(moved)
    await add(moved, 1000, 0)
    moved.log.failures.push(null, 'NOT_COORDINATOR')
    await end(moved, 1000, 0, true)
    moved.coordinator.onResignation(moved.log.partitionFor(ID), 2)
    await settle()
    const written = moved.log.statesOf(ID).length
    moved.clock.advance(1000)
    await settle()
    assert.equal(moved.log.statesOf(ID).length, written, 'no completion written after the resignation')
    assert.equal(moved.log.statesOf(ID).at(-1), S.PrepareCommit)
  })

  it('stops writing markers when a partition leader fences this coordinator', async () => {
    const rig = await started()
    await init(rig)
    await add(rig, 1000, 0)
    rig.markers.script.set('orders:0', [E('TRANSACTION_COORDINATOR_FENCED')])
    await end(rig, 1000, 0, true)
    await settle()
    rig.clock.advance(1000)
    await settle()
    assert.equal(rig.markers.calls.length, 1)
    assert.equal(rig.log.statesOf(ID).at(-1), S.PrepareCommit)
  })
})

describe('transaction coordinator: EndTxn v5, transactions v2', () => {
  it('bumps the epoch at each EndTxn: the answer and the markers carry it; the old epoch is fenced afterwards', async () => {
    const rig = await started()
    await init(rig)
    await addVerified(rig, 1000, 0, 0)
    const r = await end(rig, 1000, 0, true, 5)
    assert.deepEqual(r, { errorCode: 0, producerId: 1000, producerEpoch: 1 })
    await settle()
    assert.equal(rig.markers.calls.at(-1)!.marker.producerEpoch, 1)
    assert.equal(rig.markers.calls.at(-1)!.marker.transactionVersion, 2)
    assert.equal(rig.log.last(ID)?.producerEpoch, 1)
    assert.equal(rig.log.last(ID)?.transactionStatus, S.CompleteCommit)
    // The retry of the completed EndTxn (old epoch) is NONE with the current id and epoch.
    assert.deepEqual(await end(rig, 1000, 0, true, 5), { errorCode: 0, producerId: 1000, producerEpoch: 1 })
    assert.equal((await end(rig, 1000, 0, false, 5)).errorCode, E('INVALID_TXN_STATE'))
    // A delayed write of the old transaction cannot join the next one.
    assert.equal(await addVerified(rig, 1000, 0, 0), E('PRODUCER_FENCED'))
    assert.equal(await addVerified(rig, 1000, 1, 0), 0)
    assert.deepEqual(await end(rig, 1000, 1, false, 5), { errorCode: 0, producerId: 1000, producerEpoch: 2 })
  })

  it('an empty abort right after a commit waits for the commit to complete (CONCURRENT_TRANSACTIONS), never fencing its own producer', async () => {
    const rig = await started()
    await init(rig)
    await addVerified(rig, 1000, 0, 0)
    rig.markers.script.set('orders:0', [E('NOT_LEADER_OR_FOLLOWER')])
    assert.deepEqual(await end(rig, 1000, 0, true, 5), { errorCode: 0, producerId: 1000, producerEpoch: 1 })
    await settle()
    // The commit's markers are not all written yet: the next transaction's abort waits.
    assert.equal((await end(rig, 1000, 1, false, 5)).errorCode, E('CONCURRENT_TRANSACTIONS'))
    rig.clock.advance(100)
    await settle()
    assert.deepEqual(await end(rig, 1000, 1, false, 5), { errorCode: 0, producerId: 1000, producerEpoch: 2 })
  })

  it('a commit at the retry epoch after the coordinator aborted the transaction itself is PRODUCER_FENCED', async () => {
    const rig = txnRig()
    await rig.electAll()
    await init(rig, ID, { transactionTimeoutMs: 1000 })
    await addVerified(rig, 1000, 0, 0)
    rig.clock.advance(10_000)
    await settle()
    assert.equal(rig.log.last(ID)?.transactionStatus, S.CompleteAbort)
    assert.equal((await end(rig, 1000, 0, true, 5)).errorCode, E('PRODUCER_FENCED'))
  })

  it('an abort with nothing added is accepted (epoch bump, no markers); a commit of it is INVALID_TXN_STATE', async () => {
    const rig = await started()
    await init(rig)
    assert.equal((await end(rig, 1000, 0, true, 5)).errorCode, E('INVALID_TXN_STATE'))
    assert.deepEqual(await end(rig, 1000, 0, false, 5), { errorCode: 0, producerId: 1000, producerEpoch: 1 })
    await settle()
    assert.equal(rig.markers.calls.length, 0)
    assert.equal(rig.log.last(ID)?.transactionStatus, S.CompleteAbort)
  })

  it('rotates to a new producer id when the bumped epoch would be exhausted; the retry is recognised', async () => {
    const log = new MemoryTxnLog()
    log.seed(ID, {
      producerId: 77,
      producerEpoch: 32766,
      state: 'Ongoing',
      partitions: new Set(['orders:0']),
      txnStartTimestamp: Date.now(),
      txnLastUpdateTimestamp: Date.now(),
      clientTransactionVersion: 2,
    })
    const rig = txnRig({}, log)
    rig.clock.advance(0)
    await rig.electAll()
    const r = await end(rig, 77, 32766, true, 5)
    assert.deepEqual(r, { errorCode: 0, producerId: 1000, producerEpoch: 0 })
    await settle()
    assert.equal(rig.markers.calls.at(-1)!.marker.producerEpoch, 32767)
    assert.equal(log.last(ID)?.producerId, 1000)
    assert.deepEqual(await end(rig, 77, 32766, true, 5), { errorCode: 0, producerId: 1000, producerEpoch: 0 })
  })
})

describe('transaction coordinator: timeouts, expiry', () => {
  it('aborts a transaction running longer than its timeout with a fenced epoch; the producer is fenced', async () => {
    const rig = await started()
    await init(rig, ID, { transactionTimeoutMs: 5000 })
    await add(rig, 1000, 0)
    rig.clock.advance(4000)
    await settle()
    assert.equal(rig.log.statesOf(ID).at(-1), S.Ongoing)
    rig.clock.advance(10_000) // the check runs every 10 s
    await settle()
    assert.deepEqual(rig.log.statesOf(ID).slice(-2), [S.PrepareAbort, S.CompleteAbort])
    const marker = rig.markers.calls.at(-1)!.marker
    assert.equal(marker.commit, false)
    // Fenced (0 → 1); the abort carries the fence's epoch, not bumped again (KAFKA-19367).
    assert.equal(marker.producerEpoch, 1)
    assert.equal(rig.log.last(ID)?.producerEpoch, 1)
    assert.equal((await end(rig, 1000, 0, true)).errorCode, E('PRODUCER_FENCED'))
    assert.equal((await add(rig, 1000, 0))[0]!.errorCode, E('PRODUCER_FENCED'))
  })

  it('forgets an id idle for transactional.id.expiration.ms with a tombstone', async () => {
    const rig = txnRig({ transactionalIdExpirationMs: 60_000, removeExpiredTransactionalIdsIntervalMs: 30_000 })
    await rig.electAll()
    await init(rig)
    rig.clock.advance(30_000)
    await settle()
    assert.equal(rig.coordinator.describe([ID])[0]!.errorCode, 0)
    rig.clock.advance(30_000)
    await settle()
    assert.deepEqual(rig.log.statesOf(ID), [S.Empty, null])
    assert.equal(rig.coordinator.describe([ID])[0]!.errorCode, E('TRANSACTIONAL_ID_NOT_FOUND'))
  })

  it('close() stops the timers: nothing is aborted afterwards', async () => {
    const rig = await started()
    await init(rig, ID, { transactionTimeoutMs: 1000 })
    await add(rig, 1000, 0)
    rig.coordinator.close()
    rig.clock.advance(60_000)
    await settle()
    assert.equal(rig.log.statesOf(ID).at(-1), S.Ongoing)
    assert.equal((await init(rig)).errorCode, E('NOT_COORDINATOR'))
  })
})

describe('transaction coordinator: failover', () => {
  it('a new coordinator loads the partition and resumes a PrepareCommit: markers with its own epoch, then CompleteCommit', async () => {
    const rig = await started()
    await init(rig)
    await add(rig, 1000, 0)
    rig.markers.script.set('orders:0', [E('NOT_LEADER_OR_FOLLOWER')])
    await end(rig, 1000, 0, true)
    await settle()
    // The old coordinator loses the partition before its markers are all written.
    const partition = rig.log.partitionFor(ID)
    rig.coordinator.onResignation(partition, 2)
    assert.equal((await end(rig, 1000, 0, true)).errorCode, E('NOT_COORDINATOR'))
    rig.clock.advance(1000)
    await settle()
    assert.equal(rig.log.statesOf(ID).at(-1), S.PrepareCommit, 'the resigned coordinator stops')
    const callsBefore = rig.markers.calls.length
    const next = rig.newCoordinator()
    await next.onElection(partition, 3)
    await settle()
    assert.equal(rig.log.statesOf(ID).at(-1), S.CompleteCommit)
    const resumed = rig.markers.calls.slice(callsBefore)
    assert.equal(resumed.length, 1)
    assert.equal(resumed[0]!.marker.coordinatorEpoch, 3)
    assert.equal(resumed[0]!.marker.commit, true)
    assert.deepEqual(resumed[0]!.partitions.map((p) => p.partition).sort(), [0, 1])
    assert.deepEqual(next.describe([ID])[0]!.transactionState, 'CompleteCommit')
    next.close()
  })

  it('the loaded state answers as before: the next InitProducerId bumps the stored epoch; an older election or resignation is ignored', async () => {
    const rig = await started()
    await init(rig)
    await init(rig) // epoch 1
    const partition = rig.log.partitionFor(ID)
    const next = rig.newCoordinator()
    await next.onElection(partition, 4)
    next.onResignation(partition, 3)
    assert.deepEqual(
      await next.initProducerId({ transactionalId: ID, transactionTimeoutMs: 1000, producerId: -1, producerEpoch: -1, apiVersion: 4 }),
      {
        errorCode: 0,
        producerId: 1000,
        producerEpoch: 2,
      },
    )
    next.close()
  })
})

describe('transaction coordinator: DescribeTransactions, ListTransactions', () => {
  it('describes a transaction with its partitions; unknown ids are TRANSACTIONAL_ID_NOT_FOUND', async () => {
    const rig = await started()
    await init(rig)
    await add(rig, 1000, 0)
    const [d, missing, empty] = rig.coordinator.describe([ID, 'nobody', ''])
    assert.equal(d!.errorCode, 0)
    assert.equal(d!.transactionState, 'Ongoing')
    assert.equal(d!.producerId, 1000)
    assert.equal(d!.transactionTimeoutMs, 60_000)
    assert.equal(d!.transactionStartTimeMs, rig.clock.now())
    assert.deepEqual(d!.topics, [{ topic: 'orders', partitions: [0, 1] }])
    assert.equal(missing!.errorCode, E('TRANSACTIONAL_ID_NOT_FOUND'))
    assert.equal(empty!.errorCode, E('INVALID_REQUEST'))
  })

  it('lists with state, producer id, duration and pattern filters; unknown states are reported; a bad pattern is INVALID_REGULAR_EXPRESSION', async () => {
    const rig = await started()
    await init(rig, 'app-a')
    await init(rig, 'app-b')
    await init(rig, 'other')
    await add(rig, 1000, 0, undefined, 'app-a')
    rig.clock.advance(5000)
    const all: ListTransactionsFilter = { states: [], producerIds: [], durationFilterMs: -1, transactionalIdPattern: null }
    const ids = (f: Partial<ListTransactionsFilter>) =>
      rig.coordinator
        .list({ ...all, ...f })
        .transactions.map((t) => t.transactionalId)
        .sort()
    assert.deepEqual(ids({}), ['app-a', 'app-b', 'other'])
    assert.deepEqual(ids({ states: ['Ongoing'] }), ['app-a'])
    assert.deepEqual(ids({ producerIds: [1001] }), ['app-b'])
    assert.deepEqual(ids({ transactionalIdPattern: 'app-.*' }), ['app-a', 'app-b'])
    assert.deepEqual(ids({ transactionalIdPattern: 'app' }), [], 'the whole id must match')
    assert.deepEqual(ids({ states: ['Ongoing'], durationFilterMs: 4000 }), ['app-a'])
    assert.deepEqual(ids({ states: ['Ongoing'], durationFilterMs: 6000 }), [])
    const unknown = rig.coordinator.list({ ...all, states: ['Ongoing', 'Bogus'] })
    assert.deepEqual(unknown.unknownStateFilters, ['Bogus'])
    assert.equal(rig.coordinator.list({ ...all, transactionalIdPattern: '(' }).errorCode, E('INVALID_REGULAR_EXPRESSION'))
  })
})
