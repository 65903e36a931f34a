// TxnOffsetCommit (handler 28) over a real group coordinator, every version through its codec:
// unknown topics and partitions, v6 topic ids (UNKNOWN_TOPIC_ID), v3+ group metadata checked
// (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID), the transaction verification asked
// before the write (v5+ adds the partition, v0–4 only check) and its answers as each version's
// client expects them, and the offsets pending until the marker — which OffsetFetch v7+ with
// require_stable answers UNSTABLE_OFFSET_COMMIT on the partition only.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import offsetFetch from '../../../src/handlers/09-offset-fetch.js'
import txnOffsetCommit from '../../../src/handlers/28-txn-offset-commit.js'
import { allHandlers } from '../../../src/handlers/index.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import type { TopicRecord } from '../../../src/ports/metadata-store.js'
import type { TxnProduceVerifier } from '../../../src/ports/transactions.js'
import type { TxnOffsetCommitRequestData } from '../../../src/protocol/messages/28-txn-offset-commit.js'
import type { Encodable } from '../../../src/protocol/schema.js'
import { silentLogger } from '../../../src/util/logger.js'
import { callHandler } from '../../helpers/local-broker.js'
import { code, commitParams, formGroup, type Harness, setup, TestMember } from '../coordinator/group-helpers.js'

const TOPIC: TopicRecord = { name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: 2, replicationFactor: 1, configs: {}, createdMs: 0 }
const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAw'
const VERSIONS = [0, 1, 2, 3, 4, 5, 6]

type VerifyParams = Parameters<TxnProduceVerifier['verify']>[0]

function broker(h: Harness, verdict: (p: VerifyParams) => number | Promise<number> = () => 0) {
  const asked: VerifyParams[] = []
  const services = {
    nodeId: 0,
    clock: h.clock,
    logger: silentLogger,
    topics: {
      get: (name: string) => (name === TOPIC.name ? TOPIC : undefined),
      getById: (id: string) => (id === TOPIC.topicId ? TOPIC : undefined),
    },
    groups: h.coordinator,
    txnVerifier: {
      verify: async (p: VerifyParams) => {
        asked.push(p)
        return verdict(p)
      },
    },
  } as unknown as BrokerServices
  return { services, asked }
}

/** A request naming topics by name (v0–5) or by id (v6). */
function request(
  version: number,
  groupId: string,
  topics: Array<{ topic: TopicRecord | { name: string; topicId: string }; partitions: Array<[number, number]> }>,
  extra: Partial<TxnOffsetCommitRequestData> = {},
): Encodable<TxnOffsetCommitRequestData> {
  return {
    transactionalId: 'tx-1',
    groupId,
    producerId: 900,
    producerEpoch: 3,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    ...extra,
    topics: topics.map((t) => ({
      name: version >= 6 ? '' : t.topic.name,
      topicId: t.topic.topicId,
      partitions: t.partitions.map(([partitionIndex, committedOffset]) => ({
        partitionIndex,
        committedOffset,
        committedLeaderEpoch: 4,
        committedMetadata: 'meta',
      })),
    })),
  } as Encodable<TxnOffsetCommitRequestData>
}

/** TxnOffsetCommit at version v of TOPIC's partitions, as [partition, offset]. */
const commitTopic = (
  services: BrokerServices,
  v: number,
  groupId: string,
  partitions: Array<[number, number]>,
  extra: Partial<TxnOffsetCommitRequestData> = {},
) => callHandler(services, txnOffsetCommit, v, request(v, groupId, [{ topic: TOPIC, partitions }], extra))

const errors = (r: { topics: Array<{ partitions: Array<{ errorCode: number }> }> }) =>
  r.topics.map((t) => t.partitions.map((p) => p.errorCode))

const stable = (h: Harness, groupId: string, partition: number) =>
  h.coordinator.fetchOffsets(groupId, [{ name: 't', partitions: [partition] }], true).topics[0]!.partitions[0]!

describe('TxnOffsetCommit handler', () => {
  it('is registered for v0–6', () => {
    const h = allHandlers.find((x) => x.request.apiKey === 28)
    assert.deepEqual([h?.minVersion, h?.maxVersion], [0, 6])
  })

  it('every version: commits pending offsets after verifying the group’s partition (v5+ adds it, v0–4 only check)', async () => {
    for (const v of VERSIONS) {
      const h = await setup()
      const groupId = `g-v${v}`
      const { services, asked } = broker(h)
      const r = await commitTopic(services, v, groupId, [
        [0, 10],
        [1, 11],
      ])
      assert.deepEqual(errors(r), [[0, 0]], `v${v}`)
      if (v >= 6) assert.equal(r.topics[0]!.topicId, TOPIC.topicId, 'v6 answers with the topic id')
      else assert.equal(r.topics[0]!.name, 't')
      assert.deepEqual(asked, [
        {
          transactionalId: 'tx-1',
          producerId: 900,
          producerEpoch: 3,
          topic: '__consumer_offsets',
          partition: h.persistence.partitionFor(groupId),
          addPartition: v >= 5,
        },
      ])
      assert.equal(stable(h, groupId, 0).errorCode, code('UNSTABLE_OFFSET_COMMIT'), `v${v} pending`)
      h.coordinator.completeTransaction(h.persistence.partitionFor(groupId), 900, true)
      const row = stable(h, groupId, 1)
      assert.deepEqual([row.errorCode, row.committedOffset, row.metadata], [0, 11, 'meta'])
      assert.equal(row.committedLeaderEpoch, v >= 2 ? 4 : -1, 'the leader epoch is carried from v2')
    }
  })

  it('unknown topics and partitions: UNKNOWN_TOPIC_OR_PARTITION (v0–5), an unknown topic id UNKNOWN_TOPIC_ID (v6); the rest is committed', async () => {
    for (const v of VERSIONS) {
      const h = await setup()
      const { services } = broker(h)
      const unknown = { name: 'nope', topicId: UNKNOWN_ID }
      const r = await callHandler(
        services,
        txnOffsetCommit,
        v,
        request(v, 'g', [
          {
            topic: TOPIC,
            partitions: [
              [0, 1],
              [2, 1],
              [-1, 1],
            ],
          },
          { topic: unknown, partitions: [[0, 1]] },
        ]),
      )
      const missing = code(v >= 6 ? 'UNKNOWN_TOPIC_ID' : 'UNKNOWN_TOPIC_OR_PARTITION')
      assert.deepEqual(errors(r), [[0, code('UNKNOWN_TOPIC_OR_PARTITION'), code('UNKNOWN_TOPIC_OR_PARTITION')], [missing]], `v${v}`)
      if (v >= 6) assert.equal(r.topics[1]!.topicId, UNKNOWN_ID)
    }
  })

  it('v3+: the consumer’s generation and member are checked; v0–2 carry none, so a group with members accepts them', async () => {
    for (const v of VERSIONS) {
      const h = await setup()
      const a = new TestMember(h, 'g', { groupInstanceId: 'inst-a' })
      const b = new TestMember(h, 'g')
      const generation = await formGroup(h, [a, b])
      const { services } = broker(h)
      const send = (extra: Partial<TxnOffsetCommitRequestData>) =>
        commitTopic(services, v, 'g', [[0, 1]], extra).then((r) => errors(r)[0]![0])
      const asA = { generationIdOrMemberEpoch: generation, memberId: a.memberId, groupInstanceId: 'inst-a' }
      assert.equal(await send(asA), 0, `v${v}`)
      const stale = await send({ ...asA, generationIdOrMemberEpoch: generation + 1 })
      const stranger = await send({ ...asA, memberId: 'stranger', groupInstanceId: null })
      const fenced = await send({ ...asA, memberId: b.memberId })
      if (v >= 3) {
        assert.deepEqual(
          [stale, stranger, fenced],
          [code('ILLEGAL_GENERATION'), code('UNKNOWN_MEMBER_ID'), code('FENCED_INSTANCE_ID')],
          `v${v}`,
        )
      } else {
        assert.deepEqual([stale, stranger, fenced], [0, 0, 0], `v${v}: the fields do not exist, nothing is checked`)
      }
    }
  })

  it('an unknown group with a generation: ILLEGAL_GENERATION, GROUP_ID_NOT_FOUND from v6; the empty group id: INVALID_GROUP_ID', async () => {
    for (const v of [3, 4, 5, 6]) {
      const h = await setup()
      const { services, asked } = broker(h)
      const r = await commitTopic(services, v, 'nobody', [[0, 1]], { generationIdOrMemberEpoch: 2, memberId: 'm' })
      assert.deepEqual(errors(r), [[code(v >= 6 ? 'GROUP_ID_NOT_FOUND' : 'ILLEGAL_GENERATION')]], `v${v}`)
      const empty = await commitTopic(services, v, '', [[0, 1]])
      assert.deepEqual(errors(empty), [[code('INVALID_GROUP_ID')]])
      assert.equal(asked.length, 1, 'the verification is not asked for the empty group id')
    }
  })

  it('answers the verification as each version’s client expects it; nothing is written when it refuses', async () => {
    const cases: Array<[string, number, number]> = [
      // [verifier's answer, version, expected]
      ['PRODUCER_FENCED', 5, code('INVALID_PRODUCER_EPOCH')],
      ['TRANSACTION_ABORTABLE', 3, code('INVALID_TXN_STATE')],
      ['TRANSACTION_ABORTABLE', 4, code('TRANSACTION_ABORTABLE')],
      ['NETWORK_EXCEPTION', 3, code('COORDINATOR_LOAD_IN_PROGRESS')],
      ['NETWORK_EXCEPTION', 1, code('COORDINATOR_NOT_AVAILABLE')],
      ['INVALID_TXN_STATE', 0, code('INVALID_TXN_STATE')],
      ['CONCURRENT_TRANSACTIONS', 6, code('CONCURRENT_TRANSACTIONS')],
    ]
    for (const [answer, v, expected] of cases) {
      const h = await setup()
      const { services } = broker(h, () => code(answer as Parameters<typeof code>[0]))
      const before = h.persistence.records.length
      const r = await commitTopic(services, v, 'g', [
        [0, 1],
        [1, 1],
      ])
      assert.deepEqual(errors(r), [[expected, expected]], `${answer} at v${v}`)
      assert.equal(h.persistence.records.length, before, 'nothing written')
      assert.equal(stable(h, 'g', 0).errorCode, 0)
    }
    // A verifier that throws answers its code.
    const h = await setup()
    const { services } = broker(h, () => {
      throw Object.assign(new Error('boom'), {})
    })
    const r = await commitTopic(services, 3, 'g', [[0, 1]])
    assert.deepEqual(errors(r), [[code('UNKNOWN_SERVER_ERROR')]])
  })

  it('v0–1 get COORDINATOR_NOT_AVAILABLE where later versions get COORDINATOR_LOAD_IN_PROGRESS', async () => {
    for (const v of VERSIONS) {
      const h = await setup({}, undefined, { elect: false })
      h.persistence.holdLoads()
      void h.coordinator.onElection(h.persistence.partitionFor('g'), 0)
      const { services } = broker(h)
      const r = await commitTopic(services, v, 'g', [[0, 1]])
      assert.deepEqual(errors(r), [[code(v < 2 ? 'COORDINATOR_NOT_AVAILABLE' : 'COORDINATOR_LOAD_IN_PROGRESS')]], `v${v}`)
      h.persistence.releaseLoads()
    }
  })
})

describe('OffsetFetch require_stable with a transaction pending', () => {
  it('v7–10: UNSTABLE_OFFSET_COMMIT (offset -1) on the pending partition only; the group’s error stays NONE; v1–6 cannot ask', async () => {
    const h = await setup()
    const { services } = broker(h)
    await h.coordinator.commitOffsets(
      commitParams(
        'g',
        [0, 1].map((partition) => ({ topic: 't', partition, offset: 5, leaderEpoch: 1, metadata: null })),
      ),
    )
    const pending = await commitTopic(services, 3, 'g', [[0, 10]])
    assert.deepEqual(errors(pending), [[0]])
    const rows = (ps: Array<{ partitionIndex: number; committedOffset: number; errorCode: number }>) =>
      ps.map((p) => [p.partitionIndex, p.committedOffset, p.errorCode])
    const unstable = code('UNSTABLE_OFFSET_COMMIT')
    for (const v of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) {
      for (const requireStable of [false, true]) {
        const topics = [{ name: 't', topicId: TOPIC.topicId, partitionIndexes: [0, 1] }]
        const req =
          v >= 8
            ? { groups: [{ groupId: 'g', memberId: null, memberEpoch: -1, topics }], requireStable }
            : { groupId: 'g', topics, requireStable }
        const r = await callHandler(services, offsetFetch, v, req)
        const asked = requireStable && v >= 7
        const expected = [
          [0, asked ? -1 : 5, asked ? unstable : 0],
          [1, 5, 0],
        ]
        if (v >= 8) {
          assert.equal(r.groups[0]!.errorCode, 0, `v${v}`)
          assert.deepEqual(rows(r.groups[0]!.topics[0]!.partitions), expected, `v${v} requireStable=${requireStable}`)
        } else {
          if (v >= 2) assert.equal(r.errorCode, 0, `v${v}`)
          assert.deepEqual(rows(r.topics[0]!.partitions), expected, `v${v} requireStable=${requireStable}`)
        }
      }
    }
    // The marker commits it: stable again, with the transaction's offset.
    h.coordinator.completeTransaction(h.persistence.partitionFor('g'), 900, true)
    const r = await callHandler(services, offsetFetch, 8, {
      groups: [{ groupId: 'g', memberId: null, memberEpoch: -1, topics: [{ name: 't', topicId: TOPIC.topicId, partitionIndexes: [0] }] }],
      requireStable: true,
    })
    assert.deepEqual(rows(r.groups[0]!.topics[0]!.partitions), [[0, 10, 0]])
  })
})
