// The REST API (src/http/rest/) served by `tributary start` processes: one broker through curl
// (streaming produce of keyed records, partitions as Java's partitioner picks them), and a cluster
// of three, where a topic created through one broker's REST has partitions led by the others,
// records produced through that one broker land on every leader, and every broker's REST
// describes the same brokers and in-sync replicas. Read back with kafkajs.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { describe, it } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import { startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { javaPartition, waitFor } from '../helpers/clients.js'
import { startCluster } from '../helpers/cluster.js'

type Json = Record<string, any>

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const r = await fetch(`${base}${path}`, {
    method,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  })
  const text = await r.text()
  return { status: r.status, body: text === '' ? {} : JSON.parse(text) }
}

function curl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn('curl', ['-sS', '--fail-with-body', ...args])
    let out = ''
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString()
    })
    p.on('error', reject)
    p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`curl exited ${code}: ${out}`))))
  })
}

/** Reads `count` records from the beginning with kafkajs: [partition, key, value] sorted by key. */
async function readAll(bootstrap: string, topic: string, count: number): Promise<Array<[number, string, string]>> {
  const kafka = new Kafka({ clientId: 'it-rest-cluster', brokers: bootstrap.split(','), logLevel: logLevel.NOTHING })
  const consumer = kafka.consumer({ groupId: `reader-${topic}`, sessionTimeout: 10_000, heartbeatInterval: 500 })
  const seen: Array<[number, string, string]> = []
  await consumer.connect()
  try {
    await consumer.subscribe({ topic, fromBeginning: true })
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        seen.push([partition, message.key?.toString() ?? '', message.value?.toString() ?? ''])
      },
    })
    await waitFor(() => seen.length >= count, `${count} records of ${topic}`, 30_000)
  } finally {
    await consumer.disconnect()
  }
  return seen.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
}

const keys = Array.from({ length: 12 }, (_, i) => `key-${i}`)

describe('REST API served by tributary start', () => {
  it('one broker: curl streams keyed records; kafkajs reads them on the partitions Java would pick', async () => {
    const b = await startBrokerProcess()
    try {
      const cluster = (await call(b.http!, 'GET', '/v3/clusters')).body.data[0].cluster_id as string
      const created = await call(b.http!, 'POST', `/v3/clusters/${cluster}/topics`, { topic_name: 'curl-keys', partitions_count: 3 })
      assert.equal(created.status, 201)
      const body = keys
        .map((k) => JSON.stringify({ key: { type: 'STRING', data: k }, value: { type: 'STRING', data: `v-${k}` } }))
        .join('\n')
      const out = await curl([
        '-H',
        'Content-Type: application/json',
        '-H',
        'Transfer-Encoding: chunked',
        '--data-binary',
        body,
        `${b.http}/v3/clusters/${cluster}/topics/curl-keys/records`,
      ])
      const answers = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
      assert.deepEqual(
        answers.map((a) => [a.error_code, a.partition_id]),
        keys.map((k) => [200, javaPartition(k, 3)]),
      )
      const seen = await readAll(b.bootstrap, 'curl-keys', keys.length)
      assert.deepEqual(
        seen,
        [...keys].sort().map((k) => [javaPartition(k, 3), k, `v-${k}`]),
      )
    } finally {
      await stopAndCheck(b)
    }
  })

  it('a cluster of three: one broker REST creates and produces to partitions led by all three; all describe the same', async () => {
    const c = await startCluster({ brokers: 3 })
    try {
      const http1 = c.broker(1).http!
      const cluster = (await call(http1, 'GET', '/v3/clusters')).body.data[0].cluster_id as string
      const created = await call(http1, 'POST', `/v3/clusters/${cluster}/topics`, {
        topic_name: 'spread',
        partitions_count: 6,
        replication_factor: 3,
      })
      assert.equal(created.status, 201, JSON.stringify(created.body))
      const leaders = await waitFor(async () => {
        const ps = await Promise.all([0, 1, 2, 3, 4, 5].map((p) => c.partitionState('spread', p)))
        return ps.every((p) => p.leader > 0 && p.isr.length === 3) ? ps.map((p) => p.leader) : undefined
      }, 'six partitions with a leader and three in sync')
      assert.deepEqual([...new Set(leaders)].sort(), [1, 2, 3])
      const records = keys.map((k) => ({ key: { type: 'STRING', data: k }, value: { type: 'JSON', data: { k } } }))
      for (const r of records) {
        const a = await call(http1, 'POST', `/v3/clusters/${cluster}/topics/spread/records`, r)
        assert.deepEqual([a.status, a.body.error_code, a.body.partition_id], [200, 200, javaPartition(r.key.data, 6)])
      }
      const seen = await readAll(c.bootstrap(), 'spread', keys.length)
      assert.deepEqual(
        seen,
        [...keys].sort().map((k) => [javaPartition(k, 6), k, JSON.stringify({ k })]),
      )
      for (const id of [1, 2, 3]) {
        const base = c.broker(id).http!
        const brokers = (await call(base, 'GET', `/v3/clusters/${cluster}/brokers`)).body
        assert.deepEqual(
          brokers.data.map((x: Json) => x.broker_id),
          [1, 2, 3],
        )
        const replicas = (await call(base, 'GET', `/v3/clusters/${cluster}/topics/spread/partitions/0/replicas`)).body
        assert.deepEqual(replicas.data.map((x: Json) => [x.is_leader, x.is_in_sync]).sort(), [
          [false, true],
          [false, true],
          [true, true],
        ])
        const p0 = (await call(base, 'GET', `/v3/clusters/${cluster}/topics/spread/partitions/0`)).body
        assert.ok(p0.leader.related.endsWith(`/replicas/${leaders[0]}`), p0.leader.related)
      }
    } finally {
      await c.close()
    }
  })
})
