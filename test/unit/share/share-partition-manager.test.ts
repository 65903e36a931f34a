// SharePartitionManager over a real broker core (test/helpers/local-broker.ts): where a new
// share-partition starts (share.auto.offset.reset latest, earliest, by_duration), one load for
// concurrent first fetches, the persister's errors, read_committed skipping an aborted
// transaction's records, resignation dropping the state for the next leader to read, and the
// broker's dead-letter sink appending to a created dead-letter topic with the source headers.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Controller } from '../../../src/cluster/controller.js'
import { DEFAULT_SHARE_GROUP_SETTINGS, type ShareGroupSettings, type ShareStatePersister } from '../../../src/ports/shares.js'
import { ErrorCode, KafkaError } from '../../../src/protocol/errors.js'
import { TRANSACTIONAL_MASK } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { iterateBatches, iterateRecords } from '../../../src/protocol/records/iterator.js'
import type { ReplicaManager } from '../../../src/replication/replica-manager.js'
import { BrokerDeadLetterSink } from '../../../src/share/dead-letters.js'
import { MemorySharePersister } from '../../helpers/memory-share-persister.js'
import { parseDurationMs, SharePartitionManager } from '../../../src/share/share-partition-manager.js'
import type { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { openLocalBroker } from '../../helpers/local-broker.js'

describe('SharePartitionManager', () => {
  let dir: string
  let clock: ManualClock
  let replicas: ReplicaManager
  let controller: Controller
  let closeCore: () => Promise<void>
  const ids: Record<string, string> = {}
  let t0: number

  const manager = (settings: Partial<ShareGroupSettings>, persister: ShareStatePersister = new MemorySharePersister()) =>
    new SharePartitionManager({
      replicas,
      topics: controller,
      persister,
      settings: () => ({ ...DEFAULT_SHARE_GROUP_SETTINGS, ...settings }),
      deadLetters: null,
      clock,
      logger: silentLogger,
    })

  const batch = (values: string[], ts: number, pid = -1, transactional = false) =>
    buildRecordBatch({
      baseTimestamp: ts,
      producerId: pid,
      producerEpoch: pid < 0 ? -1 : 0,
      baseSequence: pid < 0 ? -1 : 0,
      attributes: transactional ? TRANSACTIONAL_MASK : 0,
      records: values.map((v, i) => ({ key: null, value: Buffer.from(v), timestamp: ts + i })),
    })

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-share-manager-'))
    const core = await openLocalBroker(dir)
    ;({ replicas, controller, clock } = core)
    closeCore = core.close
    for (const name of ['plain', 'txn']) {
      ids[name] = (await controller.create({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }, false)).topicId
    }
    t0 = clock.now()
    const plain = replicas.require('plain', 0)
    await replicas.append(plain, batch(['a', 'b'], t0 - 3_600_000), 1 << 20) // 0-1: an hour old
    await replicas.append(plain, batch(['c', 'd'], t0 - 60_000), 1 << 20) // 2-3: a minute old
    const txn = replicas.require('txn', 0)
    await replicas.append(txn, batch(['x'], t0), 1 << 20) // 0
    await replicas.append(txn, batch(['aborted1', 'aborted2'], t0, 7, true), 1 << 20) // 1-2
    await replicas.writeTxnMarker(
      txn,
      { producerId: 7, producerEpoch: 0, coordinatorEpoch: 0, commit: false, transactionVersion: 0 },
      1_000,
    ) // 3
    await replicas.append(txn, batch(['y'], t0), 1 << 20) // 4
  })

  after(async () => {
    await closeCore()
    await rm(dir, { recursive: true, force: true })
  })

  it('parses by_duration as Java’s Duration does', () => {
    assert.equal(parseDurationMs('PT10M'), 600_000)
    assert.equal(parseDurationMs('P1DT2H'), 93_600_000)
    assert.equal(parseDurationMs('PT1.5S'), 1_500)
    assert.equal(parseDurationMs('P'), null)
    assert.equal(parseDurationMs('10m'), null)
  })

  it('a new share-partition starts where share.auto.offset.reset says, and stores that start', async () => {
    const start = async (reset: string) => {
      const persister = new MemorySharePersister()
      const h = await manager({ autoOffsetReset: reset }, persister).partition('g', ids.plain!, 0)
      const stored = await persister.read(h.sp.key, 0)
      assert.equal(stored.startOffset, h.sp.startOffset)
      return h.sp.startOffset
    }
    assert.equal(await start('latest'), 4)
    assert.equal(await start('earliest'), 0)
    assert.equal(await start('by_duration:PT10M'), 2)
    assert.equal(await start('by_duration:PT2H'), 0)
    assert.equal(await start('by_duration:PT1S'), 4)
  })

  it('a fetch reads what maxRecords needs at the records’ learnt size, not the request’s maxBytes', async () => {
    const seen: number[] = []
    const read = replicas.read.bind(replicas)
    replicas.read = (p, offset, maxBytes, ...rest) => {
      seen.push(maxBytes)
      return read(p, offset, maxBytes, ...rest)
    }
    try {
      const m = manager({ autoOffsetReset: 'earliest' })
      const h = await m.partition('g-budget', ids.plain!, 0)
      const first = await m.fetch(h, 'm1', 1, 50 << 20, true)
      first.release()
      const second = await m.fetch(h, 'm2', 1, 50 << 20, true)
      second.release()
      assert.deepEqual(
        first.acquired.map((r) => [r.firstOffset, r.lastOffset]),
        [[0, 0]],
      )
      assert.deepEqual(
        second.acquired.map((r) => [r.firstOffset, r.lastOffset]),
        [[1, 1]],
      )
      assert.equal(seen.length, 2)
      // Before any read: 1 KiB a record (and the margin); after it, the batches' own size.
      assert.ok(seen[0]! < 1 << 20, `first read ${seen[0]} bytes`)
      assert.ok(seen[1]! < seen[0]!, `second read ${seen[1]} bytes, after learning from ${seen[0]}`)
      // Never more than the request allows.
      const third = await m.fetch(h, 'm3', 1000, 10, true)
      third.release()
      assert.equal(seen[2], 10)
    } finally {
      replicas.read = read
    }
  })

  it('concurrent first fetches wait for one load', async () => {
    const persister = new MemorySharePersister()
    let reads = 0
    const counting: ShareStatePersister = Object.assign(Object.create(persister), {
      read: (...a: Parameters<ShareStatePersister['read']>) => {
        reads++
        return persister.read(...a)
      },
    })
    const m = manager({ autoOffsetReset: 'earliest' }, counting)
    const [a, b] = await Promise.all([m.partition('g', ids.plain!, 0), m.partition('g', ids.plain!, 0)])
    assert.equal(a.sp, b.sp)
    assert.equal(reads, 1)
  })

  it('a persister error fails the share-partition with its code; unknown ids and partitions are refused', async () => {
    const persister = new MemorySharePersister()
    const failing: ShareStatePersister = Object.assign(Object.create(persister), {
      read: async () => ({
        errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE.code,
        errorMessage: null,
        stateEpoch: 0,
        startOffset: -1,
        stateBatches: [],
      }),
    })
    const code = async (p: Promise<unknown>) =>
      p.then(
        () => 'NONE',
        (e) => (e instanceof KafkaError ? e.errorName : String(e)),
      )
    const m = manager({}, failing)
    assert.equal(await code(m.partition('g', ids.plain!, 0)), 'COORDINATOR_NOT_AVAILABLE')
    assert.equal(await code(m.partition('g', 'ZZZZZZZZZZZZZZZZZZZZZQ', 0)), 'UNKNOWN_TOPIC_ID')
    assert.equal(await code(m.partition('g', ids.plain!, 5)), 'UNKNOWN_TOPIC_OR_PARTITION')
  })

  it('read_committed acquires around an aborted transaction; the client acknowledges the marker as a gap', async () => {
    const m = manager({ autoOffsetReset: 'earliest', isolationLevel: 'read_committed' })
    const h = await m.partition('g', ids.txn!, 0)
    const got = await m.fetch(h, 'm', 100, 1 << 20, true)
    assert.deepEqual(got.acquired, [
      { firstOffset: 0, lastOffset: 0, deliveryCount: 1 },
      { firstOffset: 3, lastOffset: 4, deliveryCount: 1 },
    ])
    const values: string[] = []
    for (const b of iterateBatches(got.records))
      if (!b.isControl) for (const r of iterateRecords(got.records, b.position)) values.push(r.value!.toString())
    assert.ok(values.includes('x') && values.includes('y'))
    got.release()
    assert.equal(
      await h.sp.acknowledge('m', [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [1] }], false),
      ErrorCode.INVALID_RECORD_STATE.code,
    )
    assert.equal(
      await h.sp.acknowledge(
        'm',
        [
          { firstOffset: 0, lastOffset: 0, acknowledgeTypes: [1] },
          { firstOffset: 3, lastOffset: 4, acknowledgeTypes: [0, 1] },
        ],
        false,
      ),
      0,
    )
    assert.equal(h.sp.startOffset, 5)
  })

  it('read_uncommitted hands out the aborted records too', async () => {
    const m = manager({ autoOffsetReset: 'earliest' })
    const h = await m.partition('g2', ids.txn!, 0)
    const got = await m.fetch(h, 'm', 100, 1 << 20, true)
    assert.deepEqual(got.acquired, [{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }])
    got.release()
  })

  it('resignation drops the share-partition; the next load reads what was persisted', async () => {
    const persister = new MemorySharePersister()
    const m = manager({ autoOffsetReset: 'earliest' }, persister)
    const h = await m.partition('g', ids.plain!, 0)
    const got = await m.fetch(h, 'm', 2, 1 << 20, true)
    got.release()
    assert.equal(await h.sp.acknowledge('m', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [1] }], false), 0)
    m.onResignation('plain', 0)
    assert.equal(m.peek(h.sp.key), undefined)
    const again = await m.partition('g', ids.plain!, 0)
    assert.notEqual(again.sp, h.sp)
    assert.equal(again.sp.startOffset, 2)
  })

  it('tributary.share.delete.acknowledged deletes what every share group held here is past', async () => {
    const { topicId } = await controller.create(
      {
        name: 'queue',
        numPartitions: 1,
        replicationFactor: 1,
        assignments: [],
        configs: [{ name: 'tributary.share.delete.acknowledged', value: 'true' }],
      },
      false,
    )
    const r = replicas.require('queue', 0)
    await replicas.append(r, batch(['1', '2', '3', '4'], t0), 1 << 20)
    const m = manager({ autoOffsetReset: 'earliest' })
    const settle = async () => {
      for (let i = 0; i < 20; i++) await new Promise((res) => setImmediate(res))
    }
    const take = async (groupId: string, last: number) => {
      const h = await m.partition(groupId, topicId, 0)
      const got = await m.fetch(h, 'm', 100, 1 << 20, true)
      got.release()
      assert.equal(await h.sp.acknowledge('m', [{ firstOffset: 0, lastOffset: last, acknowledgeTypes: [1] }], false), 0)
      await settle()
    }
    await m.partition('g2', topicId, 0)
    await take('g1', 3)
    assert.equal(r.log.logStartOffset, 0)
    await take('g2', 1)
    assert.equal(r.log.logStartOffset, 2)
    // On a topic without the config nothing is deleted.
    const plain = await m.partition('g9', ids.plain!, 0)
    const got = await m.fetch(plain, 'm', 100, 1 << 20, true)
    got.release()
    assert.equal(await plain.sp.acknowledge('m', [{ firstOffset: 0, lastOffset: 3, acknowledgeTypes: [1] }], false), 0)
    await settle()
    assert.equal(replicas.require('plain', 0).log.logStartOffset, 0)
  })

  it('the dead-letter sink creates the topic (auto-create on) and appends letters with their source headers', async () => {
    const sink = new BrokerDeadLetterSink({
      nodeId: 0,
      topics: controller,
      replicas,
      clock,
      logger: silentLogger,
      messageMaxBytes: 1 << 20,
      bootstrap: () => [],
      topicPrefix: () => 'dlq.',
      autoCreate: () => true,
    })
    // The new topic's replicas appear as the cluster-of-one applies it; the sink polls on the clock.
    const sent = sink.send([
      {
        groupId: 'g',
        topic: 'dlq.plain',
        source: { topic: 'plain', partition: 0, offset: 3 },
        deliveryCount: 5,
        reason: 'delivery-limit',
        record: { key: Buffer.from('k'), value: Buffer.from('v'), headers: [{ key: 'h', value: Buffer.from('1') }], timestamp: 1 },
      },
    ])
    for (let i = 0; i < 200 && !controller.get('dlq.plain'); i++) await new Promise((r) => setImmediate(r))
    let done = false
    void sent.then(() => (done = true))
    for (let i = 0; i < 400 && !done; i++) {
      clock.advance(50)
      await new Promise((r) => setTimeout(r, 5))
    }
    await sent
    const topic = controller.get('dlq.plain')!
    let found: { key: string; value: string; headers: Record<string, string> } | undefined
    for (let p = 0; p < topic.partitions; p++) {
      const r = replicas.require('dlq.plain', p)
      const read = await replicas.read(r, 0, 1 << 20, true)
      for (const b of iterateBatches(read.records)) {
        for (const rec of iterateRecords(read.records, b.position)) {
          found = {
            key: rec.key!.toString(),
            value: rec.value!.toString(),
            headers: Object.fromEntries(rec.headers.map((x) => [x.key, x.value!.toString()])),
          }
        }
      }
      read.release()
    }
    assert.deepEqual(found, {
      key: 'k',
      value: 'v',
      headers: {
        h: '1',
        '__dlq.errors.topic': 'plain',
        '__dlq.errors.partition': '0',
        '__dlq.errors.offset': '3',
        '__dlq.errors.group': 'g',
        '__dlq.errors.delivery.count': '5',
        '__dlq.errors.message': 'The record reached the share group\u2019s delivery count limit.',
      },
    })
    await sink.close()
  })

  it('the dead-letter sink refuses, as Kafka 4.4, a name without the prefix, a missing topic without auto-create and a topic not enabled for dead letters', async () => {
    const warnings: string[] = []
    const logger = { ...silentLogger, warn: (_m: string, f?: Record<string, unknown>) => warnings.push(String(f?.why)) }
    logger.child = () => logger
    const sink = new BrokerDeadLetterSink({
      nodeId: 0,
      topics: controller,
      replicas,
      clock,
      logger,
      messageMaxBytes: 1 << 20,
      bootstrap: () => [],
      topicPrefix: () => 'dlq.',
      autoCreate: () => false,
    })
    const letter = (topic: string) => ({
      groupId: 'g',
      topic,
      source: { topic: 'plain', partition: 0, offset: 1 },
      deliveryCount: 1,
      reason: 'rejected' as const,
      record: null,
    })
    await controller.create({ name: 'dlq.off', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }, false)
    for (const t of ['dead.plain', 'dlq.missing', 'dlq.off']) await sink.send([letter(t)])
    assert.equal(controller.get('dlq.missing'), undefined, 'not created')
    assert.equal(warnings.length, 3, warnings.join('; '))
    assert.match(warnings[0]!, /prefix "dlq."/)
    assert.match(warnings[1]!, /auto\.create/)
    assert.match(warnings[2]!, /errors\.deadletterqueue\.group\.enable=true/)
    const r = replicas.require('dlq.off', 0)
    assert.equal(r.log.logEndOffset, 0, 'nothing written to a topic that did not opt in')
    await sink.close()
  })
})
