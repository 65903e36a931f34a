// Three brokers whose only listener, the inter-broker one, is SASL_PLAINTEXT — then SASL_SSL (TLS
// with the dev CA, SASL on top) — with PLAIN
// (sasl.mechanism.inter.broker.protocol=PLAIN, the brokers logging in as the JAAS config's
// username): records produced with acks=all (kafkajs, as a user) to an RF-3 topic reach every
// broker's log files, and the ISR holds all three.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import { type Cluster, readPartitionLog, recordsOf, startCluster, waitFor } from '../helpers/cluster.js'
import { makeCerts, sslSettings, type TestCerts } from '../helpers/certs.js'
import { PLAIN_USERS, plainJaas } from '../helpers/sasl.js'

const TOPIC = 'it-sasl-cluster'
const WAIT_MS = 60_000

for (const protocol of ['SASL_PLAINTEXT', 'SASL_SSL'] as const) {
  describe(`a cluster replicating over ${protocol}`, () => {
    let c: Cluster
    let certs: TestCerts | undefined
    const listener = protocol.toLowerCase()

    before(async () => {
      certs = protocol === 'SASL_SSL' ? await makeCerts() : undefined
      c = await startCluster({
        brokers: 3,
        securityProtocol: protocol,
        clientSecurity: {
          protocol,
          sasl: { mechanism: 'PLAIN', username: 'admin', password: PLAIN_USERS.admin },
          ...(certs ? { tls: { ca: certs.pem.ca } } : {}),
        },
        overrides: {
          'sasl.enabled.mechanisms': 'PLAIN',
          'sasl.mechanism.inter.broker.protocol': 'PLAIN',
          [`listener.name.${listener}.plain.sasl.jaas.config`]: plainJaas(),
          'offsets.topic.replication.factor': '3',
          ...(certs ? sslSettings(certs) : {}),
        },
      })
    })
    after(async () => {
      await c?.close()
      certs?.remove()
    })

    test('an RF-3 topic is fully replicated and in sync', async () => {
      const kafka = new Kafka({
        clientId: 'it-sasl-cluster',
        brokers: c.bootstrap().split(','),
        sasl: { mechanism: 'plain', username: 'alice', password: PLAIN_USERS.alice },
        ...(certs ? { ssl: { ca: [certs.pem.ca] } } : {}),
        logLevel: logLevel.NOTHING,
      })
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2, replicationFactor: 3 }], waitForLeaders: true })
      await admin.disconnect()
      const producer = kafka.producer()
      await producer.connect()
      for (let i = 0; i < 10; i++) {
        await producer.send({ topic: TOPIC, acks: -1, messages: [{ key: `k${i}`, value: `v${i}` }] })
      }
      await producer.disconnect()
      // Every broker's own log files hold all ten records: the followers fetched them over SASL.
      const recordsOn = (id: number) => [0, 1].flatMap((p) => recordsOf(readPartitionLog(c.dataDir(id), TOPIC, p)))
      for (const id of [1, 2, 3]) {
        await waitFor(() => recordsOn(id).length === 10, `broker ${id} holds the 10 records`, WAIT_MS)
        assert.deepEqual(
          recordsOn(id)
            .map((r) => r.value)
            .sort(),
          Array.from({ length: 10 }, (_, i) => `v${i}`).sort(),
        )
      }
      for (const partition of [0, 1]) {
        const state = await c.partitionState(TOPIC, partition)
        assert.deepEqual([...state.replicas].sort(), [1, 2, 3])
        assert.deepEqual([...state.isr].sort(), [1, 2, 3])
      }
      for (const id of [1, 2, 3]) assert.doesNotMatch(c.stderr(id), /SASL_AUTHENTICATION_FAILED|authentication-failed/, `broker ${id}`)
    })
  })
}
