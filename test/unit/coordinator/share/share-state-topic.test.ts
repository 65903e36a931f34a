// `__share_group_state` over a real replica manager (test/helpers/local-broker.ts): created on first
// use with Kafka's configs for it, keys placed by abs(javaHash("group:topicId:partition")) %
// partitions, appends replayed in order with their offsets, pruning bounded by the high watermark;
// and the ShareStatePersister contract of the share coordinator on it, with its state loaded again
// by a coordinator elected after the first one is gone.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { ShareCoordinator } from '../../../../src/coordinator/share/share-coordinator.js'
import { SHARE_SNAPSHOT_TYPE, SHARE_UPDATE_TYPE, type ShareRecord } from '../../../../src/coordinator/share/share-records.js'
import { SHARE_GROUP_STATE_TOPIC, ShareStateTopic } from '../../../../src/coordinator/share/share-state-topic.js'
import { DeliveryState } from '../../../../src/ports/shares.js'
import { iterateBatches } from '../../../../src/protocol/records/iterator.js'
import { ManualClock } from '../../../../src/util/clock.js'
import { silentLogger } from '../../../../src/util/logger.js'
import { type LocalBroker, openLocalBroker } from '../../../helpers/local-broker.js'
import { shareStatePersisterContract } from '../../share-state-contract.js'

const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ'
const PARTITIONS = 3

async function node(): Promise<{ core: LocalBroker; log: ShareStateTopic; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-share-state-'))
  const clock = new ManualClock(1_700_000_000_000)
  const core = await openLocalBroker(dir, { clock })
  const log = new ShareStateTopic({
    topics: core.controller,
    replicas: core.replicas,
    numPartitions: PARTITIONS,
    replicationFactor: 1,
    minIsr: 1,
    segmentBytes: 104857600,
    writeTimeoutMs: 5000,
    clock,
    logger: silentLogger,
  })
  return {
    core,
    log,
    close: async () => {
      await core.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** A coordinator on the log that leads every partition of the topic (created first). */
async function coordinatorOn(n: { core: LocalBroker; log: ShareStateTopic }): Promise<ShareCoordinator> {
  await n.log.ensureTopic()
  await n.core.sync.settled(SHARE_GROUP_STATE_TOPIC)
  const c = new ShareCoordinator({
    clock: n.core.clock,
    logger: silentLogger,
    log: n.log,
    config: { updatesPerSnapshot: 2, pruneIntervalMs: 0 },
  })
  for (let p = 0; p < PARTITIONS; p++) await c.onElection(p, n.core.replicas.require(SHARE_GROUP_STATE_TOPIC, p).leaderEpoch)
  return c
}

shareStatePersisterContract('ShareCoordinator on __share_group_state (real storage)', async () => {
  const n = await node()
  const c = await coordinatorOn(n)
  return {
    persister: c,
    topicId: TOPIC_ID,
    close: async () => {
      c.close()
      await n.close()
    },
  }
})

describe('ShareStateTopic', () => {
  it('creates the topic on first use with Kafka’s configs and places keys by abs(hash(key)) % partitions', async (t) => {
    const n = await node()
    t.after(() => n.close())
    assert.equal(n.core.controller.get(SHARE_GROUP_STATE_TOPIC), undefined)
    await n.log.ensureTopic()
    const topic = n.core.controller.get(SHARE_GROUP_STATE_TOPIC)!
    assert.equal(topic.partitions, PARTITIONS)
    assert.equal(topic.configs['cleanup.policy'], 'delete')
    assert.equal(topic.configs['min.insync.replicas'], '1')
    assert.equal(topic.configs['segment.bytes'], '104857600')
    assert.equal(topic.configs['retention.ms'], '-1')
    // "g:AAAAAAAAAAAAAAAAAAAAAQ:0".hashCode() = -92966823 → 92966823 % 3 = 0; partition 1 → -92966822 % 3 = 2.
    assert.equal(n.log.partitionFor({ groupId: 'g', topicId: TOPIC_ID, partition: 0 }), 0)
    assert.equal(n.log.partitionFor({ groupId: 'g', topicId: TOPIC_ID, partition: 1 }), 2)
  })

  it('replays appends in order with their offsets; pruning moves the log start, never past the high watermark', async (t) => {
    const n = await node()
    t.after(() => n.close())
    await n.log.ensureTopic()
    await n.core.sync.settled(SHARE_GROUP_STATE_TOPIC)
    const key = { groupId: 'g', topicId: TOPIC_ID, partition: 0 }
    const snapshot: ShareRecord = {
      type: SHARE_SNAPSHOT_TYPE,
      key,
      value: {
        snapshotEpoch: 0,
        stateEpoch: 1,
        leaderEpoch: 0,
        startOffset: 0,
        deliveryCompleteCount: -1,
        createTimestamp: 1,
        writeTimestamp: 1,
        stateBatches: [],
      },
    }
    const update: ShareRecord = {
      type: SHARE_UPDATE_TYPE,
      key,
      value: {
        snapshotEpoch: 0,
        leaderEpoch: 0,
        startOffset: -1,
        deliveryCompleteCount: 1,
        stateBatches: [{ firstOffset: 0, lastOffset: 0, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 1 }],
      },
    }
    assert.equal(await n.log.append(0, [snapshot]), 0)
    assert.equal(await n.log.append(0, [update, update]), 1)
    const seen: Array<[number, number]> = []
    assert.equal(await n.log.loadPartition(0, (r, offset) => seen.push([r.type, offset])), 3)
    assert.deepEqual(seen, [
      [SHARE_SNAPSHOT_TYPE, 0],
      [SHARE_UPDATE_TYPE, 1],
      [SHARE_UPDATE_TYPE, 2],
    ])
    await n.log.deleteRecordsBelow(0, 1)
    const p = n.core.replicas.require(SHARE_GROUP_STATE_TOPIC, 0)
    assert.equal(p.log.logStartOffset, 1)
    await n.log.deleteRecordsBelow(0, 1000)
    assert.equal(p.log.logStartOffset, 3, 'no further than the high watermark')
  })

  it('puts the appends of one tick to a partition in one batch, each caller told its own offset', async (t) => {
    const n = await node()
    t.after(() => n.close())
    await n.log.ensureTopic()
    await n.core.sync.settled(SHARE_GROUP_STATE_TOPIC)
    const rec = (partition: number): ShareRecord => ({
      type: SHARE_SNAPSHOT_TYPE,
      key: { groupId: 'g', topicId: TOPIC_ID, partition },
      value: null,
    })
    const offsets = await Promise.all([n.log.append(0, [rec(0)]), n.log.append(0, [rec(1), rec(2)]), n.log.append(0, [rec(3)])])
    assert.deepEqual(offsets, [0, 1, 3])
    const p = n.core.replicas.require(SHARE_GROUP_STATE_TOPIC, 0)
    const { records } = await p.log.read(0, 1 << 20, p.log.logEndOffset, true)
    assert.equal([...iterateBatches(records)].length, 1, 'one batch')
    const seen: Array<[number, number]> = []
    await n.log.loadPartition(0, (r, offset) => seen.push([r.key.partition, offset]))
    assert.deepEqual(seen, [
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
    ])
  })

  it('a coordinator elected later loads the same state from the topic', async (t) => {
    const n = await node()
    t.after(() => n.close())
    const c1 = await coordinatorOn(n)
    const key = { groupId: 'g', topicId: TOPIC_ID, partition: 1 }
    await c1.initialize(key, 1, 0)
    for (let i = 0; i < 5; i++) {
      await c1.write(key, {
        stateEpoch: 1,
        leaderEpoch: 2,
        startOffset: -1,
        deliveryCompleteCount: i + 1,
        stateBatches: [{ firstOffset: i, lastOffset: i, deliveryState: DeliveryState.ARCHIVED, deliveryCount: 5 }],
      })
    }
    const before = await c1.read(key, 2)
    assert.deepEqual(before.stateBatches, [{ firstOffset: 0, lastOffset: 4, deliveryState: DeliveryState.ARCHIVED, deliveryCount: 5 }])
    c1.close()
    const c2 = await coordinatorOn(n)
    assert.deepEqual(await c2.read(key, 2), before)
    assert.equal((await c2.readSummary(key, 0)).deliveryCompleteCount, 5)
    c2.close()
  })
})
