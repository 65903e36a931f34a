import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import type { Controller } from '../../../src/cluster/controller.js'
import { encodeOffsetCommitKey, encodeOffsetCommitValue } from '../../../src/coordinator/group/offsets-records.js'
import { OFFSETS_TOPIC, type OffsetsTopicPersistence } from '../../../src/coordinator/group/offsets-topic.js'
import type { CommittedOffset, GroupSnapshot, OffsetEntry } from '../../../src/coordinator/group/persistence.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import { writeBatchCrc, BATCH_HEADER_SIZE } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { iterateBatches } from '../../../src/protocol/records/iterator.js'
import type { ReplicaManager } from '../../../src/replication/replica-manager.js'
import { ManualClock } from '../../../src/util/clock.js'
import { createLogger, type Logger } from '../../../src/util/logger.js'
import { offsetsTopicOn, openLocalBroker } from '../../helpers/local-broker.js'

type TestLike = { after(fn: () => Promise<void> | void): void }

interface Node {
  controller: Controller
  replicas: ReplicaManager
  close(): Promise<void>
}

/** One broker's storage, built as broker.ts builds it, over dir (reopened: same data). */
async function openNode(dir: string, clock: ManualClock): Promise<Node> {
  const { controller, replicas, close: closeCore } = await openLocalBroker(dir, { clock })
  let closed = false
  return {
    controller,
    replicas,
    close: async () => {
      if (closed) return
      closed = true
      await closeCore()
    },
  }
}

async function setup(t: TestLike) {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-offsets-'))
  const clock = new ManualClock(1_700_000_000_000)
  const nodes: Node[] = []
  t.after(async () => {
    for (const n of nodes) await n.close().catch(() => {})
    await rm(dir, { recursive: true, force: true })
  })
  const open = async () => {
    const n = await openNode(dir, clock)
    nodes.push(n)
    return n
  }
  return { dir, clock, open }
}

/** A TopicService over the controller that counts creations. */
function counting(controller: Controller) {
  const calls = { create: 0 }
  return {
    calls,
    topics: {
      get: (name: string) => controller.get(name),
      create: (...args: Parameters<Controller['create']>) => {
        calls.create++
        return controller.create(...args)
      },
      effectiveConfig: (...args: Parameters<Controller['effectiveConfig']>) => controller.effectiveConfig(...args),
    },
  }
}

const persistence = offsetsTopicOn

type Event =
  | { kind: 'group'; group: string; snapshot: GroupSnapshot | null }
  | { kind: 'offset'; group: string; topic: string; partition: number; value: CommittedOffset | null }
  | { kind: 'txnOffset'; producerId: number; group: string; topic: string; partition: number; value: CommittedOffset; at: number }
  | { kind: 'txnMarker'; producerId: number; commit: boolean }

async function replay(p: OffsetsTopicPersistence): Promise<Event[]> {
  const events: Event[] = []
  await p.load({
    group: (group, snapshot) => events.push({ kind: 'group', group, snapshot }),
    offset: (group, topic, partition, value) => events.push({ kind: 'offset', group, topic, partition, value }),
    txnOffset: (producerId, group, topic, partition, value, at) =>
      events.push({ kind: 'txnOffset', producerId, group, topic, partition, value, at }),
    txnMarker: (producerId, commit) => events.push({ kind: 'txnMarker', producerId, commit }),
  })
  return events
}

function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = []
  return { logger: createLogger('debug', 'test', (l) => lines.push(l)), lines }
}

const code = (name: string) => (e: unknown) => e instanceof KafkaError && e.errorName === name

const offset = (o: number, ts = 1_700_000_000_000): CommittedOffset => ({
  offset: o,
  leaderEpoch: 0,
  metadata: `m${o}`,
  commitTimestampMs: ts,
  expireTimestampMs: -1,
})

const snapshot = (generationId: number, members: string[]): GroupSnapshot => ({
  protocolType: 'consumer',
  generationId,
  protocolName: members.length > 0 ? 'range' : null,
  leaderId: members[0] ?? null,
  currentStateTimestampMs: 1_700_000_000_000 + generationId,
  members: members.map((m) => ({
    memberId: m,
    groupInstanceId: m.startsWith('static') ? `${m}-instance` : null,
    clientId: 'client',
    clientHost: '/127.0.0.1',
    rebalanceTimeoutMs: 300_000,
    sessionTimeoutMs: 45_000,
    subscription: Buffer.from(`sub-${m}`),
    assignment: Buffer.from(`asg-${m}-${generationId}`),
  })),
})

/** Java's String.hashCode, computed independently of the code under test: Σ c·31^(n-1-i) mod 2^32. */
function javaHashByHand(s: string): number {
  let h = 0n
  for (let i = 0; i < s.length; i++) h += BigInt(s.charCodeAt(i)) * 31n ** BigInt(s.length - 1 - i)
  return Number(BigInt.asIntN(32, h))
}

describe('OffsetsTopicPersistence', () => {
  it('places groups as Kafka does: Utils.abs(groupId.hashCode()) % 50', async (t) => {
    const { clock, open } = await setup(t)
    const p = persistence(await open(), clock)
    // Hashes computed by Java's String.hashCode (and checked against javaHashByHand below).
    const known: Array<[string, number, number]> = [
      ['group-1', 293427299, 49],
      ['my-group', -1906497762, 12],
      ['test-group', 627841412, 12],
      ['console-consumer-40098', 161163762, 12],
      ['a', 97, 47],
      ['', 0, 0],
      // Integer.MIN_VALUE: Kafka's Utils.abs maps it to 0, not to itself.
      ['polygenelubricants', -2147483648, 0],
    ]
    for (const [id, hash, partition] of known) {
      assert.equal(javaHashByHand(id), hash, id)
      assert.equal(p.partitionFor(id), partition, id)
    }
    // "group-1" step by step: g=103 r=114 o=111 u=117 p=112 -=45 1=49.
    let h = 0
    for (const c of [103, 114, 111, 117, 112, 45, 49]) h = (h * 31 + c) % 2 ** 32
    assert.equal(h, 293427299)
  })

  it('creates __consumer_offsets once, on first use, with 50 partitions and the compact policy', async (t) => {
    const { clock, open } = await setup(t)
    const node = await open()
    const { topics, calls } = counting(node.controller)
    const p = persistence(node, clock, { topics })
    assert.equal(node.controller.get(OFFSETS_TOPIC), undefined, 'nothing is created before first use')
    await Promise.all([p.ensureTopic(), p.ensureTopic(), p.storeOffsets('group-1', [{ topic: 't', partition: 0, value: offset(1) }])])
    await p.ensureTopic()
    assert.equal(calls.create, 1)
    const topic = node.controller.get(OFFSETS_TOPIC)!
    assert.equal(topic.partitions, 50)
    assert.equal(topic.replicationFactor, 1)
    assert.deepEqual(topic.configs, { 'cleanup.policy': 'compact', 'segment.bytes': '104857600', 'compression.type': 'producer' })
    for (let i = 0; i < 50; i++) assert.ok(node.replicas.get(OFFSETS_TOPIC, i), `partition ${i}`)
    assert.equal(node.replicas.get(OFFSETS_TOPIC, 50), undefined)

    // Another persistence (or the same after a restart) finds it and creates nothing.
    const other = counting(node.controller)
    const p2 = persistence(node, clock, { topics: other.topics })
    await p2.ensureTopic()
    await p2.storeGroup('group-1', snapshot(1, ['m1']))
    assert.equal(other.calls.create, 0)
  })

  it('uses an existing topic as it is, its partition count included', async (t) => {
    const { clock, open } = await setup(t)
    const node = await open()
    await node.controller.create(
      {
        name: OFFSETS_TOPIC,
        numPartitions: 10,
        replicationFactor: 1,
        assignments: [],
        configs: [{ name: 'cleanup.policy', value: 'compact' }],
      },
      false,
    )
    const { logger, lines } = capturingLogger()
    const { topics, calls } = counting(node.controller)
    const p = persistence(node, clock, { topics, logger })
    assert.equal(p.partitionFor('group-1'), 293427299 % 10)
    assert.equal(p.partitionFor('my-group'), 1906497762 % 10)
    await p.storeOffsets('my-group', [{ topic: 't', partition: 0, value: offset(3) }])
    assert.equal(calls.create, 0)
    assert.equal(node.replicas.get(OFFSETS_TOPIC, 2)!.log.logEndOffset, 1)
    assert.ok(lines.some((l) => l.includes('another partition count')))
  })

  it('rejects with COORDINATOR_NOT_AVAILABLE when the topic cannot be created, and retries later', async (t) => {
    const { clock, open } = await setup(t)
    const node = await open()
    const p = persistence(node, clock, { replicationFactor: 3 })
    await assert.rejects(p.ensureTopic(), code('COORDINATOR_NOT_AVAILABLE'))
    await assert.rejects(p.storeOffsets('g', [{ topic: 't', partition: 0, value: offset(1) }]), code('COORDINATOR_NOT_AVAILABLE'))
    await assert.rejects(p.storeGroup('g', snapshot(1, ['m'])), code('COORDINATOR_NOT_AVAILABLE'))
    assert.equal(node.controller.get(OFFSETS_TOPIC), undefined)
    assert.deepEqual(await replay(p), [], 'load creates nothing and finds nothing')
    assert.equal(node.controller.get(OFFSETS_TOPIC), undefined)

    // A failed creation is not remembered: the next use tries again.
    const { topics, calls } = counting(node.controller)
    let failures = 1
    const flaky = {
      ...topics,
      create: (...args: Parameters<Controller['create']>) => {
        if (failures-- > 0) {
          calls.create++
          return Promise.reject(new KafkaError('NOT_CONTROLLER'))
        }
        return topics.create(...args)
      },
    }
    const q = persistence(node, clock, { topics: flaky })
    await assert.rejects(q.storeGroup('g', snapshot(1, ['m'])), code('COORDINATOR_NOT_AVAILABLE'))
    await q.storeGroup('g', snapshot(1, ['m']))
    assert.equal(calls.create, 2)
    assert.equal(node.controller.get(OFFSETS_TOPIC)?.partitions, 50)
  })

  it('replays groups and offsets after a restart, tombstones included, in write order', async (t) => {
    const { clock, open } = await setup(t)
    const node = await open()
    const p = persistence(node, clock)
    // group-1 → partition 49; my-group and test-group share partition 12.
    const writes: Array<{ group: string; run: () => Promise<unknown>; events: Event[] }> = []
    const group = (g: string, s: GroupSnapshot | null) =>
      writes.push({ group: g, run: () => p.storeGroup(g, s), events: [{ kind: 'group', group: g, snapshot: s }] })
    const offsets = (g: string, entries: OffsetEntry[]) =>
      writes.push({
        group: g,
        run: () => p.storeOffsets(g, entries),
        events: entries.map((e) => ({ kind: 'offset', group: g, topic: e.topic, partition: e.partition, value: e.value })),
      })
    group('group-1', snapshot(1, ['m1', 'static-2']))
    offsets('group-1', [
      { topic: 'orders', partition: 0, value: offset(5) },
      { topic: 'orders', partition: 1, value: { ...offset(7), metadata: null, leaderEpoch: -1 } },
      { topic: 'payments', partition: 0, value: { ...offset(9), leaderEpoch: -1, expireTimestampMs: 1_800_000_000_000 } },
    ])
    group('my-group', snapshot(1, ['a']))
    offsets('my-group', [{ topic: 'orders', partition: 0, value: offset(100) }])
    group('test-group', snapshot(4, ['x', 'y', 'z']))
    offsets('group-1', [{ topic: 'orders', partition: 0, value: offset(10) }])
    offsets('group-1', [{ topic: 'orders', partition: 1, value: null }])
    group('my-group', snapshot(2, []))
    group('test-group', null)
    offsets('my-group', [{ topic: 'orders', partition: 0, value: null }])
    offsets('group-1', [{ topic: 'orders', partition: 0, value: offset(11) }])

    // Issued together, not awaited one by one: the log must still hold them in call order.
    await Promise.all(writes.map((w) => w.run()))
    // Empty commits write nothing.
    await p.storeOffsets('group-1', [])
    const total = (partition: number) => node.replicas.get(OFFSETS_TOPIC, partition)!.log.logEndOffset
    assert.equal(total(49), 7)
    assert.equal(total(12), 6)

    // Expected replay: partitions in index order, each in call order. Null metadata comes back as "".
    const expected = [12, 49].flatMap((partition) => writes.filter((w) => p.partitionFor(w.group) === partition).flatMap((w) => w.events))
    for (const e of expected) if (e.kind === 'offset' && e.value?.metadata === null) e.value = { ...e.value, metadata: '' }

    assert.deepEqual(await replay(p), expected, 'replay over the live logs')
    await node.close()

    const reopened = await open()
    const fresh = persistence(reopened, clock)
    assert.deepEqual(await replay(fresh), expected, 'replay after a restart')
    // And it keeps writing where the log ends.
    await fresh.storeOffsets('group-1', [{ topic: 'orders', partition: 0, value: offset(12) }])
    const again = await replay(persistence(reopened, clock))
    assert.equal(again.length, expected.length + 1)
    assert.deepEqual(again.at(-1), { kind: 'offset', group: 'group-1', topic: 'orders', partition: 0, value: offset(12) })
  })

  it('writes one batch per call, stamped with the clock', async (t) => {
    const { clock, open } = await setup(t)
    const node = await open()
    const p = persistence(node, clock)
    const entries = Array.from({ length: 20 }, (_, i) => ({ topic: 'orders', partition: i, value: offset(i) }))
    await p.storeOffsets('group-1', entries)
    const part = node.replicas.get(OFFSETS_TOPIC, 49)!
    const { records } = await node.replicas.read(part, 0, 1 << 20, true)
    const batches = [...iterateBatches(records)]
    assert.equal(batches.length, 1)
    assert.equal(batches[0]!.recordCount, 20)
    assert.equal(batches[0]!.baseTimestamp, clock.now())
  })

  it('loads in bounded chunks across many batches and segments', async (t) => {
    const { clock, open } = await setup(t)
    const node = await open()
    const p = persistence(node, clock, { segmentBytes: 2048, loadChunkBytes: 300 })
    const n = 300
    for (let i = 0; i < n; i++) {
      clock.advance(1)
      await p.storeOffsets('group-1', [{ topic: 'orders', partition: i % 3, value: offset(i) }])
    }
    assert.ok(node.replicas.get(OFFSETS_TOPIC, 49)!.log.segmentCount > 5)
    const reads: number[] = []
    const log = node.replicas.get(OFFSETS_TOPIC, 49)!.log
    const read = log.read.bind(log)
    log.read = (...args: Parameters<typeof log.read>) => {
      reads.push(args[1])
      return read(...args)
    }
    const loader = persistence(node, clock, { loadChunkBytes: 300 })
    const events = await replay(loader)
    assert.deepEqual(
      events.map((e) => (e.kind === 'offset' ? e.value?.offset : -1)),
      Array.from({ length: n }, (_, i) => i),
    )
    assert.ok(reads.length >= n / 3, `read in chunks (${reads.length} reads)`)
    assert.ok(reads.every((b) => b === 300))
  })

  it('skips undecodable records with a warning and loads the rest', async (t) => {
    const { clock, open } = await setup(t)
    const node = await open()
    const { logger, lines } = capturingLogger()
    const p = persistence(node, clock, { logger })
    await p.storeOffsets('group-1', [{ topic: 'orders', partition: 0, value: offset(1) }])
    const part = node.replicas.require(OFFSETS_TOPIC, p.partitionFor('group-1'))
    const goodKey = encodeOffsetCommitKey('group-1', 'orders', 0)
    const bad = buildRecordBatch({
      baseTimestamp: clock.now(),
      records: [
        { key: null, value: Buffer.from('x') },
        { key: Buffer.from([0xff]), value: null },
        { key: Buffer.from([0x00, 0x09, 0x00, 0x00]), value: null }, // unknown key version
        { key: goodKey, value: encodeOffsetCommitValue(offset(2)).subarray(0, 7) }, // truncated value
        { key: goodKey, value: Buffer.from([0x00, 0x07, 1, 2, 3]) }, // unknown value version
        { key: goodKey, value: encodeOffsetCommitValue(offset(3)) }, // fine
      ],
    })
    await node.replicas.append(part, bad, 1 << 20)
    // A batch whose record does not parse (its length runs past the batch), CRC made valid again.
    const corrupt = buildRecordBatch({ baseTimestamp: clock.now(), records: [{ key: goodKey, value: encodeOffsetCommitValue(offset(4)) }] })
    corrupt[BATCH_HEADER_SIZE] = 0x7e // record length varint: 63 bytes, more than the batch holds
    writeBatchCrc(corrupt, 0)
    await node.replicas.append(part, corrupt, 1 << 20)
    await p.storeOffsets('group-1', [{ topic: 'orders', partition: 0, value: offset(5) }])

    const events = await replay(p)
    assert.deepEqual(
      events.map((e) => (e.kind === 'offset' ? e.value?.offset : null)),
      [1, 3, 5],
    )
    const warnings = lines.filter((l) => l.includes('skipping an undecodable record'))
    assert.equal(warnings.length, 6)
    assert.ok(warnings.some((l) => l.includes('null key')))
    assert.ok(warnings.some((l) => l.includes('unknown key version 9')))
    assert.ok(warnings.some((l) => l.includes('runs past the batch')))
    assert.ok(lines.some((l) => l.includes('loaded the offsets topic') && l.includes('skipped=6')))
  })

  it('lets an error thrown by the sink propagate instead of counting it as a bad record', async (t) => {
    const { clock, open } = await setup(t)
    const node = await open()
    const p = persistence(node, clock)
    await p.storeOffsets('group-1', [{ topic: 'orders', partition: 0, value: offset(1) }])
    const boom = new KafkaError('INVALID_REQUEST', 'sink failed')
    await assert.rejects(
      p.load({
        group: () => {},
        offset: () => {
          throw boom
        },
        txnOffset: () => {},
        txnMarker: () => {},
      }),
      (e) => e === boom,
    )
  })

  it('maps append failures to the codes Kafka answers with, and keeps serving after them', async (t) => {
    const { clock, open } = await setup(t)
    const node = await open()
    const p = persistence(node, clock, { maxBatchBytes: 400 })
    await p.ensureTopic()
    const big = 'x'.repeat(500)
    await assert.rejects(
      p.storeOffsets('g', [{ topic: 't', partition: 0, value: { ...offset(1), metadata: big } }]),
      code('INVALID_COMMIT_OFFSET_SIZE'),
    )
    await assert.rejects(p.storeGroup('g', snapshot(1, [big])), code('UNKNOWN_SERVER_ERROR'))
    await assert.rejects(
      p.storeOffsets('g', [{ topic: 't', partition: 0, value: { ...offset(1), metadata: 'y'.repeat(40_000) } }]),
      code('INVALID_REQUEST'),
    )
    await p.storeOffsets('g', [{ topic: 't', partition: 0, value: offset(2) }])
    assert.deepEqual(
      (await replay(p)).map((e) => (e.kind === 'offset' ? e.value?.offset : null)),
      [2],
    )
    // A log that cannot take writes: the client is sent to look for the coordinator again.
    await node.replicas.close()
    await assert.rejects(p.storeOffsets('g', [{ topic: 't', partition: 0, value: offset(3) }]), code('NOT_COORDINATOR'))
    await assert.rejects(p.storeGroup('g', null), code('NOT_COORDINATOR'))
  })

  it('maps a missing partition to COORDINATOR_NOT_AVAILABLE', async (t) => {
    const { clock, open } = await setup(t)
    const node = await open()
    const p = persistence(node, clock)
    await p.ensureTopic()
    const holes = {
      require: () => node.replicas.require('no-such-topic', 0),
      append: node.replicas.append.bind(node.replicas),
      read: node.replicas.read.bind(node.replicas),
    }
    const q = persistence(node, clock, { replicas: holes })
    await assert.rejects(q.storeGroup('g', snapshot(1, ['m'])), code('COORDINATOR_NOT_AVAILABLE'))
  })
})
