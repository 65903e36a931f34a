// The group coordinator serving consumer-protocol groups beside classic ones
// (src/coordinator/group/group-coordinator.ts): heartbeats, OffsetCommit with member epochs,
// ListGroups/DescribeGroups types, a classic group's id refused, and NOT_COORDINATOR.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_GROUP_COORDINATOR_CONFIG, GroupCoordinator } from '../../../../src/coordinator/group/group-coordinator.js'
import { MemoryGroupPersistence } from '../../../../src/coordinator/group/memory-persistence.js'
import type { ConsumerGroupHeartbeatRequestData } from '../../../../src/protocol/messages/68-consumer-group-heartbeat.js'
import { ManualClock } from '../../../../src/util/clock.js'
import { silentLogger } from '../../../../src/util/logger.js'
import { electAll } from '../group-helpers.js'

const client = { clientId: 'c', clientHost: '/h' }
const join = (memberId: string, groupId = 'g'): ConsumerGroupHeartbeatRequestData => ({
  groupId,
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

async function setup(elect = true) {
  const persistence = new MemoryGroupPersistence()
  const coordinator = new GroupCoordinator({
    clock: new ManualClock(),
    logger: silentLogger,
    persistence,
    config: DEFAULT_GROUP_COORDINATOR_CONFIG,
    topics: () => new Map([['T', { id: 'AQIDBAUGBwgJCgsMDQ4PEA', partitions: 3 }]]),
  })
  if (elect) await electAll(coordinator, persistence)
  return coordinator
}

const commit = (c: GroupCoordinator, memberId: string, epoch: number) =>
  c.commitOffsets({
    groupId: 'g',
    generationId: epoch,
    memberId,
    groupInstanceId: null,
    retentionTimeMs: -1,
    offsets: [{ topic: 'T', partition: 0, offset: 42, leaderEpoch: -1, metadata: null }],
    apiVersion: 9,
  })

describe('group coordinator: consumer-protocol groups', () => {
  it('commits from the member at its epoch are stored; another epoch is STALE_MEMBER_EPOCH, a stranger UNKNOWN_MEMBER_ID', async () => {
    const c = await setup()
    const res = await c.consumerGroupHeartbeat(join('m'), 1, client)
    assert.equal(res.memberEpoch, 1)
    assert.deepEqual(await commit(c, 'm', 1), [0])
    assert.deepEqual(await commit(c, 'm', 0), [113])
    assert.deepEqual(await commit(c, 'x', 1), [25])
    assert.equal(c.fetchOffsets('g', [{ name: 'T', partitions: [0] }], false).topics[0]!.partitions[0]!.committedOffset, 42)
    // OffsetFetch v9+ with the member's id and epoch.
    const asMember = (memberId: string, memberEpoch: number) => c.fetchOffsets('g', null, false, { memberId, memberEpoch })
    assert.equal(asMember('m', 1).errorCode, 0)
    assert.equal(asMember('m', 1).topics[0]!.partitions[0]!.committedOffset, 42)
    assert.equal(asMember('m', 7).errorCode, 113)
    assert.equal(asMember('x', 1).errorCode, 25)
  })

  it('lists the group as type consumer (not its offsets as a classic one); DescribeGroups refuses it', async () => {
    const c = await setup()
    await c.consumerGroupHeartbeat(join('m'), 1, client)
    await commit(c, 'm', 1)
    assert.deepEqual(c.listGroups({ states: [], types: [] }).groups, [
      { groupId: 'g', protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' },
    ])
    assert.deepEqual(c.listGroups({ states: [], types: ['classic'] }).groups, [])
    assert.equal(c.describeGroups(['g'])[0]!.errorCode, 69)
    assert.equal(c.consumerGroupDescribe(['g'])[0]!.members.length, 1)
  })

  it('answers NOT_COORDINATOR for a partition it does not own', async () => {
    const c = await setup(false)
    assert.equal((await c.consumerGroupHeartbeat(join('m'), 1, client)).errorCode, 16)
    assert.equal(c.consumerGroupDescribe(['g'])[0]!.errorCode, 16)
  })
})
