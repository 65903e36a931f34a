// read_committed through the handlers over a real broker core (test/helpers/local-broker.ts): Fetch
// with isolation_level 1 stops at the last stable offset and lists the aborted transactions its
// batches overlap, read_uncommitted answers null and the same LSO; ListOffsets isolation_level 1
// answers LATEST with the LSO and finds no record at or past it by timestamp. Markers are written
// with ReplicaManager.writeTxnMarker, whose refusals are checked here too.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Controller } from '../../../src/cluster/controller.js'
import fetch from '../../../src/handlers/01-fetch.js'
import listOffsets from '../../../src/handlers/02-list-offsets.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import type { TxnMarker } from '../../../src/ports/transactions.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import { TRANSACTIONAL_MASK } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { iterateBatches } from '../../../src/protocol/records/iterator.js'
import type { Partition, ReplicaManager } from '../../../src/replication/replica-manager.js'
import { silentLogger } from '../../../src/util/logger.js'
import { callHandler, openLocalBroker } from '../../helpers/local-broker.js'

const TS = 1_700_000_000_000

function batch(pid: number, seq: number, n: number, ts: number, transactional: boolean): Buffer {
  return buildRecordBatch({
    baseTimestamp: ts,
    producerId: pid,
    producerEpoch: pid < 0 ? -1 : 0,
    baseSequence: pid < 0 ? -1 : seq,
    attributes: transactional ? TRANSACTIONAL_MASK : 0,
    records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`p${pid}-${i}`), timestamp: ts + i })),
  })
}

const markerOf = (producerId: number, commit: boolean, extra: Partial<TxnMarker> = {}): TxnMarker => ({
  producerId,
  producerEpoch: 0,
  coordinatorEpoch: 0,
  commit,
  transactionVersion: 0,
  ...extra,
})

async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (err) {
    if (err instanceof KafkaError) return err.errorName
    throw err
  }
  return 'NONE'
}

describe('read_committed: Fetch and ListOffsets', () => {
  let dir: string
  let replicas: ReplicaManager
  let controller: Controller
  let services: BrokerServices
  let closeCore: () => Promise<void>
  let p: Partition

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-read-committed-'))
    const core = await openLocalBroker(dir, { replicaOptions: { minInsyncReplicas: (t) => (t === 'strict' ? 2 : 1) } })
    ;({ replicas, controller } = core)
    closeCore = core.close
    services = {
      nodeId: 0,
      clock: core.clock,
      logger: silentLogger,
      settings: { messageMaxBytes: 1048588, fetchMaxBytes: 1 << 20, autoCreateTopics: false, deleteTopicEnable: true },
      topics: controller,
      replicas,
      configs: core.configs,
    } as unknown as BrokerServices
    for (const name of ['txn', 'strict']) {
      await controller.create({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }, false)
    }
    p = replicas.require('txn', 0)
    await replicas.append(p, batch(-1, 0, 1, TS, false), 1 << 20) // 0
    await replicas.append(p, batch(1, 0, 2, TS + 10, true), 1 << 20) // 1-2: aborted below
    await replicas.append(p, batch(2, 0, 1, TS + 20, true), 1 << 20) // 3: open
    await replicas.writeTxnMarker(p, markerOf(1, false), 1_000) // 4
    await replicas.append(p, batch(-1, 0, 1, TS + 30, false), 1 << 20) // 5
  })

  after(async () => {
    await closeCore()
    await rm(dir, { recursive: true, force: true })
  })

  const fetchAt = (isolationLevel: number, fetchOffset: number) =>
    callHandler(services, fetch, 12, {
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      isolationLevel,
      topics: [{ topic: 'txn', partitions: [{ partition: 0, fetchOffset, partitionMaxBytes: 1 << 20 }] }],
    }).then((r) => r.responses[0]!.partitions[0]!)

  const listAt = (version: number, isolationLevel: number, timestamp: number) =>
    callHandler(services, listOffsets, version, {
      replicaId: -1,
      isolationLevel,
      topics: [{ name: 'txn', partitions: [{ partitionIndex: 0, timestamp }] }],
    }).then((r) => r.topics[0]!.partitions[0]!)

  it('Fetch read_committed: up to the LSO, with the aborted transactions', async () => {
    const r = await fetchAt(1, 0)
    assert.equal(r.errorCode, 0)
    assert.equal(r.highWatermark, 6)
    assert.equal(r.lastStableOffset, 3)
    assert.deepEqual(r.abortedTransactions, [{ producerId: 1, firstOffset: 1 }])
    assert.deepEqual(
      [...iterateBatches(r.records as Buffer)].map((h) => h.baseOffset),
      [0, 1],
    )
    const past = await fetchAt(1, 3)
    assert.equal((past.records as Buffer).length, 0)
    assert.deepEqual(past.abortedTransactions, [])
  })

  it('Fetch read_uncommitted: up to the HW, aborted transactions null, the real LSO', async () => {
    const r = await fetchAt(0, 0)
    assert.equal(r.lastStableOffset, 3)
    assert.equal(r.abortedTransactions, null)
    assert.deepEqual(
      [...iterateBatches(r.records as Buffer)].map((h) => h.baseOffset),
      [0, 1, 3, 4, 5],
    )
  })

  it('ListOffsets: LATEST is the LSO for read_committed, the HW otherwise; timestamps find nothing past the LSO', async () => {
    assert.equal((await listAt(2, 1, -1)).offset, 3)
    assert.equal((await listAt(2, 0, -1)).offset, 6)
    assert.equal((await listAt(4, 1, TS + 10)).offset, 1)
    assert.deepEqual(await listAt(4, 1, TS + 20), { partitionIndex: 0, errorCode: 0, timestamp: -1, offset: -1, leaderEpoch: -1 })
    assert.equal((await listAt(4, 0, TS + 20)).offset, 3)
    assert.equal((await listAt(7, 1, -3)).offset, -1, 'the largest timestamp is at 5, past the LSO')
    assert.equal((await listAt(7, 0, -3)).offset, 5)
  })

  it('startTxnVerification: nothing to verify at the open transaction epoch; a newer one is verified, or waits for the marker at v12', async () => {
    assert.equal(replicas.startTxnVerification(p, 2, 1, 0, true), false)
    assert.equal(replicas.startTxnVerification(p, 2, 0, 1, false), true, 'transactions v1: the coordinator decides')
    assert.equal(
      await errorOf(Promise.resolve().then(() => replicas.startTxnVerification(p, 2, 0, 1, true))),
      'NOT_ENOUGH_REPLICAS',
      'transactions v2: the previous transaction marker is not written yet (KAFKA-18575)',
    )
    assert.equal(replicas.startTxnVerification(p, 3, 0, 0, true), true, 'a producer without state')
  })

  it('writeTxnMarker: epochs fenced as Kafka, min.insync.replicas, leaders only; the LSO then reaches the HW', async () => {
    assert.ok(replicas.hasOngoingTransaction(p, 2, 0))
    assert.equal(replicas.hasOngoingTransaction(p, 1, 0), false)
    assert.equal(replicas.hasOngoingTransaction(p, 2, 1), false, 'not at another epoch')
    assert.equal(
      await errorOf(replicas.writeTxnMarker(p, markerOf(2, true, { producerEpoch: 0, transactionVersion: 2 }), 1_000)),
      'INVALID_PRODUCER_EPOCH',
    )
    await replicas.writeTxnMarker(p, markerOf(2, true, { coordinatorEpoch: 4 }), 1_000) // 6
    assert.equal(replicas.hasOngoingTransaction(p, 2, 0), false)
    await replicas.append(p, batch(2, 1, 1, TS + 40, true), 1 << 20) // 7
    assert.equal(
      await errorOf(replicas.writeTxnMarker(p, markerOf(2, false, { coordinatorEpoch: 3 }), 1_000)),
      'TRANSACTION_COORDINATOR_FENCED',
    )
    assert.equal(
      await errorOf(replicas.writeTxnMarker(p, markerOf(2, false, { producerEpoch: -1, coordinatorEpoch: 4 }), 1_000)),
      'INVALID_PRODUCER_EPOCH',
    )
    await replicas.writeTxnMarker(p, markerOf(2, false, { coordinatorEpoch: 4 }), 1_000) // 8
    const r = await fetchAt(1, 0)
    assert.equal(r.lastStableOffset, 9)
    assert.equal(r.highWatermark, 9)
    assert.deepEqual(r.abortedTransactions, [
      { producerId: 1, firstOffset: 1 },
      { producerId: 2, firstOffset: 7 },
    ])
    assert.equal((await listAt(2, 1, -1)).offset, 9)
    assert.equal(await errorOf(replicas.writeTxnMarker(replicas.require('strict', 0), markerOf(5, true), 1_000)), 'NOT_ENOUGH_REPLICAS')
    const follower = await replicas.createPartition('elsewhere', 0, 'id-elsewhere')
    assert.equal(await errorOf(replicas.writeTxnMarker(follower, markerOf(5, true), 1_000)), 'NOT_LEADER_OR_FOLLOWER')
  })
})
