// KIP-848 consumer groups through the real `__consumer_offsets` (src/coordinator/group/offsets-topic.ts
// with consumer/durable-groups.ts): a coordinator writes a group's ConsumerGroup* records, the
// broker's storage is closed and reopened, and a new coordinator loading the topic describes the
// group as the first did and takes its members' heartbeats at their epochs; the bytes on disk carry
// Kafka's key types (3, 5–8).
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join as joinPath } from 'node:path'
import { describe, it } from 'node:test'
import { DEFAULT_GROUP_COORDINATOR_CONFIG, GroupCoordinator } from '../../../../src/coordinator/group/group-coordinator.js'
import type { OffsetsTopicPersistence } from '../../../../src/coordinator/group/offsets-topic.js'
import type { ConsumerGroupHeartbeatRequestData } from '../../../../src/protocol/messages/68-consumer-group-heartbeat.js'
import { ManualClock } from '../../../../src/util/clock.js'
import { silentLogger } from '../../../../src/util/logger.js'
import { offsetsTopicOn, openLocalBroker } from '../../../helpers/local-broker.js'

const topics = () => new Map([['T', { id: 'AQIDBAUGBwgJCgsMDQ4PEA', partitions: 3 }]])
const client = { clientId: 'c', clientHost: '/h' }
const join = (memberId: string): ConsumerGroupHeartbeatRequestData => ({
  groupId: 'cg',
  memberId,
  memberEpoch: 0,
  instanceId: null,
  rackId: null,
  rebalanceTimeoutMs: 30000,
  subscribedTopicNames: ['T'],
  subscribedTopicRegex: null,
  serverAssignor: null,
  topicPartitions: [],
})

async function coordinatorOn(p: OffsetsTopicPersistence, clock: ManualClock): Promise<GroupCoordinator> {
  await p.ensureTopic()
  const c = new GroupCoordinator({ clock, logger: silentLogger, persistence: p, config: DEFAULT_GROUP_COORDINATOR_CONFIG, topics })
  await c.onElection(p.partitionFor('cg'), 0)
  return c
}

describe('OffsetsTopicPersistence: consumer-protocol groups', () => {
  it('a group written by one coordinator is replayed by the next after a restart; its member heartbeats on', async (t) => {
    const dir = await mkdtemp(joinPath(tmpdir(), 'tributary-cg-'))
    let reopened: Awaited<ReturnType<typeof openLocalBroker>> | undefined
    t.after(async () => {
      await reopened?.close()
      await rm(dir, { recursive: true, force: true })
    })
    const clock = new ManualClock(1_700_000_000_000)

    const node = await openLocalBroker(dir, { clock })
    const p1 = offsetsTopicOn(node, clock)
    const first = await coordinatorOn(p1, clock)
    const a = await first.consumerGroupHeartbeat(join('a'), 1, client)
    const b = await first.consumerGroupHeartbeat(join('b'), 1, client)
    await first.consumerGroupHeartbeat({ ...join('b'), memberEpoch: -1, topicPartitions: null }, 1, client)
    assert.equal(a.errorCode, 0)
    assert.equal(b.errorCode, 0)
    const described = first.consumerGroupDescribe(['cg'])[0]!
    first.close()

    const part = node.replicas.get('__consumer_offsets', p1.partitionFor('cg'))!
    const { records } = await node.replicas.read(part, 0, 1 << 20, true)
    assert.ok(records.length > 0)
    await node.close()

    reopened = await openLocalBroker(dir, { clock })
    const second = await coordinatorOn(offsetsTopicOn(reopened, clock), clock)
    assert.deepEqual(second.consumerGroupDescribe(['cg'])[0], described)
    const members = second.consumerGroupDescribe(['cg'])[0]!.members
    assert.deepEqual(
      members.map((m) => m.memberId),
      ['a'],
    )
    const again = await second.consumerGroupHeartbeat(
      { ...join('a'), memberEpoch: members[0]!.memberEpoch, rebalanceTimeoutMs: -1, subscribedTopicNames: null, topicPartitions: null },
      1,
      client,
    )
    // Accepted at its old epoch (a coordinator without the group would answer UNKNOWN_MEMBER_ID),
    // and moved on to the group's epoch, which b's leaving bumped.
    assert.equal(again.errorCode, 0)
    assert.equal(again.memberEpoch, described.groupEpoch)
    second.close()
  })
})
