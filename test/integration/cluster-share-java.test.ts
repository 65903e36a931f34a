// A share group survives kill -9 of a broker: three broker processes over etcd
// (test/helpers/cluster.ts), the data topic, __consumer_offsets and __share_group_state at
// replication factor 3 (min.insync.replicas 2). Two Java 4.4 KafkaShareConsumers (the Share
// program of test/interop/java, explicit acknowledgement, commitSync after each poll) drain 20,000
// records of a 1-partition topic; once a third of them are acknowledged, the leader of that
// partition — the broker holding the share-partition's in-flight state — is killed with kill -9.
// A successor leader reads the share-partition's state from the share coordinator (KIP-932: the
// leader persists every acknowledgement through WriteShareGroupState before answering), so:
// - no acknowledgement is lost: an offset whose ACCEPT was committed is never delivered again;
// - no record is lost: every offset is accepted in the end (the ones in flight at the kill
//   redelivered after their locks go), or its acknowledgement was made durable but its answer lost
//   with the leader — and the group's lag ends at 0.
// Commits that fail while the leader moves are allowed (those records come again). Before that, a
// share group REJECTs records of a partition led by one broker into a dead-letter topic led by
// another (the leader's dead letters are produced to the other broker): each rejected record is
// there once, its __dlq.errors.* headers naming its source. Tributary only
// (a cluster of Tributary processes); missing java or mvn fails the file; it never skips.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { listShareGroupOffsets } from '../../src/client/admin-group-types.js'
import { KafkaClient } from '../../src/client/client.js'
import { type Cluster, startCluster, waitFor } from '../helpers/cluster.js'
import {
  buildJavaPrograms,
  deliveries,
  dumpTopic,
  type JavaPrograms,
  type LineProcess,
  share,
  startShareConsumer,
  stopShareConsumer,
  waitDeliveries,
} from '../interop/share-broker.js'

const WAIT_MS = 60_000
const TOPIC = 'share-fo'
const GROUP = 'share-fo-g'
const RECORDS = 20_000
const LOCK_MS = 5000

describe('share group: the share-partition leader killed with kill -9 mid-run (3 brokers, RF 3)', () => {
  let c: Cluster
  let java: JavaPrograms | undefined

  before(async () => {
    const [j, cluster] = await Promise.all([
      buildJavaPrograms(),
      startCluster({
        brokers: 3,
        overrides: {
          'offsets.topic.replication.factor': '3',
          'share.coordinator.state.topic.replication.factor': '3',
          'share.coordinator.state.topic.min.isr': '2',
          'group.share.min.record.lock.duration.ms': '1000',
          'replica.lag.time.max.ms': '10000',
        },
      }),
    ])
    java = j
    c = cluster
    const client = await KafkaClient.connect({ bootstrap: c.bootstrap().split(',') })
    try {
      await createTopics(client, [{ name: TOPIC, numPartitions: 1, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }])
    } finally {
      await client.close()
    }
    await waitFor(async () => (await c.partitionState(TOPIC, 0)).leader > 0 || undefined, `${TOPIC}-0 has a leader`, WAIT_MS)
  })

  after(async () => {
    await c?.close()
    java?.remove()
  })

  test('dead letters go to a topic led by another broker than the share-partition leader', { timeout: 2 * WAIT_MS }, async () => {
    const [source, dlq, group, records] = ['share-dlq-src', 'dlq.share-dlq-g', 'share-dlq-g', 50]
    const [leader, other] = c.liveIds()
    const client = await KafkaClient.connect({ bootstrap: c.bootstrap().split(',') })
    try {
      const created = await createTopics(client, [
        { name: source, assignments: [[leader!]] },
        { name: dlq, assignments: [[other!]], configs: { 'errors.deadletterqueue.group.enable': 'true' } },
      ])
      assert.deepEqual(
        created.map((t) => t.error),
        [null, null],
      )
    } finally {
      await client.close()
    }
    await waitFor(async () => (await c.partitionState(source, 0)).leader === leader || undefined, `${source}-0 led by ${leader}`, WAIT_MS)
    await waitFor(async () => (await c.partitionState(dlq, 0)).leader === other || undefined, `${dlq}-0 led by ${other}`, WAIT_MS)
    assert.deepEqual(await share(java!, ['produce', c.bootstrap(), source, String(records), '100']), [`PRODUCED ${records}`])
    const configured = await share(java!, [
      'group-config',
      c.bootstrap(),
      group,
      'share.auto.offset.reset=earliest',
      `errors.deadletterqueue.topic.name=${dlq}`,
    ])
    assert.deepEqual(configured, ['CONFIG OK'])
    const p = startShareConsumer(java!, c.bootstrap(), group, source, ['--mode', 'reject-every-5'])
    try {
      await waitDeliveries(p, (d) => new Set(d.map((x) => x.offset)).size >= records, 'every offset delivered', WAIT_MS)
    } finally {
      await stopShareConsumer(p)
    }
    const rejected = deliveries(p)
      .filter((x) => x.ack === 'reject')
      .map((x) => x.offset)
      .sort((a, b) => a - b)
    assert.deepEqual(
      rejected,
      Array.from({ length: records / 5 }, (_, i) => i * 5),
    )
    const dead = await dumpTopic(java!, c.bootstrap(), dlq, rejected.length, 30_000)
    const offsets = dead.map((r) => Number(r.headers.get('__dlq.errors.offset'))).sort((a, b) => a - b)
    assert.deepEqual(offsets, rejected, `dead letters: ${JSON.stringify(dead.map((r) => Object.fromEntries(r.headers)))}`)
    for (const r of dead) {
      assert.equal(r.headers.get('__dlq.errors.topic'), source)
      assert.equal(r.headers.get('__dlq.errors.group'), group)
    }
    console.log(
      `cluster-share-java: ${source}-0 led by broker ${leader}, ${dlq}-0 by broker ${other}: ${dead.length} dead letters written across`,
    )
  })

  test('no acknowledgement lost, no record lost', { timeout: 4 * WAIT_MS }, async () => {
    assert.deepEqual(await share(java!, ['produce', c.bootstrap(), TOPIC, String(RECORDS), '100']), [`PRODUCED ${RECORDS}`])
    const configured = await share(java!, [
      'group-config',
      c.bootstrap(),
      GROUP,
      'share.auto.offset.reset=earliest',
      `share.record.lock.duration.ms=${LOCK_MS}`,
    ])
    assert.deepEqual(configured, ['CONFIG OK'])
    let p: LineProcess | undefined
    let killed = -1
    try {
      p = startShareConsumer(java!, c.bootstrap(), GROUP, TOPIC, ['--consumers', '2', '--mode', 'accept'])
      await waitDeliveries(p, (d) => d.length >= RECORDS / 3, 'a third acknowledged', WAIT_MS)
      killed = (await c.partitionState(TOPIC, 0)).leader
      await c.kill9(killed)
      const ackedBefore = deliveries(p).length
      const context = () =>
        `${p!.context()}\n${c
          .liveIds()
          .map((id) => `broker ${id}:\n${c.stderr(id).slice(-3000)}`)
          .join('\n')}`
      // An offset whose acknowledgement was refused during the move (an F line) may still have been
      // made durable before the leader died — the answer was lost, not the acknowledgement — and
      // then it is rightly never delivered again; the group's lag (below) says nothing is left.
      const refused = () => new Set(p!.lines.filter((l) => l.startsWith('F ')).map((l) => Number(l.split(' ')[2])))
      await waitDeliveries(
        p,
        (d) => new Set([...d.map((x) => x.offset), ...refused()]).size >= RECORDS,
        'every offset acknowledged after the kill',
        2 * WAIT_MS,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${context()}`)
      })
      // Anything delivered again would come within a lock duration and some.
      await new Promise((r) => setTimeout(r, LOCK_MS + 2000))
      await stopShareConsumer(p)
      const all = deliveries(p)
      const accepted = new Map<number, number>()
      for (const d of all) accepted.set(d.offset, (accepted.get(d.offset) ?? 0) + 1)
      const twice = [...accepted].filter(([, n]) => n > 1).map(([o]) => o)
      assert.deepEqual(
        twice.slice(0, 20),
        [],
        `${twice.length} offsets accepted (and committed) twice: acknowledgements lost. ${context()}`,
      )
      const lost = refused()
      for (let o = 0; o < RECORDS; o++) assert.ok(accepted.has(o) || lost.has(o), `offset ${o} never acknowledged`)
      // Nothing is left to deliver: every record is acknowledged durably (or, as none was rejected, archived).
      const admin = await KafkaClient.connect({ bootstrap: c.bootstrap().split(','), clientId: 'it-share-fo' })
      try {
        let lag = -1
        for (let i = 0; i < 100 && lag !== 0; i++) {
          const offsets = await listShareGroupOffsets(admin, GROUP)
          lag = offsets.find((o) => o.topic === TOPIC && o.partition === 0)?.lag ?? -1
          if (lag !== 0) await new Promise((r) => setTimeout(r, 200))
        }
        assert.equal(lag, 0, `the share group still has records to deliver: ${context()}`)
      } finally {
        await admin.close()
      }
      const failed = p.lines.filter((l) => l.startsWith('F ')).length
      const redelivered = all.filter((d) => d.deliveryCount >= 2).length
      console.log(
        `cluster-share-java: leader ${killed} killed after ${ackedBefore} of ${RECORDS} acknowledgements; ` +
          `${redelivered} records redelivered, ${failed} acknowledgements refused during the move, none lost`,
      )
    } finally {
      if (p) await p.kill9()
      if (killed > 0) await c.restart(killed)
    }
  })
})
