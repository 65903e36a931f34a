// The two checks Kafka's CVEs taught, on the wire against an in-process broker with the
// StandardAuthorizer: a transactional batch in a Produce request without (or with an
// unauthorized) transactional id answers TRANSACTIONAL_ID_AUTHORIZATION_FAILED however the header
// looks (CVE-2018-17196), and a Fetch posing as replica 1 without CLUSTER_ACTION answers
// TOPIC_AUTHORIZATION_FAILED (CVE-2018-1288) — while a consumer's Fetch of the same partition reads;
// and a share consumer's ShareFetch of a topic it may not READ answers TOPIC_AUTHORIZATION_FAILED
// for that topic only; a KIP-848 member subscribing to a topic it may not describe is refused.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startBroker, type RunningBroker } from '../../src/broker/start.js'
import { createAcls } from '../../src/client/admin-acls.js'
import { createTopic } from '../../src/client/admin-topics.js'
import { KafkaClient } from '../../src/client/client.js'
import { Connection } from '../../src/client/connection.js'
import { AclOperation as Op, AclPermissionType as Perm, PatternType as Pat, ResourceType as Res } from '../../src/ports/authorizer.js'
import { ErrorCode } from '../../src/protocol/errors.js'
import { FetchRequest, FetchResponse } from '../../src/protocol/messages/01-fetch.js'
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../../src/protocol/messages/68-consumer-group-heartbeat.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../src/protocol/messages/10-find-coordinator.js'
import { waitFor } from '../helpers/clients.js'
import { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse } from '../../src/protocol/messages/76-share-group-heartbeat.js'
import { ShareFetchRequest, ShareFetchResponse } from '../../src/protocol/messages/78-share-fetch.js'
import { ShareAcknowledgeRequest, ShareAcknowledgeResponse } from '../../src/protocol/messages/79-share-acknowledge.js'
import { ProduceRequest, ProduceResponse } from '../../src/protocol/messages/00-produce.js'
import { buildRecordBatch } from '../../src/protocol/records/builder.js'
import { silentLogger } from '../../src/util/logger.js'

const TOPIC = 'wire-acl'
const allow = (o: { resourceType: number; resourceName: string; operation: number }) => ({
  patternType: Pat.LITERAL,
  principal: 'User:ANONYMOUS',
  host: '*',
  permissionType: Perm.ALLOW,
  ...o,
})

describe('authorization on the wire', () => {
  let broker: RunningBroker
  let conn: Connection

  before(async () => {
    broker = await startBroker({
      storage: 'memory',
      logger: silentLogger,
      config: {
        'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        'allow.everyone.if.no.acl.found': 'true',
      },
    })
    const client = await KafkaClient.connect({ bootstrap: [broker.bootstrap] })
    try {
      await createTopic(client, { name: TOPIC, numPartitions: 1, replicationFactor: 1 })
      await createTopic(client, { name: `${TOPIC}-closed`, numPartitions: 1, replicationFactor: 1 })
      // The cluster has ACLs now (DESCRIBE, not CLUSTER_ACTION); the topic is open to all; the
      // transactional id 'mine' is allowed, every other one has an ACL of User:bob only.
      await createAcls(client, [
        allow({ resourceType: Res.CLUSTER, resourceName: 'kafka-cluster', operation: Op.DESCRIBE }),
        allow({ resourceType: Res.TRANSACTIONAL_ID, resourceName: 'mine', operation: Op.WRITE }),
        { ...allow({ resourceType: Res.TRANSACTIONAL_ID, resourceName: '*', operation: Op.WRITE }), principal: 'User:bob' },
        { ...allow({ resourceType: Res.TOPIC, resourceName: `${TOPIC}-closed`, operation: Op.READ }), permissionType: Perm.DENY },
        allow({ resourceType: Res.TOPIC, resourceName: `${TOPIC}-closed`, operation: Op.DESCRIBE }),
        { ...allow({ resourceType: Res.TOPIC, resourceName: `${TOPIC}-secret`, operation: Op.DESCRIBE }), permissionType: Perm.DENY },
      ])
    } finally {
      await client.close()
    }
    conn = await Connection.connect({ host: broker.host, port: broker.port })
  })

  after(async () => {
    await conn?.close()
    await broker?.close()
  })

  const produce = (transactionalId: string | null, attributes: number) =>
    conn.request(ProduceRequest, ProduceResponse, 9, {
      transactionalId,
      acks: 1,
      timeoutMs: 5000,
      topicData: [
        {
          name: TOPIC,
          partitionData: [
            {
              index: 0,
              records: buildRecordBatch({
                records: [{ key: null, value: Buffer.from('v'), headers: [] }],
                producerId: 7,
                producerEpoch: 0,
                baseSequence: 0,
                attributes,
              }),
            },
          ],
        },
      ],
    })
  const codeOf = (r: Awaited<ReturnType<typeof produce>>) => r.responses[0]!.partitionResponses[0]!.errorCode

  test('a transactional batch needs WRITE on a transactional id, whatever the header says (CVE-2018-17196)', async () => {
    assert.equal(codeOf(await produce(null, 0x10)), ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code)
    assert.equal(codeOf(await produce('theirs', 0x10)), ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code)
    // Allowed, the batch goes on to the transaction checks (no transaction is open: not an authorization error).
    assert.notEqual(codeOf(await produce('mine', 0x10)), ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code)
    assert.equal(codeOf(await produce(null, 0)), 0)
  })

  test('a fetch as replica 1 without CLUSTER_ACTION is TOPIC_AUTHORIZATION_FAILED (CVE-2018-1288)', async () => {
    const fetch = (replicaId: number) =>
      conn.request(FetchRequest, FetchResponse, 12, {
        replicaId,
        maxWaitMs: 0,
        minBytes: 0,
        topics: [{ topic: TOPIC, partitions: [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 1 << 20 }] }],
        forgottenTopicsData: [],
      })
    const asReplica = await fetch(1)
    assert.equal(asReplica.responses[0]!.partitions[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED.code)
    assert.equal(asReplica.responses[0]!.partitions[0]!.records?.length ?? 0, 0)
    const asConsumer = await fetch(-1)
    assert.equal(asConsumer.responses[0]!.partitions[0]!.errorCode, 0)
    assert.ok((asConsumer.responses[0]!.partitions[0]!.records?.length ?? 0) > 0)
  })

  test('ShareFetch and ShareAcknowledge: a topic the consumer may not READ answers TOPIC_AUTHORIZATION_FAILED, the others are served', async () => {
    const client = await KafkaClient.connect({ bootstrap: [broker.bootstrap] })
    let ids: Map<string, string>
    try {
      const md = await client.metadata([TOPIC, `${TOPIC}-closed`], { refresh: true })
      ids = new Map([...md.topics].map(([name, t]) => [name, t.topicId!]))
    } finally {
      await client.close()
    }
    // The group's coordinator (__consumer_offsets, created on the first FindCoordinator) must be loaded.
    await conn.request(FindCoordinatorRequest, FindCoordinatorResponse, 4, { keyType: 0, coordinatorKeys: ['wire-share'] })
    const hb = await waitFor(async () => {
      const r = await conn.request(ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse, 1, {
        groupId: 'wire-share',
        memberId: 'AAAAAAAAAAAAAAAAAAAAAQ',
        memberEpoch: 0,
        subscribedTopicNames: [TOPIC, `${TOPIC}-closed`],
      })
      return r.errorCode === 0 ? r : undefined
    }, 'the share group heartbeat to be answered')
    const res = await conn.request(ShareFetchRequest, ShareFetchResponse, 1, {
      groupId: 'wire-share',
      memberId: hb.memberId ?? 'AAAAAAAAAAAAAAAAAAAAAQ',
      shareSessionEpoch: 0,
      maxWaitMs: 0,
      minBytes: 0,
      maxRecords: 10,
      batchSize: 10,
      topics: [TOPIC, `${TOPIC}-closed`].map((name) => ({
        topicId: ids.get(name)!,
        partitions: [{ partitionIndex: 0, partitionMaxBytes: 1 << 20, acknowledgementBatches: [] }],
      })),
      forgottenTopicsData: [],
    })
    assert.equal(res.errorCode, 0)
    const byTopic = new Map(res.responses.map((t) => [t.topicId, t.partitions[0]!.errorCode]))
    assert.equal(byTopic.get(ids.get(`${TOPIC}-closed`)!), ErrorCode.TOPIC_AUTHORIZATION_FAILED.code)
    assert.notEqual(byTopic.get(ids.get(TOPIC)!), ErrorCode.TOPIC_AUTHORIZATION_FAILED.code)
    // Acknowledgements of the unreadable topic are refused the same way.
    const ack = await conn.request(ShareAcknowledgeRequest, ShareAcknowledgeResponse, 1, {
      groupId: 'wire-share',
      memberId: hb.memberId ?? 'AAAAAAAAAAAAAAAAAAAAAQ',
      shareSessionEpoch: 1,
      topics: [TOPIC, `${TOPIC}-closed`].map((name) => ({
        topicId: ids.get(name)!,
        partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [1] }] }],
      })),
    })
    assert.equal(ack.errorCode, 0)
    const acked = new Map(ack.responses.map((t) => [t.topicId, t.partitions[0]!.errorCode]))
    assert.equal(acked.get(ids.get(`${TOPIC}-closed`)!), ErrorCode.TOPIC_AUTHORIZATION_FAILED.code)
    assert.notEqual(acked.get(ids.get(TOPIC)!), ErrorCode.TOPIC_AUTHORIZATION_FAILED.code)
  })

  test('ConsumerGroupHeartbeat: a subscription to a topic the member may not DESCRIBE is TOPIC_AUTHORIZATION_FAILED', async () => {
    const beat = (topics: string[]) =>
      conn.request(ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, 0, {
        groupId: 'wire-848',
        memberId: 'AAAAAAAAAAAAAAAAAAAAAg',
        memberEpoch: 0,
        rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: topics,
        topicPartitions: [],
      })
    const refused = await beat([TOPIC, `${TOPIC}-secret`])
    assert.equal(refused.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED.code)
    assert.match(refused.errorMessage ?? '', /wire-acl-secret/)
    const accepted = await waitFor(async () => {
      const r = await beat([TOPIC])
      return r.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED.code || r.errorCode === 0 ? r : undefined
    }, 'the consumer group heartbeat to be answered')
    assert.equal(accepted.errorCode, 0)
  })
})
