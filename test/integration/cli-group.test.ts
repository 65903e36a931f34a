// `tributary group list | describe | reset-offsets | delete | delete-offsets` run as subprocesses
// against a real broker process, on groups that kafkajs consumers create and commit for.
//
// Topic `orders` (3 partitions) holds 10 records per partition with timestamps T0 + offset·1 s,
// then 5 more on partition 0 (offsets 10–14, timestamps T0 + 10…14 s). The tests run in order and
// share the group `billing`: its committed offsets are set by kafkajs and by the command itself,
// and every check asserts exact offsets.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Admin, type Consumer, Kafka, logLevel, type Producer } from 'kafkajs'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { type CliRun, tributary } from '../helpers/cli.js'
import { waitFor } from '../helpers/clients.js'
import { GROUP_BROKER_OVERRIDES } from '../helpers/groups.js'

const TOPIC = 'orders'
const PARTITIONS = 3
const GROUP = 'billing'
const T0 = Date.UTC(2024, 0, 1)
const WAIT_MS = 60_000

interface DescribeJson {
  groupId: string
  state: string
  protocolType: string
  protocol: string
  coordinator: number
  members: Array<{
    memberId: string
    groupInstanceId: string | null
    clientId: string
    clientHost: string
    assignment: Array<{ topic: string; partitions: number[] }> | null
  }>
  partitions: Array<{
    topic: string
    partition: number
    committedOffset: number | null
    endOffset: number | null
    lag: number | null
    memberId: string | null
  }>
  totalLag: number
}

interface ResetJson {
  groupId: string
  executed: boolean
  partitions: Array<{ topic: string; partition: number; currentOffset: number | null; newOffset: number }>
}

/** The data rows of a table (header dropped), cells split on whitespace. */
function rows(text: string, header: RegExp): string[][] {
  const lines = text.split('\n')
  const at = lines.findIndex((l) => header.test(l))
  assert.ok(at >= 0, `no table header ${header} in:\n${text}`)
  const out: string[][] = []
  for (const line of lines.slice(at + 1)) {
    if (line.trim() === '') break
    out.push(line.trim().split(/\s+/))
  }
  return out
}

function show(r: CliRun): string {
  return `exit ${r.code ?? r.signal}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`
}

describe('tributary group', () => {
  let broker: BrokerProcess
  let kafka: Kafka
  let admin: Admin
  let producer: Producer
  const consumers = new Set<Consumer>()

  /** Runs the CLI against the test broker. */
  const cli = (args: string[]) => tributary([...args, '--bootstrap-server', broker.bootstrap])
  const ok = async (args: string[]) => {
    const r = await cli(args)
    assert.equal(r.code, 0, show(r))
    return r
  }
  const describeJson = async (groupId = GROUP) => JSON.parse((await ok(['group', 'describe', groupId, '--json'])).stdout) as DescribeJson
  const committed = async (groupId = GROUP) => (await describeJson(groupId)).partitions.map((p) => [p.partition, p.committedOffset])

  /** A kafkajs group member that records every offset it receives, per partition. */
  async function startConsumer(clientId: string) {
    const k = new Kafka({ clientId, brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 100 } })
    const consumer = k.consumer({ groupId: GROUP, sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 200 })
    consumers.add(consumer)
    const received = new Map<number, number[]>()
    await consumer.connect()
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true })
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        received.set(partition, [...(received.get(partition) ?? []), Number(message.offset)])
      },
    })
    const count = () => [...received.values()].reduce((n, l) => n + l.length, 0)
    return {
      received,
      count,
      /** Waits until the group has committed `ends` (kafkajs commits after each batch), then leaves. */
      async stopAfterCommit(ends: number[]) {
        await waitFor(
          async () => {
            const offsets = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] })
            const got = offsets[0]!.partitions.sort((a, b) => a.partition - b.partition).map((p) => Number(p.offset))
            return JSON.stringify(got) === JSON.stringify(ends)
          },
          `group ${GROUP} to commit ${ends}`,
          WAIT_MS,
        )
        await consumer.disconnect()
        consumers.delete(consumer)
        await waitFor(async () => (await describeJson()).state === 'Empty', `group ${GROUP} to become Empty`, WAIT_MS)
      },
    }
  }

  const produce = async (partition: number, fromOffset: number, count: number) => {
    const messages = Array.from({ length: count }, (_, i) => ({
      partition,
      value: `p${partition}-${fromOffset + i}`,
      timestamp: String(T0 + (fromOffset + i) * 1000),
    }))
    await producer.send({ topic: TOPIC, acks: -1, messages })
  }

  before(async () => {
    broker = await startBrokerProcess({ overrides: { ...GROUP_BROKER_OVERRIDES } })
    kafka = new Kafka({
      clientId: 'it-cli-group',
      brokers: [broker.bootstrap],
      logLevel: logLevel.NOTHING,
      retry: { retries: 5, initialRetryTime: 100 },
    })
    admin = kafka.admin()
    await admin.connect()
    producer = kafka.producer({ allowAutoTopicCreation: false })
    await producer.connect()
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true })
    for (let p = 0; p < PARTITIONS; p++) await produce(p, 0, 10)
  })

  after(async () => {
    for (const c of consumers) await c.disconnect().catch(() => {})
    await producer?.disconnect().catch(() => {})
    await admin?.disconnect().catch(() => {})
    await stopAndCheck(broker)
  })

  test('describe: committed offsets, end offsets, lag and total lag of a group a kafkajs consumer committed for (table and --json)', async () => {
    const c = await startConsumer('cli-group-first')
    await waitFor(() => c.count() >= 30, 'the first consumer to read 30 records', WAIT_MS)
    await c.stopAfterCommit([10, 10, 10])
    await produce(0, 10, 5)

    const d = await describeJson()
    assert.equal(d.groupId, GROUP)
    assert.equal(d.state, 'Empty')
    assert.equal(d.protocolType, 'consumer')
    assert.deepEqual(d.members, [])
    assert.deepEqual(d.partitions, [
      { topic: TOPIC, partition: 0, committedOffset: 10, endOffset: 15, lag: 5, memberId: null },
      { topic: TOPIC, partition: 1, committedOffset: 10, endOffset: 10, lag: 0, memberId: null },
      { topic: TOPIC, partition: 2, committedOffset: 10, endOffset: 10, lag: 0, memberId: null },
    ])
    assert.equal(d.totalLag, 5)

    const r = await ok(['group', 'describe', GROUP])
    assert.match(r.stdout, /^state:\s+Empty$/m)
    assert.match(r.stdout, /^protocol type:\s+consumer$/m)
    assert.match(r.stdout, /^no active members$/m)
    assert.deepEqual(rows(r.stdout, /^TOPIC\s+PARTITION\s+COMMITTED\s+END\s+LAG\s+MEMBER$/), [
      [TOPIC, '0', '10', '15', '5', '-'],
      [TOPIC, '1', '10', '10', '0', '-'],
      [TOPIC, '2', '10', '10', '0', '-'],
    ])
    assert.match(r.stdout, /^total lag: 5$/m)
  })

  test('list: the group with its state and protocol type (table, --json, TRIBUTARY_BOOTSTRAP)', async () => {
    const r = await tributary(['group', 'list'], { env: { TRIBUTARY_BOOTSTRAP: broker.bootstrap } })
    assert.equal(r.code, 0, show(r))
    assert.deepEqual(rows(r.stdout, /^GROUP\s+TYPE\s+STATE\s+PROTOCOL TYPE$/), [[GROUP, 'classic', 'Empty', 'consumer']])
    const listed = JSON.parse((await ok(['group', 'list', '--json'])).stdout) as Array<Record<string, unknown>>
    assert.deepEqual(
      listed.map((g) => [g.groupId, g.state, g.protocolType]),
      [[GROUP, 'Empty', 'consumer']],
    )
  })

  test('while a kafkajs consumer runs: describe shows it and its partitions; reset-offsets and delete are refused', async () => {
    const c = await startConsumer('cli-group-live')
    const d = await waitFor(
      async () => {
        const x = await describeJson()
        return x.state === 'Stable' && x.members.length === 1 && x.partitions.every((p) => p.memberId !== null) ? x : undefined
      },
      'the group to be Stable with one member owning every partition',
      WAIT_MS,
    )
    const m = d.members[0]!
    assert.equal(d.protocol, 'RoundRobinAssigner')
    assert.equal(m.clientId, 'cli-group-live')
    assert.ok(m.clientHost.length > 0, 'client host is reported')
    assert.equal(m.groupInstanceId, null)
    assert.deepEqual(m.assignment, [{ topic: TOPIC, partitions: [0, 1, 2] }])
    assert.deepEqual(
      d.partitions.map((p) => [p.partition, p.memberId]),
      [
        [0, m.memberId],
        [1, m.memberId],
        [2, m.memberId],
      ],
    )
    const table = await ok(['group', 'describe', GROUP])
    assert.match(table.stdout, /^state:\s+Stable$/m)
    assert.match(table.stdout, /^assignor:\s+RoundRobinAssigner$/m)
    assert.deepEqual(rows(table.stdout, /^MEMBER ID\s+INSTANCE ID\s+CLIENT ID\s+HOST\s+PARTITIONS$/)[0]!.slice(0, 3), [
      m.memberId,
      '-',
      'cli-group-live',
    ])

    const reset = await cli(['group', 'reset-offsets', GROUP, '--topic', TOPIC, '--to-earliest', '--execute'])
    assert.equal(reset.code, 1, show(reset))
    assert.match(reset.stderr, /group 'billing' is Stable with 1 active member/)
    assert.match(reset.stderr, /stop the group's consumers first/)
    assert.equal(reset.stdout, '')

    const del = await cli(['group', 'delete', GROUP])
    assert.equal(del.code, 1, show(del))
    assert.match(del.stderr, /group 'billing' still has active members/)
    assert.match(del.stderr, /stop the group's consumers first/)

    // It reads the 5 new records of partition 0 and commits them.
    await waitFor(() => c.count() >= 5, 'the live consumer to read partition 0 to its end', WAIT_MS)
    assert.deepEqual(c.received.get(0), [10, 11, 12, 13, 14])
    await c.stopAfterCommit([15, 10, 10])
  })

  test('reset-offsets without --execute prints the plan and changes nothing', async () => {
    const r = await ok(['group', 'reset-offsets', GROUP, '--topic', TOPIC, '--to-earliest'])
    assert.deepEqual(rows(r.stdout, /^TOPIC\s+PARTITION\s+CURRENT\s+NEW$/), [
      [TOPIC, '0', '15', '0'],
      [TOPIC, '1', '10', '0'],
      [TOPIC, '2', '10', '0'],
    ])
    assert.match(r.stderr, /dry run: add --execute to apply/)
    const j = JSON.parse((await ok(['group', 'reset-offsets', GROUP, '--all-topics', '--shift-by', '-12', '--json'])).stdout) as ResetJson
    assert.deepEqual(j, {
      groupId: GROUP,
      executed: false,
      partitions: [
        { topic: TOPIC, partition: 0, currentOffset: 15, newOffset: 3 },
        { topic: TOPIC, partition: 1, currentOffset: 10, newOffset: 0 },
        { topic: TOPIC, partition: 2, currentOffset: 10, newOffset: 0 },
      ],
    })
    assert.deepEqual(await committed(), [
      [0, 15],
      [1, 10],
      [2, 10],
    ])
  })

  test('reset-offsets --execute changes where a kafkajs group consumer resumes', async () => {
    const toOffset = await ok(['group', 'reset-offsets', GROUP, '--topic', `${TOPIC}:1`, '--to-offset', '4', '--execute'])
    assert.deepEqual(rows(toOffset.stdout, /^TOPIC/), [[TOPIC, '1', '10', '4']])
    assert.match(toOffset.stderr, /reset 1 partition of group 'billing'/)
    await ok(['group', 'reset-offsets', GROUP, '--topic', `${TOPIC}:0`, '--shift-by', '-3', '--execute'])
    assert.deepEqual(await committed(), [
      [0, 12],
      [1, 4],
      [2, 10],
    ])

    const c = await startConsumer('cli-group-resume')
    await waitFor(() => c.count() >= 9, 'the resumed consumer to read 9 records', WAIT_MS)
    await c.stopAfterCommit([15, 10, 10])
    assert.equal(c.received.get(0)?.[0], 12, 'partition 0 resumes at the shifted offset')
    assert.equal(c.received.get(1)?.[0], 4, 'partition 1 resumes at --to-offset')
    assert.deepEqual(c.received.get(0), [12, 13, 14])
    assert.deepEqual(c.received.get(1), [4, 5, 6, 7, 8, 9])
    assert.equal(c.received.get(2), undefined, 'partition 2 was not reset: nothing to read')
  })

  test('reset-offsets --to-datetime, --to-latest, and results clamped to the log', async () => {
    const at7s = new Date(T0 + 7000).toISOString()
    const j = JSON.parse(
      (await ok(['group', 'reset-offsets', GROUP, '--all-topics', '--to-datetime', at7s, '--execute', '--json'])).stdout,
    ) as ResetJson
    assert.equal(j.executed, true)
    assert.deepEqual(
      j.partitions.map((p) => [p.partition, p.currentOffset, p.newOffset]),
      [
        [0, 15, 7],
        [1, 10, 7],
        [2, 10, 7],
      ],
    )
    assert.deepEqual(await committed(), [
      [0, 7],
      [1, 7],
      [2, 7],
    ])
    const plan = async (...spec: string[]) =>
      (JSON.parse((await ok(['group', 'reset-offsets', GROUP, '--all-topics', ...spec, '--json'])).stdout) as ResetJson).partitions.map(
        (p) => p.newOffset,
      )
    // Partition 0's records at T0 + 12 s onwards exist; the others end before it: their end offset.
    assert.deepEqual(await plan('--to-datetime', new Date(T0 + 12_000).toISOString()), [12, 10, 10])
    assert.deepEqual(await plan('--to-offset', '1000'), [15, 10, 10])
    assert.deepEqual(await plan('--to-offset', '9'), [9, 9, 9])
    assert.deepEqual(await plan('--shift-by', '100'), [15, 10, 10])
    assert.deepEqual(await plan('--shift-by', '-100'), [0, 0, 0])
    assert.deepEqual(await plan('--to-latest'), [15, 10, 10])
    assert.deepEqual(await committed(), [
      [0, 7],
      [1, 7],
      [2, 7],
    ])
  })

  test('reset-offsets of a group that does not exist yet creates its offsets; delete-offsets removes some', async () => {
    const g = 'fresh'
    await ok(['group', 'reset-offsets', g, '--topic', TOPIC, '--to-latest', '--execute'])
    assert.deepEqual(await committed(g), [
      [0, 15],
      [1, 10],
      [2, 10],
    ])
    const r = await ok(['group', 'delete-offsets', g, '--topic', `${TOPIC}:1`])
    assert.deepEqual(rows(r.stdout, /^TOPIC\s+PARTITION\s+STATUS$/), [[TOPIC, '1', 'deleted']])
    assert.deepEqual(await committed(g), [
      [0, 15],
      [2, 10],
    ])
    await ok(['group', 'delete', g])
  })

  test('delete: an empty group goes, with its offsets; then it does not exist', async () => {
    const r = await ok(['group', 'delete', GROUP])
    assert.match(r.stdout, /deleted group 'billing'/)
    for (const args of [
      ['group', 'describe', GROUP],
      ['group', 'delete', GROUP],
    ]) {
      const gone = await cli(args)
      assert.equal(gone.code, 1, show(gone))
      assert.match(gone.stderr, /group 'billing' does not exist/)
      assert.match(gone.stderr, /list groups with: tributary group list/)
    }
    assert.deepEqual(JSON.parse((await ok(['group', 'list', '--json'])).stdout), [])
  })

  test('exit codes: 1 for an unknown group, a missing topic or no broker; 2 for usage errors; --help has examples', async () => {
    const unknown = await cli(['group', 'describe', 'no-such-group'])
    assert.equal(unknown.code, 1, show(unknown))
    assert.match(unknown.stderr, /group 'no-such-group' does not exist\n\s+list groups with: tributary group list/)

    const missingTopic = await cli(['group', 'reset-offsets', 'x', '--topic', 'nope', '--to-earliest'])
    assert.equal(missingTopic.code, 1, show(missingTopic))
    assert.match(missingTopic.stderr, /topic 'nope' does not exist/)
    const missingPartition = await cli(['group', 'reset-offsets', 'x', '--topic', `${TOPIC}:7`, '--to-earliest'])
    assert.equal(missingPartition.code, 1, show(missingPartition))
    assert.match(missingPartition.stderr, /topic 'orders' has no partition 7\n\s+its partitions are numbered 0 to 2/)

    const noBroker = await tributary(['group', 'list', '--bootstrap-server', '127.0.0.1:1'])
    assert.equal(noBroker.code, 1, show(noBroker))
    assert.match(noBroker.stderr, /--bootstrap-server/)

    const usage: Array<[string[], RegExp]> = [
      [
        ['group', 'reset-offsets', GROUP, '--all-topics', '--to-earliest', '--to-offset', '3'],
        /only one of .*--to-earliest and --to-offset/,
      ],
      [['group', 'reset-offsets', GROUP, '--all-topics', '--to-latest', '--shift-by', '1'], /only one of .*--to-latest and --shift-by/],
      [['group', 'reset-offsets', GROUP, '--all-topics'], /give one of --to-earliest/],
      [['group', 'reset-offsets', GROUP, '--to-earliest'], /give --topic .* or --all-topics/],
      [['group', 'reset-offsets', GROUP, '--topic', TOPIC, '--all-topics', '--to-earliest'], /either --topic or --all-topics/],
      [['group', 'reset-offsets', GROUP, '--topic', `${TOPIC}:a`, '--to-earliest'], /not a partition number/],
      [['group', 'reset-offsets', GROUP, '--all-topics', '--to-datetime', 'last tuesday'], /--to-datetime/],
      [['group', 'reset-offsets', GROUP, '--all-topics', '--to-offset', '-1'], /--to-offset/],
      [['group', 'delete-offsets', GROUP], /give --topic/],
      [['group', 'describe'], /missing required argument/],
      [['group', 'list', '--bogus'], /unknown option/],
    ]
    for (const [args, message] of usage) {
      const r = await cli(args)
      assert.equal(r.code, 2, `${args.join(' ')}: ${show(r)}`)
      assert.match(r.stderr, message, args.join(' '))
      assert.equal(r.stdout, '', `${args.join(' ')} prints nothing on stdout`)
    }

    for (const sub of ['list', 'describe', 'reset-offsets', 'delete', 'delete-offsets']) {
      const help = await tributary(['group', sub, '--help'])
      assert.equal(help.code, 0, show(help))
      assert.match(help.stdout, /Examples:\n\s+\$ tributary group /, sub)
    }
  })
})
