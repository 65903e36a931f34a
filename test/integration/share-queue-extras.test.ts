// The queue features Tributary adds to share groups, through the Node share consumer against a
// broker process: a backoff before a RELEASEd record is delivered again
// (tributary.share.release.backoff.ms), a delay before a record is first delivered
// (tributary.share.delivery.delay.ms, from the record's timestamp), and a topic whose records are
// deleted once every share group has acknowledged them (tributary.share.delete.acknowledged) —
// also a group that has state but never fetched from the leader — retention aside. Kafka has none of them, so this file runs against Tributary only. The delays are
// checked as lower bounds (a record never comes before its time), which a slow machine cannot break.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTopics, listOffsets, OffsetSpec } from '../../src/client/admin.js'
import { findCoordinator } from '../../src/client/admin-groups.js'
import { KafkaClient } from '../../src/client/client.js'
import { AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse } from '../../src/protocol/messages/91-alter-share-group-offsets.js'
import { ShareConsumer, type ShareRecord } from '../../src/client/share-consumer.js'
import { produceValues, setGroupConfigs, type ShareBroker, startShareBroker } from '../helpers/share-broker.js'

/** Polls until `want` records came (or the deadline), acknowledging each with `ack`. */
async function take(
  c: ShareConsumer,
  want: number,
  ack: 'accept' | 'release',
  deadlineMs = 30_000,
): Promise<Array<ShareRecord & { at: number }>> {
  const got: Array<ShareRecord & { at: number }> = []
  const until = Date.now() + deadlineMs
  while (got.length < want && Date.now() < until) {
    for (const r of await c.poll()) {
      got.push({ ...r, at: Date.now() })
      c.acknowledge(r, ack)
    }
  }
  await c.commit()
  return got
}

describe('share-group queue features of Tributary', { timeout: 120_000 }, () => {
  let broker: ShareBroker
  let admin: KafkaClient
  const consumers: ShareConsumer[] = []
  const consumer = async (groupId: string, topic: string) => {
    const c = new ShareConsumer({ bootstrap: [broker.bootstrap], groupId, maxWaitMs: 100 })
    consumers.push(c)
    await c.subscribe([topic])
    return c
  }
  const topic = async (name: string, configs: Record<string, string> = {}) => {
    const r = await createTopics(admin, [{ name, numPartitions: 1, replicationFactor: 1, configs }])
    assert.deepEqual(
      r.map((x) => x.error),
      [null],
    )
  }

  before(async () => {
    broker = await startShareBroker()
    admin = await KafkaClient.connect({ bootstrap: [broker.bootstrap], clientId: 'share-extras' })
  })
  after(async () => {
    for (const c of consumers) await c.close().catch(() => {})
    await admin?.close()
    await broker?.stop()
  })

  test('a released record is not delivered again before tributary.share.release.backoff.ms', async () => {
    await topic('retry-later')
    await setGroupConfigs(admin, 'retriers', { 'share.auto.offset.reset': 'earliest', 'tributary.share.release.backoff.ms': '1500' })
    await produceValues(admin, 'retry-later', ['r0', 'r1'])
    const c = await consumer('retriers', 'retry-later')
    const first = await take(c, 2, 'release')
    assert.deepEqual(
      first.map((r) => [r.offset, r.deliveryCount]),
      [
        [0, 1],
        [1, 1],
      ],
    )
    const releasedAt = Date.now()
    const again = await take(c, 2, 'accept')
    assert.deepEqual(
      again.map((r) => [r.offset, r.deliveryCount]),
      [
        [0, 2],
        [1, 2],
      ],
    )
    for (const r of again) assert.ok(r.at - releasedAt >= 1400, `offset ${r.offset} came back ${r.at - releasedAt} ms after its release`)
  })

  test('a record is not delivered before its timestamp plus tributary.share.delivery.delay.ms', async () => {
    await topic('later')
    await setGroupConfigs(admin, 'patient', { 'share.auto.offset.reset': 'earliest', 'tributary.share.delivery.delay.ms': '2000' })
    const c = await consumer('patient', 'later')
    const producedAt = Date.now()
    await produceValues(admin, 'later', ['l0'])
    const got = await take(c, 1, 'accept')
    assert.deepEqual(
      got.map((r) => [r.offset, r.value?.toString(), r.deliveryCount]),
      [[0, 'l0', 1]],
    )
    assert.ok(got[0]!.timestamp >= producedAt - 50, 'the record carries its produce time')
    assert.ok(got[0]!.at - got[0]!.timestamp >= 1900, `delivered ${got[0]!.at - got[0]!.timestamp} ms after its timestamp`)
  })

  test('tributary.share.delete.acknowledged: records every share group acknowledged are deleted', async () => {
    await topic('work', { 'tributary.share.delete.acknowledged': 'true' })
    for (const g of ['fast', 'slow', 'idle']) await setGroupConfigs(admin, g, { 'share.auto.offset.reset': 'earliest' })
    await produceValues(admin, 'work', ['w0', 'w1', 'w2', 'w3'])
    // 'idle' has state at offset 0 (set by AlterShareGroupOffsets) but never fetches from the leader.
    const alter = await admin.request(
      AlterShareGroupOffsetsRequest,
      AlterShareGroupOffsetsResponse,
      { groupId: 'idle', topics: [{ topicName: 'work', partitions: [{ partitionIndex: 0, startOffset: 0 }] }] },
      { nodeId: await findCoordinator(admin, 'idle') },
    )
    assert.equal(alter.errorCode, 0, JSON.stringify(alter))
    const earliest = async () => (await listOffsets(admin, 'work', [0], OffsetSpec.Earliest)).get(0)
    const fast = await consumer('fast', 'work')
    const slow = await consumer('slow', 'work')
    // The slow group takes records and gives them back: it holds the log start at 0.
    assert.ok((await take(slow, 1, 'release')).length >= 1)
    assert.equal((await take(fast, 4, 'accept')).length, 4)
    await new Promise((r) => setTimeout(r, 500))
    assert.equal(await earliest(), 0, 'nothing deleted while a share group has not acknowledged it')
    const done = await take(slow, 4, 'accept')
    assert.deepEqual([...new Set(done.map((r) => r.offset))].sort(), [0, 1, 2, 3])
    await new Promise((r) => setTimeout(r, 500))
    assert.equal(await earliest(), 0, 'the idle group, whose state the leader does not hold, holds the records too')
    // Once the idle group is told to start past them, they go.
    await new Promise((r) => setTimeout(r, 100))
    const moved = await admin.request(
      AlterShareGroupOffsetsRequest,
      AlterShareGroupOffsetsResponse,
      { groupId: 'idle', topics: [{ topicName: 'work', partitions: [{ partitionIndex: 0, startOffset: 4 }] }] },
      { nodeId: await findCoordinator(admin, 'idle') },
    )
    assert.equal(moved.errorCode, 0, JSON.stringify(moved))
    await produceValues(admin, 'work', ['w4'])
    assert.equal((await take(fast, 1, 'accept')).length, 1)
    let start = await earliest()
    for (let i = 0; i < 100 && start !== 4; i++) {
      await new Promise((r) => setTimeout(r, 100))
      start = await earliest()
    }
    assert.equal(start, 4, 'the log start follows the slowest share group')
  })
})
