// Transactional offsets on `__consumer_offsets` (coordinator/group/offsets-topic.ts): what
// storeTxnOffsets writes (a transactional batch of the producer, base sequence -1, appended as the
// coordinator's), how a load hands transactional records and control batches (transaction
// markers, written into the log here with the record builder as the transaction coordinator
// would) to the sink, and a group coordinator loading such a log: committed, aborted and still
// pending transactions, with a plain commit written between a transaction and its marker.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { DEFAULT_GROUP_COORDINATOR_CONFIG, GroupCoordinator } from '../../../../src/coordinator/group/group-coordinator.js'
import { OFFSETS_TOPIC, OffsetsTopicPersistence } from '../../../../src/coordinator/group/offsets-topic.js'
import type { CommittedOffset, LoadSink } from '../../../../src/coordinator/group/persistence.js'
import type { AppendPolicy, HostedReplica, ReplicaService } from '../../../../src/ports/replicas.js'
import { ErrorCode, KafkaError } from '../../../../src/protocol/errors.js'
import { CONTROL_MASK, TRANSACTIONAL_MASK } from '../../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../../src/protocol/records/builder.js'
import { iterateBatches } from '../../../../src/protocol/records/iterator.js'
import { ManualClock } from '../../../../src/util/clock.js'
import { silentLogger } from '../../../../src/util/logger.js'
import { type LocalBroker, offsetsTopicOn, openLocalBroker } from '../../../helpers/local-broker.js'

type TestLike = { after(fn: () => Promise<void> | void): void }

// 'group-1' lives in partition 49 of 50 (Kafka's abs(javaHash) % 50), 'my-group' in 12.
const GROUP = 'group-1'
const PARTITION = 49

async function setup(t: TestLike): Promise<{ node: LocalBroker; clock: ManualClock; p: OffsetsTopicPersistence }> {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-txn-offsets-'))
  const clock = new ManualClock(1_700_000_000_000)
  const node = await openLocalBroker(dir, { clock })
  t.after(async () => {
    await node.close().catch(() => {})
    await rm(dir, { recursive: true, force: true })
  })
  return { node, clock, p: offsetsTopicOn(node, clock) }
}

const offset = (o: number): CommittedOffset => ({
  offset: o,
  leaderEpoch: 0,
  metadata: `m${o}`,
  commitTimestampMs: 1_700_000_000_000,
  expireTimestampMs: -1,
})

/**
 * A transaction marker as the transaction coordinator writes it: a control batch of the producer
 * with one record, key = int16 version 0 + int16 type (0 ABORT, 1 COMMIT, others not markers),
 * value = int16 version 0 + int32 coordinator epoch.
 */
async function writeControl(node: LocalBroker, producerId: number, producerEpoch: number, type: number): Promise<void> {
  const key = Buffer.alloc(4)
  key.writeInt16BE(0, 0)
  key.writeInt16BE(type, 2)
  const value = Buffer.alloc(6)
  value.writeInt16BE(0, 0)
  value.writeInt32BE(3, 2)
  const batch = buildRecordBatch({
    producerId,
    producerEpoch,
    baseSequence: -1,
    attributes: TRANSACTIONAL_MASK | CONTROL_MASK,
    baseTimestamp: 1_700_000_000_000,
    records: [{ key, value }],
  })
  const part = node.replicas.require(OFFSETS_TOPIC, PARTITION)
  await node.replicas.get(OFFSETS_TOPIC, PARTITION)!.log.append(batch, [...iterateBatches(batch)], part.leaderEpoch)
}

type Event = string

async function replayed(p: OffsetsTopicPersistence): Promise<Event[]> {
  const events: Event[] = []
  const sink: LoadSink = {
    group: (g) => events.push(`group ${g}`),
    offset: (g, t, part, v, at) => events.push(`offset@${at} ${g} ${t}-${part}=${v?.offset ?? 'null'}`),
    txnOffset: (pid, g, t, part, v, at) => events.push(`txn@${at} pid=${pid} ${g} ${t}-${part}=${v.offset}`),
    txnMarker: (pid, commit) => events.push(`marker pid=${pid} ${commit ? 'COMMIT' : 'ABORT'}`),
  }
  await p.loadPartition(PARTITION, sink)
  return events
}

describe('OffsetsTopicPersistence: transactional offsets', () => {
  it('writes a TxnOffsetCommit as one transactional batch of the producer, base sequence -1, resolving with its offset', async (t) => {
    const { node, p } = await setup(t)
    assert.equal(await p.storeOffsets(GROUP, [{ topic: 'orders', partition: 0, value: offset(1) }]), 0)
    const base = await p.storeTxnOffsets(GROUP, { producerId: 77, producerEpoch: 4 }, [
      { topic: 'orders', partition: 0, value: offset(2) },
      { topic: 'orders', partition: 1, value: offset(3) },
    ])
    assert.equal(base, 1)
    const part = node.replicas.require(OFFSETS_TOPIC, PARTITION)
    const { records } = await node.replicas.read(part, 0, 1 << 20, true)
    const batches = [...iterateBatches(records)].map((b) => ({
      baseOffset: b.baseOffset,
      recordCount: b.recordCount,
      producerId: b.producerId,
      producerEpoch: b.producerEpoch,
      baseSequence: b.baseSequence,
      isTransactional: b.isTransactional,
      isControl: b.isControl,
    }))
    assert.deepEqual(batches, [
      { baseOffset: 0, recordCount: 1, producerId: -1, producerEpoch: -1, baseSequence: -1, isTransactional: false, isControl: false },
      { baseOffset: 1, recordCount: 2, producerId: 77, producerEpoch: 4, baseSequence: -1, isTransactional: true, isControl: false },
    ])
  })

  it('appends with origin coordinator, and answers the producer’s refusals as they are', async () => {
    const policies: AppendPolicy[] = []
    let fail: KafkaError | null = null
    const replicas: Pick<ReplicaService, 'require' | 'append'> = {
      require: () => ({ topic: OFFSETS_TOPIC, index: 0 }) as unknown as HostedReplica,
      append: async (_p, _records, _max, policy) => {
        policies.push(policy!)
        if (fail) throw fail
        return { baseOffset: 40, logAppendTimeMs: -1, logStartOffset: 0 }
      },
    }
    const topic = { name: OFFSETS_TOPIC, topicId: 'x', partitions: 1, replicationFactor: 1, configs: {}, createdMs: 0 }
    const p = new OffsetsTopicPersistence({
      topics: {
        get: () => topic,
        create: async () => topic,
        effectiveConfig: () => ({ 'max.message.bytes': 1 << 20, 'min.insync.replicas': 1 }) as never,
      },
      replicas,
      numPartitions: 1,
      replicationFactor: 1,
      segmentBytes: 1 << 20,
      clock: new ManualClock(),
      logger: silentLogger,
    })
    const entries = [{ topic: 't', partition: 0, value: offset(1) }]
    assert.equal(await p.storeTxnOffsets('g', { producerId: 1, producerEpoch: 0 }, entries), 40)
    assert.equal(await p.storeOffsets('g', entries), 40)
    assert.deepEqual(
      policies.map((x) => x.origin),
      ['coordinator', 'client'],
    )
    const rejectsWith = (name: string) => (e: unknown) => e instanceof KafkaError && e.errorName === name
    for (const name of ['INVALID_PRODUCER_EPOCH', 'PRODUCER_FENCED', 'INVALID_TXN_STATE'] as const) {
      fail = new KafkaError(name, 'refused by the log')
      await assert.rejects(p.storeTxnOffsets('g', { producerId: 1, producerEpoch: 0 }, entries), rejectsWith(name))
      await assert.rejects(p.storeOffsets('g', entries), rejectsWith('UNKNOWN_SERVER_ERROR'), 'a plain commit maps it as before')
    }
    fail = new KafkaError('NOT_LEADER_OR_FOLLOWER', 'moved')
    await assert.rejects(p.storeTxnOffsets('g', { producerId: 1, producerEpoch: 0 }, entries), rejectsWith('NOT_COORDINATOR'))
  })

  it('replays transactional records as pending and control batches as markers, in log order', async (t) => {
    const { node, p } = await setup(t)
    await p.storeOffsets(GROUP, [{ topic: 'orders', partition: 0, value: offset(1) }]) // @0
    await p.storeTxnOffsets(GROUP, { producerId: 10, producerEpoch: 0 }, [{ topic: 'orders', partition: 0, value: offset(5) }]) // @1
    await p.storeTxnOffsets(GROUP, { producerId: 11, producerEpoch: 2 }, [{ topic: 'orders', partition: 1, value: offset(6) }]) // @2
    await writeControl(node, 10, 0, 1) // @3 COMMIT
    await writeControl(node, 11, 2, 2) // @4 a control record that is not a marker: skipped
    await p.storeOffsets(GROUP, [{ topic: 'orders', partition: 1, value: null }]) // @5
    await writeControl(node, 11, 2, 0) // @6 ABORT
    assert.deepEqual(await replayed(p), [
      'offset@0 group-1 orders-0=1',
      'txn@1 pid=10 group-1 orders-0=5',
      'txn@2 pid=11 group-1 orders-1=6',
      'marker pid=10 COMMIT',
      'offset@5 group-1 orders-1=null',
      'marker pid=11 ABORT',
    ])
  })

  it('the same producer’s next transaction, after its marker, is written and replayed as pending again', async (t) => {
    const { node, p } = await setup(t)
    const producer = { producerId: 30, producerEpoch: 1 }
    await p.storeTxnOffsets(GROUP, producer, [{ topic: 'orders', partition: 0, value: offset(1) }]) // @0
    await writeControl(node, 30, 1, 1) // @1
    await p.storeTxnOffsets(GROUP, producer, [{ topic: 'orders', partition: 0, value: offset(2) }]) // @2
    await p.storeTxnOffsets(GROUP, producer, [{ topic: 'orders', partition: 1, value: offset(3) }]) // @3: same transaction
    assert.deepEqual(await replayed(p), [
      'txn@0 pid=30 group-1 orders-0=1',
      'marker pid=30 COMMIT',
      'txn@2 pid=30 group-1 orders-0=2',
      'txn@3 pid=30 group-1 orders-1=3',
    ])
  })

  it('a coordinator loading the log: committed transactions replace older commits, aborted ones vanish, open ones stay pending', async (t) => {
    const { node, clock, p } = await setup(t)
    const write = (pid: number, part: number, o: number) =>
      p.storeTxnOffsets(GROUP, { producerId: pid, producerEpoch: 0 }, [{ topic: 'orders', partition: part, value: offset(o) }])
    await p.storeOffsets(GROUP, [
      { topic: 'orders', partition: 0, value: offset(1) },
      { topic: 'orders', partition: 1, value: offset(1) },
      { topic: 'orders', partition: 2, value: offset(1) },
    ])
    await write(20, 0, 50) // committed below: replaces 1
    await write(21, 1, 60) // aborted below: 1 stays
    await write(22, 2, 70) // committed below, but a plain commit written after it wins
    await write(23, 3, 80) // no marker: pending
    await p.storeOffsets(GROUP, [{ topic: 'orders', partition: 2, value: offset(9) }])
    await writeControl(node, 20, 0, 1)
    await writeControl(node, 21, 0, 0)
    await writeControl(node, 22, 0, 1)

    const coordinator = new GroupCoordinator({
      clock,
      logger: silentLogger,
      persistence: offsetsTopicOn(node, clock),
      config: DEFAULT_GROUP_COORDINATOR_CONFIG,
    })
    t.after(() => coordinator.close())
    await coordinator.onElection(PARTITION, 0)
    const fetch = (requireStable: boolean) =>
      coordinator
        .fetchOffsets(GROUP, [{ name: 'orders', partitions: [0, 1, 2, 3] }], requireStable)
        .topics[0]!.partitions.map((r) => [r.committedOffset, r.errorCode])
    const unstable = ErrorCode.UNSTABLE_OFFSET_COMMIT.code
    assert.deepEqual(fetch(false), [
      [50, 0],
      [1, 0],
      [9, 0],
      [-1, 0],
    ])
    assert.deepEqual(fetch(true), [
      [50, 0],
      [1, 0],
      [9, 0],
      [-1, unstable],
    ])
    // Its marker arrives as the transaction coordinator writes it: through the replica, then the
    // group coordinator is told.
    const marker = { producerId: 23, producerEpoch: 0, coordinatorEpoch: 0, commit: true, transactionVersion: 0 }
    await node.replicas.writeTxnMarker(node.replicas.require(OFFSETS_TOPIC, PARTITION), marker, 5000)
    coordinator.completeTransaction(PARTITION, 23, true)
    assert.deepEqual(fetch(true)[3], [80, 0])
    // And a new coordinator of the partition agrees.
    const next = new GroupCoordinator({
      clock,
      logger: silentLogger,
      persistence: offsetsTopicOn(node, clock),
      config: DEFAULT_GROUP_COORDINATOR_CONFIG,
    })
    t.after(() => next.close())
    await next.onElection(PARTITION, 1)
    assert.deepEqual(
      next.fetchOffsets(GROUP, null, true).topics[0]!.partitions.map((r) => [r.partitionIndex, r.committedOffset, r.errorCode]),
      [
        [0, 50, 0],
        [1, 1, 0],
        [2, 9, 0],
        [3, 80, 0],
      ],
    )
  })
})
