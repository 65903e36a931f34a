// AlterConfigs (33), CreatePartitions (37), IncrementalAlterConfigs (44), DescribeConfigs (32) and
// the produce-side topic configs, over real services on a temp dir: metadata store, logs,
// controller and broker config service. Every request and answer goes through the message codec
// at every version the handler serves, and a reopen of the same dir checks what persisted.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { type BrokerConfig, ConfigSource, defaultBrokerConfig } from '../../../src/config/config.js'
import type { BrokerConfigService } from '../../../src/broker/config-service.js'
import type { Controller } from '../../../src/cluster/controller.js'
import type { LocalMetadataStore } from '../../../src/cluster/local-store.js'
import produce from '../../../src/handlers/00-produce.js'
import describeConfigs from '../../../src/handlers/32-describe-configs.js'
import alterConfigs from '../../../src/handlers/33-alter-configs.js'
import createPartitions from '../../../src/handlers/37-create-partitions.js'
import incrementalAlterConfigs from '../../../src/handlers/44-incremental-alter-configs.js'
import type { Handler } from '../../../src/handlers/define.js'
import { allHandlers } from '../../../src/handlers/index.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import { batchCrcMatches, readBatchHeader, TimestampType } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import type { Encodable } from '../../../src/protocol/schema.js'
import type { ReplicaManager } from '../../../src/replication/replica-manager.js'
import type { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { callHandler, openLocalBroker } from '../../helpers/local-broker.js'

const TOPIC = 2
const BROKER = 4
const { SET, DELETE, APPEND, SUBTRACT } = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 }
const code = (name: keyof typeof ErrorCode) => ErrorCode[name].code

interface Harness {
  dir: string
  clock: ManualClock
  store: LocalMetadataStore
  replicas: ReplicaManager
  controller: Controller
  configs: BrokerConfigService
  services: BrokerServices
  close(): Promise<void>
}

async function open(dir: string, config: BrokerConfig = defaultBrokerConfig()): Promise<Harness> {
  const { clock, store, configs, replicas, controller, close } = await openLocalBroker(dir, { config })
  const services = {
    nodeId: 0,
    clusterId: store.clusterId(),
    clock,
    logger: silentLogger,
    settings: { messageMaxBytes: 1048588, fetchMaxBytes: 1 << 20, autoCreateTopics: false, deleteTopicEnable: true },
    brokers: () => [{ nodeId: 0, host: '127.0.0.1', port: 9092, rack: null }],
    topics: controller,
    replicas,
    configs,
  } as unknown as BrokerServices
  return {
    dir,
    clock,
    store,
    replicas,
    controller,
    configs,
    services,
    close,
  }
}

const call = <Req, Res>(h: Harness, handler: Handler<Req, Res>, version: number, req: Encodable<Req>): Promise<Res> =>
  callHandler(h.services, handler, version, req)

const versions = (x: Handler) => Array.from({ length: x.maxVersion - x.minVersion + 1 }, (_, i) => x.minVersion + i)

async function createTopic(h: Harness, name: string, partitions = 1, configs: Record<string, string> = {}) {
  await h.controller.create(
    {
      name,
      numPartitions: partitions,
      replicationFactor: 1,
      assignments: [],
      configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })),
    },
    false,
  )
}

async function describeOne(h: Harness, resourceType: number, resourceName: string, keys: string[] | null = null) {
  const r = await call(h, describeConfigs, 4, {
    resources: [{ resourceType, resourceName, configurationKeys: keys }],
    includeSynonyms: true,
    includeDocumentation: false,
  })
  assert.equal(r.results[0]!.errorCode, 0, r.results[0]!.errorMessage ?? '')
  return new Map(r.results[0]!.configs.map((c) => [c.name, c]))
}

const alter = (resourceType: number, resourceName: string, configs: Record<string, string | null>, validateOnly = false) => ({
  resources: [{ resourceType, resourceName, configs: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
  validateOnly,
})

const incremental = (resourceType: number, resourceName: string, ops: Array<[string, number, string | null]>, validateOnly = false) => ({
  resources: [{ resourceType, resourceName, configs: ops.map(([name, configOperation, value]) => ({ name, configOperation, value })) }],
  validateOnly,
})

let h: Harness

beforeEach(async () => {
  h = await open(await mkdtemp(join(tmpdir(), 'tributary-cfg-')))
})
afterEach(async () => {
  await h.close()
  await rm(h.dir, { recursive: true, force: true })
})

describe('config handlers', () => {
  it('are registered with Kafka’s version ranges', () => {
    const ranges = new Map(allHandlers.map((x) => [x.request.apiKey, `${x.minVersion}-${x.maxVersion}`]))
    assert.deepEqual(
      [33, 37, 44].map((k) => ranges.get(k)),
      ['0-2', '0-3', '0-1'],
    )
  })

  it('AlterConfigs replaces a topic’s whole override set, at every version', async () => {
    await createTopic(h, 't', 1, { 'retention.ms': '1000', 'cleanup.policy': 'compact' })
    for (const v of versions(alterConfigs)) {
      const seg = String(100_000 + v)
      const r = await call(h, alterConfigs, v, alter(TOPIC, 't', { 'segment.bytes': seg, 'max.message.bytes': '5000' }))
      assert.deepEqual(r.responses, [{ errorCode: 0, errorMessage: null, resourceType: TOPIC, resourceName: 't' }])
      assert.deepEqual(h.controller.get('t')!.configs, { 'segment.bytes': seg, 'max.message.bytes': '5000' }, `v${v}`)
      // Applied to the live log at once.
      assert.equal(h.replicas.get('t', 0)!.log.config.segmentBytes, Number(seg))
    }
    const d = await describeOne(h, TOPIC, 't')
    assert.equal(d.get('segment.bytes')!.configSource, ConfigSource.TOPIC_CONFIG)
    assert.equal(d.get('retention.ms')!.configSource, ConfigSource.DEFAULT_CONFIG, 'left out = back to the default')
    assert.equal(d.get('cleanup.policy')!.value, 'delete')
  })

  it('AlterConfigs validate_only checks without changing anything', async () => {
    await createTopic(h, 't')
    const ok = await call(h, alterConfigs, 1, alter(TOPIC, 't', { 'retention.ms': '5' }, true))
    assert.equal(ok.responses[0]!.errorCode, 0)
    const bad = await call(h, alterConfigs, 1, alter(TOPIC, 't', { 'retention.ms': 'soon' }, true))
    assert.equal(bad.responses[0]!.errorCode, code('INVALID_CONFIG'))
    assert.deepEqual(h.controller.get('t')!.configs, {})
  })

  it('AlterConfigs answers each resource with Kafka’s error', async () => {
    await createTopic(h, 't')
    await createTopic(h, 'u')
    const r = await call(h, alterConfigs, 2, {
      resources: [
        { resourceType: TOPIC, resourceName: 't', configs: [{ name: 'no.such.key', value: '1' }] },
        { resourceType: TOPIC, resourceName: 'u', configs: [{ name: 'segment.bytes', value: '10' }] },
        { resourceType: TOPIC, resourceName: 'missing', configs: [] },
        { resourceType: TOPIC, resourceName: 'dup', configs: [] },
        { resourceType: TOPIC, resourceName: 'dup', configs: [] },
        { resourceType: BROKER, resourceName: '5', configs: [] },
        { resourceType: BROKER, resourceName: '0', configs: [{ name: 'log.dirs', value: '/x' }] },
        { resourceType: BROKER, resourceName: '', configs: [{ name: 'message.max.bytes', value: null }] },
        { resourceType: 8, resourceName: '0', configs: [] },
      ],
      validateOnly: false,
    })
    const errs = r.responses.map((x) => [x.resourceName, x.errorCode])
    assert.deepEqual(errs, [
      ['t', code('INVALID_CONFIG')],
      ['u', code('INVALID_CONFIG')],
      ['missing', code('UNKNOWN_TOPIC_OR_PARTITION')],
      ['dup', code('INVALID_REQUEST')],
      ['dup', code('INVALID_REQUEST')],
      ['5', code('INVALID_REQUEST')],
      ['0', code('INVALID_REQUEST')],
      ['', code('INVALID_REQUEST')],
      ['0', code('INVALID_REQUEST')],
    ])
    assert.match(r.responses[0]!.errorMessage!, /Unknown topic config name: no\.such\.key/)
    assert.match(r.responses[1]!.errorMessage!, /segment\.bytes/)
    assert.match(r.responses[6]!.errorMessage!, /Cannot update these configs dynamically: log\.dirs/)
    assert.match(r.responses[7]!.errorMessage!, /Null value not supported for : message\.max\.bytes/)
  })

  it('AlterConfigs on a broker sets dynamic configs that DescribeConfigs reports with their sources', async () => {
    await createTopic(h, 't')
    await createTopic(h, 'own', 1, { 'segment.bytes': '70000' })
    let r = await call(h, alterConfigs, 0, alter(BROKER, '', { 'log.segment.bytes': '50000', 'log.retention.ms': '3600000' }))
    assert.equal(r.responses[0]!.errorCode, 0, r.responses[0]!.errorMessage ?? '')
    r = await call(h, alterConfigs, 0, alter(BROKER, '0', { 'log.segment.bytes': '60000' }))
    assert.equal(r.responses[0]!.errorCode, 0, r.responses[0]!.errorMessage ?? '')

    const node = await describeOne(h, BROKER, '0', ['log.segment.bytes', 'log.retention.ms', 'num.partitions'])
    assert.equal(node.get('log.segment.bytes')!.value, '60000')
    assert.equal(node.get('log.segment.bytes')!.configSource, ConfigSource.DYNAMIC_BROKER_CONFIG)
    assert.deepEqual(
      node.get('log.segment.bytes')!.synonyms.map((s) => [s.value, s.source]),
      [
        ['60000', ConfigSource.DYNAMIC_BROKER_CONFIG],
        ['50000', ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG],
        ['1073741824', ConfigSource.DEFAULT_CONFIG],
      ],
    )
    assert.equal(node.get('log.retention.ms')!.configSource, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
    assert.equal(node.get('log.segment.bytes')!.readOnly, false)
    assert.equal(node.get('num.partitions')!.readOnly, true)
    const defaults = await describeOne(h, BROKER, '')
    assert.deepEqual([...defaults.keys()].sort(), ['log.retention.ms', 'log.segment.bytes'])
    assert.equal(defaults.get('log.segment.bytes')!.value, '50000')

    // Topics without their own override follow, live; a topic override still wins.
    const topic = await describeOne(h, TOPIC, 't', ['segment.bytes', 'retention.ms'])
    assert.equal(topic.get('segment.bytes')!.value, '60000')
    assert.equal(topic.get('segment.bytes')!.configSource, ConfigSource.DYNAMIC_BROKER_CONFIG)
    assert.equal(topic.get('retention.ms')!.value, '3600000')
    assert.equal(topic.get('retention.ms')!.configSource, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
    assert.equal(h.replicas.get('t', 0)!.log.config.segmentBytes, 60_000)
    assert.equal(h.replicas.get('own', 0)!.log.config.segmentBytes, 70_000)
    assert.equal(h.controller.effectiveConfig(h.controller.get('t')!)['retention.ms'], 3_600_000)

    // The non-incremental form replaces the set: the default level keeps only what is sent.
    r = await call(h, alterConfigs, 2, alter(BROKER, '', { 'log.retention.ms': '7200000' }))
    assert.equal(r.responses[0]!.errorCode, 0)
    assert.deepEqual(h.configs.brokerConfigs(''), { 'log.retention.ms': '7200000' })
  })

  it('IncrementalAlterConfigs SET / DELETE / APPEND / SUBTRACT on a topic, at every version', async () => {
    await createTopic(h, 't', 1, { 'retention.ms': '1000' })
    for (const v of versions(incrementalAlterConfigs)) {
      let r = await call(
        h,
        incrementalAlterConfigs,
        v,
        incremental(TOPIC, 't', [
          ['segment.bytes', SET, '80000'],
          ['cleanup.policy', APPEND, 'compact'],
        ]),
      )
      assert.deepEqual(r.responses, [{ errorCode: 0, errorMessage: null, resourceType: TOPIC, resourceName: 't' }])
      assert.deepEqual(h.controller.get('t')!.configs, {
        'retention.ms': '1000',
        'segment.bytes': '80000',
        'cleanup.policy': 'delete,compact',
      })
      assert.equal(h.replicas.get('t', 0)!.log.config.segmentBytes, 80_000)
      r = await call(
        h,
        incrementalAlterConfigs,
        v,
        incremental(TOPIC, 't', [
          ['segment.bytes', DELETE, null],
          ['cleanup.policy', SUBTRACT, 'delete'],
        ]),
      )
      assert.equal(r.responses[0]!.errorCode, 0)
      assert.deepEqual(h.controller.get('t')!.configs, { 'retention.ms': '1000', 'cleanup.policy': 'compact' })
      assert.equal(h.replicas.get('t', 0)!.log.config.segmentBytes, 1073741824)
      r = await call(h, incrementalAlterConfigs, v, incremental(TOPIC, 't', [['cleanup.policy', DELETE, null]]))
      assert.equal(r.responses[0]!.errorCode, 0)
    }
  })

  it('IncrementalAlterConfigs errors: non-list APPEND, unknown operation, null SET, bad value, validate_only', async () => {
    await createTopic(h, 't')
    const cases: Array<[number, string, [string, number, string | null], keyof typeof ErrorCode, RegExp]> = [
      [TOPIC, 't', ['retention.ms', APPEND, '1'], 'INVALID_CONFIG', /retention\.ms/],
      [BROKER, '0', ['log.retention.ms', 9, '1'], 'INVALID_REQUEST', /Unknown operations type 9/],
      [BROKER, '', ['log.retention.ms', SET, null], 'INVALID_REQUEST', /Null value/],
      // Kafka 4.4 answers a bad value of a broker config INVALID_REQUEST (its ConfigAdminManager).
      [BROKER, '0', ['log.retention.ms', SET, 'x'], 'INVALID_REQUEST', /log\.retention\.ms/],
      [BROKER, '', ['max.connections', SET, '-1'], 'INVALID_REQUEST', /max\.connections.*at least 0/],
      [
        BROKER,
        '0',
        ['listener.name.plaintext.max.connections', SET, '-2'],
        'INVALID_REQUEST',
        /listener\.name\.plaintext\.max\.connections/,
      ],
      [BROKER, '0', ['max.connections.per.ip', SET, '0'], 'INVALID_REQUEST', /zero only if max\.connections\.per\.ip\.overrides/],
      [BROKER, '0', ['max.connections.per.ip.overrides', SET, 'abc'], 'INVALID_REQUEST', /max\.connections\.per\.ip\.overrides/],
      [BROKER, '0', ['listener.name.plaintext.max.connections.per.ip', SET, '5'], 'INVALID_REQUEST', /dynamically/],
      [BROKER, '0', ['log.retention.hours', SET, '1'], 'INVALID_REQUEST', /dynamically: log\.retention\.hours/],
      [BROKER, '0', ['no.such.broker.key', SET, '1'], 'INVALID_CONFIG', /Unknown broker config name: no\.such\.broker\.key/],
      [TOPIC, '', ['retention.ms', SET, '1'], 'INVALID_REQUEST', /Default topic/],
    ]
    for (const [type, name, op, expected, message] of cases) {
      const r = await call(h, incrementalAlterConfigs, 1, incremental(type, name, [op]))
      assert.equal(r.responses[0]!.errorCode, code(expected), `${op[0]} ${op[1]}: ${r.responses[0]!.errorMessage}`)
      assert.match(r.responses[0]!.errorMessage!, message)
    }
    const dry = await call(h, incrementalAlterConfigs, 0, incremental(BROKER, '0', [['message.max.bytes', SET, '100']], true))
    assert.equal(dry.responses[0]!.errorCode, 0)
    assert.deepEqual(h.configs.brokerConfigs('0'), {})
    const set = await call(h, incrementalAlterConfigs, 0, incremental(BROKER, '0', [['message.max.bytes', SET, '100']]))
    assert.equal(set.responses[0]!.errorCode, 0)
    const del = await call(h, incrementalAlterConfigs, 0, incremental(BROKER, '0', [['message.max.bytes', DELETE, null]]))
    assert.equal(del.responses[0]!.errorCode, 0)
    assert.deepEqual(h.configs.brokerConfigs('0'), {})
  })

  it('CreatePartitions grows a topic, at every version; new partitions have logs and are persisted', async () => {
    await createTopic(h, 't', 1)
    let count = 1
    for (const v of versions(createPartitions)) {
      count += 1
      const r = await call(h, createPartitions, v, {
        topics: [{ name: 't', count, assignments: null }],
        timeoutMs: 1000,
        validateOnly: false,
      })
      assert.deepEqual(r.results, [{ name: 't', errorCode: 0, errorMessage: null }])
      assert.equal(h.controller.get('t')!.partitions, count)
      assert.ok(h.replicas.get('t', count - 1), `v${v}: partition ${count - 1} has a log`)
    }
    const withAssignment = await call(h, createPartitions, 3, {
      topics: [{ name: 't', count: count + 2, assignments: [{ brokerIds: [0] }, { brokerIds: [0] }] }],
      timeoutMs: 1000,
      validateOnly: false,
    })
    assert.equal(withAssignment.results[0]!.errorCode, 0)
    assert.equal(h.controller.get('t')!.partitions, count + 2)
  })

  it('CreatePartitions refuses what Kafka refuses, and validate_only creates nothing', async () => {
    await createTopic(h, 't', 3)
    await createTopic(h, 'd')
    const r = await call(h, createPartitions, 2, {
      topics: [
        { name: 't', count: 2, assignments: null },
        { name: 't', count: 3, assignments: null },
        { name: 'missing', count: 4, assignments: null },
        { name: 'd', count: 2, assignments: null },
        { name: 'd', count: 3, assignments: null },
      ],
      timeoutMs: 1000,
      validateOnly: false,
    })
    assert.deepEqual(
      r.results.map((x) => [x.name, x.errorCode]),
      [
        ['t', code('INVALID_REQUEST')],
        ['t', code('INVALID_REQUEST')],
        ['missing', code('UNKNOWN_TOPIC_OR_PARTITION')],
        ['d', code('INVALID_REQUEST')],
        ['d', code('INVALID_REQUEST')],
      ],
    )
    const one = async (count: number, assignments: Array<{ brokerIds: number[] }> | null, validateOnly = false) =>
      (await call(h, createPartitions, 1, { topics: [{ name: 't', count, assignments }], timeoutMs: 1000, validateOnly })).results[0]!
    const shrink = await one(2, null)
    assert.equal(shrink.errorCode, code('INVALID_PARTITIONS'))
    assert.equal(shrink.errorMessage, 'The topic t currently has 3 partition(s); 2 would not be an increase.')
    assert.equal((await one(3, null)).errorCode, code('INVALID_PARTITIONS'))
    assert.equal((await one(4, [{ brokerIds: [1] }])).errorCode, code('INVALID_REPLICA_ASSIGNMENT'))
    assert.equal((await one(5, [{ brokerIds: [0] }])).errorCode, code('INVALID_REPLICA_ASSIGNMENT'), 'one assignment per new partition')
    assert.equal((await one(4, [{ brokerIds: [0, 0] }])).errorCode, code('INVALID_REPLICA_ASSIGNMENT'))
    assert.equal((await one(4, [{ brokerIds: [] }])).errorCode, code('INVALID_REPLICA_ASSIGNMENT'))
    assert.equal((await one(6, null, true)).errorCode, 0)
    assert.equal(h.controller.get('t')!.partitions, 3)
    assert.equal(h.replicas.get('t', 3), undefined)
  })

  it('topic configs, partitions and dynamic broker configs survive a reopen', async () => {
    await createTopic(h, 't', 1)
    await call(h, incrementalAlterConfigs, 1, incremental(TOPIC, 't', [['max.message.bytes', SET, '4000']]))
    await call(h, createPartitions, 3, { topics: [{ name: 't', count: 3, assignments: null }], timeoutMs: 1000, validateOnly: false })
    await call(h, incrementalAlterConfigs, 1, incremental(BROKER, '', [['log.segment.bytes', SET, '90000']]))
    await h.close()
    h = await open(h.dir)
    assert.equal(h.controller.get('t')!.partitions, 3)
    assert.deepEqual(h.controller.get('t')!.configs, { 'max.message.bytes': '4000' })
    assert.ok(h.replicas.get('t', 2))
    assert.equal(h.replicas.get('t', 2)!.log.config.segmentBytes, 90_000, 'the dynamic default applies at start')
    const d = await describeOne(h, BROKER, '0', ['log.segment.bytes'])
    assert.equal(d.get('log.segment.bytes')!.configSource, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
  })
})

describe('produce-side topic configs', () => {
  const batch = (valueBytes: number, timestamp: number) =>
    buildRecordBatch({ records: [{ key: null, value: Buffer.alloc(valueBytes, 1), timestamp }] })

  async function send(records: Buffer) {
    const r = await call(h, produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 1000,
      topicData: [{ name: 't', partitionData: [{ index: 0, records }] }],
    })
    return r.responses[0]!.partitionResponses[0]!
  }

  it('max.message.bytes changed by AlterConfigs applies to the next produce', async () => {
    await createTopic(h, 't')
    assert.equal((await send(batch(2000, h.clock.now()))).errorCode, 0)
    await call(h, incrementalAlterConfigs, 1, incremental(TOPIC, 't', [['max.message.bytes', SET, '1000']]))
    assert.equal((await send(batch(2000, h.clock.now()))).errorCode, code('MESSAGE_TOO_LARGE'))
    assert.equal((await send(batch(500, h.clock.now()))).errorCode, 0)
    // A dynamic broker default reaches topics without their own override.
    await call(h, incrementalAlterConfigs, 1, incremental(TOPIC, 't', [['max.message.bytes', DELETE, null]]))
    await call(h, incrementalAlterConfigs, 1, incremental(BROKER, '', [['message.max.bytes', SET, '300']]))
    assert.equal((await send(batch(500, h.clock.now()))).errorCode, code('MESSAGE_TOO_LARGE'))
  })

  it('LogAppendTime stamps the batch with the broker time and a valid CRC', async () => {
    await createTopic(h, 't', 1, { 'message.timestamp.type': 'LogAppendTime' })
    const now = h.clock.now()
    const res = await send(batch(10, now - 86_400_000))
    assert.equal(res.errorCode, 0)
    assert.equal(res.logAppendTimeMs, now)
    const read = await h.replicas.read(h.replicas.require('t', 0), 0, 1 << 20, true)
    const hdr = readBatchHeader(read.records, 0)
    assert.equal(hdr.timestampType, TimestampType.LogAppendTime)
    assert.equal(hdr.maxTimestamp, now)
    assert.ok(batchCrcMatches(read.records, 0, hdr.sizeBytes))
    const found = await h.replicas.listOffset(h.replicas.require('t', 0), now - 1000)
    assert.deepEqual(found, { offset: 0, timestamp: now }, 'ListOffsets by time uses the append time')
  })

  it('message.timestamp.before/after.max.ms refuse timestamps out of range with INVALID_TIMESTAMP', async () => {
    await createTopic(h, 't', 1, { 'message.timestamp.before.max.ms': '60000', 'message.timestamp.after.max.ms': '1000' })
    const now = h.clock.now()
    assert.equal((await send(batch(10, now - 30_000))).errorCode, 0)
    const old = await send(batch(10, now - 120_000))
    assert.equal(old.errorCode, code('INVALID_TIMESTAMP'))
    assert.equal(old.errorMessage, 'One or more records have been rejected due to invalid timestamp')
    assert.match(old.recordErrors[0]?.batchIndexErrorMessage ?? '', /out of range/)
    assert.equal((await send(batch(10, now + 5_000))).errorCode, code('INVALID_TIMESTAMP'))
    // A producer may not claim LogAppendTime itself.
    const forged = buildRecordBatch({ records: [{ key: null, value: Buffer.from('x'), timestamp: now }], attributes: 0x08 })
    assert.equal((await send(forged)).errorCode, code('INVALID_TIMESTAMP'))
  })
})
