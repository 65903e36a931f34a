// DeleteRecords (21) over real services on a temp dir — metadata store, logs, controller, broker
// config — with every request and answer going through the message codec at each version served;
// ListOffsets (2) and the replica read path check what a client sees afterwards.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { Controller } from '../../../src/cluster/controller.js'
import listOffsets from '../../../src/handlers/02-list-offsets.js'
import deleteRecords from '../../../src/handlers/21-delete-records.js'
import type { Handler } from '../../../src/handlers/define.js'
import { allHandlers } from '../../../src/handlers/index.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import { ErrorCode, KafkaError } from '../../../src/protocol/errors.js'
import { apis } from '../../../src/protocol/messages/index.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import type { Encodable } from '../../../src/protocol/schema.js'
import type { ReplicaManager } from '../../../src/replication/replica-manager.js'
import { LOG_START_OFFSET_CHECKPOINT, type LogManager } from '../../../src/storage/log-manager.js'
import { silentLogger } from '../../../src/util/logger.js'
import { callHandler, openLocalBroker } from '../../helpers/local-broker.js'

const code = (name: keyof typeof ErrorCode) => ErrorCode[name].code
/** One 2-record batch with 100-byte values; topics below roll every two batches (4 offsets). */
const batch = () =>
  buildRecordBatch({ records: [0, 1].map((i) => ({ key: Buffer.from(`k${i}`), value: Buffer.alloc(100, i), timestamp: Date.now() })) })
const BATCH = batch().length

interface Harness {
  dir: string
  logs: LogManager
  replicas: ReplicaManager
  controller: Controller
  services: BrokerServices
  close(): Promise<void>
}

async function open(dir: string): Promise<Harness> {
  const { clock, configs, logs, replicas, controller, close } = await openLocalBroker(dir)
  const services = { nodeId: 0, clock, logger: silentLogger, topics: controller, replicas, configs } as unknown as BrokerServices
  return {
    dir,
    logs,
    replicas,
    controller,
    services,
    close,
  }
}

const call = <Req, Res>(h: Harness, handler: Handler<Req, Res>, version: number, req: Encodable<Req>): Promise<Res> =>
  callHandler(h.services, handler, version, req)

async function createTopic(h: Harness, name: string, batches: number, configs: Record<string, string> = {}) {
  const all = { 'segment.bytes': String(2 * BATCH), 'file.delete.delay.ms': '0', ...configs }
  await h.controller.create(
    {
      name,
      numPartitions: 2,
      replicationFactor: 1,
      assignments: [],
      configs: Object.entries(all).map(([n, value]) => ({ name: n, value })),
    },
    false,
  )
  const p = h.replicas.require(name, 0)
  for (let i = 0; i < batches; i++) await h.replicas.append(p, batch(), 1 << 20)
}

/** DeleteRecords of one partition; returns [errorCode, lowWatermark]. */
async function del(h: Harness, version: number, topic: string, partitionIndex: number, offset: number): Promise<[number, number]> {
  const r = await call(h, deleteRecords, version, {
    topics: [{ name: topic, partitions: [{ partitionIndex, offset }] }],
    timeoutMs: 30_000,
  })
  assert.equal(r.topics[0]!.name, topic)
  const p = r.topics[0]!.partitions[0]!
  assert.equal(p.partitionIndex, partitionIndex)
  return [p.errorCode, p.lowWatermark]
}

async function earliest(h: Harness, topic: string): Promise<number> {
  const r = await call(h, listOffsets, 1, {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2 }] }],
  })
  assert.equal(r.topics[0]!.partitions[0]!.errorCode, 0)
  return r.topics[0]!.partitions[0]!.offset
}

const segmentLogs = (h: Harness, topic: string) =>
  readdirSync(join(h.dir, `${topic}-0`))
    .filter((f) => f.endsWith('.log'))
    .sort()

let h: Harness

beforeEach(async () => {
  h = await open(mkdtempSync(join(tmpdir(), 'tributary-delrec-')))
})
afterEach(async () => {
  await h.close()
  rmSync(h.dir, { recursive: true, force: true })
})

describe('DeleteRecords', () => {
  it('is registered and declared for versions 0–2', () => {
    const x = allHandlers.find((a) => a.request.apiKey === 21)!
    assert.deepEqual([x.minVersion, x.maxVersion], [0, 2])
    assert.ok(apis.some((a) => a.request.apiKey === 21))
  })

  it('moves the log start offset at every version; whole segments below it go; ListOffsets earliest follows', async () => {
    await createTopic(h, 't', 10) // offsets 0..19, segments of 4 offsets
    const log = h.replicas.require('t', 0).log
    assert.deepEqual(log.segmentBaseOffsets(), [0, 4, 8, 12, 16])
    for (const [v, offset] of [
      [0, 2],
      [1, 9],
      [2, 13],
    ] as const) {
      assert.deepEqual(await del(h, v, 't', 0, offset), [0, offset], `v${v}`)
      assert.equal(log.logStartOffset, offset)
      assert.equal(await earliest(h, 't'), offset)
    }
    assert.deepEqual(log.segmentBaseOffsets(), [12, 16], 'segments wholly below 13 are gone')
    assert.deepEqual(segmentLogs(h, 't'), ['00000000000000000012.log', '00000000000000000016.log'])
    assert.equal(log.sizeBytes, 4 * BATCH)
    // The new start is checkpointed before the answer.
    assert.match(readFileSync(join(h.dir, LOG_START_OFFSET_CHECKPOINT), 'utf8'), /^t 0 13$/m)
    // Reads below it are out of range; at it, the batch holding it comes back.
    const p = h.replicas.require('t', 0)
    await assert.rejects(h.replicas.read(p, 12, 1 << 20, true), (e) => e instanceof KafkaError && e.errorName === 'OFFSET_OUT_OF_RANGE')
    assert.ok((await h.replicas.read(p, 13, 1 << 20, true)).records.length > 0)
    // A lower offset does not move it back; the answer is the current low watermark.
    assert.deepEqual(await del(h, 2, 't', 0, 5), [0, 13])
  })

  it('-1 means the high watermark: everything goes, appends carry on', async () => {
    await createTopic(h, 't', 5)
    const p = h.replicas.require('t', 0)
    assert.deepEqual(await del(h, 1, 't', 0, -1), [0, 10])
    assert.equal(await earliest(h, 't'), 10)
    assert.deepEqual(p.log.segmentBaseOffsets(), [8])
    assert.equal((await h.replicas.append(p, batch(), 1 << 20)).baseOffset, 10)
    // An empty partition: -1 is the HW (0), nothing to do.
    assert.deepEqual(await del(h, 2, 't', 1, -1), [0, 0])
  })

  it('answers per partition with Kafka’s errors', async () => {
    await createTopic(h, 't', 3)
    await createTopic(h, 'compacted', 3, { 'cleanup.policy': 'compact' })
    await createTopic(h, 'both', 3, { 'cleanup.policy': 'compact,delete' })
    const r = await call(h, deleteRecords, 2, {
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, offset: 7 }, // above the HW (6)
            { partitionIndex: 0, offset: -2 },
            { partitionIndex: 9, offset: 0 },
          ],
        },
        { name: 'missing', partitions: [{ partitionIndex: 0, offset: 0 }] },
        { name: 'compacted', partitions: [{ partitionIndex: 0, offset: 2 }] },
        { name: 'both', partitions: [{ partitionIndex: 0, offset: 2 }] },
      ],
      timeoutMs: 1000,
    })
    const got = r.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.errorCode, p.lowWatermark])])
    assert.deepEqual(got, [
      [
        't',
        [
          [0, code('OFFSET_OUT_OF_RANGE'), -1],
          [0, code('OFFSET_OUT_OF_RANGE'), -1],
          [9, code('UNKNOWN_TOPIC_OR_PARTITION'), -1],
        ],
      ],
      ['missing', [[0, code('UNKNOWN_TOPIC_OR_PARTITION'), -1]]],
      ['compacted', [[0, code('POLICY_VIOLATION'), -1]]],
      ['both', [[0, 0, 2]]],
    ])
    assert.equal(h.replicas.require('t', 0).log.logStartOffset, 0)
    assert.equal(h.replicas.require('compacted', 0).log.logStartOffset, 0)
  })

  it('the moved log start survives a restart', async () => {
    await createTopic(h, 't', 6, { 'file.delete.delay.ms': '60000' })
    assert.deepEqual(await del(h, 0, 't', 0, 6), [0, 6])
    const files = readdirSync(join(h.dir, 't-0'))
    assert.ok(files.includes('00000000000000000000.log.deleted'), 'kept as .deleted for file.delete.delay.ms')
    await h.close()
    assert.equal(existsSync(join(h.dir, 't-0', '00000000000000000000.log.deleted')), false, 'removed by close')
    h = await open(h.dir)
    assert.equal(h.replicas.require('t', 0).log.logStartOffset, 6)
    assert.equal(await earliest(h, 't'), 6)
  })
})
