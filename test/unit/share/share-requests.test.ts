// ShareRequests with the share-partitions stubbed: a partition led elsewhere answers
// NOT_LEADER_OR_FOLLOWER with the leader the metadata knows and that broker's endpoint, for
// ShareFetch and for ShareAcknowledge (whose acknowledgements are then not applied).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_SHARE_GROUP_SETTINGS } from '../../../src/ports/shares.js'
import { ErrorCode, KafkaError } from '../../../src/protocol/errors.js'
import type { SharePartitionManager } from '../../../src/share/share-partition-manager.js'
import { ShareRequests } from '../../../src/share/share-requests.js'
import { ShareSessionCache } from '../../../src/share/share-sessions.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'

const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ'

function requests(): ShareRequests {
  const manager = {
    partition: async () => {
      throw new KafkaError('NOT_LEADER_OR_FOLLOWER')
    },
    releaseMember: async () => {},
    whenAvailable: async () => {},
  } as unknown as SharePartitionManager
  return new ShareRequests({
    manager,
    sessions: new ShareSessionCache(),
    topics: {
      getById: (id: string) => (id === TOPIC_ID ? ({ name: 't', topicId: TOPIC_ID, partitions: 3 } as never) : undefined),
      partitionState: () => ({ leader: 2, leaderEpoch: 5 }) as never,
    },
    settings: () => DEFAULT_SHARE_GROUP_SETTINGS,
    brokers: () => [
      { nodeId: 0, host: 'h0', port: 9092, rack: null },
      { nodeId: 2, host: 'h2', port: 9093, rack: 'r2' },
    ],
    waiters: { wait: async () => false },
    clock: new ManualClock(),
    logger: silentLogger,
    fetchMaxBytes: 1 << 20,
  })
}

const origin = { apiVersion: 2, connectionId: 1, listenerName: 'PLAINTEXT', closed: new AbortController().signal }

describe('ShareRequests: partitions led elsewhere', () => {
  it('ShareFetch answers NOT_LEADER_OR_FOLLOWER with the current leader and its endpoint', async () => {
    const r = requests()
    const { response } = await r.shareFetch(
      {
        groupId: 'g',
        memberId: 'm',
        shareSessionEpoch: 0,
        maxWaitMs: 1000,
        minBytes: 1,
        maxBytes: 1 << 20,
        maxRecords: 10,
        batchSize: 10,
        shareAcquireMode: 0,
        isRenewAck: false,
        topics: [{ topicId: TOPIC_ID, partitions: [{ partitionIndex: 1, partitionMaxBytes: 0, acknowledgementBatches: [] }] }],
        forgottenTopicsData: [],
      },
      origin,
    )
    const p = response.responses[0]!.partitions[0]!
    assert.equal(p.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER.code)
    assert.deepEqual(p.currentLeader, { leaderId: 2, leaderEpoch: 5 })
    assert.deepEqual(response.nodeEndpoints, [{ nodeId: 2, host: 'h2', port: 9093, rack: 'r2' }])
  })

  it('ShareAcknowledge answers it per partition too', async () => {
    const r = requests()
    await r.shareFetch(
      {
        groupId: 'g',
        memberId: 'm',
        shareSessionEpoch: 0,
        maxWaitMs: 0,
        minBytes: 1,
        maxBytes: 1 << 20,
        maxRecords: 10,
        batchSize: 10,
        shareAcquireMode: 0,
        isRenewAck: false,
        topics: [],
        forgottenTopicsData: [],
      },
      origin,
    )
    const res = await r.shareAcknowledge(
      {
        groupId: 'g',
        memberId: 'm',
        shareSessionEpoch: 1,
        isRenewAck: false,
        topics: [
          {
            topicId: TOPIC_ID,
            partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [1] }] }],
          },
        ],
      },
      origin,
    )
    assert.equal(res.errorCode, 0)
    assert.equal(res.responses[0]!.partitions[0]!.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER.code)
    assert.deepEqual(res.responses[0]!.partitions[0]!.currentLeader, { leaderId: 2, leaderEpoch: 5 })
    assert.equal(res.nodeEndpoints.length, 1)
  })
})
