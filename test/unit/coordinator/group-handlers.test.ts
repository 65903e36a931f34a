// The group handlers over a real coordinator: for every version they serve, a request is
// encoded and decoded with the message codec, handled, and the answer encoded and decoded again,
// so a field a version cannot carry (e.g. a null protocol name before JoinGroup v7) fails here.
import { testConn } from '../../helpers/local-broker.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { TopicRecord } from '../../../src/ports/metadata-store.js'
import { encodeSubscription } from '../../../src/protocol/consumer-protocol.js'
import type { Handler, RequestContext } from '../../../src/handlers/define.js'
import offsetCommit from '../../../src/handlers/08-offset-commit.js'
import offsetFetch from '../../../src/handlers/09-offset-fetch.js'
import findCoordinator from '../../../src/handlers/10-find-coordinator.js'
import joinGroup from '../../../src/handlers/11-join-group.js'
import heartbeat from '../../../src/handlers/12-heartbeat.js'
import leaveGroup from '../../../src/handlers/13-leave-group.js'
import syncGroup from '../../../src/handlers/14-sync-group.js'
import describeGroups from '../../../src/handlers/15-describe-groups.js'
import listGroups from '../../../src/handlers/16-list-groups.js'
import deleteGroups from '../../../src/handlers/42-delete-groups.js'
import offsetDelete from '../../../src/handlers/47-offset-delete.js'
import { allHandlers } from '../../../src/handlers/index.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import type { JoinGroupResponseData } from '../../../src/protocol/messages/11-join-group.js'
import type { Encodable } from '../../../src/protocol/schema.js'
import { silentLogger } from '../../../src/util/logger.js'
import { code, flush, type Harness, setup } from './group-helpers.js'

const TOPIC: TopicRecord = { name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: 2, replicationFactor: 1, configs: {}, createdMs: 0 }
const OFFSETS: TopicRecord = { ...TOPIC, name: '__consumer_offsets', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: 3 }

/** Where the brokers are and who leads each `__consumer_offsets` partition (default: broker 7 alone). */
interface ClusterView {
  brokers: Array<{ nodeId: number; host: string; port: number; rack: null }>
  leaders: number[]
}
const SINGLE: ClusterView = { brokers: [{ nodeId: 7, host: 'broker.example', port: 9093, rack: null }], leaders: [7, 7, 7] }

function context(h: Harness, apiVersion: number, ensured: { count: number }, view: ClusterView = SINGLE): RequestContext {
  const state = (leader: number) => ({
    leader,
    leaderEpoch: 0,
    partitionEpoch: 0,
    replicas: [leader],
    isr: [leader],
    addingReplicas: [],
    removingReplicas: [],
  })
  const broker = {
    nodeId: 7,
    clusterId: 'c',
    clock: h.clock,
    logger: silentLogger,
    brokers: () => view.brokers,
    topics: {
      get: (name: string) => (name === 't' ? TOPIC : name === OFFSETS.name ? OFFSETS : undefined),
      getById: (id: string) => [TOPIC, OFFSETS].find((t) => t.topicId === id),
      partitionState: (name: string, p: number) =>
        name === OFFSETS.name && view.leaders[p] !== undefined ? state(view.leaders[p]) : undefined,
    },
    groups: Object.assign(Object.create(h.coordinator), {
      ensureCoordinatorTopic: async () => {
        ensured.count++
      },
    }),
  } as unknown as BrokerServices
  return {
    header: { apiKey: 0, apiVersion, correlationId: 1, clientId: 'cli', bodyOffset: 0 },
    apiVersion,
    conn: testConn({ remoteAddress: '10.0.0.1', remotePort: 5 }),
    broker,
    apis: [],
  }
}

/** Round-trips the request through its codec, handles it, and round-trips the answer. */
async function call<Req, Res>(
  h: Harness,
  handler: Handler<Req, Res>,
  version: number,
  req: Encodable<Req>,
  ensured = { count: 0 },
  view: ClusterView = SINGLE,
): Promise<Res> {
  const decoded = handler.request.decode(version, handler.request.encode(version, req))
  const res = await handler.handle(context(h, version, ensured, view), decoded)
  assert.ok(res !== null)
  return handler.response.decode(version, handler.response.encode(version, res))
}

const versions = (h: Handler) => Array.from({ length: h.maxVersion - h.minVersion + 1 }, (_, i) => h.minVersion + i)

describe('group handlers', () => {
  it('are registered with Kafka’s version ranges', () => {
    const ranges = new Map(allHandlers.map((x) => [x.request.apiKey, `${x.minVersion}-${x.maxVersion}`]))
    assert.deepEqual(
      [8, 9, 10, 11, 12, 13, 14, 15, 16, 42, 47].map((k) => ranges.get(k)),
      ['2-10', '1-10', '0-6', '0-9', '0-4', '0-5', '0-5', '0-6', '0-5', '0-3', '0-0'],
    )
  })

  it('FindCoordinator v0–6: this broker for groups (topic ensured), errors for other key types and absurd ids', async () => {
    const h = await setup()
    for (const v of versions(findCoordinator)) {
      const ensured = { count: 0 }
      const keys = ['g', 'x'.repeat(256)]
      const r = await call(h, findCoordinator, v, { key: keys[0], keyType: 0, coordinatorKeys: keys }, ensured)
      assert.equal(ensured.count, 1, `v${v} ensures __consumer_offsets`)
      if (v >= 4) {
        assert.deepEqual(
          r.coordinators.map((c) => [c.key, c.nodeId, c.host, c.port, c.errorCode]),
          [
            ['g', 7, 'broker.example', 9093, 0],
            [keys[1], -1, '', -1, code('INVALID_GROUP_ID')],
          ],
        )
      } else {
        assert.deepEqual([r.errorCode, r.nodeId, r.host, r.port], [0, 7, 'broker.example', 9093])
      }
      if (v >= 1) {
        const txn = await call(h, findCoordinator, v, { key: 'tx', keyType: 1, coordinatorKeys: ['tx'] })
        // Served by the transaction coordinator (test/unit/handlers/txn-handlers.test.ts); this broker
        // has no __transaction_state, so the client is told to ask again.
        assert.equal(v >= 4 ? txn.coordinators[0]!.errorCode : txn.errorCode, code('COORDINATOR_NOT_AVAILABLE'))
        const share = await call(h, findCoordinator, v, { key: 's', keyType: 2, coordinatorKeys: ['s'] })
        assert.equal(v >= 4 ? share.coordinators[0]!.errorCode : share.errorCode, code('INVALID_REQUEST'))
      }
    }
  })

  it('FindCoordinator names the live leader of the group’s __consumer_offsets partition; no live leader: COORDINATOR_NOT_AVAILABLE', async () => {
    const h = await setup()
    // Kafka's placement: abs(javaHash(id)) % 3 — 'a' (97) → 1, 'b' (98) → 2, 'c' (99) → 0.
    const view: ClusterView = {
      brokers: [
        { nodeId: 7, host: 'b7.example', port: 9093, rack: null },
        { nodeId: 8, host: 'b8.example', port: 9094, rack: null },
      ],
      leaders: [8, 7, 9], // broker 9 is not live
    }
    for (const v of versions(findCoordinator)) {
      const keys = ['a', 'b', 'c']
      const r = await call(h, findCoordinator, v, { key: 'a', keyType: 0, coordinatorKeys: keys }, { count: 0 }, view)
      if (v >= 4) {
        assert.deepEqual(
          r.coordinators.map((c) => [c.key, c.nodeId, c.host, c.port, c.errorCode]),
          [
            ['a', 7, 'b7.example', 9093, 0],
            ['b', -1, '', -1, code('COORDINATOR_NOT_AVAILABLE')],
            ['c', 8, 'b8.example', 9094, 0],
          ],
          `v${v}`,
        )
        assert.match(r.coordinators[1]!.errorMessage ?? '', /__consumer_offsets-2 is led by broker 9/)
      } else {
        assert.deepEqual([r.errorCode, r.nodeId, r.host, r.port], [0, 7, 'b7.example', 9093], `v${v}`)
        const c = await call(h, findCoordinator, v, { key: 'c', keyType: 0, coordinatorKeys: [] }, { count: 0 }, view)
        assert.deepEqual([c.errorCode, c.nodeId, c.host, c.port], [0, 8, 'b8.example', 9094], `v${v}`)
        const b = await call(h, findCoordinator, v, { key: 'b', keyType: 0, coordinatorKeys: [] }, { count: 0 }, view)
        assert.deepEqual([b.errorCode, b.nodeId], [code('COORDINATOR_NOT_AVAILABLE'), -1], `v${v}`)
      }
    }
    // No leader at all (-1): not available either.
    const none = await call(
      h,
      findCoordinator,
      4,
      { key: '', keyType: 0, coordinatorKeys: ['c'] },
      { count: 0 },
      { ...view, leaders: [-1, 7, 7] },
    )
    assert.equal(none.coordinators[0]!.errorCode, code('COORDINATOR_NOT_AVAILABLE'))
    assert.match(none.coordinators[0]!.errorMessage ?? '', /has no leader/)
  })

  it('JoinGroup v0–9, SyncGroup v0–5, Heartbeat v0–4, LeaveGroup v0–5 encode in every version', async () => {
    for (const v of versions(joinGroup)) {
      const h = await setup()
      const join = {
        groupId: `g${v}`,
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 20_000,
        memberId: '',
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: encodeSubscription(['t']) }],
      }
      let r: JoinGroupResponseData
      if (v >= 4) {
        const required = await call(h, joinGroup, v, join)
        assert.equal(required.errorCode, code('MEMBER_ID_REQUIRED'), `v${v}`)
        assert.equal(required.protocolName, v >= 7 ? null : '')
        const again = call(h, joinGroup, v, { ...join, memberId: required.memberId })
        await flush()
        h.clock.advance(0)
        r = await again
      } else {
        const first = call(h, joinGroup, v, join)
        await flush()
        h.clock.advance(0)
        r = await first
      }
      assert.equal(r.errorCode, 0, `JoinGroup v${v}`)
      assert.equal(r.protocolName, 'range')
      assert.equal(r.protocolType, v >= 7 ? 'consumer' : null)
      assert.equal(r.leader, r.memberId)
      assert.equal(r.members.length, 1)
      assert.match(r.memberId, /^cli-/)
      const syncV = Math.min(v, syncGroup.maxVersion)
      const s = await call(h, syncGroup, syncV, {
        groupId: `g${v}`,
        generationId: r.generationId,
        memberId: r.memberId,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments: [{ memberId: r.memberId, assignment: Buffer.from([1, 2, 3]) }],
      })
      assert.equal(s.errorCode, 0, `SyncGroup v${syncV}`)
      assert.deepEqual(s.assignment, Buffer.from([1, 2, 3]))
      assert.equal(s.protocolName, syncV >= 5 ? 'range' : null)
      const hbV = Math.min(v, heartbeat.maxVersion)
      const hb = await call(h, heartbeat, hbV, { groupId: `g${v}`, generationId: r.generationId, memberId: r.memberId })
      assert.equal(hb.errorCode, 0, `Heartbeat v${hbV}`)
      const d = await call(h, describeGroups, Math.min(v, 5), { groups: [`g${v}`] })
      assert.equal(d.groups[0]!.members[0]!.clientHost, '/10.0.0.1')
      const leaveV = Math.min(v, leaveGroup.maxVersion)
      const l = await call(h, leaveGroup, leaveV, {
        groupId: `g${v}`,
        memberId: r.memberId,
        members: [
          { memberId: r.memberId, groupInstanceId: null },
          { memberId: 'stranger', groupInstanceId: null },
        ],
      })
      if (leaveV >= 3) {
        assert.equal(l.errorCode, 0)
        assert.deepEqual(
          l.members.map((m) => m.errorCode),
          [0, code('UNKNOWN_MEMBER_ID')],
        )
      } else {
        assert.equal(l.errorCode, 0, `LeaveGroup v${leaveV}`)
        const again = await call(h, leaveGroup, leaveV, { groupId: `g${v}`, memberId: 'stranger' })
        assert.equal(again.errorCode, code('UNKNOWN_MEMBER_ID'), 'v0–2 carry the member error at the top')
      }
    }
  })

  it('OffsetCommit v2–9 / OffsetFetch v1–9: unknown partitions refused, metadata round-trips, multi-group v8+', async () => {
    const h = await setup()
    // v10 names topics by id: see test/unit/handlers/kafka44-handlers.test.ts.
    for (const v of versions(offsetCommit).filter((x) => x <= 9)) {
      const r = await call(h, offsetCommit, v, {
        groupId: 'admin',
        generationIdOrMemberEpoch: -1,
        memberId: '',
        topics: [
          {
            name: 't',
            partitions: [
              { partitionIndex: 0, committedOffset: 10 + v, committedLeaderEpoch: 2, committedMetadata: `m${v}` },
              { partitionIndex: 2, committedOffset: 1, committedMetadata: null },
            ],
          },
          { name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: null }] },
        ],
      })
      assert.deepEqual(
        r.topics.map((t) => t.partitions.map((p) => p.errorCode)),
        [[0, code('UNKNOWN_TOPIC_OR_PARTITION')], [code('UNKNOWN_TOPIC_OR_PARTITION')]],
        `OffsetCommit v${v}`,
      )
    }
    for (const v of versions(offsetFetch).filter((x) => x <= 9)) {
      const topics = [{ name: 't', partitionIndexes: [0, 1] }]
      const r = await call(h, offsetFetch, v, {
        groupId: 'admin',
        topics,
        groups: [
          { groupId: 'admin', topics },
          { groupId: 'x'.repeat(300), topics },
        ],
      })
      const parts = v >= 8 ? r.groups[0]!.topics[0]!.partitions : r.topics[0]!.partitions
      assert.deepEqual(
        parts.map((p) => [p.partitionIndex, p.committedOffset, p.metadata]),
        [
          [0, 19, 'm9'],
          [1, -1, ''],
        ],
        `OffsetFetch v${v}`,
      )
      if (v >= 5) assert.equal(parts[0]!.committedLeaderEpoch, 2)
      if (v >= 8) assert.equal(r.groups[1]!.errorCode, code('INVALID_GROUP_ID'))
    }
    // v1 has no top-level error: a group-level error lands on every partition.
    const v1 = await call(h, offsetFetch, 1, { groupId: 'x'.repeat(300), topics: [{ name: 't', partitionIndexes: [0] }] })
    assert.equal(v1.topics[0]!.partitions[0]!.errorCode, code('INVALID_GROUP_ID'))
  })

  it('ListGroups v0–5 filters by state (v4+) and type (v5); DescribeGroups, DeleteGroups, OffsetDelete', async () => {
    const h = await setup()
    await call(h, offsetCommit, 8, {
      groupId: 'admin',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: null }] }],
    })
    for (const v of versions(listGroups)) {
      const all = await call(h, listGroups, v, {})
      assert.deepEqual(
        all.groups.map((g) => [g.groupId, g.groupState, g.groupType]),
        [['admin', v >= 4 ? 'Empty' : '', v >= 5 ? 'classic' : '']],
      )
      if (v >= 4) assert.equal((await call(h, listGroups, v, { statesFilter: ['stable'] })).groups.length, 0)
      if (v >= 4) assert.equal((await call(h, listGroups, v, { statesFilter: ['EMPTY'] })).groups.length, 1)
      if (v >= 5) assert.equal((await call(h, listGroups, v, { typesFilter: ['consumer'] })).groups.length, 0)
    }
    const d = await call(h, describeGroups, 5, { groups: ['admin', 'nope'] })
    assert.deepEqual(
      d.groups.map((g) => [g.groupId, g.groupState, g.errorCode]),
      [
        ['admin', 'Empty', 0],
        ['nope', 'Dead', 0],
      ],
    )
    const od = await call(h, offsetDelete, 0, {
      groupId: 'admin',
      topics: [
        { name: 't', partitions: [{ partitionIndex: 0 }, { partitionIndex: 5 }] },
        { name: 'nope', partitions: [{ partitionIndex: 0 }] },
      ],
    })
    assert.equal(od.errorCode, 0)
    assert.deepEqual(
      od.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.errorCode])]),
      [
        [
          't',
          [
            [0, 0],
            [5, code('UNKNOWN_TOPIC_OR_PARTITION')],
          ],
        ],
        ['nope', [[0, code('UNKNOWN_TOPIC_OR_PARTITION')]]],
      ],
    )
    assert.equal((await call(h, offsetDelete, 0, { groupId: 'nope', topics: [] })).errorCode, code('GROUP_ID_NOT_FOUND'))
    for (const v of versions(deleteGroups)) {
      const r = await call(h, deleteGroups, v, { groupsNames: ['admin'] })
      assert.equal(r.results[0]!.errorCode, v === 0 ? 0 : code('GROUP_ID_NOT_FOUND'))
    }
  })
})
