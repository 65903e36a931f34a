// Consumer groups with kcat -G (librdkafka 2.0's classic group consumer: non-flexible
// FindCoordinator, JoinGroup ≤5 with group.instance.id, SyncGroup ≤3, Heartbeat ≤3, LeaveGroup ≤1;
// range assignor first, cooperative-sticky on request) against a real broker process. Each member is a
// kcat process: SIGTERM closes it cleanly (commit, then LeaveGroup unless static), SIGKILL makes it
// vanish. kcat prints its rebalances on stderr, which is how the helpers learn assignments.
// Topics are created and the group inspected with @platformatic/kafka's admin (DescribeGroups v5
// shows the group.instance.id of static members); records are produced with kcat.

import assert from 'node:assert/strict'
import { after, before, describe, type TestContext, test } from 'node:test'
import { Admin } from '@platformatic/kafka'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { kcatInput, runKcat } from '../helpers/clients.js'
import {
  GROUP_BROKER_OVERRIDES,
  type GroupSuite,
  platformaticInspector,
  scenarioChurn,
  scenarioShare,
  scenarioStaticRestart,
  scenarioTwoGroups,
} from '../helpers/groups.js'

describe('consumer groups: kcat (librdkafka)', () => {
  let broker: BrokerProcess
  let admin: Admin
  let base: Omit<GroupSuite, 'log'>

  before(async () => {
    broker = await startBrokerProcess({ overrides: { ...GROUP_BROKER_OVERRIDES } })
    admin = new Admin({ clientId: 'it-groups-kcat-admin', bootstrapBrokers: [broker.bootstrap] })
    base = {
      client: 'kcat',
      bootstrap: broker.bootstrap,
      inspector: platformaticInspector(admin),
      createTopic: async (topic, partitions) => {
        await admin.createTopics({ topics: [topic], partitions, replicas: 1 })
      },
      produce: async (topic, records) => {
        const res = await runKcat(
          [
            '-P',
            '-b',
            broker.bootstrap,
            '-t',
            topic,
            '-K',
            '\t',
            '-X',
            'topic.partitioner=murmur2_random',
            '-X',
            'acks=all',
            '-X',
            'linger.ms=5',
          ],
          kcatInput(records),
        )
        assert.equal(res.code, 0, `kcat -P exited ${res.code}: ${res.stderr.slice(-2000)}`)
      },
    }
  })

  after(async () => {
    await admin?.close().catch(() => {})
    await stopAndCheck(broker)
  })

  const suite = (t: TestContext): GroupSuite => ({ ...base, log: (m) => t.diagnostic(m) })

  test('3 members on a 6-partition topic: disjoint non-empty shares, every record exactly once', (t) =>
    scenarioShare(suite(t), { label: 'share', members: 3, partitions: 6, records: 600 }))

  test('7 members on a 6-partition topic: one member owns nothing and receives nothing', (t) =>
    scenarioShare(suite(t), { label: 'idle', members: 7, partitions: 6, records: 300 }))

  test('a join, a clean leave (SIGTERM) and a kill (SIGKILL) each rebalance; no record skipped', (t) =>
    scenarioChurn(suite(t), { killable: {}, stopBeforeProducing: true }))

  test('cooperative-sticky (incremental rebalances, KIP-429): a join, a clean leave and a kill; no record skipped', (t) =>
    scenarioChurn(suite(t), { label: 'coop', killable: {}, member: { assignor: 'cooperative-sticky' }, stopBeforeProducing: true }))

  test('two groups on one topic each receive every record', (t) => scenarioTwoGroups(suite(t)))

  test('a static member (group.instance.id) stopped and restarted within its session timeout gets its partitions back without a rebalance', (t) =>
    scenarioStaticRestart(suite(t), { restartable: {}, restart: (m) => m.stop() }))

  test('the static leader stopped and restarted within its session timeout: partitions back, no rebalance', (t) =>
    scenarioStaticRestart(suite(t), { restartable: {}, restart: (m) => m.stop(), restartLeader: true }))
})
