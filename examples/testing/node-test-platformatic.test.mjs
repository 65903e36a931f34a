// node:test + @platformatic/kafka against an in-memory Tributary broker: a fresh broker per test,
// since one starts in a few milliseconds.
//   node --test node-test-platformatic.test.mjs
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Consumer, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka'
import { startBroker } from 'tributary'

test('a consumer group receives what was produced', async (t) => {
  const broker = await startBroker({ storage: 'memory' })
  t.after(() => broker.close())

  const producer = new Producer({
    clientId: 'example',
    bootstrapBrokers: [broker.bootstrap],
    serializers: stringSerializers,
    autocreateTopics: true,
  })
  await producer.send({ messages: [{ topic: 'greetings', key: 'en', value: 'hello' }] })
  await producer.close()

  const consumer = new Consumer({
    clientId: 'example',
    groupId: 'greeters',
    bootstrapBrokers: [broker.bootstrap],
    deserializers: stringDeserializers,
  })
  const stream = await consumer.consume({ topics: ['greetings'], mode: 'earliest' })
  const message = await new Promise((resolve) => stream.once('data', resolve))
  assert.equal(message.key, 'en')
  assert.equal(message.value, 'hello')
  await stream.close()
  await consumer.close()
})
