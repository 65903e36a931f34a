// The broker's ShareStatePersister (src/coordinator/share/persister.ts) on fakes and a virtual
// clock: the contract when this broker coordinates every key; a call to a key led elsewhere goes
// to that broker; "ask again" answers (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, no leader
// known, a failed connection) are retried with the leader looked up again until the timeout, after
// which the last one is answered; other answers (fencing) are not retried.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { BrokerSharePersister } from '../../../../src/coordinator/share/persister.js'
import { ShareCoordinator } from '../../../../src/coordinator/share/share-coordinator.js'
import { partitionForShareKey } from '../../../../src/coordinator/share/share-state-topic.js'
import type { ShareCoordinatorService } from '../../../../src/ports/share-coordinator.js'
import type { SharePartitionKey, ShareStateResult } from '../../../../src/ports/shares.js'
import { ErrorCode } from '../../../../src/protocol/errors.js'
import { ManualClock } from '../../../../src/util/clock.js'
import { silentLogger } from '../../../../src/util/logger.js'
import { shareStatePersisterContract } from '../../share-state-contract.js'

const E = (name: keyof typeof ErrorCode) => ErrorCode[name].code
const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ'
const KEY: SharePartitionKey = { groupId: 'g', topicId: TOPIC_ID, partition: 0 }
const ok: ShareStateResult = { errorCode: 0, errorMessage: null }

/** A log that keeps nothing but answers every append at the next offset. */
function memoryCoordinator(clock: ManualClock): ShareCoordinator {
  let next = 0
  return new ShareCoordinator({
    clock,
    logger: silentLogger,
    config: { updatesPerSnapshot: 500, pruneIntervalMs: 0 },
    log: {
      partitionFor: (k) => partitionForShareKey(k, 1),
      ensureTopic: async () => {},
      append: async () => next++,
      loadPartition: async () => 0,
      deleteRecordsBelow: async () => {},
    },
  })
}

shareStatePersisterContract('BrokerSharePersister, every key coordinated here', async () => {
  const clock = new ManualClock()
  const local = memoryCoordinator(clock)
  await local.onElection(0, 0)
  const persister = new BrokerSharePersister({
    nodeId: 1,
    clock,
    local,
    remote: {} as never,
    leaderOf: () => 1,
    retryBackoffMs: 100,
    timeoutMs: 1000,
  })
  return { persister, topicId: TOPIC_ID, close: async () => local.close() }
})

function fakeLocal(answers: number[], calls: string[]): ShareCoordinatorService {
  const next = async (what: string) => {
    calls.push(`local ${what}`)
    return { errorCode: answers.shift() ?? 0, errorMessage: null }
  }
  return {
    partitionFor: () => 7,
    ensureCoordinatorTopic: async () => {},
    initialize: () => next('initialize'),
    write: () => next('write'),
    delete: () => next('delete'),
    read: async () => ({ ...(await next('read')), stateEpoch: 0, startOffset: -1, stateBatches: [] }),
    readSummary: async () => ({ ...(await next('summary')), stateEpoch: 0, leaderEpoch: 0, startOffset: -1, deliveryCompleteCount: -1 }),
  }
}

/** Runs the clock until the call settles. */
async function settle<T>(clock: ManualClock, p: Promise<T>): Promise<T> {
  let done = false
  void p.finally(() => (done = true))
  for (let i = 0; i < 1000 && !done; i++) {
    await new Promise((r) => setImmediate(r))
    clock.advance(50)
  }
  return p
}

describe('BrokerSharePersister', () => {
  it('sends a key led elsewhere to its leader, and retries there and here as the leader moves', async () => {
    const clock = new ManualClock()
    const calls: string[] = []
    let leader: number | undefined = 2
    const remoteAnswers = [E('NETWORK_EXCEPTION'), E('NOT_COORDINATOR')]
    const persister = new BrokerSharePersister({
      nodeId: 1,
      clock,
      local: fakeLocal([E('COORDINATOR_LOAD_IN_PROGRESS'), 0], calls),
      remote: {
        write: async (nodeId: number) => {
          calls.push(`remote ${nodeId} write`)
          const code = remoteAnswers.shift() ?? 0
          if (code === E('NOT_COORDINATOR')) leader = undefined // the partition is being moved
          return { errorCode: code, errorMessage: null }
        },
      } as never,
      leaderOf: (partition) => {
        assert.equal(partition, 7)
        const l = leader
        if (l === undefined) leader = 1 // elected here at the next look-up
        return l
      },
      retryBackoffMs: 100,
      timeoutMs: 10_000,
    })
    const r = await settle(
      clock,
      persister.write(KEY, { stateEpoch: 0, leaderEpoch: 0, startOffset: 0, deliveryCompleteCount: -1, stateBatches: [] }),
    )
    assert.deepEqual(r, ok)
    assert.deepEqual(calls, ['remote 2 write', 'remote 2 write', 'local write', 'local write'])
  })

  it('answers the last retriable error once the timeout has passed, and fencing at once', async () => {
    const clock = new ManualClock()
    const calls: string[] = []
    const persister = new BrokerSharePersister({
      nodeId: 1,
      clock,
      local: fakeLocal(Array(100).fill(E('NOT_COORDINATOR')), calls),
      remote: {} as never,
      leaderOf: () => 1,
      retryBackoffMs: 100,
      timeoutMs: 1000,
    })
    const r = await settle(clock, persister.delete(KEY))
    assert.equal(r.errorCode, E('NOT_COORDINATOR'))
    assert.ok(calls.length >= 5 && calls.length <= 11, `${calls.length} attempts within 1000 ms at 100 ms apart`)

    const fencedCalls: string[] = []
    const fenced = new BrokerSharePersister({
      nodeId: 1,
      clock,
      local: fakeLocal([E('FENCED_STATE_EPOCH')], fencedCalls),
      remote: {} as never,
      leaderOf: () => 1,
      retryBackoffMs: 100,
      timeoutMs: 1000,
    })
    assert.equal((await fenced.initialize(KEY, 1, 0)).errorCode, E('FENCED_STATE_EPOCH'))
    assert.equal(fencedCalls.length, 1)
  })

  it('without a known leader answers COORDINATOR_NOT_AVAILABLE after the timeout', async () => {
    const clock = new ManualClock()
    const persister = new BrokerSharePersister({
      nodeId: 1,
      clock,
      local: fakeLocal([], []),
      remote: {} as never,
      leaderOf: () => -1,
      retryBackoffMs: 100,
      timeoutMs: 500,
    })
    const r = await settle(clock, persister.read(KEY, 0))
    assert.equal(r.errorCode, E('COORDINATOR_NOT_AVAILABLE'))
    assert.equal(r.startOffset, -1)
  })
})
