// Two `tributary start` processes coordinated through a real etcd (test/helpers/etcd.ts):
// both register, exactly one is controller, a topic created through one broker shows in the
// other's Metadata, a kill -9 of the controller hands the role to the other within the lease TTL,
// a second broker with a taken id and a data dir of another cluster are refused, and the killed
// broker rejoins. Clients: the project's client (Metadata, DescribeCluster, CreateTopics to one
// chosen broker) and kafkajs (describeCluster, createTopics through the controller).
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import { createTopics } from '../../src/client/admin.js'
import { describeCluster } from '../../src/client/admin-topics.js'
import { KafkaClient } from '../../src/client/client.js'
import { type BrokerProcess, makeTempDir, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { waitFor } from '../helpers/clients.js'
import { type EtcdServer, startEtcd } from '../helpers/etcd.js'

/** The lease TTL of these brokers (etcd's smallest, 2 s): a dead controller is replaced within it. */
const SESSION_TIMEOUT_MS = 2000

let etcd: EtcdServer
const prefix = `/it-${randomBytes(6).toString('hex')}`
const dirs = [makeTempDir('tributary-etcd-b1-'), makeTempDir('tributary-etcd-b2-')]
const brokers = new Map<number, BrokerProcess>()

const overrides = (id: number, extra: Record<string, string> = {}) => ({
  'broker.id': String(id),
  'etcd.endpoints': etcd.endpoint,
  'etcd.prefix': prefix,
  'broker.session.timeout.ms': String(SESSION_TIMEOUT_MS),
  ...extra,
})

const start = (id: number, extra: Record<string, string> = {}, dataDir = dirs[id - 1]!.path) =>
  startBrokerProcess({ dataDir, overrides: overrides(id, extra) })

/** What one broker answers, asked directly (Metadata of every topic, and DescribeCluster). */
async function viewOf(b: BrokerProcess) {
  const client = await KafkaClient.connect({ bootstrap: [b.bootstrap] })
  try {
    const md = await client.metadata(null, { refresh: true })
    const dc = await describeCluster(client)
    return { md, dc, brokerIds: [...md.brokers.keys()].sort((x, y) => x - y) }
  } finally {
    await client.close()
  }
}

before(async () => {
  etcd = await startEtcd()
  const [b1, b2] = await Promise.all([start(1), start(2)])
  brokers.set(1, b1)
  brokers.set(2, b2)
})

after(async () => {
  for (const b of brokers.values()) await b.cleanup()
  for (const d of dirs) d.remove()
  await etcd?.stop()
})

describe('two brokers coordinated through etcd', () => {
  let controller = -1

  it('both register; each reports both brokers and the same single controller', async () => {
    const views = await waitFor(
      async () => {
        const vs = await Promise.all([viewOf(brokers.get(1)!), viewOf(brokers.get(2)!)])
        return vs.every((v) => v.brokerIds.join() === '1,2' && v.md.controllerId > 0) ? vs : undefined
      },
      'both brokers registered and a controller elected',
      20_000,
    )
    const [v1, v2] = views
    assert.equal(v1!.md.controllerId, v2!.md.controllerId, 'both report the same controller')
    assert.ok([1, 2].includes(v1!.md.controllerId))
    controller = v1!.md.controllerId
    assert.equal(v1!.md.clusterId, v2!.md.clusterId)
    for (const v of views) {
      assert.equal(v.dc.controllerId, controller, 'DescribeCluster agrees')
      assert.deepEqual(
        v.dc.brokers.map((b) => `${b.nodeId}@${b.host}:${b.port}`),
        [1, 2].map((id) => `${id}@${brokers.get(id)!.host}:${brokers.get(id)!.port}`),
      )
    }
    // A real client sees the same cluster.
    const kafka = new Kafka({ clientId: 'etcd-it', brokers: [brokers.get(1)!.bootstrap], logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    try {
      const c = await admin.describeCluster()
      assert.equal(c.controller, controller)
      assert.deepEqual(c.brokers.map((b) => b.nodeId).sort(), [1, 2])
      assert.equal(c.clusterId, v1!.md.clusterId)
    } finally {
      await admin.disconnect()
    }
  })

  it("a topic created through one broker is in the other's Metadata, with the same id", async () => {
    const other = controller === 1 ? 2 : 1
    // Straight to the broker that is not controller: the metadata is shared, not the broker's own.
    const client = await KafkaClient.connect({ bootstrap: [brokers.get(other)!.bootstrap] })
    try {
      const [res] = await createTopics(client, [{ name: 'shared', numPartitions: 3 }])
      assert.equal(res!.error, null, res!.message ?? '')
    } finally {
      await client.close()
    }
    const kafka = new Kafka({ clientId: 'etcd-it', brokers: [brokers.get(other)!.bootstrap], logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    try {
      assert.equal(await admin.createTopics({ topics: [{ topic: 'via-kafkajs', numPartitions: 2 }], waitForLeaders: false }), true)
    } finally {
      await admin.disconnect()
    }
    const [a, b] = await waitFor(
      async () => {
        const vs = await Promise.all([viewOf(brokers.get(1)!), viewOf(brokers.get(2)!)])
        return vs.every((v) => v.md.topics.has('shared') && v.md.topics.has('via-kafkajs')) ? vs : undefined
      },
      'both topics in both brokers',
      20_000,
    )
    for (const name of ['shared', 'via-kafkajs']) {
      const x = a!.md.topics.get(name)!
      const y = b!.md.topics.get(name)!
      assert.equal(x.topicId, y.topicId, `${name}: one topic id`)
      assert.equal(x.partitions.length, name === 'shared' ? 3 : 2)
      assert.equal(y.partitions.length, x.partitions.length)
    }
  })

  it('kill -9 of the controller: the other broker becomes controller within the lease TTL', async (t) => {
    const dead = controller
    const survivor = dead === 1 ? 2 : 1
    const killedAt = Date.now()
    await brokers.get(dead)!.kill9()
    const v = await waitFor(
      async () => {
        const view = await viewOf(brokers.get(survivor)!)
        return view.md.controllerId === survivor && view.brokerIds.join() === String(survivor) ? view : undefined
      },
      `broker ${survivor} elected controller and ${dead} gone`,
      30_000,
    )
    t.diagnostic(`controller failover after kill -9: ${Date.now() - killedAt} ms (lease TTL ${SESSION_TIMEOUT_MS} ms)`)
    assert.equal(v.dc.controllerId, survivor)
    assert.ok(v.md.topics.has('shared'), 'the metadata survives the controller')
    controller = survivor
  })

  it('a second broker with a taken id is refused with a clear error', async () => {
    const spare = makeTempDir('tributary-etcd-dup-')
    try {
      await assert.rejects(start(controller, {}, spare.path), (e: unknown) => {
        const msg = String(e)
        assert.match(msg, new RegExp(`broker\\.id ${controller} is already registered`))
        assert.match(msg, /another id/)
        return true
      })
    } finally {
      spare.remove()
    }
    assert.ok(brokers.get(controller)!.alive(), 'the registered broker is untouched')
  })

  it('a data dir of another cluster is refused before anything is touched', async () => {
    const foreign = makeTempDir('tributary-etcd-foreign-')
    try {
      writeFileSync(join(foreign.path, 'meta.properties'), 'version=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\nnode.id=9\n')
      await assert.rejects(start(9, {}, foreign.path), /belongs to cluster MkU3OEVBNTcwNTJENDM2Qk, but etcd holds cluster/)
    } finally {
      foreign.remove()
    }
  })

  it('the killed broker restarts on its data dir and rejoins as a follower of the elected controller', async () => {
    const id = controller === 1 ? 2 : 1
    const restarted = await start(id)
    brokers.set(id, restarted)
    const views = await waitFor(
      async () => {
        const vs = await Promise.all([viewOf(brokers.get(1)!), viewOf(brokers.get(2)!)])
        return vs.every((v) => v.brokerIds.join() === '1,2') ? vs : undefined
      },
      'both registered again',
      20_000,
    )
    for (const v of views) {
      assert.equal(v.md.controllerId, controller, 'the controller stays where it is')
      assert.ok(v.md.topics.has('shared'))
    }
    await stopAndCheck(brokers.get(1))
    await stopAndCheck(brokers.get(2))
    brokers.clear()
  })
})
