// The controller over real storage: topic validation, creation races, and start-up
// reconciliation of the metadata store with the logs on disk.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { defaultBrokerConfig } from '../../../src/config/config.js'
import type { Controller } from '../../../src/cluster/controller.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import { openLocalBroker } from '../../helpers/local-broker.js'

const config = defaultBrokerConfig({ 'num.partitions': 2 })

async function open(dir: string) {
  const { store, logs, replicas, controller, close } = await openLocalBroker(dir, { config })
  return { store, logs, replicas, controller, close }
}

const spec = (name: string, extra: Partial<Parameters<Controller['create']>[0]> = {}) => ({
  name,
  numPartitions: -1,
  replicationFactor: -1,
  assignments: [],
  configs: [],
  ...extra,
})

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p
    return 'NONE'
  } catch (err) {
    assert.ok(err instanceof KafkaError, String(err))
    return err.errorName
  }
}

describe('controller', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-controller-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  test('creates topics with broker defaults and refuses what Kafka refuses', async () => {
    const b = await open(dir)
    try {
      const t = await b.controller.create(spec('orders'), false)
      assert.equal(t.partitions, 2)
      assert.ok(b.replicas.get('orders', 1))
      assert.equal(await code(b.controller.create(spec('orders'), false)), 'TOPIC_ALREADY_EXISTS')
      assert.equal(await code(b.controller.create(spec('orders'), true)), 'TOPIC_ALREADY_EXISTS')
      await b.controller.create(spec('a.b'), false)
      assert.equal(await code(b.controller.create(spec('a_b'), false)), 'INVALID_TOPIC_EXCEPTION') // collides with a.b
      assert.equal(await code(b.controller.create(spec('x', { numPartitions: 0 }), false)), 'INVALID_PARTITIONS')
      assert.equal(await code(b.controller.create(spec('x', { replicationFactor: 2 }), false)), 'INVALID_REPLICATION_FACTOR')
      assert.equal(
        await code(b.controller.create(spec('x', { configs: [{ name: 'retention.ms', value: 'soon' }] }), false)),
        'INVALID_CONFIG',
      )
      assert.equal(
        await code(b.controller.create(spec('x', { assignments: [{ partitionIndex: 0, brokerIds: [7] }] }), false)),
        'INVALID_REPLICA_ASSIGNMENT',
      )
      assert.equal(
        await code(b.controller.create(spec('x', { assignments: [{ partitionIndex: 1, brokerIds: [0] }] }), false)),
        'INVALID_REPLICA_ASSIGNMENT',
      )
      const manual = await b.controller.create(
        spec('manual', { assignments: [0, 1, 2].map((i) => ({ partitionIndex: i, brokerIds: [0] })) }),
        false,
      )
      assert.equal(manual.partitions, 3)
      assert.equal(b.controller.get('x'), undefined, 'refused topics are not created')
    } finally {
      await b.close()
    }
  })

  test('concurrent auto-creations of one name create it once', async () => {
    const b = await open(dir)
    try {
      const [x, y, z] = await Promise.all([
        b.controller.getOrAutoCreate('auto', true),
        b.controller.getOrAutoCreate('auto', true),
        b.controller.getOrAutoCreate('auto', true),
      ])
      assert.ok(x && y && z)
      assert.equal(x.topicId, y.topicId)
      assert.equal(y.topicId, z.topicId)
      assert.equal(await b.controller.getOrAutoCreate('other', false), undefined, 'the client may forbid it')
      assert.equal(await code(b.controller.getOrAutoCreate('bad/name', true)), 'INVALID_TOPIC_EXCEPTION')
    } finally {
      await b.close()
    }
  })

  test('after a restart, logs keep their topic overrides, ids, and data', async () => {
    let b = await open(dir)
    const t = await b.controller.create(spec('small', { numPartitions: 1, configs: [{ name: 'segment.bytes', value: '1048576' }] }), false)
    await b.close()
    b = await open(dir)
    try {
      const p = b.replicas.get('small', 0)
      assert.ok(p)
      assert.equal(p.topicId, t.topicId)
      assert.equal(p.log.config.segmentBytes, 1048576)
    } finally {
      await b.close()
    }
  })

  test('create, delete and re-create of one name run in order and keep the last topic whole', async () => {
    let b = await open(dir)
    const first = b.controller.create(spec('race', { numPartitions: 4 }), false)
    const del = b.controller.delete('race')
    const second = b.controller.create(spec('race', { numPartitions: 3 }), false)
    const auto = b.controller.getOrAutoCreate('race', true)
    const [t1, , t2, t3] = await Promise.all([first, del, second, auto])
    assert.notEqual(t1.topicId, t2.topicId)
    assert.equal(t3?.topicId, t2.topicId, 'auto-creation found the re-created topic')
    for (let i = 0; i < 3; i++) assert.equal(b.replicas.get('race', i)?.topicId, t2.topicId)
    assert.equal(b.replicas.get('race', 3), undefined)
    await b.close()
    b = await open(dir)
    try {
      assert.equal(b.controller.get('race')?.topicId, t2.topicId)
      for (let i = 0; i < 3; i++) assert.equal(b.replicas.get('race', i)?.topicId, t2.topicId, 'logs survive the restart')
    } finally {
      await b.close()
    }
  })

  test('internal topics are never auto-created as ordinary topics', async () => {
    const b = await open(dir)
    try {
      assert.equal(await b.controller.getOrAutoCreate('__consumer_offsets', true), undefined)
      assert.equal(b.controller.get('__consumer_offsets'), undefined)
    } finally {
      await b.close()
    }
  })

  test('a deleted topic leaves nothing behind, and a log without a topic is removed at start-up', async () => {
    let b = await open(dir)
    await b.controller.create(spec('gone'), false)
    await b.controller.create(spec('orphan'), false)
    await b.controller.delete('gone')
    assert.equal(b.replicas.get('gone', 0), undefined)
    assert.equal(await code(b.controller.delete('gone')), 'UNKNOWN_TOPIC_OR_PARTITION')
    // Simulate a crash between the store's delete and the logs' removal.
    await b.store.deleteTopic('orphan')
    await b.close()
    b = await open(dir)
    try {
      assert.equal(b.replicas.get('orphan', 0), undefined)
      assert.deepEqual(
        [...b.logs.all()].map((l) => l.topic),
        [],
      )
    } finally {
      await b.close()
    }
  })
})
