// Produce (0) and Fetch (1) over real services on a temp dir (metadata store, logs, controller,
// broker config), every request and answer going through the message codec at the version under
// test: Produce v13 names topics by id (KIP-516), a batch refused for some of its records names them
// (KIP-467, v8+), and a Fetch v18 follower behind on the high watermark is answered at once (KIP-1166).
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { Controller } from '../../../src/cluster/controller.js'
import type { LocalMetadataStore } from '../../../src/cluster/local-store.js'
import produce from '../../../src/handlers/00-produce.js'
import fetch from '../../../src/handlers/01-fetch.js'
import type { RequestContext } from '../../../src/handlers/define.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import { type ProduceRequestData, ProduceResponse, type ProduceResponseData } from '../../../src/protocol/messages/00-produce.js'
import { type FetchRequestData, FetchResponse, type FetchResponseData } from '../../../src/protocol/messages/01-fetch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { iterateBatches } from '../../../src/protocol/records/iterator.js'
import type { Encodable } from '../../../src/protocol/schema.js'
import type { ReplicaManager } from '../../../src/replication/replica-manager.js'
import type { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import type { ReplicaSync } from '../../../src/replication/replica-sync.js'
import { openLocalBroker, testConn } from '../../helpers/local-broker.js'

const code = (name: keyof typeof ErrorCode) => ErrorCode[name].code
const HOUR = 3_600_000

interface Harness {
  clock: ManualClock
  store: LocalMetadataStore
  sync: ReplicaSync
  controller: Controller
  replicas: ReplicaManager
  services: BrokerServices
  close(): Promise<void>
}

async function open(dir: string): Promise<Harness> {
  const { clock, store, configs, replicas, controller, sync, close } = await openLocalBroker(dir)
  const services = {
    nodeId: 0,
    clock,
    logger: silentLogger,
    settings: { messageMaxBytes: 1048588, fetchMaxBytes: 1 << 20, autoCreateTopics: true, deleteTopicEnable: true },
    topics: controller,
    replicas,
    configs,
  } as unknown as BrokerServices
  return {
    clock,
    store,
    sync,
    controller,
    replicas,
    services,
    close,
  }
}

const conn = testConn

async function send(h: Harness, version: number, req: Encodable<ProduceRequestData>): Promise<ProduceResponseData> {
  const decoded = produce.request.decode(version, produce.request.encode(version, req))
  const ctx: RequestContext = {
    header: { apiKey: 0, apiVersion: version, correlationId: 1, clientId: 't', bodyOffset: 0 },
    apiVersion: version,
    conn: conn(),
    broker: h.services,
    apis: [],
  }
  const res = await produce.handle(ctx, decoded)
  assert.ok(res !== null)
  return ProduceResponse.decode(version, ProduceResponse.encode(version, res as Encodable<ProduceResponseData>))
}

async function sendFetch(h: Harness, version: number, req: Encodable<FetchRequestData>): Promise<FetchResponseData> {
  const decoded = fetch.request.decode(version, fetch.request.encode(version, req))
  const ctx: RequestContext = {
    header: { apiKey: 1, apiVersion: version, correlationId: 1, clientId: 't', bodyOffset: 0 },
    apiVersion: version,
    conn: conn(),
    broker: h.services,
    apis: [],
  }
  const res = await fetch.handle(ctx, decoded)
  assert.ok(res !== null)
  return FetchResponse.decode(version, FetchResponse.encode(version, res as Encodable<FetchResponseData>))
}

async function createTopic(h: Harness, name: string, configs: Record<string, string> = {}) {
  await h.controller.create(
    {
      name,
      numPartitions: 2,
      replicationFactor: 1,
      assignments: [],
      configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })),
    },
    false,
  )
  return h.controller.get(name)!.topicId
}

const batch = (records: Array<{ key: string | null; timestamp: number }>) =>
  buildRecordBatch({
    records: records.map((r, i) => ({
      key: r.key === null ? null : Buffer.from(r.key),
      value: Buffer.from(`v${i}`),
      timestamp: r.timestamp,
    })),
  })

const request = (topic: { name?: string; topicId?: string }, index: number, records: Buffer) => ({
  transactionalId: null,
  acks: -1,
  timeoutMs: 1000,
  topicData: [{ ...topic, partitionData: [{ index, records }] }],
})

describe('Produce handler', () => {
  let dir: string
  let h: Harness

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-produce-'))
    h = await open(dir)
  })

  afterEach(async () => {
    await h.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('v13 names the topic by id and answers by id', async () => {
    const topicId = await createTopic(h, 'by-id')
    const now = h.clock.now()
    const res = await send(h, 13, request({ topicId }, 1, batch([{ key: 'k', timestamp: now }])))
    assert.equal(res.responses.length, 1)
    const t = res.responses[0]!
    assert.equal(t.topicId, topicId)
    assert.equal(t.name, '', 'no name in a v13 answer')
    assert.equal(t.partitionResponses[0]!.errorCode, 0)
    assert.equal(t.partitionResponses[0]!.baseOffset, 0)
    const stored = await h.replicas.read(h.replicas.require('by-id', 1), 0, 1 << 20, true)
    assert.equal([...iterateBatches(stored.records)].length, 1, 'the batch reached by-id-1')
    // v12 is v11's layout, by name.
    const v12 = await send(h, 12, request({ name: 'by-id' }, 1, batch([{ key: 'k', timestamp: now }])))
    assert.equal(v12.responses[0]!.name, 'by-id')
    assert.equal(v12.responses[0]!.partitionResponses[0]!.baseOffset, 1)
  })

  it('v13 with an unknown (or zero) topic id is UNKNOWN_TOPIC_ID for each partition, and creates nothing', async () => {
    await createTopic(h, 'known')
    const records = batch([{ key: 'k', timestamp: h.clock.now() }])
    for (const topicId of ['AAECAwQFBgcICQoLDA0ODw', 'AAAAAAAAAAAAAAAAAAAAAA']) {
      const res = await send(h, 13, {
        transactionalId: null,
        acks: 1,
        timeoutMs: 1000,
        topicData: [
          {
            topicId,
            partitionData: [
              { index: 0, records },
              { index: 1, records },
            ],
          },
        ],
      })
      assert.equal(res.responses[0]!.topicId, topicId)
      assert.deepEqual(
        res.responses[0]!.partitionResponses.map((p) => [p.index, p.errorCode, p.baseOffset]),
        [
          [0, code('UNKNOWN_TOPIC_ID'), -1],
          [1, code('UNKNOWN_TOPIC_ID'), -1],
        ],
      )
    }
    assert.deepEqual(
      h.controller.list().map((t) => t.name),
      ['known'],
    )
  })

  it('v13 by id reaches an unknown partition as UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const topicId = await createTopic(h, 'two')
    const res = await send(h, 13, request({ topicId }, 7, batch([{ key: 'k', timestamp: h.clock.now() }])))
    assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, code('UNKNOWN_TOPIC_OR_PARTITION'))
  })

  it('a keyless record on a compacted topic: record_errors with its index, at v8 and every later version', async () => {
    const topicId = await createTopic(h, 'compacted', { 'cleanup.policy': 'compact' })
    const now = h.clock.now()
    const keyMessage = 'Compacted topic cannot accept message without key in topic partition compacted-0'
    for (const version of [8, 9, 11, 12, 13]) {
      const records = batch([
        { key: 'a', timestamp: now },
        { key: null, timestamp: now },
        { key: 'c', timestamp: now },
      ])
      const res = await send(h, version, request(version >= 13 ? { topicId } : { name: 'compacted' }, 0, records))
      const p = res.responses[0]!.partitionResponses[0]!
      assert.equal(p.errorCode, code('INVALID_RECORD'), `v${version}`)
      assert.deepEqual(p.recordErrors, [{ batchIndex: 1, batchIndexErrorMessage: keyMessage }], `v${version}`)
      assert.equal(
        p.errorMessage,
        `One or more records have been rejected due to 1 record errors in total, and only showing the first three errors at most: [RecordError(batchIndex=1, message='${keyMessage}')]`,
        `v${version}`,
      )
      assert.equal(p.baseOffset, -1)
    }
    // Before v8 the answer has no room for them: the error code alone.
    const v7 = await send(h, 7, request({ name: 'compacted' }, 0, batch([{ key: null, timestamp: now }])))
    assert.equal(v7.responses[0]!.partitionResponses[0]!.errorCode, code('INVALID_RECORD'))
    assert.deepEqual(v7.responses[0]!.partitionResponses[0]!.recordErrors, [])
    // Nothing of the refused batches was stored.
    assert.equal(h.replicas.require('compacted', 0).log.logEndOffset, 0)
  })

  it('records outside message.timestamp.before/after.max.ms: record_errors for each, INVALID_TIMESTAMP', async () => {
    await createTopic(h, 'bounded', { 'message.timestamp.before.max.ms': String(HOUR), 'message.timestamp.after.max.ms': String(HOUR) })
    const now = h.clock.now()
    const res = await send(
      h,
      9,
      request(
        { name: 'bounded' },
        1,
        batch([
          { key: 'a', timestamp: now - 2 * HOUR },
          { key: 'b', timestamp: now },
          { key: 'c', timestamp: now + 2 * HOUR },
        ]),
      ),
    )
    const p = res.responses[0]!.partitionResponses[0]!
    assert.equal(p.errorCode, code('INVALID_TIMESTAMP'))
    assert.equal(p.errorMessage, 'One or more records have been rejected due to invalid timestamp')
    const bounds = `[${now - HOUR}, ${now + HOUR}]`
    assert.deepEqual(p.recordErrors, [
      {
        batchIndex: 0,
        batchIndexErrorMessage: `Timestamp ${now - 2 * HOUR} of message with offset 0 is out of range. The timestamp should be within ${bounds}`,
      },
      {
        batchIndex: 2,
        batchIndexErrorMessage: `Timestamp ${now + 2 * HOUR} of message with offset 2 is out of range. The timestamp should be within ${bounds}`,
      },
    ])
  })

  it('errors that are not about records carry no record errors', async () => {
    await createTopic(h, 'plain')
    const res = await send(
      h,
      9,
      request({ name: 'plain' }, 0, Buffer.from('not a batch at all, long enough to be read as one....................')),
    )
    const p = res.responses[0]!.partitionResponses[0]!
    assert.notEqual(p.errorCode, 0)
    assert.deepEqual(p.recordErrors, [])
  })
})

describe('Fetch handler v18 (KIP-1166)', () => {
  let dir: string
  let h: Harness

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-fetch-'))
    h = await open(dir)
  })

  afterEach(async () => {
    await h.close()
    await rm(dir, { recursive: true, force: true })
  })

  /** A follower's long-poll at the log end (nothing to read), telling the high watermark it knows (or not). */
  const followerFetch = (topicId: string, fetchOffset: number, highWatermark?: number) =>
    sendFetch(h, 18, {
      replicaState: { replicaId: 1, replicaEpoch: -1 },
      maxWaitMs: 30_000,
      minBytes: 1,
      maxBytes: 1 << 20,
      topics: [
        {
          topicId,
          partitions: [
            { partition: 0, fetchOffset, partitionMaxBytes: 1 << 20, ...(highWatermark === undefined ? {} : { highWatermark }) },
          ],
        },
      ],
    })

  it('a follower behind on the high watermark is answered at once; one that is not waits', async () => {
    const topicId = await createTopic(h, 'replicated')
    const p = h.replicas.require('replicated', 0)
    // Broker 1 follows; the ISR is the leader alone, so the high watermark follows the leader's log.
    const current = h.store.partitionState('replicated', 0)!
    await h.store.alterPartition({ topic: 'replicated', partition: 0, expected: current, next: { ...current, replicas: [0, 1], isr: [0] } })
    await h.sync.settled('replicated')
    const appended = await send(h, 9, { ...request({ name: 'replicated' }, 0, batch([{ key: 'k', timestamp: h.clock.now() }])), acks: 1 })
    assert.equal(appended.responses[0]!.partitionResponses[0]!.errorCode, 0)
    assert.equal(p.log.highWatermark, 1)

    // The follower has the record (fetches from 1) but knows high watermark 0: it learns 1 now,
    // with no record to send and the clock not moved.
    const behind = await followerFetch(topicId, 1, 0)
    const part = behind.responses[0]!.partitions[0]!
    assert.equal(part.errorCode, 0)
    assert.equal(part.highWatermark, 1)
    assert.equal(part.records?.length ?? 0, 0)

    // Knowing 1 (or not saying, as before v18), the same fetch long-polls until max_wait_ms.
    for (const hw of [1, undefined]) {
      let done = false
      const waiting = followerFetch(topicId, 1, hw).then((r) => {
        done = true
        return r
      })
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
      assert.equal(done, false, `highWatermark ${hw}: still waiting`)
      h.clock.advance(30_000)
      assert.equal((await waiting).responses[0]!.partitions[0]!.highWatermark, 1)
    }
  })
})
