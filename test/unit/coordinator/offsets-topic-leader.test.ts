// `__consumer_offsets` as a replicated partition (OffsetsTopicPersistence over a real
// ReplicaManager and logs): writes go with acks=all — they wait for the in-sync replicas within
// offsets.commit.timeout.ms and need min.insync.replicas of them — and their failures map to the
// codes Kafka's coordinator answers; a partition led elsewhere is neither written nor loaded (and
// load() skips it); a newly elected leader replays its log to the end, past a high watermark that
// has not caught up yet, since the old leader acknowledged those records.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { OFFSETS_TOPIC, OffsetsTopicPersistence, type OffsetsTopicOptions } from '../../../src/coordinator/group/offsets-topic.js'
import type { CommittedOffset } from '../../../src/coordinator/group/persistence.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import type { Partition } from '../../../src/replication/partition.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { openLocalBroker } from '../../helpers/local-broker.js'

type TestLike = { after(fn: () => Promise<void> | void): void }

const PARTITIONS = 3

/** One broker's storage, as broker.ts builds it, in a temporary dir. */
async function node(t: TestLike) {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-offsets-leader-'))
  const clock = new ManualClock(1_700_000_000_000)
  const { controller, replicas, close: closeCore } = await openLocalBroker(dir, { clock })
  t.after(async () => {
    await closeCore()
    await rm(dir, { recursive: true, force: true })
  })
  const persistence = (extra: Partial<OffsetsTopicOptions> = {}) =>
    new OffsetsTopicPersistence({
      topics: controller,
      replicas,
      numPartitions: PARTITIONS,
      replicationFactor: 1,
      segmentBytes: 104857600,
      clock,
      logger: silentLogger,
      ...extra,
    })
  return { clock, controller, replicas, persistence }
}

/**
 * The partition, led here, with another ISR in the same leader epoch, as when the controller's
 * change comes back (a follower not fetched yet holds the high watermark). Applied to the replica
 * directly: the local cluster's election would drop broker 1 from the ISR, as it is not alive here.
 */
function withIsr(n: { clock: ManualClock }, part: Partition, isr: number[]): void {
  const s = part.state!
  part.becomeLeader({ ...s, replicas: [...new Set([...s.replicas, ...isr])], isr }, n.clock.monotonic())
}

const offset = (o: number): CommittedOffset => ({
  offset: o,
  leaderEpoch: 0,
  metadata: '',
  commitTimestampMs: 1_700_000_000_000,
  expireTimestampMs: -1,
})
const tick = () => new Promise((resolve) => setImmediate(resolve))
const rejectsWith = (name: string) => (e: unknown) => e instanceof KafkaError && e.errorName === name

/** A group id of the given offsets partition. */
function groupIn(p: OffsetsTopicPersistence, partition: number): string {
  for (let i = 0; ; i++) if (p.partitionFor(`g${i}`) === partition) return `g${i}`
}

/** The sink calls for transactions, ignored here. */
const NO_TXN = { txnOffset: () => {}, txnMarker: () => {} }

async function offsetsLoaded(p: OffsetsTopicPersistence, partition: number): Promise<number[]> {
  const out: number[] = []
  await p.loadPartition(partition, { ...NO_TXN, group: () => {}, offset: (_g, _t, _p, v) => out.push(v?.offset ?? -1) })
  return out
}

describe('OffsetsTopicPersistence on a replicated partition', () => {
  it('waits for the in-sync replicas: acknowledged once the high watermark passes the write, COORDINATOR_NOT_AVAILABLE after offsets.commit.timeout.ms', async (t) => {
    const n = await node(t)
    const p = n.persistence({ commitTimeoutMs: 5000 })
    await p.ensureTopic()
    const gid = groupIn(p, 1)
    const part = n.replicas.get(OFFSETS_TOPIC, 1)!
    // A second in-sync replica that has not fetched: the high watermark cannot move.
    withIsr(n, part, [0, 1])
    let outcome: unknown = 'pending'
    const write = p.storeOffsets(gid, [{ topic: 't', partition: 0, value: offset(1) }]).then(
      () => (outcome = 'acknowledged'),
      (e: unknown) => (outcome = e),
    )
    for (let i = 0; i < 10_000 && part.log.logEndOffset < 1; i++) await tick()
    assert.equal(part.log.logEndOffset, 1, 'the leader wrote it')
    await tick()
    assert.equal(outcome, 'pending', 'not acknowledged while the ISR lacks it')
    // Virtual time passes; the answer comes once offsets.commit.timeout.ms has.
    let advancedMs = 0
    while (outcome === 'pending' && advancedMs < 60_000) {
      n.clock.advance(500)
      advancedMs += 500
      await tick()
    }
    await write
    assert.ok(rejectsWith('COORDINATOR_NOT_AVAILABLE')(outcome), `timed out as COORDINATOR_NOT_AVAILABLE, got ${String(outcome)}`)
    assert.ok(advancedMs >= 5000, `answered after ${advancedMs} ms`)

    // The ISR back to the leader alone: the next write is acknowledged at once.
    withIsr(n, part, [0])
    await p.storeOffsets(gid, [{ topic: 't', partition: 0, value: offset(2) }])
    // With offsets.commit.required.acks=1 the leader's write is enough, whatever the ISR.
    withIsr(n, part, [0, 1])
    await n.persistence({ requiredAcks: 1 }).storeOffsets(gid, [{ topic: 't', partition: 0, value: offset(3) }])
  })

  it('refuses writes while the ISR is smaller than the topic’s min.insync.replicas (COORDINATOR_NOT_AVAILABLE), writing nothing', async (t) => {
    const n = await node(t)
    await n.controller.create(
      {
        name: OFFSETS_TOPIC,
        numPartitions: PARTITIONS,
        replicationFactor: 1,
        assignments: [],
        configs: [
          { name: 'cleanup.policy', value: 'compact' },
          { name: 'min.insync.replicas', value: '2' },
        ],
      },
      false,
    )
    const p = n.persistence()
    const gid = groupIn(p, 2)
    await assert.rejects(p.storeOffsets(gid, [{ topic: 't', partition: 0, value: offset(1) }]), rejectsWith('COORDINATOR_NOT_AVAILABLE'))
    await assert.rejects(p.storeGroup(gid, null), rejectsWith('COORDINATOR_NOT_AVAILABLE'))
    assert.equal(n.replicas.get(OFFSETS_TOPIC, 2)!.log.logEndOffset, 0)
  })

  it('a partition led by another broker: writes are NOT_COORDINATOR, loadPartition rejects, load() skips it', async (t) => {
    const n = await node(t)
    const p = n.persistence()
    await p.ensureTopic()
    const [g0, g1] = [groupIn(p, 0), groupIn(p, 1)]
    await p.storeOffsets(g0, [{ topic: 't', partition: 0, value: offset(10) }])
    await p.storeOffsets(g1, [{ topic: 't', partition: 0, value: offset(20) }])
    // Broker 2 leads it now; this one follows.
    const led = n.replicas.get(OFFSETS_TOPIC, 1)!
    const s = led.state!
    led.becomeFollower({ ...s, leader: 2, leaderEpoch: s.leaderEpoch + 1, replicas: [0, 2], isr: [0, 2] })
    await assert.rejects(p.storeOffsets(g1, [{ topic: 't', partition: 0, value: offset(21) }]), rejectsWith('NOT_COORDINATOR'))
    await assert.rejects(offsetsLoaded(p, 1), rejectsWith('NOT_LEADER_OR_FOLLOWER'))
    const seen: string[] = []
    await p.load({ ...NO_TXN, group: () => {}, offset: (g, _t, _p, v) => seen.push(`${g}=${v?.offset}`) })
    assert.deepEqual(seen, [`${g0}=10`])
  })

  it('a new leader replays its log to the end, past a high watermark that has not caught up', async (t) => {
    const n = await node(t)
    const p = n.persistence()
    await p.ensureTopic()
    const gid = groupIn(p, 0)
    // As a follower just elected: the log holds what the old leader acknowledged, the high
    // watermark is behind until the other in-sync replica fetches (acks=1 writes stand for the
    // old leader's acknowledged ones).
    const part = n.replicas.get(OFFSETS_TOPIC, 0)!
    withIsr(n, part, [0, 1])
    const acks1 = n.persistence({ requiredAcks: 1 })
    for (const o of [1, 2, 3]) await acks1.storeOffsets(gid, [{ topic: 't', partition: 0, value: offset(o) }])
    assert.equal(part.log.highWatermark, 0)
    assert.equal(part.log.logEndOffset, 3)
    assert.deepEqual(await offsetsLoaded(p, 0), [1, 2, 3])
  })
})
