// The REST API tests' harness (test/integration/http-rest*.test.ts): one in-memory broker with
// its HTTP listener per test file, requests through fetch and curl, the shapes of REST Proxy v3's
// documented examples to check responses against, and a kafkajs reader of a topic.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { after, before } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import { type RunningBroker, startBroker } from '../../src/broker/start.js'
import { waitFor } from './clients.js'

export type Json = Record<string, any>

export let broker: RunningBroker
export let base: string
export let cluster: string
export const kafka = () => new Kafka({ clientId: 'it-rest', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })

/** Starts the file's broker before its tests and closes it after them. */
export function useRestBroker(): void {
  before(async () => {
    broker = await startBroker({ storage: 'memory', http: true, config: { 'num.partitions': 1 } })
    base = broker.http!
    cluster = (await call('GET', '/v3/clusters')).body.data[0].cluster_id
  })
  after(async () => {
    await broker.close()
  })
}

export async function call(
  method: string,
  path: string,
  body?: unknown,
  raw?: string,
): Promise<{ status: number; body: Json; text: string }> {
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

export function curl(args: string[]): Promise<{ code: number | null; stdout: string }> {
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
export const DOC_EXAMPLES: Record<string, Json> = {
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
export function assertShape(actual: Json, kind: string, keys: string[], self: string, resourceName: string | undefined): void {
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

export interface Seen {
  partition: number
  offset: string
  key: string | null
  value: string | null
  valueBytes: number[] | null
  headers: Record<string, string>
  timestamp: string
}

/** Reads `count` records of a topic from the beginning with a kafkajs consumer, sorted by partition and offset. */
export async function consumeAll(topic: string, count: number): Promise<Seen[]> {
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
