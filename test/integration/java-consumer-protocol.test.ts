// KIP-848 consumer groups through the Java 4.4 client (group.protocol=consumer): the
// ConsumerProtocol program (test/interop/java) runs three consumer processes joining one after
// another on a 6-partition topic while records are produced, one leaving, one killed, and a fourth
// subscribing by regex; every record must be consumed and no ConsumerGroupDescribe snapshot may
// show a partition owned by two members. The broker's session timeout is lowered to 8 s so the
// killed member's partitions move within the test's time. A second test restarts one of two static
// members (group.instance.id) within the session timeout: it gets back exactly the partitions it
// had, and the other keeps its own. A third upgrades a classic group member by member: two classic
// consumers are restarted one by one with group.protocol=consumer, and no record is skipped. In
// a fourth, a new classic consumer joins a consumer group that has a member; the group turns
// classic when that member leaves.
// Missing java or mvn fails this test.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { javaCommand, runProcess, show } from '../helpers/run-process.js'
import { buildJavaPrograms, type JavaPrograms } from '../interop/txn-broker.js'

const HINT = 'this test needs Java 17+ and Maven'

describe('KIP-848 consumer groups: Java 4.4 KafkaConsumer with group.protocol=consumer', () => {
  let broker: BrokerProcess | undefined
  let java: JavaPrograms | undefined
  // Built once, in a copy of its own (test/interop/txn-broker.ts): other files build
  // test/interop/java at the same time.
  const classpath = async () => (java ??= await buildJavaPrograms()).classpath

  before(async () => {
    broker = await startBrokerProcess({
      overrides: { 'group.consumer.session.timeout.ms': '8000', 'group.consumer.heartbeat.interval.ms': '1000' },
    })
  })

  after(async () => {
    java?.remove()
    await stopAndCheck(broker)
  })

  test('join, leave, kill and a regex member: every record consumed, no partition with two owners', { timeout: 240_000 }, async () => {
    assert.ok(broker, 'broker not started')
    const r = await runProcess(
      javaCommand(),
      ['-cp', await classpath(), 'io.tributary.interop.ConsumerProtocol', broker.bootstrap, 'it-kip848'],
      {
        timeoutMs: 120_000,
        installHint: HINT,
        env: { INTEROP_LOG_LEVEL: 'warn' },
      },
    )
    for (const line of r.stdout.split('\n')) if (line.startsWith('[')) console.log(line)
    const context = () => `${show(r)}\nbroker stderr tail:\n${broker!.stderr().slice(-4000)}`
    assert.equal(r.code, 0, `ConsumerProtocol failed: ${context()}`)
    assert.ok(r.stdout.includes('CONSUMER-PROTOCOL OK'), `no OK line: ${context()}`)
    assert.ok(broker.alive(), 'broker died during the run')
  })

  test('a classic group upgraded member by member: two classic consumers restarted one by one with group.protocol=consumer, nothing skipped', {
    timeout: 150_000,
  }, async () => {
    assert.ok(broker, 'broker not started')
    const r = await runProcess(
      javaCommand(),
      ['-cp', await classpath(), 'io.tributary.interop.ConsumerProtocol', 'upgrade', broker.bootstrap, 'it-kip848-upgrade'],
      {
        timeoutMs: 130_000,
        installHint: HINT,
        env: { INTEROP_LOG_LEVEL: 'warn' },
      },
    )
    for (const line of r.stdout.split('\n')) if (line.startsWith('[')) console.log(line)
    const context = () => `${show(r)}\nbroker stderr tail:\n${broker!.stderr().slice(-4000)}`
    assert.equal(r.code, 0, `ConsumerProtocol upgrade failed: ${context()}`)
    assert.ok(r.stdout.includes('UPGRADE OK'), `no OK line: ${context()}`)
    assert.ok(broker.alive(), 'broker died during the run')
  })

  test('a new classic member joins a consumer group with members: both own partitions; when the consumer-protocol member leaves, a classic group of one', {
    timeout: 150_000,
  }, async () => {
    assert.ok(broker, 'broker not started')
    const r = await runProcess(
      javaCommand(),
      ['-cp', await classpath(), 'io.tributary.interop.ConsumerProtocol', 'mixed', broker.bootstrap, 'it-kip848-mixed'],
      {
        timeoutMs: 130_000,
        installHint: HINT,
        env: { INTEROP_LOG_LEVEL: 'warn' },
      },
    )
    for (const line of r.stdout.split('\n')) if (line.startsWith('[')) console.log(line)
    const context = () => `${show(r)}\nbroker stderr tail:\n${broker!.stderr().slice(-4000)}`
    assert.equal(r.code, 0, `ConsumerProtocol mixed failed: ${context()}`)
    assert.ok(r.stdout.includes('MIXED OK'), `no OK line: ${context()}`)
    assert.ok(broker.alive(), 'broker died during the run')
  })

  test('static members (group.instance.id): one closes and restarts within the session timeout and gets its partitions back', {
    timeout: 120_000,
  }, async () => {
    assert.ok(broker, 'broker not started')
    const r = await runProcess(
      javaCommand(),
      ['-cp', await classpath(), 'io.tributary.interop.ConsumerProtocol', 'static', broker.bootstrap, 'it-kip848-static'],
      {
        timeoutMs: 100_000,
        installHint: HINT,
        env: { INTEROP_LOG_LEVEL: 'warn' },
      },
    )
    for (const line of r.stdout.split('\n')) if (line.startsWith('[')) console.log(line)
    const context = () => `${show(r)}\nbroker stderr tail:\n${broker!.stderr().slice(-4000)}`
    assert.equal(r.code, 0, `ConsumerProtocol static failed: ${context()}`)
    assert.ok(r.stdout.includes('STATIC OK'), `no OK line: ${context()}`)
    assert.ok(broker.alive(), 'broker died during the run')
  })
})
