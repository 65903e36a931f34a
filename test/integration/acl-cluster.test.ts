// ACLs over three brokers (etcd): an ACL created through broker 1 is followed by brokers 2 and 3
// through the metadata store's change events, and taken away there when deleted. The brokers
// themselves connect as User:ANONYMOUS (no TLS/SASL here), so the cluster ACL keeps
// User:ANONYMOUS allowed on the cluster (replica fetches need CLUSTER_ACTION).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Admin, Kafka, logLevel } from 'kafkajs'
import { AclOperation as Op, AclPermissionType as Perm, PatternType as Pat, ResourceType as Res } from '../../src/ports/authorizer.js'
import { type Cluster, startCluster, waitFor } from '../helpers/cluster.js'

const TOPIC = 'acl-shared'
const WAIT_MS = 30_000

describe('ACLs in a 3-broker cluster', () => {
  let cluster: Cluster
  let admin: Admin

  before(async () => {
    cluster = await startCluster({
      brokers: 3,
      overrides: {
        'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        'allow.everyone.if.no.acl.found': 'true',
      },
    })
    const kafka = new Kafka({ clientId: 'acl-cluster', brokers: [cluster.broker(1).bootstrap], logLevel: logLevel.NOTHING })
    admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1, replicationFactor: 3 }], waitForLeaders: true })
  })

  after(async () => {
    await admin?.disconnect().catch(() => {})
    await cluster?.close()
  })

  const listedBy = async (id: number) => (await cluster.metadataFrom(id, null)).topics.has(TOPIC)

  test('a DENY created on broker 1 hides the topic on brokers 2 and 3; deleted, it is back', async () => {
    for (const id of [2, 3]) assert.equal(await listedBy(id), true, `broker ${id} lists ${TOPIC} before any ACL`)
    const entry = { resourceType: Res.TOPIC, resourceName: TOPIC, resourcePatternType: Pat.LITERAL, principal: 'User:ANONYMOUS', host: '*' }
    await admin.createAcls({
      acl: [
        { ...entry, resourceType: Res.CLUSTER, resourceName: 'kafka-cluster', operation: Op.ALL, permissionType: Perm.ALLOW },
        { ...entry, operation: Op.DESCRIBE, permissionType: Perm.DENY },
      ] as never,
    })
    for (const id of [2, 3]) await waitFor(async () => !(await listedBy(id)), `broker ${id} to hide ${TOPIC}`, WAIT_MS)
    assert.equal(await listedBy(1), false)
    await admin.deleteAcls({ filters: [{ ...entry, operation: Op.ANY, permissionType: Perm.DENY }] as never })
    for (const id of [2, 3]) await waitFor(async () => await listedBy(id), `broker ${id} to list ${TOPIC} again`, WAIT_MS)
  })
})
