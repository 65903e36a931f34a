// Follower truncation by leader epoch (KIP-101, KIP-279) end to end: a leader broker (in process,
// in-memory storage) holding a log written at chosen leader epochs, and a follower replica whose
// log diverges from it, fetched by the real FetcherManager (replica-fetcher.ts: OffsetForLeaderEpoch,
// truncate(), Fetch, appendAsFollower). Whatever the follower held, once it has caught up its log
// must be the leader's byte for byte, leader epochs included. Then appendAsFollower and the epoch
// cache on two PartitionLogs directly.
import assert from 'node:assert/strict'
import { describe, it, type TestContext } from 'node:test'
import { Broker } from '../../../src/broker/broker.js'
import { loadBrokerConfig } from '../../../src/config/config.js'
import { createTopics } from '../../../src/client/admin.js'
import { KafkaClient } from '../../../src/client/client.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import { readBatchHeader } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { iterateBatches } from '../../../src/protocol/records/iterator.js'
import { Partition } from '../../../src/replication/partition.js'
import { FetcherManager } from '../../../src/replication/replica-fetcher.js'
import type { ReplicaManager } from '../../../src/replication/replica-manager.js'
import { LEADER_EPOCH_CHECKPOINT } from '../../../src/storage/leader-epoch-cache.js'
import { defaultLogConfig } from '../../../src/storage/log-config.js'
import { LogManager } from '../../../src/storage/log-manager.js'
import { MemoryFs } from '../../../src/storage/memory-fs.js'
import type { PartitionLog } from '../../../src/storage/partition-log.js'
import { ManualClock, systemClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { stateOf } from '../../helpers/fake-metadata-store.js'
import { appendAsLeader, describeLog, logBatches, logBytes, memoryLogs, TOPIC_ID } from '../../helpers/memory-logs.js'

const TOPIC = 'replicated'
const LEADER = 0
const FOLLOWER = 1

/** A record with a null key. */
const rec = (value: string) => ({ key: null, value: Buffer.from(value) })

/** Single-record batches, one per value (a producer with linger.ms=0). */
const each = (...values: string[]) => values.map((v) => [v])

/** A broker (node 0) hosting TOPIC-0, whose log the test writes directly at the leader epochs it likes. */
async function startLeader(t: TestContext) {
  const { config } = await loadBrokerConfig({
    env: {},
    values: { 'node.id': LEADER, 'log.dirs': 'memory:', listeners: 'PLAINTEXT://127.0.0.1:0' },
  })
  const broker = await Broker.start({ config, logger: silentLogger, fs: new MemoryFs() })
  t.after(() => broker.close())
  const { host, port } = broker.endpoint
  const client = await KafkaClient.connect({ bootstrap: [`${host}:${port}`] })
  try {
    const [created] = await createTopics(client, [{ name: TOPIC, numPartitions: 1, replicationFactor: 1 }])
    assert.equal(created?.error, null, created?.message ?? '')
  } finally {
    await client.close()
  }
  // The broker's ReplicaManager is not part of its public surface; the test plays its controller.
  const p = (broker as unknown as { replicas: ReplicaManager }).replicas.get(TOPIC, 0)
  assert.ok(p, 'the leader hosts the partition')
  return { endpoint: { host, port }, p, log: p.log }
}

/** A follower replica (node 1) of TOPIC-0 on its own in-memory logs. */
async function startFollower(topicId: string) {
  const { logs, fs } = await memoryLogs(systemClock)
  const log = await logs.create(TOPIC, 0, topicId)
  return { fs, logs, log, p: new Partition(TOPIC, 0, topicId, log, FOLLOWER) }
}

/**
 * The follower restarts and finds its leader-epoch-checkpoint malformed: PartitionLog.open logs a
 * warning and goes on with no epochs, the records stay. Its high watermark is the checkpointed one
 * (PartitionLog.open): its log start, since it never learned one from a leader.
 */
async function restartWithDamagedEpochCheckpoint(follower: Awaited<ReturnType<typeof startFollower>>) {
  const { fs, log } = follower
  const topicId = follower.p.topicId
  await follower.logs.close()
  const fh = await fs.open(`${log.dir}/${LEADER_EPOCH_CHECKPOINT}`, 'w')
  await fh.write(Buffer.from('not a checkpoint\n'), 0)
  await fh.close()
  const logs = await LogManager.open({ fs, clock: systemClock, logDir: '/data', config: defaultLogConfig, logger: silentLogger })
  const reopened = logs.get(TOPIC, 0)
  assert.ok(reopened)
  assert.equal(reopened.highWatermark, reopened.logStartOffset)
  return { fs, logs, log: reopened, p: new Partition(TOPIC, 0, topicId, reopened, FOLLOWER) }
}

/** Copies the leader's batches below `upTo` to the follower, as a fetch would have. */
async function replicate(from: PartitionLog, to: PartitionLog, upTo: number): Promise<void> {
  const bytes = await logBytes(from)
  const batches = [...iterateBatches(bytes)].filter((b) => b.baseOffset >= to.logEndOffset && b.baseOffset + b.lastOffsetDelta < upTo)
  if (batches.length === 0) return
  const start = batches[0]!.position
  const last = batches[batches.length - 1]!
  const buf = Buffer.from(bytes.subarray(start, last.position + last.sizeBytes))
  await to.appendAsFollower(buf, [...iterateBatches(buf)])
}

async function eventually(cond: () => boolean, what: () => Promise<string>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms: ${await what()}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/**
 * Makes the leader lead at leaderEpoch, the follower follow it with the real fetcher, waits until the
 * follower has the leader's log end and high watermark, and checks the two logs are identical.
 */
async function followAndCompare(
  t: TestContext,
  leader: Awaited<ReturnType<typeof startLeader>>,
  follower: Awaited<ReturnType<typeof startFollower>>,
  leaderEpoch: number,
): Promise<void> {
  const state = stateOf({ replicas: [LEADER, FOLLOWER], isr: [LEADER], leader: LEADER, leaderEpoch, partitionEpoch: 1 })
  leader.p.becomeLeader(state, systemClock.monotonic())
  follower.p.becomeFollower(state)
  const fetchers = new FetcherManager({
    nodeId: FOLLOWER,
    clock: systemClock,
    logger: silentLogger,
    config: { partitionMaxBytes: 1 << 20, responseMaxBytes: 4 << 20, maxWaitMs: 100, minBytes: 1, backoffMs: 50, socketTimeoutMs: 10_000 },
    endpointOf: (id) => (id === LEADER ? leader.endpoint : undefined),
  })
  t.after(() => fetchers.close())
  fetchers.follow(follower.p, LEADER, leaderEpoch)
  const l = leader.log
  const f = follower.log
  await eventually(
    () => f.logEndOffset === l.logEndOffset && f.highWatermark === l.highWatermark,
    async () => `follower LEO ${f.logEndOffset} HW ${f.highWatermark}, leader LEO ${l.logEndOffset} HW ${l.highWatermark}`,
  )
  await fetchers.close()
  const [lb, fb] = [await logBytes(l), await logBytes(f)]
  if (!lb.equals(fb)) {
    assert.deepEqual(await describeLog(f), await describeLog(l), 'the follower log (actual) differs from the leader log (expected)')
    assert.fail('the logs hold the same records but not the same bytes')
  }
  assert.deepEqual(f.leaderEpochs.entries(), l.leaderEpochs.entries(), 'leader-epoch checkpoints')
}

describe('follower truncation by leader epoch, through the replica fetcher', () => {
  it('an empty follower copies the whole log: offsets, leader epochs and bytes', async (t) => {
    const leader = await startLeader(t)
    await appendAsLeader(leader.log, 0, ['a0', 'a1'], ['a2'])
    await appendAsLeader(leader.log, 2, ['b3', 'b4', 'b5'])
    await appendAsLeader(leader.log, 5, ['c6'])
    const follower = await startFollower(leader.p.topicId)
    await followAndCompare(t, leader, follower, 5)
    assert.deepEqual(
      (await logBatches(follower.log)).map((b) => [b.baseOffset, b.partitionLeaderEpoch]),
      [
        [0, 0],
        [2, 0],
        [3, 2],
        [6, 5],
      ],
    )
  })

  it('KIP-101: the follower holds extra records of an old epoch (an old leader wrote them, nobody copied them)', async (t) => {
    const leader = await startLeader(t)
    const follower = await startFollower(leader.p.topicId)
    await appendAsLeader(leader.log, 0, ['m0', 'm1'], ['m2'])
    await replicate(leader.log, follower.log, 3)
    await appendAsLeader(follower.log, 0, ['lost3', 'lost4']) // the follower led epoch 0 and wrote on
    await appendAsLeader(leader.log, 1, ['n3'], ['n4', 'n5']) // the new leader's epoch 1 starts at 3
    await followAndCompare(t, leader, follower, 1)
    assert.deepEqual((await describeLog(follower.log)).slice(3), ['3:n3@1', '4:n4@1', '5:n5@1'])
  })

  it('KIP-101: after two quick failovers leader and follower hold different records at the same offsets', async (t) => {
    const leader = await startLeader(t)
    const follower = await startFollower(leader.p.topicId)
    await appendAsLeader(leader.log, 0, ['m0', 'm1'])
    await replicate(leader.log, follower.log, 2)
    await appendAsLeader(follower.log, 1, ['f2'], ['f3']) // the follower led epoch 1 briefly
    await appendAsLeader(leader.log, 2, ['l2', 'l3', 'l4']) // the leader took over at epoch 2 from offset 2
    await followAndCompare(t, leader, follower, 2)
    assert.deepEqual(await describeLog(follower.log), ['0:m0@0', '1:m1@0', '2:l2@2', '3:l3@2', '4:l4@2'])
  })

  it('KIP-101: the follower is behind inside the same epoch and keeps everything it has', async (t) => {
    const leader = await startLeader(t)
    const follower = await startFollower(leader.p.topicId)
    await appendAsLeader(leader.log, 0, ['m0'], ['m1'])
    await appendAsLeader(leader.log, 3, ['m2'], ['m3'], ['m4'])
    await replicate(leader.log, follower.log, 4)
    await followAndCompare(t, leader, follower, 3)
  })

  it('KIP-279: the leader answers with an epoch the follower never saw (unclean election); the follower asks again', async (t) => {
    // Epoch 0: both copied c0..c2; the follower, leading epoch 0, also wrote f3, f4.
    // Epoch 1: the leader led from offset 3 (l3..l7); the follower never fetched them.
    // Epoch 2: the follower led from offset 5 (g5..g9); the leader never fetched them.
    // Epoch 3: the leader leads again (unclean) from offset 8 (h8..h11).
    // The follower asks where epoch 2 ends: the leader answers epoch 1 ending at 8. The follower has
    // no epoch 1, so, as Kafka's fetcher does, it cuts to the end of its largest epoch below (0 →
    // offset 5) and asks again for epoch 0: it ends at 3 on the leader. Its f3, f4 must go.
    const leader = await startLeader(t)
    const follower = await startFollower(leader.p.topicId)
    await appendAsLeader(leader.log, 0, ...each('c0', 'c1', 'c2'))
    await replicate(leader.log, follower.log, 3)
    await appendAsLeader(follower.log, 0, ...each('f3', 'f4'))
    await appendAsLeader(leader.log, 1, ...each('l3', 'l4', 'l5', 'l6', 'l7'))
    await appendAsLeader(follower.log, 2, ...each('g5', 'g6', 'g7', 'g8', 'g9'))
    await appendAsLeader(leader.log, 3, ...each('h8', 'h9', 'h10', 'h11'))
    assert.deepEqual(follower.log.endOffsetForEpoch(1), { epoch: 0, endOffset: 5 })
    assert.deepEqual(leader.log.endOffsetForEpoch(2), { epoch: 1, endOffset: 8 })
    await followAndCompare(t, leader, follower, 3)
  })
})

describe('follower truncation without leader epochs', () => {
  it('a follower with records but no leader epochs (its checkpoint was lost) truncates to its high watermark before fetching', async (t) => {
    // Kafka's AbstractFetcherThread.maybeTruncate: partitions without an epoch are truncated to the
    // high watermark (the pre-KIP-101 rule), since nothing tells which of their records the leader has.
    const leader = await startLeader(t)
    let follower = await startFollower(leader.p.topicId)
    await appendAsLeader(leader.log, 0, ['m0', 'm1'], ['m2'])
    await replicate(leader.log, follower.log, 3)
    await appendAsLeader(follower.log, 0, ['lost3', 'lost4'])
    await appendAsLeader(leader.log, 1, ['n3'], ['n4'])
    follower = await restartWithDamagedEpochCheckpoint(follower)
    assert.equal(follower.log.logEndOffset, 5)
    assert.equal(follower.log.latestEpoch, -1, 'the records are there, their epochs are not')
    await followAndCompare(t, leader, follower, 1)
  })
})

describe('appendAsFollower and the leader-epoch cache', () => {
  async function pair() {
    const clock = new ManualClock()
    const a = await memoryLogs(clock)
    const b = await memoryLogs(clock)
    return { leader: await a.logs.create('t', 0, TOPIC_ID), follower: await b.logs.create('t', 0, TOPIC_ID) }
  }

  const errorName = (name: string) => (err: unknown) => err instanceof KafkaError && err.errorName === name

  it("keeps the leader's offsets and partition leader epochs and records each epoch's start from the batches", async () => {
    const { leader, follower } = await pair()
    await appendAsLeader(leader, 0, ['a', 'b'], ['c'])
    await appendAsLeader(leader, 3, ['d', 'e', 'f'])
    await appendAsLeader(leader, 3, ['g'])
    await appendAsLeader(leader, 7, ['h', 'i'])
    await replicate(leader, follower, 5)
    assert.equal(follower.logEndOffset, 3, 'whole batches ending below 5 only (the next one ends at 5)')
    await replicate(leader, follower, Number.MAX_SAFE_INTEGER)
    assert.equal(follower.logEndOffset, 9)
    assert.ok((await logBytes(follower)).equals(await logBytes(leader)), 'byte-identical')
    assert.deepEqual(follower.leaderEpochs.entries(), [
      { epoch: 0, startOffset: 0 },
      { epoch: 3, startOffset: 3 },
      { epoch: 7, startOffset: 7 },
    ])
    assert.deepEqual(follower.leaderEpochs.entries(), leader.leaderEpochs.entries())
    for (let e = -1; e <= 8; e++) assert.deepEqual(follower.endOffsetForEpoch(e), leader.endOffsetForEpoch(e), `epoch ${e}`)
    assert.deepEqual(follower.endOffsetForEpoch(3), { epoch: 3, endOffset: 7 })
    assert.deepEqual(follower.endOffsetForEpoch(5), { epoch: 3, endOffset: 7 })
    assert.deepEqual(follower.endOffsetForEpoch(7), { epoch: 7, endOffset: 9 })
    assert.deepEqual(follower.endOffsetForEpoch(8), { epoch: -1, endOffset: -1 })
  })

  it('rejects a batch below the log end with OFFSET_OUT_OF_RANGE and writes nothing of the buffer', async () => {
    const { follower } = await pair()
    const first = buildRecordBatch({ baseOffset: 0, partitionLeaderEpoch: 1, records: [rec('x'), rec('y')] })
    await follower.appendAsFollower(first, [readBatchHeader(first, 0)])
    const before = await logBytes(follower)
    const stale = buildRecordBatch({ baseOffset: 1, partitionLeaderEpoch: 2, records: [rec('z')] })
    await assert.rejects(follower.appendAsFollower(stale, [readBatchHeader(stale, 0)]), errorName('OFFSET_OUT_OF_RANGE'))
    // A buffer whose second batch overlaps its first is refused as a whole.
    const ok = buildRecordBatch({ baseOffset: 2, partitionLeaderEpoch: 2, records: [rec('p'), rec('q')] })
    const overlap = buildRecordBatch({ baseOffset: 3, partitionLeaderEpoch: 2, records: [rec('r')] })
    const both = Buffer.concat([ok, overlap])
    await assert.rejects(follower.appendAsFollower(both, [...iterateBatches(both)]), errorName('OFFSET_OUT_OF_RANGE'))
    assert.equal(follower.logEndOffset, 2)
    assert.ok((await logBytes(follower)).equals(before))
    assert.deepEqual(follower.leaderEpochs.entries(), [{ epoch: 1, startOffset: 0 }])
  })

  it('accepts a gap after the log end (a compacted leader) and keeps the batch where the leader had it', async () => {
    const { follower } = await pair()
    const batch = buildRecordBatch({ baseOffset: 10, partitionLeaderEpoch: 4, records: [rec('k'), rec('l')] })
    const info = await follower.appendAsFollower(batch, [readBatchHeader(batch, 0)])
    assert.equal(info.baseOffset, 10)
    assert.equal(follower.logEndOffset, 12)
    assert.deepEqual(follower.leaderEpochs.entries(), [{ epoch: 4, startOffset: 10 }])
    const [stored] = await logBatches(follower)
    assert.equal(stored?.baseOffset, 10)
    assert.equal(stored?.partitionLeaderEpoch, 4)
  })

  it('truncateTo drops the epochs that start at or after the cut; truncateFullyAndStartAtOffset drops them all', async () => {
    const { leader } = await pair()
    await appendAsLeader(leader, 0, ['a', 'b'])
    await appendAsLeader(leader, 2, ['c', 'd'])
    await appendAsLeader(leader, 4, ['e'])
    await leader.truncateTo(4)
    assert.equal(leader.logEndOffset, 4)
    assert.deepEqual(leader.leaderEpochs.entries(), [
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 2 },
    ])
    assert.deepEqual(leader.endOffsetForEpoch(2), { epoch: 2, endOffset: 4 })
    await leader.truncateTo(2)
    assert.deepEqual(leader.leaderEpochs.entries(), [{ epoch: 0, startOffset: 0 }])
    await leader.truncateFullyAndStartAtOffset(50)
    assert.equal(leader.logStartOffset, 50)
    assert.equal(leader.logEndOffset, 50)
    assert.equal(leader.latestEpoch, -1)
  })
})
