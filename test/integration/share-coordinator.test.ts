// The share coordinator of a real broker (in this process, on a data directory), reached over the
// wire with Tributary's own client: FindCoordinator key type 2 (v6; malformed keys and older
// versions refused), InitializeShareGroupState / Write / Read / ReadShareGroupStateSummary /
// DeleteShareGroupState as a partition leader and the group coordinator send them, `__share_group_state`
// created with Kafka's configs; the state read back after the broker restarts on the same
// directory; and the ShareStatePersister contract run through the forwarding persister from
// "another broker" (persister.ts with the inter-broker channel), every call crossing the wire.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { ShareCoordinatorChannel } from '../../src/coordinator/share/inter-broker.js'
import { BrokerSharePersister } from '../../src/coordinator/share/persister.js'
import { partitionForShareKey } from '../../src/coordinator/share/share-state-topic.js'
import { type RunningBroker, startBroker } from '../../src/index.js'
import { DeliveryState } from '../../src/ports/shares.js'
import { ErrorCode } from '../../src/protocol/errors.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../src/protocol/messages/10-find-coordinator.js'
import {
  InitializeShareGroupStateRequest,
  InitializeShareGroupStateResponse,
} from '../../src/protocol/messages/83-initialize-share-group-state.js'
import { ReadShareGroupStateRequest, ReadShareGroupStateResponse } from '../../src/protocol/messages/84-read-share-group-state.js'
import { WriteShareGroupStateRequest, WriteShareGroupStateResponse } from '../../src/protocol/messages/85-write-share-group-state.js'
import { DeleteShareGroupStateRequest, DeleteShareGroupStateResponse } from '../../src/protocol/messages/86-delete-share-group-state.js'
import {
  ReadShareGroupStateSummaryRequest,
  ReadShareGroupStateSummaryResponse,
} from '../../src/protocol/messages/87-read-share-group-state-summary.js'
import { systemClock } from '../../src/util/clock.js'
import { silentLogger } from '../../src/util/logger.js'
import { shareStatePersisterContract } from '../unit/share-state-contract.js'

const E = (name: keyof typeof ErrorCode) => ErrorCode[name].code
const TOPIC = 'sc-data'
const GROUP = 'share-g'
const STATE_PARTITIONS = 5

async function start(dataDir: string): Promise<RunningBroker> {
  return startBroker({
    dataDir,
    port: 0,
    logger: silentLogger,
    config: { 'share.coordinator.state.topic.num.partitions': STATE_PARTITIONS },
  })
}

async function connect(b: RunningBroker): Promise<KafkaClient> {
  return KafkaClient.connect({ bootstrap: [b.bootstrap], requestTimeoutMs: 10_000 })
}

async function topicIdOf(client: KafkaClient, topic: string): Promise<string> {
  const md = await client.metadata([topic], { refresh: true })
  return md.topics.get(topic)!.topicId
}

describe('share coordinator over the wire', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-share-coord-'))
  let broker: RunningBroker
  let client: KafkaClient
  let topicId: string

  before(async () => {
    broker = await start(dir)
    client = await connect(broker)
    await createTopics(client, [{ name: TOPIC, numPartitions: 3, replicationFactor: 1 }])
    topicId = await topicIdOf(client, TOPIC)
  })

  after(async () => {
    await client?.close()
    await broker?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('FindCoordinator key type 2 names this broker, creates __share_group_state, refuses malformed keys and versions below 6', async () => {
    const keys = [`${GROUP}:${topicId}:0`, 'no-colons', `${GROUP}:not-a-topic-id:0`, `${GROUP}:${topicId}:-1`, `:${topicId}:0`]
    const res = await client.request(
      FindCoordinatorRequest,
      FindCoordinatorResponse,
      { keyType: 2, coordinatorKeys: keys },
      { maxVersion: 6 },
    )
    assert.deepEqual(
      res.coordinators.map((c) => c.errorCode),
      [0, E('INVALID_REQUEST'), E('INVALID_REQUEST'), E('INVALID_REQUEST'), E('INVALID_REQUEST')],
    )
    assert.equal(res.coordinators[0]!.port, broker.port)
    const md = await client.metadata(['__share_group_state'], { refresh: true })
    const t = md.topics.get('__share_group_state')!
    assert.equal(t.error, null)
    assert.equal(t.isInternal, true)
    assert.equal(t.partitions.length, STATE_PARTITIONS)
    const old = await client.request(
      FindCoordinatorRequest,
      FindCoordinatorResponse,
      { keyType: 2, coordinatorKeys: [keys[0]!] },
      { maxVersion: 5 },
    )
    assert.equal(old.coordinators[0]!.errorCode, E('INVALID_REQUEST'))
  })

  it('initializes, writes, reads, summarizes and deletes share-partition state; a restart keeps it', async () => {
    const init = await client.request(InitializeShareGroupStateRequest, InitializeShareGroupStateResponse, {
      groupId: GROUP,
      topics: [{ topicId, partitions: [0, 1, 2].map((partition) => ({ partition, stateEpoch: 1, startOffset: 10 * partition })) }],
    })
    assert.deepEqual(
      init.results[0]!.partitions.map((p) => [p.partition, p.errorCode]),
      [
        [0, 0],
        [1, 0],
        [2, 0],
      ],
    )
    const batches = [
      { firstOffset: 0, lastOffset: 4, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 1 },
      { firstOffset: 5, lastOffset: 5, deliveryState: DeliveryState.AVAILABLE, deliveryCount: 2 },
    ]
    const w = await client.request(WriteShareGroupStateRequest, WriteShareGroupStateResponse, {
      groupId: GROUP,
      topics: [
        {
          topicId,
          partitions: [
            { partition: 0, stateEpoch: 1, leaderEpoch: 3, startOffset: 0, deliveryCompleteCount: 5, stateBatches: batches },
            { partition: 1, stateEpoch: 0, leaderEpoch: 3, startOffset: 0, deliveryCompleteCount: 5, stateBatches: batches },
            { partition: 7, stateEpoch: 1, leaderEpoch: 3, startOffset: 0, deliveryCompleteCount: 5, stateBatches: batches },
          ],
        },
      ],
    })
    assert.deepEqual(
      w.results[0]!.partitions.map((p) => p.errorCode),
      [0, E('FENCED_STATE_EPOCH'), E('UNKNOWN_TOPIC_OR_PARTITION')],
    )
    const del = await client.request(DeleteShareGroupStateRequest, DeleteShareGroupStateResponse, {
      groupId: GROUP,
      topics: [{ topicId, partitions: [{ partition: 2 }] }],
    })
    assert.equal(del.results[0]!.partitions[0]!.errorCode, 0)

    const readAll = async (c: KafkaClient) =>
      (
        await c.request(ReadShareGroupStateRequest, ReadShareGroupStateResponse, {
          groupId: GROUP,
          topics: [{ topicId, partitions: [0, 1, 2].map((partition) => ({ partition, leaderEpoch: 3 })) }],
        })
      ).results[0]!.partitions.map((p) => ({
        partition: p.partition,
        errorCode: p.errorCode,
        stateEpoch: p.stateEpoch,
        startOffset: p.startOffset,
        stateBatches: p.stateBatches,
      }))
    const expected = [
      { partition: 0, errorCode: 0, stateEpoch: 1, startOffset: 0, stateBatches: batches },
      { partition: 1, errorCode: 0, stateEpoch: 1, startOffset: 10, stateBatches: [] },
      { partition: 2, errorCode: 0, stateEpoch: 0, startOffset: -1, stateBatches: [] },
    ]
    assert.deepEqual(await readAll(client), expected)
    const summary = await client.request(ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse, {
      groupId: GROUP,
      topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }],
    })
    const s = summary.results[0]!.partitions[0]!
    assert.deepEqual([s.errorCode, s.stateEpoch, s.leaderEpoch, s.startOffset, s.deliveryCompleteCount], [0, 1, 3, 0, 5])

    await client.close()
    await broker.close()
    broker = await start(dir)
    client = await connect(broker)
    // Right after the start the partitions may still be loading: COORDINATOR_LOAD_IN_PROGRESS is retried.
    let after: Awaited<ReturnType<typeof readAll>> = []
    for (let i = 0; i < 100; i++) {
      after = await readAll(client)
      if (after.every((p) => p.errorCode !== E('COORDINATOR_LOAD_IN_PROGRESS') && p.errorCode !== E('NOT_COORDINATOR'))) break
      await new Promise((r) => setTimeout(r, 100))
    }
    assert.deepEqual(after, expected)
  })

  it('the inter-broker channel sends a tick’s calls of one group as one request and gives each key its own answer', async () => {
    const channel = new ShareCoordinatorChannel({
      nodeId: 99,
      endpointOf: () => ({ host: broker.host, port: broker.port }),
      requestTimeoutMs: 10_000,
      logger: silentLogger,
    })
    try {
      const key = (partition: number) => ({ groupId: 'batched', topicId, partition })
      const answers = await Promise.all([0, 1, 9, 2].map((p) => channel.initialize(0, key(p), 1, p * 100)))
      assert.deepEqual(
        answers.map((a) => a.errorCode),
        [0, 0, E('UNKNOWN_TOPIC_OR_PARTITION'), 0],
      )
      const reads = await Promise.all([2, 0, 1].map((p) => channel.read(0, key(p), 0)))
      assert.deepEqual(
        reads.map((r) => r.startOffset),
        [200, 0, 100],
      )
    } finally {
      channel.close()
    }
  })
})

// The contract through the forwarding persister of a broker that coordinates nothing (node 99):
// every call goes over the inter-broker channel to the real broker, which leads every partition.
{
  let broker: RunningBroker | undefined
  let dir: string | undefined
  shareStatePersisterContract('BrokerSharePersister forwarding to a real broker over the wire', async () => {
    if (!broker) {
      dir = mkdtempSync(join(tmpdir(), 'tributary-share-fwd-'))
      broker = await start(dir)
      const c = await connect(broker)
      await createTopics(c, [{ name: TOPIC, numPartitions: 3, replicationFactor: 1 }])
      // FindCoordinator of a share key creates __share_group_state (its partitions are led, then loaded).
      const id = await topicIdOf(c, TOPIC)
      await c.request(FindCoordinatorRequest, FindCoordinatorResponse, { keyType: 2, coordinatorKeys: [`g1:${id}:0`] }, { maxVersion: 6 })
      await c.close()
    }
    const b = broker
    const c = await connect(b)
    const topicId = await topicIdOf(c, TOPIC)
    // Fresh keys per test: a group of its own.
    const channel = new ShareCoordinatorChannel({
      nodeId: 99,
      endpointOf: () => ({ host: b.host, port: b.port }),
      requestTimeoutMs: 10_000,
      logger: silentLogger,
    })
    const persister = new BrokerSharePersister({
      nodeId: 99,
      clock: systemClock,
      local: {
        partitionFor: (k) => partitionForShareKey(k, STATE_PARTITIONS),
        ensureCoordinatorTopic: async () => {},
        initialize: () => assert.fail('not the coordinator'),
        read: () => assert.fail('not the coordinator'),
        write: () => assert.fail('not the coordinator'),
        delete: () => assert.fail('not the coordinator'),
        readSummary: () => assert.fail('not the coordinator'),
      },
      remote: channel,
      leaderOf: () => 0,
      retryBackoffMs: 50,
      timeoutMs: 10_000,
    })
    // Each test starts from no state: the keys of the previous one are deleted.
    for (const partition of [0, 1, 2]) {
      for (const groupId of ['g1', 'g2']) assert.equal((await persister.delete({ groupId, topicId, partition })).errorCode, 0)
    }
    return {
      persister,
      topicId,
      close: async () => {
        channel.close()
        await c.close()
      },
    }
  })
  after(async () => {
    await broker?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })
}
