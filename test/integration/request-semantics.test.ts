// Request semantics that clients rely on, checked over raw sockets against an in-process broker:
// Fetch long-poll woken by an append, min_bytes/max_wait, whole batches from the middle, KIP-74
// max_bytes, fetch sessions (KIP-227), topic ids; ListOffsets specials; CreateTopics validate-only;
// Metadata auto-creation switches; DeleteTopics by id; leader epoch checks.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type RunningBroker, startBroker } from '../../src/index.js'
import { ProduceRequest, ProduceResponse } from '../../src/protocol/messages/00-produce.js'
import { FetchRequest, FetchResponse } from '../../src/protocol/messages/01-fetch.js'
import { ListOffsetsRequest, ListOffsetsResponse } from '../../src/protocol/messages/02-list-offsets.js'
import { MetadataRequest, MetadataResponse } from '../../src/protocol/messages/03-metadata.js'
import { CreateTopicsRequest, CreateTopicsResponse } from '../../src/protocol/messages/19-create-topics.js'
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../../src/protocol/messages/20-delete-topics.js'
import { buildRecordBatch } from '../../src/protocol/records/builder.js'
import { iterateBatches } from '../../src/protocol/records/iterator.js'
import { RawClient } from '../helpers/clients.js'

const T0 = 1_700_000_000_000

function batch(values: string[], baseTimestamp = T0): Buffer {
  return buildRecordBatch({
    baseTimestamp,
    records: values.map((v, i) => ({ key: null, value: Buffer.from(v), timestamp: baseTimestamp + i })),
  })
}

describe('request semantics', () => {
  let broker: RunningBroker
  let c: RawClient

  const createTopic = async (name: string, numPartitions: number) => {
    const res = await c.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 5000,
    })
    assert.equal(res.topics[0]!.errorCode, 0, res.topics[0]!.errorMessage ?? '')
    return res.topics[0]!.topicId
  }

  const produce = async (client: RawClient, topic: string, partition: number, records: Buffer) => {
    const res = await client.request(ProduceRequest, ProduceResponse, 9, {
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
    })
    const p = res.responses[0]!.partitionResponses[0]!
    assert.equal(p.errorCode, 0)
    return p.baseOffset
  }

  const fetchReq = (
    topic: string,
    partitions: Array<{ partition: number; fetchOffset: number; partitionMaxBytes?: number }>,
    extra: object = {},
  ) => ({
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 10_000_000,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic,
        partitions: partitions.map((p) => ({
          partition: p.partition,
          fetchOffset: p.fetchOffset,
          partitionMaxBytes: p.partitionMaxBytes ?? 1_000_000,
        })),
      },
    ],
    ...extra,
  })

  before(async () => {
    broker = await startBroker({ port: 0, config: { 'auto.create.topics.enable': true } })
    c = await RawClient.connect(broker.host, broker.port)
  })

  after(async () => {
    c?.close()
    await broker?.close()
  })

  test('a long-polling fetch is answered as soon as a record is appended', async () => {
    await createTopic('longpoll', 1)
    const waiter = await RawClient.connect(broker.host, broker.port)
    try {
      // Far longer than the client's 10 s response timeout: only the append can answer in time.
      const id = waiter.sendRequest(
        FetchRequest,
        12,
        fetchReq('longpoll', [{ partition: 0, fetchOffset: 0 }], { maxWaitMs: 60_000, minBytes: 1 }),
      )
      assert.ok(id > 0)
      await new Promise((r) => setTimeout(r, 100))
      await produce(c, 'longpoll', 0, batch(['wake']))
      const frame = await waiter.nextFrame(10_000)
      const res = FetchResponse.decode(12, frame.subarray(5)) // header v1: correlation id + empty tags
      const p = res.responses[0]!.partitions[0]!
      assert.equal(p.errorCode, 0)
      assert.equal(p.highWatermark, 1)
      const batches = [...iterateBatches(p.records!)]
      assert.equal(batches.length, 1)
    } finally {
      waiter.close()
    }
  })

  test('with fewer than min_bytes available, the fetch waits max_wait_ms and returns what there is', async () => {
    await createTopic('minbytes', 1)
    await produce(c, 'minbytes', 0, batch(['a', 'b']))
    const res = await c.request(
      FetchRequest,
      FetchResponse,
      11,
      fetchReq('minbytes', [{ partition: 0, fetchOffset: 0 }], { maxWaitMs: 200, minBytes: 10_000_000 }),
    )
    const p = res.responses[0]!.partitions[0]!
    assert.equal(p.errorCode, 0)
    assert.ok(p.records!.length > 0, 'the available batch is returned after the wait')
  })

  test('a fetch from the middle of a batch returns the whole batch; reads stop at max_bytes but give at least one batch (KIP-74)', async () => {
    await createTopic('whole', 2)
    await produce(c, 'whole', 0, batch(['0', '1', '2', '3', '4']))
    await produce(c, 'whole', 0, batch(['5', '6']))
    await produce(c, 'whole', 1, batch(['x']))
    const mid = await c.request(FetchRequest, FetchResponse, 4, fetchReq('whole', [{ partition: 0, fetchOffset: 3 }]))
    const batches = [...iterateBatches(mid.responses[0]!.partitions[0]!.records!)]
    assert.deepEqual(
      batches.map((b) => b.baseOffset),
      [0, 5],
    )

    // max_bytes 1: one whole batch for the first partition, nothing for the second.
    const tiny = await c.request(
      FetchRequest,
      FetchResponse,
      4,
      fetchReq(
        'whole',
        [
          { partition: 0, fetchOffset: 0 },
          { partition: 1, fetchOffset: 0 },
        ],
        { maxBytes: 1 },
      ),
    )
    const [p0, p1] = tiny.responses[0]!.partitions
    assert.deepEqual(
      [...iterateBatches(p0!.records!)].map((b) => b.baseOffset),
      [0],
    )
    assert.equal(p1!.errorCode, 0)
    assert.equal(p1!.records!.length, 0)
    assert.equal(p1!.highWatermark, 1)
  })

  test('partitions read at once (their limits fit in max_bytes) keep KIP-74: one batch past the limit, for the first partition with records only', async () => {
    await createTopic('oversize', 4)
    await produce(c, 'oversize', 1, batch(['a', 'b']))
    await produce(c, 'oversize', 2, batch(['c', 'd']))
    await produce(c, 'oversize', 3, batch(['e']))
    const all = (limit: number, offset0 = 0) =>
      c.request(
        FetchRequest,
        FetchResponse,
        11,
        fetchReq(
          'oversize',
          [0, 1, 2, 3].map((partition) => ({ partition, fetchOffset: partition === 3 ? offset0 : 0, partitionMaxBytes: limit })),
        ),
      )
    // Every limit is 1 byte: partition 0 is empty, 1 is the first with records and gets its batch,
    // 2 and 3 get nothing though they have records.
    const tiny = await all(1)
    const got = tiny.responses[0]!.partitions.map((p) => [
      p.partitionIndex,
      p.errorCode,
      [...iterateBatches(p.records!)].length,
      p.highWatermark,
    ])
    assert.deepEqual(got, [
      [0, 0, 0, 0],
      [1, 0, 1, 2],
      [2, 0, 0, 2],
      [3, 0, 0, 1],
    ])
    // Limits that fit: every partition's batches, read together.
    const roomy = await all(1_000_000)
    assert.deepEqual(
      roomy.responses[0]!.partitions.map((p) => [...iterateBatches(p.records!)].length),
      [0, 1, 1, 1],
    )
  })

  test('fetch sessions: a full fetch makes one, an incremental fetch (from any connection) answers only news', async () => {
    await createTopic('sessions', 2)
    const full = await c.request(
      FetchRequest,
      FetchResponse,
      7,
      fetchReq(
        'sessions',
        [
          { partition: 0, fetchOffset: 0 },
          { partition: 1, fetchOffset: 0 },
        ],
        { sessionId: 0, sessionEpoch: 0 },
      ),
    )
    assert.equal(full.errorCode, 0)
    assert.notEqual(full.sessionId, 0)
    assert.equal(full.responses[0]!.partitions.length, 2)
    await produce(c, 'sessions', 1, batch(['news']))
    // Epoch 1 names no partition and comes from another connection: the session is the broker's.
    const other = await RawClient.connect(broker.host, broker.port)
    try {
      const inc = await other.request(FetchRequest, FetchResponse, 7, {
        ...fetchReq('sessions', []),
        topics: [],
        sessionId: full.sessionId,
        sessionEpoch: 1,
      })
      assert.equal(inc.errorCode, 0)
      assert.equal(inc.sessionId, full.sessionId)
      assert.deepEqual(
        inc.responses.flatMap((t) => t.partitions.map((p) => [t.topic, p.partitionIndex, p.highWatermark])),
        [['sessions', 1, 1]],
      )
    } finally {
      other.close()
    }
    const unknown = await c.request(
      FetchRequest,
      FetchResponse,
      7,
      fetchReq('sessions', [{ partition: 0, fetchOffset: 0 }], { sessionId: 77, sessionEpoch: 1 }),
    )
    assert.equal(unknown.errorCode, 70) // FETCH_SESSION_ID_NOT_FOUND
    // Session id 0 with an incremental epoch names no session either (Kafka's FetchManager).
    const noSession = await c.request(
      FetchRequest,
      FetchResponse,
      7,
      fetchReq('sessions', [{ partition: 0, fetchOffset: 0 }], { sessionId: 0, sessionEpoch: 3 }),
    )
    assert.equal(noSession.errorCode, 70)
    const badEpoch = await c.request(FetchRequest, FetchResponse, 7, {
      ...fetchReq('sessions', []),
      topics: [],
      sessionId: full.sessionId,
      sessionEpoch: 5,
    })
    assert.equal(badEpoch.errorCode, 71) // INVALID_FETCH_SESSION_EPOCH
    // Epoch -1 closes it.
    const closed = await c.request(FetchRequest, FetchResponse, 7, {
      ...fetchReq('sessions', [{ partition: 0, fetchOffset: 0 }]),
      sessionId: full.sessionId,
      sessionEpoch: -1,
    })
    assert.deepEqual([closed.errorCode, closed.sessionId], [0, 0])
    const gone = await c.request(FetchRequest, FetchResponse, 7, {
      ...fetchReq('sessions', []),
      topics: [],
      sessionId: full.sessionId,
      sessionEpoch: 2,
    })
    assert.equal(gone.errorCode, 70)
  })

  test('fetch v13+ names topics by id; an unknown id gets UNKNOWN_TOPIC_ID', async () => {
    const topicId = await createTopic('byid', 1)
    await produce(c, 'byid', 0, batch(['id']))
    const ok = await c.request(FetchRequest, FetchResponse, 13, {
      ...fetchReq('', [{ partition: 0, fetchOffset: 0 }]),
      topics: [{ topicId, partitions: [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 100_000 }] }],
    })
    assert.equal(ok.responses[0]!.topicId, topicId)
    assert.equal(ok.responses[0]!.partitions[0]!.errorCode, 0)
    assert.ok(ok.responses[0]!.partitions[0]!.records!.length > 0)
    const unknown = await c.request(FetchRequest, FetchResponse, 13, {
      ...fetchReq('', [{ partition: 0, fetchOffset: 0 }]),
      topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAg', partitions: [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 100_000 }] }],
    })
    assert.equal(unknown.responses[0]!.partitions[0]!.errorCode, 100)
  })

  test('a stale or future leader epoch is refused (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH)', async () => {
    await createTopic('epochs', 1)
    const fetchAt = (currentLeaderEpoch: number) =>
      c.request(FetchRequest, FetchResponse, 12, {
        ...fetchReq('epochs', []),
        topics: [{ topic: 'epochs', partitions: [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 1000, currentLeaderEpoch }] }],
      })
    assert.equal((await fetchAt(0)).responses[0]!.partitions[0]!.errorCode, 0)
    assert.equal((await fetchAt(5)).responses[0]!.partitions[0]!.errorCode, 75)
    const lo = await c.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
      replicaId: -1,
      topics: [{ name: 'epochs', partitions: [{ partitionIndex: 0, currentLeaderEpoch: 3, timestamp: -1 }] }],
    })
    assert.equal(lo.topics[0]!.partitions[0]!.errorCode, 75)
  })

  test('ListOffsets: earliest, latest, max timestamp, by timestamp, and none in the future', async () => {
    await createTopic('offsets', 1)
    await produce(c, 'offsets', 0, batch(['a', 'b', 'c'], T0)) // timestamps T0..T0+2
    await produce(c, 'offsets', 0, batch(['d', 'e'], T0 + 1000)) // T0+1000, T0+1001
    await produce(c, 'offsets', 0, batch(['f'], T0 + 500)) // out of order: T0+500
    const at = async (timestamp: number) => {
      const res = await c.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
        replicaId: -1,
        topics: [{ name: 'offsets', partitions: [{ partitionIndex: 0, timestamp }] }],
      })
      const p = res.topics[0]!.partitions[0]!
      assert.equal(p.errorCode, 0)
      return { offset: p.offset, timestamp: p.timestamp }
    }
    assert.equal((await at(-2)).offset, 0)
    assert.equal((await at(-1)).offset, 6)
    assert.deepEqual(await at(-3), { offset: 4, timestamp: T0 + 1001 })
    assert.deepEqual(await at(T0 + 1), { offset: 1, timestamp: T0 + 1 })
    assert.deepEqual(await at(T0 + 3), { offset: 3, timestamp: T0 + 1000 })
    assert.deepEqual(await at(T0 + 5000), { offset: -1, timestamp: -1 })
  })

  test('CreateTopics validate_only checks but creates nothing', async () => {
    const res = await c.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [
        { name: 'dry-run', numPartitions: 4, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: '1000' }] },
        { name: 'dry-bad', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'no.such.config', value: '1' }] },
        { name: 'dry-rf', numPartitions: 1, replicationFactor: 3, assignments: [], configs: [] },
      ],
      timeoutMs: 5000,
      validateOnly: true,
    })
    const [ok, bad, rf] = res.topics
    assert.equal(ok!.errorCode, 0)
    assert.equal(ok!.numPartitions, 4)
    assert.equal(ok!.configs!.find((x) => x.name === 'retention.ms')!.value, '1000')
    assert.equal(bad!.errorCode, 40) // INVALID_CONFIG
    assert.equal(rf!.errorCode, 38) // INVALID_REPLICATION_FACTOR
    const md = await c.request(MetadataRequest, MetadataResponse, 12, {
      topics: [{ name: 'dry-run' }],
      allowAutoTopicCreation: false,
    })
    assert.equal(md.topics[0]!.errorCode, 3, 'validate-only created nothing')
  })

  test('Metadata creates a missing topic only when the client allows it', async () => {
    const refused = await c.request(MetadataRequest, MetadataResponse, 9, { topics: [{ name: 'auto-no' }], allowAutoTopicCreation: false })
    assert.equal(refused.topics[0]!.errorCode, 3)
    const created = await c.request(MetadataRequest, MetadataResponse, 9, { topics: [{ name: 'auto-yes' }], allowAutoTopicCreation: true })
    assert.equal(created.topics[0]!.errorCode, 0)
    assert.equal(created.topics[0]!.partitions.length, 1) // num.partitions default
    const invalid = await c.request(MetadataRequest, MetadataResponse, 9, { topics: [{ name: 'bad name' }], allowAutoTopicCreation: true })
    assert.equal(invalid.topics[0]!.errorCode, 17)
    const all = await c.request(MetadataRequest, MetadataResponse, 1, { topics: null })
    assert.ok(all.topics.some((t) => t.name === 'auto-yes'))
    assert.ok(!all.topics.some((t) => t.name === 'auto-no'))
  })

  test('pipelined produces to a topic being auto-created are appended in the order sent', async () => {
    const ids = [0, 1, 2, 3, 4].map((i) =>
      c.sendRequest(ProduceRequest, 9, {
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: 'auto-ordered', partitionData: [{ index: 0, records: batch([`m${i}`]) }] }],
      }),
    )
    const offsets: number[] = []
    for (const _ of ids) {
      const frame = await c.nextFrame()
      const res = ProduceResponse.decode(9, frame.subarray(5))
      const p = res.responses[0]!.partitionResponses[0]!
      assert.equal(p.errorCode, 0)
      offsets.push(p.baseOffset)
    }
    assert.deepEqual(offsets, [0, 1, 2, 3, 4])
  })

  test('Metadata below v12 cannot name a topic by id: INVALID_REQUEST, and the connection stays usable', async () => {
    const topicId = await createTopic('md-by-id', 1)
    for (const version of [10, 11]) {
      const res = await c.request(MetadataRequest, MetadataResponse, version, {
        topics: [{ topicId, name: '' }],
        allowAutoTopicCreation: false,
      })
      assert.equal(res.topics[0]!.errorCode, 42, `v${version}`)
    }
    const v12 = await c.request(MetadataRequest, MetadataResponse, 12, { topics: [{ topicId, name: null }], allowAutoTopicCreation: false })
    assert.equal(v12.topics[0]!.errorCode, 0)
    assert.equal(v12.topics[0]!.name, 'md-by-id')
  })

  test('DeleteTopics v6 deletes by id, and the name is free again', async () => {
    const topicId = await createTopic('doomed', 2)
    const res = await c.request(DeleteTopicsRequest, DeleteTopicsResponse, 6, { topics: [{ name: null, topicId }], timeoutMs: 5000 })
    assert.equal(res.responses[0]!.errorCode, 0)
    assert.equal(res.responses[0]!.name, 'doomed')
    const again = await c.request(DeleteTopicsRequest, DeleteTopicsResponse, 6, { topics: [{ name: null, topicId }], timeoutMs: 5000 })
    assert.equal(again.responses[0]!.errorCode, 100) // UNKNOWN_TOPIC_ID
    const recreated = await createTopic('doomed', 1)
    assert.notEqual(recreated, topicId, 'a new topic gets a new id')
  })
})
