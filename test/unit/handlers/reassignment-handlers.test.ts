// AlterPartitionReassignments, ListPartitionReassignments and ElectLeaders over a fake
// PartitionAdminService: each request is encoded and decoded with the message codec for every
// version served, handled, and the answer encoded and decoded again, so a field a version cannot
// carry fails here. Checks what the handlers decide themselves: v0 always allows a replication
// factor change, per-partition errors and messages, ElectLeaders v0 elects the preferred replica,
// and with topicPartitions null only the partitions an election was tried for are answered.
import { testConn } from '../../helpers/local-broker.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import electLeaders from '../../../src/handlers/43-elect-leaders.js'
import alterReassignments from '../../../src/handlers/45-alter-partition-reassignments.js'
import listReassignments from '../../../src/handlers/46-list-partition-reassignments.js'
import type { Handler, RequestContext } from '../../../src/handlers/define.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import type { PartitionAdminService, PartitionReassignment } from '../../../src/ports/partition-admin.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import { silentLogger } from '../../../src/util/logger.js'

interface Calls {
  alter: Array<[string, number, readonly number[] | null, boolean]>
  elect: Array<[string, number, boolean]>
  list: Array<ReadonlyArray<{ name: string; partitions: readonly number[] }> | null>
}

const MOVING: PartitionReassignment[] = [
  { topic: 'a', partition: 1, replicas: [3, 1, 2], addingReplicas: [3], removingReplicas: [2] },
  { topic: 'b', partition: 0, replicas: [2, 1], addingReplicas: [], removingReplicas: [1] },
  { topic: 'a', partition: 4, replicas: [5, 1], addingReplicas: [5], removingReplicas: [] },
]

function fakeAdmin(calls: Calls): PartitionAdminService {
  return {
    async alterReassignment(topic, partition, target, allowRf) {
      calls.alter.push([topic, partition, target, allowRf])
      if (topic === 'gone') throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
      if (target?.includes(99)) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', 'broker 99 is not registered')
    },
    listReassignments(topics) {
      calls.list.push(topics)
      return topics === null ? MOVING : MOVING.filter((r) => topics.some((t) => t.name === r.topic && t.partitions.includes(r.partition)))
    },
    async electLeader(topic, partition, unclean) {
      calls.elect.push([topic, partition, unclean])
      if (topic === 'gone') return new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
      if (partition === 0) return new KafkaError('ELECTION_NOT_NEEDED', 'the preferred replica already leads')
      if (partition === 2) return new KafkaError('PREFERRED_LEADER_NOT_AVAILABLE', 'preferred replica 3 is not alive and in sync')
      return null
    },
  }
}

function context(apiVersion: number, calls: Calls): RequestContext {
  const broker = {
    nodeId: 1,
    logger: silentLogger,
    partitionAdmin: fakeAdmin(calls),
    topics: {
      list: () => [
        { name: 'a', partitions: 3 },
        { name: 'b', partitions: 1 },
      ],
    },
  } as unknown as BrokerServices
  return {
    header: { apiKey: 0, apiVersion, correlationId: 1, clientId: 'cli', bodyOffset: 0 },
    apiVersion,
    conn: testConn({ remoteAddress: '10.0.0.1', remotePort: 5 }),
    broker,
    apis: [],
  }
}

async function call<Req, Res>(h: Handler<Req, Res>, version: number, req: unknown, calls: Calls): Promise<Res> {
  const decoded = h.request.decode(version, h.request.encode(version, req as never))
  const res = await h.handle(context(version, calls), decoded)
  assert.ok(res !== null)
  return h.response.decode(version, h.response.encode(version, res))
}

const newCalls = (): Calls => ({ alter: [], elect: [], list: [] })

describe('AlterPartitionReassignments handler', () => {
  const request = (allowReplicationFactorChange: boolean) => ({
    timeoutMs: 1000,
    allowReplicationFactorChange,
    topics: [
      {
        name: 'a',
        partitions: [
          { partitionIndex: 0, replicas: [1, 2] },
          { partitionIndex: 1, replicas: null },
          { partitionIndex: 2, replicas: [1, 99] },
        ],
      },
      { name: 'gone', partitions: [{ partitionIndex: 0, replicas: [1] }] },
    ],
  })

  for (const version of [0, 1]) {
    it(`v${version}: one answer per partition, Kafka's codes, messages only when they say more`, async () => {
      const calls = newCalls()
      const res = await call(alterReassignments, version, request(false), calls)
      assert.equal(res.errorCode, 0)
      assert.deepEqual(res.responses, [
        {
          name: 'a',
          partitions: [
            { partitionIndex: 0, errorCode: 0, errorMessage: null },
            { partitionIndex: 1, errorCode: 0, errorMessage: null },
            { partitionIndex: 2, errorCode: 39, errorMessage: 'broker 99 is not registered' },
          ],
        },
        { name: 'gone', partitions: [{ partitionIndex: 0, errorCode: 3, errorMessage: null }] },
      ])
      // v0 has no allowReplicationFactorChange: a change of count is always allowed there.
      const allowed = version < 1
      assert.deepEqual(calls.alter, [
        ['a', 0, [1, 2], allowed],
        ['a', 1, null, allowed],
        ['a', 2, [1, 99], allowed],
        ['gone', 0, [1], allowed],
      ])
      if (version >= 1) assert.equal(res.allowReplicationFactorChange, false)
    })
  }
})

describe('ListPartitionReassignments handler', () => {
  it('every move (null), grouped by topic; or the named partitions only', async () => {
    const calls = newCalls()
    const all = await call(listReassignments, 0, { timeoutMs: 1000, topics: null }, calls)
    assert.deepEqual(
      all.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.replicas, p.addingReplicas, p.removingReplicas])]),
      [
        [
          'a',
          [
            [1, [3, 1, 2], [3], [2]],
            [4, [5, 1], [5], []],
          ],
        ],
        ['b', [[0, [2, 1], [], [1]]]],
      ],
    )
    const named = await call(listReassignments, 0, { timeoutMs: 1000, topics: [{ name: 'a', partitionIndexes: [4, 7] }] }, calls)
    assert.deepEqual(
      named.topics.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex)]),
      [['a', [4]]],
    )
    assert.deepEqual(calls.list, [null, [{ name: 'a', partitions: [4, 7] }]])
  })
})

describe('ElectLeaders handler', () => {
  const named = {
    topicPartitions: [
      { topic: 'a', partitions: [0, 1, 2] },
      { topic: 'gone', partitions: [5] },
    ],
    timeoutMs: 1000,
  }

  for (const version of [0, 1, 2]) {
    it(`v${version}: named partitions are all answered, ELECTION_NOT_NEEDED included`, async () => {
      const calls = newCalls()
      const res = await call(electLeaders, version, { ...named, electionType: 1 }, calls)
      assert.deepEqual(res.replicaElectionResults, [
        {
          topic: 'a',
          partitionResult: [
            { partitionId: 0, errorCode: 84, errorMessage: 'the preferred replica already leads' },
            { partitionId: 1, errorCode: 0, errorMessage: null },
            { partitionId: 2, errorCode: 80, errorMessage: 'preferred replica 3 is not alive and in sync' },
          ],
        },
        { topic: 'gone', partitionResult: [{ partitionId: 5, errorCode: 3, errorMessage: null }] },
      ])
      // v0 knows only preferred elections; v1+ carries the type asked for (UNCLEAN here).
      assert.deepEqual(
        calls.elect.map((e) => e[2]),
        [version >= 1, version >= 1, version >= 1, version >= 1],
      )
      if (version >= 1) assert.equal(res.errorCode, 0)
    })
  }

  it('topicPartitions null: every partition, and only those an election was tried for are answered', async () => {
    const calls = newCalls()
    const res = await call(electLeaders, 2, { electionType: 0, topicPartitions: null, timeoutMs: 1000 }, calls)
    assert.deepEqual(calls.elect, [
      ['a', 0, false],
      ['a', 1, false],
      ['a', 2, false],
      ['b', 0, false],
    ])
    assert.deepEqual(res.replicaElectionResults, [
      {
        topic: 'a',
        partitionResult: [
          { partitionId: 1, errorCode: 0, errorMessage: null },
          { partitionId: 2, errorCode: 80, errorMessage: 'preferred replica 3 is not alive and in sync' },
        ],
      },
    ])
  })

  it('an unknown election type is INVALID_REQUEST', async () => {
    const calls = newCalls()
    const res = await call(electLeaders, 2, { ...named, electionType: 7 }, calls)
    assert.deepEqual([res.errorCode, res.replicaElectionResults, calls.elect], [42, [], []])
  })
})
