// The REST API in Confluent REST Proxy v3's shapes (src/http/rest/), through fetch and curl
// against a real broker, checked with kafkajs: clusters, brokers, topics, partitions and configs
// field by field against the documented examples (api/v3 openapi of REST Proxy: kinds,
// metadata.self and resource_name, related links, field types; ids differ); topics created,
// altered and deleted over REST as kafkajs admin sees them; the error bodies REST Proxy answers.
// Produce and consumer groups: http-rest-produce.test.ts; the harness: test/helpers/rest.ts.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { waitFor } from '../helpers/clients.js'
import { assertShape, base, broker, call, cluster, curl, type Json, kafka, useRestBroker } from '../helpers/rest.js'

useRestBroker()

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
