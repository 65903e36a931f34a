// Two checks of test/integration/acl-gaps.test.ts through the Java 4.4 clients (test/interop/java
// SecuredGroups), against a broker process with the StandardAuthorizer, PLAIN users admin (a super
// user), alice and bob, and quota.window.num=3:
// - a KafkaConsumer with group.protocol=consumer subscribed with a SubscriptionPattern (KIP-848's
//   broker-side regex) as alice, who may DESCRIBE and READ regex-visible but not regex-hidden: its
//   assignment() holds only regex-visible's partitions and it reads only their records; once an ACL
//   lets her DESCRIBE and READ regex-hidden, the consumer is assigned its partitions too and reads them;
// - a KafkaShareConsumer as alice with consumer_byte_rate = 20 KiB/s reading 400 KiB: its
//   fetch-throttle-time-max metric is above 0 and the bytes it got are bounded by the quota
//   (rate × 3 + one fetch); every record it got came once, at delivery count 1 — a throttled
//   ShareFetch gives back what it had acquired instead of leaving it locked, so no record is
//   redelivered (and none goes toward the delivery limit) for an answer alice never saw; bob,
//   without a quota, reads it all without a throttle.
// Missing java or mvn fails this file; it never skips.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createAcls } from '../../src/client/admin-acls.js'
import { alterClientQuotas } from '../../src/client/admin-quotas.js'
import { createTopic } from '../../src/client/admin-topics.js'
import type { KafkaClient } from '../../src/client/client.js'
import { AclOperation as Op, ResourceType as Res } from '../../src/ports/authorizer.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { javaCommand, type ProcResult, runProcess, show } from '../helpers/run-process.js'
import { adminClient, allowAcl, PLAIN_USERS, plainJaas, saslBrokerOverrides } from '../helpers/sasl.js'
import { produceValues, setGroupConfigs } from '../helpers/share-broker.js'
import { buildJavaPrograms, type JavaPrograms, javaEnv, LineProcess } from '../interop/txn-broker.js'

const USERS = { ...PLAIN_USERS, bob: 'bob-secret' }
const KIB = 1024
const QUOTA = 20 * KIB
const RECORD = KIB
const RECORDS = 400
const FETCH_MAX = 64 * KIB
const SHARE_TOPIC = 'share-quota'
const PER_TOPIC = 10

const allow = allowAcl

/** "SHARE-QUOTA records=1 bytes=2 ms=3 throttle-max=4.0 distinct=1 max-delivery=1 metric-group=g" → its numbers. */
function shareFigures(r: ProcResult): Record<string, number> {
  assert.equal(r.code, 0, show(r))
  const line = r.stdout.split(/\r?\n/).find((l) => l.startsWith('SHARE-QUOTA '))
  assert.ok(line, `no SHARE-QUOTA line: ${show(r)}`)
  // The share consumer's own fetch metrics (ShareFetchMetricsRegistry), not a classic consumer's.
  assert.match(line, / metric-group=consumer-share-fetch-manager-metrics$/, line)
  return Object.fromEntries([...line.matchAll(/([\w-]+)=([\d.]+)(?=\s|$)/g)].map((m) => [m[1]!, Number(m[2])]))
}

describe('authorizer and quota checks through the Java 4.4 group consumers', () => {
  let broker: BrokerProcess | undefined
  let admin: KafkaClient | undefined
  let java: JavaPrograms | undefined
  let regexMember: LineProcess | undefined

  before(async () => {
    broker = await startBrokerProcess({
      overrides: saslBrokerOverrides(['PLAIN'], {
        'listener.name.sasl_plaintext.plain.sasl.jaas.config': plainJaas(USERS),
        'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        'super.users': 'User:admin',
        'auto.create.topics.enable': 'false',
        'group.initial.rebalance.delay.ms': '0',
        'quota.window.num': '3',
        // Short locks: were the records of a throttled ShareFetch left acquired (as Kafka leaves
        // them), they would come back within the run, redelivered, and the check below would see it.
        // Not shorter: a record handed over is acknowledged with the next fetch, which waits out the
        // throttle first (up to 3.2 s: one 64 KiB fetch over 20 KiB/s). With 2 s, a loaded machine
        // saw locks run out before the acknowledgement (throttle-max 1875 ms, 30 records twice).
        'group.share.record.lock.duration.ms': '8000',
        'group.share.min.record.lock.duration.ms': '1000',
      }),
    })
    admin = await adminClient(broker.bootstrap)
    for (const name of ['regex-visible', 'regex-hidden']) {
      await createTopic(admin, { name, numPartitions: 2, replicationFactor: 1 })
      for (const partition of [0, 1]) {
        const values = Array.from({ length: PER_TOPIC / 2 }, (_, i) => `${name}-${partition}-${i}`)
        await produceValues(admin, name, values, partition)
      }
    }
    await createTopic(admin, { name: SHARE_TOPIC, numPartitions: 1, replicationFactor: 1 })
    await produceValues(
      admin,
      SHARE_TOPIC,
      Array.from({ length: RECORDS }, (_, i) => `${i}`.padEnd(RECORD, '.')),
    )
    await createAcls(admin, [
      allow('User:alice', Res.GROUP, 'regex-acl', Op.READ),
      allow('User:alice', Res.TOPIC, 'regex-visible', Op.DESCRIBE),
      allow('User:alice', Res.TOPIC, 'regex-visible', Op.READ),
      allow('User:alice', Res.GROUP, 'share-quota-alice', Op.READ),
      allow('User:bob', Res.GROUP, 'share-quota-bob', Op.READ),
      allow('User:alice', Res.TOPIC, SHARE_TOPIC, Op.READ),
      allow('User:bob', Res.TOPIC, SHARE_TOPIC, Op.READ),
    ])
    for (const group of ['share-quota-alice', 'share-quota-bob']) {
      await setGroupConfigs(admin, group, { 'share.auto.offset.reset': 'earliest' })
    }
  })

  after(async () => {
    await regexMember?.kill9()
    await admin?.close()
    java?.remove()
    await stopAndCheck(broker)
  })

  test('the Java programs build', { timeout: 16 * 60_000 }, async () => {
    java = await buildJavaPrograms()
  })

  test('SubscriptionPattern: only the topics alice may DESCRIBE are assigned, then the one she is allowed to see', {
    timeout: 180_000,
  }, async () => {
    assert.ok(java && broker && admin, 'see the first test')
    const m = LineProcess.start(
      javaCommand(),
      [
        '-cp',
        java.classpath,
        'io.tributary.interop.SecuredGroups',
        'regex',
        broker.bootstrap,
        'alice',
        USERS.alice,
        'regex-acl',
        'regex-.*',
      ],
      javaEnv(),
    )
    regexMember = m
    const recs = (topic: string) => m.lines.filter((l) => l.startsWith(`REC ${topic} `))
    // Every record of regex-visible, read through the broker-side regex.
    await m.waitLine(() => recs('regex-visible').length >= PER_TOPIC, `${PER_TOPIC} records of regex-visible`, 90_000)
    const before = m.lines.filter((l) => l.startsWith('ASSIGNED '))
    assert.equal(before.at(-1), 'ASSIGNED regex-visible-0,regex-visible-1', m.context())
    assert.ok(
      before.every((l) => !l.includes('regex-hidden')),
      `regex-hidden assigned before alice may see it:\n${m.context()}`,
    )
    assert.deepEqual(recs('regex-hidden'), [], m.context())

    await createAcls(admin, [
      allow('User:alice', Res.TOPIC, 'regex-hidden', Op.DESCRIBE),
      allow('User:alice', Res.TOPIC, 'regex-hidden', Op.READ),
    ])
    await m.waitLine(
      (l) => l === 'ASSIGNED regex-hidden-0,regex-hidden-1,regex-visible-0,regex-visible-1',
      'the assignment of regex-hidden',
      90_000,
    )
    await m.waitLine(() => recs('regex-hidden').length >= PER_TOPIC, `${PER_TOPIC} records of regex-hidden`, 60_000)
    const values = (topic: string) =>
      recs(topic)
        .map((l) => l.split(' ')[4])
        .sort()
    const expected = (topic: string) => [0, 1].flatMap((p) => Array.from({ length: PER_TOPIC / 2 }, (_, i) => `${topic}-${p}-${i}`)).sort()
    assert.deepEqual(values('regex-hidden'), expected('regex-hidden'))
    assert.deepEqual(values('regex-visible'), expected('regex-visible'))
    assert.ok(!m.lines.some((l) => l.startsWith('CLIENT-ERROR')), m.context())
    m.send('stop')
    await m.waitLine((l) => l === 'CLOSED', 'CLOSED', 60_000)
    assert.equal((await m.exited).code, 0, m.context())
  })

  test('KafkaShareConsumer over consumer_byte_rate is throttled and bounded by the quota; without a quota it is not', {
    timeout: 240_000,
  }, async () => {
    assert.ok(java && broker && admin, 'see the first test')
    const [set] = await alterClientQuotas(admin, [{ entity: { user: 'alice' }, ops: { consumer_byte_rate: QUOTA } }])
    assert.equal(set!.error, null)
    const share = (user: 'alice' | 'bob', seconds: number) =>
      runProcess(
        javaCommand(),
        [
          '-cp',
          java!.classpath,
          'io.tributary.interop.SecuredGroups',
          'share',
          broker!.bootstrap,
          user,
          USERS[user],
          `share-quota-${user}`,
          SHARE_TOPIC,
          String(RECORDS),
          String(seconds),
          String(FETCH_MAX),
        ],
        { timeoutMs: (seconds + 60) * 1000, installHint: 'this test needs Java 17+ and Maven', env: javaEnv() },
      )

    const slow = shareFigures(await share('alice', 30))
    console.log('acl-quota-java: alice with a quota', slow)
    assert.ok(slow.records! > 0, 'alice read nothing')
    assert.ok(slow['throttle-max']! > 0, `fetch-throttle-time-max ${slow['throttle-max']}`)
    // The quota's rate over the run, with slack: 3 times it, plus one fetch.
    const bound = QUOTA * (slow.ms! / 1000) * 3 + FETCH_MAX
    assert.ok(slow.bytes! <= bound, `alice read ${slow.bytes} bytes in ${slow.ms} ms; bound ${Math.round(bound)}`)
    assert.equal(slow.distinct, slow.records, 'a record came to alice twice')
    assert.equal(slow['max-delivery'], 1, 'a record came to alice at a delivery count above 1')

    const free = shareFigures(await share('bob', 30))
    console.log('acl-quota-java: bob without a quota', free)
    assert.equal(free.records, RECORDS)
    assert.equal(free.bytes, RECORDS * RECORD)
    assert.equal(free['throttle-max'], 0)
    assert.equal(free.distinct, RECORDS)
  })
})
