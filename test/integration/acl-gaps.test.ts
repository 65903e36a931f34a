// Authorization and quota checks Kafka 4.4 makes beyond the group or cluster check, against an
// in-process SASL_PLAINTEXT broker with the StandardAuthorizer and PLAIN users admin (a super user)
// and alice, who has only the ACLs each case gives her:
// - AlterShareGroupOffsets / DeleteShareGroupOffsets / DescribeShareGroupOffsets: READ (alter,
//   delete) or DESCRIBE (describe) on each topic; a refused topic is TOPIC_AUTHORIZATION_FAILED,
//   the other topics are served in the same request;
// - CreateTopics (@platformatic/kafka and the wire): a topic alice may create but not
//   DESCRIBE_CONFIGS is created, answered with topicConfigErrorCode TOPIC_AUTHORIZATION_FAILED and
//   without its partitions and configs;
// - ConsumerGroupHeartbeat v1 with a regex: only topics alice may DESCRIBE are assigned, and a
//   topic becomes assigned at the heartbeat after she is allowed to see it;
// - ShareFetch: response bytes count against consumer_byte_rate; over it, the answer carries the
//   throttle time and no records;
// - ShareGroupHeartbeat needs DESCRIBE on each subscribed topic; ConsumerGroupDescribe and
//   ShareGroupDescribe answer TOPIC_AUTHORIZATION_FAILED for a group assigned a topic the caller
//   may not DESCRIBE; carol, with DELETE and ALTER on the cluster, deletes any topic (kafkajs) and
//   may send WriteTxnMarkers (KIP-664), which alice may not.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Admin } from '@platformatic/kafka'
import { Kafka, logLevel } from 'kafkajs'
import { type RunningBroker, startBroker } from '../../src/broker/start.js'
import { createAcls } from '../../src/client/admin-acls.js'
import { alterClientQuotas } from '../../src/client/admin-quotas.js'
import { connectNegotiated } from '../../src/client/api-versions.js'
import { KafkaClient } from '../../src/client/client.js'
import { AclOperation as Op, PatternType, ResourceType as Res } from '../../src/ports/authorizer.js'
import { ErrorCode } from '../../src/protocol/errors.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../src/protocol/messages/10-find-coordinator.js'
import { CreateTopicsRequest, CreateTopicsResponse } from '../../src/protocol/messages/19-create-topics.js'
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../../src/protocol/messages/27-write-txn-markers.js'
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../../src/protocol/messages/68-consumer-group-heartbeat.js'
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../../src/protocol/messages/69-consumer-group-describe.js'
import { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse } from '../../src/protocol/messages/76-share-group-heartbeat.js'
import { ShareGroupDescribeRequest, ShareGroupDescribeResponse } from '../../src/protocol/messages/77-share-group-describe.js'
import { ShareFetchRequest, ShareFetchResponse } from '../../src/protocol/messages/78-share-fetch.js'
import {
  DescribeShareGroupOffsetsRequest,
  DescribeShareGroupOffsetsResponse,
} from '../../src/protocol/messages/90-describe-share-group-offsets.js'
import { AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse } from '../../src/protocol/messages/91-alter-share-group-offsets.js'
import {
  DeleteShareGroupOffsetsRequest,
  DeleteShareGroupOffsetsResponse,
} from '../../src/protocol/messages/92-delete-share-group-offsets.js'
import { createLogger, silentLogger } from '../../src/util/logger.js'
import { waitFor } from '../helpers/clients.js'
import { allowAcl, plainJaas, saslBrokerOverrides } from '../helpers/sasl.js'

const USERS = { admin: 'admin-secret', alice: 'alice-secret', carol: 'carol-secret' }
const TOPIC_DENIED = ErrorCode.TOPIC_AUTHORIZATION_FAILED.code

describe('authorization and quota gaps closed (Kafka 4.4 checks)', () => {
  let broker: RunningBroker
  let admin: KafkaClient
  const allowAlice = (resourceType: number, resourceName: string, operation: number, patternType?: number) =>
    allowAcl('User:alice', resourceType, resourceName, operation, patternType)
  const security = (user: keyof typeof USERS) => ({
    protocol: 'SASL_PLAINTEXT' as const,
    sasl: { mechanism: 'PLAIN' as const, username: user, password: USERS[user] },
  })
  const kafkaAdmin = () =>
    new Kafka({
      brokers: [broker.bootstrap],
      sasl: { mechanism: 'plain', username: 'admin', password: USERS.admin },
      logLevel: logLevel.NOTHING,
    })
  const connAs = (user: keyof typeof USERS) =>
    connectNegotiated({ host: broker.host, port: broker.port, clientId: `it-gaps-${user}`, security: security(user) })
  const aliceConn = () => connAs('alice')

  before(async () => {
    broker = await startBroker({
      storage: 'memory',
      logger: process.env.GAPS_DEBUG ? createLogger('info') : silentLogger,
      config: saslBrokerOverrides(['PLAIN'], {
        'listener.name.sasl_plaintext.plain.sasl.jaas.config': plainJaas(USERS),
        'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        'super.users': 'User:admin',
        'auto.create.topics.enable': 'false',
        'quota.window.num': '2',
      }),
    })
    admin = await KafkaClient.connect({ bootstrap: [broker.bootstrap], clientId: 'it-gaps-admin', security: security('admin') })
    const k = kafkaAdmin().admin()
    await k.connect()
    await k.createTopics({
      topics: ['gap-open', 'gap-closed', 'gap-hidden', 'gap-rx-a', 'gap-rx-b', 'gap-quota', 'gap-del'].map((topic) => ({
        topic,
        numPartitions: 1,
      })),
      waitForLeaders: true,
    })
    await k.disconnect()
    await createAcls(admin, [
      allowAlice(Res.GROUP, 'gap-', Op.READ, PatternType.PREFIXED),
      allowAlice(Res.GROUP, 'gap-share', Op.DELETE),
      allowAlice(Res.TOPIC, 'gap-open', Op.READ),
      // DESCRIBE but not READ: enough to describe the offsets, not to alter or delete them.
      allowAlice(Res.TOPIC, 'gap-closed', Op.DESCRIBE),
      allowAlice(Res.TOPIC, 'gap-rx-a', Op.DESCRIBE),
      allowAlice(Res.TOPIC, 'gap-quota', Op.READ),
      allowAlice(Res.TOPIC, 'gap-new-', Op.CREATE, PatternType.PREFIXED),
      allowAlice(Res.TOPIC, 'gap-new-seen', Op.DESCRIBE_CONFIGS),
      { ...allowAlice(Res.CLUSTER, 'kafka-cluster', Op.DELETE), principal: 'User:carol' },
      { ...allowAlice(Res.CLUSTER, 'kafka-cluster', Op.ALTER), principal: 'User:carol' },
    ])
  })

  after(async () => {
    await admin?.close()
    await broker?.close()
  })

  test('share group offsets: READ (alter, delete) or DESCRIBE (describe) on each topic, the others served', async () => {
    const conn = await aliceConn()
    try {
      await conn.request(FindCoordinatorRequest, FindCoordinatorResponse, 4, { keyType: 0, coordinatorKeys: ['gap-share'] })
      const alter = await waitFor(async () => {
        const r = await conn.request(AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse, 0, {
          groupId: 'gap-share',
          topics: ['gap-open', 'gap-closed'].map((topicName) => ({ topicName, partitions: [{ partitionIndex: 0, startOffset: 0 }] })),
        })
        return r.errorCode === 0 ? r : undefined
      }, 'the share group coordinator to answer AlterShareGroupOffsets')
      const altered = new Map(alter.responses.map((t) => [t.topicName, t.partitions[0]!.errorCode]))
      assert.equal(altered.get('gap-open'), 0)
      assert.equal(altered.get('gap-closed'), TOPIC_DENIED)

      const described = await conn.request(DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse, 1, {
        groups: [
          { groupId: 'gap-share', topics: ['gap-open', 'gap-closed', 'gap-hidden'].map((topicName) => ({ topicName, partitions: [0] })) },
        ],
      })
      const group = described.groups[0]!
      assert.equal(group.errorCode, 0)
      const byTopic = new Map(group.topics.map((t) => [t.topicName, t.partitions[0]!]))
      assert.equal(byTopic.get('gap-open')?.errorCode, 0)
      assert.equal(byTopic.get('gap-open')?.startOffset, 0)
      assert.equal(byTopic.get('gap-closed')?.errorCode, 0, 'DESCRIBE is enough to describe')
      assert.equal(byTopic.get('gap-hidden')?.errorCode, TOPIC_DENIED)
      assert.equal(byTopic.get('gap-hidden')?.startOffset, -1)
      // Every topic of the group (null topics): the hidden one is not shown.
      const all = await conn.request(DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse, 1, {
        groups: [{ groupId: 'gap-share', topics: null }],
      })
      assert.deepEqual(all.groups[0]!.topics.map((t) => t.topicName).sort(), ['gap-open'])

      const deleted = await conn.request(DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse, 0, {
        groupId: 'gap-share',
        topics: [{ topicName: 'gap-open' }, { topicName: 'gap-closed' }],
      })
      assert.equal(deleted.errorCode, 0)
      const del = new Map(deleted.responses.map((t) => [t.topicName, t.errorCode]))
      assert.equal(del.get('gap-open'), 0)
      assert.equal(del.get('gap-closed'), TOPIC_DENIED)
      // The group check comes first: DELETE on the group (gap-other has READ only) else GROUP_AUTHORIZATION_FAILED.
      const noDelete = await conn.request(DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse, 0, {
        groupId: 'gap-other',
        topics: [{ topicName: 'gap-open' }],
      })
      assert.equal(noDelete.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED.code)
      assert.deepEqual(noDelete.responses, [])
    } finally {
      await conn.close()
    }
  })

  test('CreateTopics: without DESCRIBE_CONFIGS the topic is created but its partitions and configs are not returned', async () => {
    const pk = new Admin({
      clientId: 'it-gaps-pk',
      bootstrapBrokers: [broker.bootstrap],
      sasl: { mechanism: 'PLAIN', username: 'alice', password: USERS.alice },
    })
    try {
      const [seen] = await pk.createTopics({ topics: ['gap-new-seen'], partitions: 2, replicas: 1 })
      assert.equal(seen!.partitions, 2)
      assert.equal(seen!.configuration['cleanup.policy'], 'delete')
      const [blind] = await pk.createTopics({ topics: ['gap-new-blind'], partitions: 2, replicas: 1 })
      assert.equal(blind!.partitions, -1)
      assert.deepEqual(blind!.configuration, {})
    } finally {
      await pk.close()
    }
    // On the wire: the tagged topicConfigErrorCode says why.
    const conn = await aliceConn()
    try {
      const res = await conn.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
        topics: [{ name: 'gap-new-wire', numPartitions: 3, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 10_000,
        validateOnly: false,
      })
      const t = res.topics[0]!
      assert.equal(t.errorCode, 0)
      assert.equal(t.topicConfigErrorCode, TOPIC_DENIED)
      assert.equal(t.numPartitions, -1)
      assert.equal(t.replicationFactor, -1)
    } finally {
      await conn.close()
    }
    const md = await admin.metadata(['gap-new-blind', 'gap-new-wire'], { refresh: true })
    assert.equal(md.topics.get('gap-new-blind')?.partitions.length, 2)
    assert.equal(md.topics.get('gap-new-wire')?.partitions.length, 3)
  })

  test('ConsumerGroupHeartbeat with a regex: only topics the member may DESCRIBE are assigned', async () => {
    const ids = new Map([...(await admin.metadata(['gap-rx-a', 'gap-rx-b'], { refresh: true })).topics].map(([n, t]) => [t.topicId!, n]))
    const conn = await aliceConn()
    try {
      await conn.request(FindCoordinatorRequest, FindCoordinatorResponse, 4, { keyType: 0, coordinatorKeys: ['gap-rx'] })
      const beat = (memberEpoch: number, owned: Array<{ topicId: string; partitions: number[] }>) =>
        conn.request(ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, 1, {
          groupId: 'gap-rx',
          memberId: 'AAAAAAAAAAAAAAAAAAAAAw',
          memberEpoch,
          rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1,
          subscribedTopicNames: null,
          subscribedTopicRegex: memberEpoch === 0 ? 'gap-rx-.*' : null,
          topicPartitions: owned,
        })
      const joined = await waitFor(async () => {
        const r = await beat(0, [])
        return r.errorCode === 0 ? r : undefined
      }, 'the consumer group heartbeat to be answered')
      const topicsOf = (a: typeof joined.assignment) => (a?.topicPartitions ?? []).map((t) => ids.get(t.topicId)).sort()
      assert.deepEqual(topicsOf(joined.assignment), ['gap-rx-a'])
      // Allowed to see gap-rx-b: the next heartbeat brings it.
      await createAcls(admin, [allowAlice(Res.TOPIC, 'gap-rx-b', Op.DESCRIBE)])
      const next = await beat(joined.memberEpoch, joined.assignment!.topicPartitions)
      assert.equal(next.errorCode, 0)
      assert.deepEqual(topicsOf(next.assignment), ['gap-rx-a', 'gap-rx-b'])
    } finally {
      await conn.close()
    }
  })

  test('ShareFetch response bytes count against consumer_byte_rate: over it, a throttle time and no records', async () => {
    const topicId = (await admin.metadata(['gap-quota'], { refresh: true })).topics.get('gap-quota')!.topicId!
    const [set] = await alterClientQuotas(admin, [{ entity: { user: 'alice' }, ops: { consumer_byte_rate: 1000 } }])
    assert.equal(set!.error, null)
    const conn = await aliceConn()
    try {
      await conn.request(FindCoordinatorRequest, FindCoordinatorResponse, 4, { keyType: 0, coordinatorKeys: ['gap-quota-share'] })
      const hb = await waitFor(async () => {
        const r = await conn.request(ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse, 1, {
          groupId: 'gap-quota-share',
          memberId: 'AAAAAAAAAAAAAAAAAAAABA',
          memberEpoch: 0,
          subscribedTopicNames: ['gap-quota'],
        })
        return r.errorCode === 0 ? r : undefined
      }, 'the share group heartbeat to be answered')
      let epoch = 0
      const fetch = () =>
        conn.request(ShareFetchRequest, ShareFetchResponse, 1, {
          groupId: 'gap-quota-share',
          memberId: hb.memberId!,
          shareSessionEpoch: epoch++,
          maxWaitMs: 100,
          minBytes: 0,
          maxRecords: 500,
          batchSize: 500,
          topics:
            epoch === 1 ? [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 1 << 20, acknowledgementBatches: [] }] }] : [],
          forgottenTopicsData: [],
        })
      // The first fetch starts the share partition at the log end; then 20 KB arrive.
      assert.equal((await fetch()).errorCode, 0)
      const producer = kafkaAdmin().producer()
      await producer.connect()
      await producer.send({
        topic: 'gap-quota',
        acks: -1,
        messages: Array.from({ length: 20 }, (_, i) => ({ value: `${i}`.padEnd(1000, '.') })),
      })
      await producer.disconnect()
      const throttled = await waitFor(async () => {
        const r = await fetch()
        assert.equal(r.errorCode, 0)
        return r.throttleTimeMs > 0 ? r : undefined
      }, 'a ShareFetch throttled by consumer_byte_rate')
      assert.deepEqual(throttled.responses, [])
    } finally {
      await conn.close()
    }
  })

  test('ShareGroupHeartbeat needs DESCRIBE on each subscribed topic', async () => {
    const conn = await aliceConn()
    try {
      await conn.request(FindCoordinatorRequest, FindCoordinatorResponse, 4, { keyType: 0, coordinatorKeys: ['gap-sgh'] })
      const join = (topics: string[]) =>
        conn.request(ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse, 1, {
          groupId: 'gap-sgh',
          memberId: 'AAAAAAAAAAAAAAAAAAAABQ',
          memberEpoch: 0,
          subscribedTopicNames: topics,
        })
      assert.equal((await join(['gap-open', 'gap-hidden'])).errorCode, TOPIC_DENIED)
      const ok = await waitFor(async () => {
        const r = await join(['gap-open'])
        return r.errorCode !== ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code ? r : undefined
      }, 'the share group heartbeat to be answered')
      assert.equal(ok.errorCode, 0)
    } finally {
      await conn.close()
    }
  })

  test('ConsumerGroupDescribe / ShareGroupDescribe: a group assigned a topic the caller may not DESCRIBE is TOPIC_AUTHORIZATION_FAILED', async () => {
    // admin (a super user) is a member of both groups, assigned gap-hidden.
    const adminConn = await connAs('admin')
    const conn = await aliceConn()
    try {
      await adminConn.request(FindCoordinatorRequest, FindCoordinatorResponse, 4, { keyType: 0, coordinatorKeys: ['gap-cgd', 'gap-sgd'] })
      await waitFor(async () => {
        const r = await adminConn.request(ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, 0, {
          groupId: 'gap-cgd',
          memberId: 'AAAAAAAAAAAAAAAAAAAABg',
          memberEpoch: 0,
          rebalanceTimeoutMs: 30_000,
          subscribedTopicNames: ['gap-hidden'],
          topicPartitions: [],
        })
        return r.errorCode === 0 && (r.assignment?.topicPartitions.length ?? 0) > 0
      }, 'admin to be assigned gap-hidden in gap-cgd')
      await waitFor(async () => {
        const r = await adminConn.request(ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse, 1, {
          groupId: 'gap-sgd',
          memberId: 'AAAAAAAAAAAAAAAAAAAABw',
          memberEpoch: 0,
          subscribedTopicNames: ['gap-hidden'],
        })
        return r.errorCode === 0 && (r.assignment?.topicPartitions.length ?? 0) > 0
      }, 'admin to be assigned gap-hidden in gap-sgd')
      const cgd = await conn.request(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 0, {
        groupIds: ['gap-cgd', 'gap-rx'],
        includeAuthorizedOperations: false,
      })
      const byGroup = new Map(cgd.groups.map((g) => [g.groupId, g]))
      assert.equal(byGroup.get('gap-cgd')?.errorCode, TOPIC_DENIED)
      assert.deepEqual(byGroup.get('gap-cgd')?.members, [])
      assert.equal(byGroup.get('gap-rx')?.errorCode, 0, 'a group of topics alice may describe')
      const sgd = await conn.request(ShareGroupDescribeRequest, ShareGroupDescribeResponse, 1, {
        groupIds: ['gap-sgd'],
        includeAuthorizedOperations: false,
      })
      assert.equal(sgd.groups[0]!.errorCode, TOPIC_DENIED)
      // The super user sees both.
      const asAdmin = await adminConn.request(ShareGroupDescribeRequest, ShareGroupDescribeResponse, 1, {
        groupIds: ['gap-sgd'],
        includeAuthorizedOperations: false,
      })
      assert.equal(asAdmin.groups[0]!.errorCode, 0)
    } finally {
      await conn.close()
      await adminConn.close()
    }
  })

  test('DELETE on the cluster deletes any topic; WriteTxnMarkers takes ALTER on the cluster too (KIP-664)', async () => {
    const carol = new Kafka({
      brokers: [broker.bootstrap],
      sasl: { mechanism: 'plain', username: 'carol', password: USERS.carol },
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    }).admin()
    await carol.connect()
    try {
      await carol.deleteTopics({ topics: ['gap-del'] })
    } finally {
      await carol.disconnect()
    }
    assert.equal((await admin.metadata(['gap-del'], { refresh: true })).topics.get('gap-del')?.error, 'UNKNOWN_TOPIC_OR_PARTITION')
    const markers = async (user: 'alice' | 'carol') => {
      const conn = await connAs(user)
      try {
        const r = await conn.request(WriteTxnMarkersRequest, WriteTxnMarkersResponse, 1, {
          markers: [
            {
              producerId: 4242,
              producerEpoch: 0,
              transactionResult: false,
              topics: [{ name: 'gap-open', partitionIndexes: [0] }],
              coordinatorEpoch: 0,
            },
          ],
        })
        return r.markers[0]!.topics[0]!.partitions[0]!.errorCode
      } finally {
        await conn.close()
      }
    }
    assert.equal(await markers('alice'), ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code)
    assert.notEqual(await markers('carol'), ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code)
  })
})
