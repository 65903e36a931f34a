// Partition reassignment over etcd (KIP-455) and leader elections (KIP-460), end to end.
//
// Three brokers hold a topic of 6 partitions with 2 replicas each while a kafkajs acks=all
// producer and a kafkajs consumer group run; a fourth broker joins; `tributary cluster rebalance`
// prints its plan (changing nothing), then with --execute moves replicas onto the new broker —
// first for the data topic alone, then for every topic, `__consumer_offsets` included — waits for
// the moves and elects the preferred leaders. Afterwards broker 4 holds replicas and leads
// partitions, replicas and leaders are spread within one, no reassignment is left, brokers that
// lost a replica removed its log, and the consumer got every acknowledged record: per partition in
// offset order with nothing skipped, each value as acknowledged. A record comes twice only where
// kafkajs rejoined its group — it does on NOT_LEADER_OR_FOLLOWER, when a leader moved, and goes
// back to its last commit (at-least-once, the same against Apache Kafka).
// Then: kafkajs's alterPartitionReassignments / listPartitionReassignments with their errors; a move
// to a paused broker stays in progress, is listed (CLI and kafkajs) and cancelled; elect-leaders
// restores the preferred leaders a failover moved. Last, a single broker: only [self] is a valid
// assignment and no election is ever needed (ElectLeaders v0 included).
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type Admin, type Consumer, Kafka, logLevel } from 'kafkajs'
import { alterPartitionReassignments, electLeaders, listPartitionReassignments } from '../../src/client/admin-cluster.js'
import { KafkaClient } from '../../src/client/client.js'
import type { ClusterMetadata } from '../../src/client/metadata.js'
import { ElectLeadersRequest, ElectLeadersResponse } from '../../src/protocol/messages/43-elect-leaders.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { type CliRun, tributary } from '../helpers/cli.js'
import { type Cluster, type ContinuousProducer, startCluster, startProducer, waitFor } from '../helpers/cluster.js'
import { GROUP_BROKER_OVERRIDES } from '../helpers/groups.js'

const TOPIC = 'moves'
const PARTITIONS = 6
const GROUP = 'reassign-it'
/** Every wait is bounded by this (session timeout 2 s; the machine is shared). */
const WAIT_MS = 120_000
const retry = { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 }

function show(r: CliRun): string {
  return `exit ${r.code ?? r.signal}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`
}

async function withClient<T>(bootstrap: string, fn: (client: KafkaClient) => Promise<T>): Promise<T> {
  const client = await KafkaClient.connect({ bootstrap: bootstrap.split(','), requestTimeoutMs: 15_000, connectTimeoutMs: 3000 })
  try {
    return await fn(client)
  } finally {
    await client.close()
  }
}

/** Every broker's replica and leader counts over every partition of the cluster. */
function loads(md: ClusterMetadata): Map<number, { replicas: number; leaders: number }> {
  const out = new Map([...md.brokers.keys()].map((b) => [b, { replicas: 0, leaders: 0 }]))
  for (const t of md.topics.values()) {
    for (const p of t.partitions) {
      for (const r of p.replicas) out.get(r)!.replicas++
      if (p.leader >= 0) out.get(p.leader)!.leaders++
    }
  }
  return out
}

interface Delivery {
  partition: number
  offset: number
  value: string
  /** How many times the consumer had joined its group when the record arrived. */
  joins: number
}

/**
 * What is wrong with a consumer's deliveries, per partition in arrival order: each record follows
 * the previous one's offset (nothing skipped), starting at 0; an offset comes again only after
 * the consumer rejoined its group since the last time that happened (kafkajs rejoins on
 * NOT_LEADER_OR_FOLLOWER and resumes from its last commit — at-least-once, as against Kafka); a
 * record read twice has the same value both times.
 */
function deliveryProblems(deliveries: readonly Delivery[]): { problems: string[]; again: number } {
  const last = new Map<number, number>()
  const rewoundAtJoin = new Map<number, number>()
  const values = new Map<string, string>()
  const problems: string[] = []
  let again = 0
  for (const d of deliveries) {
    const prev = last.get(d.partition) ?? -1
    if (d.offset > prev + 1) problems.push(`partition ${d.partition}: offset ${d.offset} follows ${prev}`)
    if (d.offset <= prev) {
      if (d.joins <= (rewoundAtJoin.get(d.partition) ?? 1))
        problems.push(`partition ${d.partition}: offset ${d.offset} again after ${prev}, without a group rejoin`)
      rewoundAtJoin.set(d.partition, d.joins)
    }
    last.set(d.partition, d.offset)
    const k = `${d.partition}:${d.offset}`
    const before = values.get(k)
    if (before !== undefined) {
      again++
      if (before !== d.value) problems.push(`${k} read as ${before} and then as ${d.value}`)
    }
    values.set(k, d.value)
  }
  return { problems, again }
}

describe('partition reassignment across brokers', () => {
  let c: Cluster
  let consumer: Consumer | undefined
  let admin: Admin | undefined
  // The clients run from the first test to the end of the second.
  let producer: ContinuousProducer | undefined
  const deliveries: Delivery[] = []
  const consumerLog: string[] = []
  let joins = 0

  before(async () => {
    c = await startCluster({
      brokers: 3,
      overrides: {
        ...GROUP_BROKER_OVERRIDES,
        'offsets.topic.replication.factor': '3',
        'offsets.topic.num.partitions': '3',
        // Leaders move only when the tests say so.
        'auto.leader.rebalance.enable': 'false',
      },
    })
  })

  after(async () => {
    await consumer?.disconnect().catch(() => {})
    await admin?.disconnect().catch(() => {})
    await c?.close()
  })

  const brokerLog = () =>
    c
      .ids()
      .map(
        (id) =>
          `--- broker ${id} (${c.state(id)}) ---\n${c
            .stderr(id)
            .split('\n')
            .filter((l) => /warn|error|reassign|controller/i.test(l))
            .slice(-30)
            .join('\n')}`,
      )
      .join('\n')

  const kafkajsAdmin = async (): Promise<Admin> => {
    if (!admin) {
      const kafka = new Kafka({ clientId: 'reassign-admin', brokers: c.bootstrap().split(','), logLevel: logLevel.NOTHING, retry })
      admin = kafka.admin({ retry })
      await admin.connect()
    }
    return admin
  }

  /** Waits until every broker holds a log exactly for the partitions of `topics` it is a replica of. */
  async function logsFollowReplicas(topics: string[]): Promise<void> {
    let wrong: string[] = []
    await waitFor(
      async () => {
        const md = await withClient(c.bootstrap(), (client) => client.metadata(topics, { refresh: true }))
        wrong = []
        for (const b of c.liveIds()) {
          for (const topic of topics) {
            for (const p of md.topics.get(topic)!.partitions) {
              const has = existsSync(join(c.dataDir(b), `${topic}-${p.partition}`))
              if (has !== p.replicas.includes(b))
                wrong.push(`broker ${b} ${has ? 'holds' : 'lacks'} ${topic}-${p.partition} (replicas ${p.replicas})`)
            }
          }
        }
        return wrong.length === 0
      },
      'every broker to hold logs only for its replicas',
      WAIT_MS,
      200,
    ).catch((err) => assert.fail(`${String(err)}: ${wrong.join('; ')}`))
  }

  // First the data topic alone (--topic), whose plan is easy to predict; then everything.
  it('rebalance --topic --execute moves replicas onto a new broker while a producer and a consumer run', async (t) => {
    const a = await kafkajsAdmin()
    assert.equal(
      await a.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS, replicationFactor: 2 }], waitForLeaders: true }),
      true,
    )
    for (let p = 0; p < PARTITIONS; p++) {
      await waitFor(async () => (await c.partitionState(TOPIC, p)).isr.length === 2, `${TOPIC}-${p} to have 2 in-sync replicas`, WAIT_MS)
    }

    producer = await startProducer({ bootstrap: c.bootstrap(), topic: TOPIC, client: 'kafkajs', batchSize: 5 })
    await producer.waitForAcked(100, WAIT_MS)
    const kafka = new Kafka({
      clientId: 'reassign-consumer',
      brokers: c.bootstrap().split(','),
      logLevel: logLevel.INFO,
      logCreator: () => (e) => {
        consumerLog.push(
          `${e.log.timestamp} ${e.label} ${e.log.message} ${JSON.stringify({ ...e.log, message: undefined, timestamp: undefined, logger: undefined })}`,
        )
      },
      retry,
    })
    consumer = kafka.consumer({ groupId: GROUP, sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 500, retry })
    consumer.on(consumer.events.GROUP_JOIN, () => {
      joins++
    })
    await consumer.connect()
    await consumer.subscribe({ topics: [TOPIC], fromBeginning: true })
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        deliveries.push({ partition, offset: Number(message.offset), value: message.value?.toString('utf8') ?? '', joins })
      },
    })
    await waitFor(() => deliveries.length >= 100, 'the consumer to receive 100 records', WAIT_MS, 100)

    consumerLog.push(`${new Date().toISOString()} TEST: adding broker 4`)
    const added = await c.addBroker()
    assert.equal(added, 4)
    await c.waitForMetadataBrokers([1, 2, 3, 4])
    const metadata = () => withClient(c.bootstrap(), (client) => client.metadata(null, { refresh: true }))
    assert.equal(loads(await metadata()).get(4)?.replicas, 0, 'the new broker holds nothing yet')

    // The dry run: a plan that puts replicas on broker 4, and nothing changes.
    const bs = ['--bootstrap-server', c.bootstrap()]
    const dry = await tributary(['cluster', 'rebalance', '--topic', TOPIC, '--json', ...bs])
    assert.equal(dry.code, 0, show(dry))
    const plan = JSON.parse(dry.stdout) as {
      brokers: number[]
      moves: Array<{ topic: string; partition: number; from: number[]; to: number[] }>
      after: Array<{ broker: number; replicas: number; leaders: number }>
      executed: boolean
    }
    assert.equal(plan.executed, false)
    assert.deepEqual(plan.brokers, [1, 2, 3, 4])
    assert.ok(plan.moves.length > 0 && plan.moves.every((m) => m.topic === TOPIC), dry.stdout)
    assert.ok(
      plan.moves.some((m) => m.to.includes(4)),
      `the plan moves replicas to broker 4: ${dry.stdout}`,
    )
    assert.deepEqual(
      plan.after.map((l) => l.replicas),
      [3, 3, 3, 3],
      'the plan spreads the 12 replicas evenly',
    )
    const human = await tributary(['cluster', 'rebalance', '--topic', TOPIC, ...bs])
    assert.equal(human.code, 0, show(human))
    assert.match(human.stdout, /^BROKER +REPLICAS +AFTER +LEADERS +AFTER$/m)
    assert.match(human.stdout, /^ +4 +0 +3 +0 +[12]$/m)
    assert.match(human.stdout, /^TOPIC +PARTITION +REPLICAS +NEW REPLICAS$/m)
    assert.match(human.stdout, /Dry run: nothing was changed/)
    const unchanged = await metadata()
    assert.equal(loads(unchanged).get(4)?.replicas, 0)
    const planned = unchanged.topics
      .get(TOPIC)!
      .partitions.map((p) => plan.moves.find((m) => m.partition === p.partition)?.to ?? p.replicas)

    consumerLog.push(`${new Date().toISOString()} TEST: rebalance --execute starts`)
    const run = await tributary(['cluster', 'rebalance', '--topic', TOPIC, '--execute', '--poll-interval-ms', '200', ...bs], {
      timeoutMs: WAIT_MS * 2,
    })
    for (const line of run.stdout.trimEnd().split('\n').slice(-8)) t.diagnostic(line)
    assert.equal(run.code, 0, `${show(run)}\n${brokerLog()}`)
    assert.match(run.stdout, new RegExp(`Rebalance done in [\\d.]+ s: ${plan.moves.length} partition\\(s\\) reassigned`))
    assert.match(
      run.stderr,
      new RegExp(`rebalance: ${plan.moves.length}/${plan.moves.length} partitions done`),
      'the progress line reached the end',
    )
    assert.doesNotMatch(run.stderr, /warning/)

    // Broker 4 holds replicas and leads partitions; leaders are the preferred (first) replicas.
    const md = await metadata()
    const partitions = md.topics.get(TOPIC)!.partitions
    assert.deepEqual(
      partitions.map((p) => p.replicas),
      planned,
      'the replicas the plan named',
    )
    assert.ok(
      partitions.some((p) => p.leader === 4),
      `broker 4 leads a partition: ${partitions.map((p) => p.leader)}`,
    )
    for (const p of partitions)
      assert.equal(p.leader, p.replicas[0], `${TOPIC}-${p.partition} is led by its preferred replica (replicas ${p.replicas})`)
    assert.deepEqual((await a.listPartitionReassignments({})).topics, [], 'no reassignment left (kafkajs)')
    assert.deepEqual(await withClient(c.bootstrap(), (client) => listPartitionReassignments(client)), [])

    // A broker that lost a replica removed its log; a new one has it.
    assert.ok(
      plan.moves.some((m) => m.from.some((b) => !m.to.includes(b))),
      'some replica left a broker',
    )
    await logsFollowReplicas([TOPIC])
  })

  it('rebalance --execute over every topic, internal ones included: replicas and leaders spread evenly; no record lost', async (t) => {
    const bs = ['--bootstrap-server', c.bootstrap()]
    const run = await tributary(['cluster', 'rebalance', '--execute', '--json', '--poll-interval-ms', '200', ...bs], {
      timeoutMs: WAIT_MS * 2,
    })
    assert.equal(run.code, 0, `${show(run)}\n${brokerLog()}`)
    const out = JSON.parse(run.stdout) as {
      executed: boolean
      moves: Array<{ topic: string; partition: number; from: number[]; to: number[] }>
      failed: unknown[]
      elections: { elected: number; notNeeded: number; failed: unknown[] }
    }
    t.diagnostic(
      `moves: ${out.moves.map((m) => `${m.topic}-${m.partition} ${m.from}→${m.to}`).join(', ')}; elections ${JSON.stringify(out.elections)}`,
    )
    assert.equal(out.executed, true)
    assert.ok(
      out.moves.some((m) => m.topic === '__consumer_offsets'),
      'the internal topic moves too',
    )
    assert.deepEqual([out.failed, out.elections.failed], [[], []])

    const md = await withClient(c.bootstrap(), (client) => client.metadata(null, { refresh: true }))
    const after = loads(md)
    t.diagnostic(`after: ${JSON.stringify([...after])}`)
    const replicas = [...after.values()].map((l) => l.replicas)
    const leaders = [...after.values()].map((l) => l.leaders)
    assert.ok(Math.max(...replicas) - Math.min(...replicas) <= 1, `replicas spread within one: ${replicas}`)
    assert.ok(Math.max(...leaders) - Math.min(...leaders) <= 1, `leaders spread within one: ${leaders}`)
    for (const topic of md.topics.values()) {
      for (const p of topic.partitions) {
        assert.equal(p.leader, p.replicas[0], `${topic.name}-${p.partition} is led by its preferred replica (replicas ${p.replicas})`)
        assert.equal(p.replicas.length, topic.name === TOPIC ? 2 : 3, `${topic.name}-${p.partition} keeps its replication factor`)
      }
    }
    assert.deepEqual(await withClient(c.bootstrap(), (client) => listPartitionReassignments(client)), [])
    await logsFollowReplicas([TOPIC, '__consumer_offsets'])

    // The records: every acknowledged one consumed, in order; read again only after a rejoin.
    await producer!.waitForAcked(producer!.progress().acked + 50, WAIT_MS)
    const produced = await producer!.stop()
    const want = new Map(produced.acked.map((r) => [`${r.partition}:${r.offset}`, r.value]))
    const got = () => new Set(deliveries.map((d) => `${d.partition}:${d.offset}`))
    await waitFor(
      () => {
        const g = got()
        return [...want.keys()].every((k) => g.has(k))
      },
      'the consumer to receive every acknowledged record',
      WAIT_MS,
      200,
    ).catch((err) => assert.fail(`${String(err)}: ${deliveries.length} deliveries, ${want.size} acknowledged\n${brokerLog()}`))
    const { problems, again } = deliveryProblems(deliveries)
    assert.deepEqual(problems, [], `${joins} group joins\n${consumerLog.join('\n')}\n${brokerLog()}`)
    const seen = new Map(deliveries.map((d) => [`${d.partition}:${d.offset}`, d.value]))
    for (const [k, value] of want) assert.equal(seen.get(k), value, `the record at ${k}`)
    t.diagnostic(
      `${want.size} acknowledged records consumed; ${again} read again after ${joins - 1} group rejoin(s); ${produced.errors.length} produce attempts retried`,
    )
    await consumer!.disconnect()
    consumer = undefined

    // Balanced: a second run has nothing to move.
    const balanced = await tributary(['cluster', 'rebalance', ...bs])
    assert.equal(balanced.code, 0, show(balanced))
    assert.match(balanced.stdout, /The replicas are balanced: nothing to move\./)
  })

  it('kafkajs alterPartitionReassignments and listPartitionReassignments; invalid moves are refused', async () => {
    const a = await kafkajsAdmin()
    const md = await withClient(c.bootstrap(), (client) => client.metadata([TOPIC], { refresh: true }))
    const current = md.topics.get(TOPIC)!.partitions[0]!.replicas
    const outsider = [1, 2, 3, 4].find((b) => !current.includes(b))!
    const target = [outsider, current[0]!]
    await a.alterPartitionReassignments({ topics: [{ topic: TOPIC, partitionAssignment: [{ partition: 0, replicas: target }] }] })
    await waitFor(
      async () => (await a.listPartitionReassignments({ topics: [{ topic: TOPIC, partitions: [0] }] })).topics.length === 0,
      'the move to finish',
      WAIT_MS,
      100,
    )
    // The leader stays (it is one of the target replicas); the new preferred replica takes over
    // through ElectLeaders. (Metadata is polled: each broker's view of the store catches up.)
    const stateIs = (replicas: number[], leader: number) =>
      waitFor(
        async () => {
          const s = await c.partitionState(TOPIC, 0)
          return s.replicas.join() === replicas.join() && s.leader === leader
        },
        `${TOPIC}-0 to have replicas ${replicas} led by ${leader}`,
        WAIT_MS,
        100,
      )
    await stateIs(target, current[0]!)
    const [elected] = await withClient(c.bootstrap(), (client) => electLeaders(client, 'preferred', [{ topic: TOPIC, partition: 0 }]))
    assert.equal(elected!.error, null)
    await stateIs(target, outsider)

    const refused = async (replicas: number[], partition = 0, topic = TOPIC) => {
      try {
        await a.alterPartitionReassignments({ topics: [{ topic, partitionAssignment: [{ partition, replicas }] }] })
      } catch (err) {
        const e = err as { errors?: Array<{ type?: string }>; type?: string }
        return e.errors?.[0]?.type ?? e.type ?? String(err)
      }
      return 'accepted'
    }
    assert.equal(await refused([target[0]!, 99]), 'INVALID_REPLICA_ASSIGNMENT')
    assert.equal(await refused([target[0]!, target[0]!]), 'INVALID_REPLICA_ASSIGNMENT')
    assert.equal(await refused([1], 42), 'UNKNOWN_TOPIC_OR_PARTITION')
    assert.equal(await refused([1], 0, 'no-such-topic'), 'UNKNOWN_TOPIC_OR_PARTITION')

    // Through the project's client: an empty list, KIP-860, cancelling nothing.
    const outcomes = await withClient(c.bootstrap(), (client) =>
      alterPartitionReassignments(
        client,
        [
          { topic: TOPIC, partition: 1, replicas: [] },
          { topic: TOPIC, partition: 2, replicas: [1, 2, 3] },
          { topic: TOPIC, partition: 3, replicas: null },
        ],
        { allowReplicationFactorChange: false },
      ),
    )
    assert.deepEqual(
      outcomes.map((o) => o.error),
      ['INVALID_REPLICA_ASSIGNMENT', 'INVALID_REPLICATION_FACTOR', 'NO_REASSIGNMENT_IN_PROGRESS'],
    )
    assert.deepEqual((await a.listPartitionReassignments({})).topics, [])
  })

  it('a move to a paused broker stays in progress, is listed, and cancelled; elect-leaders restores preferred leaders', async (t) => {
    const partition = 4
    const original = (await c.partitionState(TOPIC, partition)).replicas
    // Not the controller, which the requests below go to.
    const controller = await c.waitForMetadataBrokers([1, 2, 3, 4])
    const stuck = [1, 2, 3, 4].find((b) => !original.includes(b) && b !== controller)!
    // Paused first, so it cannot catch up; its registration lasts until the lease expires, and a
    // move refused because it expired already is tried again after it registers anew.
    await waitFor(
      async () => {
        c.pause(stuck)
        let error: string | null = 'no answer'
        try {
          const [r] = await withClient(c.bootstrap(), (client) =>
            alterPartitionReassignments(client, [{ topic: TOPIC, partition, replicas: [original[0]!, stuck] }]),
          )
          error = r!.error
        } finally {
          if (error !== null) {
            c.resume(stuck)
            await c.waitForMetadataBrokers([1, 2, 3, 4])
          }
        }
        return error === null
      },
      `a move to paused broker ${stuck}`,
      WAIT_MS,
      0,
    )
    // A kafkajs admin that knows only the controller: one that has a connection to the paused
    // broker may send it its metadata requests, which a paused broker never answers.
    const kafka = new Kafka({ clientId: 'reassign-admin-2', brokers: [c.broker(controller).bootstrap], logLevel: logLevel.NOTHING, retry })
    const a = kafka.admin({ retry })
    await a.connect()
    try {
      const listed = await a.listPartitionReassignments({})
      assert.deepEqual(listed.topics, [
        {
          name: TOPIC,
          partitions: [
            { partition, replicas: [original[0]!, stuck, original[1]!], addingReplicas: [stuck], removingReplicas: [original[1]!] },
          ],
        },
      ])
      const cli = await tributary(['cluster', 'reassignments', '--bootstrap-server', c.bootstrap()])
      assert.equal(cli.code, 0, show(cli))
      assert.match(cli.stdout, /^TOPIC +PARTITION +REPLICAS +ADDING +REMOVING$/m)
      assert.match(
        cli.stdout,
        new RegExp(`^${TOPIC} +${partition} +${original[0]},${stuck},${original[1]} +${stuck} +${original[1]}$`, 'm'),
      )
      const json = await tributary(['cluster', 'reassignments', '--json', '--bootstrap-server', c.bootstrap()])
      assert.deepEqual(JSON.parse(json.stdout), [
        {
          topic: TOPIC,
          partition,
          replicas: [original[0]!, stuck, original[1]!],
          addingReplicas: [stuck],
          removingReplicas: [original[1]!],
        },
      ])
      // A rebalance is not planned over a move in progress.
      const refused = await tributary(['cluster', 'rebalance', '--bootstrap-server', c.bootstrap()])
      assert.equal(refused.code, 1, show(refused))
      assert.match(refused.stderr, /1 partition reassignment\(s\) already in progress/)
      const [cancel] = await withClient(c.bootstrap(), (client) =>
        alterPartitionReassignments(client, [{ topic: TOPIC, partition, replicas: null }]),
      )
      assert.equal(cancel!.error, null)
      assert.deepEqual(new Set((await c.partitionState(TOPIC, partition)).replicas), new Set(original))
      assert.deepEqual((await a.listPartitionReassignments({})).topics, [])
      const none = await tributary(['cluster', 'reassignments', '--bootstrap-server', c.bootstrap()])
      assert.equal(none.stdout, 'No partition reassignment in progress.\n')
      // Its registration expires while it is paused: the partitions it led fail over.
      await waitFor(async () => !(await c.registeredIds()).includes(stuck), `broker ${stuck} to leave etcd`, WAIT_MS, 100)
    } finally {
      if (c.state(stuck) === 'paused') c.resume(stuck)
      await a.disconnect()
    }

    // The partitions it prefers are led elsewhere now; once it is back in their ISR, a preferred
    // election gives them back. (Metadata from a broker that was not paused: the paused one's view
    // of the store catches up after it resumes.)
    await c.waitForMetadataBrokers([1, 2, 3, 4])
    const other = c.liveIds().find((b) => b !== stuck)!
    const view = () => withClient(c.broker(other).bootstrap, (client) => client.metadata(null, { refresh: true }))
    const partitionsWhere = (md: ClusterMetadata, pred: (p: { leader: number; replicas: number[]; isr: number[] }) => boolean) =>
      [...md.topics.values()].flatMap((tp) => tp.partitions.filter(pred).map((p) => `${tp.name}-${p.partition}`)).sort()
    const prefers = partitionsWhere(await view(), (p) => p.replicas[0] === stuck)
    assert.ok(prefers.length > 0, `broker ${stuck} is the preferred leader of some partition`)
    await waitFor(
      async () => {
        const md = await view()
        return partitionsWhere(md, (p) => p.replicas[0] === stuck && p.isr.includes(stuck) && p.leader !== stuck).join() === prefers.join()
      },
      `broker ${stuck} to be back in the ISR of ${prefers.join(' ')}, led by others`,
      WAIT_MS,
      200,
    )
    const notLed = async () => partitionsWhere(await view(), (p) => p.leader !== p.replicas[0])
    assert.deepEqual(await notLed(), prefers)
    const elect = await tributary(['cluster', 'elect-leaders', '--bootstrap-server', c.bootstrap()])
    assert.equal(elect.code, 0, show(elect))
    assert.match(elect.stdout, /^TOPIC +PARTITION +RESULT$/m)
    const elected = elect.stdout
      .split('\n')
      .map((l) => /^(\S+) +(\d+) +elected$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => `${m[1]}-${m[2]}`)
      .sort()
    assert.deepEqual(elected, prefers, elect.stdout)
    t.diagnostic(`elected the preferred replica of ${elected.join(' ')}`)
    await waitFor(async () => (await notLed()).length === 0, 'every partition to be led by its preferred replica', WAIT_MS, 100)
    const again = await tributary(['cluster', 'elect-leaders', '--bootstrap-server', c.bootstrap()])
    assert.equal(again.code, 0, show(again))
    assert.equal(again.stdout, 'Every partition is led by its preferred replica: no election needed.\n')
    const one = await tributary([
      'cluster',
      'elect-leaders',
      '--topic',
      TOPIC,
      '--partition',
      '0',
      '--json',
      '--bootstrap-server',
      c.bootstrap(),
    ])
    assert.equal(one.code, 0, show(one))
    assert.deepEqual(JSON.parse(one.stdout), [
      { topic: TOPIC, partition: 0, error: 'ELECTION_NOT_NEEDED', message: 'the preferred replica already leads' },
    ])
    const unclean = await tributary(['cluster', 'elect-leaders', '--unclean', '--bootstrap-server', c.bootstrap()])
    assert.equal(unclean.stdout, 'Every partition has a live leader: no election needed.\n', show(unclean))
    const unknown = await tributary(['cluster', 'elect-leaders', '--topic', 'no-such-topic', '--bootstrap-server', c.bootstrap()])
    assert.equal(unknown.code, 1, show(unknown))
    assert.match(unknown.stderr, /topic 'no-such-topic' does not exist\n +list topics with: tributary topic list/)
    const usage = await tributary(['cluster', 'elect-leaders', '--partition', '1', '--bootstrap-server', c.bootstrap()])
    assert.equal(usage.code, 2, show(usage))
  })
})

describe('reassignment and elections on a single broker', () => {
  let broker: BrokerProcess

  before(async () => {
    broker = await startBrokerProcess()
    const r = await tributary(['topic', 'create', 'solo', '--partitions', '2', '--bootstrap-server', broker.bootstrap])
    assert.equal(r.code, 0, show(r))
  })

  after(async () => {
    await stopAndCheck(broker)
  })

  it('[self] is the only assignment; nothing is ever in progress; no election is needed', async () => {
    await withClient(broker.bootstrap, async (client) => {
      await client.metadata([], { refresh: true })
      const self = client.cluster.controllerId
      const outcomes = await alterPartitionReassignments(client, [
        { topic: 'solo', partition: 0, replicas: [self] },
        { topic: 'solo', partition: 1, replicas: [self, self + 1] },
      ])
      assert.deepEqual(
        outcomes.map((o) => o.error),
        [null, 'INVALID_REPLICA_ASSIGNMENT'],
      )
      const [cancel] = await alterPartitionReassignments(client, [{ topic: 'solo', partition: 1, replicas: null }])
      assert.equal(cancel!.error, 'NO_REASSIGNMENT_IN_PROGRESS')
      assert.deepEqual(await listPartitionReassignments(client), [])
      assert.deepEqual(await electLeaders(client, 'preferred', null), [])
      assert.deepEqual(
        (
          await electLeaders(client, 'unclean', [
            { topic: 'solo', partition: 1 },
            { topic: 'solo', partition: 9 },
          ])
        ).map((r) => r.error),
        ['ELECTION_NOT_NEEDED', 'UNKNOWN_TOPIC_OR_PARTITION'],
      )
      // ElectLeaders v0: preferred only, no top-level error code.
      const v0 = await client.request(
        ElectLeadersRequest,
        ElectLeadersResponse,
        { electionType: 0, topicPartitions: [{ topic: 'solo', partitions: [0] }], timeoutMs: 5000 },
        { maxVersion: 0 },
      )
      assert.deepEqual(v0.replicaElectionResults, [
        { topic: 'solo', partitionResult: [{ partitionId: 0, errorCode: 84, errorMessage: 'the preferred replica already leads' }] },
      ])
    })
    const r = await tributary(['cluster', 'rebalance', '--execute', '--bootstrap-server', broker.bootstrap])
    assert.equal(r.code, 0, show(r))
    assert.match(r.stdout, /The replicas are balanced: nothing to move\./)
    const stranger = await tributary(['cluster', 'rebalance', '--exclude-broker', '7', '--bootstrap-server', broker.bootstrap])
    assert.equal(stranger.code, 1, show(stranger))
    assert.match(
      stranger.stderr,
      /^tributary cluster rebalance: broker 7 is not in the cluster\n +the live brokers are 0 \(tributary cluster info\)$/m,
    )
    const alone = await tributary(['cluster', 'rebalance', '--exclude-broker', '0', '--bootstrap-server', broker.bootstrap])
    assert.equal(alone.code, 1, show(alone))
    assert.match(alone.stderr, /no broker would be left to hold the replicas/)
    const unknown = await tributary(['cluster', 'rebalance', '--topic', 'nope', '--bootstrap-server', broker.bootstrap])
    assert.match(unknown.stderr, /topic 'nope' does not exist\n +list topics with: tributary topic list/, show(unknown))
    const bad = await tributary(['cluster', 'rebalance', '--exclude-broker', 'x', '--bootstrap-server', broker.bootstrap])
    assert.equal(bad.code, 2, show(bad))
  })
})
