// Log compaction against real broker processes. kafkajs produces 100,000 records over 1,000 keys
// (updates and tombstones) to a cleanup.policy=compact topic while the cleaner is off; then the
// broker restarts with the cleaner on (throttled, so a cleaning takes seconds) and is killed with
// SIGKILL while cleaning — seen by its `.cleaned`/`.swap` files — three times; a last restart
// finishes the cleaning. kcat and a kafkajs consumer then read exactly the latest record of every
// key at its original offset. Also: a record without a key is refused with INVALID_RECORD, and
// __consumer_offsets is a compacted topic.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { type ConfigResourceTypes, Kafka, logLevel } from 'kafkajs'
import { type BrokerProcess, makeTempDir, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { kcatConsumeAll, sleep, waitFor } from '../helpers/clients.js'

/** kafkajs's ConfigResourceTypes.TOPIC (a TypeScript enum its ESM entry does not export at run time). */
const TOPIC_RESOURCE = 2 as ConfigResourceTypes
const TOPIC = 'changelog'
const RECORDS = 100_000
const KEYS = 1_000

interface Produced {
  offset: number
  key: string
  value: string | null
}

const overrides = (cleaner: boolean): Record<string, string> => ({
  'log.cleaner.enable': String(cleaner),
  'log.cleaner.backoff.ms': '50',
  // About 3 s for the first cleaning of the ~6 MiB log: time to be killed in the middle of it.
  'log.cleaner.io.max.bytes.per.second': '4000000',
  'group.initial.rebalance.delay.ms': '0',
})

/** The topic directory's files of a cleaning in progress. */
function cleaningFiles(dataDir: string): string[] {
  const dir = join(dataDir, `${TOPIC}-0`)
  if (!existsSync(dir)) return []
  return readdirSync(dir).filter((f) => f.endsWith('.cleaned') || f.endsWith('.swap'))
}

function cleanerCheckpoint(dataDir: string): number | undefined {
  const path = join(dataDir, 'cleaner-offset-checkpoint')
  if (!existsSync(path)) return undefined
  const line = readFileSync(path, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${TOPIC} 0 `))
  return line === undefined ? undefined : Number(line.split(' ')[2])
}

describe('log compaction', () => {
  const data = makeTempDir('tributary-compaction-')
  let broker: BrokerProcess | undefined
  const produced: Produced[] = []

  after(async () => {
    if (broker?.alive()) await stopAndCheck(broker)
    else await broker?.cleanup()
    data.remove()
  })

  test('a record without a key is refused on a compacted topic; __consumer_offsets is compacted', async () => {
    broker = await startBrokerProcess({ dataDir: data.path, overrides: overrides(false) })
    const kafka = new Kafka({ clientId: 'it-compaction', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({
      topics: [{ topic: 'keys-only', numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
    })
    const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } })
    await producer.connect()
    await assert.rejects(
      producer.send({ topic: 'keys-only', acks: -1, messages: [{ key: 'k', value: 'with key' }, { value: 'no key' }] }),
      (err: Error & { type?: string }) => err.type === 'INVALID_RECORD' || /INVALID_RECORD|without key/i.test(err.message),
    )
    await producer.send({ topic: 'keys-only', acks: -1, messages: [{ key: 'k', value: 'with key' }] })
    await producer.disconnect()
    const stored = await kcatConsumeAll(broker.bootstrap, 'keys-only')
    assert.deepEqual(
      stored.map((r) => [r.offset, r.key, r.value]),
      [[0, 'k', 'with key']],
      'the refused batch was not stored',
    )
    // A group commit creates __consumer_offsets: it is compacted, so the cleaner looks after it.
    const consumer = kafka.consumer({ groupId: 'it-compaction-group' })
    await consumer.connect()
    await consumer.subscribe({ topic: 'keys-only', fromBeginning: true })
    let seen = 0
    await consumer.run({ eachMessage: async () => void seen++ })
    await waitFor(() => seen === 1, 'the group consumer to read the record', 30_000)
    await consumer.disconnect()
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: TOPIC_RESOURCE, name: '__consumer_offsets', configNames: ['cleanup.policy'] }],
    })
    assert.equal(described.resources[0]!.configEntries[0]!.configValue, 'compact')
    await admin.disconnect()
  })

  test('100,000 records over 1,000 keys, produced with kafkajs', async () => {
    if (!broker?.alive()) assert.fail('the broker of the first test is not running')
    const kafka = new Kafka({ clientId: 'it-compaction', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({
      topics: [
        {
          topic: TOPIC,
          numPartitions: 1,
          configEntries: [
            { name: 'cleanup.policy', value: 'compact' },
            { name: 'segment.bytes', value: String(256 * 1024) },
            { name: 'segment.ms', value: '2000' },
            { name: 'min.cleanable.dirty.ratio', value: '0.01' },
          ],
        },
      ],
    })
    await admin.disconnect()
    const producer = kafka.producer({ allowAutoTopicCreation: false })
    await producer.connect()
    let state = 12345
    const random = () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0
      return state / 4294967296
    }
    for (let i = 0; i < RECORDS; ) {
      const messages: Array<{ key: string; value: string | null }> = []
      for (let j = 0; j < 500; j++, i++) {
        const key = `key-${Math.floor(random() * KEYS)}`
        messages.push({ key, value: i % 37 === 0 ? null : `value-${i}-`.padEnd(40, '.') })
      }
      const [meta] = await producer.send({ topic: TOPIC, acks: -1, messages })
      const base = Number(meta!.baseOffset)
      for (const [j, m] of messages.entries()) produced.push({ offset: base + j, key: m.key, value: m.value })
    }
    // A last record after segment.ms, so every record above is in a cleanable (rolled) segment.
    await sleep(2500)
    const [meta] = await producer.send({ topic: TOPIC, acks: -1, messages: [{ key: 'sentinel', value: 'last' }] })
    produced.push({ offset: Number(meta!.baseOffset), key: 'sentinel', value: 'last' })
    await producer.disconnect()
    assert.equal(produced.length, RECORDS + 1)
    assert.deepEqual(
      produced.map((p) => p.offset),
      produced.map((_, i) => i),
    )
    assert.equal(await broker.stop(), 0, 'a clean stop')
  })

  test('the cleaner, killed with SIGKILL in the middle of cleaning three times, ends with the latest record per key at its original offset', async (t) => {
    assert.equal(produced.length, RECORDS + 1, 'the records were produced')
    let killedWhileCleaning = 0
    for (let kill = 0; kill < 3; kill++) {
      broker = await startBrokerProcess({ dataDir: data.path, overrides: overrides(true) })
      const b = broker
      await waitFor(() => cleaningFiles(data.path).length > 0, 'a cleaning to write its .cleaned segment', 60_000, 5)
      await sleep(Math.floor(Math.random() * 300))
      const files = cleaningFiles(data.path)
      await b.kill9()
      if (files.length > 0) killedWhileCleaning++
      t.diagnostic(`kill ${kill + 1}: cleaning files then: ${files.join(', ') || 'none'}`)
    }
    assert.ok(killedWhileCleaning >= 1, 'at least one kill hit a cleaning in progress')

    broker = await startBrokerProcess({ dataDir: data.path, overrides: overrides(true) })
    const sentinel = produced[produced.length - 1]!.offset
    await waitFor(
      () => cleanerCheckpoint(data.path) === sentinel && cleaningFiles(data.path).length === 0,
      'the cleaner to finish the topic',
      120_000,
      100,
    )
    const completed = broker.stderr().match(/completing an interrupted cleaner swap/g)?.length ?? 0
    t.diagnostic(`the last restart completed ${completed} interrupted swap(s)`)

    const latest = new Map<string, Produced>()
    for (const p of produced) latest.set(p.key, p)
    const expected = [...latest.values()].sort((a, b) => a.offset - b.offset).map((p) => [p.offset, p.key, p.value])
    assert.equal(expected.length, KEYS + 1)
    assert.ok(
      expected.some((e) => e[2] === null),
      'some keys end with a tombstone, kept for delete.retention.ms',
    )

    const viaKcat = await kcatConsumeAll(broker.bootstrap, TOPIC)
    assert.deepEqual(
      viaKcat.map((r) => [r.offset, r.key, r.value]),
      expected,
      'kcat reads the latest record of every key, at its original offset',
    )

    const kafka = new Kafka({ clientId: 'it-compaction-read', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    const consumer = kafka.consumer({ groupId: 'it-compaction-reader', maxWaitTimeInMs: 200 })
    const viaKafkajs: Array<[number, string | undefined, string | null]> = []
    await consumer.connect()
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true })
    await consumer.run({
      eachMessage: async ({ message }) => {
        viaKafkajs.push([Number(message.offset), message.key?.toString(), message.value === null ? null : message.value.toString()])
      },
    })
    await waitFor(() => viaKafkajs.length >= expected.length, 'kafkajs to read the compacted topic', 60_000)
    await consumer.disconnect()
    assert.deepEqual(viaKafkajs, expected, 'kafkajs reads the same records (it moves past the cleaned gaps)')
  })
})
