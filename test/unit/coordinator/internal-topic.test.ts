// The internal-topic building block both coordinators' stores stand on (coordinator/internal-topic.ts),
// over fakes: one creation shared by concurrent callers, a lost creation race adopting the
// winner's topic, a failed creation answered COORDINATOR_NOT_AVAILABLE and retried by the next
// call, the topic's own partition count once it exists, appends issued in call order, and the
// append errors both coordinators map alike.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { InternalTopic, storeErrorName } from '../../../src/coordinator/internal-topic.js'
import type { TopicRecord } from '../../../src/ports/metadata-store.js'
import type { AppendPolicy, HostedReplica } from '../../../src/ports/replicas.js'
import type { TopicSpec } from '../../../src/ports/topics.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import { silentLogger } from '../../../src/util/logger.js'

const NAME = '__internal'
const POLICY: AppendPolicy = { logAppendTime: false, beforeMaxMs: Number.MAX_SAFE_INTEGER, afterMaxMs: Number.MAX_SAFE_INTEGER }

function topicRecord(partitions: number): TopicRecord {
  return { name: NAME, topicId: 'x', partitions, replicationFactor: 1, configs: {}, createdMs: 0 } as TopicRecord
}

function rig(opts: { existing?: TopicRecord; create?: (spec: TopicSpec) => Promise<TopicRecord> } = {}) {
  let stored = opts.existing
  const specs: TopicSpec[] = []
  const appended: Array<{ partition: number; batch: string }> = []
  const topic = new InternalTopic({
    name: NAME,
    label: 'internal topic',
    topics: {
      get: () => stored,
      create: async (spec) => {
        specs.push(spec)
        const t = await (opts.create ?? (async (s) => topicRecord(s.numPartitions)))(spec)
        stored = t
        return t
      },
      effectiveConfig: () => ({ 'min.insync.replicas': 2 }) as never,
    },
    replicas: {
      require: (_name, partition) => ({ partition }) as unknown as HostedReplica,
      append: async (p, batch) => {
        appended.push({ partition: (p as unknown as { partition: number }).partition, batch: batch.toString() })
        return { baseOffset: appended.length - 1, logAppendTimeMs: -1, logStartOffset: 0 }
      },
    },
    numPartitions: 3,
    replicationFactor: 1,
    configs: [{ name: 'cleanup.policy', value: 'compact' }],
    logger: silentLogger,
  })
  return { topic, specs, appended, setStored: (t: TopicRecord | undefined) => (stored = t) }
}

describe('InternalTopic', () => {
  it('creates the topic once for concurrent callers, with the configured partitions and configs', async () => {
    const r = rig()
    assert.equal(r.topic.partitionCount(), 3, 'the configured count until the topic exists')
    await Promise.all([r.topic.ensureTopic(), r.topic.ensureTopic(), r.topic.ensureTopic()])
    assert.equal(r.specs.length, 1)
    assert.deepEqual(r.specs[0], {
      name: NAME,
      numPartitions: 3,
      replicationFactor: 1,
      assignments: [],
      configs: [{ name: 'cleanup.policy', value: 'compact' }],
    })
    await r.topic.ensureTopic()
    assert.equal(r.specs.length, 1, 'an adopted topic is not created again')
    assert.equal(r.topic.minInsyncReplicas(), 2)
  })

  it("adopts an existing topic's own partition count", () => {
    const r = rig({ existing: topicRecord(7) })
    assert.equal(r.topic.partitionCount(), 7)
  })

  it("adopts the winner's topic when its own creation lost a race", async () => {
    const r = rig({
      create: async () => {
        r.setStored(topicRecord(5))
        throw new KafkaError('TOPIC_ALREADY_EXISTS')
      },
    })
    await r.topic.ensureTopic()
    assert.equal(r.topic.partitionCount(), 5)
  })

  it('answers a failed creation COORDINATOR_NOT_AVAILABLE; the next call tries again', async () => {
    let fail = true
    const r = rig({
      create: async (spec) => {
        if (fail) throw new KafkaError('INVALID_REPLICATION_FACTOR')
        return topicRecord(spec.numPartitions)
      },
    })
    await assert.rejects(r.topic.ensureTopic(), (e: unknown) => e instanceof KafkaError && e.errorName === 'COORDINATOR_NOT_AVAILABLE')
    fail = false
    await r.topic.ensureTopic()
    assert.equal(r.specs.length, 2)
  })

  it('issues appends in call order once the topic exists, to the partition named then', async () => {
    const r = rig()
    const done = await Promise.all(
      ['a', 'b', 'c'].map((b, i) =>
        r.topic.append(
          Buffer.from(b),
          () => i % r.topic.partitionCount(),
          () => 1000,
          () => POLICY,
        ),
      ),
    )
    assert.deepEqual(
      done.map((d) => d.baseOffset),
      [0, 1, 2],
    )
    assert.deepEqual(r.appended, [
      { partition: 0, batch: 'a' },
      { partition: 1, batch: 'b' },
      { partition: 2, batch: 'c' },
    ])
  })

  it('a failed append rejects with the replica error and does not stop the ones after it', async () => {
    const r = rig()
    const first = r.topic.append(
      Buffer.from('x'),
      () => {
        throw new KafkaError('NOT_LEADER_OR_FOLLOWER')
      },
      () => 1000,
      () => POLICY,
    )
    const second = r.topic.append(
      Buffer.from('y'),
      () => 0,
      () => 1000,
      () => POLICY,
    )
    await assert.rejects(first, (e: unknown) => e instanceof KafkaError && e.errorName === 'NOT_LEADER_OR_FOLLOWER')
    assert.equal((await second).baseOffset, 0)
  })
})

describe('storeErrorName', () => {
  it('maps unavailability to COORDINATOR_NOT_AVAILABLE and a lost leadership to NOT_COORDINATOR; leaves the rest', () => {
    const cases: Array<[string, string | undefined]> = [
      ['UNKNOWN_TOPIC_OR_PARTITION', 'COORDINATOR_NOT_AVAILABLE'],
      ['NOT_ENOUGH_REPLICAS', 'COORDINATOR_NOT_AVAILABLE'],
      ['NOT_ENOUGH_REPLICAS_AFTER_APPEND', 'COORDINATOR_NOT_AVAILABLE'],
      ['REQUEST_TIMED_OUT', 'COORDINATOR_NOT_AVAILABLE'],
      ['COORDINATOR_NOT_AVAILABLE', 'COORDINATOR_NOT_AVAILABLE'],
      ['NOT_LEADER_OR_FOLLOWER', 'NOT_COORDINATOR'],
      ['KAFKA_STORAGE_ERROR', 'NOT_COORDINATOR'],
      ['NOT_COORDINATOR', 'NOT_COORDINATOR'],
      ['MESSAGE_TOO_LARGE', undefined],
      ['INVALID_PRODUCER_EPOCH', undefined],
    ]
    for (const [name, expected] of cases) {
      assert.equal(storeErrorName(new KafkaError(name as never)), expected, name)
    }
    assert.equal(storeErrorName(new Error('boom')), undefined)
  })
})
