// The admin helpers against a scripted broker that serves only old, non-flexible versions and
// neither DescribeCluster nor DescribeLogDirs (as an older Kafka): describeCluster falls back to
// Metadata, describeTopics reports sizes as unknown instead of failing, and the configs shown are
// exactly those whose source is not DEFAULT_CONFIG.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { describeCluster, describeTopics, listTopics } from '../../../src/client/admin-topics.js'
import { KafkaClient } from '../../../src/client/client.js'
import { ListOffsetsRequest, ListOffsetsResponse } from '../../../src/protocol/messages/02-list-offsets.js'
import { MetadataResponse } from '../../../src/protocol/messages/03-metadata.js'
import { ApiVersionsResponse } from '../../../src/protocol/messages/18-api-versions.js'
import { DescribeConfigsResponse } from '../../../src/protocol/messages/32-describe-configs.js'
import type { Message } from '../../../src/protocol/schema.js'
import { type FakeRequest, type FakeServer, responseFrame, startFakeServer } from './fake-server.js'

/** API key → the highest version served (all from 0 or 1); all non-flexible except ApiVersions. */
const SERVED = new Map([
  [18, [0, 4]],
  [3, [0, 8]],
  [2, [1, 5]],
  [32, [1, 3]],
])

/** The body of a request sent with header v1 (non-flexible): after apiKey, version, correlation id and client id. */
function bodyOf(frame: Buffer): Buffer {
  const clientIdLength = frame.readInt16BE(8)
  return frame.subarray(10 + Math.max(clientIdLength, 0))
}

const LATEST = [42, 0]
const EARLIEST = [5, 0]

describe('admin helpers against a broker without DescribeCluster and DescribeLogDirs', () => {
  let server: FakeServer
  let client: KafkaClient

  before(async () => {
    server = await startFakeServer((req) => answer(req))
    client = await KafkaClient.connect({ bootstrap: [`127.0.0.1:${server.port}`], clientId: 'admin-topics-test' })
  })
  after(async () => {
    await client.close()
    await server.close()
  })

  function reply<V>(req: FakeRequest, msg: Message<V>, body: V): void {
    req.socket.write(responseFrame(req.correlationId, (w) => msg.codec(req.apiVersion).encode(w, body as never)))
  }

  function answer(req: FakeRequest): void {
    switch (req.apiKey) {
      case 18:
        reply(req, ApiVersionsResponse, {
          errorCode: 0,
          apiKeys: [...SERVED].map(([apiKey, [minVersion, maxVersion]]) => ({ apiKey, minVersion: minVersion!, maxVersion: maxVersion! })),
          throttleTimeMs: 0,
          supportedFeatures: [],
          finalizedFeaturesEpoch: -1,
          finalizedFeatures: [],
          zkMigrationReady: false,
        })
        return
      case 3:
        reply(req, MetadataResponse, {
          throttleTimeMs: 0,
          brokers: [{ nodeId: 1, host: '127.0.0.1', port: server.port, rack: 'r1' }],
          clusterId: 'fake-cluster',
          controllerId: 1,
          topics: [
            {
              errorCode: 0,
              name: 't',
              topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
              isInternal: false,
              partitions: [0, 1].map((i) => ({
                errorCode: 0,
                partitionIndex: i,
                leaderId: 1,
                leaderEpoch: 3,
                replicaNodes: [1],
                isrNodes: [1],
                offlineReplicas: [],
              })),
              topicAuthorizedOperations: 0,
            },
            {
              errorCode: 0,
              name: '__consumer_offsets',
              topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
              isInternal: true,
              partitions: [],
              topicAuthorizedOperations: 0,
            },
          ],
          clusterAuthorizedOperations: 0,
          errorCode: 0,
        })
        return
      case 2: {
        const body = ListOffsetsRequest.decode(req.apiVersion, bodyOf(req.frame))
        reply(req, ListOffsetsResponse, {
          throttleTimeMs: 0,
          topics: body.topics.map((t) => ({
            name: t.name,
            partitions: t.partitions.map((p) => ({
              partitionIndex: p.partitionIndex,
              errorCode: 0,
              timestamp: -1,
              offset: (p.timestamp === -1 ? LATEST : EARLIEST)[p.partitionIndex]!,
              leaderEpoch: 3,
            })),
          })),
        })
        return
      }
      case 32: {
        const entry = (name: string, value: string | null, configSource: number, isSensitive = false) => ({
          name,
          value,
          readOnly: false,
          isDefault: false,
          configSource,
          isSensitive,
          synonyms: [],
          configType: 2,
          documentation: null,
        })
        reply(req, DescribeConfigsResponse, {
          throttleTimeMs: 0,
          results: [
            {
              errorCode: 0,
              errorMessage: null,
              resourceType: 2,
              resourceName: 't',
              configs: [
                entry('segment.bytes', '1073741824', 5),
                entry('retention.ms', '1000', 1),
                entry('cleanup.policy', 'delete', 5),
                entry('min.insync.replicas', '2', 4),
                entry('secret', 'hidden', 1, true),
              ],
            },
          ],
        })
        return
      }
      default:
        req.socket.destroy()
    }
  }

  it('describeCluster falls back to Metadata when DescribeCluster is not served', async () => {
    const c = await describeCluster(client)
    assert.deepEqual(c, {
      clusterId: 'fake-cluster',
      controllerId: 1,
      brokers: [{ nodeId: 1, host: '127.0.0.1', port: server.port, rack: 'r1' }],
      source: 'Metadata',
    })
    assert.ok(!server.requests.some((r) => r.apiKey === 60), 'no DescribeCluster request sent')
  })

  it('describeTopics: offsets at the leader, sizes unknown, only non-default configs (sensitive values hidden)', async () => {
    const [t] = await describeTopics(client, ['t'])
    assert.ok(t)
    assert.deepEqual(
      t.partitions.map((p) => [p.partition, p.leader, p.leaderEpoch, p.replicas, p.isr, p.earliestOffset, p.latestOffset, p.sizeBytes]),
      [
        [0, 1, 3, [1], [1], 5, 42, null],
        [1, 1, 3, [1], [1], 0, 0, null],
      ],
    )
    assert.equal(t.sizeBytes, null, 'no DescribeLogDirs: the size is unknown, not zero')
    assert.equal(t.configsError, null)
    assert.deepEqual(t.configs, [
      { name: 'min.insync.replicas', value: '2', source: 'STATIC_BROKER_CONFIG', sensitive: false, readOnly: false },
      { name: 'retention.ms', value: '1000', source: 'DYNAMIC_TOPIC_CONFIG', sensitive: false, readOnly: false },
      { name: 'secret', value: null, source: 'DYNAMIC_TOPIC_CONFIG', sensitive: true, readOnly: false },
    ])
    assert.ok(!server.requests.some((r) => r.apiKey === 35), 'no DescribeLogDirs request sent')
    assert.deepEqual(
      server.requests.filter((r) => r.apiKey === 2).map((r) => r.apiVersion),
      [5, 5],
      'ListOffsets in the highest version the broker serves, once per timestamp',
    )
  })

  it('describeTopics throws UNKNOWN_TOPIC_OR_PARTITION naming a topic the broker does not list', async () => {
    await assert.rejects(describeTopics(client, ['t', 'missing']), (err: Error & { code?: string; detail?: string }) => {
      assert.equal(err.code, 'UNKNOWN_TOPIC_OR_PARTITION')
      assert.equal(err.detail, 'missing')
      return true
    })
  })

  it('listTopics hides internal topics unless asked', async () => {
    assert.deepEqual(
      (await listTopics(client)).map((t) => [t.name, t.partitions, t.replicationFactor]),
      [['t', 2, 1]],
    )
    assert.deepEqual(
      (await listTopics(client, { internal: true })).map((t) => [t.name, t.internal]),
      [
        ['__consumer_offsets', true],
        ['t', false],
      ],
    )
  })
})
