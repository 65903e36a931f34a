// The share coordinator's APIs through their codecs and handlers, on fake services: FindCoordinator
// key type 2 (the leader of the key's __share_group_state partition, placed as Kafka places it —
// abs(javaHash("group:topicId:partition")) % partitions; malformed keys and versions below 6
// INVALID_REQUEST; the topic created first), and RPCs 83–87 handing each key to the coordinator
// with the request's fields (WriteShareGroupState v0 without a delivery-complete count), an empty
// group id answered with no results.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import findCoordinator from '../../../src/handlers/10-find-coordinator.js'
import initialize from '../../../src/handlers/83-initialize-share-group-state.js'
import read from '../../../src/handlers/84-read-share-group-state.js'
import write from '../../../src/handlers/85-write-share-group-state.js'
import del from '../../../src/handlers/86-delete-share-group-state.js'
import summary from '../../../src/handlers/87-read-share-group-state-summary.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import { parseShareCoordinatorKey, type ShareCoordinatorService } from '../../../src/ports/share-coordinator.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { callHandler } from '../../helpers/local-broker.js'

const E = (name: keyof typeof ErrorCode) => ErrorCode[name].code
const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ'

function fakeCoordinator(calls: unknown[]): ShareCoordinatorService {
  const ok = { errorCode: 0, errorMessage: null }
  const log = <T>(call: unknown[], answer: T): T => {
    calls.push(call)
    return answer
  }
  return {
    partitionFor: () => 0,
    ensureCoordinatorTopic: async () => {
      calls.push(['ensure'])
    },
    initialize: async (k, stateEpoch, startOffset) => log(['init', k, stateEpoch, startOffset], ok),
    write: async (k, w) => log(['write', k, w], ok),
    delete: async (k) => log(['delete', k], { errorCode: E('NOT_COORDINATOR'), errorMessage: 'elsewhere' }),
    read: async (k, e) =>
      log(['read', k, e], {
        ...ok,
        stateEpoch: 2,
        startOffset: 5,
        stateBatches: [{ firstOffset: 5, lastOffset: 6, deliveryState: 2, deliveryCount: 1 }],
      }),
    readSummary: async (k, e) => log(['summary', k, e], { ...ok, stateEpoch: 2, leaderEpoch: 3, startOffset: 5, deliveryCompleteCount: 9 }),
  }
}

function broker(extra: Partial<Record<keyof BrokerServices, unknown>>): BrokerServices {
  return { nodeId: 0, clock: new ManualClock(), logger: silentLogger, ...extra } as unknown as BrokerServices
}

describe('share coordinator handlers', () => {
  it('parses share coordinator keys as Kafka validates them', () => {
    assert.deepEqual(parseShareCoordinatorKey(`g:${TOPIC_ID}:7`), { groupId: 'g', topicId: TOPIC_ID, partition: 7 })
    for (const bad of [
      'g',
      `g:${TOPIC_ID}`,
      `:${TOPIC_ID}:0`,
      'g:short:0',
      `g:${TOPIC_ID}:-1`,
      `g:${TOPIC_ID}:x`,
      `a:b:${TOPIC_ID}:0`,
      `g:${TOPIC_ID}:99999999999`,
    ]) {
      assert.equal(typeof parseShareCoordinatorKey(bad), 'string', bad)
    }
  })

  it('FindCoordinator key type 2 names the leader of the key’s __share_group_state partition', async () => {
    const calls: unknown[] = []
    const b = broker({
      shareCoordinator: fakeCoordinator(calls),
      brokers: () => [{ nodeId: 2, host: 'h2', port: 9092, rack: null }],
      topics: {
        get: (name: string) => (name === '__share_group_state' ? { name, partitions: 50 } : undefined),
        partitionState: (topic: string, partition: number) => {
          calls.push(['state', `${topic}-${partition}`])
          return { leader: 2 }
        },
      },
    })
    const key = `g:${TOPIC_ID}:0`
    const res = await callHandler(b, findCoordinator, 6, { keyType: 2, coordinatorKeys: [key, 'bad'] })
    assert.deepEqual(
      res.coordinators.map((c) => [c.key, c.nodeId, c.errorCode]),
      [
        [key, 2, 0],
        ['bad', -1, E('INVALID_REQUEST')],
      ],
    )
    // "g:AAAAAAAAAAAAAAAAAAAAAQ:0".hashCode() = -92966823 → abs % 50 = 23.
    assert.ok(calls.some((c) => JSON.stringify(c) === JSON.stringify(['state', '__share_group_state-23'])))
    assert.deepEqual(calls[0], ['ensure'])
    const v5 = await callHandler(b, findCoordinator, 5, { keyType: 2, coordinatorKeys: [key] })
    assert.equal(v5.coordinators[0]!.errorCode, E('INVALID_REQUEST'))
  })

  it('RPCs 83–87 hand each key to the share coordinator and answer per partition', async () => {
    const calls: unknown[] = []
    const b = broker({ shareCoordinator: fakeCoordinator(calls) })
    const key = (partition: number) => ({ groupId: 'g', topicId: TOPIC_ID, partition })

    const i = await callHandler(b, initialize, 0, {
      groupId: 'g',
      topics: [{ topicId: TOPIC_ID, partitions: [{ partition: 1, stateEpoch: 4, startOffset: 10 }] }],
    })
    assert.equal(i.results[0]!.partitions[0]!.errorCode, 0)
    assert.deepEqual(calls.pop(), ['init', key(1), 4, 10])

    const batch = { firstOffset: 0, lastOffset: 1, deliveryState: 2, deliveryCount: 1 }
    const part = { partition: 2, stateEpoch: 4, leaderEpoch: 3, startOffset: 0, deliveryCompleteCount: 7, stateBatches: [batch] }
    await callHandler(b, write, 0, { groupId: 'g', topics: [{ topicId: TOPIC_ID, partitions: [part] }] })
    assert.deepEqual(calls.pop(), [
      'write',
      key(2),
      { stateEpoch: 4, leaderEpoch: 3, startOffset: 0, deliveryCompleteCount: -1, stateBatches: [batch] },
    ])
    await callHandler(b, write, 1, { groupId: 'g', topics: [{ topicId: TOPIC_ID, partitions: [part] }] })
    assert.equal((calls.pop() as [string, unknown, { deliveryCompleteCount: number }])[2].deliveryCompleteCount, 7)

    const r = await callHandler(b, read, 0, {
      groupId: 'g',
      topics: [{ topicId: TOPIC_ID, partitions: [{ partition: 0, leaderEpoch: 3 }] }],
    })
    assert.deepEqual(r.results[0]!.partitions[0], {
      partition: 0,
      errorCode: 0,
      errorMessage: null,
      stateEpoch: 2,
      startOffset: 5,
      stateBatches: [{ firstOffset: 5, lastOffset: 6, deliveryState: 2, deliveryCount: 1 }],
    })

    const s = await callHandler(b, summary, 1, {
      groupId: 'g',
      topics: [{ topicId: TOPIC_ID, partitions: [{ partition: 0, leaderEpoch: 0 }] }],
    })
    const sp = s.results[0]!.partitions[0]!
    assert.deepEqual([sp.stateEpoch, sp.leaderEpoch, sp.startOffset, sp.deliveryCompleteCount], [2, 3, 5, 9])

    const d = await callHandler(b, del, 0, {
      groupId: 'g',
      topics: [{ topicId: TOPIC_ID, partitions: [{ partition: 0 }, { partition: 1 }] }],
    })
    assert.deepEqual(
      d.results[0]!.partitions.map((p) => [p.partition, p.errorCode, p.errorMessage]),
      [
        [0, E('NOT_COORDINATOR'), 'elsewhere'],
        [1, E('NOT_COORDINATOR'), 'elsewhere'],
      ],
    )

    const n = calls.length
    const empty = await callHandler(b, read, 0, {
      groupId: '',
      topics: [{ topicId: TOPIC_ID, partitions: [{ partition: 0, leaderEpoch: 0 }] }],
    })
    assert.deepEqual(empty.results, [], 'Kafka answers an empty group id with no results')
    assert.equal(calls.length, n, 'the coordinator is not asked')
  })
})
