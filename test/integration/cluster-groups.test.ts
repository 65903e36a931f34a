// Consumer groups over three brokers (etcd): a group's coordinator is the leader of its
// `__consumer_offsets` partition, and it moves with that leadership. A kafkajs group of two members
// consumes a replicated topic while an acks=all producer writes; the broker coordinating the group
// is killed with SIGKILL; kafkajs finds the new coordinator (FindCoordinator names the partition's
// new leader) and the group goes on. At the end every acknowledged record was consumed, and no
// committed offset was lost: the group's offsets are at least what they were before the kill, and
// a second, member-less group of the same partition, committed just before the kill (acks=all),
// reads back exactly from the new coordinator — which replayed the partition from its own log.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Consumer, Kafka, logLevel } from 'kafkajs'
import { commitOffsets, fetchCommittedOffsets, findCoordinator } from '../../src/client/admin-groups.js'
import { KafkaClient } from '../../src/client/client.js'
import { partitionForGroup } from '../../src/coordinator/group/persistence.js'
import { type Cluster, startCluster, startProducer, waitFor } from '../helpers/cluster.js'
import { GROUP_BROKER_OVERRIDES } from '../helpers/groups.js'

const OFFSETS_TOPIC = '__consumer_offsets'
const OFFSETS_PARTITIONS = 3
const TOPIC = 'orders'
const TOPIC_PARTITIONS = 3
const GROUP = 'failover-group'
/** Every wait is bounded by this (the brokers' session timeout is 2 s; the machine is shared). */
const WAIT_MS = 120_000

const retry = { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 }

/** Set when the test is done: a member that crashes then is not restarted (kafkajs would retry forever). */
let stopping = false

/** A kafkajs group member recording every value it receives and what went wrong on the way. */
interface Member {
  name: string
  consumer: Consumer
  received: Set<string>
  joins: number
  notes: string[]
}

async function startMember(name: string, bootstrap: string[]): Promise<Member> {
  const kafka = new Kafka({
    clientId: name,
    brokers: bootstrap,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 15_000,
    retry,
  })
  const consumer = kafka.consumer({
    groupId: GROUP,
    sessionTimeout: 10_000,
    heartbeatInterval: 500,
    rebalanceTimeout: 30_000,
    maxWaitTimeInMs: 500,
    // kafkajs restarts a crashed consumer (e.g. its coordinator died mid-request) by default.
    retry: { ...retry, restartOnFailure: async () => !stopping },
  })
  const m: Member = { name, consumer, received: new Set(), joins: 0, notes: [] }
  consumer.on(consumer.events.GROUP_JOIN, () => {
    m.joins++
  })
  consumer.on(consumer.events.CRASH, (e) => m.notes.push(`crash: ${String(e.payload.error)} restart=${e.payload.restart}`))
  await consumer.connect()
  await consumer.subscribe({ topics: [TOPIC], fromBeginning: true })
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (message.value) m.received.add(message.value.toString('utf8'))
    },
  })
  return m
}

/** Runs fn with a client of the project bootstrapped on the running brokers. */
async function withClient<T>(c: Cluster, fn: (client: KafkaClient) => Promise<T>): Promise<T> {
  const client = await KafkaClient.connect({ bootstrap: c.bootstrap().split(','), requestTimeoutMs: 15_000, connectTimeoutMs: 3000 })
  try {
    return await fn(client)
  } finally {
    await client.close()
  }
}

/** The group's committed offset per partition of TOPIC (-1: none). */
async function committedOf(c: Cluster, groupId: string): Promise<number[]> {
  const out = new Array<number>(TOPIC_PARTITIONS).fill(-1)
  for (const o of await withClient(c, (client) => fetchCommittedOffsets(client, groupId)))
    if (o.topic === TOPIC) out[o.partition] = o.offset
  return out
}

/** A group id other than GROUP whose offsets live in the same `__consumer_offsets` partition. */
function neighbourOf(groupId: string): string {
  const p = partitionForGroup(groupId, OFFSETS_PARTITIONS)
  for (let i = 0; ; i++) if (partitionForGroup(`witness-${i}`, OFFSETS_PARTITIONS) === p) return `witness-${i}`
}

describe('consumer groups across three brokers', () => {
  let c: Cluster
  const members: Member[] = []

  before(async () => {
    c = await startCluster({
      brokers: 3,
      overrides: {
        ...GROUP_BROKER_OVERRIDES,
        'offsets.topic.replication.factor': '3',
        'offsets.topic.num.partitions': String(OFFSETS_PARTITIONS),
        'default.replication.factor': '3',
        'min.insync.replicas': '2',
      },
    })
  })

  async function stopMembers(): Promise<void> {
    stopping = true
    for (const m of members.splice(0)) await m.consumer.disconnect().catch(() => {})
  }

  after(async () => {
    await stopMembers()
    await c?.close()
  })

  /** Broker stderr lines worth reading when something fails. */
  const brokerLog = () =>
    c
      .ids()
      .map(
        (id) =>
          `--- broker ${id} (${c.state(id)}) ---\n${c
            .stderr(id)
            .split('\n')
            .filter((l) => /warn|error|coordinator|offsets|lead/i.test(l))
            .slice(-40)
            .join('\n')}`,
      )
      .join('\n')

  it('a kafkajs group keeps consuming when the broker coordinating it is killed, and no committed offset is lost', async (t) => {
    const kafka = new Kafka({ clientId: 'setup', brokers: c.bootstrap().split(','), logLevel: logLevel.NOTHING, retry })
    const admin = kafka.admin({ retry })
    await admin.connect()
    try {
      assert.equal(
        await admin.createTopics({
          topics: [{ topic: TOPIC, numPartitions: TOPIC_PARTITIONS, replicationFactor: 3 }],
          waitForLeaders: true,
        }),
        true,
      )
    } finally {
      await admin.disconnect()
    }
    for (let p = 0; p < TOPIC_PARTITIONS; p++) {
      await waitFor(async () => (await c.partitionState(TOPIC, p)).isr.length === 3, `${TOPIC}-${p} to have 3 in-sync replicas`, WAIT_MS)
    }

    const producer = await startProducer({ bootstrap: c.bootstrap(), topic: TOPIC, client: 'kafkajs', batchSize: 5 })
    await producer.waitForAcked(100, WAIT_MS)
    const bootstrap = c.bootstrap().split(',')
    members.push(await startMember('m1', bootstrap), await startMember('m2', bootstrap))

    // The group has formed and is consuming and committing on every partition.
    const received = () => new Set(members.flatMap((m) => [...m.received]))
    await waitFor(
      async () => received().size >= 100 && (await committedOf(c, GROUP)).every((o) => o > 0),
      'the group to consume and commit on every partition',
      WAIT_MS,
      200,
    )

    const offsetsPartition = partitionForGroup(GROUP, OFFSETS_PARTITIONS)
    const coordinator = await withClient(c, (client) => findCoordinator(client, GROUP))
    assert.equal(
      coordinator,
      await c.leaderOf(OFFSETS_TOPIC, offsetsPartition),
      'the coordinator is the leader of the group’s offsets partition',
    )
    const isr = (await c.partitionState(OFFSETS_TOPIC, offsetsPartition)).isr
    assert.equal(isr.length, 3, `${OFFSETS_TOPIC}-${offsetsPartition} is replicated to every broker (ISR ${isr})`)

    // The last writes the coordinator acknowledges before it dies: a member-less group of the
    // same offsets partition (OffsetCommit with generation -1), and the group's own commits.
    const witness = neighbourOf(GROUP)
    const witnessOffsets = [11, 22, 33]
    const outcome = await withClient(c, (client) =>
      commitOffsets(
        client,
        witness,
        witnessOffsets.map((offset, partition) => ({ topic: TOPIC, partition, offset })),
      ),
    )
    assert.deepEqual(
      outcome.map((o) => o.error),
      [null, null, null],
    )
    const before = await committedOf(c, GROUP)
    const ackedBefore = producer.progress().acked
    await c.kill9(coordinator)
    t.diagnostic(
      `killed broker ${coordinator}, coordinator of ${GROUP} (${OFFSETS_TOPIC}-${offsetsPartition}); committed before: [${before}]`,
    )

    // A new leader of the offsets partition coordinates the group, from what its log holds.
    const next = await waitFor(
      async () => {
        const leader = await c.leaderOf(OFFSETS_TOPIC, offsetsPartition)
        if (leader < 0 || leader === coordinator) return undefined
        const found = await withClient(c, (client) => findCoordinator(client, GROUP))
        return found === leader ? found : undefined
      },
      'FindCoordinator to name the new leader of the offsets partition',
      WAIT_MS,
      200,
    )
    t.diagnostic(`broker ${next} coordinates ${GROUP} now`)
    const witnessAfter = await waitFor(
      async () => committedOf(c, witness),
      `the committed offsets of ${witness} from broker ${next}`,
      WAIT_MS,
      200,
    )
    assert.deepEqual(witnessAfter, witnessOffsets, `the commit acknowledged just before the kill survived\n${brokerLog()}`)

    // The group goes on: records produced after the kill are consumed too.
    await producer.waitForAcked(ackedBefore + 200, WAIT_MS)
    const result = await producer.stop()
    const acked = result.acked.map((a) => a.value)
    let missing: string[] = []
    try {
      await waitFor(
        () => {
          const got = received()
          missing = acked.filter((v) => !got.has(v))
          return missing.length === 0
        },
        'every acknowledged record to be consumed',
        WAIT_MS,
        200,
      )
    } catch (err) {
      assert.fail(
        `${String(err)}\nmissing ${missing.length} of ${acked.length} (first: ${missing.slice(0, 5)})\n${members.map((m) => `${m.name}: ${m.received.size} values, ${m.joins} joins, ${m.notes.slice(-3).join(' | ')}`).join('\n')}\n${brokerLog()}`,
      )
    }

    // Once everything is consumed, the group commits up to the last acknowledged record of every
    // partition, and never below what it had committed before the kill.
    const ends = new Array<number>(TOPIC_PARTITIONS).fill(0)
    for (const a of result.acked) ends[a.partition] = Math.max(ends[a.partition]!, a.offset + 1)
    let last: number[] = []
    await waitFor(
      async () => {
        last = await committedOf(c, GROUP)
        return last.every((o, p) => o >= ends[p]!)
      },
      `the group to commit up to [${ends}]`,
      WAIT_MS,
      200,
    ).catch((err) => assert.fail(`${String(err)}; committed [${last}]\n${brokerLog()}`))
    for (let p = 0; p < TOPIC_PARTITIONS; p++)
      assert.ok(last[p]! >= before[p]!, `partition ${p}: committed ${last[p]} ≥ ${before[p]} (before the kill)`)
    for (const m of members) assert.ok(m.joins >= 1, `${m.name} joined the group`)
    await stopMembers()
    t.diagnostic(
      `${acked.length} acknowledged records consumed; ${result.errors.length} produce attempts failed (retried through the failover); committed [${last}]`,
    )
  })
})
