// ShareFetch (78) and ShareAcknowledge (79) through their codecs and handlers over a real broker
// core (test/helpers/local-broker.ts) with the share-partition leaders of share/share-leaders.ts
// and the in-memory persister: sessions and their errors, acquisition and acknowledgement in one
// request, records answered as whole batches, long polls woken by an append and by a release, the
// final epoch and a closed connection releasing what the member held, a long poll that acquires
// after its member opened a new session giving the records back, and the partition errors.
import { ANONYMOUS } from '../../../src/network/principal.js'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Controller } from '../../../src/cluster/controller.js'
import shareFetch from '../../../src/handlers/78-share-fetch.js'
import shareAcknowledge from '../../../src/handlers/79-share-acknowledge.js'
import type { Handler, RequestContext } from '../../../src/handlers/define.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import { DEFAULT_SHARE_GROUP_SETTINGS, type ShareGroupSettings } from '../../../src/ports/shares.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import type { ShareFetchResponseData } from '../../../src/protocol/messages/78-share-fetch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { iterateBatches, iterateRecords } from '../../../src/protocol/records/iterator.js'
import type { Encodable } from '../../../src/protocol/schema.js'
import type { ReplicaManager } from '../../../src/replication/replica-manager.js'
import { MemorySharePersister } from '../../helpers/memory-share-persister.js'
import { createShareLeaders, type ShareLeaders } from '../../../src/share/share-leaders.js'
import type { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { openLocalBroker } from '../../helpers/local-broker.js'

const E = (n: keyof typeof ErrorCode) => ErrorCode[n].code
const UNKNOWN_ID = 'ZZZZZZZZZZZZZZZZZZZZZQ'

let nextConn = 100
function conn(): { id: number; abort: AbortController } {
  return { id: nextConn++, abort: new AbortController() }
}

async function call<Req, Res>(
  broker: BrokerServices,
  handler: Handler<Req, Res>,
  version: number,
  req: Encodable<Req>,
  c = conn(),
): Promise<Res> {
  const decoded = handler.request.decode(version, handler.request.encode(version, req))
  const after: Array<() => void> = []
  const ctx: RequestContext = {
    header: { apiKey: handler.request.apiKey, apiVersion: version, correlationId: 1, clientId: 't', bodyOffset: 0 },
    apiVersion: version,
    conn: {
      id: c.id,
      remoteAddress: '127.0.0.1',
      remotePort: 1,
      listenerName: 'PLAINTEXT',
      securityProtocol: 'PLAINTEXT',
      principal: ANONYMOUS,
      authenticated: true,
      closed: c.abort.signal,
    },
    broker,
    apis: [],
    afterResponse: (fn) => after.push(fn),
  }
  const res = await handler.handle(ctx, decoded)
  assert.ok(res !== null)
  const bytes = handler.response.encode(version, res)
  for (const fn of after) fn()
  return handler.response.decode(version, bytes)
}

function offsetsIn(records: Buffer | null): number[] {
  const out: number[] = []
  if (!records) return out
  for (const h of iterateBatches(records)) for (const r of iterateRecords(records, h.position)) out.push(r.offset)
  return out
}

describe('ShareFetch and ShareAcknowledge handlers', () => {
  let dir: string
  let clock: ManualClock
  let replicas: ReplicaManager
  let controller: Controller
  let services: BrokerServices
  let shares: ShareLeaders
  let closeCore: () => Promise<void>
  let topicId: string
  const settings: ShareGroupSettings = { ...DEFAULT_SHARE_GROUP_SETTINGS, autoOffsetReset: 'earliest' }

  const append = async (partition: number, n: number) => {
    const p = replicas.require('q', partition)
    const records = Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`r${i}`) }))
    await replicas.append(p, buildRecordBatch({ baseTimestamp: clock.now(), records }), 1 << 20)
  }

  const fetch = (memberId: string, epoch: number, extra: Record<string, unknown> = {}, c = conn(), groupId = 'g') =>
    call(
      services,
      shareFetch,
      2,
      {
        groupId,
        memberId,
        shareSessionEpoch: epoch,
        maxWaitMs: 0,
        minBytes: 1,
        maxBytes: 1 << 20,
        maxRecords: 500,
        batchSize: 500,
        topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
        forgottenTopicsData: [],
        ...extra,
      },
      c,
    )

  const part = (res: ShareFetchResponseData, partition = 0) =>
    res.responses.flatMap((t) => t.partitions).find((p) => p.partitionIndex === partition)

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-share-fetch-'))
    const core = await openLocalBroker(dir)
    ;({ replicas, controller, clock } = core)
    closeCore = core.close
    shares = createShareLeaders({
      nodeId: 0,
      topics: controller,
      replicas,
      persister: new MemorySharePersister(),
      settings: () => settings,
      brokers: () => [{ nodeId: 0, host: '127.0.0.1', port: 9092, rack: null }],
      interBrokerListener: 'PLAINTEXT',
      clock,
      logger: silentLogger,
      fetchMaxBytes: 1 << 20,
      messageMaxBytes: 1 << 20,
    })
    services = {
      nodeId: 0,
      clock,
      logger: silentLogger,
      settings: { messageMaxBytes: 1 << 20, fetchMaxBytes: 1 << 20, autoCreateTopics: false, deleteTopicEnable: true },
      topics: controller,
      replicas,
      configs: core.configs,
      shares: shares.service,
    } as unknown as BrokerServices
    topicId = (await controller.create({ name: 'q', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }, false)).topicId
    await append(0, 10)
  })

  after(async () => {
    await shares.close()
    await closeCore()
    await rm(dir, { recursive: true, force: true })
  })

  it('refuses a request without a member id or group id, or with a member id longer than a UUID', async () => {
    assert.equal((await fetch('', 0)).errorCode, E('INVALID_REQUEST'))
    assert.equal((await fetch('m'.repeat(37), 0)).errorCode, E('INVALID_REQUEST'))
    const idle = [{ topicId, partitions: [{ partitionIndex: 1, acknowledgementBatches: [] }] }]
    assert.equal((await fetch('m'.repeat(36), 0, { topics: idle })).errorCode, 0)
    assert.equal((await fetch('m', 0, {}, conn(), '')).errorCode, E('INVALID_REQUEST'))
  })

  it('opens a session, acquires, then acknowledges and acquires again in one request', async () => {
    const c = conn()
    const first = await fetch('m1', 0, {}, c)
    assert.equal(first.errorCode, 0)
    assert.equal(first.acquisitionLockTimeoutMs, 30_000)
    const p0 = part(first)!
    assert.deepEqual(p0.acquiredRecords, [{ firstOffset: 0, lastOffset: 9, deliveryCount: 1 }])
    assert.deepEqual(offsetsIn(p0.records), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])

    const ackBatches = [
      { firstOffset: 0, lastOffset: 4, acknowledgeTypes: [1] },
      { firstOffset: 5, lastOffset: 9, acknowledgeTypes: [2] },
    ]
    const second = await fetch(
      'm1',
      1,
      { topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: ackBatches }] }] },
      c,
    )
    const p1 = part(second)!
    assert.equal(p1.acknowledgeErrorCode, 0)
    assert.deepEqual(p1.acquiredRecords, [{ firstOffset: 5, lastOffset: 9, deliveryCount: 2 }])

    assert.equal((await fetch('m1', 1, {}, c)).errorCode, E('INVALID_SHARE_SESSION_EPOCH'))
    assert.equal((await fetch('nobody', 1, {}, c)).errorCode, E('SHARE_SESSION_NOT_FOUND'))

    // Another member cannot acknowledge m1's records.
    await fetch('m2', 0, { topics: [{ topicId, partitions: [{ partitionIndex: 1, acknowledgementBatches: [] }] }] })
    const stolen = await call(services, shareAcknowledge, 2, {
      groupId: 'g',
      memberId: 'm2',
      shareSessionEpoch: 1,
      topics: [
        {
          topicId,
          partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 5, lastOffset: 5, acknowledgeTypes: [1] }] }],
        },
      ],
    })
    assert.equal(stolen.responses[0]!.partitions[0]!.errorCode, E('INVALID_RECORD_STATE'))

    // The final ShareAcknowledge accepts 5..6 and releases the rest m1 holds: m3 gets 7..9 at once.
    const closed = await call(services, shareAcknowledge, 2, {
      groupId: 'g',
      memberId: 'm1',
      shareSessionEpoch: -1,
      topics: [
        {
          topicId,
          partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 5, lastOffset: 6, acknowledgeTypes: [1] }] }],
        },
      ],
    })
    assert.equal(closed.errorCode, 0)
    assert.equal(closed.responses[0]!.partitions[0]!.errorCode, 0)
    const third = await fetch('m3', 0)
    assert.deepEqual(part(third)!.acquiredRecords, [{ firstOffset: 7, lastOffset: 9, deliveryCount: 3 }])
    assert.equal((await fetch('m1', 2, {}, c)).errorCode, E('SHARE_SESSION_NOT_FOUND'))
    // m3 gives them back for the tests below.
    await fetch('m3', 1, {
      topics: [
        {
          topicId,
          partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 7, lastOffset: 9, acknowledgeTypes: [1] }] }],
        },
      ],
      maxRecords: 0,
    })
  })

  it('ShareAcknowledge cannot open a session; acknowledgements cannot come with epoch 0', async () => {
    const res = await call(services, shareAcknowledge, 1, { groupId: 'g', memberId: 'x', shareSessionEpoch: 0, topics: [] })
    assert.equal(res.errorCode, E('INVALID_SHARE_SESSION_EPOCH'))
    const withAcks = await fetch('x', 0, {
      topics: [
        {
          topicId,
          partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [1] }] }],
        },
      ],
    })
    assert.equal(withAcks.errorCode, E('INVALID_REQUEST'))
  })

  it('answers UNKNOWN_TOPIC_ID and UNKNOWN_TOPIC_OR_PARTITION per partition', async () => {
    const res = await fetch('u', 0, {
      topics: [
        { topicId: UNKNOWN_ID, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] },
        { topicId, partitions: [{ partitionIndex: 7, acknowledgementBatches: [] }] },
      ],
    })
    assert.equal(res.errorCode, 0)
    assert.equal(res.responses.find((t) => t.topicId === UNKNOWN_ID)!.partitions[0]!.errorCode, E('UNKNOWN_TOPIC_ID'))
    assert.equal(part(res, 7)!.errorCode, E('UNKNOWN_TOPIC_OR_PARTITION'))
  })

  it('a long poll wakes on an append', async () => {
    const c = conn()
    // Partition 1 is empty: the fetch waits.
    const topics = [{ topicId, partitions: [{ partitionIndex: 1, acknowledgementBatches: [] }] }]
    const pending = fetch('w1', 0, { topics, maxWaitMs: 10_000 }, c)
    await new Promise((r) => setImmediate(r))
    await append(1, 3)
    const res = await pending
    assert.deepEqual(part(res, 1)!.acquiredRecords, [{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }])
    // Released by the member's connection closing: another member gets them at once.
    c.abort.abort()
    await new Promise((r) => setImmediate(r))
    await shares.manager.peek({ groupId: 'g', topicId, partition: 1 })!.idle()
    const again = await fetch('w2', 0, { topics })
    assert.deepEqual(part(again, 1)!.acquiredRecords, [{ firstOffset: 0, lastOffset: 2, deliveryCount: 2 }])
  })

  it('a long poll wakes when a record is released, and times out on the clock', async () => {
    const topics = [{ topicId, partitions: [{ partitionIndex: 1, acknowledgementBatches: [] }] }]
    // w2 holds 0..2 (test above); w3 waits for them.
    const pending = fetch('w3', 0, { topics, maxWaitMs: 10_000 })
    await new Promise((r) => setImmediate(r))
    const released = await call(services, shareAcknowledge, 2, {
      groupId: 'g',
      memberId: 'w2',
      shareSessionEpoch: 1,
      topics: [
        {
          topicId,
          partitions: [{ partitionIndex: 1, acknowledgementBatches: [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [2] }] }],
        },
      ],
    })
    assert.equal(released.responses[0]!.partitions[0]!.errorCode, 0)
    const res = await pending
    assert.deepEqual(part(res, 1)!.acquiredRecords, [{ firstOffset: 0, lastOffset: 2, deliveryCount: 3 }])

    const idle = fetch('w4', 0, { topics, maxWaitMs: 5_000 })
    await new Promise((r) => setImmediate(r))
    clock.advance(5_000)
    const empty = await idle
    assert.equal(empty.errorCode, 0)
    // A session's first answer names its partitions; later ones only those with news (as Kafka).
    assert.deepEqual(part(empty, 1)!.acquiredRecords, [])
    const later = await fetch('w4', 1, { topics: [] })
    assert.deepEqual(later.responses, [])
  })

  it('isRenewAck (v2) renews locks and fetches nothing; v1 refuses RENEW', async () => {
    await append(0, 2) // offsets 10, 11
    const c = conn()
    const got = await fetch('r1', 0, {}, c)
    assert.deepEqual(part(got)!.acquiredRecords, [{ firstOffset: 10, lastOffset: 11, deliveryCount: 1 }])
    const renew = [
      {
        topicId,
        partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 10, lastOffset: 11, acknowledgeTypes: [4] }] }],
      },
    ]
    const zero = { maxBytes: 0, minBytes: 0, maxRecords: 0, maxWaitMs: 0 }
    // KIP-1222: a renewing request fetches nothing, so its fetch parameters must be zero.
    assert.equal((await fetch('r1', 1, { topics: renew, isRenewAck: true }, c)).errorCode, E('INVALID_REQUEST'))
    const renewed = await fetch('r1', 1, { topics: renew, isRenewAck: true, ...zero }, c)
    assert.equal(part(renewed)!.acknowledgeErrorCode, 0)
    assert.deepEqual(part(renewed)!.currentLeader, { leaderId: 0, leaderEpoch: 0 })
    assert.deepEqual(part(renewed)!.acquiredRecords, [])
    const v1 = await call(
      services,
      shareAcknowledge,
      1,
      { groupId: 'g', memberId: 'r1', shareSessionEpoch: 2, topics: renew.map((t) => ({ ...t })) },
      c,
    )
    assert.equal(v1.responses[0]!.partitions[0]!.errorCode, E('INVALID_REQUEST'))
  })

  it('batch-optimized mode ends maxRecords at a batch boundary; record-limit mode is exact', async () => {
    await append(0, 5) // offsets 12..16, one batch
    const whole = await fetch('b1', 0, { maxRecords: 2, shareAcquireMode: 0 })
    assert.deepEqual(part(whole)!.acquiredRecords, [{ firstOffset: 12, lastOffset: 16, deliveryCount: 1 }])
    await append(0, 5) // offsets 17..21
    const exact = await fetch('b2', 0, { maxRecords: 2, shareAcquireMode: 1 })
    assert.deepEqual(part(exact)!.acquiredRecords, [{ firstOffset: 17, lastOffset: 18, deliveryCount: 1 }])
  })

  it('a long poll that acquires after its member opened a new session gives the records back at once', async () => {
    // The member's request timed out at the client, which reconnected and opened a new session;
    // this broker has not seen the old connection close and answers the old long poll when
    // records arrive. Nobody reads that answer: its records must not wait for their locks.
    const t3 = (await controller.create({ name: 'q3', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }, false))
      .topicId
    const topics = [{ topicId: t3, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }]
    const old = fetch('x', 0, { topics, maxWaitMs: 10_000 }, conn(), 'g-replaced')
    await new Promise((r) => setImmediate(r))
    const c2 = conn()
    const fresh = await fetch('x', 0, { topics }, c2, 'g-replaced')
    assert.deepEqual(part(fresh)!.acquiredRecords, [])
    const records = Array.from({ length: 3 }, (_, i) => ({ key: null, value: Buffer.from(`x${i}`) }))
    await replicas.append(replicas.require('q3', 0), buildRecordBatch({ baseTimestamp: clock.now(), records }), 1 << 20)
    const stale = await old
    assert.deepEqual(part(stale)?.acquiredRecords ?? [], [])
    await shares.manager.peek({ groupId: 'g-replaced', topicId: t3, partition: 0 })!.idle()
    const next = await fetch('x', 1, { topics: [] }, c2, 'g-replaced')
    // As if never acquired: the member never saw them, so that was no delivery.
    assert.deepEqual(part(next)!.acquiredRecords, [{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }])
    assert.deepEqual(offsetsIn(part(next)!.records), [0, 1, 2])
  })
})
