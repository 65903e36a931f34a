// Share group records in the real `__consumer_offsets` (src/coordinator/group/offsets-topic.ts):
// storeShareGroupRecords appends them to the group's partition, loadPartition hands them to the
// sink's shareGroupRecord in log order beside the classic records, and a group coordinator over a
// reopened log rebuilds the share group.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { DEFAULT_GROUP_COORDINATOR_CONFIG, GroupCoordinator } from '../../../../../src/coordinator/group/group-coordinator.js'
import { OFFSETS_TOPIC } from '../../../../../src/coordinator/group/offsets-topic.js'
import type { LoadSink } from '../../../../../src/coordinator/group/persistence.js'
import { decodeShareKey } from '../../../../../src/coordinator/group/share/records.js'
import { ManualClock } from '../../../../../src/util/clock.js'
import { silentLogger } from '../../../../../src/util/logger.js'
import { offsetsTopicOn, openLocalBroker } from '../../../../helpers/local-broker.js'
import { client, hb } from './share-helpers.js'

describe('share group records in __consumer_offsets', () => {
  it('are appended to the group’s partition and replayed in order; a coordinator over the reopened log rebuilds the group', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'tributary-share-offsets-'))
    const clock = new ManualClock(1_700_000_000_000)
    let node = await openLocalBroker(dir, { clock })
    t.after(async () => {
      await node.close().catch(() => {})
      await rm(dir, { recursive: true, force: true })
    })
    await node.controller.create({ name: 'T', numPartitions: 3, replicationFactor: 1, assignments: [], configs: [] }, false)
    const topicId = node.controller.get('T')!.topicId
    const coordinatorOn = (p: ReturnType<typeof offsetsTopicOn>) =>
      new GroupCoordinator({
        clock,
        logger: silentLogger,
        persistence: p,
        config: DEFAULT_GROUP_COORDINATOR_CONFIG,
        topics: () => new Map(node.controller.list().map((x) => [x.name, { id: x.topicId, partitions: x.partitions }])),
      })
    const p = offsetsTopicOn(node, clock)
    await p.ensureTopic()
    const partition = p.partitionFor('g')
    const c = coordinatorOn(p)
    await c.onElection(partition, 0)
    assert.equal((await c.shareGroupHeartbeat(hb('m1', 0), client)).errorCode, 0)
    assert.equal((await c.shareGroupHeartbeat(hb('m1', -1), client)).errorCode, 0)
    assert.equal((await c.shareGroupHeartbeat(hb('m2', 0), client)).errorCode, 0)
    assert.ok(node.replicas.get(OFFSETS_TOPIC, partition)!.log.logEndOffset > 0)

    const types: number[] = []
    const sink: LoadSink = {
      group: () => assert.fail('no classic group was written'),
      offset: () => assert.fail('no offset was written'),
      txnOffset: () => assert.fail('no transactional offset was written'),
      txnMarker: () => {},
      shareGroupRecord: (key, value) => types.push(value === null ? -decodeShareKey(key)!.type : decodeShareKey(key)!.type),
    }
    await p.loadPartition(partition, sink)
    // m1 joins (member 10/13/14, then 15/12/11), leaves (its tombstones, then the group), m2 joins.
    assert.deepEqual(types, [10, 13, 14, 15, 12, 11, -10, -13, -14, 15, 12, 11, 10, 13, 14, 15, 12, 11])
    const before = c.shareGroupDescribe(['g'])[0]!
    c.close()
    await node.close()

    node = await openLocalBroker(dir, { clock })
    const again = coordinatorOn(offsetsTopicOn(node, clock))
    await again.onElection(partition, 1)
    const after = again.shareGroupDescribe(['g'])[0]!
    assert.deepEqual(after, before)
    assert.deepEqual(
      after.members.map((m) => [m.memberId, m.memberEpoch, m.assignment.topicPartitions[0]!.topicId]),
      [['m2', 3, topicId]],
    )
    again.close()
  })
})
