import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import {
  LocalMetadataStore,
  META_PROPERTIES,
  METADATA_FILE,
  MetadataFileError,
} from '../../../src/cluster/local-store.js'
import { isValidUuid } from '../../../src/cluster/uuid.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import { type Fs, nodeFs } from '../../../src/storage/fs.js'
import { ManualClock } from '../../../src/util/clock.js'
import { parseProperties } from '../../../src/util/properties.js'

let dir: string
const clock = new ManualClock(1_700_000_000_000)

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tributary-meta-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const open = (extra: { fs?: Fs; nodeId?: number; clusterId?: string | null } = {}) =>
  LocalMetadataStore.open({ fs: extra.fs ?? nodeFs, dataDir: dir, clock, ...extra })

const topic = (name: string, partitions = 3, configs: Record<string, string> = {}) => ({
  name,
  partitions,
  replicationFactor: 1,
  configs,
})

function kafkaError(name: string) {
  return (e: unknown) => e instanceof KafkaError && e.errorName === name
}

describe('LocalMetadataStore', () => {
  it('creates, lists, gets, updates and deletes topics', async () => {
    const s = await open()
    const a = await s.createTopic(topic('orders', 3, { 'retention.ms': '1000' }))
    assert.equal(a.name, 'orders')
    assert.ok(isValidUuid(a.topicId))
    assert.equal(a.partitions, 3)
    assert.equal(a.createdMs, clock.now())
    assert.deepEqual(a.configs, { 'retention.ms': '1000' })
    const b = await s.createTopic({ ...topic('payments'), topicId: 'AAAAAAAAAAAAAAAAAAAAAg' })
    assert.equal(b.topicId, 'AAAAAAAAAAAAAAAAAAAAAg')

    assert.deepEqual(s.listTopics().map((t) => t.name).sort(), ['orders', 'payments'])
    assert.equal(s.getTopic('orders'), a)
    assert.equal(s.getTopicById(a.topicId), a)
    assert.equal(s.getTopic('nope'), undefined)

    const a2 = await s.updateTopic('orders', { partitions: 5 })
    assert.equal(a2.partitions, 5)
    assert.equal(a2.topicId, a.topicId)
    assert.deepEqual(a2.configs, { 'retention.ms': '1000' })
    const a3 = await s.updateTopic('orders', { configs: { 'cleanup.policy': 'compact' } })
    assert.deepEqual(a3.configs, { 'cleanup.policy': 'compact' }, 'configs replace the override set')
    assert.equal(s.getTopicById(a.topicId), a3)

    await s.deleteTopic('orders')
    assert.equal(s.getTopic('orders'), undefined)
    assert.equal(s.getTopicById(a.topicId), undefined)
    assert.deepEqual(s.listTopics().map((t) => t.name), ['payments'])
    await s.close()
  })

  it('answers with Kafka error codes and leaves the image unchanged on refusal', async () => {
    const s = await open()
    const a = await s.createTopic(topic('t'))
    await assert.rejects(s.createTopic(topic('t')), kafkaError('TOPIC_ALREADY_EXISTS'))
    await assert.rejects(s.createTopic({ ...topic('u'), topicId: a.topicId }), kafkaError('TOPIC_ALREADY_EXISTS'))
    await assert.rejects(s.createTopic({ ...topic('u'), topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }), kafkaError('INVALID_REQUEST'))
    await assert.rejects(s.createTopic(topic('../etc')), kafkaError('INVALID_TOPIC_EXCEPTION'))
    await assert.rejects(s.createTopic(topic('z', 0)), kafkaError('INVALID_PARTITIONS'))
    await assert.rejects(s.createTopic({ ...topic('z'), replicationFactor: 0 }), kafkaError('INVALID_REPLICATION_FACTOR'))
    await assert.rejects(s.deleteTopic('missing'), kafkaError('UNKNOWN_TOPIC_OR_PARTITION'))
    await assert.rejects(s.updateTopic('missing', { partitions: 9 }), kafkaError('UNKNOWN_TOPIC_OR_PARTITION'))
    await assert.rejects(s.updateTopic('t', { partitions: 2 }), kafkaError('INVALID_PARTITIONS'))
    await assert.rejects(s.nextProducerIdBlock(0), kafkaError('INVALID_REQUEST'))
    assert.deepEqual(s.listTopics(), [a])
    await s.close()
  })

  it('hands out frozen records', async () => {
    const s = await open()
    const a = await s.createTopic(topic('t', 1, { x: 'y' }))
    assert.throws(() => {
      ;(a as { partitions: number }).partitions = 9
    })
    assert.throws(() => {
      a.configs.x = 'z'
    })
    assert.equal(s.getTopic('t')!.partitions, 1)
    await s.close()
  })

  it('persists topics, ids and the cluster id across close and reopen', async () => {
    const s1 = await open()
    const clusterId = s1.clusterId()
    assert.ok(isValidUuid(clusterId))
    const a = await s1.createTopic(topic('a', 2, { 'segment.bytes': '1024' }))
    const b = await s1.createTopic(topic('b', 1))
    await s1.updateTopic('b', { partitions: 4 })
    await s1.createTopic(topic('gone'))
    await s1.deleteTopic('gone')
    await s1.close()

    const s2 = await open()
    assert.equal(s2.clusterId(), clusterId)
    assert.deepEqual(s2.getTopic('a'), a)
    assert.equal(s2.getTopic('b')!.topicId, b.topicId)
    assert.equal(s2.getTopic('b')!.partitions, 4)
    assert.equal(s2.getTopic('gone'), undefined)
    assert.deepEqual(s2.listTopics().map((t) => t.name).sort(), ['a', 'b'])
    await s2.close()

    const meta = parseProperties(await readFile(join(dir, META_PROPERTIES), 'utf8'))
    assert.equal(meta.get('version'), '1')
    assert.equal(meta.get('cluster.id'), clusterId)
    assert.equal(meta.get('node.id'), '0')
  })

  it('never hands out overlapping producer id blocks, across reopen', async () => {
    const seen: Array<{ start: number; size: number }> = []
    for (let round = 0; round < 3; round++) {
      const s = await open()
      seen.push(await s.nextProducerIdBlock(1000))
      seen.push(...(await Promise.all([s.nextProducerIdBlock(10), s.nextProducerIdBlock(1), s.nextProducerIdBlock(5)])))
      await s.close()
    }
    seen.sort((x, y) => x.start - y.start)
    assert.equal(seen[0]!.start, 0)
    for (let i = 1; i < seen.length; i++) {
      assert.ok(seen[i]!.start >= seen[i - 1]!.start + seen[i - 1]!.size, `block ${i} overlaps`)
    }
  })

  it('serializes concurrent writes', async () => {
    const s = await open()
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.createTopic(topic(`t${i}`))))
    await s.close()
    const s2 = await open()
    assert.equal(s2.listTopics().length, 20)
    await s2.close()
  })

  it('ignores and removes a temp file left by an interrupted write', async () => {
    const s1 = await open()
    await s1.createTopic(topic('kept'))
    await s1.close()
    await writeFile(join(dir, `${METADATA_FILE}.tmp`), '{"version":1,"clusterId":"x","topi')
    await writeFile(join(dir, `${META_PROPERTIES}.tmp`), 'garbage')
    const s2 = await open()
    assert.deepEqual(s2.listTopics().map((t) => t.name), ['kept'])
    await s2.close()
    assert.deepEqual((await readdir(dir)).sort(), [META_PROPERTIES, METADATA_FILE].sort())
  })

  it('a fresh dir with only a temp file starts empty', async () => {
    await writeFile(join(dir, `${METADATA_FILE}.tmp`), '{"partial')
    const s = await open()
    assert.deepEqual(s.listTopics(), [])
    await s.close()
  })

  it('refuses a corrupt metadata file, naming it', async () => {
    const s1 = await open()
    await s1.createTopic(topic('a'))
    await s1.close()
    const path = join(dir, METADATA_FILE)
    const text = await readFile(path, 'utf8')
    await writeFile(path, text.slice(0, text.length / 2))
    await assert.rejects(open(), (e: unknown) => e instanceof MetadataFileError && e.path === path && /corrupt/.test(e.message))
    await writeFile(path, JSON.stringify({ version: 1, clusterId: 'c', nextProducerId: 0, topics: [{ name: 'x' }] }))
    await assert.rejects(open(), (e: unknown) => e instanceof MetadataFileError && /invalid topic record/.test(e.message))
    await writeFile(path, JSON.stringify({ version: 7 }))
    await assert.rejects(open(), (e: unknown) => e instanceof MetadataFileError && /unsupported version 7/.test(e.message))
  })

  it('refuses a corrupt meta.properties, naming it', async () => {
    await writeFile(join(dir, META_PROPERTIES), 'version=1\nnode.id=0\n')
    await assert.rejects(
      open(),
      (e: unknown) => e instanceof MetadataFileError && e.path === join(dir, META_PROPERTIES) && /no cluster\.id/.test(e.message),
    )
  })

  it('refuses a data dir of another node or another cluster', async () => {
    const s = await open({ nodeId: 1 })
    const clusterId = s.clusterId()
    await s.close()
    await assert.rejects(open({ nodeId: 2 }), (e: unknown) => e instanceof MetadataFileError && /node\.id 1/.test(e.message))
    await assert.rejects(
      open({ nodeId: 1, clusterId: 'AAAAAAAAAAAAAAAAAAAAAw' }),
      (e: unknown) => e instanceof MetadataFileError && /cluster\.id/.test(e.message),
    )
    const again = await open({ nodeId: 1, clusterId })
    assert.equal(again.clusterId(), clusterId)
    await again.close()
  })

  it('formats a new dir with the configured cluster.id', async () => {
    const s = await open({ clusterId: 'MkU3OEVBNTcwNTJENDM2Qk' })
    assert.equal(s.clusterId(), 'MkU3OEVBNTcwNTJENDM2Qk')
    await s.close()
  })

  it('reads a Kafka-written meta.properties, and rewrites a lost one from the metadata', async () => {
    await writeFile(
      join(dir, META_PROPERTIES),
      '#\n#Tue Jan 02 03:04:05 UTC 2024\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\nnode.id=0\nversion=1\n',
    )
    const s = await open()
    assert.equal(s.clusterId(), 'MkU3OEVBNTcwNTJENDM2Qk')
    await s.close()
    await rm(join(dir, META_PROPERTIES))
    const s2 = await open()
    assert.equal(s2.clusterId(), 'MkU3OEVBNTcwNTJENDM2Qk')
    await s2.close()
    assert.equal(parseProperties(await readFile(join(dir, META_PROPERTIES), 'utf8')).get('cluster.id'), 'MkU3OEVBNTcwNTJENDM2Qk')
  })

  it('a failed write is not acknowledged and changes nothing', async () => {
    let failRename = false
    const faulty: Fs = {
      ...nodeFs,
      async rename(from, to) {
        if (failRename) {
          failRename = false
          throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
        }
        return nodeFs.rename(from, to)
      },
    }
    const s = await open({ fs: faulty })
    await s.createTopic(topic('before'))
    failRename = true
    await assert.rejects(s.createTopic(topic('lost')), /ENOSPC/)
    assert.equal(s.getTopic('lost'), undefined)
    failRename = true
    await assert.rejects(s.nextProducerIdBlock(10), /ENOSPC/)
    const block = await s.nextProducerIdBlock(10)
    assert.equal(block.start, 0, 'the failed allocation was not consumed in memory either')
    await s.createTopic(topic('after'))
    await s.close()
    const s2 = await open()
    assert.deepEqual(s2.listTopics().map((t) => t.name).sort(), ['after', 'before'])
    assert.equal((await s2.nextProducerIdBlock(1)).start, 10)
    await s2.close()
  })

  it('refuses writes after close', async () => {
    const s = await open()
    const pending = s.createTopic(topic('last'))
    await s.close()
    await pending
    await assert.rejects(s.createTopic(topic('late')), /closed/)
  })
})

describe('LocalMetadataStore dynamic broker configs', () => {
  it('keeps the per-broker and cluster-wide sets across a reopen; an empty set removes one', async () => {
    const s = await open()
    assert.deepEqual(s.getBrokerConfigs(''), {})
    await s.setBrokerConfigs('', { 'log.retention.ms': '60000' })
    await s.setBrokerConfigs('0', { 'message.max.bytes': '2048', 'log.segment.bytes': '1000000' })
    await s.setBrokerConfigs('5', { 'message.max.bytes': '1' })
    await s.setBrokerConfigs('5', {})
    await s.close()
    const raw = JSON.parse(await readFile(join(dir, METADATA_FILE), 'utf8'))
    assert.deepEqual(raw.brokerConfigs, {
      '': { 'log.retention.ms': '60000' },
      '0': { 'message.max.bytes': '2048', 'log.segment.bytes': '1000000' },
    })
    const s2 = await open()
    assert.deepEqual(s2.getBrokerConfigs(''), { 'log.retention.ms': '60000' })
    assert.deepEqual(s2.getBrokerConfigs('0'), { 'message.max.bytes': '2048', 'log.segment.bytes': '1000000' })
    assert.deepEqual(s2.getBrokerConfigs('5'), {})
    assert.ok(Object.isFrozen(s2.getBrokerConfigs('0')))
    await assert.rejects(s2.setBrokerConfigs('broker-1', { a: 'b' }), kafkaError('INVALID_REQUEST'))
    await s2.close()
  })

  it('reads a file written before broker configs existed, and refuses a malformed set', async () => {
    const s = await open()
    await s.createTopic(topic('old'))
    await s.close()
    const path = join(dir, METADATA_FILE)
    const raw = JSON.parse(await readFile(path, 'utf8'))
    assert.equal(raw.brokerConfigs, undefined, 'left out while empty')
    const s2 = await open()
    assert.deepEqual(s2.getBrokerConfigs(''), {})
    assert.equal(s2.getTopic('old')?.partitions, 3)
    await s2.close()
    await writeFile(path, JSON.stringify({ ...raw, brokerConfigs: { '': { 'log.retention.ms': 5 } } }))
    await assert.rejects(open(), (e: unknown) => e instanceof MetadataFileError && /broker config/.test(e.message))
  })
})
