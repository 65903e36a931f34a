// What the versions raised to Kafka 4.4's maxima answer, through the handlers (every request and
// answer goes through the message codec at the version tested):
// - ListOffsets v10–11: the tiered-storage special timestamps on a log without remote storage
//   (-4 = log start, -5 / -6 = none), the per-version table of special timestamps
//   (UNSUPPORTED_VERSION), duplicate partitions (INVALID_REQUEST) — over a real log;
// - OffsetCommit / OffsetFetch v10: topics by id, UNKNOWN_TOPIC_ID for an id no topic has;
// - DescribeGroups v6: GROUP_ID_NOT_FOUND for an unknown group, Dead without error below v6;
// - DeleteGroups v3: a message with each failure; DescribeCluster v2: no broker is fenced;
// - Metadata v13: the top-level error code is NONE.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { TopicRecord } from '../../../src/ports/metadata-store.js'
import listOffsets from '../../../src/handlers/02-list-offsets.js'
import metadata from '../../../src/handlers/03-metadata.js'
import offsetCommit from '../../../src/handlers/08-offset-commit.js'
import offsetFetch from '../../../src/handlers/09-offset-fetch.js'
import describeGroups from '../../../src/handlers/15-describe-groups.js'
import deleteGroups from '../../../src/handlers/42-delete-groups.js'
import describeCluster from '../../../src/handlers/60-describe-cluster.js'
import { allHandlers } from '../../../src/handlers/index.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { silentLogger } from '../../../src/util/logger.js'
import { setup } from '../coordinator/group-helpers.js'
import { callHandler, openLocalBroker } from '../../helpers/local-broker.js'

const code = (name: keyof typeof ErrorCode) => ErrorCode[name].code
const call = callHandler

describe('advertised ranges', () => {
  it('reach Kafka 4.4’s maxima; InitProducerId stays at v5 (v6 is unstable in Kafka 4.4)', () => {
    const ranges = new Map(allHandlers.map((x) => [x.request.apiKey, `${x.minVersion}-${x.maxVersion}`]))
    assert.deepEqual(
      [2, 3, 8, 9, 15, 22, 42, 60].map((k) => ranges.get(k)),
      ['1-11', '0-13', '2-10', '1-10', '0-6', '0-5', '0-3', '0-2'],
    )
  })
})

describe('ListOffsets v10–11 over a real log without tiered storage', () => {
  let dir: string
  let broker: BrokerServices
  let close: () => Promise<void>

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tributary-lo44-'))
    const core = await openLocalBroker(dir)
    const { clock, configs, replicas, controller } = core
    close = core.close
    await controller.create(
      { name: 't', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'file.delete.delay.ms', value: '0' }] },
      false,
    )
    const p = replicas.require('t', 0)
    for (let i = 0; i < 3; i++) {
      const records = [0, 1].map((j) => ({ key: Buffer.from(`k${i}${j}`), value: Buffer.from('v'), timestamp: 1000 + i }))
      await replicas.append(p, buildRecordBatch({ records }), 1 << 20)
    }
    await replicas.deleteRecords(p, 2, 0) // the log now starts at 2 and ends at 6
    broker = { nodeId: 0, clock, logger: silentLogger, topics: controller, replicas, configs } as unknown as BrokerServices
  })
  after(async () => {
    await close()
    rmSync(dir, { recursive: true, force: true })
  })

  /** [errorCode, offset, timestamp, leaderEpoch] of partition 0 for each timestamp (one request each). */
  async function ask(version: number, timestamps: number[], timeoutMs = 0) {
    const out = []
    for (const timestamp of timestamps) {
      const r = await call(broker, listOffsets, version, {
        replicaId: -1,
        isolationLevel: 0,
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }],
        timeoutMs,
      })
      const p = r.topics[0]!.partitions[0]!
      out.push([p.errorCode, p.offset, p.timestamp, p.leaderEpoch])
    }
    return out
  }

  it('v11: -2 and -4 are the log start, -1 the end, -5 and -6 none (offset and epoch -1, no error)', async () => {
    const epoch = broker.replicas.require('t', 0).leaderEpoch
    for (const v of [10, 11]) {
      const [earliest, earliestLocal, latest, latestTiered] = await ask(v, [-2, -4, -1, -5], 30_000)
      assert.deepEqual(earliest, [0, 2, -1, epoch], `v${v} -2`)
      assert.deepEqual(earliestLocal, [0, 2, -1, epoch], `v${v} -4: no tiered storage, so the local log starts at the log start`)
      assert.deepEqual(latest, [0, 6, -1, epoch], `v${v} -1`)
      assert.deepEqual(latestTiered, [0, -1, -1, -1], `v${v} -5: nothing is tiered`)
    }
    assert.deepEqual(await ask(11, [-6]), [[0, -1, -1, -1]], '-6: nothing waits for an upload')
    assert.deepEqual((await ask(11, [1001]))[0]!.slice(0, 3), [0, 2, 1001], 'a timestamp finds its first record')
  })

  it('a special timestamp older than its version, or unknown, is UNSUPPORTED_VERSION for its partition', async () => {
    const unsupported = [code('UNSUPPORTED_VERSION'), -1, -1, -1]
    assert.deepEqual(await ask(10, [-6]), [unsupported], '-6 needs v11')
    assert.deepEqual(await ask(8, [-5, -4]), [unsupported, [0, 2, -1, broker.replicas.require('t', 0).leaderEpoch]], '-5 needs v9, -4 v8')
    assert.deepEqual(await ask(7, [-4]), [unsupported], '-4 needs v8')
    assert.deepEqual(await ask(6, [-3]), [unsupported], '-3 needs v7')
    assert.deepEqual(await ask(1, [-2, -1]).then((r) => r.map((p) => p[0])), [0, 0])
    assert.deepEqual(await ask(11, [-7]), [unsupported], 'no special timestamp -7')
  })

  it('a partition listed twice is INVALID_REQUEST', async () => {
    const r = await call(broker, listOffsets, 11, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: 't', partitions: [-1, -2].map((timestamp) => ({ partitionIndex: 0, currentLeaderEpoch: -1, timestamp })) }],
    })
    assert.deepEqual(
      r.topics[0]!.partitions.map((p) => [p.errorCode, p.offset]),
      [
        [code('INVALID_REQUEST'), -1],
        [code('INVALID_REQUEST'), -1],
      ],
    )
  })
})

// ---------------------------------------------------------------------------------------------
// Group APIs over a real coordinator, with two known topics.

const T1: TopicRecord = { name: 't1', topicId: 'AQIDBAUGBwgJCgsMDQ4PEA', partitions: 2, replicationFactor: 1, configs: {}, createdMs: 0 }
const T2: TopicRecord = { name: 't2', topicId: 'EBEREhMUFRYXGBkaGxwdHg', partitions: 1, replicationFactor: 1, configs: {}, createdMs: 0 }
const UNKNOWN_ID = 'ICEiIyQlJicoKSorLC0uLw'
const ZERO_ID = 'AAAAAAAAAAAAAAAAAAAAAA'

async function groupBroker(): Promise<BrokerServices> {
  const h = await setup()
  const known = [T1, T2]
  return {
    nodeId: 7,
    clusterId: 'c',
    clock: h.clock,
    logger: silentLogger,
    brokers: () => [{ nodeId: 7, host: 'broker.example', port: 9093, rack: null }],
    controllerId: () => 7,
    topics: {
      get: (name: string) => known.find((t) => t.name === name),
      getById: (id: string) => known.find((t) => t.topicId === id),
      list: () => known,
      partitionState: () => ({
        leader: 7,
        leaderEpoch: 3,
        partitionEpoch: 0,
        replicas: [7],
        isr: [7],
        addingReplicas: [],
        removingReplicas: [],
      }),
    },
    groups: h.coordinator,
  } as unknown as BrokerServices
}

describe('OffsetCommit / OffsetFetch v10: topics by id', () => {
  it('commit by id: known ids commit under the topic, unknown and zero ids are UNKNOWN_TOPIC_ID', async () => {
    const broker = await groupBroker()
    const part = (partitionIndex: number, committedOffset: number) => ({
      partitionIndex,
      committedOffset,
      committedMetadata: `m${committedOffset}`,
    })
    const r = await call(broker, offsetCommit, 10, {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        { topicId: T1.topicId, partitions: [part(0, 5), part(7, 1)] },
        { topicId: UNKNOWN_ID, partitions: [part(0, 1), part(1, 1)] },
        { topicId: ZERO_ID, partitions: [part(0, 1)] },
        { topicId: T2.topicId, partitions: [part(0, 9)] },
      ],
    })
    assert.deepEqual(
      r.topics.map((t) => [t.topicId, t.partitions.map((p) => [p.partitionIndex, p.errorCode])]),
      [
        [
          T1.topicId,
          [
            [0, 0],
            [7, code('UNKNOWN_TOPIC_OR_PARTITION')],
          ],
        ],
        [
          UNKNOWN_ID,
          [
            [0, code('UNKNOWN_TOPIC_ID')],
            [1, code('UNKNOWN_TOPIC_ID')],
          ],
        ],
        [ZERO_ID, [[0, code('UNKNOWN_TOPIC_ID')]]],
        [T2.topicId, [[0, 0]]],
      ],
    )
    // Stored under the topic's name: a v9 fetch by name sees them.
    const v9 = await call(broker, offsetFetch, 9, { groups: [{ groupId: 'g', topics: [{ name: 't1', partitionIndexes: [0] }] }] })
    assert.deepEqual(
      v9.groups[0]!.topics[0]!.partitions.map((p) => [p.committedOffset, p.metadata]),
      [[5, 'm5']],
    )
    // A v9 commit by name still works alongside.
    const byName = await call(broker, offsetCommit, 9, {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [{ name: 't1', partitions: [part(1, 6)] }],
    })
    assert.equal(byName.topics[0]!.partitions[0]!.errorCode, 0)
  })

  it('fetch by id: committed offsets with their ids, UNKNOWN_TOPIC_ID for unknown ids, ids filled for all-topics', async () => {
    const broker = await groupBroker()
    await call(broker, offsetCommit, 9, {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        { name: 't1', partitions: [{ partitionIndex: 1, committedOffset: 11, committedMetadata: 'x' }] },
        { name: 't2', partitions: [{ partitionIndex: 0, committedOffset: 22, committedMetadata: null }] },
      ],
    })
    const r = await call(broker, offsetFetch, 10, {
      groups: [
        {
          groupId: 'g',
          topics: [
            { topicId: T1.topicId, partitionIndexes: [0, 1] },
            { topicId: UNKNOWN_ID, partitionIndexes: [3] },
          ],
        },
      ],
    })
    const g = r.groups[0]!
    assert.equal(g.errorCode, 0)
    assert.deepEqual(
      g.topics.map((t) => [
        t.topicId,
        t.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.committedLeaderEpoch, p.metadata, p.errorCode]),
      ]),
      [
        [
          T1.topicId,
          [
            [0, -1, -1, '', 0],
            [1, 11, -1, 'x', 0],
          ],
        ],
        [UNKNOWN_ID, [[3, -1, -1, '', code('UNKNOWN_TOPIC_ID')]]],
      ],
    )
    const all = await call(broker, offsetFetch, 10, { groups: [{ groupId: 'g', topics: null }] })
    assert.deepEqual(
      all.groups[0]!.topics.map((t) => [t.topicId, t.partitions.map((p) => [p.partitionIndex, p.committedOffset])]),
      [
        [T1.topicId, [[1, 11]]],
        [T2.topicId, [[0, 22]]],
      ],
    )
    // A group-level error stays at the group level.
    const bad = await call(broker, offsetFetch, 10, {
      groups: [{ groupId: 'x'.repeat(300), topics: [{ topicId: T1.topicId, partitionIndexes: [0] }] }],
    })
    assert.deepEqual([bad.groups[0]!.errorCode, bad.groups[0]!.topics.length], [code('INVALID_GROUP_ID'), 0])
  })
})

describe('DescribeGroups v6, DeleteGroups v3', () => {
  it('an unknown group: Dead without an error below v6, GROUP_ID_NOT_FOUND with a message from v6', async () => {
    const broker = await groupBroker()
    await call(broker, offsetCommit, 9, {
      groupId: 'known',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [{ name: 't1', partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: null }] }],
    })
    for (const v of [0, 5, 6]) {
      const r = await call(broker, describeGroups, v, { groups: ['known', 'nope'] })
      const [known, nope] = r.groups
      assert.deepEqual([known!.groupState, known!.errorCode, known!.errorMessage], ['Empty', 0, null], `v${v} known`)
      if (v < 6) assert.deepEqual([nope!.groupState, nope!.errorCode, nope!.errorMessage], ['Dead', 0, null], `v${v} unknown`)
      else
        assert.deepEqual(
          [nope!.groupState, nope!.errorCode, nope!.errorMessage],
          ['Dead', code('GROUP_ID_NOT_FOUND'), 'Group nope not found.'],
        )
    }
  })

  it('DeleteGroups v3 says why a group was not deleted; v2 carries no message', async () => {
    const broker = await groupBroker()
    await call(broker, offsetCommit, 9, {
      groupId: 'known',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [{ name: 't1', partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: null }] }],
    })
    const r = await call(broker, deleteGroups, 3, { groupsNames: ['known', 'nope'] })
    assert.deepEqual(
      r.results.map((x) => [x.groupId, x.errorCode, x.errorMessage]),
      [
        ['known', 0, null],
        ['nope', code('GROUP_ID_NOT_FOUND'), 'Group nope not found.'],
      ],
    )
    const v2 = await call(broker, deleteGroups, 2, { groupsNames: ['known'] })
    assert.deepEqual(
      v2.results.map((x) => [x.errorCode, x.errorMessage]),
      [[code('GROUP_ID_NOT_FOUND'), null]],
    )
  })
})

describe('DescribeCluster v2, Metadata v13', () => {
  it('DescribeCluster v2: every broker listed is unfenced, with or without includeFencedBrokers', async () => {
    const broker = await groupBroker()
    for (const includeFencedBrokers of [false, true]) {
      const r = await call(broker, describeCluster, 2, { includeClusterAuthorizedOperations: false, endpointType: 1, includeFencedBrokers })
      assert.equal(r.errorCode, 0)
      assert.deepEqual(
        r.brokers.map((b) => [b.brokerId, b.host, b.port, b.isFenced]),
        [[7, 'broker.example', 9093, false]],
      )
    }
  })

  it('Metadata v13: topics as in v12 and a top-level error code of NONE', async () => {
    const broker = await groupBroker()
    const r = await call(broker, metadata, 13, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false })
    assert.equal(r.errorCode, 0)
    assert.deepEqual(
      r.topics.map((t) => [t.name, t.topicId, t.partitions.length]),
      [
        ['t1', T1.topicId, 2],
        ['t2', T2.topicId, 1],
      ],
    )
  })
})
