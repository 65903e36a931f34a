// EtcdMetadataStore against a real etcd server (test/helpers/etcd.ts): the MetadataStore contract
// shared with the local store, then what only a shared store has — several brokers' stores racing
// on one key (compare-and-swap), producer-id blocks taken by two stores, changes arriving through
// the watch, a stale store cut off from etcd, and a watch resumed after its history was compacted.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { Etcd3 } from 'etcd3'
import { newEtcdClient } from '../../../src/cluster/etcd-broker.js'
import { EtcdMetadataError, EtcdMetadataStore } from '../../../src/cluster/etcd-store.js'
import type { StoreChange, TopicRecord } from '../../../src/ports/metadata-store.js'
import { ManualClock } from '../../../src/util/clock.js'
import { createLogger, silentLogger } from '../../../src/util/logger.js'
import { type EtcdServer, startEtcd, TcpProxy } from '../../helpers/etcd.js'
import { kafkaError, metadataStoreContract, topic } from './metadata-store-contract.js'

let etcd: EtcdServer
let client: Etcd3
const clients: Etcd3[] = []

before(async () => {
  etcd = await startEtcd()
  client = newClient()
})
after(async () => {
  for (const s of stores) await s.close()
  for (const c of clients) c.close()
  await etcd?.stop()
})

function newClient(endpoint = etcd.endpoint): Etcd3 {
  const c = newEtcdClient([endpoint])
  clients.push(c)
  return c
}

const freshPrefix = () => `/test-${randomBytes(6).toString('hex')}`

/** Every store a test opened; closed at the end even when the test failed half-way. */
const stores: EtcdMetadataStore[] = []

async function openStore(
  prefix: string,
  opts: { client?: Etcd3; clusterId?: string; clock?: ManualClock; logger?: typeof silentLogger } = {},
): Promise<EtcdMetadataStore> {
  const s = await EtcdMetadataStore.open({
    client: opts.client ?? client,
    prefix,
    clock: opts.clock ?? new ManualClock(1_700_000_000_000),
    logger: opts.logger ?? silentLogger,
    clusterId: opts.clusterId,
  })
  stores.push(s)
  return s
}

/** Polls until `check` holds (the watch is asynchronous); fails with `what` after 20 s. */
async function eventually(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

metadataStoreContract('EtcdMetadataStore', async () => {
  const prefix = freshPrefix()
  const clock = new ManualClock(1_700_000_000_000)
  return {
    clock,
    open: (opts) => openStore(prefix, { clock, clusterId: opts?.clusterId }),
    dispose: async () => {
      await client.delete().prefix(`${prefix}/`)
    },
  }
})

describe('EtcdMetadataStore across brokers', () => {
  it('keeps one key per fact under the prefix, as JSON', async () => {
    const prefix = freshPrefix()
    const s = await openStore(prefix)
    const t = await s.createTopic(topic('orders', 2, { 'retention.ms': '5' }))
    await s.setBrokerConfigs('', { 'log.retention.ms': '1' })
    await s.setBrokerConfigs('3', { 'message.max.bytes': '10' })
    await s.nextProducerIdBlock(1000)
    const all = await client.getAll().prefix(`${prefix}/`).strings()
    assert.deepEqual(Object.keys(all).sort(), [
      `${prefix}/broker-configs/3`,
      `${prefix}/broker-configs/default`,
      `${prefix}/cluster-id`,
      `${prefix}/producer-ids`,
      `${prefix}/topic-ids/${t.topicId}`,
      `${prefix}/topics/orders`,
    ])
    assert.deepEqual(JSON.parse(all[`${prefix}/topics/orders`]!), { ...t })
    assert.deepEqual(JSON.parse(all[`${prefix}/cluster-id`]!), { clusterId: s.clusterId() })
    assert.deepEqual(JSON.parse(all[`${prefix}/producer-ids`]!), { nextProducerId: 1000 })
    assert.deepEqual(JSON.parse(all[`${prefix}/broker-configs/default`]!), { configs: { 'log.retention.ms': '1' } })
    await s.close()
  })

  it('the first broker creates the cluster id; every other one adopts it; a different configured one is refused', async () => {
    const prefix = freshPrefix()
    const [a, b] = await Promise.all([openStore(prefix, { client: newClient() }), openStore(prefix, { client: newClient() })])
    assert.equal(a.clusterId(), b.clusterId())
    await assert.rejects(
      openStore(prefix, { clusterId: 'MkU3OEVBNTcwNTJENDM2Qk' }),
      (e: unknown) => e instanceof EtcdMetadataError && e.message.includes(a.clusterId()) && /cluster\.id/.test(e.message),
    )
    await a.close()
    await b.close()
  })

  it('a racing create: exactly one broker wins, the other gets TOPIC_ALREADY_EXISTS, then sees the winner', async () => {
    const prefix = freshPrefix()
    const a = await openStore(prefix, { client: newClient() })
    const b = await openStore(prefix, { client: newClient() })
    for (let round = 0; round < 5; round++) {
      const name = `race-${round}`
      const results = await Promise.allSettled([a.createTopic(topic(name, 1, { by: 'a' })), b.createTopic(topic(name, 2, { by: 'b' }))])
      const won = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<TopicRecord>[]
      const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[]
      assert.equal(won.length, 1, `round ${round}: exactly one create succeeds`)
      assert.ok(kafkaError('TOPIC_ALREADY_EXISTS')(lost[0]!.reason), `round ${round}: ${lost[0]!.reason}`)
      const winner = won[0]!.value
      const loser = winner.configs.by === 'a' ? b : a
      // The loser's failed write left nothing of its own in its image.
      const seen = loser.getTopic(name)
      assert.ok(seen === undefined || seen.topicId === winner.topicId)
      await eventually(`the loser sees ${name}`, () => loser.getTopic(name)?.topicId === winner.topicId)
      assert.deepEqual(loser.getTopic(name), winner)
    }
    await a.close()
    await b.close()
  })

  it('a racing update from the same revision: one wins, the other gets INVALID_UPDATE_VERSION, then sees the winner', async () => {
    const prefix = freshPrefix()
    const a = await openStore(prefix, { client: newClient() })
    const b = await openStore(prefix, { client: newClient() })
    await a.createTopic(topic('t', 1))
    await eventually('b sees t', () => b.getTopic('t') !== undefined)
    for (let round = 0; round < 5; round++) {
      const base = a.getTopic('t')!
      await eventually('both read the same version', () => b.getTopic('t') !== undefined && sameTopic(b.getTopic('t')!, base))
      const results = await Promise.allSettled([
        a.updateTopic('t', { configs: { by: 'a', round: String(round) } }),
        b.updateTopic('t', { configs: { by: 'b', round: String(round) } }),
      ])
      const won = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<TopicRecord>[]
      const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[]
      assert.equal(won.length, 1, `round ${round}: exactly one update succeeds`)
      assert.ok(kafkaError('INVALID_UPDATE_VERSION')(lost[0]!.reason), `round ${round}: ${lost[0]!.reason}`)
      const winner = won[0]!.value
      const loser = winner.configs.by === 'a' ? b : a
      assert.notEqual(loser.getTopic('t')!.configs.by, winner.configs.by === 'a' ? 'b' : 'a', 'the failed write is not in the image')
      await eventually('the loser sees the winning update', () => loser.getTopic('t')!.configs.round === String(round))
      assert.equal(loser.getTopic('t')!.configs.by, winner.configs.by)
      const stored = JSON.parse((await client.get(`${prefix}/topics/t`).string())!)
      assert.deepEqual(stored.configs, winner.configs, 'etcd holds the winner')
    }
    await a.close()
    await b.close()
  })

  it('a broker cut off from etcd cannot overwrite a newer decision; it catches up when it reconnects', async () => {
    const prefix = freshPrefix()
    const proxy = await TcpProxy.start(etcd.port)
    try {
      const a = await openStore(prefix, { client: newClient() })
      const b = await openStore(prefix, { client: newClient(proxy.endpoint) })
      await a.createTopic(topic('t', 1))
      await eventually('b sees t', () => b.getTopic('t') !== undefined)
      proxy.pause()
      await a.updateTopic('t', { partitions: 4, configs: { newer: 'decision' } })
      await a.deleteTopic('t').then(() => a.createTopic(topic('t', 2, { recreated: 'yes' })))
      assert.equal(b.getTopic('t')!.partitions, 1, 'b still has the old image')
      // b decides on its old image while it cannot hear from etcd; its write reaches etcd later.
      const stale = b.updateTopic('t', { partitions: 3 })
      await a.setBrokerConfigs('', { 'log.retention.ms': '9' })
      proxy.resume()
      await assert.rejects(stale, kafkaError('INVALID_UPDATE_VERSION'))
      await eventually('b catches up', () => b.getTopic('t')?.configs.recreated === 'yes')
      assert.deepEqual(b.getTopic('t'), a.getTopic('t'))
      assert.deepEqual(b.getBrokerConfigs(''), { 'log.retention.ms': '9' })
      await a.close()
      await b.close()
    } finally {
      await proxy.close()
    }
  })

  it('reloads in full when its watch resumes from a compacted revision', async () => {
    const prefix = freshPrefix()
    const proxy = await TcpProxy.start(etcd.port)
    const lines: string[] = []
    const logger = createLogger('info', 'b', (l) => lines.push(l))
    try {
      const a = await openStore(prefix, { client: newClient() })
      const b = await openStore(prefix, { client: newClient(proxy.endpoint), logger })
      await a.createTopic(topic('kept', 1))
      await a.createTopic(topic('dropped', 1))
      await eventually('b sees both', () => b.listTopics().length === 2)
      proxy.pause()
      await a.deleteTopic('dropped')
      for (let i = 0; i < 5; i++) await a.createTopic(topic(`new-${i}`, 1))
      await a.updateTopic('kept', { partitions: 7 })
      // Compact etcd's history past everything b has seen, so its watch cannot simply resume.
      const rev = (await client.get(`${prefix}/cluster-id`).exec()).header.revision
      await client.kv.compact({ revision: rev, physical: true })
      proxy.resume()
      await eventually('b reloaded', () => b.getTopic('kept')?.partitions === 7 && b.listTopics().length === 6)
      assert.equal(b.getTopic('dropped'), undefined)
      assert.deepEqual(
        b
          .listTopics()
          .map((t) => t.name)
          .sort(),
        a
          .listTopics()
          .map((t) => t.name)
          .sort(),
      )
      // etcd tells a watch that resumes below its compaction point that it was canceled.
      await eventually('b logged the canceled watch', () => lines.some((l) => /watch canceled; reloading/.test(l)))
      // The watch works again afterwards.
      await a.createTopic(topic('after', 1))
      await eventually('b sees a change after the reload', () => b.getTopic('after') !== undefined)
      await a.close()
      await b.close()
    } finally {
      await proxy.close()
    }
  })

  it('producer id blocks never overlap across two brokers and restarts', async () => {
    const prefix = freshPrefix()
    const blocks: Array<{ start: number; size: number }> = []
    for (let round = 0; round < 3; round++) {
      const a = await openStore(prefix, { client: newClient() })
      const b = await openStore(prefix, { client: newClient() })
      const take = (s: EtcdMetadataStore) => Array.from({ length: 8 }, (_, i) => s.nextProducerIdBlock(1 + ((i * 37 + round) % 1000)))
      blocks.push(...(await Promise.all([...take(a), ...take(b)])))
      await a.close()
      await b.close()
    }
    assert.equal(blocks.length, 48)
    blocks.sort((x, y) => x.start - y.start)
    assert.equal(blocks[0]!.start, 0)
    for (let i = 1; i < blocks.length; i++) {
      assert.equal(
        blocks[i]!.start,
        blocks[i - 1]!.start + blocks[i - 1]!.size,
        `block ${i} follows block ${i - 1} exactly (no overlap, no gap)`,
      )
    }
  })

  it("delivers another broker's changes through the watch, with change events", async () => {
    const prefix = freshPrefix()
    const a = await openStore(prefix, { client: newClient() })
    const b = await openStore(prefix, { client: newClient() })
    const changes: StoreChange[] = []
    b.onChange((c) => changes.push(c))
    const t = await a.createTopic(topic('events', 3))
    await eventually('b sees the topic', () => b.getTopic('events') !== undefined)
    assert.deepEqual(b.getTopic('events'), t)
    assert.deepEqual(b.getTopicById(t.topicId), t)
    await a.updateTopic('events', { partitions: 6 })
    await eventually('b sees the new partition count', () => b.getTopic('events')?.partitions === 6)
    await a.setBrokerConfigs('1', { 'message.max.bytes': '100' })
    await eventually('b sees the broker configs', () => b.getBrokerConfigs('1')['message.max.bytes'] === '100')
    await a.deleteTopic('events')
    await eventually('b sees the deletion', () => b.getTopic('events') === undefined && b.getTopicById(t.topicId) === undefined)
    assert.deepEqual(changes, [
      { kind: 'topic', name: 'events' },
      { kind: 'topic', name: 'events' },
      { kind: 'brokerConfigs', resourceName: '1' },
      { kind: 'topic', name: 'events' },
    ])
    // Another broker's producer-id block moves this one's allocation past it.
    const fromA = await a.nextProducerIdBlock(100)
    const fromB = await b.nextProducerIdBlock(100)
    assert.equal(fromB.start, fromA.start + 100)
    await a.close()
    await b.close()
  })

  it('refuses a corrupt key at start, naming it, and ignores one that appears later', async () => {
    const prefix = freshPrefix()
    const lines: string[] = []
    const s = await openStore(prefix, { logger: createLogger('error', 's', (l) => lines.push(l)) })
    await client.put(`${prefix}/topics/broken`).value('{"name":"broken"')
    await s.createTopic(topic('fine', 1))
    await eventually('the error is logged', () => lines.some((l) => l.includes(`${prefix}/topics/broken`)))
    assert.equal(s.getTopic('broken'), undefined)
    assert.ok(s.getTopic('fine'))
    await s.close()
    await assert.rejects(openStore(prefix), (e: unknown) => e instanceof EtcdMetadataError && e.message.includes(`${prefix}/topics/broken`))
  })
})

function sameTopic(x: TopicRecord, y: TopicRecord): boolean {
  return JSON.stringify(x) === JSON.stringify(y)
}
