// `tributary topic create | list | describe | delete | alter-config | add-partitions` run as
// subprocesses against a real broker process. Every change a command makes is checked through
// kafkajs's admin client (an independent reader of the same cluster), and every failure by its
// exit code (1 refused, 2 usage), its message and its hint.
import assert from 'node:assert/strict'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { type Admin, type ConfigResourceTypes, Kafka, logLevel } from 'kafkajs'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { type CliRun, tributary } from '../helpers/cli.js'

interface ListJson {
  name: string
  topicId: string
  internal: boolean
  partitions: number
  replicationFactor: number
}

interface DescribeJson {
  name: string
  topicId: string
  internal: boolean
  replicationFactor: number
  sizeBytes: number | null
  partitions: Array<{
    partition: number
    leader: number
    replicas: number[]
    isr: number[]
    error: string | null
    earliestOffset: number | null
    latestOffset: number | null
    sizeBytes: number | null
  }>
  configs: Array<{ name: string; value: string | null; source: string }>
  configsError: string | null
}

function show(r: CliRun): string {
  return `exit ${r.code ?? r.signal}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`
}

/** The data rows of the first table whose header matches, cells split on runs of spaces. */
function rows(text: string, header: RegExp): string[][] {
  const lines = text.split('\n')
  const at = lines.findIndex((l) => header.test(l))
  assert.ok(at >= 0, `no table header ${header} in:\n${text}`)
  const out: string[][] = []
  for (const line of lines.slice(at + 1)) {
    if (line.trim() === '' || /^[A-Z][a-z]/.test(line)) break
    out.push(line.trim().split(/\s+/))
  }
  return out
}

function logBytes(dataDir: string, topic: string, partition: number): number {
  const dir = join(dataDir, `${topic}-${partition}`)
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .reduce((n, f) => n + statSync(join(dir, f)).size, 0)
}

describe('tributary topic', () => {
  let broker: BrokerProcess
  let admin: Admin
  let kafka: Kafka
  const bs = () => ['--bootstrap-server', broker.bootstrap]
  const run = (...args: string[]) => tributary([...args, ...bs()])
  const ok = async (...args: string[]) => {
    const r = await run(...args)
    assert.equal(r.code, 0, show(r))
    return r
  }
  const fails = async (code: 1 | 2, args: string[], message: RegExp, hint?: RegExp) => {
    const r = await run(...args)
    assert.equal(r.code, code, show(r))
    assert.match(r.stderr, message, show(r))
    if (hint) assert.match(r.stderr, hint, show(r))
    assert.equal(r.stdout, '', 'nothing on stdout after a failure')
    return r
  }
  const topicConfigs = async (name: string) => {
    const res = await admin.describeConfigs({ resources: [{ type: 2 as ConfigResourceTypes, name }], includeSynonyms: false })
    return new Map(res.resources[0]!.configEntries.map((e) => [e.configName, { value: e.configValue, isDefault: e.isDefault }]))
  }
  const partitionCount = async (name: string) => (await admin.fetchTopicMetadata({ topics: [name] })).topics[0]!.partitions.length

  before(async () => {
    broker = await startBrokerProcess()
    kafka = new Kafka({ clientId: 'it-cli-topic', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    admin = kafka.admin()
    await admin.connect()
  })

  after(async () => {
    await admin?.disconnect().catch(() => {})
    await stopAndCheck(broker)
  })

  test('--help shows the subcommands and examples; each subcommand documents its JSON', async () => {
    const top = await tributary(['topic', '--help'])
    assert.equal(top.code, 0, show(top))
    for (const sub of ['create', 'list', 'describe', 'delete', 'alter-config', 'add-partitions'])
      assert.match(top.stdout, new RegExp(`\\b${sub}\\b`))
    assert.match(top.stdout, /Examples:\n\s+\$ tributary topic create events/)
    const create = await tributary(['topic', 'create', '--help'])
    assert.equal(create.code, 0, show(create))
    assert.match(create.stdout, /--if-not-exists/)
    assert.match(create.stdout, /--bootstrap-server/)
    assert.match(create.stdout, /JSON output \(--json\):/)
    assert.match(create.stdout, /Examples:/)
    const bare = await tributary(['topic'])
    assert.equal(bare.code, 2, `a bare 'topic' is a usage error\n${show(bare)}`)
  })

  test('create: partitions, replication factor and configs as asked; kafkajs sees them', async () => {
    const r = await ok(
      'topic',
      'create',
      'events',
      '--partitions',
      '3',
      '--replication-factor',
      '1',
      '--config',
      'retention.ms=86400000',
      '--config',
      'cleanup.policy=compact',
    )
    assert.equal(r.stdout, "created topic 'events' (3 partitions, replication factor 1)\n")
    assert.ok((await admin.listTopics()).includes('events'))
    assert.equal(await partitionCount('events'), 3)
    const cfg = await topicConfigs('events')
    assert.deepEqual(cfg.get('retention.ms'), { value: '86400000', isDefault: false })
    assert.deepEqual(cfg.get('cleanup.policy'), { value: 'compact', isDefault: false })
    assert.equal(cfg.get('segment.bytes')?.isDefault, true, 'keys not given keep their default')
  })

  test('create --json; without --partitions the broker default applies', async () => {
    const r = await ok('topic', 'create', 'plain', '--json')
    const out = JSON.parse(r.stdout) as { name: string; created: boolean; partitions: number; replicationFactor: number; topicId: string }
    assert.equal(out.name, 'plain')
    assert.equal(out.created, true)
    assert.equal(out.partitions, 1, 'num.partitions defaults to 1')
    assert.equal(out.replicationFactor, 1)
    assert.match(out.topicId, /^[A-Za-z0-9_-]{22}$/)
    assert.equal(await partitionCount('plain'), 1)
  })

  test('create an existing topic: exit 1 with a hint; --if-not-exists: exit 0, nothing changed', async () => {
    await fails(
      1,
      ['topic', 'create', 'events', '--partitions', '5'],
      /topic 'events' already exists/,
      /tributary topic describe events.*--if-not-exists/,
    )
    const r = await ok('topic', 'create', 'events', '--partitions', '5', '--if-not-exists')
    assert.match(r.stdout, /topic 'events' already exists; nothing to do/)
    const j = await ok('topic', 'create', 'events', '--if-not-exists', '--json')
    assert.deepEqual(JSON.parse(j.stdout), { name: 'events', created: false })
    assert.equal(await partitionCount('events'), 3, 'still 3 partitions')
  })

  test('create refused by the broker: the message names the config key, the replication factor; nothing is created', async () => {
    await fails(
      1,
      ['topic', 'create', 'bad', '--config', 'retention.ms=soon'],
      /invalid config for topic 'bad':.*retention\.ms/,
      /Kafka’s names/,
    )
    await fails(1, ['topic', 'create', 'bad', '--config', 'no.such.key=1'], /no\.such\.key/)
    await fails(1, ['topic', 'create', 'bad', '--replication-factor', '3'], /invalid replication factor/, /tributary cluster info/)
    await fails(1, ['topic', 'create', 'bad/name'], /invalid topic 'bad\/name'/, /letters, digits/)
    assert.ok(!(await admin.listTopics()).includes('bad'))
  })

  test('usage errors exit 2', async () => {
    for (const args of [
      ['topic', 'create'],
      ['topic', 'create', 'x', '--partitions', '0'],
      ['topic', 'create', 'x', '--partitions', 'many'],
      ['topic', 'create', 'x', '--config', 'novalue'],
      ['topic', 'create', 'x', '--config', 'a=1', '--config', 'a=2'],
      ['topic', 'describe'],
      ['topic', 'add-partitions', 'events'],
      ['topic', 'alter-config', 'events'],
      ['topic', 'frobnicate'],
    ]) {
      const r = await run(...args)
      assert.equal(r.code, 2, `${args.join(' ')}\n${show(r)}`)
    }
    assert.ok(!(await admin.listTopics()).includes('x'))
  })

  test('list: a table sorted by name, internal topics only with --internal; --json', async () => {
    // FindCoordinator (kafkajs fetchOffsets) creates __consumer_offsets.
    await admin.fetchOffsets({ groupId: 'it-cli-topic-group', topics: ['plain'] })
    const r = await ok('topic', 'list')
    assert.deepEqual(rows(r.stdout, /^TOPIC\s+PARTITIONS\s+REPLICATION-FACTOR$/), [
      ['events', '3', '1'],
      ['plain', '1', '1'],
    ])
    const all = await ok('topic', 'list', '--internal')
    assert.deepEqual(rows(all.stdout, /^TOPIC\s+PARTITIONS\s+REPLICATION-FACTOR\s+INTERNAL$/), [
      ['__consumer_offsets', '50', '1', 'yes'],
      ['events', '3', '1', 'no'],
      ['plain', '1', '1', 'no'],
    ])
    const j = JSON.parse((await ok('topic', 'list', '--json')).stdout) as ListJson[]
    assert.deepEqual(
      j.map((t) => [t.name, t.partitions, t.replicationFactor, t.internal]),
      [
        ['events', 3, 1, false],
        ['plain', 1, 1, false],
      ],
    )
    const ids = new Set(j.map((t) => t.topicId))
    assert.equal(ids.size, 2, 'distinct topic ids')
  })

  test('TRIBUTARY_BOOTSTRAP is used without --bootstrap-server, and the flag wins over it', async () => {
    const viaEnv = await tributary(['topic', 'list'], { env: { TRIBUTARY_BOOTSTRAP: broker.bootstrap } })
    assert.equal(viaEnv.code, 0, show(viaEnv))
    assert.match(viaEnv.stdout, /^events\s+3\s+1$/m)
    const flagWins = await tributary(['topic', 'list', '--bootstrap-server', broker.bootstrap], {
      env: { TRIBUTARY_BOOTSTRAP: '127.0.0.1:1' },
    })
    assert.equal(flagWins.code, 0, show(flagWins))
    const dead = await tributary(['topic', 'list'], { env: { TRIBUTARY_BOOTSTRAP: '127.0.0.1:1' } })
    assert.equal(dead.code, 1, show(dead))
    assert.match(dead.stderr, /no broker reachable/)
    assert.match(dead.stderr, /--bootstrap-server or TRIBUTARY_BOOTSTRAP/)
  })

  test('describe: leader, replicas, ISR, earliest/latest offsets and bytes per partition, non-default configs', async () => {
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({
      topic: 'events',
      acks: -1,
      messages: Array.from({ length: 7 }, (_, i) => ({ partition: 0, key: `k${i}`, value: `v${i}` })),
    })
    // (keyed: the topic is compacted, which refuses records without a key)
    await producer.send({ topic: 'events', acks: -1, messages: [{ partition: 2, key: 'big', value: 'x'.repeat(1500) }] })
    await producer.disconnect()
    const offsets = await admin.fetchTopicOffsets('events')

    const j = JSON.parse((await ok('topic', 'describe', 'events', '--json')).stdout) as DescribeJson[]
    assert.equal(j.length, 1)
    const t = j[0]!
    assert.equal(t.name, 'events')
    assert.equal(t.replicationFactor, 1)
    assert.deepEqual(
      t.partitions.map((p) => [p.partition, p.leader, p.replicas, p.isr, p.error, p.earliestOffset, p.latestOffset, p.sizeBytes]),
      [0, 1, 2].map((i) => {
        const o = offsets.find((x) => x.partition === i)!
        return [i, 0, [0], [0], null, Number(o.low), Number(o.high), logBytes(broker.dataDir, 'events', i)]
      }),
    )
    assert.deepEqual(
      t.partitions.map((p) => p.latestOffset),
      [7, 0, 1],
    )
    assert.equal(
      t.sizeBytes,
      t.partitions.reduce((n, p) => n + p.sizeBytes!, 0),
    )
    assert.ok(t.sizeBytes! > 1500)
    assert.equal(t.configsError, null)
    assert.deepEqual(
      t.configs.map((c) => [c.name, c.value, c.source]),
      [
        ['cleanup.policy', 'compact', 'DYNAMIC_TOPIC_CONFIG'],
        ['retention.ms', '86400000', 'DYNAMIC_TOPIC_CONFIG'],
      ],
      'only the overrides, not the defaults',
    )

    const human = await ok('topic', 'describe', 'events', 'plain')
    assert.match(
      human.stdout,
      new RegExp(
        `^Topic: events {2}TopicId: \\S+ {2}Partitions: 3 {2}ReplicationFactor: 1 {2}Size: \\d\\.\\d KiB \\(${t.sizeBytes} bytes\\)$`,
        'm',
      ),
    )
    assert.deepEqual(rows(human.stdout, /^PARTITION\s+LEADER\s+REPLICAS\s+ISR\s+EARLIEST\s+LATEST\s+BYTES$/), [
      ['0', '0', '0', '0', '0', '7', String(t.partitions[0]!.sizeBytes)],
      ['1', '0', '0', '0', '0', '0', '0'],
      ['2', '0', '0', '0', '0', '1', String(t.partitions[2]!.sizeBytes)],
    ])
    assert.deepEqual(rows(human.stdout, /^CONFIG\s+VALUE\s+SOURCE$/), [
      ['cleanup.policy', 'compact', 'DYNAMIC_TOPIC_CONFIG'],
      ['retention.ms', '86400000', 'DYNAMIC_TOPIC_CONFIG'],
    ])
    assert.match(human.stdout, /^Topic: plain /m, 'both topics described')
    assert.match(human.stdout, /^Configs: all defaults$/m, "plain's configs are all defaults")
  })

  test('describe a missing topic: exit 1, "does not exist" and the hint to list topics', async () => {
    await fails(
      1,
      ['topic', 'describe', 'nope'],
      /tributary topic describe: topic 'nope' does not exist/,
      /list topics with: tributary topic list/,
    )
    await fails(1, ['topic', 'describe', 'events', 'nope', 'nada'], /topics 'nope', 'nada' do not exist/, /tributary topic list/)
    assert.ok(!(await admin.listTopics()).includes('nope'), 'describing does not auto-create')
  })

  test('alter-config: --set and --delete change only the named keys; kafkajs sees the result', async () => {
    const r = await ok(
      'topic',
      'alter-config',
      'events',
      '--set',
      'retention.ms=3600000',
      '--set',
      'max.message.bytes=2097152',
      '--delete',
      'cleanup.policy',
    )
    assert.equal(r.stdout, "altered topic 'events': set retention.ms=3600000; set max.message.bytes=2097152; removed cleanup.policy\n")
    const cfg = await topicConfigs('events')
    assert.deepEqual(cfg.get('retention.ms'), { value: '3600000', isDefault: false })
    assert.deepEqual(cfg.get('max.message.bytes'), { value: '2097152', isDefault: false })
    assert.deepEqual(cfg.get('cleanup.policy'), { value: 'delete', isDefault: true }, 'back to the default')
    const j = await ok('topic', 'alter-config', 'events', '--append', 'cleanup.policy=compact', '--json')
    assert.deepEqual(JSON.parse(j.stdout), {
      name: 'events',
      altered: true,
      changes: [{ name: 'cleanup.policy', op: 'append', value: 'compact' }],
    })
    assert.equal((await topicConfigs('events')).get('cleanup.policy')?.value, 'delete,compact')
  })

  test('alter-config refused: invalid values and unknown keys are named, a missing topic is reported as such', async () => {
    await fails(
      1,
      ['topic', 'alter-config', 'events', '--set', 'retention.ms=soon'],
      /invalid config change for topic 'events':.*retention\.ms/,
      /tributary topic describe events/,
    )
    await fails(1, ['topic', 'alter-config', 'events', '--set', 'no.such.key=1'], /no\.such\.key/)
    await fails(1, ['topic', 'alter-config', 'nope', '--set', 'retention.ms=1'], /topic 'nope' does not exist/, /tributary topic list/)
    await fails(
      2,
      ['topic', 'alter-config', 'events', '--set', 'retention.ms=1', '--delete', 'retention.ms'],
      /retention\.ms is named twice/,
    )
    assert.equal((await topicConfigs('events')).get('retention.ms')?.value, '3600000', 'unchanged')
  })

  test('add-partitions: grows the topic; the same or a smaller count is refused clearly', async () => {
    const r = await ok('topic', 'add-partitions', 'events', '--to', '5')
    assert.equal(r.stdout, "topic 'events' now has 5 partitions (was 3)\n")
    assert.equal(await partitionCount('events'), 5)
    const j = await ok('topic', 'add-partitions', 'plain', '--to', '2', '--json')
    assert.deepEqual(JSON.parse(j.stdout), { name: 'plain', partitions: 2, previousPartitions: 1 })
    await fails(
      1,
      ['topic', 'add-partitions', 'events', '--to', '5'],
      /topic 'events' already has 5 partitions: the partition count can only increase/,
      /give --to a number greater than 5/,
    )
    await fails(
      1,
      ['topic', 'add-partitions', 'events', '--to', '2'],
      /has 5 partitions, more than 2: the partition count can only increase/,
    )
    await fails(1, ['topic', 'add-partitions', 'nope', '--to', '2'], /topic 'nope' does not exist/, /tributary topic list/)
    assert.equal(await partitionCount('events'), 5, 'unchanged')
  })

  test('delete: gone for kafkajs; a missing topic is an error unless --if-exists', async () => {
    await ok('topic', 'create', 'doomed')
    await ok('topic', 'create', 'doomed2')
    const r = await ok('topic', 'delete', 'doomed')
    assert.equal(r.stdout, "deleted topic 'doomed'\n")
    assert.ok(!(await admin.listTopics()).includes('doomed'))
    await fails(1, ['topic', 'delete', 'doomed'], /topic 'doomed' does not exist/, /tributary topic list.*--if-exists/)
    const quiet = await ok('topic', 'delete', 'doomed', '--if-exists')
    assert.match(quiet.stdout, /topic 'doomed' does not exist; nothing to do/)

    // Several at once: the existing one goes, the missing one fails the command.
    const mixed = await run('topic', 'delete', 'doomed2', 'nope', '--json')
    assert.equal(mixed.code, 1, show(mixed))
    assert.deepEqual(JSON.parse(mixed.stdout), [
      { name: 'doomed2', deleted: true, error: null, message: null },
      { name: 'nope', deleted: false, error: 'UNKNOWN_TOPIC_OR_PARTITION', message: null },
    ])
    assert.match(mixed.stderr, /topic 'nope' does not exist/)
    assert.ok(!(await admin.listTopics()).includes('doomed2'))
    await fails(1, ['topic', 'delete', '__consumer_offsets'], /topic '__consumer_offsets' is internal/, /managed by the broker/)
    assert.ok((await admin.listTopics()).includes('__consumer_offsets'), 'internal topics stay')
  })
})
