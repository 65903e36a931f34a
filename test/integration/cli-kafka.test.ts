// The `tributary` commands against Apache Kafka 4.x itself (from its jars on Maven Central, see
// test/helpers/apache-kafka.ts): the command line is a Kafka tool, not a Tributary-only one. One
// session walks through every command a user needs — cluster info, topic create/list/describe/
// alter-config/add-partitions/delete, produce, consume (plain and as a group), group list/describe/
// reset-offsets/delete, cluster reassignments/rebalance/elect-leaders, producers describe — and checks each answer against what was done, and through kafkajs.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import { type ApacheKafka, startApacheKafka } from '../helpers/apache-kafka.js'
import { tributary, tributaryOk } from '../helpers/cli.js'

const TOPIC = 'cli-against-kafka'
const GROUP = 'cli-against-kafka-group'
const LINES = Array.from({ length: 2000 }, (_, i) => `key-${i % 50}\tvalue-${i}`)

describe('tributary commands against Apache Kafka', { timeout: 600_000 }, () => {
  let kafka: ApacheKafka
  let dir: string
  let env: Record<string, string>
  const json = async (args: string[]) => JSON.parse((await tributaryOk([...args, '--json'], { env })).stdout)

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tributary-cli-kafka-'))
    kafka = await startApacheKafka()
    env = { TRIBUTARY_BOOTSTRAP: kafka.bootstrap }
  })

  after(async () => {
    await kafka?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  test('cluster info', async () => {
    const info = await json(['cluster', 'info'])
    assert.equal(typeof info.clusterId, 'string')
    assert.equal(info.brokers.length, 1)
    assert.equal(`${info.brokers[0].host}:${info.brokers[0].port}`, kafka.bootstrap)
    assert.equal(info.controllerId, info.brokers[0].id)
  })

  test('topic create, list, alter-config, add-partitions, describe', async () => {
    const created = await json(['topic', 'create', TOPIC, '--partitions', '3', '--config', 'retention.ms=86400000'])
    assert.equal(created.created, true)
    const again = await tributary(['topic', 'create', TOPIC], { env })
    assert.equal(again.code, 1)
    assert.match(again.stderr, /already exists/)

    const list: Array<{ name: string; partitions: number }> = await json(['topic', 'list'])
    assert.deepEqual(
      list.filter((t) => t.name === TOPIC).map((t) => t.partitions),
      [3],
    )

    await json(['topic', 'alter-config', TOPIC, '--set', 'retention.ms=3600000', '--set', 'cleanup.policy=compact,delete'])
    assert.deepEqual(await json(['topic', 'add-partitions', TOPIC, '--to', '4']), { name: TOPIC, partitions: 4, previousPartitions: 3 })
    const shrink = await tributary(['topic', 'add-partitions', TOPIC, '--to', '2'], { env })
    assert.equal(shrink.code, 1)

    const [d] = await json(['topic', 'describe', TOPIC])
    assert.deepEqual(
      d.partitions.map((p: { partition: number; latestOffset: number }) => [p.partition, p.latestOffset]),
      [
        [0, 0],
        [1, 0],
        [2, 0],
        [3, 0],
      ],
    )
    const configs = Object.fromEntries(d.configs.map((c: { name: string; value: string }) => [c.name, c.value]))
    assert.equal(configs['retention.ms'], '3600000')
    assert.equal(configs['cleanup.policy'], 'compact,delete')

    // The same, seen by another client.
    const admin = new Kafka({ clientId: 'it-cli-kafka', brokers: [kafka.bootstrap], logLevel: logLevel.NOTHING }).admin()
    await admin.connect()
    try {
      const md = await admin.fetchTopicMetadata({ topics: [TOPIC] })
      assert.equal(md.topics[0]!.partitions.length, 4)
    } finally {
      await admin.disconnect()
    }
  })

  test('produce a file, consume it back', async () => {
    const file = join(dir, 'records.tsv')
    writeFileSync(file, `${LINES.join('\n')}\n`)
    const summary = await json(['produce', TOPIC, '--file', file, '--key-separator', '\t'])
    assert.equal(summary.records, LINES.length)
    assert.equal(summary.failed, 0)

    const out = await tributaryOk(['consume', TOPIC, '--from-beginning', '--exit-at-end', '--format', '%k\t%v\n'], { env })
    assert.deepEqual(out.stdout.trimEnd().split('\n').sort(), [...LINES].sort())

    const [d] = await json(['topic', 'describe', TOPIC])
    const total = d.partitions.reduce((n: number, p: { latestOffset: number }) => n + p.latestOffset, 0)
    assert.equal(total, LINES.length)
  })

  test('consume as a group, then group list, describe, reset-offsets, delete', async () => {
    const read = await tributaryOk(['consume', TOPIC, '--group', GROUP, '--from-beginning', '--exit-at-end', '--quiet'], { env })
    assert.equal(read.stdout.trimEnd().split('\n').length, LINES.length)

    const groups: Array<{ groupId: string; state: string }> = await json(['group', 'list'])
    assert.ok(groups.some((g) => g.groupId === GROUP))
    const described = await json(['group', 'describe', GROUP])
    assert.equal(described.state, 'Empty')
    assert.equal(described.totalLag, 0)
    assert.equal(
      described.partitions.reduce((n: number, p: { committedOffset: number }) => n + p.committedOffset, 0),
      LINES.length,
    )

    const dry = await json(['group', 'reset-offsets', GROUP, '--topic', TOPIC, '--to-earliest'])
    assert.equal(dry.executed, false)
    assert.equal((await json(['group', 'describe', GROUP])).totalLag, 0, 'a dry run changes nothing')
    await json(['group', 'reset-offsets', GROUP, '--topic', TOPIC, '--to-earliest', '--execute'])
    assert.equal((await json(['group', 'describe', GROUP])).totalLag, LINES.length)

    await json(['group', 'delete', GROUP])
    const gone = await tributary(['group', 'describe', GROUP], { env })
    assert.equal(gone.code, 1)
    assert.match(gone.stderr, /does not exist/)
  })

  test('cluster reassignments, rebalance (dry run) and elect-leaders', async () => {
    assert.deepEqual(await json(['cluster', 'reassignments']), [])
    const plan = await json(['cluster', 'rebalance', '--topic', TOPIC])
    const info = await json(['cluster', 'info'])
    assert.deepEqual(plan.brokers, [info.brokers[0].id])
    assert.deepEqual(plan.moves, [])
    assert.equal(plan.executed, false)
    assert.equal(plan.before[0].replicas, 4, 'one replica per partition of the topic (4 since add-partitions)')
    // Every partition is led by its preferred (only) replica: nothing to elect, which Kafka says
    // per named partition.
    const elected: Array<{ partition: number; error: string | null }> = await json(['cluster', 'elect-leaders', '--topic', TOPIC])
    assert.deepEqual(
      elected.map((e) => [e.partition, e.error]).sort(),
      [0, 1, 2, 3].map((p) => [p, 'ELECTION_NOT_NEEDED']),
    )
  })

  test('producers describe: the idempotent producer kafkajs wrote with, as Kafka reports it', async () => {
    const topic = `${TOPIC}-producers`
    await json(['topic', 'create', topic, '--partitions', '2'])
    const producer = new Kafka({ clientId: 'it-cli-kafka-idem', brokers: [kafka.bootstrap], logLevel: logLevel.NOTHING }).producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    })
    await producer.connect()
    const at = Date.UTC(2024, 0, 1)
    try {
      await producer.send({ topic, acks: -1, messages: ['a', 'b', 'c'].map((value) => ({ partition: 1, value, timestamp: String(at) })) })
    } finally {
      await producer.disconnect()
    }
    const d = await json(['producers', 'describe', topic])
    assert.deepEqual(
      d.partitions.map((p: { partition: number; error: string | null; producers: unknown[] }) => [
        p.partition,
        p.error,
        p.producers.length,
      ]),
      [
        [0, null, 0],
        [1, null, 1],
      ],
    )
    const { producerId, ...rest } = d.partitions[1].producers[0]
    assert.ok(producerId >= 0, `producer id ${producerId}`)
    assert.deepEqual(rest, { producerEpoch: 0, lastSequence: 2, lastTimestamp: at, coordinatorEpoch: -1, currentTxnStartOffset: -1 })
    const missing = await tributary(['producers', 'describe', `${topic}-none`], { env })
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /does not exist/)
    await json(['topic', 'delete', topic])
  })

  test('topic delete; an unknown topic is named with a hint', async () => {
    await json(['topic', 'delete', TOPIC])
    const r = await tributary(['topic', 'describe', TOPIC], { env })
    assert.equal(r.code, 1)
    assert.match(r.stderr, /topic 'cli-against-kafka' does not exist/)
    assert.match(r.stderr, /tributary topic list/)
  })
})
