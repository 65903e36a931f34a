// A broker process whose metadata lives in an etcd that serves TLS with client-certificate
// authentication (--cert-file, --key-file, --trusted-ca-file, --client-cert-auth): with
// tributary.etcd.ssl.* it starts, registers and serves a topic; without the client certificate
// it cannot reach etcd and fails start-up; http:// endpoints with the TLS keys are refused,
// naming etcd.endpoints.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { makeCerts, type TestCerts } from '../helpers/certs.js'
import { type EtcdServer, startEtcd } from '../helpers/etcd.js'

describe('etcd over TLS', () => {
  let certs: TestCerts
  let etcd: EtcdServer
  let broker: BrokerProcess | undefined
  before(async () => {
    certs = await makeCerts()
    etcd = await startEtcd({ cert: certs.brokerCert, key: certs.brokerKey, ca: certs.ca })
  })
  after(async () => {
    // etcd's process is unref'd: hold the event loop open while it is stopped.
    const keepAlive = setInterval(() => {}, 1000)
    try {
      await stopAndCheck(broker)
      await etcd?.stop()
    } finally {
      clearInterval(keepAlive)
      certs?.remove()
    }
  })

  test('with tributary.etcd.ssl.* the broker keeps its metadata in the TLS etcd', async () => {
    broker = await startBrokerProcess({
      overrides: {
        'etcd.endpoints': etcd.endpoint,
        'etcd.prefix': '/tls-etcd',
        'tributary.etcd.ssl.ca.location': certs.ca,
        'tributary.etcd.ssl.certificate.location': certs.clientCert,
        'tributary.etcd.ssl.key.location': certs.clientKey,
      },
    })
    const client = await KafkaClient.connect({ bootstrap: [broker.bootstrap] })
    try {
      await createTopics(client, [{ name: 'over-tls-etcd', numPartitions: 2, replicationFactor: 1 }])
      const md = await client.metadata(['over-tls-etcd'], { refresh: true })
      assert.equal(md.topics.get('over-tls-etcd')?.partitions.length, 2)
    } finally {
      await client.close()
    }
  })

  test('without the client certificate the broker cannot reach etcd and does not start', async () => {
    await assert.rejects(
      startBrokerProcess({
        overrides: {
          'etcd.endpoints': etcd.endpoint,
          'etcd.prefix': '/tls-etcd-2',
          'tributary.etcd.ssl.ca.location': certs.ca,
          'broker.id': '7',
        },
      }),
      /cannot reach etcd/,
    )
  })

  test('http:// endpoints with tributary.etcd.ssl.* are refused, naming etcd.endpoints', async () => {
    await assert.rejects(
      startBrokerProcess({ overrides: { 'etcd.endpoints': 'http://127.0.0.1:1', 'tributary.etcd.ssl.ca.location': certs.ca } }),
      /etcd\.endpoints must be https/,
    )
  })
})
