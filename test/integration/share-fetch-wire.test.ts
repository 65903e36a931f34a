// ShareFetch and ShareAcknowledge on the wire: a real broker (storage in memory) and Tributary's own
// client library — its producer writes the records, its low-level Connection sends the share
// requests with a made-up member id (a partition leader does not check membership, as in Kafka).
// ApiVersions advertises ShareFetch and ShareAcknowledge v1–2; a session opened before the records
// exist (share.auto.offset.reset=latest) receives them at its next epoch; acknowledgements and the
// final epoch work as Kafka's; records a member holds go back to the queue when its connection
// closes, and another member receives them with the next delivery count.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { connectNegotiated } from '../../src/client/api-versions.js'
import { KafkaClient } from '../../src/client/client.js'
import type { Connection } from '../../src/client/connection.js'
import { Producer } from '../../src/client/producer.js'
import { type RunningBroker, startBroker } from '../../src/index.js'
import { ShareAcknowledgeRequest, ShareAcknowledgeResponse } from '../../src/protocol/messages/79-share-acknowledge.js'
import { ShareFetchRequest, type ShareFetchRequestData, ShareFetchResponse } from '../../src/protocol/messages/78-share-fetch.js'
import { iterateBatches, iterateRecords } from '../../src/protocol/records/iterator.js'
import type { Encodable } from '../../src/protocol/schema.js'

const TOPIC = 'share-wire'

describe('ShareFetch / ShareAcknowledge over the wire', () => {
  let broker: RunningBroker
  let client: KafkaClient
  let topicId: string
  const open: Connection[] = []

  const connect = async () => {
    const c = await connectNegotiated({ host: broker.host, port: broker.port })
    open.push(c)
    return c
  }

  const shareFetch = (c: Connection, memberId: string, epoch: number, extra: Partial<Encodable<ShareFetchRequestData>> = {}) =>
    c.request(ShareFetchRequest, ShareFetchResponse, 2, {
      groupId: 'wire-group',
      memberId,
      shareSessionEpoch: epoch,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1 << 20,
      maxRecords: 100,
      batchSize: 100,
      topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
      forgottenTopicsData: [],
      ...extra,
    })

  const produce = async (values: string[]) => {
    const failures: unknown[] = []
    const producer = await Producer.create(client, { topic: TOPIC, acks: -1, onDelivery: (r) => r.error && failures.push(r.error) })
    for (const v of values) producer.send({ key: null, value: Buffer.from(v), partition: 0 })
    await producer.flush()
    producer.close()
    assert.deepEqual(failures, [])
  }

  const values = (records: Buffer | null) => {
    const out: string[] = []
    if (!records) return out
    for (const h of iterateBatches(records)) for (const r of iterateRecords(records, h.position)) out.push(r.value!.toString())
    return out
  }

  before(async () => {
    broker = await startBroker({ storage: 'memory' })
    client = await KafkaClient.connect({ bootstrap: [broker.bootstrap] })
    const [created] = await createTopics(client, [{ name: TOPIC, numPartitions: 1, replicationFactor: 1 }])
    assert.equal(created!.error, null)
    const md = await client.metadata([TOPIC])
    topicId = md.topics.get(TOPIC)!.topicId
  })

  after(async () => {
    for (const c of open) c.close()
    await client?.close()
    await broker?.close()
  })

  it('advertises ShareFetch and ShareAcknowledge v1–2', async () => {
    const c = await connect()
    assert.deepEqual(c.versions!.brokerRange(78), { min: 1, max: 2 })
    assert.deepEqual(c.versions!.brokerRange(79), { min: 1, max: 2 })
  })

  it('delivers, acknowledges, and redelivers what a closed connection held', async () => {
    const a = await connect()
    // The session opens before any record exists: latest starts the share-partition at the end.
    const opened = await shareFetch(a, 'member-a', 0)
    assert.equal(opened.errorCode, 0)
    assert.equal(opened.responses[0]!.partitions[0]!.errorCode, 0)
    assert.deepEqual(opened.responses[0]!.partitions[0]!.acquiredRecords, [])

    await produce(['one', 'two', 'three', 'four'])
    const got = await shareFetch(a, 'member-a', 1, { maxWaitMs: 5_000 })
    const p = got.responses[0]!.partitions[0]!
    assert.equal(got.acquisitionLockTimeoutMs, 30_000)
    assert.deepEqual(p.acquiredRecords, [{ firstOffset: 0, lastOffset: 3, deliveryCount: 1 }])
    assert.deepEqual(values(p.records), ['one', 'two', 'three', 'four'])

    // Accept the first two; the other two stay acquired by member-a.
    const acked = await a.request(ShareAcknowledgeRequest, ShareAcknowledgeResponse, 2, {
      groupId: 'wire-group',
      memberId: 'member-a',
      shareSessionEpoch: 2,
      topics: [
        {
          topicId,
          partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [1] }] }],
        },
      ],
    })
    assert.equal(acked.errorCode, 0)
    assert.equal(acked.responses[0]!.partitions[0]!.errorCode, 0)
    // Accepting again is refused: they are no longer acquired.
    const again = await a.request(ShareAcknowledgeRequest, ShareAcknowledgeResponse, 2, {
      groupId: 'wire-group',
      memberId: 'member-a',
      shareSessionEpoch: 3,
      topics: [
        {
          topicId,
          partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [1] }] }],
        },
      ],
    })
    assert.equal(again.responses[0]!.partitions[0]!.errorCode, 121) // INVALID_RECORD_STATE

    const b = await connect()
    assert.deepEqual((await shareFetch(b, 'member-b', 0)).responses[0]!.partitions[0]!.acquiredRecords, [])
    a.close()
    // member-a's connection is gone: its records are released, and member-b's long poll gets them.
    const redelivered = await shareFetch(b, 'member-b', 1, { maxWaitMs: 10_000 })
    const rp = redelivered.responses[0]!.partitions[0]!
    assert.deepEqual(rp.acquiredRecords, [{ firstOffset: 2, lastOffset: 3, deliveryCount: 2 }])
    assert.deepEqual(values(rp.records), ['one', 'two', 'three', 'four'])

    // The final epoch acknowledges and closes the session; the member's next epoch is unknown.
    const closed = await shareFetch(b, 'member-b', -1, {
      topics: [
        {
          topicId,
          partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 2, lastOffset: 3, acknowledgeTypes: [1] }] }],
        },
      ],
    })
    assert.equal(closed.errorCode, 0)
    assert.equal(closed.responses[0]!.partitions[0]!.acknowledgeErrorCode, 0)
    assert.equal((await shareFetch(b, 'member-b', 2)).errorCode, 122) // SHARE_SESSION_NOT_FOUND
  })
})
