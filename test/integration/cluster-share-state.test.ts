// Share-coordinator failover: three broker processes over etcd (test/helpers/cluster.ts) with
// `__share_group_state` at replication factor 3 (min ISR 2). State is initialized and written for
// the partitions of a topic through their share coordinator (FindCoordinator key type 2) — a
// broker that is not a key's coordinator answers NOT_COORDINATOR; that broker's persister forwards
// instead, as test/integration/share-coordinator.test.ts shows over the wire — then the
// coordinator of the first key is killed with kill -9. The key's new coordinator (the new leader of
// its state partition, having loaded it) must read back everything that was acknowledged, and
// accept the next write.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { DeliveryState } from '../../src/ports/shares.js'
import { ErrorCode } from '../../src/protocol/errors.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../src/protocol/messages/10-find-coordinator.js'
import {
  InitializeShareGroupStateRequest,
  InitializeShareGroupStateResponse,
} from '../../src/protocol/messages/83-initialize-share-group-state.js'
import { ReadShareGroupStateRequest, ReadShareGroupStateResponse } from '../../src/protocol/messages/84-read-share-group-state.js'
import { WriteShareGroupStateRequest, WriteShareGroupStateResponse } from '../../src/protocol/messages/85-write-share-group-state.js'
import { type Cluster, startCluster, waitFor } from '../helpers/cluster.js'

const E = (name: keyof typeof ErrorCode) => ErrorCode[name].code
const WAIT_MS = 120_000
const TOPIC = 'share-fo'
const GROUP = 'share-fo-g'
const PARTITIONS = 3
const WRITES = 20

describe('share coordinator killed with kill -9 (3 brokers, __share_group_state at RF 3)', () => {
  let c: Cluster
  let client: KafkaClient | undefined

  before(async () => {
    c = await startCluster({
      brokers: 3,
      overrides: {
        'share.coordinator.state.topic.replication.factor': '3',
        'share.coordinator.state.topic.min.isr': '2',
        'share.coordinator.state.topic.num.partitions': '3',
        'replica.lag.time.max.ms': '10000',
      },
    })
  })

  after(async () => {
    await client?.close()
    await c?.close()
  })

  const connect = async () => {
    await client?.close()
    client = await KafkaClient.connect({ bootstrap: c.bootstrap().split(','), requestTimeoutMs: 15_000 })
    return client
  }

  /** The share coordinator of a key, once one is named (FindCoordinator v6, key type 2). */
  const coordinatorOf = (key: string, not?: number) =>
    waitFor(
      async () => {
        const cl = await connect()
        const res = await cl.request(
          FindCoordinatorRequest,
          FindCoordinatorResponse,
          { keyType: 2, coordinatorKeys: [key] },
          { maxVersion: 6 },
        )
        const a = res.coordinators[0]
        return a && a.errorCode === 0 && a.nodeId >= 0 && a.nodeId !== not && c.liveIds().includes(a.nodeId) ? a.nodeId : undefined
      },
      `the share coordinator of ${key}`,
      WAIT_MS,
      250,
    )

  /** Retries a call to `nodeId` while it answers that it is loading or not (yet) the coordinator. */
  async function untilServed<T extends { errorCode: number }>(what: string, call: () => Promise<T>): Promise<T> {
    return waitFor(
      async () => {
        const r = await call().catch(() => undefined)
        if (!r) return undefined
        const again = [E('COORDINATOR_LOAD_IN_PROGRESS'), E('NOT_COORDINATOR'), E('COORDINATOR_NOT_AVAILABLE')]
        return again.includes(r.errorCode) ? undefined : r
      },
      what,
      WAIT_MS,
      250,
    )
  }

  it('keeps every acknowledged write across the coordinator’s kill -9', async () => {
    let cl = await connect()
    await createTopics(cl, [{ name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 3 }])
    const topicId = (await cl.metadata([TOPIC], { refresh: true })).topics.get(TOPIC)!.topicId
    const key0 = `${GROUP}:${topicId}:0`
    const coordinator = await coordinatorOf(key0)
    cl = client!

    const init = await untilServed('initialize', async () => {
      const res = await cl.request(
        InitializeShareGroupStateRequest,
        InitializeShareGroupStateResponse,
        { groupId: GROUP, topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 1, startOffset: 0 }] }] },
        { nodeId: coordinator },
      )
      return res.results[0]!.partitions[0]!
    })
    assert.equal(init.errorCode, 0)

    // A broker that is not the coordinator refuses the key.
    const other = c.liveIds().find((id) => id !== coordinator)!
    const refused = await cl.request(
      ReadShareGroupStateRequest,
      ReadShareGroupStateResponse,
      { groupId: GROUP, topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }] },
      { nodeId: other },
    )
    assert.equal(refused.results[0]!.partitions[0]!.errorCode, E('NOT_COORDINATOR'))

    // Records 0..2*WRITES-1 acknowledged two by two: each write one batch.
    for (let i = 0; i < WRITES; i++) {
      const res = await cl.request(
        WriteShareGroupStateRequest,
        WriteShareGroupStateResponse,
        {
          groupId: GROUP,
          topics: [
            {
              topicId,
              partitions: [
                {
                  partition: 0,
                  stateEpoch: 1,
                  leaderEpoch: 1,
                  startOffset: -1,
                  deliveryCompleteCount: 2 * (i + 1),
                  stateBatches: [
                    { firstOffset: 2 * i, lastOffset: 2 * i + 1, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 1 },
                  ],
                },
              ],
            },
          ],
        },
        { nodeId: coordinator },
      )
      assert.equal(res.results[0]!.partitions[0]!.errorCode, 0, `write ${i}`)
    }

    await c.kill9(coordinator)
    const successor = await coordinatorOf(key0, coordinator)
    assert.notEqual(successor, coordinator)
    const read = await untilServed('read from the successor', async () => {
      const res = await client!.request(
        ReadShareGroupStateRequest,
        ReadShareGroupStateResponse,
        { groupId: GROUP, topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 1 }] }] },
        { nodeId: successor },
      )
      return res.results[0]!.partitions[0]!
    })
    assert.equal(read.errorCode, 0)
    assert.equal(read.stateEpoch, 1)
    assert.equal(read.startOffset, 0)
    assert.deepEqual(read.stateBatches, [
      { firstOffset: 0, lastOffset: 2 * WRITES - 1, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 1 },
    ])
    // The next write is accepted (retried while the in-sync replicas shrink past the dead one).
    const next = await untilServed('the next write', async () => {
      const res = await client!.request(
        WriteShareGroupStateRequest,
        WriteShareGroupStateResponse,
        {
          groupId: GROUP,
          topics: [
            {
              topicId,
              partitions: [
                { partition: 0, stateEpoch: 1, leaderEpoch: 2, startOffset: 2 * WRITES, deliveryCompleteCount: 0, stateBatches: [] },
              ],
            },
          ],
        },
        { nodeId: successor },
      )
      return res.results[0]!.partitions[0]!
    })
    assert.equal(next.errorCode, 0)
  })
})
