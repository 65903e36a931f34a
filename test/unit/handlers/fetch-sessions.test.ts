// Fetch sessions (KIP-227) through the Fetch handler over real services on a temp dir, every
// request and answer through the codec: a full fetch makes a session, incremental fetches name only
// what changed (new partitions, new offsets, forgotten topics) and are answered only with the
// partitions that have news; the epochs and the session errors; a session from another connection;
// the bounded cache answering sessionless when full.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import produce from '../../../src/handlers/00-produce.js'
import fetch from '../../../src/handlers/01-fetch.js'
import type { RequestContext } from '../../../src/handlers/define.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import { type FetchRequestData, FetchResponse, type FetchResponseData } from '../../../src/protocol/messages/01-fetch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import type { Encodable } from '../../../src/protocol/schema.js'
import { BrokerFetchSessionCache } from '../../../src/replication/fetch-session-cache.js'
import { silentLogger } from '../../../src/util/logger.js'
import { callHandler, type LocalBroker, openLocalBroker, testConn } from '../../helpers/local-broker.js'

const code = (name: keyof typeof ErrorCode) => ErrorCode[name].code
const MAX = 1 << 20

interface Harness {
  broker: LocalBroker
  cache: BrokerFetchSessionCache
  services: BrokerServices
}

async function open(dir: string, slots = 1000): Promise<Harness> {
  const broker = await openLocalBroker(dir)
  const cache = new BrokerFetchSessionCache(slots, 120_000)
  const services = {
    nodeId: 0,
    clock: broker.clock,
    logger: silentLogger,
    settings: { messageMaxBytes: 1048588, fetchMaxBytes: MAX, autoCreateTopics: true, deleteTopicEnable: true },
    topics: broker.controller,
    replicas: broker.replicas,
    configs: broker.configs,
    fetchSessions: cache,
  } as unknown as BrokerServices
  return { broker, cache, services }
}

/** The fetch through the codec at `version`, on a connection of id `connId`; throttle hooks collected. */
async function sendFetch(
  h: Harness,
  version: number,
  req: Encodable<FetchRequestData>,
  opts: { connId?: number; throttled?: Array<() => void> } = {},
): Promise<FetchResponseData> {
  const decoded = fetch.request.decode(version, fetch.request.encode(version, req))
  const ctx: RequestContext = {
    header: { apiKey: 1, apiVersion: version, correlationId: 1, clientId: 't', bodyOffset: 0 },
    apiVersion: version,
    conn: testConn({ id: opts.connId ?? 1 }),
    broker: h.services,
    apis: [],
    ...(opts.throttled ? { onThrottled: (fn: () => void) => opts.throttled!.push(fn) } : {}),
  }
  const res = await fetch.handle(ctx, decoded)
  assert.ok(res !== null)
  return FetchResponse.decode(version, FetchResponse.encode(version, res as Encodable<FetchResponseData>))
}

async function createTopic(h: Harness, name: string, numPartitions: number): Promise<string> {
  await h.broker.controller.create({ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }, false)
  return h.broker.controller.get(name)!.topicId
}

async function append(h: Harness, topic: string, partition: number, n = 1): Promise<void> {
  const records = buildRecordBatch({
    records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`v${i}`), timestamp: h.broker.clock.now() })),
  })
  const res = await callHandler(h.services, produce, 9, {
    transactionalId: null,
    acks: -1,
    timeoutMs: 1000,
    topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
  })
  assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, 0)
}

const part = (partition: number, fetchOffset: number) => ({ partition, fetchOffset, partitionMaxBytes: MAX })

/** A fetch by name (v7–12) that never waits. */
const byName = (
  sessionId: number,
  sessionEpoch: number,
  topics: FetchRequestData['topics'] = [],
  forgotten: FetchRequestData['forgottenTopicsData'] = [],
) =>
  ({
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: MAX,
    sessionId,
    sessionEpoch,
    topics,
    forgottenTopicsData: forgotten,
  }) as unknown as Encodable<FetchRequestData>

/** [topic, partition, records?, highWatermark] of each answered partition, in order. */
const answered = (res: FetchResponseData) =>
  res.responses.flatMap((t) =>
    t.partitions.map((p) => [t.topic || t.topicId, p.partitionIndex, (p.records?.length ?? 0) > 0, p.highWatermark, p.errorCode]),
  )

describe('Fetch sessions (KIP-227)', () => {
  let dir: string
  let h: Harness

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-fetch-sessions-'))
    h = await open(dir)
  })

  afterEach(async () => {
    await h.broker.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('a full fetch makes a session; incremental fetches answer only the partitions with news', async () => {
    await createTopic(h, 's', 3)
    await append(h, 's', 0)
    const full = await sendFetch(h, 12, byName(0, 0, [{ topic: 's', partitions: [part(0, 0), part(1, 0), part(2, 0)] }] as never))
    assert.equal(full.errorCode, 0)
    assert.notEqual(full.sessionId, 0, 'a session was made')
    assert.deepEqual(answered(full), [
      ['s', 0, true, 1, 0],
      ['s', 1, false, 0, 0],
      ['s', 2, false, 0, 0],
    ])
    assert.equal(h.cache.size, 1)
    assert.equal(h.cache.totalPartitions, 3)
    const id = full.sessionId

    // Epoch 1, nothing named: partition 0 still has its record at offset 0 (the session's fetch
    // offset), the others have nothing new.
    const e1 = await sendFetch(h, 12, byName(id, 1))
    assert.equal(e1.sessionId, id)
    assert.deepEqual(answered(e1), [['s', 0, true, 1, 0]])

    // Epoch 2: the consumer moved partition 0 to offset 1; partition 2 got a record.
    await append(h, 's', 2, 2)
    const e2 = await sendFetch(h, 12, byName(id, 2, [{ topic: 's', partitions: [part(0, 1)] }] as never))
    assert.deepEqual(answered(e2), [['s', 2, true, 2, 0]], 'partition 0 (nothing new, same high watermark) is left out')

    // Epoch 3 from another connection: the session is the broker's, not the connection's.
    await append(h, 's', 1)
    const e3 = await sendFetch(h, 12, byName(id, 3, [{ topic: 's', partitions: [part(2, 2)] }] as never), { connId: 2 })
    assert.deepEqual(answered(e3), [['s', 1, true, 1, 0]])
  })

  it('new partitions join the session, forgotten ones leave it; forgetting all closes it', async () => {
    await createTopic(h, 'a', 2)
    await createTopic(h, 'b', 1)
    const full = await sendFetch(h, 12, byName(0, 0, [{ topic: 'a', partitions: [part(0, 0)] }] as never))
    const id = full.sessionId
    assert.notEqual(id, 0)
    // A new partition is answered at once (the fetcher has not been told its offsets).
    const e1 = await sendFetch(h, 12, byName(id, 1, [{ topic: 'b', partitions: [part(0, 0)] }] as never))
    assert.deepEqual(answered(e1), [['b', 0, false, 0, 0]])
    assert.equal(h.cache.totalPartitions, 2)
    // a-0 forgotten: its records are no longer read.
    await append(h, 'a', 0)
    await append(h, 'b', 0)
    const e2 = await sendFetch(h, 12, byName(id, 2, [], [{ topic: 'a', partitions: [0] }] as never))
    assert.deepEqual(answered(e2), [['b', 0, true, 1, 0]])
    assert.equal(h.cache.totalPartitions, 1)
    // Forgetting the last one closes the session: the fetch is answered sessionless.
    const e3 = await sendFetch(h, 12, byName(id, 3, [], [{ topic: 'b', partitions: [0] }] as never))
    assert.equal(e3.errorCode, 0)
    assert.equal(e3.sessionId, 0)
    assert.equal(h.cache.size, 0)
    const after = await sendFetch(h, 12, byName(id, 4))
    assert.equal(after.errorCode, code('FETCH_SESSION_ID_NOT_FOUND'))
  })

  it('session errors: unknown id, wrong epoch, the other side of v13; none carries partitions', async () => {
    const topicId = await createTopic(h, 'e', 1)
    const unknown = await sendFetch(h, 12, byName(12345, 1))
    assert.deepEqual([unknown.errorCode, unknown.sessionId, unknown.responses.length], [code('FETCH_SESSION_ID_NOT_FOUND'), 0, 0])
    // Session id 0 with an incremental epoch names no session either.
    assert.equal((await sendFetch(h, 12, byName(0, 3))).errorCode, code('FETCH_SESSION_ID_NOT_FOUND'))

    const full = await sendFetch(h, 12, byName(0, 0, [{ topic: 'e', partitions: [part(0, 0)] }] as never))
    const wrong = await sendFetch(h, 12, byName(full.sessionId, 2))
    assert.deepEqual([wrong.errorCode, wrong.sessionId, wrong.responses.length], [code('INVALID_FETCH_SESSION_EPOCH'), 0, 0])
    // The wrong epoch did not move the session on: epoch 1 still works.
    assert.equal((await sendFetch(h, 12, byName(full.sessionId, 1))).errorCode, 0)
    // Replaying epoch 1 is a wrong epoch now.
    assert.equal((await sendFetch(h, 12, byName(full.sessionId, 1))).errorCode, code('INVALID_FETCH_SESSION_EPOCH'))

    // A session made by name may not be used at v13 (by id), and one made by id not at v12.
    assert.equal((await sendFetch(h, 13, byName(full.sessionId, 2))).errorCode, code('FETCH_SESSION_TOPIC_ID_ERROR'))
    const fullById = await sendFetch(h, 13, byName(0, 0, [{ topicId, partitions: [part(0, 0)] }] as never))
    assert.notEqual(fullById.sessionId, 0)
    assert.equal((await sendFetch(h, 12, byName(fullById.sessionId, 1))).errorCode, code('FETCH_SESSION_TOPIC_ID_ERROR'))
    assert.equal((await sendFetch(h, 13, byName(fullById.sessionId, 1))).errorCode, 0)
  })

  it('epoch -1 closes the named session and makes none; epoch 0 with a session id replaces it', async () => {
    await createTopic(h, 'c', 1)
    const topics = [{ topic: 'c', partitions: [part(0, 0)] }] as never
    const sessionless = await sendFetch(h, 12, byName(0, -1, topics))
    assert.deepEqual([sessionless.sessionId, answered(sessionless)], [0, [['c', 0, false, 0, 0]]])
    assert.equal(h.cache.size, 0, 'session id 0 with epoch -1 makes no session')

    const first = await sendFetch(h, 12, byName(0, 0, topics))
    const second = await sendFetch(h, 12, byName(first.sessionId, 0, topics))
    assert.notEqual(second.sessionId, 0)
    assert.notEqual(second.sessionId, first.sessionId)
    assert.equal(h.cache.size, 1, 'the first session was closed')
    assert.equal((await sendFetch(h, 12, byName(first.sessionId, 1))).errorCode, code('FETCH_SESSION_ID_NOT_FOUND'))

    const closed = await sendFetch(h, 12, byName(second.sessionId, -1, topics))
    assert.deepEqual([closed.errorCode, closed.sessionId, answered(closed)], [0, 0, [['c', 0, false, 0, 0]]])
    assert.equal(h.cache.size, 0)
  })

  it('v13 sessions by topic id; a deleted topic answers its error at every fetch', async () => {
    const topicId = await createTopic(h, 'ids', 2)
    const full = await sendFetch(h, 13, byName(0, 0, [{ topicId, partitions: [part(0, 0), part(1, 0)] }] as never))
    assert.equal(full.responses[0]!.topicId, topicId)
    await append(h, 'ids', 1)
    const e1 = await sendFetch(h, 13, byName(full.sessionId, 1))
    assert.deepEqual(answered(e1), [[topicId, 1, true, 1, 0]])

    await h.broker.controller.delete('ids')
    for (const epoch of [2, 3]) {
      const gone = await sendFetch(h, 13, byName(full.sessionId, epoch))
      assert.deepEqual(answered(gone), [
        [topicId, 0, false, -1, code('UNKNOWN_TOPIC_ID')],
        [topicId, 1, false, -1, code('UNKNOWN_TOPIC_ID')],
      ])
    }
  })

  it('a partition that returned records moves to the end of the session order', async () => {
    await createTopic(h, 'r', 3)
    const full = await sendFetch(h, 12, byName(0, 0, [{ topic: 'r', partitions: [part(0, 0), part(1, 0), part(2, 0)] }] as never))
    for (const p of [0, 1, 2]) await append(h, 'r', p)
    const e1 = await sendFetch(h, 12, byName(full.sessionId, 1))
    assert.deepEqual(
      answered(e1).map((a) => a[1]),
      [0, 1, 2],
    )
    // All three returned records and moved to the end in that order: still 0, 1, 2. Now only 0
    // returns records: it goes to the end, after 1 and 2.
    await append(h, 'r', 0)
    const e2 = await sendFetch(
      h,
      12,
      byName(full.sessionId, 2, [{ topic: 'r', partitions: [part(0, 1), part(1, 1), part(2, 1)] }] as never),
    )
    assert.deepEqual(answered(e2), [['r', 0, true, 2, 0]])
    await append(h, 'r', 1)
    await append(h, 'r', 2)
    const e3 = await sendFetch(h, 12, byName(full.sessionId, 3))
    assert.deepEqual(
      answered(e3).map((a) => a[1]),
      [1, 2, 0],
      'the order after 0 moved to the end',
    )
  })

  it('a throttled (emptied) response: what it would have told is sent again', async () => {
    await createTopic(h, 't', 2)
    const full = await sendFetch(h, 12, byName(0, 0, [{ topic: 't', partitions: [part(0, 0), part(1, 0)] }] as never))
    await append(h, 't', 1)
    const throttled: Array<() => void> = []
    const e1 = await sendFetch(h, 12, byName(full.sessionId, 1, [{ topic: 't', partitions: [part(1, 1)] }] as never), { throttled })
    assert.deepEqual(answered(e1), [['t', 1, false, 1, 0]])
    // Without the throttle, the next fetch has no news …
    const e2 = await sendFetch(h, 12, byName(full.sessionId, 2))
    assert.deepEqual(answered(e2), [])
    // … but had e1 been emptied by a quota, its high watermark is sent again.
    for (const fn of throttled) fn()
    const e3 = await sendFetch(h, 12, byName(full.sessionId, 3))
    assert.deepEqual(answered(e3), [['t', 1, false, 1, 0]])
  })

  it('a duplicate incremental fetch during a long poll: the first is answered INVALID_FETCH_SESSION_EPOCH', async () => {
    await createTopic(h, 'd', 1)
    const full = await sendFetch(h, 12, byName(0, 0, [{ topic: 'd', partitions: [part(0, 0)] }] as never))
    const waiting = sendFetch(h, 12, { ...(byName(full.sessionId, 1) as object), maxWaitMs: 30_000, minBytes: 1 } as never)
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
    // The client gave up and sent epoch 2 (as if epoch 1 had been answered).
    const next = await sendFetch(h, 12, byName(full.sessionId, 2))
    assert.equal(next.errorCode, 0)
    h.broker.clock.advance(30_000)
    const first = await waiting
    assert.deepEqual([first.errorCode, first.sessionId, first.responses.length], [code('INVALID_FETCH_SESSION_EPOCH'), full.sessionId, 0])
  })
})

describe('Fetch sessions: a Kafka follower', () => {
  let dir: string
  let h: Harness

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-fetch-sessions-'))
    h = await open(dir)
  })

  afterEach(async () => {
    await h.broker.close()
    await rm(dir, { recursive: true, force: true })
  })

  it("a follower's session (replica id 1) reads to the log end and records the follower's position", async () => {
    await createTopic(h, 'rep', 1)
    const current = h.broker.store.partitionState('rep', 0)!
    await h.broker.store.alterPartition({
      topic: 'rep',
      partition: 0,
      expected: current,
      next: { ...current, replicas: [0, 1], isr: [0, 1] },
    })
    await h.broker.sync.settled('rep')
    const follower = (sessionId: number, sessionEpoch: number, topics: FetchRequestData['topics'] = []) =>
      sendFetch(h, 12, { ...(byName(sessionId, sessionEpoch, topics) as object), replicaId: 1 } as never)
    const full = await follower(0, 0, [{ topic: 'rep', partitions: [part(0, 0)] }] as never)
    assert.notEqual(full.sessionId, 0)
    assert.equal(h.cache.get(full.sessionId)?.privileged, true)
    // acks=1: the record is at the leader's log end; the high watermark waits for the follower.
    const records = buildRecordBatch({ records: [{ key: null, value: Buffer.from('r'), timestamp: h.broker.clock.now() }] })
    const produced = await callHandler(h.services, produce, 9, {
      transactionalId: null,
      acks: 1,
      timeoutMs: 1000,
      topicData: [{ name: 'rep', partitionData: [{ index: 0, records }] }],
    })
    assert.equal(produced.responses[0]!.partitionResponses[0]!.errorCode, 0)
    const p = h.broker.replicas.require('rep', 0)
    assert.equal(p.log.highWatermark, 0)
    const e1 = await follower(full.sessionId, 1)
    assert.deepEqual(answered(e1), [['rep', 0, true, 0, 0]], 'the record, below the high watermark')
    // The follower moved to offset 1: the leader learns it and the high watermark advances.
    const e2 = await follower(full.sessionId, 2, [{ topic: 'rep', partitions: [part(0, 1)] }] as never)
    assert.equal(p.log.highWatermark, 1)
    assert.deepEqual(answered(e2), [['rep', 0, false, 1, 0]])
  })
})

describe('Fetch sessions: a full cache', () => {
  let dir: string
  let h: Harness

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-fetch-sessions-'))
    h = await open(dir, 1)
  })

  afterEach(async () => {
    await h.broker.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('a full fetch that finds no room is answered sessionless; a follower evicts a consumer', async () => {
    await createTopic(h, 'f', 2)
    const topics = [{ topic: 'f', partitions: [part(0, 0), part(1, 0)] }] as never
    const consumer = await sendFetch(h, 12, byName(0, 0, topics))
    assert.notEqual(consumer.sessionId, 0)
    const other = await sendFetch(h, 12, byName(0, 0, topics))
    assert.deepEqual([other.errorCode, other.sessionId, answered(other).length], [0, 0, 2], 'no room: answered in full, session id 0')
    assert.equal(h.cache.get(consumer.sessionId)?.id, consumer.sessionId, 'the first session stays')

    const follower = await sendFetch(h, 12, {
      ...(byName(0, 0, [{ topic: 'f', partitions: [part(0, 0)] }] as never) as object),
      replicaId: 1,
    } as never)
    assert.notEqual(follower.sessionId, 0, "a follower's session ranks above a consumer's")
    assert.equal(h.cache.evictions, 1)
    assert.equal((await sendFetch(h, 12, byName(consumer.sessionId, 1))).errorCode, code('FETCH_SESSION_ID_NOT_FOUND'))
  })
})
