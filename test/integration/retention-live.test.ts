// Retention changed on a running broker: topics that hold data under the default retention get
// retention.ms=1000 (kafkajs AlterConfigs) or retention.bytes=3000 (@platformatic/kafka
// IncrementalAlterConfigs) and, with no restart, lose their old segments — the earliest offset
// advances and the segment files leave the data dir. Then the override is DELETEd (back to the
// default: 7 days, unlimited size) and new data stays through later retention passes.
//
// No timing assertions: "a later retention pass has run" is observed through a canary topic
// (retention.ms=1000) whose newest record must age out — retention passes run one after another
// over every log, so two canary deletions after the new data was written mean at least one whole
// pass saw it.
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Admin as PAdmin, ConfigResourceTypes, IncrementalAlterConfigOperationTypes } from '@platformatic/kafka'
import { type Admin, type ConfigResourceTypes as KafkaJsResourceType, Kafka, logLevel, type Producer } from 'kafkajs'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { waitFor } from '../helpers/clients.js'

// kafkajs's ConfigResourceTypes is a TypeScript enum its ESM entry does not export at run time.
const TOPIC_RESOURCE = 2 as KafkaJsResourceType
// Kafka's DescribeConfigs ConfigSource ids.
const DYNAMIC_TOPIC_CONFIG = 1
const DEFAULT_CONFIG = 5

const VALUE = 'x'.repeat(200)
const CANARY = 'live-canary'
const WAIT_MS = 60_000
/** Small segments; removed files go at once (no `.deleted` left behind for 60 s). */
const SMALL_SEGMENTS = [
  { name: 'segment.bytes', value: '1024' },
  { name: 'file.delete.delay.ms', value: '0' },
]

/** The partition's files by segment base offset (`.log`, `.index`, `.timeindex`, `.deleted` ones too). */
function segmentFiles(dataDir: string, topic: string): Map<number, string[]> {
  const files = new Map<number, string[]>()
  for (const f of readdirSync(join(dataDir, `${topic}-0`)).sort()) {
    if (!/^\d{20}\./.test(f)) continue
    const base = Number(f.slice(0, 20))
    files.set(base, [...(files.get(base) ?? []), f])
  }
  return files
}

const bases = (dataDir: string, topic: string) => [...segmentFiles(dataDir, topic).keys()]

describe('retention changed on a running broker', () => {
  let broker: BrokerProcess
  let admin: Admin
  let pAdmin: PAdmin
  let producer: Producer

  before(async () => {
    broker = await startBrokerProcess({ overrides: { 'log.retention.check.interval.ms': '500' } })
    const kafka = new Kafka({ clientId: 'it-retention-live', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    admin = kafka.admin()
    await admin.connect()
    producer = kafka.producer({ allowAutoTopicCreation: false })
    await producer.connect()
    pAdmin = new PAdmin({ clientId: 'it-retention-live-p', bootstrapBrokers: [broker.bootstrap] })
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic: CANARY, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '1000' }, ...SMALL_SEGMENTS] }],
    })
  })

  after(async () => {
    await producer?.disconnect().catch(() => {})
    await admin?.disconnect().catch(() => {})
    await pAdmin?.close().catch(() => {})
    await stopAndCheck(broker)
  })

  async function offsets(topic: string): Promise<{ low: number; high: number }> {
    const [p] = await admin.fetchTopicOffsets(topic)
    return { low: Number(p!.low), high: Number(p!.high) }
  }

  /** Sends `sends` batches of two records each (stamped now), one batch per request. */
  async function produce(topic: string, sends: number, tag: string): Promise<void> {
    for (let i = 0; i < sends; i++) {
      await producer.send({ topic, acks: -1, messages: [0, 1].map((j) => ({ key: `${tag}-${i}-${j}`, value: VALUE })) })
    }
  }

  /** Returns once `passes` retention passes have run after the call (see the header). */
  async function retentionPasses(passes: number): Promise<void> {
    for (let i = 0; i < passes; i++) {
      await produce(CANARY, 1, `canary-${i}`)
      const { high } = await offsets(CANARY)
      await waitFor(async () => (await offsets(CANARY)).low === high, `a retention pass to age out the canary up to ${high}`, WAIT_MS, 100)
    }
  }

  async function describeTopic(topic: string, key: string) {
    const r = await admin.describeConfigs({
      resources: [{ type: TOPIC_RESOURCE, name: topic, configNames: [key] }],
      includeSynonyms: false,
    })
    const e = r.resources[0]!.configEntries.find((x) => x.configName === key)!
    return { value: e.configValue, source: Number(e.configSource) }
  }

  async function incremental(topic: string, key: string, value?: string): Promise<void> {
    const config =
      value === undefined
        ? { name: key, configOperation: IncrementalAlterConfigOperationTypes.DELETE }
        : { name: key, configOperation: IncrementalAlterConfigOperationTypes.SET, value }
    await pAdmin.incrementalAlterConfigs({
      resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: topic, configs: [config] }],
    })
  }

  /** After two more retention passes, the topic's log start and segment files are still the expected ones. */
  async function assertNothingDeleted(topic: string, expectedLow: number, expectedBases: number[]): Promise<void> {
    await retentionPasses(2)
    assert.equal((await offsets(topic)).low, expectedLow, 'the earliest offset stays')
    assert.deepEqual(bases(broker.dataDir, topic), expectedBases, 'every segment file stays')
  }

  test('retention.ms set to 1000 through kafkajs AlterConfigs: old segments go at the next passes; DELETE of the override stops it', async () => {
    const topic = 'live-time'
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1, configEntries: SMALL_SEGMENTS }] })
    await produce(topic, 20, 'old') // offsets 0..39, stamped now: kept for 7 days by default
    const before = segmentFiles(broker.dataDir, topic)
    assert.ok(before.size > 3, `${before.size} segments`)
    assert.equal((await offsets(topic)).low, 0)

    // AlterConfigs replaces the whole override set: the segment settings are sent again.
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: TOPIC_RESOURCE, name: topic, configEntries: [{ name: 'retention.ms', value: '1000' }, ...SMALL_SEGMENTS] }],
    })
    assert.deepEqual(await describeTopic(topic, 'retention.ms'), { value: '1000', source: DYNAMIC_TOPIC_CONFIG })

    // Every record ages out, the active segment included: the log rolls and starts at 40, empty.
    await waitFor(
      async () => (await offsets(topic)).low === 40 && bases(broker.dataDir, topic).join() === '40',
      'retention.ms=1000 to remove every old segment',
      WAIT_MS,
      100,
    )
    const left = readdirSync(join(broker.dataDir, `${topic}-0`))
    for (const [base, files] of before) {
      for (const f of files) assert.ok(!left.includes(f), `${f} (segment ${base}) is gone; left: ${left.join(' ')}`)
    }
    assert.equal((await offsets(topic)).high, 40)

    // DELETE the override: back to the default (7 days), at once.
    await incremental(topic, 'retention.ms')
    assert.deepEqual(await describeTopic(topic, 'retention.ms'), { value: '604800000', source: DEFAULT_CONFIG })
    await produce(topic, 20, 'new') // offsets 40..79
    const kept = bases(broker.dataDir, topic)
    assert.ok(kept.length > 3 && kept[0] === 40, `new segments ${kept.join()}`)
    await assertNothingDeleted(topic, 40, kept)
    assert.equal((await offsets(topic)).high, 80)
  })

  test('retention.bytes set to 3000 through @platformatic/kafka IncrementalAlterConfigs trims at once; DELETE of the override stops it', async () => {
    const topic = 'live-bytes'
    const budget = 3000
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1, configEntries: SMALL_SEGMENTS }] })
    await produce(topic, 30, 'b') // 60 records, ~15 KB
    const before = segmentFiles(broker.dataDir, topic)
    assert.ok(before.size > 6, `${before.size} segments`)
    // Unlimited by default: retention passes leave it alone.
    await assertNothingDeleted(topic, 0, [...before.keys()])

    await incremental(topic, 'retention.bytes', String(budget))
    assert.deepEqual(await describeTopic(topic, 'retention.bytes'), { value: String(budget), source: DYNAMIC_TOPIC_CONFIG })
    // Converged: deleting the oldest segment would take the partition below its budget.
    const start = await waitFor(
      async () => {
        const { low } = await offsets(topic)
        return low > 0 && bases(broker.dataDir, topic)[0] === low ? low : undefined
      },
      'retention.bytes to trim the partition',
      WAIT_MS,
      100,
    )
    const left = readdirSync(join(broker.dataDir, `${topic}-0`))
    for (const [base, files] of before) {
      if (base >= start) continue
      for (const f of files) assert.ok(!left.includes(f), `${f} (segment ${base}, below the new start ${start}) is gone`)
    }
    assert.ok(bases(broker.dataDir, topic).length < before.size)

    // DELETE the override: unlimited again, at once.
    await incremental(topic, 'retention.bytes')
    assert.deepEqual(await describeTopic(topic, 'retention.bytes'), { value: '-1', source: DEFAULT_CONFIG })
    // A pass that read the old budget before the DELETE may still be running: let it finish.
    await retentionPasses(2)
    const settled = await offsets(topic)
    await produce(topic, 30, 'c')
    const kept = bases(broker.dataDir, topic)
    assert.ok(kept.length > 6, `${kept.length} segments`)
    await assertNothingDeleted(topic, settled.low, kept)
    assert.equal((await offsets(topic)).high, 120)
  })
})
