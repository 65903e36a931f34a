// KIP-467 record errors and Produce v13 through real clients against a real broker process: a
// batch with a keyless record on a compacted topic, and one with records outside
// message.timestamp.before/after.max.ms, are refused with record_errors naming each offending
// record. @platformatic/kafka (Produce v11) reports them per record; Tributary's own producer
// (src/client, Produce v13 by topic id) puts their messages in its error. The Java client's view
// is in java-client.test.ts.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { ProduceAcks, Producer, stringSerializers } from '@platformatic/kafka'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { type DeliveryReport, Producer as TributaryProducer, type ProducerRecord } from '../../src/client/producer.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { kcatConsumeAll } from '../helpers/clients.js'

const HOUR = 3_600_000
const keyMessage = (partition: string) => `Compacted topic cannot accept message without key in topic partition ${partition}`

/** Every error nested in err (AggregateError.errors, cause), err included. */
function flatten(err: unknown): Array<Error & Record<string, unknown>> {
  if (!(err instanceof Error)) return []
  const inner = err instanceof AggregateError ? err.errors.flatMap(flatten) : []
  return [err as Error & Record<string, unknown>, ...inner, ...flatten((err as Error).cause)]
}

describe('record errors (KIP-467) through real clients', () => {
  let broker: BrokerProcess
  let client: KafkaClient

  before(async () => {
    broker = await startBrokerProcess()
    client = await KafkaClient.connect({ bootstrap: [broker.bootstrap], clientId: 'it-record-errors' })
    const created = await createTopics(client, [
      { name: 're-compacted', numPartitions: 1, replicationFactor: 1, configs: { 'cleanup.policy': 'compact' } },
      {
        name: 're-bounded',
        numPartitions: 1,
        replicationFactor: 1,
        configs: { 'message.timestamp.before.max.ms': String(HOUR), 'message.timestamp.after.max.ms': String(HOUR) },
      },
    ])
    assert.deepEqual(
      created.map((c) => c.error),
      [null, null],
    )
  })

  after(async () => {
    await client?.close()
    await stopAndCheck(broker)
  })

  test('@platformatic/kafka: the keyless record of a batch is named by its index, with Kafka’s message', async () => {
    const producer = new Producer({
      clientId: 'it-record-errors-platformatic',
      bootstrapBrokers: [broker.bootstrap],
      serializers: stringSerializers,
      autocreateTopics: false,
      retries: 0,
    })
    try {
      const err = await producer
        .send({
          acks: ProduceAcks.ALL,
          messages: [
            { topic: 're-compacted', key: 'a', value: '1', partition: 0 },
            { topic: 're-compacted', value: 'no key', partition: 0 },
            { topic: 're-compacted', key: 'c', value: '3', partition: 0 },
          ],
        })
        .then(
          () => null,
          (e: unknown) => e,
        )
      assert.ok(err, 'the send is refused')
      const all = flatten(err)
      const perRecord = all.filter((e) => typeof e.path === 'string' && (e.path as string).includes('/record_errors/'))
      assert.deepEqual(
        perRecord.map((e) => [e.path, e.serverErrorMessage]),
        [['/responses/0/partition_responses/0/record_errors/0', keyMessage('re-compacted-0')]],
      )
      const partition = all.find((e) => e.path === '/responses/0/partition_responses/0')
      assert.ok(partition, 'a partition-level error')
      assert.equal(partition.apiCode, 87, 'INVALID_RECORD')
      assert.match(String(partition.serverErrorMessage), /^One or more records have been rejected due to 1 record errors in total/)
      assert.match(String(partition.serverErrorMessage), /RecordError\(batchIndex=1, message='Compacted topic cannot accept/)
    } finally {
      await producer.close()
    }
    assert.deepEqual(await kcatConsumeAll(broker.bootstrap, 're-compacted'), [], 'nothing of the batch was stored')
  })

  test('@platformatic/kafka: records out of the timestamp bounds are each named; the batch is INVALID_TIMESTAMP', async () => {
    const producer = new Producer({
      clientId: 'it-record-errors-platformatic-ts',
      bootstrapBrokers: [broker.bootstrap],
      serializers: stringSerializers,
      autocreateTopics: false,
      retries: 0,
    })
    const now = Date.now()
    try {
      const err = await producer
        .send({
          acks: ProduceAcks.LEADER,
          messages: [
            { topic: 're-bounded', key: 'a', value: 'old', partition: 0, timestamp: BigInt(now - 2 * HOUR) },
            { topic: 're-bounded', key: 'b', value: 'now', partition: 0, timestamp: BigInt(now) },
            { topic: 're-bounded', key: 'c', value: 'future', partition: 0, timestamp: BigInt(now + 2 * HOUR) },
          ],
        })
        .then(
          () => null,
          (e: unknown) => e,
        )
      const all = flatten(err)
      const perRecord = all.filter((e) => typeof e.path === 'string' && (e.path as string).includes('/record_errors/'))
      assert.equal(perRecord.length, 2)
      assert.match(
        String(perRecord[0]!.serverErrorMessage),
        new RegExp(`^Timestamp ${now - 2 * HOUR} of message with offset 0 is out of range`),
      )
      assert.match(
        String(perRecord[1]!.serverErrorMessage),
        new RegExp(`^Timestamp ${now + 2 * HOUR} of message with offset 2 is out of range`),
      )
      const partition = all.find((e) => e.path === '/responses/0/partition_responses/0')
      assert.equal(partition?.apiCode, 32, 'INVALID_TIMESTAMP')
      assert.equal(partition?.serverErrorMessage, 'One or more records have been rejected due to invalid timestamp')
    } finally {
      await producer.close()
    }
  })

  test('Tributary’s producer (Produce v13, by topic id): stores keyed records, and reports the record error of a keyless one', async () => {
    const reports: DeliveryReport<ProducerRecord>[] = []
    const producer = await TributaryProducer.create(client, { topic: 're-compacted', lingerMs: 0, onDelivery: (r) => reports.push(r) })
    const version = (await client.connection(client.leaderOf('re-compacted', 0))).versions!.brokerRange(0)!
    assert.equal(version.max, 13, 'the broker serves Produce v13, so the producer sends by topic id')
    producer.send({ key: Buffer.from('k'), value: Buffer.from('kept'), partition: 0 })
    await producer.flush()
    producer.send({ key: null, value: Buffer.from('refused'), partition: 0 })
    await producer.flush()
    producer.close()
    assert.equal(reports.length, 2)
    assert.equal(reports[0]!.error, null)
    assert.equal(reports[0]!.baseOffset, 0)
    const err = reports[1]!.error
    assert.equal(err?.code, 'INVALID_RECORD')
    assert.ok(err?.message.includes(keyMessage('re-compacted-0')), err?.message)
    const stored = await kcatConsumeAll(broker.bootstrap, 're-compacted')
    assert.deepEqual(
      stored.map((r) => r.value),
      ['kept'],
    )
  })
})
