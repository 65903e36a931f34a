// Three broker processes over etcd whose inter-broker listener is SSL with mTLS
// (listener.name.ssl.ssl.client.auth=required): each broker presents its key store to the others
// and trusts its trust store. A topic with replication factor 3 gets an ISR of 3 and takes writes
// at acks=all; the followers' connections are seen on the leader's SSL listener (its
// connection-creation metric), while clients use the PLAINTEXT listener.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { ProduceRequest, ProduceResponse } from '../../src/protocol/messages/00-produce.js'
import { buildRecordBatch } from '../../src/protocol/records/builder.js'
import { makeCerts, sslSettings, type TestCerts } from '../helpers/certs.js'
import { type Cluster, startCluster, waitFor } from '../helpers/cluster.js'

const WAIT_MS = 60_000
const TOPIC = 'tls-replicated'

/** The leader's count of connections accepted on a listener, from its /metrics. */
async function connectionsCreated(http: string, listener: string): Promise<number> {
  const text = await (await fetch(`${http}/metrics`)).text()
  const m = new RegExp(`^kafka_server_socketservermetrics_connection_creation_total\\{listener="${listener}"\\} (\\d+)`, 'm').exec(text)
  return m ? Number(m[1]) : 0
}

describe('a cluster replicating over an SSL inter-broker listener', () => {
  let certs: TestCerts
  let c: Cluster
  let client: KafkaClient

  before(async () => {
    certs = await makeCerts()
    c = await startCluster({
      brokers: 3,
      perBroker: () => ({
        listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0',
        'inter.broker.listener.name': 'SSL',
        ...sslSettings(certs, { 'listener.name.ssl.ssl.client.auth': 'required' }),
      }),
    })
    client = await KafkaClient.connect({ bootstrap: c.bootstrap().split(',') })
  })

  after(async () => {
    await client?.close()
    await c?.close()
    certs?.remove()
  })

  it('has an ISR of 3 and takes acks=all writes, the followers fetching over TLS', async () => {
    await createTopics(client, [{ name: TOPIC, numPartitions: 1, replicationFactor: 3, configs: { 'min.insync.replicas': '3' } }])
    const state = await waitFor(
      async () => {
        const s = await c.partitionState(TOPIC, 0)
        return s.isr.length === 3 ? s : undefined
      },
      'ISR of 3',
      WAIT_MS,
    )
    assert.deepEqual([...state.isr].sort(), [1, 2, 3])

    const records = buildRecordBatch({
      baseTimestamp: Date.now(),
      records: [{ key: null, value: Buffer.from('v'), timestamp: Date.now() }],
    })
    // The leader the metadata names may not know it leads yet: retried as a client retries.
    const written = await waitFor(
      async () => {
        const res = await client.request(
          ProduceRequest,
          ProduceResponse,
          { transactionalId: null, acks: -1, timeoutMs: 10_000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] },
          { nodeId: state.leader, timeoutMs: 30_000, maxVersion: 12 },
        )
        const p = res.responses[0]!.partitionResponses[0]!
        return p.errorCode === 0 ? p : undefined
      },
      'an acks=all write taken',
      WAIT_MS,
    )
    assert.equal(written.baseOffset, 0)

    const http = c.broker(state.leader).http
    assert.ok(http, 'the leader has an HTTP listener')
    assert.ok((await connectionsCreated(http, 'SSL')) >= 2, 'the two followers connected to the SSL listener')
  })
})
