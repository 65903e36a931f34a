// `tributary producers describe` run as a subprocess against a real broker process, after a kafkajs
// idempotent producer wrote 3 then 2 records to partition 1 of a 3-partition topic: that partition
// lists one producer (epoch 0, last sequence 4, last timestamp the second batch's), the others
// none; --partition narrows it; an unknown topic or partition exits 1, bad usage 2.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Admin, Kafka, logLevel, type Producer } from 'kafkajs'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { type CliRun, tributary } from '../helpers/cli.js'

const TOPIC = 'idem'
const T1 = Date.UTC(2024, 0, 1)
const T2 = T1 + 60_000

interface DescribeJson {
  topic: string
  partitions: Array<{
    partition: number
    leader: number
    error: string | null
    message: string | null
    producers: Array<{
      producerId: number
      producerEpoch: number
      lastSequence: number
      lastTimestamp: number
      coordinatorEpoch: number
      currentTxnStartOffset: number
    }>
  }>
}

function show(r: CliRun): string {
  return `exit ${r.code ?? r.signal}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`
}

describe('tributary producers describe', () => {
  let broker: BrokerProcess
  let admin: Admin
  let producer: Producer
  const cli = (args: string[]) => tributary([...args, '--bootstrap-server', broker.bootstrap])

  before(async () => {
    broker = await startBrokerProcess()
    const kafka = new Kafka({ clientId: 'it-cli-producers', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
    admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true })
    producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false })
    await producer.connect()
    const send = (values: string[], timestamp: number) =>
      producer.send({ topic: TOPIC, acks: -1, messages: values.map((value) => ({ partition: 1, value, timestamp: String(timestamp) })) })
    await send(['a', 'b', 'c'], T1)
    await send(['d', 'e'], T2)
  })

  after(async () => {
    await producer?.disconnect().catch(() => {})
    await admin?.disconnect().catch(() => {})
    await stopAndCheck(broker)
  })

  test('--json: the idempotent producer on partition 1, none on the others', async () => {
    const r = await cli(['producers', 'describe', TOPIC, '--json'])
    assert.equal(r.code, 0, show(r))
    const d = JSON.parse(r.stdout) as DescribeJson
    assert.equal(d.topic, TOPIC)
    assert.deepEqual(
      d.partitions.map((p) => [p.partition, p.leader, p.error, p.producers.length]),
      [
        [0, 0, null, 0],
        [1, 0, null, 1],
        [2, 0, null, 0],
      ],
    )
    const s = d.partitions[1]!.producers[0]!
    assert.ok(s.producerId >= 0, `producer id ${s.producerId}`)
    assert.deepEqual(
      { ...s, producerId: 0 },
      { producerId: 0, producerEpoch: 0, lastSequence: 4, lastTimestamp: T2, coordinatorEpoch: -1, currentTxnStartOffset: -1 },
    )
  })

  test('table for people, and --partition', async () => {
    const all = await cli(['producers', 'describe', TOPIC])
    assert.equal(all.code, 0, show(all))
    const lines = all.stdout.trim().split('\n')
    assert.match(lines[0]!, /^PARTITION\s+PRODUCER ID\s+EPOCH\s+LAST SEQUENCE\s+LAST TIMESTAMP\s+COORDINATOR EPOCH\s+TXN START OFFSET$/)
    assert.equal(lines.length, 2, show(all))
    const cells = lines[1]!.trim().split(/\s+/)
    assert.deepEqual([cells[0], cells[2], cells[3], cells[4], cells[5], cells[6]], ['1', '0', '4', new Date(T2).toISOString(), '-1', '-'])

    const other = await cli(['producers', 'describe', TOPIC, '--partition', '2'])
    assert.equal(other.code, 0, show(other))
    assert.equal(other.stdout, 'no active producers\n')
    const one = await cli(['producers', 'describe', TOPIC, '--partition', '1', '--json'])
    assert.equal(one.code, 0, show(one))
    assert.deepEqual(
      (JSON.parse(one.stdout) as DescribeJson).partitions.map((p) => [p.partition, p.producers[0]?.lastSequence]),
      [[1, 4]],
    )
  })

  test('an unknown topic or partition exits 1 saying so; bad usage exits 2', async () => {
    const missing = await cli(['producers', 'describe', 'nope'])
    assert.equal(missing.code, 1, show(missing))
    assert.match(missing.stderr, /topic 'nope' does not exist/)

    const badPartition = await cli(['producers', 'describe', TOPIC, '--partition', '9', '--json'])
    assert.equal(badPartition.code, 1, show(badPartition))
    assert.deepEqual(
      (JSON.parse(badPartition.stdout) as DescribeJson).partitions.map((p) => [p.partition, p.error]),
      [[9, 'UNKNOWN_TOPIC_OR_PARTITION']],
    )
    assert.match(badPartition.stderr, /idem-9: UNKNOWN_TOPIC_OR_PARTITION/)

    const usage = await cli(['producers', 'describe', TOPIC, '--partition', 'x'])
    assert.equal(usage.code, 2, show(usage))
    const help = await cli(['producers', 'describe', '--help'])
    assert.equal(help.code, 0, show(help))
    assert.match(help.stdout, /Examples:\n {2}\$ tributary producers describe events/)
  })
})
