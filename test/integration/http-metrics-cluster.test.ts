// /metrics on a cluster of three broker processes (test/helpers/cluster.ts): followers' fetches
// are counted as FetchFollower and replication bytes out; once one broker is killed, the
// survivors' leaders report under-replicated partitions, the controller no offline partition (two
// replicas of each are left), and exactly one broker counts itself the active controller; once it
// is back, its leaders count ISR expands and nothing is under-replicated.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import { type Cluster, startCluster, waitFor } from '../helpers/cluster.js'
import { type Family, sampleValue, scrape } from '../unit/http/metrics-text-parser.js'

const TOPIC = 'metrics-cluster'
const WAIT_MS = 60_000

const v = (f: Map<string, Family>, name: string, labels: Record<string, string> = {}) => sampleValue(f, name, labels) ?? 0

describe('/metrics on a cluster of three', () => {
  let c: Cluster

  before(async () => {
    c = await startCluster({ brokers: 3, overrides: { 'replica.lag.time.max.ms': '2000' } })
  })

  after(async () => {
    await c?.close()
  })

  const scrapeAll = (ids: number[]) => Promise.all(ids.map((id) => scrape(`${c.broker(id).http}/metrics`)))
  const total = (all: Array<Map<string, Family>>, name: string, labels: Record<string, string> = {}) =>
    all.reduce((n, f) => n + v(f, name, labels), 0)

  it('counts replication, then under-replicated partitions and ISR shrinks after a broker is killed', async () => {
    const kafka = new Kafka({ clientId: 'it-metrics-cluster', brokers: c.bootstrap().split(','), logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    const producer = kafka.producer()
    await admin.connect()
    await producer.connect()
    try {
      assert.equal(
        await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3, replicationFactor: 3 }], waitForLeaders: true }),
        true,
      )
      await producer.send({ topic: TOPIC, acks: -1, messages: [0, 1, 2].map((partition) => ({ partition, value: `v${partition}` })) })
    } finally {
      await producer.disconnect()
      await admin.disconnect()
    }
    // acks=-1 returned: every follower fetched the records. The leaders count their appends before
    // they answer, yet once, in a CI run on a loaded machine, the first scrape saw 1 of the 3 (not
    // seen again in many runs): the counts are waited for, and a missing one still fails here.
    let seenIn: number[] = []
    let all = await waitFor(
      async () => {
        const s = await scrapeAll([1, 2, 3])
        seenIn = s.map((f) => v(f, 'kafka_server_brokertopicmetrics_messagesin_total', { topic: TOPIC }))
        return total(s, 'kafka_server_brokertopicmetrics_messagesin_total', { topic: TOPIC }) >= 3 ? s : undefined
      },
      'the three records counted by their leaders',
      10_000,
      100,
    ).catch((err: Error) => assert.fail(`${err.message}; messagesin per broker: ${seenIn}`))
    assert.ok(total(all, 'kafka_network_requestmetrics_requests_total', { request: 'FetchFollower' }) > 0)
    assert.ok(total(all, 'kafka_server_brokertopicmetrics_replicationbytesout_total') > 0)
    assert.equal(total(all, 'kafka_server_brokertopicmetrics_messagesin_total', { topic: TOPIC }), 3, `per broker: ${seenIn}`)
    assert.equal(total(all, 'kafka_controller_kafkacontroller_activecontrollercount'), 1)
    assert.equal(total(all, 'kafka_server_replicamanager_underreplicatedpartitions'), 0)
    assert.ok(
      all.every((f) => v(f, 'kafka_server_replicamanager_partitioncount') >= 3),
      'each broker hosts a replica of each partition',
    )

    await c.kill9(3)
    all = await waitFor(
      async () => {
        const s = await scrapeAll([1, 2])
        return total(s, 'kafka_server_replicamanager_underreplicatedpartitions') >= 3 ? s : undefined
      },
      'the three partitions under-replicated on the survivors',
      WAIT_MS,
      250,
    )
    assert.equal(total(all, 'kafka_server_replicamanager_underreplicatedpartitions'), 3)
    assert.equal(total(all, 'kafka_server_replicamanager_leadercount'), 3)
    assert.equal(total(all, 'kafka_controller_kafkacontroller_offlinepartitionscount'), 0)
    assert.equal(total(all, 'kafka_controller_kafkacontroller_activecontrollercount'), 1)

    // Back, broker 3 catches up and its leaders add it to the ISR again (leader-made changes, the
    // ones Kafka's IsrExpandsPerSec counts; dropping a dead broker is the controller's, as in KRaft).
    await c.restart(3)
    all = await waitFor(
      async () => {
        const s = await scrapeAll([1, 2, 3])
        return total(s, 'kafka_server_replicamanager_underreplicatedpartitions') === 0 ? s : undefined
      },
      'no partition under-replicated once broker 3 is back',
      WAIT_MS,
      250,
    )
    assert.ok(total(all, 'kafka_server_replicamanager_isrexpands_total') >= 3)
  })
})
