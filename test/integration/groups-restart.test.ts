// Consumer groups across restarts of a real broker process on the same data directory: group
// metadata and committed offsets live in __consumer_offsets and are replayed at start-up.
// - SIGTERM, start again (new port): every commit is there, groups are listed, and consumers of
//   those groups resume exactly at the committed offsets — nothing before is delivered again,
//   nothing after is missed.
// - kill -9 in the middle of a raw OffsetCommit loop and right after a consumer's commits:
//   every acknowledged commit is there after the restart (OffsetFetch via kafkajs).
// - A kcat member stays up while the broker restarts on the same port and keeps consuming.

import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Admin, Kafka, logLevel, Partitioners, type Producer } from 'kafkajs'
import { OffsetCommitRequest, OffsetCommitResponse, type OffsetCommitResponseData } from '../../src/protocol/messages/08-offset-commit.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../src/protocol/messages/10-find-coordinator.js'
import { type BrokerProcess, makeTempDir, startBrokerProcess } from '../helpers/broker-process.js'
import { makeRecords, type ProducedRecord, RawClient } from '../helpers/clients.js'
import {
  Cohort,
  endOffsets,
  GROUP_BROKER_OVERRIDES,
  type GroupInspector,
  kafkajsInspector,
  receiptCounts,
  waitAllReceived,
  waitCommitted,
  waitSettled,
  waitUntil,
  assertConsumedRange,
} from '../helpers/groups.js'

const P = 3

interface Clients {
  admin: Admin
  producer: Producer
  inspector: GroupInspector
  produce(topic: string, records: ProducedRecord[]): Promise<void>
  close(): Promise<void>
}

async function clientsFor(broker: BrokerProcess): Promise<Clients> {
  const kafka = new Kafka({
    clientId: 'it-groups-restart',
    brokers: [broker.bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1000 },
  })
  const admin = kafka.admin()
  await admin.connect()
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false })
  await producer.connect()
  return {
    admin,
    producer,
    inspector: kafkajsInspector(admin),
    produce: async (topic, records) => {
      for (let i = 0; i < records.length; i += 500) {
        await producer.send({ topic, acks: -1, messages: records.slice(i, i + 500).map((r) => ({ key: r.key, value: r.value })) })
      }
    },
    close: async () => {
      await producer.disconnect().catch(() => {})
      await admin.disconnect().catch(() => {})
    },
  }
}

describe('consumer groups across broker restarts', () => {
  const dir = makeTempDir('tributary-groups-restart-')
  let broker: BrokerProcess | undefined

  const start = async (port?: number) => {
    broker = await startBrokerProcess({
      dataDir: dir.path,
      overrides: { ...GROUP_BROKER_OVERRIDES, ...(port ? { listeners: `PLAINTEXT://127.0.0.1:${port}` } : {}) },
    })
    return broker
  }

  before(async () => {
    await start()
  })

  after(async () => {
    if (broker) {
      await broker.stop().catch(() => {})
      await broker.cleanup()
    }
    dir.remove()
  })

  test('SIGTERM restart: groups and commits survive, consumers resume exactly at the committed offsets', async (t) => {
    const topic = 'restart-groups'
    let c = await clientsFor(broker!)
    const cohort = new Cohort()
    try {
      await c.admin.createTopics({ topics: [{ topic, numPartitions: P, replicationFactor: 1 }], waitForLeaders: true })
      const p1 = makeRecords({ count: 300, numPartitions: P, client: 'restart-p1', baseTimestamp: Date.now() })
      await c.produce(topic, p1)
      const ends1 = endOffsets(p1, P)

      // Group a reads everything and commits; group b is set to exact offsets by the admin.
      const a1 = await cohort.add({ client: 'kafkajs', name: 'restart-a1', bootstrap: broker!.bootstrap, groupId: 'restart-a', topic })
      await waitAllReceived([a1], p1)
      await waitCommitted(c.inspector, 'restart-a', topic, ends1)
      await a1.stop()
      const mid = [7, 13, 21]
      await c.admin.setOffsets({ groupId: 'restart-b', topic, partitions: mid.map((o, partition) => ({ partition, offset: String(o) })) })
      assert.deepEqual(await c.inspector.committed('restart-b', topic, P), mid)

      // More records that nobody has consumed yet.
      const p2 = makeRecords({ count: 150, numPartitions: P, client: 'restart-p2', baseTimestamp: Date.now() })
      await c.produce(topic, p2)
      const ends2 = endOffsets([...p1, ...p2], P)

      await c.close()
      const oldPort = broker!.port
      const code = await broker!.stop()
      assert.equal(code, 0, `exit code after SIGTERM; stderr tail:\n${broker!.stderr().slice(-3000)}`)
      await start()
      t.diagnostic(`restarted: port ${oldPort} → ${broker!.port}`)
      c = await clientsFor(broker!)

      assert.deepEqual(await c.inspector.committed('restart-a', topic, P), ends1, 'group a commits after the restart')
      assert.deepEqual(await c.inspector.committed('restart-b', topic, P), mid, 'group b commits after the restart')
      const groups = (await c.admin.listGroups()).groups
      for (const g of ['restart-a', 'restart-b']) {
        assert.deepEqual(
          groups.find((x) => x.groupId === g),
          { groupId: g, protocolType: 'consumer' },
          `${g} listed after the restart (groups: ${JSON.stringify(groups)})`,
        )
      }
      const da = await c.inspector.describe('restart-a', topic)
      assert.equal(da.state, 'Empty')
      assert.equal(da.protocolType, 'consumer')

      // Group a falls back to earliest: lost commits would show as p1 delivered again.
      const a2 = await cohort.add({
        client: 'kafkajs',
        name: 'restart-a2',
        bootstrap: broker!.bootstrap,
        groupId: 'restart-a',
        topic,
        reset: 'earliest',
      })
      // Group b falls back to latest: lost commits would show as records missing.
      const b2 = await cohort.add({
        client: 'kafkajs',
        name: 'restart-b2',
        bootstrap: broker!.bootstrap,
        groupId: 'restart-b',
        topic,
        reset: 'latest',
      })
      await assertConsumedRange(a2, ends1, ends2, 'group a after the restart', { timeoutMs: 30_000, settleMs: 300 })
      await assertConsumedRange(b2, mid, ends2, 'group b after the restart', { timeoutMs: 30_000, settleMs: 300 })
    } catch (e) {
      t.diagnostic(`members:\n${cohort.summary()}\nbroker stderr tail:\n${broker?.stderr().slice(-2000)}`)
      throw e
    } finally {
      await cohort.stopAll()
      await c.close()
    }
  })

  test('kill -9: every acknowledged commit survives (a raw OffsetCommit loop, and a live consumer group)', async (t) => {
    const topic = 'restart-kill'
    let c = await clientsFor(broker!)
    const cohort = new Cohort()
    const raw = await RawClient.connect(broker!.host, broker!.port)
    try {
      await c.admin.createTopics({ topics: [{ topic, numPartitions: P, replicationFactor: 1 }], waitForLeaders: true })
      const p3 = makeRecords({ count: 240, numPartitions: P, client: 'restart-p3', baseTimestamp: Date.now() })
      await c.produce(topic, p3)
      const ends3 = endOffsets(p3, P)

      // A consumer in a child process consumes and commits; it is still a member at the kill.
      const k1 = await cohort.add({
        client: 'kafkajs',
        name: 'kill-k1',
        bootstrap: broker!.bootstrap,
        groupId: 'restart-k',
        topic,
        childProcess: true,
      })
      await waitAllReceived([k1], p3)
      await waitCommitted(c.inspector, 'restart-k', topic, ends3)

      // A raw OffsetCommit v2 loop on group restart-l: commit n (metadata "m<n>") on every partition.
      const groupL = 'restart-l'
      await waitUntil(
        'FindCoordinator for the raw group',
        async () => (await raw.request(FindCoordinatorRequest, FindCoordinatorResponse, 0, { key: groupL })).errorCode === 0,
        () => '',
        10_000,
      )
      let lastAcked = -1
      let lastSent = -1
      let loopError: unknown
      let killed = false
      const loop = (async () => {
        for (let n = 1; !killed; n++) {
          lastSent = n
          let res: OffsetCommitResponseData
          try {
            res = await raw.request(OffsetCommitRequest, OffsetCommitResponse, 2, {
              groupId: groupL,
              generationIdOrMemberEpoch: -1,
              memberId: '',
              retentionTimeMs: -1,
              topics: [
                {
                  name: topic,
                  partitions: [0, 1, 2].map((partitionIndex) => ({ partitionIndex, committedOffset: n, committedMetadata: `m${n}` })),
                },
              ],
            })
          } catch (e) {
            if (!killed) loopError = e
            return
          }
          const codes = res.topics.flatMap((x) => x.partitions.map((p) => p.errorCode))
          if (codes.some((x) => x !== 0)) {
            loopError = new Error(`OffsetCommit v2 of ${n} answered error codes ${codes}`)
            return
          }
          lastAcked = n
        }
      })()
      await waitUntil(
        '200 acknowledged raw commits',
        () => lastAcked >= 200 || loopError !== undefined,
        () => `acked ${lastAcked}`,
        15_000,
      )
      assert.equal(loopError, undefined, `raw commit loop failed before the kill: ${String(loopError)}`)

      await c.close()
      // SIGKILL goes out synchronously inside kill9(); the loop keeps its request in flight and
      // only stops issuing new ones, so the kill usually lands mid-request.
      const killing = broker!.kill9()
      killed = true
      await killing
      await loop
      const ackedAtKill = lastAcked
      const sentAtKill = lastSent
      await k1.kill()
      await start()
      c = await clientsFor(broker!)

      // The consumer's acknowledged commits.
      assert.deepEqual(await c.inspector.committed('restart-k', topic, P), ends3, 'consumer group commits after kill -9')
      // The raw loop: the last acknowledged commit, or the one in flight at the kill.
      const fetched = await c.admin.fetchOffsets({ groupId: groupL, topics: [topic] })
      const parts = fetched.find((x) => x.topic === topic)?.partitions ?? []
      assert.equal(parts.length, P)
      t.diagnostic(`raw commits: acknowledged ${ackedAtKill}, sent ${sentAtKill}; after restart ${parts.map((p) => p.offset).join(',')}`)
      for (const p of parts) {
        const o = Number(p.offset)
        assert.ok(
          o === ackedAtKill || o === sentAtKill,
          `partition ${p.partition}: committed ${o} after kill -9; acknowledged ${ackedAtKill}, in flight ${sentAtKill}`,
        )
        assert.equal(p.metadata, `m${o}`, `partition ${p.partition}: metadata of the commit`)
      }

      // The live group resumes where it committed: new records only (fallback earliest would
      // deliver the old ones again if the commits were lost).
      const p4 = makeRecords({ count: 90, numPartitions: P, client: 'restart-p4', baseTimestamp: Date.now() })
      await c.produce(topic, p4)
      const ends4 = endOffsets([...p3, ...p4], P)
      const k2 = await cohort.add({
        client: 'kafkajs',
        name: 'kill-k2',
        bootstrap: broker!.bootstrap,
        groupId: 'restart-k',
        topic,
        reset: 'earliest',
      })
      await assertConsumedRange(k2, ends3, ends4, 'group k after kill -9', { timeoutMs: 30_000, settleMs: 300 })
    } catch (e) {
      t.diagnostic(`members:\n${cohort.summary()}\nbroker stderr tail:\n${broker?.stderr().slice(-2000)}`)
      throw e
    } finally {
      raw.close()
      await cohort.stopAll()
      await c.close()
    }
  })

  test('a kcat member keeps consuming while the broker restarts on the same port (no gap, nothing committed delivered again)', async (t) => {
    const topic = 'restart-live'
    let c = await clientsFor(broker!)
    const cohort = new Cohort()
    try {
      await c.admin.createTopics({ topics: [{ topic, numPartitions: P, replicationFactor: 1 }], waitForLeaders: true })
      const m = await cohort.add({
        client: 'kcat',
        name: 'live-1',
        bootstrap: broker!.bootstrap,
        groupId: 'restart-live',
        topic,
        sessionTimeoutMs: 10_000,
      })
      await waitSettled(c.inspector, 'restart-live', topic, [m], P)
      const before = makeRecords({ count: 150, numPartitions: P, client: 'restart-live-1', baseTimestamp: Date.now() })
      await c.produce(topic, before)
      await waitAllReceived([m], before)
      await waitCommitted(c.inspector, 'restart-live', topic, endOffsets(before, P))
      const frozen = receiptCounts([m])

      await c.close()
      const port = broker!.port
      const code = await broker!.stop()
      assert.equal(code, 0)
      await start(port)
      c = await clientsFor(broker!)
      const later = makeRecords({ count: 150, numPartitions: P, client: 'restart-live-2', baseTimestamp: Date.now() })
      await c.produce(topic, later)
      await waitAllReceived([m], later, 40_000)
      await waitCommitted(c.inspector, 'restart-live', topic, endOffsets([...before, ...later], P), 30_000)
      const counts = receiptCounts([m])
      const again = [...frozen].filter(([v, n]) => counts.get(v) !== n)
      assert.equal(again.length, 0, `records committed before the restart delivered again: ${again.slice(0, 5).map(([v]) => v)}`)
      t.diagnostic(`kcat member after the restart: ${m.summary()}`)
      // The group (with its member) was replayed from __consumer_offsets, so the member's
      // heartbeats after the restart are accepted: no rejoin, same member id.
      assert.equal(m.joins, 1, 'the member kept its membership across the restart (no rebalance)')
      assert.equal(m.revokes, 0)
    } catch (e) {
      t.diagnostic(`members:\n${cohort.summary()}\nbroker stderr tail:\n${broker?.stderr().slice(-2000)}`)
      throw e
    } finally {
      await cohort.stopAll()
      await c.close()
    }
  })
})
