// `__transaction_state`: the records (Kafka's TransactionLogKey v0 / TransactionLogValue v0–1 with
// their version prefixes, tombstones), the state machine's legal transitions, and the topic over a
// real replica manager — created on first use with Kafka's configs for it, an id placed by
// abs(javaHash(id)) % partitions, writes replayed in order with tombstones, the errors Kafka's
// coordinator answers when the write cannot be made.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { TRANSACTION_STATE_TOPIC, TransactionStateTopic, mapStoreError } from '../../../../src/coordinator/txn/txn-log.js'
import { IllegalTxnTransition, TxnMetadata } from '../../../../src/coordinator/txn/txn-metadata.js'
import {
  decodeTxnKey,
  decodeTxnValue,
  encodeTxnKey,
  encodeTxnValue,
  type TxnLogValue,
} from '../../../../src/coordinator/txn/txn-records.js'
import { KafkaError } from '../../../../src/protocol/errors.js'
import { ManualClock } from '../../../../src/util/clock.js'
import { silentLogger } from '../../../../src/util/logger.js'
import { openLocalBroker } from '../../../helpers/local-broker.js'

const VALUE: TxnLogValue = {
  producerId: 4242,
  previousProducerId: 17,
  nextProducerId: -1,
  producerEpoch: 3,
  nextProducerEpoch: -1,
  transactionTimeoutMs: 60_000,
  transactionStatus: 1,
  transactionPartitions: [{ topic: 'orders', partitionIds: [0, 2] }],
  transactionLastUpdateTimestampMs: 1_700_000_000_123,
  transactionStartTimestampMs: 1_700_000_000_100,
  clientTransactionVersion: 2,
}

describe('transaction log records', () => {
  it('key: int16 version 0 then the id as an int16-length string', () => {
    const key = encodeTxnKey('tx')
    assert.equal(key.toString('hex'), `00000002${Buffer.from('tx').toString('hex')}`)
    assert.equal(decodeTxnKey(key), 'tx')
  })

  it('value v1 round-trips with its tagged fields; v0 lays the fields out as Kafka’s schema, without them', () => {
    const v1 = encodeTxnValue(VALUE)
    assert.equal(v1.readInt16BE(0), 1)
    assert.deepEqual(decodeTxnValue(v1), VALUE)
    const v0 = encodeTxnValue(VALUE, 0)
    assert.equal(v0.readInt16BE(0), 0)
    // version, producerId int64, producerEpoch int16, timeout int32, status int8, then the partitions array.
    assert.equal(Number(v0.readBigInt64BE(2)), 4242)
    assert.equal(v0.readInt16BE(10), 3)
    assert.equal(v0.readInt32BE(12), 60_000)
    assert.equal(v0.readInt8(16), 1)
    assert.equal(v0.readInt32BE(17), 1, 'one topic')
    const back = decodeTxnValue(v0)!
    assert.equal(back.previousProducerId, -1)
    assert.equal(back.clientTransactionVersion, 0)
    assert.deepEqual(back.transactionPartitions, VALUE.transactionPartitions)
  })

  it('a null value is a tombstone; unknown versions and short bytes are refused', () => {
    assert.equal(decodeTxnValue(null), null)
    assert.throws(() => decodeTxnValue(Buffer.from([0, 9, 0])), /version 9/)
    assert.throws(() => decodeTxnValue(Buffer.from([0])), /shorter/)
    assert.throws(() => decodeTxnKey(Buffer.from([0, 1, 0, 0])), /key version 1/)
    assert.throws(() => decodeTxnKey(null), /no key/)
  })
})

describe('transaction metadata transitions', () => {
  const fresh = () =>
    new TxnMetadata('t', {
      producerId: 1,
      prevProducerId: -1,
      nextProducerId: -1,
      producerEpoch: 0,
      lastProducerEpoch: -1,
      txnTimeoutMs: 1000,
      state: 'Empty',
      partitions: new Set(),
      txnStartTimestamp: -1,
      txnLastUpdateTimestamp: 0,
      clientTransactionVersion: 0,
    })

  it('refuses illegal transitions and a second transition while one is pending', () => {
    const m = fresh()
    assert.throws(() => m.prepareAbortOrCommit('PrepareCommit', 0, -1, 1, false), IllegalTxnTransition)
    assert.throws(() => m.prepareFenceProducerEpoch(), IllegalTxnTransition)
    const t = m.prepareAddPartitions(['a:0'], 5, 0)
    assert.throws(() => m.prepareAddPartitions(['a:1'], 6, 0), /pending/)
    assert.equal(m.state, 'Empty', 'nothing changes before the transit is completed')
    m.completeTransitionTo(t)
    assert.equal(m.state, 'Ongoing')
    assert.equal(m.txnStartTimestamp, 5)
    assert.throws(() => m.prepareDead(), IllegalTxnTransition)
    assert.throws(() => m.completeTransitionTo(t), /completing Ongoing while nothing/)
  })

  it('transactions v2 bump the epoch at PrepareCommit; v1 keeps it', () => {
    const v1 = fresh()
    v1.completeTransitionTo(v1.prepareAddPartitions(['a:0'], 5, 0))
    assert.equal(v1.prepareAbortOrCommit('PrepareCommit', 0, -1, 6, false).producerEpoch, 0)
    const v2 = fresh()
    v2.completeTransitionTo(v2.prepareAddPartitions(['a:0'], 5, 2))
    const t = v2.prepareAbortOrCommit('PrepareCommit', 2, -1, 6, false)
    assert.equal(t.producerEpoch, 1)
    assert.equal(t.lastProducerEpoch, 0)
  })
})

describe('TransactionStateTopic', () => {
  async function node(t: { after(fn: () => Promise<void>): void }) {
    const dir = await mkdtemp(join(tmpdir(), 'tributary-txn-log-'))
    const clock = new ManualClock(1_700_000_000_000)
    const core = await openLocalBroker(dir, { clock })
    t.after(async () => {
      await core.close()
      await rm(dir, { recursive: true, force: true })
    })
    const log = new TransactionStateTopic({
      topics: core.controller,
      replicas: core.replicas,
      numPartitions: 5,
      replicationFactor: 1,
      minIsr: 1,
      segmentBytes: 104857600,
      writeTimeoutMs: 30_000,
      clock,
      logger: silentLogger,
    })
    return { core, log }
  }

  it('creates the topic on first use with Kafka’s configs, places ids by abs(hash) % partitions', async (t) => {
    const { core, log } = await node(t)
    assert.equal(core.controller.get(TRANSACTION_STATE_TOPIC), undefined)
    await log.ensureTopic()
    const topic = core.controller.get(TRANSACTION_STATE_TOPIC)!
    assert.equal(topic.partitions, 5)
    assert.equal(topic.configs['cleanup.policy'], 'compact')
    assert.equal(topic.configs['min.insync.replicas'], '1')
    assert.equal(topic.configs['compression.type'], 'uncompressed')
    assert.equal(topic.configs['unclean.leader.election.enable'], 'false')
    // "my-txn".hashCode() = -1061187895 → abs % 5 = 0; "a".hashCode() = 97 → 2.
    assert.equal(log.partitionFor('my-txn'), 0)
    assert.equal(log.partitionFor('a'), 2)
  })

  it('replays what was stored in order, the last record per id winning and tombstones removing', async (t) => {
    const { log } = await node(t)
    await log.store('a', VALUE)
    await log.store('a', { ...VALUE, producerEpoch: 4, transactionStatus: 4, transactionPartitions: [] })
    const sameP = ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'k'].find((x) => log.partitionFor(x) === log.partitionFor('a'))!
    await log.store(sameP, VALUE)
    await log.store(sameP, null)
    const seen = new Map<string, TxnLogValue | null>()
    const n = await log.loadPartition(log.partitionFor('a'), (id, v) => seen.set(id, v))
    assert.equal(n, 4)
    assert.equal(seen.get('a')?.producerEpoch, 4)
    assert.equal(seen.get(sameP), null)
  })

  it('maps append failures to the codes Kafka’s coordinator answers', () => {
    assert.equal(mapStoreError(new KafkaError('NOT_ENOUGH_REPLICAS')).errorName, 'COORDINATOR_NOT_AVAILABLE')
    assert.equal(mapStoreError(new KafkaError('REQUEST_TIMED_OUT')).errorName, 'COORDINATOR_NOT_AVAILABLE')
    assert.equal(mapStoreError(new KafkaError('NOT_LEADER_OR_FOLLOWER')).errorName, 'NOT_COORDINATOR')
    assert.equal(mapStoreError(new KafkaError('MESSAGE_TOO_LARGE')).errorName, 'UNKNOWN_SERVER_ERROR')
    assert.equal(mapStoreError(new Error('x')).errorName, 'UNKNOWN_SERVER_ERROR')
  })
})
