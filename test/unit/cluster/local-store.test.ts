import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { LocalMetadataStore, META_PROPERTIES, METADATA_FILE, MetadataFileError } from '../../../src/cluster/local-store.js'
import { isValidUuid } from '../../../src/cluster/uuid.js'
import { type Fs, nodeFs } from '../../../src/storage/fs.js'
import { ManualClock } from '../../../src/util/clock.js'
import { parseProperties } from '../../../src/util/properties.js'
import { metadataStoreContract, topic } from './metadata-store-contract.js'

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

// The contract every MetadataStore keeps, over a temp dir of its own per test.
metadataStoreContract('LocalMetadataStore', async () => {
  const own = await mkdtemp(join(tmpdir(), 'tributary-meta-'))
  const harnessClock = new ManualClock(1_700_000_000_000)
  return {
    clock: harnessClock,
    open: (opts) => LocalMetadataStore.open({ fs: nodeFs, dataDir: own, clock: harnessClock, clusterId: opts?.clusterId }),
    dispose: () => rm(own, { recursive: true, force: true }),
  }
})

describe('LocalMetadataStore', () => {
  it("writes Kafka's meta.properties with the cluster id and node id", async () => {
    const s1 = await open()
    const clusterId = s1.clusterId()
    assert.ok(isValidUuid(clusterId))
    await s1.close()

    const meta = parseProperties(await readFile(join(dir, META_PROPERTIES), 'utf8'))
    assert.equal(meta.get('version'), '1')
    assert.equal(meta.get('cluster.id'), clusterId)
    assert.equal(meta.get('node.id'), '0')
  })

  it('ignores and removes a temp file left by an interrupted write', async () => {
    const s1 = await open()
    await s1.createTopic(topic('kept'))
    await s1.close()
    await writeFile(join(dir, `${METADATA_FILE}.tmp`), '{"version":1,"clusterId":"x","topi')
    await writeFile(join(dir, `${META_PROPERTIES}.tmp`), 'garbage')
    const s2 = await open()
    assert.deepEqual(
      s2.listTopics().map((t) => t.name),
      ['kept'],
    )
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
    assert.deepEqual(
      s2
        .listTopics()
        .map((t) => t.name)
        .sort(),
      ['after', 'before'],
    )
    assert.equal((await s2.nextProducerIdBlock(1)).start, 10)
    await s2.close()
  })
})

describe('LocalMetadataStore dynamic broker configs', () => {
  it('keeps the sets in the metadata file; an empty set is left out', async () => {
    const s = await open()
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
