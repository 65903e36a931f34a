// The REST API's produce and consumer groups (src/http/rest/produce.ts, group-routes.ts) through
// fetch and curl against a real broker: records produced over REST read back with kafkajs (keys,
// values, headers, partitions, offsets; several records in one streaming body), offsets committed
// by a kafkajs consumer seen as lags, a KIP-848 consumer group (@platformatic/kafka,
// group.protocol=consumer) with its consumer and assignments. The harness: test/helpers/rest.ts.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Consumer as PlatformaticConsumer } from '@platformatic/kafka'
import { javaPartition, waitFor } from '../helpers/clients.js'
import { assertShape, base, broker, call, cluster, consumeAll, curl, type Json, kafka, useRestBroker } from '../helpers/rest.js'

useRestBroker()

describe('REST API: produce', () => {
  it('a record produced over REST is read by kafkajs with its key, value, headers, partition and offset', async () => {
    await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'rest-produce', partitions_count: 4 })
    const r = await call('POST', `/v3/clusters/${cluster}/topics/rest-produce/records`, {
      headers: [{ name: 'trace', value: Buffer.from('t-1').toString('base64') }],
      key: { type: 'STRING', data: 'user-42' },
      value: { type: 'JSON', data: { n: 1, s: 'x' } },
      timestamp: '2021-02-05T19:14:42Z',
    })
    assert.equal(r.status, 200, r.text)
    const expectedPartition = javaPartition('user-42', 4)
    assert.deepEqual(r.body, {
      error_code: 200,
      cluster_id: cluster,
      topic_name: 'rest-produce',
      partition_id: expectedPartition,
      offset: 0,
      timestamp: '2021-02-05T19:14:42Z',
      key: { type: 'STRING', size: 7 },
      value: { type: 'JSON', size: 15 },
    })
    const b = await call('POST', `/v3/clusters/${cluster}/topics/rest-produce/records`, {
      partition_id: 3,
      value: { type: 'BINARY', data: Buffer.from([0, 1, 2, 255]).toString('base64') },
    })
    assert.equal(b.status, 200, b.text)
    assert.deepEqual([b.body.partition_id, b.body.key, b.body.value], [3, null, { type: 'BINARY', size: 4 }])
    const seen = await consumeAll('rest-produce', 2)
    const first = seen.find((m) => m.partition === expectedPartition)!
    assert.deepEqual(
      [first.key, first.value, first.headers, first.offset, first.timestamp],
      ['user-42', '{"n":1,"s":"x"}', { trace: 't-1' }, '0', String(Date.UTC(2021, 1, 5, 19, 14, 42))],
    )
    const second = seen.find((m) => m.partition === 3)!
    assert.deepEqual([second.key, second.valueBytes, second.offset], [null, [0, 1, 2, 255], String(b.body.offset)])
  })

  it('streaming mode (curl, chunked, concatenated JSON): one answer per record, in order', async () => {
    await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'rest-stream', partitions_count: 1 })
    const body = [
      { value: { type: 'STRING', data: 'one' } },
      { value: { type: 'BINARY', data: '***' } },
      { value: { type: 'STRING', data: 'two' } },
      { partition_id: 5, value: { type: 'STRING', data: 'nowhere' } },
      { value: { type: 'STRING', data: 'three' } },
    ]
      .map((x) => JSON.stringify(x))
      .join('')
    const r = await curl([
      '-H',
      'Content-Type: application/json',
      '-H',
      'Transfer-Encoding: chunked',
      '--data-binary',
      body,
      `${base}/v3/clusters/${cluster}/topics/rest-stream/records`,
    ])
    assert.equal(r.code, 0)
    const answers = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    assert.deepEqual(
      answers.map((a) => [a.error_code, a.offset]),
      [
        [200, 0],
        [400, undefined],
        [200, 1],
        [40403, undefined],
        [200, 2],
      ],
    )
    assert.equal(answers[1].message, 'Bad Request: data=*** is not a base64 string.')
    const seen = await consumeAll('rest-stream', 3)
    assert.deepEqual(
      seen.map((m) => [m.offset, m.value]),
      [
        ['0', 'one'],
        ['1', 'two'],
        ['2', 'three'],
      ],
    )
  })

  it('a stream of 3000 records (more than wait for answers at once) gets 3000 answers, offsets in order', async () => {
    await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'rest-many', partitions_count: 1 })
    const n = 3000
    const body = Array.from({ length: n }, (_, i) => JSON.stringify({ value: { type: 'STRING', data: `r${i}` } })).join(' ')
    const r = await call('POST', `/v3/clusters/${cluster}/topics/rest-many/records`, undefined, body)
    assert.equal(r.status, 200)
    const answers = r.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    assert.equal(answers.length, n)
    assert.deepEqual(
      answers.map((a) => a.offset),
      Array.from({ length: n }, (_, i) => i),
    )
    assert.ok(answers.every((a) => a.error_code === 200 && a.value.size === `r${a.offset}`.length))
  })

  it('producing to 40 topics at once (more than the 32 producers kept) stores every record; the first topic again too', async () => {
    const topics = Array.from({ length: 40 }, (_, i) => `rest-many-topics-${i}`)
    for (const t of topics) await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: t })
    const first = await Promise.all(
      topics.map((t) => call('POST', `/v3/clusters/${cluster}/topics/${t}/records`, { value: { type: 'STRING', data: t } })),
    )
    assert.deepEqual(
      first.map((r) => [r.status, r.body.offset]),
      topics.map(() => [200, 0]),
    )
    const again = await call('POST', `/v3/clusters/${cluster}/topics/${topics[0]}/records`, { value: { type: 'STRING', data: 'again' } })
    assert.deepEqual([again.status, again.body.offset], [200, 1])
  })

  it('a record over the topic max.message.bytes is 413 MESSAGE_TOO_LARGE; the next one is stored', async () => {
    await call('POST', `/v3/clusters/${cluster}/topics`, {
      topic_name: 'rest-small',
      configs: [{ name: 'max.message.bytes', value: '1024' }],
    })
    const big = await call('POST', `/v3/clusters/${cluster}/topics/rest-small/records`, {
      value: { type: 'BINARY', data: Buffer.alloc(4000, 7).toString('base64') },
    })
    assert.equal(big.status, 413, big.text)
    assert.deepEqual(big.body, {
      error_code: 413,
      message: 'The request included a message larger than the maximum message size the server can accept.',
      kafka_error: 'MESSAGE_TOO_LARGE',
    })
    const ok = await call('POST', `/v3/clusters/${cluster}/topics/rest-small/records`, { value: { type: 'STRING', data: 'fits' } })
    assert.deepEqual([ok.status, ok.body.offset], [200, 0])
  })
})

describe('REST API: consumer groups and lag', () => {
  it('a kafkajs consumer with a committed offset is seen as group, consumer, lags and lag summary', async () => {
    await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'rest-lag', partitions_count: 1 })
    const k = kafka()
    const producer = k.producer()
    await producer.connect()
    await producer.send({ topic: 'rest-lag', messages: Array.from({ length: 10 }, (_, i) => ({ value: `m${i}` })) })
    await producer.disconnect()
    const consumer = k.consumer({ groupId: 'rest-group', sessionTimeout: 10_000, heartbeatInterval: 500 })
    await consumer.connect()
    try {
      let joined = false
      consumer.on(consumer.events.GROUP_JOIN, () => {
        joined = true
      })
      await consumer.subscribe({ topic: 'rest-lag', fromBeginning: true })
      await consumer.run({ autoCommit: false, eachMessage: async () => {} })
      await waitFor(() => joined, 'the consumer joined')
      await consumer.commitOffsets([{ topic: 'rest-lag', partition: 0, offset: '4' }])
      const g = `/v3/clusters/${cluster}/consumer-groups/rest-group`
      const group = await waitFor(async () => {
        const x = (await call('GET', g)).body
        return x.state === 'STABLE' ? x : undefined
      }, 'a STABLE group')
      assertShape(
        group,
        'KafkaConsumerGroup',
        [
          'cluster_id',
          'consumer_group_id',
          'is_simple',
          'partition_assignor',
          'state',
          'type',
          'is_mixed_consumer_group',
          'coordinator',
          'consumers',
          'lag_summary',
        ],
        `${base}${g}`,
        `crn:///kafka=${cluster}/consumer-group=rest-group`,
      )
      assert.deepEqual([group.is_simple, group.type, group.is_mixed_consumer_group], [false, 'CLASSIC', false])
      assert.equal(typeof group.partition_assignor, 'string')
      const groups = (await call('GET', `/v3/clusters/${cluster}/consumer-groups`)).body
      assert.equal(groups.kind, 'KafkaConsumerGroupList')
      assert.deepEqual(
        groups.data.find((x: Json) => x.consumer_group_id === 'rest-group'),
        group,
      )
      const consumers = (await call('GET', `${g}/consumers`)).body
      assert.equal(consumers.kind, 'KafkaConsumerList')
      assert.equal(consumers.data.length, 1)
      const c = consumers.data[0]
      assertShape(
        c,
        'KafkaConsumer',
        ['cluster_id', 'consumer_group_id', 'consumer_id', 'instance_id', 'client_id', 'assignments'],
        `${base}${g}/consumers/${encodeURIComponent(c.consumer_id)}`,
        `crn:///kafka=${cluster}/consumer-group=rest-group/consumer=${c.consumer_id}`,
      )
      assert.equal(c.client_id, 'it-rest')
      const lags = await waitFor(async () => {
        const x = (await call('GET', `${g}/lags`)).body
        return x.data?.length === 1 && x.data[0].current_offset === 4 ? x : undefined
      }, 'the committed offset as a lag')
      assert.equal(lags.kind, 'KafkaConsumerLagList')
      const lag = lags.data[0]
      assertShape(
        lag,
        'KafkaConsumerLag',
        [
          'cluster_id',
          'consumer_group_id',
          'topic_name',
          'partition_id',
          'current_offset',
          'log_end_offset',
          'lag',
          'consumer_id',
          'instance_id',
          'client_id',
        ],
        `${base}${g}/lags/rest-lag/partitions/0`,
        `crn:///kafka=${cluster}/consumer-group=rest-group/lag=rest-lag/partition=0`,
      )
      assert.deepEqual(
        [lag.current_offset, lag.log_end_offset, lag.lag, lag.consumer_id, lag.client_id],
        [4, 10, 6, c.consumer_id, 'it-rest'],
      )
      assert.deepEqual((await call('GET', `${g}/lags/rest-lag/partitions/0`)).body, lag)
      const summary = (await call('GET', `${g}/lag-summary`)).body
      assert.equal(summary.kind, 'KafkaConsumerGroupLagSummary')
      assert.deepEqual(
        [summary.max_lag, summary.total_lag, summary.max_lag_consumer_id, summary.max_lag_topic_name, summary.max_lag_partition_id],
        [6, 6, c.consumer_id, 'rest-lag', 0],
      )
      assert.equal(summary.max_lag_partition.related, `${base}/v3/clusters/${cluster}/topics/rest-lag/partitions/0`)
      const assignments = (await call('GET', `${g}/consumers/${encodeURIComponent(c.consumer_id)}/assignments`)).body
      assert.deepEqual(
        assignments.data.map((a: Json) => [a.kind, a.topic_name, a.partition_id]),
        [['KafkaConsumerAssignment', 'rest-lag', 0]],
      )
    } finally {
      await consumer.disconnect()
    }
  })
})

describe('REST API: KIP-848 consumer groups', () => {
  it('a group.protocol=consumer member (@platformatic/kafka) is a CONSUMER group with its consumer and assignments', async () => {
    await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'rest-848', partitions_count: 2 })
    const consumer = new PlatformaticConsumer({
      clientId: 'it-rest-848',
      groupId: 'rest-848-group',
      bootstrapBrokers: [broker.bootstrap],
      groupProtocol: 'consumer',
    })
    const stream = await consumer.consume({ topics: ['rest-848'], mode: 'earliest' })
    stream.on('data', () => {})
    try {
      const g = `/v3/clusters/${cluster}/consumer-groups/rest-848-group`
      const group = await waitFor(async () => {
        const x = (await call('GET', g)).body
        return x.state === 'STABLE' ? x : undefined
      }, 'a STABLE consumer group')
      assert.deepEqual([group.kind, group.type, group.is_simple], ['KafkaConsumerGroup', 'CONSUMER', false])
      assert.equal(typeof group.partition_assignor, 'string')
      const consumers = await waitFor(async () => {
        const x = (await call('GET', `${g}/consumers`)).body
        return x.data?.length === 1 ? x.data : undefined
      }, 'one consumer')
      assert.equal(consumers[0].client_id, 'it-rest-848')
      const assigned = await waitFor(async () => {
        const x = (await call('GET', `${g}/consumers/${encodeURIComponent(consumers[0].consumer_id)}/assignments`)).body
        return x.data?.length === 2 ? x.data : undefined
      }, 'both partitions assigned')
      assert.deepEqual(
        assigned.map((a: Json) => [a.topic_name, a.partition_id]),
        [
          ['rest-848', 0],
          ['rest-848', 1],
        ],
      )
      const listed = (await call('GET', `/v3/clusters/${cluster}/consumer-groups`)).body.data.find(
        (x: Json) => x.consumer_group_id === 'rest-848-group',
      )
      assert.equal(listed.type, 'CONSUMER')
    } finally {
      await stream.close()
      await consumer.close()
    }
  })
})
