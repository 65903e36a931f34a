// The cluster harness (test/helpers/cluster.ts) on what brokers over etcd do today: three brokers
// register and see each other; kill -9 and restart on the same port; SIGSTOP makes a broker drop out
// of the registered set after the session timeout and SIGCONT brings it back; a fourth broker joins;
// a partition log read from the files of a stopped broker holds exactly what an acks=all producer
// was told was acknowledged (kafkajs on the three brokers; librdkafka through confluent-kafka on a
// one-broker cluster, see there why). Then the replica
// comparison on synthetic logs: identical logs agree, any differing byte, missing batch or
// conflicting offset is reported, and a torn tail is where reading stops.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import { KafkaClient } from '../../src/client/client.js'
import { buildRecordBatch } from '../../src/protocol/records/builder.js'
import { makeTempDir } from '../helpers/broker-process.js'
import {
  type AckedRecord,
  type Cluster,
  compareReplicas,
  type LogBatch,
  offsetConflicts,
  readPartitionLog,
  recordsOf,
  startCluster,
  startProducer,
  waitFor,
} from '../helpers/cluster.js'

/** Waits on the cluster are bounded by this; the session timeout is 2 s. */
const WAIT_MS = 60_000

/** Log lines of level warn or error (the broker logs one JSON or text line per event). */
function notableLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => /\b(warn|error|fatal)\b/i.test(l))
}

describe('cluster harness: three brokers over etcd', () => {
  let c: Cluster

  before(async () => {
    c = await startCluster({ brokers: 3 })
  })

  after(async () => {
    await c?.close()
  })

  it('each broker lists brokers 1, 2, 3 and the same single controller; etcd holds the three registrations', async () => {
    const views = await Promise.all([1, 2, 3].map((id) => c.metadataFrom(id)))
    for (const [i, md] of views.entries()) {
      assert.deepEqual([...md.brokers.keys()].sort(), [1, 2, 3], `brokers seen by broker ${i + 1}`)
      for (const id of [1, 2, 3]) assert.equal(md.brokers.get(id)!.port, c.broker(id).port, `advertised port of broker ${id}`)
    }
    const controllers = new Set(views.map((md) => md.controllerId))
    assert.equal(controllers.size, 1, `one controller, got ${[...controllers]}`)
    assert.ok([1, 2, 3].includes(views[0]!.controllerId))
    assert.deepEqual(await c.registeredIds(), [1, 2, 3])
    assert.deepEqual(c.liveIds(), [1, 2, 3])
    assert.equal(c.bootstrap().split(',').length, 3)
    assert.equal(new Set([1, 2, 3].map((id) => c.dataDir(id))).size, 3, 'a data dir per broker')
  })

  it('kill -9 and restart of broker 2: it leaves, comes back on the same port, and an old client reconnects', async () => {
    const port = c.broker(2).port
    const pidBefore = c.broker(2).pid
    const client = await KafkaClient.connect({ bootstrap: [c.broker(2).bootstrap] })
    try {
      await client.metadata([], { refresh: true })
      await c.kill9(2)
      assert.equal(c.state(2), 'stopped')
      assert.ok(!c.bootstrap().includes(`:${port}`), 'a killed broker is not in bootstrap()')
      await waitFor(async () => (await c.registeredIds()).join() === '1,3', 'broker 2 to leave etcd after its lease', WAIT_MS)
      await c.waitForMetadataBrokers([1, 3])
      await c.restart(2)
      assert.notEqual(c.broker(2).pid, pidBefore)
      assert.equal(c.broker(2).port, port, 'the restarted broker listens on its previous port')
      await c.waitForMetadataBrokers([1, 2, 3])
      // The client opened before the kill still knows only the old address: it reconnects to it.
      const md = await waitFor(() => client.metadata([], { refresh: true }), 'the old client to reconnect', WAIT_MS)
      assert.deepEqual([...md.brokers.keys()].sort(), [1, 2, 3])
    } finally {
      await client.close()
    }
    assert.deepEqual(await c.registeredIds(), [1, 2, 3])
  })

  it('SIGSTOP of broker 3: dropped from the registered brokers after the session timeout; SIGCONT: it registers again', async (t) => {
    c.pause(3)
    assert.deepEqual(c.liveIds(), [1, 2])
    const pausedAt = Date.now()
    try {
      await waitFor(async () => (await c.registeredIds()).join() === '1,2', 'broker 3 to leave etcd', WAIT_MS)
      t.diagnostic(`broker 3 left etcd ${Date.now() - pausedAt} ms after SIGSTOP (session timeout ${c.sessionTimeoutMs} ms)`)
      const controller = await c.waitForMetadataBrokers([1, 2])
      assert.ok([1, 2].includes(controller))
    } finally {
      c.resume(3)
    }
    const resumedAt = Date.now()
    await waitFor(async () => (await c.registeredIds()).join() === '1,2,3', 'broker 3 to register again after SIGCONT', WAIT_MS)
    t.diagnostic(`broker 3 registered again ${Date.now() - resumedAt} ms after SIGCONT`)
    await c.waitForMetadataBrokers([1, 2, 3])
    assert.match(c.stderr(3), /lost the etcd lease/, 'broker 3 says it lost its lease')
  })

  it('addBroker starts broker 4, which every broker then lists', async () => {
    const id = await c.addBroker()
    assert.equal(id, 4)
    await c.waitForMetadataBrokers([1, 2, 3, 4])
    assert.deepEqual(await c.registeredIds(), [1, 2, 3, 4])
    assert.deepEqual(await c.brokersSeenBy(4), [1, 2, 3, 4])
  })

  /**
   * The broker that names itself leader of an RF 1 partition. Every broker is asked: a broker
   * without a replica of the partition may not report its leader (each broker describes its own
   * replicas until partition state is shared through etcd).
   */
  async function rf1Leader(topic: string): Promise<number> {
    return waitFor(
      async () => {
        for (const id of c.liveIds()) if ((await c.leaderOf(topic, 0, { via: id })) === id) return id
        return undefined
      },
      `a broker leading ${topic}-0`,
      WAIT_MS,
    )
  }

  /** Creates an RF 1 topic with kafkajs through the cluster and returns its partition's leader. */
  async function createRf1Topic(topic: string): Promise<number> {
    const kafka = new Kafka({ clientId: 'harness-it', brokers: c.bootstrap().split(','), logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    try {
      assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: false }), true)
    } finally {
      await admin.disconnect()
    }
    return rf1Leader(topic)
  }

  /** Stops the leader, reads its log, checks it holds exactly the acknowledged values, restarts it. */
  async function checkLogOfLeader(topic: string, leader: number, acked: AckedRecord[]): Promise<LogBatch[]> {
    assert.equal(await c.stop(leader), 0, `clean stop of broker ${leader}`)
    const batches = readPartitionLog(c.dataDir(leader), topic, 0)
    await c.restart(leader)
    const stored = recordsOf(batches).map((r) => ({ offset: r.offset, value: r.value }))
    const expected = [...acked].sort((a, b) => a.offset - b.offset).map((a) => ({ offset: a.offset, value: a.value }))
    assert.deepEqual(stored, expected)
    for (let i = 1; i < batches.length; i++) assert.equal(batches[i]!.baseOffset, batches[i - 1]!.lastOffset + 1, 'contiguous batches')
    return batches
  }

  it('readPartitionLog on a stopped broker returns the batches an acks=all kafkajs producer was acknowledged for', async (t) => {
    const topic = 'rf1-kafkajs'
    const leader = await createRf1Topic(topic)
    const state = await c.partitionState(topic, 0, { via: leader })
    assert.deepEqual([state.replicas, state.isr], [[leader], [leader]])
    const producer = await startProducer({ bootstrap: c.broker(leader).bootstrap, topic, client: 'kafkajs', batchSize: 10, maxValues: 200 })
    await producer.waitForAcked(200, WAIT_MS)
    const res = await producer.stop()
    assert.deepEqual(res.errors, [])
    assert.equal(res.acked.length, 200)
    assert.deepEqual(
      res.acked.map((a) => a.value),
      Array.from({ length: 200 }, (_, i) => `v-${i}`),
    )
    const batches = await checkLogOfLeader(topic, leader, res.acked)
    t.diagnostic(`${topic}: leader ${leader}, ${batches.length} batches`)
    assert.equal(batches.length, 20, 'one batch per send of 10 values')
    assert.ok(batches.every((b) => b.lastOffset - b.baseOffset === 9))
  })

  it('a continuous producer keeps going through a restart of an unrelated broker and reports what failed', async (t) => {
    const topic = 'rf1-kafkajs'
    const leader = await rf1Leader(topic)
    const other = c.liveIds().find((id) => id !== leader)!
    const producer = await startProducer({ bootstrap: c.broker(leader).bootstrap, topic, client: 'kafkajs', batchSize: 5 })
    await producer.waitForAcked(50, WAIT_MS)
    await c.kill9(other)
    await c.restart(other)
    const before = producer.progress().acked
    await producer.waitForAcked(before + 50, WAIT_MS)
    const res = await producer.stop()
    assert.deepEqual(res.errors, [])
    assert.ok(res.acked.length >= before + 50)
    const offsets = res.acked.map((a) => a.offset)
    assert.equal(new Set(offsets).size, offsets.length, 'no offset acknowledged twice')
    assert.ok(
      offsets.every((o) => o >= 200),
      'after the 200 records of the first test',
    )
    for (const id of c.ids()) {
      const lines = notableLines(c.stderr(id))
      for (const line of lines.slice(-10)) t.diagnostic(`broker ${id} stderr: ${line}`)
    }
  })
})

describe('cluster harness: one broker over etcd, written by librdkafka', () => {
  // One broker: librdkafka asks any broker it knows for metadata and, while each broker describes
  // only its own replicas, one without the partition would tell it there is no leader.
  let c: Cluster

  before(async () => {
    c = await startCluster({ brokers: 1 })
  })

  after(async () => {
    await c?.close()
  })

  it('every delivery report of an acks=all librdkafka producer (confluent-kafka) is in the log at its offset', async (t) => {
    const topic = 'rf1-librdkafka'
    const kafka = new Kafka({ clientId: 'harness-it', brokers: [c.bootstrap()], logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    try {
      assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }] }), true)
    } finally {
      await admin.disconnect()
    }
    const producer = await startProducer({ bootstrap: c.bootstrap(), topic, client: 'librdkafka', batchSize: 25, maxValues: 300 })
    await producer.waitForAcked(300, WAIT_MS)
    const res = await producer.stop()
    assert.deepEqual(res.errors, [])
    assert.equal(res.sent, 300)
    assert.deepEqual(res.acked.map((a) => a.value).sort(), Array.from({ length: 300 }, (_, i) => `v-${i}`).sort())
    assert.equal(await c.stop(1), 0, 'clean stop')
    for (const partition of [0, 1]) {
      const batches = readPartitionLog(c.dataDir(1), topic, partition)
      const stored = recordsOf(batches).map((r) => ({ offset: r.offset, value: r.value }))
      const expected = res.acked
        .filter((a) => a.partition === partition)
        .sort((a, b) => a.offset - b.offset)
        .map((a) => ({ offset: a.offset, value: a.value }))
      assert.equal(expected.length, 150, 'batches alternate between the two partitions')
      assert.deepEqual(stored, expected)
      t.diagnostic(`${topic}-${partition}: ${batches.length} batches`)
    }
    await c.restart(1)
    assert.deepEqual(await c.brokersSeenBy(1), [1])
  })
})

describe('replica comparison on synthetic logs', () => {
  const batch = (baseOffset: number, values: string[], epoch = 0): LogBatch => {
    const bytes = buildRecordBatch({
      baseOffset,
      partitionLeaderEpoch: epoch,
      baseTimestamp: 1_700_000_000_000,
      records: values.map((v) => ({ key: null, value: Buffer.from(v) })),
    })
    return { baseOffset, lastOffset: baseOffset + values.length - 1, partitionLeaderEpoch: epoch, bytes }
  }
  const log = () => [batch(0, ['a', 'b']), batch(2, ['c']), batch(3, ['d', 'e', 'f'], 1)]

  it('identical replicas agree, and so do replicas that differ only at or past upTo', () => {
    assert.equal(
      compareReplicas(
        new Map([
          [1, log()],
          [2, log()],
          [3, log()],
        ]),
        6,
      ),
      null,
    )
    const longer = [...log(), batch(6, ['g'], 1)]
    const diverged = [...log(), batch(6, ['x'], 2)]
    assert.equal(
      compareReplicas(
        new Map([
          [1, longer],
          [2, diverged],
          [3, log()],
        ]),
        6,
      ),
      null,
    )
    assert.deepEqual(
      offsetConflicts(
        new Map([
          [1, log()],
          [2, log()],
        ]),
      ),
      [],
    )
  })

  it('a differing record, leader epoch, missing batch or extra batch is reported', () => {
    const otherValue = log()
    otherValue[1] = batch(2, ['C'])
    assert.match(
      compareReplicas(
        new Map([
          [1, log()],
          [2, otherValue],
        ]),
        6,
      )!,
      /offsets 2\.\.2 differs between broker 1 and broker 2, first at byte \d+ \(crc\)/,
    )
    const otherEpoch = log()
    otherEpoch[2] = batch(3, ['d', 'e', 'f'], 2)
    assert.match(
      compareReplicas(
        new Map([
          [1, log()],
          [2, otherEpoch],
        ]),
        6,
      )!,
      /offsets 3\.\.5 .*byte 15 \(partitionLeaderEpoch\).*Epoch 1 vs 2/,
    )
    assert.match(
      compareReplicas(
        new Map([
          [1, log()],
          [2, log().slice(0, 2)],
        ]),
        6,
      )!,
      /broker 2 lacks the batch at offsets 3\.\.5/,
    )
    assert.match(
      compareReplicas(
        new Map([
          [1, log().slice(0, 2)],
          [3, log()],
        ]),
        6,
      )!,
      /broker 3 holds a batch at offsets 3\.\.5 that broker 1 does not have/,
    )
    const split = [batch(0, ['a']), batch(1, ['b']), ...log().slice(1)]
    assert.match(
      compareReplicas(
        new Map([
          [1, log()],
          [2, split],
        ]),
        6,
      )!,
      /broker 1 holds offsets 0\.\.1, broker 2 holds offsets 0\.\.0/,
    )
    assert.deepEqual(
      offsetConflicts(
        new Map([
          [1, log()],
          [2, otherValue],
        ]),
      ),
      [{ offset: 2, values: { 1: 'c', 2: 'C' } }],
    )
  })

  it('recordsOf lists (offset, value) of every batch', () => {
    assert.deepEqual(
      recordsOf(log()).map((r) => [r.offset, r.value, r.partitionLeaderEpoch]),
      [
        [0, 'a', 0],
        [1, 'b', 0],
        [2, 'c', 0],
        [3, 'd', 1],
        [4, 'e', 1],
        [5, 'f', 1],
      ],
    )
  })

  it('readPartitionLog reads segments in offset order and stops at a torn tail of the last one', () => {
    const dir = makeTempDir('tributary-replica-log-')
    try {
      const part = join(dir.path, 'events-0')
      mkdirSync(part)
      const [b0, b1, b2] = log()
      const seg = (base: number) => join(part, `${String(base).padStart(20, '0')}.log`)
      // The later segment is written first: order comes from the names, not from readdir.
      writeFileSync(seg(3), Buffer.concat([b2!.bytes, b2!.bytes.subarray(0, 30)]))
      writeFileSync(seg(0), Buffer.concat([b0!.bytes, b1!.bytes]))
      writeFileSync(join(part, '00000000000000000000.index'), Buffer.alloc(8))
      assert.deepEqual(
        readPartitionLog(dir.path, 'events', 0).map((b) => [b.baseOffset, b.lastOffset, b.partitionLeaderEpoch]),
        [
          [0, 1, 0],
          [2, 2, 0],
          [3, 5, 1],
        ],
      )
      // A whole batch whose CRC does not match is a torn write too (the last segment's tail).
      const bad = Buffer.from(b2!.bytes)
      bad[bad.length - 1]! ^= 0xff
      writeFileSync(seg(3), Buffer.concat([b2!.bytes, bad]))
      assert.equal(readPartitionLog(dir.path, 'events', 0).length, 3)
      // The same in a segment that is not the last is corruption.
      writeFileSync(seg(0), Buffer.concat([b0!.bytes, bad]))
      assert.throws(
        () => readPartitionLog(dir.path, 'events', 0),
        /invalid batch at byte \d+ of a segment that is not the last \(CRC mismatch\)/,
      )
      assert.deepEqual(readPartitionLog(dir.path, 'events', 1), [], 'no directory, no batches')
    } finally {
      dir.remove()
    }
  })
})
