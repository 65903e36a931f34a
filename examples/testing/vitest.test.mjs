// vitest + kafkajs and @platformatic/kafka against an in-memory Tributary broker.
//   npx vitest run
import { Consumer, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka'
import { Kafka, logLevel, Partitioners } from 'kafkajs'
import { startBroker } from 'tributary'
import { afterAll, beforeAll, expect, test } from 'vitest'

let broker

beforeAll(async () => {
  broker = await startBroker({ storage: 'memory' })
})

afterAll(async () => {
  await broker.close()
})

test('kafkajs: a consumer group receives what was produced', async () => {
  const kafka = new Kafka({ clientId: 'example', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner })
  await producer.connect()
  await producer.send({ topic: 'kafkajs-greetings', messages: [{ value: 'hello' }] })
  await producer.disconnect()

  const consumer = kafka.consumer({ groupId: 'kafkajs-greeters' })
  await consumer.connect()
  await consumer.subscribe({ topic: 'kafkajs-greetings', fromBeginning: true })
  const received = new Promise((resolve) => {
    consumer.run({ eachMessage: async ({ message }) => resolve(message.value.toString()) })
  })
  expect(await received).toBe('hello')
  await consumer.disconnect()
}, 30_000)

test('@platformatic/kafka: a consumer group receives what was produced', async () => {
  const producer = new Producer({
    clientId: 'example',
    bootstrapBrokers: [broker.bootstrap],
    serializers: stringSerializers,
    autocreateTopics: true,
  })
  await producer.send({ messages: [{ topic: 'platformatic-greetings', value: 'hello' }] })
  await producer.close()

  const consumer = new Consumer({
    clientId: 'example',
    groupId: 'platformatic-greeters',
    bootstrapBrokers: [broker.bootstrap],
    deserializers: stringDeserializers,
  })
  const stream = await consumer.consume({ topics: ['platformatic-greetings'], mode: 'earliest' })
  const message = await new Promise((resolve) => stream.once('data', resolve))
  expect(message.value).toBe('hello')
  await stream.close()
  await consumer.close()
}, 30_000)
