// DescribeLogDirs (API 35) against a real broker process: through @platformatic/kafka's Admin
// (v4, flexible) and byte-level through RawClient in v1 (non-flexible), v4 and v5. The sizes it
// reports are checked against the segment files on disk, written by kafkajs.
import assert from 'node:assert/strict'
import { readdirSync, realpathSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Admin } from '@platformatic/kafka'
import { Kafka, logLevel } from 'kafkajs'
import { DescribeLogDirsRequest, DescribeLogDirsResponse } from '../../src/protocol/messages/35-describe-log-dirs.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { RawClient } from '../helpers/clients.js'

const TOPIC = 'it-log-dirs'
const OTHER = 'it-log-dirs-other'

/** Bytes of a partition's .log segment files, read from the data dir. */
function logBytes(dataDir: string, topic: string, partition: number): number {
  const dir = join(dataDir, `${topic}-${partition}`)
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .reduce((n, f) => n + statSync(join(dir, f)).size, 0)
}

describe('DescribeLogDirs', () => {
  let broker: BrokerProcess
  let admin: Admin

  before(async () => {
    broker = await startBrokerProcess()
    const kafka = new Kafka({ clientId: 'it-log-dirs', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    const kadmin = kafka.admin()
    await kadmin.connect()
    await kadmin.createTopics({
      topics: [
        { topic: TOPIC, numPartitions: 3 },
        { topic: OTHER, numPartitions: 1 },
      ],
    })
    await kadmin.disconnect()
    const producer = kafka.producer()
    await producer.connect()
    // Partition 0 gets much more than partition 1; partition 2 stays empty.
    await producer.send({
      topic: TOPIC,
      acks: -1,
      messages: Array.from({ length: 50 }, (_, i) => ({ partition: 0, value: `zero-${i}-${'x'.repeat(200)}` })),
    })
    await producer.send({ topic: TOPIC, acks: -1, messages: [{ partition: 1, value: 'one' }] })
    await producer.send({ topic: OTHER, acks: -1, messages: [{ partition: 0, value: 'other' }] })
    await producer.disconnect()
    admin = new Admin({ clientId: 'it-log-dirs-admin', bootstrapBrokers: [broker.bootstrap] })
  })

  after(async () => {
    await admin?.close().catch(() => {})
    await stopAndCheck(broker)
  })

  test('@platformatic/kafka Admin.describeLogDirs: the log dir, each asked partition’s size as on disk, the volume', async () => {
    const answers = await admin.describeLogDirs({ topics: [{ name: TOPIC, partitions: [0, 1, 2] }] })
    assert.equal(answers.length, 1, 'one broker')
    const [b] = answers
    assert.equal(b!.broker, 0)
    assert.equal(b!.results.length, 1, 'one log dir')
    const dir = b!.results[0]!
    assert.equal(realpathSync(dir.logDir), realpathSync(resolve(broker.dataDir)), 'the absolute path of log.dirs')
    assert.ok(dir.totalBytes > 0n, 'v4 total bytes of the volume')
    assert.ok(dir.usableBytes >= 0n && dir.usableBytes <= dir.totalBytes, 'usable bytes within the total')
    assert.deepEqual(
      dir.topics.map((t) => t.name),
      [TOPIC],
      'only the topic asked for',
    )
    const sizes = dir.topics[0]!.partitions.map((p) => [p.partitionIndex, Number(p.partitionSize), Number(p.offsetLag), p.isFutureKey])
    assert.deepEqual(sizes, [
      [0, logBytes(broker.dataDir, TOPIC, 0), 0, false],
      [1, logBytes(broker.dataDir, TOPIC, 1), 0, false],
      [2, 0, 0, false],
    ])
    const [zero, one] = [Number(sizes[0]![1]), Number(sizes[1]![1])]
    assert.ok(zero > 50 * 200, 'partition 0 holds the 50 large records')
    assert.ok(one > 0 && one < 200, 'partition 1 holds one small batch')
  })

  test('RawClient v1 (non-flexible), v4 and v5, null topics: every hosted partition, sizes as on disk', async () => {
    const c = await RawClient.connect(broker.host, broker.port)
    try {
      for (const v of [1, 4, 5]) {
        const res = await c.request(DescribeLogDirsRequest, DescribeLogDirsResponse, v, { topics: null })
        assert.equal(res.errorCode, 0, `v${v} top-level error`)
        assert.equal(res.results.length, 1)
        const r = res.results[0]!
        assert.equal(r.errorCode, 0)
        assert.equal(r.isCordoned, false)
        if (v >= 4) assert.ok(r.totalBytes > 0)
        else assert.equal(r.totalBytes, -1, 'not carried before v4')
        const got = r.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.partitionSize])])
        assert.deepEqual(got, [
          [
            TOPIC,
            [
              [0, logBytes(broker.dataDir, TOPIC, 0)],
              [1, logBytes(broker.dataDir, TOPIC, 1)],
              [2, 0],
            ],
          ],
          [OTHER, [[0, logBytes(broker.dataDir, OTHER, 0)]]],
        ])
      }
      // A topic the broker does not have is simply absent, as in Kafka.
      const res = await c.request(DescribeLogDirsRequest, DescribeLogDirsResponse, 2, {
        topics: [{ topic: 'no-such-topic', partitions: [0] }],
      })
      assert.deepEqual(res.results[0]!.topics, [])
    } finally {
      c.close()
    }
  })
})
