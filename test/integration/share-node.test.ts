// The Node share consumer (src/client/share-consumer.ts) against a real broker with share groups
// (KIP-932): Tributary by default, Apache Kafka 4.x with SHARE_TEST_BROKER=kafka
// (test/helpers/share-broker.ts). Three consumers on one partition, and two on three partitions,
// get between them every record exactly once; a released record comes back with delivery count 2;
// a rejected one never comes back; a renewed one stays locked until accepted; a consumer that
// closes holding records hands them to the others at once (well before the 30 s acquisition lock
// would have expired).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { ShareConsumer, type ShareRecord } from '../../src/client/share-consumer.js'
import { produceValues, setGroupConfigs, type ShareBroker, startShareBroker } from '../helpers/share-broker.js'

/** Polls until `done` says so or the deadline passes (then fails, with what was seen). */
async function pollUntil(
  c: ShareConsumer,
  done: (seen: ShareRecord[]) => boolean,
  onRecord: (r: ShareRecord) => void = () => {},
  deadlineMs = 60_000,
): Promise<ShareRecord[]> {
  const seen: ShareRecord[] = []
  const end = performance.now() + deadlineMs
  while (!done(seen)) {
    assert.ok(performance.now() < end, `gave up waiting; saw ${seen.map((r) => `${r.offset}#${r.deliveryCount}`).join(' ')}`)
    for (const r of await c.poll()) {
      seen.push(r)
      onRecord(r)
    }
  }
  return seen
}

const text = (r: ShareRecord) => r.value?.toString('utf8') ?? ''

describe(`share consumer (${process.env.SHARE_TEST_BROKER === 'kafka' ? 'Apache Kafka' : 'Tributary'})`, { timeout: 600_000 }, () => {
  let broker: ShareBroker
  let admin: KafkaClient
  const consumers: ShareConsumer[] = []
  const consumer = (groupId: string, clientId: string) => {
    const c = new ShareConsumer({ bootstrap: [broker.bootstrap], groupId, clientId })
    consumers.push(c)
    return c
  }
  const topicWith = async (topic: string, values: string[], groupId: string) => {
    const created = await createTopics(admin, [{ name: topic, numPartitions: 1, replicationFactor: 1 }])
    assert.deepEqual(
      created.map((c) => c.error),
      [null],
    )
    await setGroupConfigs(admin, groupId, { 'share.auto.offset.reset': 'earliest' })
    await produceValues(admin, topic, values)
  }

  before(async () => {
    broker = await startShareBroker()
    admin = await KafkaClient.connect({ bootstrap: [broker.bootstrap], clientId: 'it-share-admin' })
  })

  after(async () => {
    await Promise.all(consumers.map((c) => c.close().catch(() => {})))
    await admin?.close()
    await broker?.stop()
  })

  test('three consumers on one partition: every record is delivered once when all accept', async () => {
    const values = Array.from({ length: 60 }, (_, i) => `v${i}`)
    await topicWith('share-three', values, 'g-three')
    const cs = [consumer('g-three', 'a'), consumer('g-three', 'b'), consumer('g-three', 'c')]
    await Promise.all(cs.map((c) => c.subscribe(['share-three'])))
    const got: string[] = []
    const stop = () => got.length >= values.length
    await Promise.all(
      cs.map(async (c) => {
        const end = performance.now() + 60_000
        while (!stop() && performance.now() < end) {
          for (const r of await c.poll()) {
            assert.equal(r.deliveryCount, 1, `offset ${r.offset} delivered again`)
            c.acknowledge(r, 'accept')
            got.push(text(r))
          }
        }
        await c.commit()
      }),
    )
    assert.deepEqual([...got].sort(), [...values].sort())
    // Nothing comes back once everything was accepted.
    for (const c of cs) for (let i = 0; i < 2; i++) assert.deepEqual(await c.poll(), [])
    assert.ok(cs.every((c) => c.acquisitionLockTimeoutMs !== null && c.acquisitionLockTimeoutMs > 0))
  })

  test('two consumers on three partitions: every record of every partition once', async () => {
    const created = await createTopics(admin, [{ name: 'share-wide', numPartitions: 3, replicationFactor: 1 }])
    assert.deepEqual(
      created.map((c) => c.error),
      [null],
    )
    await setGroupConfigs(admin, 'g-wide', { 'share.auto.offset.reset': 'earliest' })
    const expected: string[] = []
    for (let p = 0; p < 3; p++) {
      const values = Array.from({ length: 7 }, (_, i) => `p${p}-${i}`)
      await produceValues(admin, 'share-wide', values, p)
      expected.push(...values)
    }
    const cs = [consumer('g-wide', 'w1'), consumer('g-wide', 'w2')]
    await Promise.all(cs.map((c) => c.subscribe(['share-wide'])))
    const got: string[] = []
    await Promise.all(
      cs.map(async (c) => {
        const end = performance.now() + 60_000
        while (got.length < expected.length && performance.now() < end) {
          for (const r of await c.poll()) {
            assert.equal(text(r).slice(0, 2), `p${r.partition}`)
            assert.equal(r.deliveryCount, 1)
            c.acknowledge(r, 'accept')
            got.push(text(r))
          }
        }
        await c.commit()
      }),
    )
    assert.deepEqual([...got].sort(), [...expected].sort())
  })

  test('a released record is delivered again with delivery count 2; a rejected one never again', async () => {
    await topicWith('share-release', ['keep', 'drop'], 'g-release')
    const c = consumer('g-release', 'r')
    await c.subscribe(['share-release'])
    const outcomes: Array<{ offsets: number[]; error: string | null }> = []
    const first = await pollUntil(c, (seen) => seen.length >= 2)
    assert.deepEqual(
      first.map((r) => [text(r), r.deliveryCount]),
      [
        ['keep', 1],
        ['drop', 1],
      ],
    )
    c.acknowledge(first[0]!, 'release')
    c.acknowledge(first[1]!, 'reject')
    outcomes.push(...(await c.commit()))
    assert.deepEqual(
      outcomes.map((o) => o.error),
      [null],
    )
    await produceValues(admin, 'share-release', ['later'])
    const again = await pollUntil(
      c,
      (seen) => seen.some((r) => text(r) === 'later') && seen.some((r) => text(r) === 'keep'),
      (r) => c.acknowledge(r, 'accept'),
    )
    assert.deepEqual(
      again.map((r) => [text(r), r.deliveryCount]).sort(),
      [
        ['keep', 2],
        ['later', 1],
      ].sort(),
    )
    await c.commit()
    assert.deepEqual(await c.poll(), [])
  })

  test('renew() keeps a record locked; it is then accepted and not delivered again', async () => {
    await topicWith('share-renew', ['slow'], 'g-renew')
    const c = consumer('g-renew', 'renewer')
    await c.subscribe(['share-renew'])
    const [r] = await pollUntil(c, (seen) => seen.length >= 1)
    assert.equal(text(r!), 'slow')
    const renewed = await c.renew(r!)
    assert.equal(renewed.error, null)
    c.acknowledge(r!, 'accept')
    assert.deepEqual(
      (await c.commit()).map((o) => [o.offsets, o.error]),
      [[[r!.offset], null]],
    )
    assert.deepEqual(await c.poll(), [])
  })

  test('close() with records held: another member gets them at once', async () => {
    const values = ['h0', 'h1', 'h2', 'h3', 'h4']
    await topicWith('share-close', values, 'g-close')
    const a = consumer('g-close', 'holder')
    await a.subscribe(['share-close'])
    const held = await pollUntil(a, (seen) => seen.length >= values.length)
    assert.deepEqual(held.map(text), values)
    const b = consumer('g-close', 'heir')
    await b.subscribe(['share-close'])
    await a.close() // nothing acknowledged: the session closes and the leader releases the records
    const inherited = await pollUntil(
      b,
      (seen) => seen.length >= values.length,
      (r) => b.acknowledge(r, 'accept'),
      20_000, // the lock would last 30 s: only the release can bring them this soon
    )
    assert.deepEqual(inherited.map(text), values)
    assert.ok(inherited.every((r) => r.deliveryCount === 2))
    await b.commit()
  })
})
