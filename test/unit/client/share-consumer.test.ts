// The share consumer (src/client/share-consumer.ts) against a scripted broker (fake-kafka.ts):
// the requests it sends, in order and field by field — the member id it made up in every
// request, share-session epochs 0, 1, 2 … and -1 on close, the session's partitions listed only
// when they are new, acknowledgements piggy-backed on the next ShareFetch (explicit ones, and the
// implicit accept of what the application left unacknowledged) in Kafka's batch form, a new
// session after SHARE_SESSION_NOT_FOUND, and the group left with epoch -1.
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { ClientError } from '../../../src/client/errors.js'
import { type AcknowledgementResult, ShareConsumer } from '../../../src/client/share-consumer.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { type FakeKafka, fakeTopicId, startFakeKafka } from './fake-kafka.js'

const TOPIC = 'jobs'
const TOPIC_ID = fakeTopicId(TOPIC)

function batch(baseOffset: number, values: string[]): Buffer {
  return buildRecordBatch({
    baseOffset,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    attributes: 0,
    records: values.map((v) => ({ key: null, value: Buffer.from(v), timestamp: 1000 })),
  })
}

const heartbeat = (body: any) => ({
  throttleTimeMs: 0,
  errorCode: 0,
  errorMessage: null,
  memberId: body.memberId,
  memberEpoch: body.memberEpoch === -1 ? -1 : 1,
  heartbeatIntervalMs: 60_000,
  assignment: body.memberEpoch === 0 ? { topicPartitions: [{ topicId: TOPIC_ID, partitions: [0] }] } : null,
})

const findCoordinator = () => ({
  throttleTimeMs: 0,
  errorCode: 0,
  errorMessage: null,
  nodeId: 0,
  host: '127.0.0.1',
  port: 0,
  coordinators: [{ key: 'g', nodeId: 0, host: '127.0.0.1', port: 0, errorCode: 0, errorMessage: null }],
})

interface FetchAnswer {
  errorCode?: number
  records?: Buffer | null
  acquired?: Array<{ firstOffset: number; lastOffset: number; deliveryCount: number }>
  acknowledgeErrorCode?: number
}

function fetchResponse(a: FetchAnswer) {
  return {
    throttleTimeMs: 0,
    errorCode: a.errorCode ?? 0,
    errorMessage: null,
    acquisitionLockTimeoutMs: 30_000,
    responses:
      a.errorCode !== undefined && a.errorCode !== 0
        ? []
        : [
            {
              topicId: TOPIC_ID,
              partitions: [
                {
                  partitionIndex: 0,
                  errorCode: 0,
                  errorMessage: null,
                  acknowledgeErrorCode: a.acknowledgeErrorCode ?? 0,
                  acknowledgeErrorMessage: null,
                  currentLeader: { leaderId: 0, leaderEpoch: 0 },
                  records: a.records ?? null,
                  acquiredRecords: a.acquired ?? [],
                },
              ],
            },
          ],
    nodeEndpoints: [],
  }
}

const ackResponse = () => ({
  throttleTimeMs: 0,
  errorCode: 0,
  errorMessage: null,
  acquisitionLockTimeoutMs: 30_000,
  responses: [
    {
      topicId: TOPIC_ID,
      partitions: [{ partitionIndex: 0, errorCode: 0, errorMessage: null, currentLeader: { leaderId: 0, leaderEpoch: 0 } }],
    },
  ],
  nodeEndpoints: [],
})

/** A broker whose ShareFetch answers are scripted in order (then empty answers). */
async function broker(fetches: FetchAnswer[]): Promise<FakeKafka> {
  const script = [...fetches]
  return startFakeKafka({
    topics: { [TOPIC]: 1 },
    handlers: {
      10: findCoordinator,
      76: heartbeat,
      78: () => fetchResponse(script.shift() ?? {}),
      79: ackResponse,
    },
  })
}

const requests = (k: FakeKafka, apiKey: number) => k.log.filter((r) => r.apiKey === apiKey).map((r) => r.body)

describe('ShareConsumer', () => {
  let kafka: FakeKafka | undefined
  let consumer: ShareConsumer | undefined
  afterEach(async () => {
    await consumer?.close()
    await kafka?.close()
    consumer = kafka = undefined
  })

  it('fetches in a share session, piggy-backs acknowledgements, closes the session and leaves', async () => {
    kafka = await broker([
      { records: batch(0, ['a', 'b', 'c', 'd']), acquired: [{ firstOffset: 0, lastOffset: 3, deliveryCount: 1 }] },
      { records: batch(4, ['e']), acquired: [{ firstOffset: 4, lastOffset: 4, deliveryCount: 2 }] },
    ])
    const results: AcknowledgementResult[] = []
    consumer = new ShareConsumer({ bootstrap: [kafka.bootstrap], groupId: 'g', maxWaitMs: 10, onAcknowledgement: (r) => results.push(r) })
    await consumer.subscribe([TOPIC])
    assert.deepEqual(consumer.assignment, [{ topic: TOPIC, topicId: TOPIC_ID, partition: 0 }])

    const first = await consumer.poll()
    assert.deepEqual(
      first.map((r) => [r.offset, r.value?.toString(), r.deliveryCount]),
      [
        [0, 'a', 1],
        [1, 'b', 1],
        [2, 'c', 1],
        [3, 'd', 1],
      ],
    )
    assert.equal(consumer.acquisitionLockTimeoutMs, 30_000)
    consumer.acknowledge(first[0]!, 'reject')
    consumer.acknowledge(first[1]!, 'release')
    assert.throws(
      () => consumer!.acknowledge(first[1]!, 'accept'),
      (e: unknown) => e instanceof ClientError && e.code === 'INVALID_RECORD_STATE',
    )
    // 2 and 3 are left: the next poll accepts them.
    const second = await consumer.poll()
    assert.deepEqual(
      second.map((r) => [r.offset, r.deliveryCount]),
      [[4, 2]],
    )
    consumer.acknowledge(second[0]!, 'accept')
    await consumer.close()

    const memberId = consumer.memberId!
    const fetches = requests(kafka, 78)
    assert.equal(fetches.length, 2)
    assert.ok(fetches.every((f) => f.memberId === memberId && f.groupId === 'g'))
    assert.deepEqual(
      fetches.map((f) => f.shareSessionEpoch),
      [0, 1],
    )
    assert.deepEqual(fetches[0].topics, [
      { topicId: TOPIC_ID, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: [] }] },
    ])
    assert.deepEqual(fetches[1].topics, [
      {
        topicId: TOPIC_ID,
        partitions: [
          {
            partitionIndex: 0,
            partitionMaxBytes: 0,
            acknowledgementBatches: [{ firstOffset: 0, lastOffset: 3, acknowledgeTypes: [3, 2, 1, 1] }],
          },
        ],
      },
    ])
    // close(): the last acknowledgement with epoch -1, then the heartbeat that leaves.
    const acks = requests(kafka, 79)
    assert.equal(acks.length, 1)
    assert.equal(acks[0].shareSessionEpoch, -1)
    assert.deepEqual(acks[0].topics, [
      {
        topicId: TOPIC_ID,
        partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 4, lastOffset: 4, acknowledgeTypes: [1] }] }],
      },
    ])
    const beats = requests(kafka, 76)
    assert.equal(beats[0].memberEpoch, 0)
    assert.deepEqual(beats[0].subscribedTopicNames, [TOPIC])
    assert.equal(beats.at(-1).memberEpoch, -1)
    assert.ok(beats.every((b) => b.memberId === memberId))
    assert.match(memberId, /^[A-Za-z0-9_-]{22}$/)
    assert.deepEqual(
      results.map((r) => [r.offsets, r.error]),
      [
        [[0, 1, 2, 3], null],
        [[4], null],
      ],
    )
  })

  it('reports acknowledgements the leader refused with INVALID_RECORD_STATE', async () => {
    kafka = await broker([
      { records: batch(0, ['a']), acquired: [{ firstOffset: 0, lastOffset: 0, deliveryCount: 1 }] },
      { acknowledgeErrorCode: ErrorCode.INVALID_RECORD_STATE.code },
    ])
    const results: AcknowledgementResult[] = []
    consumer = new ShareConsumer({ bootstrap: [kafka.bootstrap], groupId: 'g', maxWaitMs: 10, onAcknowledgement: (r) => results.push(r) })
    await consumer.subscribe([TOPIC])
    const [r] = await consumer.poll()
    consumer.acknowledge(r!, 'accept')
    await consumer.poll()
    assert.deepEqual(results, [{ topic: TOPIC, partition: 0, offsets: [0], error: 'INVALID_RECORD_STATE' }])
  })

  it('opens a new session after SHARE_SESSION_NOT_FOUND', async () => {
    kafka = await broker([{}, { errorCode: ErrorCode.SHARE_SESSION_NOT_FOUND.code }, {}])
    consumer = new ShareConsumer({ bootstrap: [kafka.bootstrap], groupId: 'g', maxWaitMs: 10 })
    await consumer.subscribe([TOPIC])
    for (let i = 0; i < 3; i++) assert.deepEqual(await consumer.poll(), [])
    const fetches = requests(kafka, 78)
    assert.deepEqual(
      fetches.map((f) => f.shareSessionEpoch),
      [0, 1, 0],
    )
    assert.deepEqual(
      fetches.map((f) => f.topics.length),
      [1, 0, 1],
      'a session lists its partitions when it opens, and only then',
    )
  })

  it('joins again with epoch 0 and the same member id after FENCED_MEMBER_EPOCH', async () => {
    let beats = 0
    const assignments: number[] = []
    kafka = await startFakeKafka({
      topics: { [TOPIC]: 1 },
      handlers: {
        10: findCoordinator,
        // join; the heartbeat that acknowledges the assignment is fenced; join again.
        76: (body: any) =>
          ++beats === 2
            ? { ...heartbeat(body), errorCode: ErrorCode.FENCED_MEMBER_EPOCH.code, memberEpoch: -1, assignment: null }
            : heartbeat(body),
        78: () => fetchResponse({}),
      },
    })
    consumer = new ShareConsumer({ bootstrap: [kafka.bootstrap], groupId: 'g', onAssignment: (list) => assignments.push(list.length) })
    await consumer.subscribe([TOPIC])
    for (let i = 0; i < 100 && requests(kafka, 76).length < 4; i++) await new Promise((r) => setTimeout(r, 20))
    const sent = requests(kafka, 76).slice(0, 4)
    assert.deepEqual(
      sent.map((b) => b.memberEpoch),
      [0, 1, 0, 1],
    )
    assert.ok(sent.every((b) => b.memberId === consumer!.memberId))
    assert.deepEqual(sent[2].subscribedTopicNames, [TOPIC], 'a join names the topics again')
    assert.deepEqual(assignments.slice(0, 3), [1, 0, 1])
  })

  it('a commit() during a poll waits its turn in the session: epochs go out in order', async () => {
    kafka = await broker([{ records: batch(0, ['a', 'b']), acquired: [{ firstOffset: 0, lastOffset: 1, deliveryCount: 1 }] }])
    consumer = new ShareConsumer({ bootstrap: [kafka.bootstrap], groupId: 'g', maxWaitMs: 10 })
    await consumer.subscribe([TOPIC])
    for (const r of await consumer.poll()) consumer.acknowledge(r, 'accept')
    const [polled, committed] = await Promise.all([consumer.poll(), consumer.commit()])
    assert.deepEqual(polled, [])
    const sessionRequests = kafka.log.filter((r) => r.apiKey === 78 || r.apiKey === 79).map((r) => r.body.shareSessionEpoch)
    assert.deepEqual(sessionRequests, [0, 1, 2])
    // The acknowledgements went exactly once, in whichever request came first.
    const sentBatches = kafka.log
      .filter((r) => r.apiKey === 78 || r.apiKey === 79)
      .flatMap((r) => r.body.topics.flatMap((t: any) => t.partitions.flatMap((q: any) => q.acknowledgementBatches)))
    assert.deepEqual(sentBatches, [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [1] }])
    assert.ok(committed.length <= 1)
  })

  it('commit() sends the acknowledgements made in a ShareAcknowledge and resolves with their outcome', async () => {
    kafka = await broker([{ records: batch(7, ['x', 'y']), acquired: [{ firstOffset: 7, lastOffset: 8, deliveryCount: 1 }] }])
    consumer = new ShareConsumer({ bootstrap: [kafka.bootstrap], groupId: 'g', maxWaitMs: 10 })
    await consumer.subscribe([TOPIC])
    const records = await consumer.poll()
    for (const r of records) consumer.acknowledge(r, 'accept')
    assert.deepEqual(await consumer.commit(), [{ topic: TOPIC, partition: 0, offsets: [7, 8], error: null }])
    const [ack] = requests(kafka, 79)
    assert.equal(ack.shareSessionEpoch, 1)
    assert.deepEqual(ack.topics[0].partitions[0].acknowledgementBatches, [{ firstOffset: 7, lastOffset: 8, acknowledgeTypes: [1] }])
  })
})
