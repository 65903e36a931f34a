// The MetadataStore contract (src/ports/metadata-store.ts), as tests every implementation must
// pass: the local store (test/unit/cluster/local-store.test.ts) and the etcd store
// (test/unit/cluster/etcd-store.test.ts) run this same suite over their own backing state.
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { MetadataStore } from '../../../src/ports/metadata-store.js'
import { isValidUuid } from '../../../src/cluster/uuid.js'
import { KafkaError } from '../../../src/protocol/errors.js'
import type { ManualClock } from '../../../src/util/clock.js'

export interface StoreHarness {
  clock: ManualClock
  /** Opens a store over this test's backing state; a second call is a restart of the same cluster. */
  open(opts?: { clusterId?: string }): Promise<MetadataStore>
  /** Removes the backing state. */
  dispose(): Promise<void>
}

export const topic = (name: string, partitions = 3, configs: Record<string, string> = {}) => ({
  name,
  partitions,
  replicationFactor: 1,
  configs,
})

export function kafkaError(name: string) {
  return (e: unknown) => e instanceof KafkaError && e.errorName === name
}

export function metadataStoreContract(label: string, makeHarness: () => Promise<StoreHarness>): void {
  describe(`${label}: the MetadataStore contract`, () => {
    let h: StoreHarness
    beforeEach(async () => {
      h = await makeHarness()
    })
    afterEach(async () => {
      await h.dispose()
    })

    it('creates, lists, gets, updates and deletes topics', async () => {
      const s = await h.open()
      const a = await s.createTopic(topic('orders', 3, { 'retention.ms': '1000' }))
      assert.equal(a.name, 'orders')
      assert.ok(isValidUuid(a.topicId))
      assert.equal(a.partitions, 3)
      assert.equal(a.createdMs, h.clock.now())
      assert.deepEqual(a.configs, { 'retention.ms': '1000' })
      const b = await s.createTopic({ ...topic('payments'), topicId: 'AAAAAAAAAAAAAAAAAAAAAg' })
      assert.equal(b.topicId, 'AAAAAAAAAAAAAAAAAAAAAg')

      assert.deepEqual(
        s
          .listTopics()
          .map((t) => t.name)
          .sort(),
        ['orders', 'payments'],
      )
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
      assert.deepEqual(
        s.listTopics().map((t) => t.name),
        ['payments'],
      )
      await s.close()
    })

    it('answers with Kafka error codes and leaves the image unchanged on refusal', async () => {
      const s = await h.open()
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
      const s = await h.open()
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

    it('keeps topics, ids and the cluster id across close and reopen', async () => {
      const s1 = await h.open()
      const clusterId = s1.clusterId()
      assert.ok(isValidUuid(clusterId))
      const a = await s1.createTopic(topic('a', 2, { 'segment.bytes': '1024' }))
      const b = await s1.createTopic(topic('b', 1))
      await s1.updateTopic('b', { partitions: 4 })
      await s1.createTopic(topic('gone'))
      await s1.deleteTopic('gone')
      await s1.close()

      const s2 = await h.open()
      assert.equal(s2.clusterId(), clusterId)
      assert.deepEqual(s2.getTopic('a'), a)
      assert.equal(s2.getTopic('b')!.topicId, b.topicId)
      assert.equal(s2.getTopic('b')!.partitions, 4)
      assert.equal(s2.getTopic('gone'), undefined)
      assert.deepEqual(
        s2
          .listTopics()
          .map((t) => t.name)
          .sort(),
        ['a', 'b'],
      )
      await s2.close()
    })

    it('creates a new cluster with the configured cluster id', async () => {
      const s = await h.open({ clusterId: 'MkU3OEVBNTcwNTJENDM2Qk' })
      assert.equal(s.clusterId(), 'MkU3OEVBNTcwNTJENDM2Qk')
      await s.close()
    })

    it('never hands out overlapping producer id blocks, across reopen', async () => {
      const seen: Array<{ start: number; size: number }> = []
      for (let round = 0; round < 3; round++) {
        const s = await h.open()
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
      const s = await h.open()
      await Promise.all(Array.from({ length: 20 }, (_, i) => s.createTopic(topic(`t${i}`))))
      assert.equal(s.listTopics().length, 20)
      await s.close()
      const s2 = await h.open()
      assert.equal(s2.listTopics().length, 20)
      await s2.close()
    })

    it('refuses writes after close', async () => {
      const s = await h.open()
      const pending = s.createTopic(topic('last'))
      await s.close()
      await pending
      await assert.rejects(s.createTopic(topic('late')), /closed/)
    })

    it('keeps the per-broker and cluster-wide dynamic broker configs across a reopen; an empty set removes one', async () => {
      const s = await h.open()
      assert.deepEqual(s.getBrokerConfigs(''), {})
      await s.setBrokerConfigs('', { 'log.retention.ms': '60000' })
      await s.setBrokerConfigs('0', { 'message.max.bytes': '2048', 'log.segment.bytes': '1000000' })
      await s.setBrokerConfigs('5', { 'message.max.bytes': '1' })
      assert.deepEqual(s.getBrokerConfigs('5'), { 'message.max.bytes': '1' })
      await s.setBrokerConfigs('5', {})
      assert.deepEqual(s.getBrokerConfigs('5'), {})
      await s.close()
      const s2 = await h.open()
      assert.deepEqual(s2.getBrokerConfigs(''), { 'log.retention.ms': '60000' })
      assert.deepEqual(s2.getBrokerConfigs('0'), { 'message.max.bytes': '2048', 'log.segment.bytes': '1000000' })
      assert.deepEqual(s2.getBrokerConfigs('5'), {})
      assert.ok(Object.isFrozen(s2.getBrokerConfigs('0')))
      await assert.rejects(s2.setBrokerConfigs('broker-1', { a: 'b' }), kafkaError('INVALID_REQUEST'))
      await s2.close()
    })

    it('keeps group configs per group id across a reopen, tells the change; an empty set removes one; the empty id is refused', async () => {
      const s = await h.open()
      const changes: string[] = []
      s.onChange((c) => {
        if (c.kind === 'groupConfigs') changes.push(c.groupId)
      })
      assert.deepEqual(s.getGroupConfigs('g'), {})
      await s.setGroupConfigs('g', { 'share.record.lock.duration.ms': '20000' })
      await s.setGroupConfigs('a/b c', { 'share.auto.offset.reset': 'earliest' })
      await s.setGroupConfigs('gone', { 'share.delivery.count.limit': '3' })
      await s.setGroupConfigs('gone', {})
      assert.deepEqual(s.getGroupConfigs('gone'), {})
      assert.deepEqual(changes, ['g', 'a/b c', 'gone', 'gone'])
      await assert.rejects(s.setGroupConfigs('', { a: 'b' }), kafkaError('INVALID_REQUEST'))
      await s.close()
      const s2 = await h.open()
      assert.deepEqual(s2.getGroupConfigs('g'), { 'share.record.lock.duration.ms': '20000' })
      assert.deepEqual(s2.getGroupConfigs('a/b c'), { 'share.auto.offset.reset': 'earliest' })
      assert.deepEqual(s2.getGroupConfigs('gone'), {})
      assert.ok(Object.isFrozen(s2.getGroupConfigs('g')))
      await s2.close()
    })

    it('keeps security entries by kind and key across a reopen, sets and removes several in one write, tells each key', async () => {
      const s = await h.open()
      const changes: string[] = []
      s.onChange((c) => {
        if (c.kind === 'security') changes.push(`${c.entry}/${c.key}`)
      })
      assert.equal(s.getSecurityEntries('acl').size, 0)
      await s.setSecurityEntries('acl', { 'TOPIC:LITERAL:t/a b': '{"x":1}', 'GROUP:PREFIXED:g': '{"x":2}' })
      await s.setSecurityEntries('scram', { 'alice/SCRAM-SHA-256': 'salted' })
      await s.setSecurityEntries('acl', { 'GROUP:PREFIXED:g': null, absent: null })
      assert.deepEqual([...s.getSecurityEntries('acl')], [['TOPIC:LITERAL:t/a b', '{"x":1}']])
      assert.deepEqual(changes, ['acl/TOPIC:LITERAL:t/a b', 'acl/GROUP:PREFIXED:g', 'scram/alice/SCRAM-SHA-256', 'acl/GROUP:PREFIXED:g'])
      await assert.rejects(s.setSecurityEntries('acl', { '': 'v' }), kafkaError('INVALID_REQUEST'))
      await assert.rejects(s.setSecurityEntries('nope' as 'acl', { k: 'v' }), kafkaError('INVALID_REQUEST'))
      await s.close()
      const s2 = await h.open()
      assert.deepEqual([...s2.getSecurityEntries('acl')], [['TOPIC:LITERAL:t/a b', '{"x":1}']])
      assert.deepEqual([...s2.getSecurityEntries('scram')], [['alice/SCRAM-SHA-256', 'salted']])
      assert.equal(s2.getSecurityEntries('quota').size, 0)
      await s2.close()
    })
  })
}
