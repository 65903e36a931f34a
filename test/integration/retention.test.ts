// Retention and DeleteRecords against a real broker process (log.retention.check.interval.ms=100),
// driven by kafkajs and checked with kcat and the files on disk: a retention.ms=2000 topic loses
// its old segments and its earliest offset advances, while a group consumer whose committed offset
// is gone is told OFFSET_OUT_OF_RANGE and resets to the new start; retention.bytes keeps the
// partition's segment files within Kafka's bound; kafkajs admin.deleteTopicRecords moves the
// earliest offset and later reads below it reset.
import assert from 'node:assert/strict'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { type Admin, Kafka, type logCreator, logLevel, type Producer } from 'kafkajs'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { kcatConsumeAll, kcatQueryOffsets, waitFor } from '../helpers/clients.js'

const HOUR = 3_600_000
const VALUE = 'x'.repeat(200)

/** The partition's live segment files (.log; `.log.deleted` ones excluded), oldest first, with sizes. */
function segments(dataDir: string, topic: string): Array<{ base: number; size: number }> {
  const dir = join(dataDir, `${topic}-0`)
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .map((f) => ({ base: Number(f.slice(0, 20)), size: statSync(join(dir, f)).size }))
}

describe('retention and DeleteRecords', () => {
  let broker: BrokerProcess
  let kafka: Kafka
  let admin: Admin
  let producer: Producer
  /** Every message kafkajs logged (consumers reset offsets with an error-level line). */
  const clientLog: string[] = []
  const capture: logCreator = () => (entry) => {
    clientLog.push(`${entry.log.message} ${JSON.stringify({ topic: (entry.log as Record<string, unknown>).topic })}`)
  }

  before(async () => {
    broker = await startBrokerProcess({
      overrides: { 'log.retention.check.interval.ms': '100', 'group.initial.rebalance.delay.ms': '0' },
    })
    kafka = new Kafka({ clientId: 'it-retention', brokers: [broker.bootstrap], logLevel: logLevel.INFO, logCreator: capture })
    admin = kafka.admin()
    await admin.connect()
    producer = kafka.producer()
    await producer.connect()
  })

  after(async () => {
    await producer?.disconnect().catch(() => {})
    await admin?.disconnect().catch(() => {})
    await stopAndCheck(broker)
  })

  async function earliest(topic: string): Promise<number> {
    const [p] = await admin.fetchTopicOffsets(topic)
    return Number(p!.low)
  }

  /** Sends `sends` batches of two records each, one batch per request, with the given timestamp. */
  async function produce(topic: string, sends: number, timestampMs: number, tag: string): Promise<void> {
    for (let i = 0; i < sends; i++) {
      await producer.send({
        topic,
        acks: -1,
        messages: [0, 1].map((j) => ({ key: `${tag}-${i}-${j}`, value: VALUE, timestamp: String(timestampMs) })),
      })
    }
  }

  /** A group consumer starting from the group's committed offset `committed`; resolves with the offsets read up to `last`. */
  async function consumeFromCommitted(topic: string, groupId: string, committed: number, last: number): Promise<number[]> {
    await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: String(committed) }] })
    const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 200 })
    const offsets: number[] = []
    try {
      await consumer.connect()
      await consumer.subscribe({ topic, fromBeginning: true })
      await consumer.run({
        eachMessage: async ({ message }) => {
          offsets.push(Number(message.offset))
        },
      })
      await waitFor(() => offsets.includes(last), `${groupId} to read up to offset ${last}`, 60_000)
    } finally {
      await consumer.disconnect()
    }
    return offsets
  }

  const resetsLogged = (topic: string) =>
    clientLog.filter((l) => l.includes('Offset out of range, resetting to default offset') && l.includes(`"${topic}"`)).length

  test('retention.ms=2000: old segments go, the earliest offset advances, a consumer at offset 0 resets to it', async () => {
    const topic = 'ret-time'
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic,
          numPartitions: 1,
          configEntries: [
            { name: 'retention.ms', value: '2000' },
            { name: 'segment.bytes', value: '1024' },
          ],
        },
      ],
    })
    // Offsets 0..19 carry a timestamp an hour old: expired on arrival. Offsets 20..25 are stamped
    // 30 minutes ahead, so the segments holding them stay for the whole test.
    await produce(topic, 10, Date.now() - HOUR, 'old')
    await produce(topic, 3, Date.now() + 30 * 60_000, 'new')

    // Retention runs every 100 ms and converges when the log starts at the segment holding offset
    // 20, the first record stamped ahead (that segment, and all after it, are young enough to stay).
    const start = await waitFor(
      async () => {
        const keep = Math.max(...segments(broker.dataDir, topic).map((s) => (s.base <= 20 ? s.base : 0)))
        return keep > 0 && (await earliest(topic)) === keep ? keep : undefined
      },
      'retention to delete the expired segments',
      30_000,
    )
    assert.ok(start > 0 && start <= 20, `the records stamped ahead are kept (earliest ${start})`)
    const segs = segments(broker.dataDir, topic)
    assert.equal(segs[0]!.base, start, 'the log starts at its first remaining segment')
    assert.ok(segs.every((s) => s.base >= start))
    assert.equal((await kcatQueryOffsets(broker.bootstrap, topic, [{ partition: 0, timestamp: -2 }])).get(0), start, 'kcat -Q earliest')
    const [p] = await admin.fetchTopicOffsets(topic)
    assert.equal(Number(p!.high), 26)

    // A group whose committed offset (0) is gone: its fetch is answered OFFSET_OUT_OF_RANGE, kafkajs
    // resets to the earliest offset (fromBeginning) and reads everything from the new start.
    const offsets = await consumeFromCommitted(topic, 'ret-time-group', 0, 25)
    assert.ok(resetsLogged(topic) >= 1, `kafkajs reset after OFFSET_OUT_OF_RANGE; its log:\n${clientLog.join('\n')}`)
    assert.deepEqual(
      offsets,
      Array.from({ length: 26 - start }, (_, i) => start + i),
    )
    // kcat (librdkafka) reading from the beginning gets the same records.
    const viaKcat = await kcatConsumeAll(broker.bootstrap, topic)
    assert.equal(viaKcat.length, 26 - start)
  })

  test('retention.bytes keeps the partition’s segment files within Kafka’s bound', async () => {
    const topic = 'ret-bytes'
    const budget = 3000
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic,
          numPartitions: 1,
          configEntries: [
            { name: 'retention.bytes', value: String(budget) },
            { name: 'segment.bytes', value: '1024' },
            { name: 'file.delete.delay.ms', value: '0' },
          ],
        },
      ],
    })
    await produce(topic, 30, Date.now(), 'b') // 60 records, ~15 KB
    // Converged: deleting the oldest segment would take the partition below its budget.
    const segs = await waitFor(
      () => {
        const s = segments(broker.dataDir, topic)
        const total = s.reduce((n, x) => n + x.size, 0)
        return total - s[0]!.size < budget ? s : undefined
      },
      'retention.bytes to trim the partition',
      30_000,
    )
    const total = segs.reduce((n, x) => n + x.size, 0)
    assert.ok(total >= budget, `never below the budget by deleting (${total} bytes on disk)`)
    assert.ok(total - segs[0]!.size < budget, `within one segment of the budget (${total} bytes on disk)`)
    const start = await earliest(topic)
    assert.equal(start, segs[0]!.base)
    assert.ok(start > 0)
    // file.delete.delay.ms=0: nothing is left as .deleted.
    assert.deepEqual(
      readdirSync(join(broker.dataDir, `${topic}-0`)).filter((f) => f.endsWith('.deleted')),
      [],
    )
  })

  test('DeleteRecords through kafkajs admin moves the earliest offset; reads below it reset', async () => {
    const topic = 'ret-delete-records'
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'segment.bytes', value: '1024' }] }],
    })
    await produce(topic, 20, Date.now(), 'd') // offsets 0..39
    await admin.fetchTopicMetadata({ topics: [topic] }) // kafkajs finds leaders in its metadata cache
    const before = segments(broker.dataDir, topic)
    assert.ok(before.length > 3, `${before.length} segments`)

    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '25' }] })
    assert.equal(await earliest(topic), 25)
    assert.equal((await kcatQueryOffsets(broker.bootstrap, topic, [{ partition: 0, timestamp: -2 }])).get(0), 25)
    const after = segments(broker.dataDir, topic)
    assert.ok(after[0]!.base <= 25 && (after[1]?.base ?? 40) > 25, 'segments wholly below 25 are gone, the one holding 25 stays')
    assert.deepEqual(
      after.map((s) => s.base),
      before.filter((_s, i) => (before[i + 1]?.base ?? 40) > 25).map((s) => s.base),
    )

    // A group committed at 3 is reset to 25 after OFFSET_OUT_OF_RANGE.
    const resetsBefore = resetsLogged(topic)
    const offsets = await consumeFromCommitted(topic, 'ret-delete-records-group', 3, 39)
    assert.ok(resetsLogged(topic) > resetsBefore, 'kafkajs reset after OFFSET_OUT_OF_RANGE')
    assert.deepEqual(
      offsets,
      Array.from({ length: 15 }, (_, i) => 25 + i),
    )

    // Above the high watermark: refused. -1: everything up to the high watermark.
    // (kafkajs retries partition errors; an admin without retries sees the broker's answer at once.)
    const noRetry = kafka.admin({ retry: { retries: 0 } })
    await noRetry.connect()
    await noRetry.fetchTopicMetadata({ topics: [topic] })
    const refused = noRetry.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '41' }] })
    await assert.rejects(refused, (err: unknown) => {
      // kafkajs wraps the partition errors of its last attempt.
      const cause = (err as { cause?: { partitions?: Array<{ error?: { type?: string } }> } }).cause
      assert.equal(cause?.partitions?.[0]?.error?.type, 'OFFSET_OUT_OF_RANGE', String(err))
      return true
    })
    await noRetry.disconnect()
    assert.equal(await earliest(topic), 25)
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '-1' }] })
    assert.equal(await earliest(topic), 40)
    assert.deepEqual(await kcatConsumeAll(broker.bootstrap, topic), [])
  })
})
