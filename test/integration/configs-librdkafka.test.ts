// Topic and broker configs through librdkafka's admin API — confluent-kafka for Python, whose wheel
// bundles librdkafka — against a real broker process. test/interop/python/configs.py creates a topic
// with configs, changes them with IncrementalAlterConfigs (SET, DELETE, a dynamic broker config by
// node id) and AlterConfigs (the whole-set replace), adds partitions, and reports what
// DescribeConfigs (values, sources, is_default, synonyms) and the broker's errors said at each step.
// kafkajs admin checks the same state independently; then the broker restarts on the same data dir
// and both clients must see the configs and the partition count unchanged.
// Missing python3 or confluent_kafka fails this file (`pip install confluent-kafka==2.16.1`); it
// never skips.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Admin, ConfigResourceTypes, IncrementalAlterConfigOperationTypes } from '@platformatic/kafka'
import { type ConfigResourceTypes as KafkaJsResourceType, Kafka, logLevel } from 'kafkajs'
import { type BrokerProcess, makeTempDir, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { type ProcResult, runProcess } from '../helpers/run-process.js'

/** dist/test/integration/configs-librdkafka.test.js → test/interop/python/configs.py (the source). */
const SCRIPT = fileURLToPath(new URL('../../../test/interop/python/configs.py', import.meta.url))
const PYTHON = 'python3'
const INSTALL_HINT = 'install Python 3, then: pip install confluent-kafka==2.16.1 (.ci/run installs the latter)'
const RUN_TIMEOUT_MS = 120_000
const TOPIC = 'it-librdkafka-configs'

// kafkajs's ConfigResourceTypes is a TypeScript enum its ESM entry does not export at run time.
const KafkaJsResourceTypes = { TOPIC: 2 as KafkaJsResourceType, BROKER: 4 as KafkaJsResourceType }

// Kafka's DescribeConfigs ConfigSource ids.
const DYNAMIC_TOPIC_CONFIG = 1
const DYNAMIC_BROKER_CONFIG = 2
const DYNAMIC_DEFAULT_BROKER_CONFIG = 3
const STATIC_BROKER_CONFIG = 4
const DEFAULT_CONFIG = 5

// Kafka error codes.
const INVALID_PARTITIONS = 37
const INVALID_CONFIG = 40

/** One config entry as configs.py reports it. */
interface Entry {
  value: string | null
  source: number
  is_default: boolean
  is_read_only: boolean
  is_sensitive: boolean
  /** [name, value, source], in the broker's order of precedence. */
  synonyms: Array<[string, string | null, number]>
}
type Described = Record<string, Entry | null>
type StepError = { error: { code: number | null; name: string; message: string } } | null

interface FullRun {
  librdkafka: string
  create: StepError
  after_create: Described
  incremental_topic: StepError
  incremental_broker: StepError
  incremental_cluster_default: StepError
  incremental_invalid: StepError
  after_incremental: Described
  broker: Described
  alter: StepError
  after_alter: Described
  create_partitions: StepError
  create_partitions_decrease: StepError
  partitions: number | null
}

interface DescribeRun {
  librdkafka: string
  topic: Described
  broker: Described
  partitions: number | null
}

/** Runs a command to completion; rejects (so the test fails) when it cannot start or times out. */
const run = (cmd: string, args: string[], timeoutMs = RUN_TIMEOUT_MS): Promise<ProcResult> =>
  runProcess(cmd, args, { timeoutMs, installHint: INSTALL_HINT })

/** Runs configs.py and parses its one JSON line. */
async function configsPy<T>(bootstrap: string, mode: 'all' | 'describe'): Promise<T> {
  const r = await run(PYTHON, [SCRIPT, bootstrap, TOPIC, mode])
  assert.equal(r.code, 0, `configs.py ${mode} exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`)
  const line = r.stdout.trim().split('\n').pop() ?? ''
  try {
    return JSON.parse(line) as T
  } catch {
    throw new Error(`configs.py printed no JSON line\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`)
  }
}

function kafkaFor(broker: BrokerProcess): Kafka {
  return new Kafka({
    clientId: 'it-configs-librdkafka',
    brokers: [broker.bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 },
    connectionTimeout: 5000,
    requestTimeout: 20_000,
  })
}

type KafkaJsAdmin = ReturnType<Kafka['admin']>

/** kafkajs DescribeConfigs (with synonyms) of one resource: name → [value, source, synonyms as name=value@source]. */
async function kafkajsDescribe(admin: KafkaJsAdmin, type: KafkaJsResourceType, name: string, keys: string[]) {
  const r = await admin.describeConfigs({ resources: [{ type, name, configNames: keys }], includeSynonyms: true })
  const resource = r.resources[0]!
  assert.equal(resource.errorCode, 0, resource.errorMessage ?? '')
  return new Map(
    resource.configEntries.map((e) => [
      e.configName,
      {
        value: e.configValue,
        source: Number(e.configSource),
        synonyms: e.configSynonyms.map((s) => `${s.configName}=${s.configValue}@${Number(s.configSource)}`),
      },
    ]),
  )
}

/** The shape both clients are compared on: value, source, synonyms. */
function view(e: Entry | null | undefined) {
  assert.ok(e, 'entry reported')
  return { value: e.value, source: e.source, synonyms: e.synonyms.map(([n, v, s]) => `${n}=${v}@${s}`) }
}

describe('configs through librdkafka (confluent-kafka for Python)', () => {
  const dir = makeTempDir('tributary-librdkafka-configs-')
  let broker: BrokerProcess | undefined
  let admin: KafkaJsAdmin | undefined
  let pythonReady = false
  let first: FullRun | undefined

  before(async () => {
    broker = await startBrokerProcess({ dataDir: dir.path })
    admin = kafkaFor(broker).admin()
    await admin.connect()
  })

  after(async () => {
    await admin?.disconnect().catch(() => {})
    await stopAndCheck(broker)
    dir.remove()
  })

  // A test, not a hook: a missing python3 or confluent_kafka counts as a failed test.
  test('python3 and confluent_kafka (librdkafka) are installed', async () => {
    const r = await run(PYTHON, ['-c', 'import confluent_kafka; print(confluent_kafka.libversion()[0])'])
    assert.equal(r.code, 0, `python3 cannot import confluent_kafka — ${INSTALL_HINT}\nstderr:\n${r.stderr}`)
    assert.match(r.stdout.trim(), /^\d+\.\d+\.\d+/, `librdkafka version: ${r.stdout}`)
    pythonReady = true
  })

  test('librdkafka: CreateTopics with configs, IncrementalAlterConfigs, AlterConfigs, DescribeConfigs, CreatePartitions', async () => {
    assert.ok(pythonReady, `python3 with confluent_kafka is needed (see the previous test): ${INSTALL_HINT}`)
    // A cluster-wide dynamic default (resource ""), set through @platformatic/kafka: librdkafka
    // refuses an empty broker resource name (below), but must report what the broker says of it.
    const pAdmin = new Admin({ clientId: 'it-configs-librdkafka-p', bootstrapBrokers: [broker!.bootstrap] })
    try {
      await pAdmin.incrementalAlterConfigs({
        resources: [
          {
            resourceType: ConfigResourceTypes.BROKER,
            resourceName: '',
            configs: [{ name: 'log.index.interval.bytes', configOperation: IncrementalAlterConfigOperationTypes.SET, value: '8192' }],
          },
        ],
      })
    } finally {
      await pAdmin.close()
    }

    const out = await configsPy<FullRun>(broker!.bootstrap, 'all')
    first = out
    const dump = `configs.py said:\n${JSON.stringify(out, null, 1)}`

    // CreateTopics with three overrides: each reported as a topic config, its broker default after it.
    assert.equal(out.create, null, dump)
    assert.deepEqual(view(out.after_create['retention.ms']), {
      value: '3600000',
      source: DYNAMIC_TOPIC_CONFIG,
      synonyms: ['retention.ms=3600000@1', 'log.retention.hours=168@5'],
    })
    assert.equal(out.after_create['segment.bytes']!.value, '1048576')
    assert.equal(out.after_create['max.message.bytes']!.value, '500000')
    assert.equal(out.after_create['max.message.bytes']!.is_default, false)
    // The broker lists log.index.interval.bytes twice (dynamic default 8192, then default 4096);
    // confluent-kafka keys synonyms by name, so only the last of the two reaches Python (kafkajs,
    // below, sees both).
    assert.deepEqual(view(out.after_create['index.interval.bytes']), {
      value: '8192',
      source: DYNAMIC_DEFAULT_BROKER_CONFIG,
      synonyms: ['log.index.interval.bytes=4096@5'],
    })
    assert.equal(out.after_create['cleanup.policy']!.source, DEFAULT_CONFIG)
    assert.equal(out.after_create['cleanup.policy']!.is_default, true)

    // IncrementalAlterConfigs: SET and DELETE on the topic, a dynamic config on broker 0.
    assert.equal(out.incremental_topic, null, dump)
    assert.equal(out.incremental_broker, null, dump)
    assert.deepEqual(view(out.after_incremental['retention.ms']), {
      value: '7200000',
      source: DYNAMIC_TOPIC_CONFIG,
      synonyms: ['retention.ms=7200000@1', 'log.retention.ms=86400000@2', 'log.retention.hours=168@5'],
    })
    assert.deepEqual(view(out.after_incremental['segment.bytes']), {
      value: '1073741824',
      source: DEFAULT_CONFIG,
      synonyms: ['log.segment.bytes=1073741824@5'],
    })
    assert.equal(out.after_incremental['segment.bytes']!.is_default, true, 'DELETE reverts to the default')
    assert.equal(out.after_incremental['max.message.bytes']!.value, '500000', 'untouched by the incremental change')
    // librdkafka 2.16 builds no broker resource without a node id: the cluster-wide default cannot
    // be set through it (it never reaches the broker), hence @platformatic/kafka above.
    assert.equal(out.incremental_cluster_default?.error.name, 'ValueError', dump)
    // An invalid value is refused by the broker, naming the key.
    assert.equal(out.incremental_invalid?.error.code, INVALID_CONFIG, dump)
    assert.match(out.incremental_invalid!.error.message, /retention\.ms/)
    assert.equal(out.after_incremental['retention.ms']!.value, '7200000', 'the refused change left the value alone')

    // DescribeConfigs of broker 0: dynamic, dynamic default, static and read-only keys.
    assert.deepEqual(view(out.broker['log.retention.ms']), {
      value: '86400000',
      source: DYNAMIC_BROKER_CONFIG,
      synonyms: ['log.retention.ms=86400000@2', 'log.retention.hours=168@5'],
    })
    assert.equal(out.broker['log.retention.ms']!.is_read_only, false)
    assert.equal(out.broker['log.index.interval.bytes']!.value, '8192')
    assert.equal(out.broker['log.index.interval.bytes']!.source, DYNAMIC_DEFAULT_BROKER_CONFIG)
    assert.equal(out.broker['log.dirs']!.value, dir.path)
    assert.equal(out.broker['log.dirs']!.source, STATIC_BROKER_CONFIG)
    assert.equal(out.broker['log.dirs']!.is_read_only, true)
    assert.equal(out.broker['num.partitions']!.is_read_only, true)
    assert.equal(out.broker['num.partitions']!.is_default, true)

    // AlterConfigs replaces the whole override set: retention.ms falls back to broker 0's dynamic config.
    assert.equal(out.alter, null, dump)
    assert.deepEqual(view(out.after_alter['retention.ms']), {
      value: '86400000',
      source: DYNAMIC_BROKER_CONFIG,
      synonyms: ['log.retention.ms=86400000@2', 'log.retention.hours=168@5'],
    })
    assert.equal(out.after_alter['max.message.bytes']!.value, '600000')
    assert.equal(out.after_alter['max.message.bytes']!.source, DYNAMIC_TOPIC_CONFIG)
    assert.equal(out.after_alter['segment.ms']!.value, '3600000')
    assert.equal(out.after_alter['segment.ms']!.source, DYNAMIC_TOPIC_CONFIG)
    assert.equal(out.after_alter['segment.bytes']!.source, DEFAULT_CONFIG)

    // CreatePartitions: 1 → 3; a decrease is refused.
    assert.equal(out.create_partitions, null, dump)
    assert.equal(out.create_partitions_decrease?.error.code, INVALID_PARTITIONS, dump)
    assert.equal(out.partitions, 3)

    // kafkajs, independently: the same values, sources and synonyms.
    const keys = ['retention.ms', 'max.message.bytes', 'segment.ms', 'segment.bytes', 'cleanup.policy']
    const t = await kafkajsDescribe(admin!, KafkaJsResourceTypes.TOPIC, TOPIC, [...keys, 'index.interval.bytes'])
    for (const key of keys) assert.deepEqual(t.get(key), view(out.after_alter[key]), `kafkajs and librdkafka agree on ${key}`)
    assert.equal(t.get('retention.ms')!.source, DYNAMIC_BROKER_CONFIG)
    assert.equal(t.get('max.message.bytes')!.source, DYNAMIC_TOPIC_CONFIG)
    assert.deepEqual(t.get('index.interval.bytes'), {
      value: '8192',
      source: DYNAMIC_DEFAULT_BROKER_CONFIG,
      synonyms: ['log.index.interval.bytes=8192@3', 'log.index.interval.bytes=4096@5'],
    })
    const b = await kafkajsDescribe(admin!, KafkaJsResourceTypes.BROKER, '0', ['log.retention.ms', 'log.index.interval.bytes'])
    assert.deepEqual(b.get('log.retention.ms'), view(out.broker['log.retention.ms']))
    assert.deepEqual(b.get('log.index.interval.bytes')!.synonyms, ['log.index.interval.bytes=8192@3', 'log.index.interval.bytes=4096@5'])
    const meta = await admin!.fetchTopicMetadata({ topics: [TOPIC] })
    assert.equal(meta.topics[0]!.partitions.length, 3)
  })

  test('after a restart on the same data dir librdkafka and kafkajs see the same configs and partitions', async () => {
    assert.ok(first, 'the librdkafka run (previous test) did not complete')
    await admin!.disconnect()
    assert.equal(await broker!.stop(), 0, broker!.stderr().slice(-3000))
    broker = await startBrokerProcess({ dataDir: dir.path })
    admin = kafkaFor(broker).admin()
    await admin.connect()

    const again = await configsPy<DescribeRun>(broker.bootstrap, 'describe')
    assert.deepEqual(again.topic, first.after_alter, 'topic configs as librdkafka described them before the restart')
    assert.deepEqual(again.broker, first.broker, 'broker configs as librdkafka described them before the restart')
    assert.equal(again.partitions, 3)

    const t = await kafkajsDescribe(admin, KafkaJsResourceTypes.TOPIC, TOPIC, ['retention.ms', 'max.message.bytes', 'segment.ms'])
    assert.equal(t.get('retention.ms')!.value, '86400000')
    assert.equal(t.get('retention.ms')!.source, DYNAMIC_BROKER_CONFIG)
    assert.equal(t.get('max.message.bytes')!.value, '600000')
    assert.equal(t.get('max.message.bytes')!.source, DYNAMIC_TOPIC_CONFIG)
    assert.equal(t.get('segment.ms')!.value, '3600000')
    const meta = await admin.fetchTopicMetadata({ topics: [TOPIC] })
    assert.equal(meta.topics[0]!.partitions.length, 3)
  })
})
