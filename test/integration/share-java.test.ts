// KIP-932 share groups through the Java 4.4 KafkaShareConsumer (the Share program of
// test/interop/java, explicit acknowledgement mode), against a broker process
// (test/interop/share-broker.ts; SHARE_TEST_BROKER=kafka runs the same file against Apache Kafka
// 4.4, to check the test itself).
// - Five consumers of one group share a 1-partition topic of 50,000 records, all accepting: every
//   offset is acknowledged exactly once, and each consumer gets some (a share group is a queue: the
//   partition is not owned by one member as in a consumer group).
// - A consumer SIGKILLed holding acquired records: the others get them after its locks go (Kafka
//   releases a dead connection's records at once; the lock duration bounds it regardless); no
//   offset is lost, the redelivered ones have deliveryCount ≥ 2, and nothing the others were the
//   first to acquire is delivered twice.
// - REJECT, and RELEASE with share.delivery.count.limit=2 (the least Kafka accepts, as the group
//   config refusing 1 shows): the records are archived and never delivered again, and each lands in
//   the group's dead-letter topic (KIP-1191: errors.deadletterqueue.topic.name, a topic with
//   errors.deadletterqueue.group.enable=true whose name has the broker's prefix, "dlq." by default)
//   as a record whose __dlq.errors.* headers name the source topic, partition, offset, group and
//   delivery count.
// Missing java or mvn fails the file; it never skips.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import {
  buildJavaPrograms,
  type Delivery,
  deliveries,
  dumpTopic,
  failures,
  type JavaPrograms,
  type LineProcess,
  lockDurationMs,
  type ShareBroker,
  share,
  startShareBroker,
  startShareConsumer,
  stopShareConsumer,
  waitDeliveries,
} from '../interop/share-broker.js'

/** How long a test keeps polling after it has seen what it expects, to see nothing more arrive. */
const QUIET_MS = 3000

const distinctOffsets = (d: Delivery[]) => new Set(d.map((x) => x.offset)).size

/** What a run acknowledged, for failure messages: counts, per consumer, the first offsets missing. */
function tally(d: Delivery[], records: number): string {
  const seen = new Set(d.map((x) => x.offset))
  const missing: number[] = []
  for (let o = 0; o < records && missing.length < 10; o++) if (!seen.has(o)) missing.push(o)
  const per = new Map<number, number>()
  for (const x of d) per.set(x.consumer, (per.get(x.consumer) ?? 0) + 1)
  return `${d.length} acknowledgements of ${seen.size} distinct offsets (of ${records}); per consumer ${JSON.stringify(Object.fromEntries(per))}; first missing ${missing.join(',') || 'none'}`
}

describe('Java 4.4 KafkaShareConsumer: share groups', () => {
  let broker: ShareBroker
  let java: JavaPrograms
  const running: LineProcess[] = []

  before(async () => {
    const [b, j] = await Promise.all([startShareBroker(), buildJavaPrograms()])
    broker = b
    java = j
  })

  after(async () => {
    for (const p of running) await p.kill9()
    java?.remove()
    await broker?.stop()
  })

  const consumer = (group: string, topic: string, opts: string[]) => {
    const p = startShareConsumer(java, broker.bootstrap, group, topic, opts)
    running.push(p)
    return p
  }
  const setUp = async (topic: string, records: number, group: string, configs: string[], topicConfigs: string[] = []) => {
    assert.deepEqual(await share(java, ['create', broker.bootstrap, topic, '1', ...topicConfigs]), [`CREATED ${topic}`])
    assert.deepEqual(await share(java, ['produce', broker.bootstrap, topic, String(records), '100']), [`PRODUCED ${records}`])
    const all = ['share.auto.offset.reset=earliest', ...configs]
    const answer = await share(java, ['group-config', broker.bootstrap, group, ...all])
    assert.deepEqual(answer, ['CONFIG OK'], `the group config ${all.join(' ')} was refused (${broker.kind})`)
  }
  const context = (...ps: LineProcess[]) =>
    `${ps.map((p, i) => `consumer process ${i}:\n${p.context()}`).join('\n')}\nbroker (${broker.kind}) log tail:\n${broker.logTail()}`

  test('5 consumers on 1 partition share 50,000 records: each offset acknowledged exactly once, every consumer gets some', {
    timeout: 120_000,
  }, async () => {
    const [topic, group, records] = ['share-five', 'share-five-g', 50_000]
    await setUp(topic, records, group, [])
    // --max: the program closes its consumers once 50,000 acknowledgements have been committed.
    const p = consumer(group, topic, ['--consumers', '5', '--mode', 'accept', '--max', String(records)])
    const closed = await p
      .waitLine((l) => l.startsWith('CLOSED '), 'all records acknowledged', 90_000)
      .catch((err: Error) => {
        throw new Error(`${tally(deliveries(p), records)}\n${err.message}\n${context(p)}`)
      })
      .finally(() => p.kill9())
    const d = deliveries(p)
    assert.deepEqual(failures(p), [], context(p))
    assert.equal(distinctOffsets(d), records, `offsets acknowledged: ${distinctOffsets(d)} of ${records}: ${context(p)}`)
    assert.equal(d.length, records, `${d.length - records} offsets acknowledged more than once: ${context(p)}`)
    assert.ok(
      d.every((x) => x.offset >= 0 && x.offset < records && x.deliveryCount === 1 && x.ack === 'accept'),
      context(p),
    )
    const perConsumer = [0, 1, 2, 3, 4].map((c) => d.filter((x) => x.consumer === c).length)
    assert.ok(
      perConsumer.every((n) => n > 0),
      `a consumer got nothing: ${perConsumer}`,
    )
    console.log(`share-java (${broker.kind}): ${records} records over 5 consumers: ${perConsumer.join(' / ')}; ${closed}`)
  })

  test('a consumer SIGKILLed with records in flight: the others get them (deliveryCount ≥ 2), no offset lost', {
    timeout: 120_000,
  }, async () => {
    const [topic, group, records] = ['share-kill', 'share-kill-g', 2000]
    await setUp(topic, records, group, [`share.record.lock.duration.ms=${lockDurationMs()}`])
    // The holder acquires a batch and never acknowledges it.
    const holder = consumer(group, topic, ['--mode', 'hold'])
    await holder.waitLine((l) => l.startsWith('HELD '), 'records acquired by the holder', 60_000)
    const held = holder.lines.filter((l) => l.startsWith('H ')).map((l) => Number(l.split(' ')[2]))
    assert.ok(held.length > 0 && held.length < records, `held ${held.length}`)
    const others = consumer(group, topic, ['--consumers', '2', '--mode', 'accept'])
    await holder.kill9()
    // The held records come back after the lock duration at the latest.
    const d = await waitDeliveries(
      others,
      (x) => distinctOffsets(x) >= records,
      'every offset acknowledged after the kill',
      lockDurationMs() + 45_000,
    ).catch((err: Error) => {
      throw new Error(`${tally(deliveries(others), records)}\n${err.message}\n${context(holder, others)}`)
    })
    await new Promise((r) => setTimeout(r, QUIET_MS))
    await stopShareConsumer(others)
    const all = deliveries(others)
    assert.deepEqual(failures(others), [], context(others))
    assert.equal(all.length, records, `${all.length - records} deliveries beyond one per offset: ${context(holder, others)}`)
    const byOffset = new Map(all.map((x) => [x.offset, x]))
    for (let o = 0; o < records; o++) assert.ok(byOffset.has(o), `offset ${o} lost`)
    const redelivered = held.map((o) => byOffset.get(o)!)
    assert.ok(
      redelivered.every((x) => x.deliveryCount >= 2),
      `held records redelivered with deliveryCount < 2: ${JSON.stringify(redelivered.filter((x) => x.deliveryCount < 2).slice(0, 5))}`,
    )
    // The holder was alone until the others started, so what it acquired is a prefix of the
    // partition: the records it printed and, when its client fetched again before the kill
    // (KafkaShareConsumer may fetch ahead of the application's next poll), the next ones. Every
    // record of that prefix comes back delivered again; every record after it was delivered once.
    const firstFresh = Math.min(...all.filter((x) => x.deliveryCount === 1).map((x) => x.offset))
    assert.ok(firstFresh > Math.max(...held), `offset ${firstFresh}, delivered once, is among the held records`)
    const misplaced = all.filter((x) => x.offset < firstFresh !== x.deliveryCount > 1)
    assert.deepEqual(
      misplaced.slice(0, 5),
      [],
      `a record acquired first by the others came again, or one of the holder's came only once (held up to ${Math.max(...held)}, first delivered once ${firstFresh})`,
    )
    console.log(
      `share-java (${broker.kind}): ${held.length} records held by the killed consumer, all redelivered (${d.length} acknowledged)`,
    )
  })

  test('REJECT and the delivery limit archive records for good and write them to the dead-letter topic', { timeout: 150_000 }, async () => {
    // The least delivery limit Kafka accepts is 2.
    const refused = await share(java, ['group-config', broker.bootstrap, 'share-limit-probe', 'share.delivery.count.limit=1'])
    assert.equal(refused.length, 1)
    assert.match(
      refused[0]!,
      /^CONFIG REFUSED InvalidConfigurationException: /,
      `a delivery limit of 1: Kafka refuses it with INVALID_CONFIG (${broker.kind})`,
    )
    const dlqConfig = ['errors.deadletterqueue.group.enable=true']

    // REJECT of every fifth offset: delivered once, never again, each in the dead-letter topic.
    const [rTopic, rGroup, rDlq, rRecords] = ['share-reject', 'share-reject-g', 'dlq.share-reject-g', 50]
    assert.deepEqual(await share(java, ['create', broker.bootstrap, rDlq, '1', ...dlqConfig]), [`CREATED ${rDlq}`])
    await setUp(rTopic, rRecords, rGroup, [`errors.deadletterqueue.topic.name=${rDlq}`])
    const rejecter = consumer(rGroup, rTopic, ['--mode', 'reject-every-5'])
    await waitDeliveries(rejecter, (x) => distinctOffsets(x) >= rRecords, 'every offset delivered', 60_000)
    await new Promise((r) => setTimeout(r, QUIET_MS))
    await stopShareConsumer(rejecter)
    const rd = deliveries(rejecter)
    assert.deepEqual(failures(rejecter), [], context(rejecter))
    assert.equal(rd.length, rRecords, `a rejected or accepted record came again: ${context(rejecter)}`)
    const rejected = rd.filter((x) => x.ack === 'reject').map((x) => x.offset)
    assert.deepEqual(
      rejected.sort((a, b) => a - b),
      Array.from({ length: rRecords / 5 }, (_, i) => i * 5),
    )

    // RELEASE every time with share.delivery.count.limit=2: each offset delivered twice, then archived.
    const [lTopic, lGroup, lDlq, lRecords] = ['share-limit', 'share-limit-g', 'dlq.share-limit-g', 20]
    assert.deepEqual(await share(java, ['create', broker.bootstrap, lDlq, '1', ...dlqConfig]), [`CREATED ${lDlq}`])
    await setUp(lTopic, lRecords, lGroup, ['share.delivery.count.limit=2', `errors.deadletterqueue.topic.name=${lDlq}`])
    const releaser = consumer(lGroup, lTopic, ['--mode', 'release'])
    await waitDeliveries(releaser, (x) => x.length >= 2 * lRecords, 'every offset delivered twice', 60_000)
    await new Promise((r) => setTimeout(r, QUIET_MS))
    await stopShareConsumer(releaser)
    const ld = deliveries(releaser)
    assert.deepEqual(failures(releaser), [], context(releaser))
    assert.equal(ld.length, 2 * lRecords, `a record came a third time: ${context(releaser)}`)
    for (let o = 0; o < lRecords; o++)
      assert.deepEqual(
        ld
          .filter((x) => x.offset === o)
          .map((x) => x.deliveryCount)
          .sort(),
        [1, 2],
        `offset ${o}`,
      )

    // The dead letters: one per archived record, naming where it came from.
    const check = async (dlq: string, topic: string, group: string, offsets: number[], deliveryCount: number) => {
      const dead = await dumpTopic(java, broker.bootstrap, dlq, offsets.length, 30_000)
      const got = dead.map((r) => Number(r.headers.get('__dlq.errors.offset'))).sort((a, b) => a - b)
      assert.deepEqual(got, offsets, `${dlq}: ${JSON.stringify(dead.map((r) => Object.fromEntries(r.headers)))}`)
      for (const r of dead) {
        assert.equal(r.headers.get('__dlq.errors.topic'), topic)
        assert.equal(r.headers.get('__dlq.errors.partition'), '0')
        assert.equal(r.headers.get('__dlq.errors.group'), group)
        assert.equal(r.headers.get('__dlq.errors.delivery.count'), String(deliveryCount))
      }
      return dead
    }
    const deadRejected = await check(rDlq, rTopic, rGroup, rejected, 1)
    const deadLimited = await check(
      lDlq,
      lTopic,
      lGroup,
      Array.from({ length: lRecords }, (_, i) => i),
      2,
    )
    console.log(
      `share-java (${broker.kind}): ${rejected.length} rejected and ${lRecords} over the delivery limit archived; dead letters: ` +
        `${deadRejected.length} + ${deadLimited.length}, e.g. ${JSON.stringify(Object.fromEntries(deadLimited[0]!.headers))}`,
    )
    assert.ok(broker.alive(), 'the broker died')
  })
})
