// node:test + kafkajs against an in-memory Tributary broker: one broker for the whole file.
//   node --test node-test-kafkajs.test.mjs
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { Kafka, logLevel, Partitioners } from 'kafkajs'
import { startBroker } from 'tributary'

let broker
let kafka

before(async () => {
  broker = await startBroker({ storage: 'memory' }) // a free port, nothing on disk
  kafka = new Kafka({ clientId: 'example', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
})

after(async () => {
  await broker.close()
})

test('a consumer group receives what was produced', async () => {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner })
  await producer.connect()
  await producer.send({ topic: 'greetings', messages: [{ key: 'en', value: 'hello' }] })
  await producer.disconnect()

  const consumer = kafka.consumer({ groupId: 'greeters' })
  await consumer.connect()
  await consumer.subscribe({ topic: 'greetings', fromBeginning: true })
  const received = new Promise((resolve) => {
    consumer.run({ eachMessage: async ({ message }) => resolve(message.value.toString()) })
  })
  assert.equal(await received, 'hello')
  await consumer.disconnect()
})

test('topics are created with the admin client', async () => {
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3 }] })
  const metadata = await admin.fetchTopicMetadata({ topics: ['orders'] })
  assert.equal(metadata.topics[0].partitions.length, 3)
  await admin.disconnect()
})
