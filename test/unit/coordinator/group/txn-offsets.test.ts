// Transactional offset commits in the group coordinator (coordinator/group/txn-offsets.ts): pending
// per producer until the marker, committed or dropped by it, ordered against plain commits by
// record offset, validated as Kafka's TxnOffsetCommit, replayed with their markers on load, seen
// by OffsetFetch's require_stable, and kept through retention and deletions by Kafka's rules. On
// a ManualClock over the in-memory persistence (3 partitions, so groups can be placed).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MemoryGroupPersistence } from '../../../../src/coordinator/group/memory-persistence.js'
import type { CommitOffsetsParams, TxnOffsetCommitParams } from '../../../../src/ports/groups.js'
import { code, commitParams, electAll, flush, formGroup, type Harness, setup, TestMember, track } from '../group-helpers.js'

const PARTITIONS = 3
const PID = 4000
const DAY_MS = 24 * 60 * 60 * 1000

/** A group id that lives in `partition` (Kafka's abs(javaHash(id)) % 3). */
function groupIn(partition: number, tag = 'g'): string {
  const probe = new MemoryGroupPersistence(PARTITIONS)
  for (let i = 0; ; i++) if (probe.partitionFor(`${tag}-${i}`) === partition) return `${tag}-${i}`
}

const G = groupIn(1)

function txnCommit(
  h: Harness,
  offsets: Array<[string, number, number, string?]>,
  p: Partial<TxnOffsetCommitParams> = {},
): Promise<number[]> {
  return h.coordinator.txnOffsetCommit({
    transactionalId: 'tx',
    groupId: G,
    producerId: PID,
    producerEpoch: 2,
    generationId: -1,
    memberId: '',
    groupInstanceId: null,
    apiVersion: 3,
    ...p,
    offsets: offsets.map(([topic, partition, offset, metadata]) => ({
      topic,
      partition,
      offset,
      leaderEpoch: 5,
      metadata: metadata ?? null,
    })),
  })
}

function plainCommit(h: Harness, offsets: Array<[string, number, number]>, p: Partial<CommitOffsetsParams> = {}): Promise<number[]> {
  const list = offsets.map(([topic, partition, offset]) => ({ topic, partition, offset, leaderEpoch: 5, metadata: null }))
  return h.coordinator.commitOffsets(commitParams(G, list, p))
}

/** [committed offset, error code] of one partition. */
function fetched(h: Harness, topic: string, partition: number, requireStable = false, groupId = G): [number, number] {
  const r = h.coordinator.fetchOffsets(groupId, [{ name: topic, partitions: [partition] }], requireStable)
  assert.equal(r.errorCode, 0, 'the group itself is fine')
  const row = r.topics[0]!.partitions[0]!
  return [row.committedOffset, row.errorCode]
}

const UNSTABLE = code('UNSTABLE_OFFSET_COMMIT')

const harness = (): Promise<Harness> => setup({}, new MemoryGroupPersistence(PARTITIONS))

/** A new coordinator over the same records: what a restart (or a new leader) loads. */
async function reload(persistence: MemoryGroupPersistence): Promise<Harness> {
  return setup({}, persistence)
}

describe('group coordinator: transactional offset commits', () => {
  it('keeps them pending until the marker commits them; require_stable sees them as UNSTABLE_OFFSET_COMMIT', async () => {
    const h = await harness()
    assert.deepEqual(await plainCommit(h, [['t', 0, 5]]), [0])
    assert.deepEqual(
      await txnCommit(h, [
        ['t', 0, 10, 'in-txn'],
        ['t', 1, 20],
      ]),
      [0, 0],
    )
    // Invisible to a plain fetch; unstable (offset -1) for require_stable, on each pending partition.
    assert.deepEqual(fetched(h, 't', 0), [5, 0])
    assert.deepEqual(fetched(h, 't', 1), [-1, 0])
    assert.deepEqual(fetched(h, 't', 0, true), [-1, UNSTABLE])
    assert.deepEqual(fetched(h, 't', 1, true), [-1, UNSTABLE])
    assert.deepEqual(fetched(h, 't', 2, true), [-1, 0], 'a partition the transaction did not touch is stable')
    const all = h.coordinator.fetchOffsets(G, null, true)
    assert.deepEqual(
      all.topics.map((t) => t.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.errorCode])),
      [[[0, -1, UNSTABLE]]],
      'every committed offset, the pending one unstable',
    )
    // The marker of another producer, or of another partition, changes nothing.
    h.coordinator.completeTransaction(1, PID + 1, true)
    h.coordinator.completeTransaction(2, PID, true)
    assert.deepEqual(fetched(h, 't', 0, true), [-1, UNSTABLE])

    h.coordinator.completeTransaction(1, PID, true)
    assert.deepEqual(fetched(h, 't', 0, true), [10, 0])
    assert.deepEqual(fetched(h, 't', 1, true), [20, 0])
    const row = h.coordinator.fetchOffsets(G, [{ name: 't', partitions: [0] }], false).topics[0]!.partitions[0]!
    assert.deepEqual([row.committedLeaderEpoch, row.metadata], [5, 'in-txn'])
  })

  it('an ABORT marker drops them: the committed offsets stay what they were', async () => {
    const h = await harness()
    assert.deepEqual(await plainCommit(h, [['t', 0, 5]]), [0])
    assert.deepEqual(
      await txnCommit(h, [
        ['t', 0, 10],
        ['u', 0, 1],
      ]),
      [0, 0],
    )
    h.coordinator.completeTransaction(1, PID, false)
    assert.deepEqual(fetched(h, 't', 0, true), [5, 0])
    assert.deepEqual(fetched(h, 'u', 0, true), [-1, 0])
    // A second marker for the same producer finds nothing to end.
    h.coordinator.completeTransaction(1, PID, true)
    assert.deepEqual(fetched(h, 't', 0), [5, 0])
  })

  it('orders by record offset: a plain commit written after the transactional one wins, one written before loses', async () => {
    const h = await harness()
    assert.deepEqual(await plainCommit(h, [['t', 0, 1]]), [0]) // before the transaction's write
    assert.deepEqual(
      await txnCommit(h, [
        ['t', 0, 10],
        ['t', 1, 10],
      ]),
      [0, 0],
    )
    assert.deepEqual(await plainCommit(h, [['t', 1, 7]]), [0]) // after it, before the marker
    h.coordinator.completeTransaction(1, PID, true)
    assert.deepEqual(fetched(h, 't', 0), [10, 0], 'the transaction replaces the older commit')
    assert.deepEqual(fetched(h, 't', 1), [7, 0], 'the later plain commit is kept')
    // A restart replays the same outcome from the log.
    h.persistence.writeMarker(1, PID, true)
    const r = await reload(h.persistence)
    assert.deepEqual(fetched(r, 't', 0), [10, 0])
    assert.deepEqual(fetched(r, 't', 1), [7, 0])
  })

  it('writes one transactional batch of the producer, answered once durable', async () => {
    const h = await harness()
    h.persistence.pause()
    const answer = track(txnCommit(h, [['t', 0, 10]], { producerEpoch: 9 }))
    await flush()
    assert.equal(answer.done, false, 'not before the write is durable')
    assert.deepEqual(fetched(h, 't', 0, true), [-1, UNSTABLE], 'require_stable sees a write in flight')
    h.persistence.resume()
    assert.deepEqual(await answer.promise, [0])
    const last = h.persistence.records.at(-1)!
    assert.ok(last.kind === 'offsets')
    assert.deepEqual(last.producer, { producerId: PID, producerEpoch: 9 })
    assert.deepEqual(
      last.entries.map((e) => [e.topic, e.partition, e.value?.offset, e.value?.expireTimestampMs]),
      [['t', 0, 10, -1]],
    )
    // A failed write keeps nothing pending and answers its error.
    h.persistence.failNext(new Error('disk on fire'))
    assert.deepEqual(await txnCommit(h, [['t', 5, 1]], { producerId: PID + 1 }), [code('UNKNOWN_SERVER_ERROR')])
    assert.deepEqual(fetched(h, 't', 5, true), [-1, 0])
  })

  it('validates as Kafka’s TxnOffsetCommit: unknown group, generation and member checks when passed, metadata size', async () => {
    const h = await harness()
    // Unknown group with a generation: ILLEGAL_GENERATION, GROUP_ID_NOT_FOUND from v6.
    assert.deepEqual(await txnCommit(h, [['t', 0, 1]], { generationId: 1, memberId: 'm' }), [code('ILLEGAL_GENERATION')])
    assert.deepEqual(await txnCommit(h, [['t', 0, 1]], { generationId: 1, memberId: 'm', apiVersion: 6 }), [code('GROUP_ID_NOT_FOUND')])
    assert.equal(h.coordinator.groupState(G), undefined, 'not created by a refused commit')

    const a = new TestMember(h, G, { groupInstanceId: 'static-a' })
    const b = new TestMember(h, G)
    const generation = await formGroup(h, [a, b])
    const asA = { generationId: generation, memberId: a.memberId, groupInstanceId: 'static-a' }
    assert.deepEqual(await txnCommit(h, [['t', 0, 1]], asA), [0])
    assert.deepEqual(await txnCommit(h, [['t', 0, 1]], { ...asA, generationId: generation - 1 }), [code('ILLEGAL_GENERATION')])
    assert.deepEqual(await txnCommit(h, [['t', 0, 1]], { ...asA, memberId: 'stranger', groupInstanceId: null }), [
      code('UNKNOWN_MEMBER_ID'),
    ])
    assert.deepEqual(await txnCommit(h, [['t', 0, 1]], { ...asA, memberId: b.memberId }), [code('FENCED_INSTANCE_ID')])
    assert.deepEqual(await txnCommit(h, [['t', 0, 1]], { ...asA, groupInstanceId: 'static-x' }), [code('UNKNOWN_MEMBER_ID')])
    // Without the consumer's group metadata (v0–2, or a v3 producer that has none) a group with
    // members accepts it, unlike a plain commit.
    assert.deepEqual(await txnCommit(h, [['t', 1, 1]], { producerId: PID + 1, apiVersion: 2 }), [0])
    assert.deepEqual(await plainCommit(h, [['t', 1, 1]]), [code('UNKNOWN_MEMBER_ID')])
    // Metadata over offset.metadata.max.bytes refuses that partition only.
    assert.deepEqual(
      await txnCommit(
        h,
        [
          ['t', 2, 1, 'x'.repeat(4097)],
          ['t', 3, 1, 'x'.repeat(4096)],
        ],
        asA,
      ),
      [code('OFFSET_METADATA_TOO_LARGE'), 0],
    )
    // The empty group id is refused here (Kafka's isGroupIdNotEmpty), unlike OffsetCommit.
    assert.deepEqual(await txnCommit(h, [['t', 0, 1]], { groupId: '' }), [code('INVALID_GROUP_ID')])
    assert.deepEqual(await plainCommit(h, [['t', 0, 1]], { groupId: '' }), [0])
  })

  it('does not refuse a commit while the group is CompletingRebalance (a plain commit gets REBALANCE_IN_PROGRESS)', async () => {
    const h = await harness()
    const a = new TestMember(h, G)
    const generation = await formGroup(h, [a])
    const b = new TestMember(h, G)
    await b.joinFully()
    const rejoin = a.join()
    await h.advance(0)
    assert.ok(rejoin.done)
    assert.equal(h.coordinator.groupState(G), 'CompletingRebalance')
    const member = { generationId: a.generationId, memberId: a.memberId }
    assert.ok(a.generationId > generation)
    assert.deepEqual(await plainCommit(h, [['t', 0, 1]], member), [code('REBALANCE_IN_PROGRESS')])
    assert.deepEqual(await txnCommit(h, [['t', 0, 1]], member), [0])
  })

  it('asks the verification with the group’s partition before writing; a refusal writes nothing', async () => {
    const h = await harness()
    const asked: number[] = []
    const before = h.persistence.records.length
    const refused = await txnCommit(
      h,
      [
        ['t', 0, 1],
        ['t', 1, 1],
      ],
      {
        verify: async (partition) => {
          asked.push(partition)
          return code('INVALID_TXN_STATE')
        },
      },
    )
    assert.deepEqual(refused, [code('INVALID_TXN_STATE'), code('INVALID_TXN_STATE')])
    assert.deepEqual(asked, [1])
    assert.equal(h.persistence.records.length, before)
    assert.deepEqual(await txnCommit(h, [['t', 0, 1]], { verify: async () => 0 }), [0])
    assert.equal(h.persistence.records.length, before + 1)
    // Not asked when the coordinator refuses first.
    asked.length = 0
    const wrong = await txnCommit(h, [['t', 0, 1]], {
      groupId: '',
      verify: async (p) => {
        asked.push(p)
        return 0
      },
    })
    assert.deepEqual(wrong, [code('INVALID_GROUP_ID')])
    assert.deepEqual(asked, [])
  })

  it('answers COORDINATOR_LOAD_IN_PROGRESS while the partition loads and NOT_COORDINATOR once resigned', async () => {
    const persistence = new MemoryGroupPersistence(PARTITIONS)
    const h = await setup({}, persistence, { elect: false })
    persistence.holdLoads()
    const loaded = h.coordinator.onElection(1, 0)
    await flush()
    assert.deepEqual(await txnCommit(h, [['t', 0, 1]]), [code('COORDINATOR_LOAD_IN_PROGRESS')])
    persistence.releaseLoads()
    await loaded
    assert.deepEqual(await txnCommit(h, [['t', 0, 1]]), [0])
    h.coordinator.onResignation(1, 1)
    assert.deepEqual(await txnCommit(h, [['t', 0, 1]]), [code('NOT_COORDINATOR')])
    // Resigned while the verification was out: refused after it, nothing written.
    const h2 = await setup({}, new MemoryGroupPersistence(PARTITIONS))
    const records = () => h2.persistence.records.length
    const before = records()
    const answer = await txnCommit(h2, [['t', 0, 1]], {
      verify: async () => {
        h2.coordinator.onResignation(1, 1)
        return 0
      },
    })
    assert.deepEqual(answer, [code('NOT_COORDINATOR')])
    assert.equal(records(), before)
  })

  it('a marker ends the producer’s offsets only in the groups of its partition', async () => {
    const h = await harness()
    const other = groupIn(2)
    assert.deepEqual(await txnCommit(h, [['t', 0, 10]]), [0])
    assert.deepEqual(await txnCommit(h, [['t', 0, 20]], { groupId: other }), [0])
    h.coordinator.completeTransaction(1, PID, true)
    assert.deepEqual(fetched(h, 't', 0), [10, 0])
    assert.deepEqual(fetched(h, 't', 0, true, other), [-1, UNSTABLE])
    h.coordinator.completeTransaction(2, PID, false)
    assert.deepEqual(fetched(h, 't', 0, true, other), [-1, 0])
  })

  it('replays pending offsets and their markers on load; what has no marker yet stays pending', async () => {
    const h = await harness()
    assert.deepEqual(await plainCommit(h, [['t', 0, 1]]), [0])
    assert.deepEqual(await txnCommit(h, [['t', 0, 10]]), [0])
    assert.deepEqual(await txnCommit(h, [['t', 1, 30]], { producerId: PID + 1 }), [0])
    assert.deepEqual(await txnCommit(h, [['t', 2, 40]], { producerId: PID + 2 }), [0])
    h.persistence.writeMarker(1, PID + 1, false)
    h.persistence.writeMarker(1, PID + 2, true)

    const r = await reload(h.persistence)
    assert.deepEqual(fetched(r, 't', 0), [1, 0])
    assert.deepEqual(fetched(r, 't', 0, true), [-1, UNSTABLE], 'PID has no marker yet: pending')
    assert.deepEqual(fetched(r, 't', 1, true), [-1, 0], 'aborted')
    assert.deepEqual(fetched(r, 't', 2, true), [40, 0], 'committed')
    // The marker arrives after the load: it ends the replayed pending offsets.
    r.coordinator.completeTransaction(1, PID, true)
    assert.deepEqual(fetched(r, 't', 0, true), [10, 0])
  })

  it('a group known only by pending offsets is loaded (Empty) and kept', async () => {
    const h = await harness()
    assert.deepEqual(await txnCommit(h, [['t', 0, 10]]), [0])
    const r = await reload(h.persistence)
    assert.equal(r.coordinator.groupState(G), 'Empty')
    // Retention does not drop a group with an open transaction.
    await r.advance(8 * DAY_MS)
    await r.coordinator.expireOffsets()
    assert.equal(r.coordinator.groupState(G), 'Empty')
    r.coordinator.completeTransaction(1, PID, true)
    assert.deepEqual(fetched(r, 't', 0), [10, 0])
  })

  it('a marker reported while the partition loads is applied once the load is installed', async () => {
    const h = await harness()
    assert.deepEqual(await txnCommit(h, [['t', 0, 10]]), [0])
    const persistence = h.persistence
    const r = await setup({}, persistence, { elect: false })
    persistence.holdLoads()
    const loaded = r.coordinator.onElection(1, 0)
    await flush()
    // The marker was written after the load read the log, and reported meanwhile.
    r.coordinator.completeTransaction(1, PID, true)
    persistence.releaseLoads()
    await loaded
    assert.deepEqual(fetched(r, 't', 0, true), [10, 0])
  })

  it('retention keeps an offset a transaction may still replace; it expires once the marker came', async () => {
    const h = await harness()
    assert.deepEqual(
      await plainCommit(h, [
        ['t', 0, 1],
        ['t', 1, 1],
      ]),
      [0, 0],
    )
    assert.deepEqual(await txnCommit(h, [['t', 0, 10]]), [0])
    await h.advance(8 * DAY_MS) // the periodic sweeps run meanwhile
    assert.deepEqual(fetched(h, 't', 0), [1, 0], 'kept: the transaction may still replace it')
    assert.deepEqual(fetched(h, 't', 1), [-1, 0], 'expired')
    assert.equal(await h.coordinator.expireOffsets(), 0)
    assert.equal(h.coordinator.groupState(G), 'Empty')
    h.coordinator.completeTransaction(1, PID, false)
    assert.equal(await h.coordinator.expireOffsets(), 1)
    await flush()
    assert.equal(h.coordinator.groupState(G), undefined, 'the empty group is removed once no transaction is open')
  })

  it('OffsetDelete and DeleteGroups write tombstones for pending partitions too, which drop them', async () => {
    const h = await harness()
    assert.deepEqual(await plainCommit(h, [['t', 0, 1]]), [0])
    assert.deepEqual(
      await txnCommit(h, [
        ['t', 0, 10],
        ['u', 0, 10],
      ]),
      [0, 0],
    )
    const del = await h.coordinator.deleteOffsets(G, [{ name: 'u', partitions: [0] }])
    assert.equal(del.errorCode, 0)
    const tombstone = h.persistence.records.at(-1)!
    assert.ok(tombstone.kind === 'offsets' && tombstone.producer === null)
    assert.deepEqual(
      tombstone.entries.map((e) => [e.topic, e.partition, e.value]),
      [['u', 0, null]],
      'u-0 is only pending, yet gets a tombstone',
    )
    assert.deepEqual(fetched(h, 'u', 0, true), [-1, 0])
    assert.deepEqual(fetched(h, 't', 0, true), [-1, UNSTABLE])

    const other = groupIn(1, 'h')
    assert.deepEqual(await txnCommit(h, [['v', 0, 3]], { groupId: other }), [0])
    assert.deepEqual(await h.coordinator.deleteGroups([other]), [{ groupId: other, errorCode: 0 }])
    const written = h.persistence.records.slice(-2)
    assert.deepEqual(
      written.map((r) => (r.kind === 'offsets' ? r.entries.map((e) => `${e.topic}-${e.partition}:${e.value}`) : r.kind)),
      [['v-0:null'], 'group'],
    )
    // The marker later commits what is left: t-0 of G; nothing of the deleted group.
    h.coordinator.completeTransaction(1, PID, true)
    assert.deepEqual(fetched(h, 't', 0), [10, 0])
    assert.deepEqual(fetched(h, 'u', 0), [-1, 0], 'dropped by its tombstone')
    assert.equal(h.coordinator.groupState(other), undefined)
    // And a restart agrees.
    h.persistence.writeMarker(1, PID, true)
    const r = await reload(h.persistence)
    assert.deepEqual(fetched(r, 't', 0), [10, 0])
    assert.deepEqual(fetched(r, 'u', 0), [-1, 0])
    assert.equal(r.coordinator.groupState(other), undefined)
  })

  it('a marker waits for a transactional write still in flight, so it ends that write’s offsets too', async () => {
    const h = await harness()
    h.persistence.pause()
    const answer = txnCommit(h, [['t', 0, 10]])
    await flush()
    h.coordinator.completeTransaction(1, PID, true)
    h.persistence.resume()
    assert.deepEqual(await answer, [0])
    await flush()
    assert.deepEqual(fetched(h, 't', 0, true), [10, 0])
  })

  it('resigning drops the pending offsets from memory; the new leader replays them', async () => {
    const h = await harness()
    assert.deepEqual(await txnCommit(h, [['t', 0, 10]]), [0])
    h.coordinator.onResignation(1, 1)
    h.coordinator.completeTransaction(1, PID, true) // not coordinated here any more: ignored
    await electAll(h.coordinator, h.persistence, 2)
    assert.deepEqual(fetched(h, 't', 0, true), [-1, UNSTABLE])
  })
})
