// The share group handlers (76 ShareGroupHeartbeat, 77 ShareGroupDescribe, 90–92 the offsets
// admin APIs, 16 ListGroups' "share" type) through their codecs at every version they serve, over
// a real group coordinator: what a client sends and reads back on the wire.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_GROUP_COORDINATOR_CONFIG, GroupCoordinator } from '../../../src/coordinator/group/group-coordinator.js'
import { MemoryGroupPersistence } from '../../../src/coordinator/group/memory-persistence.js'
import listGroups from '../../../src/handlers/16-list-groups.js'
import shareGroupHeartbeat from '../../../src/handlers/76-share-group-heartbeat.js'
import shareGroupDescribe from '../../../src/handlers/77-share-group-describe.js'
import describeShareGroupOffsets from '../../../src/handlers/90-describe-share-group-offsets.js'
import alterShareGroupOffsets from '../../../src/handlers/91-alter-share-group-offsets.js'
import deleteShareGroupOffsets from '../../../src/handlers/92-delete-share-group-offsets.js'
import { allHandlers } from '../../../src/handlers/index.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { callHandler } from '../../helpers/local-broker.js'
import { MemoryShareState } from '../coordinator/group/share/memory-share-state.js'
import { electAll } from '../coordinator/group-helpers.js'

const T_ID = 'AQIDBAUGBwgJCgsMDQ4PEA'

async function services(): Promise<BrokerServices> {
  const persistence = new MemoryGroupPersistence()
  const groups = new GroupCoordinator({
    clock: new ManualClock(),
    logger: silentLogger,
    persistence,
    config: DEFAULT_GROUP_COORDINATOR_CONFIG,
    topics: () => new Map([['T', { id: T_ID, partitions: 2 }]]),
    shareState: new MemoryShareState(),
  })
  await electAll(groups, persistence)
  return { groups, logger: silentLogger } as unknown as BrokerServices
}

describe('share group handlers', () => {
  it('are registered with Kafka 4.4’s version ranges', () => {
    const range = (key: number) => {
      const h = allHandlers.find((x) => x.request.apiKey === key)!
      return [h.minVersion, h.maxVersion]
    }
    assert.deepEqual([76, 77, 90, 91, 92].map(range), [
      [1, 1],
      [1, 1],
      [0, 1],
      [0, 0],
      [0, 0],
    ])
  })

  it('ShareGroupHeartbeat v1 joins and gets its assignment; ShareGroupDescribe v1 and ListGroups v5 show the group', async () => {
    const s = await services()
    const joined = await callHandler(s, shareGroupHeartbeat, 1, {
      groupId: 'g',
      memberId: 'Qm9va2luZ0lkQUJDREVGRw',
      memberEpoch: 0,
      rackId: null,
      subscribedTopicNames: ['T'],
    })
    assert.deepEqual(joined, {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId: 'Qm9va2luZ0lkQUJDREVGRw',
      memberEpoch: 1,
      heartbeatIntervalMs: 5000,
      assignment: { topicPartitions: [{ topicId: T_ID, partitions: [0, 1] }] },
    })
    const again = await callHandler(s, shareGroupHeartbeat, 1, {
      groupId: 'g',
      memberId: 'Qm9va2luZ0lkQUJDREVGRw',
      memberEpoch: 1,
      rackId: null,
      subscribedTopicNames: null,
    })
    assert.equal(again.assignment, null)
    const d = await callHandler(s, shareGroupDescribe, 1, { groupIds: ['g', 'x'], includeAuthorizedOperations: false })
    assert.deepEqual(
      d.groups.map((g) => [g.groupId, g.errorCode, g.groupState, g.members.map((m) => m.assignment.topicPartitions[0]?.topicName)]),
      [
        ['g', 0, 'Stable', ['T']],
        ['x', ErrorCode.GROUP_ID_NOT_FOUND.code, 'Dead', []],
      ],
    )
    const listed = await callHandler(s, listGroups, 5, { statesFilter: [], typesFilter: ['share'] })
    assert.deepEqual(listed.groups, [{ groupId: 'g', protocolType: 'share', groupState: 'Stable', groupType: 'share' }])
  })

  it('the offsets admin APIs at every version: alter, describe (v1 lag -1 when unknown), delete', async () => {
    const s = await services()
    const altered = await callHandler(s, alterShareGroupOffsets, 0, {
      groupId: 'g',
      topics: [{ topicName: 'T', partitions: [{ partitionIndex: 1, startOffset: 9 }] }],
    })
    assert.equal(altered.errorCode, 0)
    assert.deepEqual(altered.responses[0]!.partitions, [{ partitionIndex: 1, errorCode: 0, errorMessage: null }])
    for (const v of [0, 1]) {
      const d = await callHandler(s, describeShareGroupOffsets, v, { groups: [{ groupId: 'g', topics: null }] })
      const p = d.groups[0]!.topics[0]!.partitions[0]!
      assert.deepEqual([p.partitionIndex, p.startOffset, p.errorCode], [1, 9, 0])
      assert.equal(p.lag, -1)
    }
    const deleted = await callHandler(s, deleteShareGroupOffsets, 0, { groupId: 'g', topics: [{ topicName: 'T' }] })
    assert.deepEqual(deleted.responses, [{ topicName: 'T', topicId: T_ID, errorCode: 0, errorMessage: null }])
  })
})
