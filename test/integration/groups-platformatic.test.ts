// Consumer groups with @platformatic/kafka 1.x against a real broker process. It speaks only
// flexible versions (FindCoordinator v4+ batched keys, JoinGroup v9, SyncGroup v5, Heartbeat v4,
// LeaveGroup v5 batch, OffsetCommit/OffsetFetch v8–9 multi-group, DescribeGroups v5, ListGroups
// v5 with state and type filters, DeleteGroups v2, OffsetDelete v0), assigns round-robin, and
// supports static membership (groupInstanceId).

import assert from 'node:assert/strict'
import { after, before, describe, type TestContext, test } from 'node:test'
import { Admin, compatibilityPartitioner, ProduceAcks, Producer, stringSerializers } from '@platformatic/kafka'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { makeRecords, type ProducedRecord } from '../helpers/clients.js'
import {
  Cohort,
  endOffsets,
  GROUP_BROKER_OVERRIDES,
  type GroupInspector,
  type GroupSuite,
  platformaticInspector,
  scenarioChurn,
  scenarioShare,
  scenarioStaticRestart,
  scenarioTwoGroups,
  waitAllReceived,
  waitCommitted,
  waitSettled,
  assertConsumedRange,
} from '../helpers/groups.js'

/** Kafka error ids (e.g. NON_EMPTY_GROUP) anywhere in a platformatic error tree. */
function errorIds(e: unknown, out: string[] = []): string[] {
  if (!e || typeof e !== 'object') return out
  const x = e as { apiId?: string; errors?: unknown[]; cause?: unknown }
  if (typeof x.apiId === 'string') out.push(x.apiId)
  for (const inner of x.errors ?? []) errorIds(inner, out)
  if (x.cause) errorIds(x.cause, out)
  return out
}

describe('consumer groups: @platformatic/kafka', () => {
  let broker: BrokerProcess
  let admin: Admin
  let producer: Producer<string, string, string, string>
  let inspector: GroupInspector
  let base: Omit<GroupSuite, 'log'>

  before(async () => {
    broker = await startBrokerProcess({ overrides: { ...GROUP_BROKER_OVERRIDES } })
    admin = new Admin({ clientId: 'it-groups-platformatic-admin', bootstrapBrokers: [broker.bootstrap] })
    producer = new Producer({
      clientId: 'it-groups-platformatic-producer',
      bootstrapBrokers: [broker.bootstrap],
      serializers: stringSerializers,
      partitioner: compatibilityPartitioner,
      autocreateTopics: false,
    })
    inspector = platformaticInspector(admin)
    base = {
      client: 'platformatic',
      bootstrap: broker.bootstrap,
      inspector,
      createTopic: async (topic, partitions) => {
        await admin.createTopics({ topics: [topic], partitions, replicas: 1 })
      },
      produce: async (topic, records) => {
        for (let i = 0; i < records.length; i += 500) {
          await producer.send({
            acks: ProduceAcks.ALL,
            messages: records.slice(i, i + 500).map((r) => ({ topic, key: r.key, value: r.value, timestamp: BigInt(r.timestamp) })),
          })
        }
      },
    }
  })

  after(async () => {
    await producer?.close().catch(() => {})
    await admin?.close().catch(() => {})
    await stopAndCheck(broker)
  })

  const suite = (t: TestContext): GroupSuite => ({ ...base, log: (m) => t.diagnostic(m) })

  test('3 members on a 6-partition topic: disjoint non-empty shares, every record exactly once', (t) =>
    scenarioShare(suite(t), { label: 'share', members: 3, partitions: 6, records: 600 }))

  test('7 members on a 6-partition topic: one member owns nothing and receives nothing', (t) =>
    scenarioShare(suite(t), { label: 'idle', members: 7, partitions: 6, records: 300 }))

  test('a join, a clean leave (close → LeaveGroup v5) and a kill (SIGKILL of a child-process consumer) each rebalance; no record skipped', (t) =>
    scenarioChurn(suite(t), { killable: { childProcess: true } }))

  test('two groups on one topic each receive every record', (t) => scenarioTwoGroups(suite(t)))

  test('a static member (groupInstanceId) killed and restarted within its session timeout gets its partitions back without a rebalance', (t) =>
    scenarioStaticRestart(suite(t), { restartable: { childProcess: true }, restart: (m) => m.kill() }))

  test('the static leader killed and restarted within its session timeout: partitions back, same generation, no rebalance (JoinGroup v9 skipAssignment)', (t) =>
    scenarioStaticRestart(suite(t), { restartable: { childProcess: true }, restart: (m) => m.kill(), restartLeader: true }))

  test('admin: list with state filter, describe, NON_EMPTY_GROUP, alter offsets of an empty group (generation -1), multi-group fetch, OffsetDelete, delete', async (t) => {
    const topic = 'platformatic-admin'
    const groupId = 'platformatic-admin-group'
    const other = 'platformatic-admin-other'
    const P = 3
    await base.createTopic(topic, P)
    const records: ProducedRecord[] = makeRecords({ count: 60, numPartitions: P, client: 'platformatic-admin', baseTimestamp: Date.now() })
    await base.produce(topic, records)
    const ends = endOffsets(records, P)
    const cohort = new Cohort()
    const member = (name: string, reset: 'earliest' | 'latest') =>
      cohort.add({ client: 'platformatic', name, bootstrap: broker.bootstrap, groupId, topic, reset })
    try {
      const m1 = await member('padmin-1', 'earliest')
      await waitSettled(inspector, groupId, topic, [m1], P)
      await waitAllReceived([m1], records)
      await waitCommitted(inspector, groupId, topic, ends)

      const stable = await admin.listGroups({ states: ['STABLE'] })
      assert.equal(stable.get(groupId)?.state, 'STABLE', 'listGroups(states=[STABLE]) lists the active group')
      assert.equal(stable.get(groupId)?.protocolType, 'consumer')
      assert.equal(stable.get(groupId)?.groupType, 'classic')
      const emptyBefore = await admin.listGroups({ states: ['EMPTY'] })
      assert.ok(!emptyBefore.has(groupId), 'listGroups(states=[EMPTY]) leaves the active group out')

      const g = (await admin.describeGroups({ groups: [groupId] })).get(groupId)
      assert.ok(g)
      assert.equal(g.state, 'STABLE')
      assert.equal(g.protocolType, 'consumer')
      assert.equal(g.protocol, 'roundrobin')
      assert.equal(g.members.size, 1)
      const gm = [...g.members.values()][0]!
      assert.equal(gm.id, m1.memberId)
      assert.equal(gm.clientId, 'padmin-1')
      assert.equal(gm.groupInstanceId ?? null, null)
      assert.deepEqual(gm.assignments?.get(topic)?.partitions, [0, 1, 2])
      assert.deepEqual(gm.metadata?.topics, [topic], 'member metadata (subscription) relayed as the client sent it')

      await assert.rejects(admin.deleteGroups({ groups: [groupId] }), (e: unknown) => {
        assert.ok(errorIds(e).includes('NON_EMPTY_GROUP'), `deleteGroups of an active group: ${String(e)} ids=${errorIds(e)}`)
        return true
      })
      await m1.stop()
      const emptyAfter = await admin.listGroups({ states: ['EMPTY'] })
      assert.equal(emptyAfter.get(groupId)?.state, 'EMPTY', 'listed as EMPTY once the member left')

      // OffsetCommit with generation -1 and no member id, for an empty group and for a group that
      // does not exist yet.
      const start = [5, 0, ends[2]!]
      await admin.alterConsumerGroupOffsets({
        groupId,
        topics: [{ name: topic, partitionOffsets: start.map((o, partition) => ({ partition, offset: BigInt(o) })) }],
      })
      await admin.alterConsumerGroupOffsets({
        groupId: other,
        topics: [{ name: topic, partitionOffsets: [1, 2, 3].map((o, partition) => ({ partition, offset: BigInt(o) })) }],
      })
      // OffsetFetch for two groups in one request (v8+), all topics (null).
      const fetched = await admin.listConsumerGroupOffsets({ groups: [groupId, other] })
      const offsetsOf = (id: string) => {
        const parts = fetched.find((x) => x.groupId === id)?.topics.find((x) => x.name === topic)?.partitions ?? []
        return [...parts].sort((a, b) => a.partitionIndex - b.partitionIndex).map((p) => Number(p.committedOffset))
      }
      assert.deepEqual(offsetsOf(groupId), start, `offsets of ${groupId}`)
      assert.deepEqual(offsetsOf(other), [1, 2, 3], `offsets of ${other}`)
      // require_stable (v7+): nothing transactional is pending, so the same answer, no error.
      const stableFetch = await admin.listConsumerGroupOffsets({ groups: [other], requireStable: true })
      assert.deepEqual(
        stableFetch[0]?.topics
          .find((x) => x.name === topic)
          ?.partitions.map((p) => Number(p.committedOffset))
          .sort((a, b) => a - b),
        [1, 2, 3],
        'OffsetFetch with requireStable',
      )
      assert.equal(
        (await admin.listGroups({ states: ['EMPTY'] })).get(other)?.state,
        'EMPTY',
        'a group created by a commit is listed as EMPTY',
      )

      // A consumer of the group starts exactly there (its own fallback would be latest).
      const m2 = await member('padmin-2', 'latest')
      await waitSettled(inspector, groupId, topic, [m2], P)
      const more = makeRecords({ count: 30, numPartitions: P, client: 'platformatic-admin-more', baseTimestamp: Date.now() })
      await base.produce(topic, more)
      const ends2 = endOffsets([...records, ...more], P)
      await assertConsumedRange(m2, start, ends2, 'altered offsets')

      // OffsetDelete: refused for a topic the group's members subscribe to, allowed otherwise.
      await assert.rejects(
        admin.deleteConsumerGroupOffsets({ groupId, topics: [{ name: topic, partitionIndexes: [0] }] }),
        (e: unknown) => {
          assert.ok(
            errorIds(e).includes('GROUP_SUBSCRIBED_TO_TOPIC'),
            `OffsetDelete on a subscribed topic: ${String(e)} ids=${errorIds(e)}`,
          )
          return true
        },
      )
      await admin.deleteConsumerGroupOffsets({ groupId: other, topics: [{ name: topic, partitionIndexes: [0] }] })
      assert.deepEqual(await inspector.committed(other, topic, P), [-1, 2, 3], 'OffsetDelete removed partition 0 only')
      await waitCommitted(inspector, groupId, topic, ends2)
      await m2.stop()

      await assert.rejects(admin.deleteGroups({ groups: ['platformatic-never-existed'] }), (e: unknown) => {
        assert.ok(errorIds(e).includes('GROUP_ID_NOT_FOUND'), `deleteGroups of an unknown group: ${String(e)} ids=${errorIds(e)}`)
        return true
      })
      await admin.deleteGroups({ groups: [groupId, other] })
      const listed = await admin.listGroups()
      assert.ok(!listed.has(groupId) && !listed.has(other), 'deleted groups are not listed')
      assert.deepEqual(await inspector.committed(groupId, topic, P), [-1, -1, -1], 'no offsets after deleteGroups')
      const dead = (await admin.describeGroups({ groups: [groupId] })).get(groupId)
      assert.equal(dead?.state, 'DEAD')
      assert.equal(dead?.members.size, 0)
    } catch (e) {
      t.diagnostic(`admin members:\n${cohort.summary()}`)
      throw e
    } finally {
      await cohort.stopAll()
    }
  })
})
