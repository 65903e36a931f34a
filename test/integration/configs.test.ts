// Topic and broker configs and partition growth against a real broker process, through real
// clients: kafkajs admin (AlterConfigs, DescribeConfigs, CreatePartitions), @platformatic/kafka's
// admin (IncrementalAlterConfigs) and kcat (librdkafka) for what the broker does with them —
// LogAppendTime stamps, max.message.bytes changed without a restart, produce/fetch on new
// partitions — and a restart on the same data dir that keeps all of it.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Admin, ConfigResourceTypes, IncrementalAlterConfigOperationTypes } from '@platformatic/kafka'
import { type ConfigResourceTypes as KafkaJsResourceType, Kafka, logLevel } from 'kafkajs'
import { type BrokerProcess, makeTempDir, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { kcatMetadata, runKcat } from '../helpers/clients.js'

// kafkajs's ConfigResourceTypes is a TypeScript enum its ESM entry does not export at run time.
// kafkajs reports a refused request by its error type only (the broker's message is covered by
// the handler unit tests).
const KafkaJsResourceTypes = { TOPIC: 2 as KafkaJsResourceType, BROKER: 4 as KafkaJsResourceType }

// Kafka's DescribeConfigs ConfigSource ids.
const TOPIC_CONFIG = 1
const DYNAMIC_BROKER_CONFIG = 2
const DYNAMIC_DEFAULT_BROKER_CONFIG = 3
const DEFAULT_CONFIG = 5

function kafkaFor(broker: BrokerProcess): Kafka {
  return new Kafka({
    clientId: 'it-configs',
    brokers: [broker.bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 },
    connectionTimeout: 5000,
    requestTimeout: 20_000,
  })
}

type KafkaJsAdmin = ReturnType<Kafka['admin']>

async function describeTopic(admin: KafkaJsAdmin, topic: string, names: string[]) {
  const r = await admin.describeConfigs({
    resources: [{ type: KafkaJsResourceTypes.TOPIC, name: topic, configNames: names }],
    includeSynonyms: true,
  })
  const resource = r.resources[0]!
  assert.equal(resource.errorCode, 0, resource.errorMessage ?? '')
  return new Map(resource.configEntries.map((e) => [e.configName, e]))
}

async function describeBroker(admin: KafkaJsAdmin, name: string, names: string[]) {
  const r = await admin.describeConfigs({
    resources: [{ type: KafkaJsResourceTypes.BROKER, name, configNames: names }],
    includeSynonyms: true,
  })
  return new Map(r.resources[0]!.configEntries.map((e) => [e.configName, e]))
}

/** @platformatic/kafka keeps the broker's answer on a failed admin call: check its code and message. */
function answered(err: Error, errorCode: number, message: RegExp): boolean {
  const response = (err as Error & { errors?: Array<{ response?: unknown }> }).errors?.[0]?.response as
    | {
        results?: Array<{ errorCode: number; errorMessage: string | null }>
        responses?: Array<{ errorCode: number; errorMessage: string | null }>
      }
    | undefined
  const entry = response?.results?.[0] ?? response?.responses?.[0]
  return entry?.errorCode === errorCode && message.test(entry.errorMessage ?? '')
}

/** kcat's view of a topic: one "partition timestamp value" line per record. */
async function kcatRecords(bootstrap: string, topic: string): Promise<Array<{ partition: number; timestamp: number; value: string }>> {
  const r = await runKcat(['-C', '-b', bootstrap, '-t', topic, '-e', '-q', '-f', '%p %T %s\\n'])
  assert.equal(r.code, 0, r.stderr)
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [p, t, ...v] = l.split(' ')
      return { partition: Number(p), timestamp: Number(t), value: v.join(' ') }
    })
}

describe('configs and partitions on a real broker', () => {
  const dir = makeTempDir('tributary-configs-')
  let broker: BrokerProcess | undefined
  let kafka: Kafka
  let admin: KafkaJsAdmin

  before(async () => {
    broker = await startBrokerProcess({ dataDir: dir.path })
    kafka = kafkaFor(broker)
    admin = kafka.admin()
    await admin.connect()
  })

  after(async () => {
    await admin?.disconnect().catch(() => {})
    await stopAndCheck(broker)
    dir.remove()
  })

  test('kafkajs AlterConfigs on a topic replaces its overrides; DescribeConfigs shows the sources', async () => {
    await admin.createTopics({
      topics: [{ topic: 'cfg-alter', numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '100000' }] }],
    })
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: KafkaJsResourceTypes.TOPIC,
          name: 'cfg-alter',
          configEntries: [
            { name: 'segment.bytes', value: '1048576' },
            { name: 'cleanup.policy', value: 'compact' },
          ],
        },
      ],
    })
    const d = await describeTopic(admin, 'cfg-alter', ['segment.bytes', 'cleanup.policy', 'retention.ms'])
    assert.equal(d.get('segment.bytes')!.configValue, '1048576')
    assert.equal(d.get('segment.bytes')!.configSource, TOPIC_CONFIG)
    assert.equal(d.get('cleanup.policy')!.configValue, 'compact')
    assert.equal(d.get('retention.ms')!.configValue, '604800000', 'not sent = back to the default')
    assert.equal(d.get('retention.ms')!.configSource, DEFAULT_CONFIG)

    await assert.rejects(
      admin.alterConfigs({
        validateOnly: false,
        resources: [{ type: KafkaJsResourceTypes.TOPIC, name: 'cfg-alter', configEntries: [{ name: 'segment.bytes', value: 'huge' }] }],
      }),
      (err: Error & { type?: string }) => err.type === 'INVALID_CONFIG',
    )
  })

  test('kafkajs AlterConfigs on the broker sets dynamic configs that reach topics without overrides', async () => {
    await admin.createTopics({ topics: [{ topic: 'cfg-follow', numPartitions: 1 }] })
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: KafkaJsResourceTypes.BROKER, name: '0', configEntries: [{ name: 'log.retention.ms', value: '7200000' }] }],
    })
    const b = await describeBroker(admin, '0', ['log.retention.ms', 'num.partitions'])
    assert.equal(b.get('log.retention.ms')!.configValue, '7200000')
    assert.equal(b.get('log.retention.ms')!.configSource, DYNAMIC_BROKER_CONFIG)
    assert.equal(b.get('log.retention.ms')!.readOnly, false)
    assert.equal(b.get('num.partitions')!.readOnly, true)
    const t = await describeTopic(admin, 'cfg-follow', ['retention.ms'])
    assert.equal(t.get('retention.ms')!.configValue, '7200000')
    assert.equal(t.get('retention.ms')!.configSource, DYNAMIC_BROKER_CONFIG)
    await assert.rejects(
      admin.alterConfigs({
        validateOnly: false,
        resources: [{ type: KafkaJsResourceTypes.BROKER, name: '0', configEntries: [{ name: 'log.dirs', value: '/elsewhere' }] }],
      }),
      (err: Error & { type?: string }) => err.type === 'INVALID_REQUEST',
    )
  })

  test('@platformatic/kafka IncrementalAlterConfigs: APPEND to a list, cluster-wide default LogAppendTime seen by kcat', async () => {
    const pAdmin = new Admin({ clientId: 'it-configs-p', bootstrapBrokers: [broker!.bootstrap] })
    try {
      await admin.createTopics({ topics: [{ topic: 'cfg-incr', numPartitions: 1 }] })
      await pAdmin.incrementalAlterConfigs({
        resources: [
          {
            resourceType: ConfigResourceTypes.TOPIC,
            resourceName: 'cfg-incr',
            configs: [{ name: 'cleanup.policy', configOperation: IncrementalAlterConfigOperationTypes.APPEND, value: 'compact' }],
          },
        ],
      })
      const d = await describeTopic(admin, 'cfg-incr', ['cleanup.policy'])
      assert.equal(d.get('cleanup.policy')!.configValue, 'delete,compact')

      // A dynamic cluster-wide default flows into every topic without its own override, live.
      await pAdmin.incrementalAlterConfigs({
        resources: [
          {
            resourceType: ConfigResourceTypes.BROKER,
            resourceName: '',
            configs: [
              { name: 'log.message.timestamp.type', configOperation: IncrementalAlterConfigOperationTypes.SET, value: 'LogAppendTime' },
            ],
          },
        ],
      })
      const described = await pAdmin.describeConfigs({
        resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: 'cfg-incr', configurationKeys: ['message.timestamp.type'] }],
        includeSynonyms: true,
      })
      const entry = described[0]!.configs[0]!
      assert.equal(entry.value, 'LogAppendTime')
      assert.equal(entry.configSource, DYNAMIC_DEFAULT_BROKER_CONFIG)

      const producer = kafka.producer({ allowAutoTopicCreation: false })
      await producer.connect()
      const before = Date.now()
      await producer.send({ topic: 'cfg-incr', acks: -1, messages: [{ key: 'k', value: 'stamped', timestamp: '1000000000000' }] }) // keyed: the topic is compacted
      await producer.disconnect()
      const [rec] = await kcatRecords(broker!.bootstrap, 'cfg-incr')
      assert.equal(rec!.value, 'stamped')
      assert.ok(rec!.timestamp >= before - 1000, `kcat sees the broker's append time, not the producer's: ${rec!.timestamp}`)

      await pAdmin.incrementalAlterConfigs({
        resources: [
          {
            resourceType: ConfigResourceTypes.BROKER,
            resourceName: '',
            configs: [{ name: 'log.message.timestamp.type', configOperation: IncrementalAlterConfigOperationTypes.DELETE }],
          },
        ],
      })
    } finally {
      await pAdmin.close()
    }
  })

  test('message.timestamp.type=LogAppendTime on a topic: kcat prints the broker time (-f %T)', async () => {
    await admin.createTopics({
      topics: [{ topic: 'cfg-lat', numPartitions: 1, configEntries: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }] }],
    })
    const producer = kafka.producer({ allowAutoTopicCreation: false })
    await producer.connect()
    const before = Date.now()
    await producer.send({ topic: 'cfg-lat', acks: -1, messages: [{ value: 'a', timestamp: '1000000000000' }] })
    const after = Date.now()
    await producer.disconnect()
    const kcatProduce = await runKcat(['-P', '-b', broker!.bootstrap, '-t', 'cfg-lat', '-p', '0'], 'b\n')
    assert.equal(kcatProduce.code, 0, kcatProduce.stderr)
    const records = await kcatRecords(broker!.bootstrap, 'cfg-lat')
    assert.deepEqual(
      records.map((r) => r.value),
      ['a', 'b'],
    )
    assert.ok(records[0]!.timestamp >= before - 1000 && records[0]!.timestamp <= after + 1000, `append time, got ${records[0]!.timestamp}`)
    assert.ok(records[1]!.timestamp >= records[0]!.timestamp)
  })

  test('a changed max.message.bytes takes effect without a restart', async () => {
    await admin.createTopics({ topics: [{ topic: 'cfg-size', numPartitions: 1 }] })
    const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } })
    await producer.connect()
    const big = 'x'.repeat(4000)
    await producer.send({ topic: 'cfg-size', acks: -1, messages: [{ value: big }] })
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: KafkaJsResourceTypes.TOPIC, name: 'cfg-size', configEntries: [{ name: 'max.message.bytes', value: '1000' }] }],
    })
    await assert.rejects(
      producer.send({ topic: 'cfg-size', acks: -1, messages: [{ value: big }] }),
      (err: Error & { type?: string }) => err.type === 'MESSAGE_TOO_LARGE' || /too large|MESSAGE_TOO_LARGE/i.test(err.message),
    )
    await producer.send({ topic: 'cfg-size', acks: -1, messages: [{ value: 'small' }] })
    await producer.disconnect()
    const values = (await kcatRecords(broker!.bootstrap, 'cfg-size')).map((r) => r.value.length)
    assert.deepEqual(values, [4000, 5])
  })

  test('kafkajs CreatePartitions adds partitions that kcat produces to and reads from', async () => {
    await admin.createTopics({ topics: [{ topic: 'cfg-grow', numPartitions: 1 }] })
    await admin.createPartitions({ topicPartitions: [{ topic: 'cfg-grow', count: 3 }] })
    const meta = await kcatMetadata(broker!.bootstrap, 'cfg-grow')
    assert.equal(meta.topics.find((t) => t.topic === 'cfg-grow')?.partitions.length, 3)
    for (const p of [0, 1, 2]) {
      const r = await runKcat(['-P', '-b', broker!.bootstrap, '-t', 'cfg-grow', '-p', String(p)], `in-${p}\n`)
      assert.equal(r.code, 0, r.stderr)
    }
    const got = (await kcatRecords(broker!.bootstrap, 'cfg-grow')).map((r) => `${r.partition}:${r.value}`).sort()
    assert.deepEqual(got, ['0:in-0', '1:in-1', '2:in-2'])
    await assert.rejects(
      admin.createPartitions({ topicPartitions: [{ topic: 'cfg-grow', count: 2 }] }),
      (err: Error & { type?: string }) => err.type === 'INVALID_PARTITIONS',
    )
  })

  test('@platformatic/kafka AlterConfigs v2 and CreatePartitions v3 (flexible versions, manual assignment)', async () => {
    const pAdmin = new Admin({ clientId: 'it-configs-p2', bootstrapBrokers: [broker!.bootstrap] })
    try {
      await admin.createTopics({ topics: [{ topic: 'cfg-flex', numPartitions: 1 }] })
      await pAdmin.alterConfigs({
        resources: [
          { resourceType: ConfigResourceTypes.TOPIC, resourceName: 'cfg-flex', configs: [{ name: 'retention.ms', value: '123456' }] },
        ],
      })
      const d = await describeTopic(admin, 'cfg-flex', ['retention.ms'])
      assert.equal(d.get('retention.ms')!.configValue, '123456')
      await pAdmin.createPartitions({ topics: [{ name: 'cfg-flex', count: 3, assignments: [{ brokerIds: [0] }, { brokerIds: [0] }] }] })
      const meta = await kcatMetadata(broker!.bootstrap, 'cfg-flex')
      assert.equal(meta.topics.find((t) => t.topic === 'cfg-flex')?.partitions.length, 3)
      await assert.rejects(
        pAdmin.createPartitions({ topics: [{ name: 'cfg-flex', count: 4, assignments: [{ brokerIds: [7] }] }] }),
        (err: Error) => answered(err, 39, /broker 7, but no such broker is registered/),
      )
      await assert.rejects(
        pAdmin.alterConfigs({
          resources: [
            { resourceType: ConfigResourceTypes.TOPIC, resourceName: 'cfg-flex', configs: [{ name: 'retention.ms', value: 'later' }] },
          ],
        }),
        (err: Error) => answered(err, 40, /retention\.ms/),
      )
    } finally {
      await pAdmin.close()
    }
  })

  test('configs, dynamic broker configs and partitions survive a restart', async () => {
    await admin.disconnect()
    assert.equal(await broker!.stop(), 0, broker!.stderr().slice(-3000))
    broker = await startBrokerProcess({ dataDir: dir.path })
    kafka = kafkaFor(broker)
    admin = kafka.admin()
    await admin.connect()

    const t = await describeTopic(admin, 'cfg-alter', ['segment.bytes', 'cleanup.policy'])
    assert.equal(t.get('segment.bytes')!.configValue, '1048576')
    assert.equal(t.get('segment.bytes')!.configSource, TOPIC_CONFIG)
    assert.equal(t.get('cleanup.policy')!.configValue, 'compact')
    const b = await describeBroker(admin, '0', ['log.retention.ms'])
    assert.equal(b.get('log.retention.ms')!.configValue, '7200000')
    assert.equal(b.get('log.retention.ms')!.configSource, DYNAMIC_BROKER_CONFIG)
    const follow = await describeTopic(admin, 'cfg-follow', ['retention.ms'])
    assert.equal(follow.get('retention.ms')!.configValue, '7200000')

    const meta = await kcatMetadata(broker.bootstrap, 'cfg-grow')
    assert.equal(meta.topics.find((x) => x.topic === 'cfg-grow')?.partitions.length, 3)
    const got = (await kcatRecords(broker.bootstrap, 'cfg-grow')).map((r) => `${r.partition}:${r.value}`).sort()
    assert.deepEqual(got, ['0:in-0', '1:in-1', '2:in-2'])

    // max.message.bytes still enforced after the restart.
    const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } })
    await producer.connect()
    await assert.rejects(producer.send({ topic: 'cfg-size', acks: -1, messages: [{ value: 'x'.repeat(4000) }] }))
    await producer.disconnect()
  })
})
