// Consumer groups with kafkajs 2.2.4 against a real broker process. kafkajs speaks the classic
// protocol with old, non-flexible versions (FindCoordinator ≤2, JoinGroup ≤5 without
// group.instance.id, SyncGroup ≤3, Heartbeat ≤3, LeaveGroup ≤3, OffsetCommit ≤5, OffsetFetch ≤4,
// DescribeGroups ≤2, ListGroups ≤2, DeleteGroups ≤1) and assigns round-robin.
// Static membership is not testable with kafkajs (it never sends a group.instance.id): see the
// platformatic and kcat files.

import assert from 'node:assert/strict'
import { after, before, describe, type TestContext, test } from 'node:test'
import { type Admin, Kafka, logLevel, Partitioners, type Producer } from 'kafkajs'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { makeRecords, type ProducedRecord } from '../helpers/clients.js'
import {
  Cohort,
  endOffsets,
  GROUP_BROKER_OVERRIDES,
  type GroupInspector,
  type GroupSuite,
  kafkajsInspector,
  scenarioChurn,
  scenarioShare,
  scenarioTwoGroups,
  waitAllReceived,
  waitCommitted,
  waitSettled,
  assertConsumedRange,
} from '../helpers/groups.js'

function deleteGroupsErrors(e: unknown): { groupId: string; errorCode: number }[] {
  const x = e as { groups?: { groupId: string; errorCode: number }[]; originalError?: unknown; cause?: unknown }
  if (x?.groups) return x.groups
  if (x?.originalError) return deleteGroupsErrors(x.originalError)
  if (x?.cause) return deleteGroupsErrors(x.cause)
  return []
}

describe('consumer groups: kafkajs', () => {
  let broker: BrokerProcess
  let kafka: Kafka
  let admin: Admin
  let producer: Producer
  let inspector: GroupInspector
  let base: Omit<GroupSuite, 'log'>

  before(async () => {
    broker = await startBrokerProcess({ overrides: { ...GROUP_BROKER_OVERRIDES } })
    kafka = new Kafka({
      clientId: 'it-groups-kafkajs',
      brokers: [broker.bootstrap],
      logLevel: logLevel.NOTHING,
      retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1000 },
    })
    admin = kafka.admin()
    await admin.connect()
    producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false })
    await producer.connect()
    inspector = kafkajsInspector(admin)
    base = {
      client: 'kafkajs',
      bootstrap: broker.bootstrap,
      inspector,
      createTopic: async (topic, partitions) => {
        await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }], waitForLeaders: true })
      },
      produce: async (topic, records) => {
        for (let i = 0; i < records.length; i += 500) {
          await producer.send({
            topic,
            acks: -1,
            messages: records.slice(i, i + 500).map((r) => ({ key: r.key, value: r.value, timestamp: String(r.timestamp) })),
          })
        }
      },
    }
  })

  after(async () => {
    await producer?.disconnect().catch(() => {})
    await admin?.disconnect().catch(() => {})
    await stopAndCheck(broker)
  })

  const suite = (t: TestContext): GroupSuite => ({ ...base, log: (m) => t.diagnostic(m) })

  test('3 members on a 6-partition topic: disjoint non-empty shares, every record exactly once', (t) =>
    scenarioShare(suite(t), { label: 'share', members: 3, partitions: 6, records: 600 }))

  test('7 members on a 6-partition topic: one member owns nothing and receives nothing', (t) =>
    scenarioShare(suite(t), { label: 'idle', members: 7, partitions: 6, records: 300 }))

  test('a join, a clean leave (disconnect) and a kill (SIGKILL of a child-process consumer) each rebalance; no record skipped', (t) =>
    scenarioChurn(suite(t), { killable: { childProcess: true } }))

  test('two groups on one topic each receive every record', (t) => scenarioTwoGroups(suite(t)))

  test('admin: describe/list while active, delete refused while non-empty; reset to exact, earliest, timestamp, latest; delete when empty', async (t) => {
    const topic = 'kafkajs-admin'
    const groupId = 'kafkajs-admin-group'
    const P = 3
    await base.createTopic(topic, P)
    const BASE_TS = Date.now() - 3_600_000
    const records: ProducedRecord[] = makeRecords({ count: 90, numPartitions: P, client: 'kafkajs-admin', baseTimestamp: BASE_TS })
    await base.produce(topic, records)
    const ends = endOffsets(records, P)
    const zeros = ends.map(() => 0)
    const cohort = new Cohort()
    const member = (name: string, group: string, reset: 'earliest' | 'latest') =>
      cohort.add({ client: 'kafkajs', name, bootstrap: broker.bootstrap, groupId: group, topic, reset })
    // kafkajs' setOffsets/resetOffsets run a consumer of the group that seeks and commits; with
    // every partition paused it sleeps its 5 s fetch wait first, so the four resets run side by side.
    const committed = (group: string) => inspector.committed(group, topic, P)
    try {
      // An active member reads everything and commits.
      const m1 = await member('admin-1', groupId, 'earliest')
      const d = await waitSettled(inspector, groupId, topic, [m1], P)
      await waitAllReceived([m1], records)
      await waitCommitted(inspector, groupId, topic, ends)
      assert.equal(d.state, 'Stable')
      assert.equal(d.protocolType, 'consumer')
      assert.equal(d.protocol, 'RoundRobinAssigner')
      assert.equal(d.members.length, 1)
      assert.equal(d.members[0]!.clientId, 'admin-1')
      assert.deepEqual(d.members[0]!.partitions, [0, 1, 2])
      const listed = (await admin.listGroups()).groups.find((g) => g.groupId === groupId)
      assert.deepEqual(listed, { groupId, protocolType: 'consumer' }, 'listGroups shows the active group')

      // DeleteGroups of a group with members: NON_EMPTY_GROUP (68).
      const err = await admin.deleteGroups([groupId]).then(
        () => null,
        (e: unknown) => e,
      )
      assert.ok(err, 'deleteGroups of a group with an active member must fail')
      assert.deepEqual(
        deleteGroupsErrors(err).map((g) => [g.groupId, g.errorCode]),
        [[groupId, 68]],
        `deleteGroups error: ${String(err)}`,
      )
      await m1.stop()
      const empty = await inspector.describe(groupId, topic)
      assert.equal(empty.state, 'Empty', 'state after the last member left')
      assert.equal(empty.members.length, 0)
      assert.deepEqual(await committed(groupId), ends, 'commits kept after the group became empty')

      // Records nobody has read yet: a reset to latest skips them.
      const skipped = makeRecords({ count: 30, numPartitions: P, client: 'kafkajs-admin-skipped', baseTimestamp: Date.now() })
      await base.produce(topic, skipped)
      const ends2 = endOffsets([...records, ...skipped], P)

      const target = BASE_TS + 45
      const fromTs = ends.map((_, p) => {
        const idx = records.filter((r) => r.partition === p).findIndex((r) => r.timestamp >= target)
        return idx === -1 ? ends[p]! : idx
      })
      const exact = [5, 7, 11]
      const gEarliest = `${groupId}-earliest`
      const gTs = `${groupId}-timestamp`
      const gLatest = `${groupId}-latest`
      const t0 = Date.now()
      await Promise.all([
        // Exact offsets on the (empty) group that has commits.
        (async () => {
          await admin.setOffsets({ groupId, topic, partitions: exact.map((offset, partition) => ({ partition, offset: String(offset) })) })
          assert.deepEqual(await committed(groupId), exact, 'committed after setOffsets')
        })(),
        // Earliest. kafkajs commits the special offset -2 (EARLIEST) as is, which must round-trip;
        // fetchOffsets({ resolveOffsets }) then turns it into the real offset and commits that.
        (async () => {
          await admin.resetOffsets({ groupId: gEarliest, topic, earliest: true })
          assert.deepEqual(await committed(gEarliest), [-2, -2, -2], 'committed after resetOffsets(earliest): -2 as kafkajs sent it')
          await admin.fetchOffsets({ groupId: gEarliest, topics: [topic], resolveOffsets: true })
          assert.deepEqual(await committed(gEarliest), zeros, 'committed after resolving -2')
        })(),
        // A timestamp: the first offset whose timestamp is at or after it.
        (async () => {
          const byTs = await admin.fetchTopicOffsetsByTimestamp(topic, target)
          assert.deepEqual(
            byTs.sort((a, b) => a.partition - b.partition).map((x) => Number(x.offset)),
            fromTs,
            'ListOffsets by timestamp',
          )
          await admin.setOffsets({ groupId: gTs, topic, partitions: byTs.map((x) => ({ partition: x.partition, offset: x.offset })) })
          assert.deepEqual(await committed(gTs), fromTs, 'committed after reset to a timestamp')
        })(),
        // Latest (-1, resolved to the end offsets).
        (async () => {
          await admin.resetOffsets({ groupId: gLatest, topic, earliest: false })
          assert.deepEqual(await committed(gLatest), [-1, -1, -1], 'committed after resetOffsets(latest): -1 as kafkajs sent it')
          await admin.fetchOffsets({ groupId: gLatest, topics: [topic], resolveOffsets: true })
          assert.deepEqual(await committed(gLatest), ends2, 'committed after resolving -1')
        })(),
      ])
      t.diagnostic(`resets took ${Date.now() - t0} ms`)
      for (const g of [groupId, gEarliest, gTs, gLatest])
        assert.equal((await inspector.describe(g, topic)).state, 'Empty', `${g} is empty after the reset`)

      // Consumers of those groups start where the reset put them. Each falls back to the opposite
      // end without a commit, so it is the reset, not the fallback, that chose the start.
      const more = makeRecords({ count: 30, numPartitions: P, client: 'kafkajs-admin-more', baseTimestamp: Date.now() })
      const [mExact, mEarliest, mTs, mLatest] = await Promise.all([
        member('admin-exact', groupId, 'latest'),
        member('admin-earliest', gEarliest, 'latest'),
        member('admin-timestamp', gTs, 'latest'),
        member('admin-latest', gLatest, 'earliest'),
      ])
      await waitSettled(inspector, gLatest, topic, [mLatest!], P)
      await base.produce(topic, more)
      const ends3 = endOffsets([...records, ...skipped, ...more], P)
      await assertConsumedRange(mExact!, exact, ends3, 'exact offsets')
      await assertConsumedRange(mEarliest!, zeros, ends3, 'earliest')
      await assertConsumedRange(mTs!, fromTs, ends3, `timestamp ${target}`)
      await assertConsumedRange(mLatest!, ends2, ends3, 'latest (skips the unread records)')
      await Promise.all(
        [mExact, mEarliest, mTs, mLatest].map(async (m) => {
          await waitCommitted(inspector, m!.opts.groupId, topic, ends3)
          await m!.stop()
        }),
      )

      // DeleteGroups of empty groups: their offsets go, they are no longer listed, describe says Dead.
      await admin.deleteGroups([groupId, gEarliest, gTs, gLatest])
      assert.deepEqual(await committed(groupId), [-1, -1, -1], 'no committed offsets after deleteGroups')
      const after = (await admin.listGroups()).groups
      assert.ok(!after.some((g) => g.groupId.startsWith(groupId)), `deleted groups not listed: ${JSON.stringify(after)}`)
      const dead = await inspector.describe(groupId, topic)
      assert.equal(dead.state, 'Dead')
      assert.equal(dead.members.length, 0)
    } catch (e) {
      t.diagnostic(`admin members:\n${cohort.summary()}`)
      throw e
    } finally {
      await cohort.stopAll()
    }
  })
})
