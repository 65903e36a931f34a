// The REST API in Confluent REST Proxy v3's shapes (src/http/rest/), through fetch and curl
// against a real broker, checked with kafkajs: resources field by field against the documented
// examples (api/v3 openapi of REST Proxy: kinds, metadata.self and resource_name, related links,
// field types; ids differ), topics created, altered and deleted over REST as kafkajs admin sees
// them, records produced over REST read back with kafkajs (keys, values, headers, partitions,
// offsets; several records in one streaming body), offsets committed by a kafkajs consumer seen
// as lags, a KIP-848 consumer group (@platformatic/kafka, group.protocol=consumer) with its
// consumer and assignments, and the error bodies REST Proxy answers.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { Consumer as PlatformaticConsumer } from '@platformatic/kafka'
import { Kafka, logLevel } from 'kafkajs'
import { type RunningBroker, startBroker } from '../../src/broker/start.js'
import { javaPartition, waitFor } from '../helpers/clients.js'

type Json = Record<string, any>

let broker: RunningBroker
let base: string
let cluster: string
const kafka = () => new Kafka({ clientId: 'it-rest', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })

async function call(method: string, path: string, body?: unknown, raw?: string): Promise<{ status: number; body: Json; text: string }> {
  const r = await fetch(`${base}${path}`, {
    method,
    ...(body !== undefined || raw !== undefined
      ? { headers: { 'content-type': 'application/json' }, body: raw ?? JSON.stringify(body) }
      : {}),
  })
  const text = await r.text()
  let parsed: Json = {}
  try {
    parsed = text === '' ? {} : JSON.parse(text)
  } catch {}
  return { status: r.status, body: parsed, text }
}

function curl(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('curl', ['-sS', ...args])
    let stdout = ''
    p.stdout.on('data', (d: Buffer) => {
      stdout += d.toString()
    })
    p.on('error', reject)
    p.on('close', (code) => resolve({ code, stdout }))
  })
}

/**
 * The scalar fields of REST Proxy's documented examples (its api/v3 openapi, responses
 * Get*Response), by kind: a response must have the same fields with values of the same JSON types
 * (ids and numbers differ). Nullable fields (rack, instance_id) may also be null.
 */
const DOC_EXAMPLES: Record<string, Json> = {
  KafkaCluster: { cluster_id: 'cluster-1' },
  KafkaBroker: { cluster_id: 'cluster-1', broker_id: 1, host: 'localhost', port: 9291, rack: 'rack-1' },
  KafkaTopic: { cluster_id: 'cluster-1', topic_name: 'topic-1', is_internal: false, replication_factor: 3, partitions_count: 1 },
  KafkaPartition: { cluster_id: 'cluster-1', topic_name: 'topic-1', partition_id: 1 },
  KafkaReplica: { cluster_id: 'cluster-1', topic_name: 'topic-1', partition_id: 1, broker_id: 1, is_leader: true, is_in_sync: true },
  KafkaTopicConfig: {
    cluster_id: 'cluster-1',
    topic_name: 'topic-1',
    name: 'compression.type',
    value: 'gzip',
    is_default: false,
    is_read_only: false,
    is_sensitive: false,
    source: 'DYNAMIC_TOPIC_CONFIG',
  },
  KafkaConsumerGroup: {
    cluster_id: 'cluster-1',
    consumer_group_id: 'consumer-group-1',
    is_simple: false,
    partition_assignor: 'org.apache.kafka.clients.consumer.RoundRobinAssignor',
    state: 'STABLE',
    type: 'CLASSIC',
    is_mixed_consumer_group: false,
  },
  KafkaConsumer: {
    cluster_id: 'cluster-1',
    consumer_group_id: 'consumer-group-1',
    consumer_id: 'consumer-1',
    instance_id: 'consumer-instance-1',
    client_id: 'client-1',
  },
  KafkaConsumerLag: {
    cluster_id: 'cluster-1',
    consumer_group_id: 'consumer-group-1',
    topic_name: 'topic-1',
    partition_id: 1,
    consumer_id: 'consumer-1',
    instance_id: 'consumer-instance-1',
    client_id: 'client-1',
    current_offset: 1,
    log_end_offset: 101,
    lag: 100,
  },
}
const NULLABLE = new Set(['rack', 'instance_id', 'value'])

/** The fields of a documented example with their JSON types, and each link {related: url under the cluster}. */
function assertShape(actual: Json, kind: string, keys: string[], self: string, resourceName: string | undefined): void {
  assert.equal(actual.kind, kind)
  assert.deepEqual(Object.keys(actual).sort(), [...keys, 'kind', 'metadata'].sort())
  assert.equal(actual.metadata.self, self)
  if (resourceName !== undefined) assert.equal(actual.metadata.resource_name, resourceName)
  for (const [k, v] of Object.entries(DOC_EXAMPLES[kind] ?? {})) {
    assert.ok(k in actual, `${kind}.${k} is missing`)
    if (!(NULLABLE.has(k) && actual[k] === null)) assert.equal(typeof actual[k], typeof v, `${kind}.${k}: ${JSON.stringify(actual[k])}`)
  }
  for (const [k, v] of Object.entries(actual)) {
    if (v && typeof v === 'object' && 'related' in v) {
      assert.deepEqual(Object.keys(v), ['related'], k)
      assert.ok((v as Json).related.startsWith(`${base}/v3/clusters/${cluster}`), `${k}: ${(v as Json).related}`)
    }
  }
}

before(async () => {
  broker = await startBroker({ storage: 'memory', http: true, config: { 'num.partitions': 1 } })
  base = broker.http!
  cluster = (await call('GET', '/v3/clusters')).body.data[0].cluster_id
})
after(async () => {
  await broker.close()
})

describe('REST API: clusters and brokers', () => {
  it('GET /v3/clusters and /v3/clusters/{id} answer KafkaClusterList and KafkaCluster as documented', async () => {
    const r = await call('GET', '/v3/clusters')
    assert.equal(r.status, 200)
    assert.equal(r.body.kind, 'KafkaClusterList')
    assert.deepEqual(r.body.metadata, { self: `${base}/v3/clusters`, next: null })
    assert.equal(r.body.data.length, 1)
    const c = (await call('GET', `/v3/clusters/${cluster}`)).body
    assert.deepEqual(c, r.body.data[0])
    assertShape(
      c,
      'KafkaCluster',
      ['cluster_id', 'controller', 'acls', 'brokers', 'broker_configs', 'consumer_groups', 'topics', 'partition_reassignments'],
      `${base}/v3/clusters/${cluster}`,
      `crn:///kafka=${cluster}`,
    )
    assert.equal(typeof c.cluster_id, 'string')
    assert.match(c.controller.related, /\/brokers\/\d+$/)
    assert.equal(c.topics.related, `${base}/v3/clusters/${cluster}/topics`)
    assert.equal(c.partition_reassignments.related, `${base}/v3/clusters/${cluster}/topics/-/partitions/-/reassignment`)
  })

  it('brokers are listed and got as KafkaBroker; the controller link leads to one', async () => {
    const c = (await call('GET', `/v3/clusters/${cluster}`)).body
    const list = (await call('GET', `/v3/clusters/${cluster}/brokers`)).body
    assert.equal(list.kind, 'KafkaBrokerList')
    assert.equal(list.data.length, 1)
    const b = list.data[0]
    assertShape(
      b,
      'KafkaBroker',
      ['cluster_id', 'broker_id', 'host', 'port', 'rack', 'configs', 'partition_replicas'],
      `${base}/v3/clusters/${cluster}/brokers/${b.broker_id}`,
      `crn:///kafka=${cluster}/broker=${b.broker_id}`,
    )
    assert.equal(`${b.host}:${b.port}`, broker.bootstrap)
    assert.equal(b.rack, null)
    const viaLink = await fetch(c.controller.related).then((x) => x.json())
    assert.deepEqual(viaLink, b)
    assert.equal((await call('GET', `/v3/clusters/${cluster}/brokers/999`)).status, 404)
  })

  it('self URLs follow the request Host header (curl -H Host)', async () => {
    const r = await curl(['-H', 'Host: rest.example:8082', `${base}/v3/clusters/${cluster}`])
    assert.equal(r.code, 0)
    const c = JSON.parse(r.stdout)
    assert.equal(c.metadata.self, `http://rest.example:8082/v3/clusters/${cluster}`)
    assert.equal(c.brokers.related, `http://rest.example:8082/v3/clusters/${cluster}/brokers`)
  })
})

describe('REST API: topics, partitions, configs', () => {
  it('creates a topic (201 KafkaTopic), which kafkajs admin sees with its partitions and configs', async () => {
    const r = await call('POST', `/v3/clusters/${cluster}/topics`, {
      topic_name: 'rest-created',
      partitions_count: 3,
      replication_factor: 1,
      configs: [
        { name: 'cleanup.policy', value: 'compact' },
        { name: 'retention.ms', value: '123456' },
      ],
    })
    assert.equal(r.status, 201, r.text)
    const topicUrl = `${base}/v3/clusters/${cluster}/topics/rest-created`
    assertShape(
      r.body,
      'KafkaTopic',
      [
        'cluster_id',
        'topic_name',
        'is_internal',
        'replication_factor',
        'partitions_count',
        'partitions',
        'configs',
        'partition_reassignments',
        'authorized_operations',
      ],
      topicUrl,
      `crn:///kafka=${cluster}/topic=rest-created`,
    )
    assert.deepEqual(
      [r.body.cluster_id, r.body.topic_name, r.body.is_internal, r.body.replication_factor, r.body.partitions_count],
      [cluster, 'rest-created', false, 1, 3],
    )
    assert.equal(r.body.partitions.related, `${topicUrl}/partitions`)
    const admin = kafka().admin()
    await admin.connect()
    try {
      const md = await admin.fetchTopicMetadata({ topics: ['rest-created'] })
      assert.equal(md.topics[0]!.partitions.length, 3)
      const cfg = await admin.describeConfigs({
        resources: [{ type: 2, name: 'rest-created', configNames: ['cleanup.policy', 'retention.ms'] }],
        includeSynonyms: false,
      })
      const values = Object.fromEntries(cfg.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]))
      assert.deepEqual(values, { 'cleanup.policy': 'compact', 'retention.ms': '123456' })
    } finally {
      await admin.disconnect()
    }
    assert.deepEqual((await call('GET', `/v3/clusters/${cluster}/topics/rest-created`)).body, r.body)
    const listed = (await call('GET', `/v3/clusters/${cluster}/topics`)).body
    assert.equal(listed.kind, 'KafkaTopicList')
    assert.deepEqual(
      listed.data.find((t: Json) => t.topic_name === 'rest-created'),
      r.body,
    )
  })

  it('validate_only creates nothing; an existing name is 400 40002 TOPIC_ALREADY_EXISTS', async () => {
    const v = await call('POST', `/v3/clusters/${cluster}/topics`, {
      topic_name: 'rest-validate',
      partitions_count: 2,
      validate_only: true,
    })
    assert.equal(v.status, 200, v.text)
    assert.equal(v.body.partitions_count, 2)
    assert.equal((await call('GET', `/v3/clusters/${cluster}/topics/rest-validate`)).status, 404)
    await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'rest-twice' })
    const again = await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'rest-twice' })
    assert.equal(again.status, 400)
    assert.deepEqual(again.body, { error_code: 40002, message: "Topic 'rest-twice' already exists.", kafka_error: 'TOPIC_ALREADY_EXISTS' })
  })

  it('partitions link to their leader replica; replicas say is_leader and is_in_sync', async () => {
    await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'rest-parts', partitions_count: 2 })
    const list = (await call('GET', `/v3/clusters/${cluster}/topics/rest-parts/partitions`)).body
    assert.equal(list.kind, 'KafkaPartitionList')
    assert.deepEqual(
      list.data.map((p: Json) => p.partition_id),
      [0, 1],
    )
    const p1 = (await call('GET', `/v3/clusters/${cluster}/topics/rest-parts/partitions/1`)).body
    const self = `${base}/v3/clusters/${cluster}/topics/rest-parts/partitions/1`
    assertShape(
      p1,
      'KafkaPartition',
      ['cluster_id', 'topic_name', 'partition_id', 'leader', 'replicas', 'reassignment'],
      self,
      `crn:///kafka=${cluster}/topic=rest-parts/partition=1`,
    )
    assert.match(p1.leader.related, new RegExp(`^${self}/replicas/\\d+$`))
    const replica = (await fetch(p1.leader.related).then((x) => x.json())) as Json
    assertShape(
      replica,
      'KafkaReplica',
      ['cluster_id', 'topic_name', 'partition_id', 'broker_id', 'is_leader', 'is_in_sync', 'broker'],
      p1.leader.related,
      `crn:///kafka=${cluster}/topic=rest-parts/partition=1/replica=${replica.broker_id}`,
    )
    assert.deepEqual([replica.is_leader, replica.is_in_sync], [true, true])
    const replicas = (await call('GET', `/v3/clusters/${cluster}/topics/rest-parts/partitions/1/replicas`)).body
    assert.equal(replicas.kind, 'KafkaReplicaList')
    assert.deepEqual(replicas.data, [replica])
    assert.deepEqual((await call('GET', `/v3/clusters/${cluster}/topics/rest-parts/partitions/7`)).body, {
      error_code: 40403,
      message: 'This server does not host this topic-partition.',
      kafka_error: 'UNKNOWN_TOPIC_OR_PARTITION',
    })
  })

  it('configs: list, get, set one, reset one, alter a batch — as kafkajs describeConfigs sees them', async () => {
    await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'rest-configs' })
    const path = `/v3/clusters/${cluster}/topics/rest-configs/configs`
    const list = (await call('GET', path)).body
    assert.equal(list.kind, 'KafkaTopicConfigList')
    const names = list.data.map((c: Json) => c.name)
    assert.ok(names.includes('cleanup.policy') && names.includes('retention.ms'), names.join(','))
    const put = await call('PUT', `${path}/retention.ms`, { value: '7000' })
    assert.equal(put.status, 204, put.text)
    const got = (await call('GET', `${path}/retention.ms`)).body
    assertShape(
      got,
      'KafkaTopicConfig',
      ['cluster_id', 'topic_name', 'name', 'value', 'is_default', 'is_read_only', 'is_sensitive', 'source', 'synonyms'],
      `${base}${path}/retention.ms`,
      `crn:///kafka=${cluster}/topic=rest-configs/config=retention.ms`,
    )
    assert.deepEqual(
      [got.value, got.is_default, got.is_read_only, got.is_sensitive, got.source],
      ['7000', false, false, false, 'DYNAMIC_TOPIC_CONFIG'],
    )
    assert.deepEqual(got.synonyms[0], { name: 'retention.ms', value: '7000', source: 'DYNAMIC_TOPIC_CONFIG' })
    const alter = await call('POST', `${path}:alter`, {
      data: [
        { name: 'retention.ms', operation: 'DELETE' },
        { name: 'compression.type', value: 'gzip' },
      ],
    })
    assert.equal(alter.status, 204, alter.text)
    const seen = async () => {
      const admin = kafka().admin()
      await admin.connect()
      try {
        const cfg = await admin.describeConfigs({
          resources: [{ type: 2, name: 'rest-configs', configNames: ['retention.ms', 'compression.type'] }],
          includeSynonyms: false,
        })
        return Object.fromEntries(cfg.resources[0]!.configEntries.map((e) => [e.configName, [e.configValue, e.isDefault]]))
      } finally {
        await admin.disconnect()
      }
    }
    assert.deepEqual(await seen(), { 'retention.ms': ['604800000', true], 'compression.type': ['gzip', false] })
    assert.equal((await call('DELETE', `${path}/compression.type`)).status, 204)
    assert.equal((await seen())['compression.type']![1], true)
    assert.equal((await call('GET', `${path}/compression.type`)).body.is_default, true)
    assert.equal((await call('GET', `${path}/no.such.key`)).status, 404)
    const bad = await call('PUT', `${path}/retention.ms`, { value: 'soon' })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.error_code, 40002)
    assert.equal(bad.body.kafka_error, 'INVALID_CONFIG')
  })

  it('PATCH partitions_count adds partitions (kafkajs sees them); fewer is 400 40002 INVALID_PARTITIONS', async () => {
    await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'rest-grow', partitions_count: 1 })
    const r = await call('PATCH', `/v3/clusters/${cluster}/topics/rest-grow`, { partitions_count: 4 })
    assert.equal(r.status, 200, r.text)
    assert.deepEqual([r.body.kind, r.body.partitions_count], ['KafkaTopic', 4])
    const admin = kafka().admin()
    await admin.connect()
    try {
      const md = await admin.fetchTopicMetadata({ topics: ['rest-grow'] })
      assert.equal(md.topics[0]!.partitions.length, 4)
    } finally {
      await admin.disconnect()
    }
    const fewer = await call('PATCH', `/v3/clusters/${cluster}/topics/rest-grow`, { partitions_count: 2 })
    assert.deepEqual([fewer.status, fewer.body.error_code, fewer.body.kafka_error], [400, 40002, 'INVALID_PARTITIONS'])
  })

  it('deletes a topic (204); kafkajs no longer lists it; deleting again is 404 40403', async () => {
    await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'rest-doomed' })
    const d = await call('DELETE', `/v3/clusters/${cluster}/topics/rest-doomed`)
    assert.equal(d.status, 204, d.text)
    const admin = kafka().admin()
    await admin.connect()
    try {
      await waitFor(async () => !(await admin.listTopics()).includes('rest-doomed'), 'rest-doomed gone')
    } finally {
      await admin.disconnect()
    }
    const again = await call('DELETE', `/v3/clusters/${cluster}/topics/rest-doomed`)
    assert.equal(again.status, 404)
    assert.equal(again.body.error_code, 40403)
  })
})

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

describe('REST API: errors', () => {
  it('unknown topic, unknown cluster, unknown group, bad JSON, bad base64, empty body', async () => {
    const unknownTopic = {
      error_code: 40403,
      message: 'This server does not host this topic-partition.',
      kafka_error: 'UNKNOWN_TOPIC_OR_PARTITION',
    }
    const t = await call('GET', `/v3/clusters/${cluster}/topics/no-such-topic`)
    assert.deepEqual([t.status, t.body], [404, unknownTopic])
    const p = await call('POST', `/v3/clusters/${cluster}/topics/no-such-topic/records`, { value: { data: 1 } })
    assert.deepEqual([p.status, p.body], [404, unknownTopic])
    const c = await call('GET', '/v3/clusters/not-this-one/topics')
    assert.deepEqual([c.status, c.body], [404, { error_code: 404, message: 'Cluster not-this-one cannot be found.' }])
    const g = await call('GET', `/v3/clusters/${cluster}/consumer-groups/no-such-group`)
    assert.deepEqual([g.status, g.body.error_code], [404, 404])
    const badJson = await call('POST', `/v3/clusters/${cluster}/topics`, undefined, '{"topic_name": ')
    assert.deepEqual([badJson.status, badJson.body.error_code], [400, 400])
    assert.equal(typeof badJson.body.message, 'string')
    const noName = await call('POST', `/v3/clusters/${cluster}/topics`, { partitions_count: 1 })
    assert.deepEqual([noName.status, noName.body.error_code], [400, 400])
    assert.match(noName.body.message, /topic_name is required/)
    await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'rest-errors' })
    const records = `/v3/clusters/${cluster}/topics/rest-errors/records`
    const b64 = await call('POST', records, { value: { type: 'BINARY', data: 'a' } })
    assert.deepEqual([b64.status, b64.body], [400, { error_code: 400, message: 'Bad Request: data=a is not a base64 string.' }])
    const cut = await call('POST', records, undefined, '{"value": {"type": "STRING"')
    assert.deepEqual([cut.status, cut.body.error_code], [400, 400])
    const empty = await call('POST', records, undefined, '')
    assert.deepEqual(
      [empty.status, empty.body],
      [422, { error_code: 422, message: 'Payload error. Request body is empty. Data is required.' }],
    )
    const form = await fetch(`${base}${records}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' })
    assert.deepEqual([form.status, ((await form.json()) as Json).error_code], [415, 415])
    const huge = await call('POST', records, undefined, JSON.stringify({ value: { type: 'STRING', data: 'x'.repeat(3 * 1024 * 1024) } }))
    assert.deepEqual([huge.status, huge.body.error_code], [413, 413])
    const badName = await call('POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'bad name!' })
    assert.deepEqual([badName.status, badName.body.error_code, badName.body.kafka_error], [400, 40002, 'INVALID_TOPIC_EXCEPTION'])
  })
})

interface Seen {
  partition: number
  offset: string
  key: string | null
  value: string | null
  valueBytes: number[] | null
  headers: Record<string, string>
  timestamp: string
}

/** Reads `count` records of a topic from the beginning with a kafkajs consumer, sorted by partition and offset. */
async function consumeAll(topic: string, count: number): Promise<Seen[]> {
  const consumer = kafka().consumer({ groupId: `reader-${topic}`, sessionTimeout: 10_000, heartbeatInterval: 500 })
  const seen: Seen[] = []
  await consumer.connect()
  try {
    await consumer.subscribe({ topic, fromBeginning: true })
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        seen.push({
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          value: message.value?.toString() ?? null,
          valueBytes: message.value ? [...message.value] : null,
          headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])),
          timestamp: message.timestamp,
        })
      },
    })
    await waitFor(() => seen.length >= count, `${count} records of ${topic}`, 20_000)
  } finally {
    await consumer.disconnect()
  }
  return seen.sort((a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset))
}
