// Bad group input over raw sockets, against a broker process: each is answered with its Kafka
// error code, and the broker keeps serving (a fresh connection still gets ApiVersions).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { encodeSubscription } from '../../src/protocol/consumer-protocol.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../src/protocol/messages/10-find-coordinator.js'
import { JoinGroupRequest, JoinGroupResponse } from '../../src/protocol/messages/11-join-group.js'
import { HeartbeatRequest, HeartbeatResponse } from '../../src/protocol/messages/12-heartbeat.js'
import { SyncGroupRequest, SyncGroupResponse } from '../../src/protocol/messages/14-sync-group.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { assertServes, RawClient } from '../helpers/clients.js'

describe('bad consumer-group input', () => {
  let broker: BrokerProcess
  let c: RawClient

  const join = (
    version: number,
    o: Partial<{ groupId: string; sessionTimeoutMs: number; protocolType: string; memberId: string; metadata: Buffer }>,
  ) =>
    c.request(JoinGroupRequest, JoinGroupResponse, version, {
      groupId: o.groupId ?? 'g',
      sessionTimeoutMs: o.sessionTimeoutMs ?? 10_000,
      rebalanceTimeoutMs: 10_000,
      memberId: o.memberId ?? '',
      protocolType: o.protocolType ?? 'consumer',
      protocols: [{ name: 'range', metadata: o.metadata ?? encodeSubscription(['t']) }],
    })

  before(async () => {
    broker = await startBrokerProcess({ overrides: { 'group.initial.rebalance.delay.ms': '0', 'group.min.session.timeout.ms': '6000' } })
    c = await RawClient.connect(broker.host, broker.port)
    // As every client does first: find the coordinator (which creates __consumer_offsets), then
    // wait until it has loaded its partitions (COORDINATOR_LOAD_IN_PROGRESS or NOT_COORDINATOR
    // until then, as in Kafka).
    const found = await c.request(FindCoordinatorRequest, FindCoordinatorResponse, 3, { key: 'g', keyType: 0 })
    assert.equal(found.errorCode, 0)
    for (let i = 0; ; i++) {
      const hb = await c.request(HeartbeatRequest, HeartbeatResponse, 4, { groupId: 'nobody', generationId: 1, memberId: 'ghost' })
      if (hb.errorCode !== 14 && hb.errorCode !== 16) break
      assert.ok(i < 200, `the coordinator did not load: error ${hb.errorCode}`)
      await new Promise((r) => setTimeout(r, 25))
    }
  })

  after(async () => {
    c?.close()
    await stopAndCheck(broker)
  })

  test('session timeout outside the allowed range: INVALID_SESSION_TIMEOUT', async () => {
    assert.equal((await join(5, { sessionTimeoutMs: 1000 })).errorCode, 26)
    assert.equal((await join(5, { sessionTimeoutMs: 2_000_000 })).errorCode, 26)
    await assertServes(broker.host, broker.port)
  })

  test('empty or absurdly long group id: INVALID_GROUP_ID', async () => {
    assert.equal((await join(5, { groupId: '' })).errorCode, 24)
    assert.equal((await join(5, { groupId: 'g'.repeat(10_000) })).errorCode, 24)
    await assertServes(broker.host, broker.port)
  })

  test('oversized member metadata: INVALID_REQUEST, nothing kept', async () => {
    assert.equal((await join(5, { groupId: 'big', metadata: Buffer.alloc(2 * 1024 * 1024, 1) })).errorCode, 42)
    await assertServes(broker.host, broker.port)
  })

  test('Heartbeat and SyncGroup for an unknown group or member: UNKNOWN_MEMBER_ID', async () => {
    const hb = await c.request(HeartbeatRequest, HeartbeatResponse, 4, { groupId: 'nobody', generationId: 1, memberId: 'ghost' })
    assert.equal(hb.errorCode, 25)
    const sync = await c.request(SyncGroupRequest, SyncGroupResponse, 5, {
      groupId: 'nobody',
      generationId: 1,
      memberId: 'ghost',
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [],
    })
    assert.equal(sync.errorCode, 25)
    await assertServes(broker.host, broker.port)
  })

  test('a protocol type the group does not use: INCONSISTENT_GROUP_PROTOCOL', async () => {
    // v3 (no MEMBER_ID_REQUIRED round trip): the first member forms the group as "consumer".
    const first = await join(3, { groupId: 'typed' })
    assert.equal(first.errorCode, 0)
    assert.equal((await join(3, { groupId: 'typed', protocolType: 'connect' })).errorCode, 23)
    await assertServes(broker.host, broker.port)
  })
})
