// The official Apache Kafka Java client (kafka-clients, see test/interop/java/pom.xml) against a
// real broker process. The Maven project is built once (its first build downloads the client from
// Maven Central into ~/.m2; later builds take seconds), then its one program runs end to end:
// AdminClient createTopics / describeCluster / describeTopics (DescribeTopicPartitions, paged) /
// describeFeatures / describeConfigs, a default (idempotent, acks=all)
// KafkaProducer sending 1,000 keyed records with headers, a group-less KafkaConsumer (assign + seek)
// checking every record and the murmur2 partition of each key, AdminClient listOffsets, deleteTopics.
// It prints `INTEROP OK <n>` on success. The client's NetworkClient logs each request it sends at
// debug: that log shows that describeTopics went through DescribeTopicPartitions (75) and that the
// clients, with their default enable.metrics.push=true, asked for telemetry subscriptions (71) and
// logged no telemetry error. Further programs: Kafka44 (the versions raised to Kafka 4.4's maxima:
// ListOffsets v11 specs, DescribeCluster v2, DescribeGroups v6, DeleteGroups v3, a classic group's
// commits, Admin.describeProducers of the idempotent producer that wrote), RecordErrors (how the producer surfaces KIP-467 record errors, per record), FailFast
// (transactions refused at once, Kafka Streams exactly_once_v2 too), Retries (the idempotent
// producer through a proxy that loses Produce answers: every record stored exactly once, at the
// offset acknowledged). Missing java or mvn fails this
// file; it never skips.

import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { freePort, startDropProxy } from '../helpers/drop-proxy.js'
import { javaCommand, type ProcResult, runProcess, show } from '../helpers/run-process.js'

/** dist/test/integration/java-client.test.js → test/interop/java (the sources, not dist). */
const PROJECT_DIR = fileURLToPath(new URL('../../../test/interop/java/', import.meta.url))
const POM = join(PROJECT_DIR, 'pom.xml')
const CLASSPATH = [join(PROJECT_DIR, 'target', 'interop.jar'), join(PROJECT_DIR, 'target', 'lib', '*')].join(delimiter)
const MAIN_CLASS = 'io.tributary.interop.Interop'
const KAFKA44_CLASS = 'io.tributary.interop.Kafka44'
const TOPIC = 'it-java-client'
const KAFKA44_TOPIC = 'it-java-kafka44'
const COUNT = 1000
/** slf4j-simple's per-logger level property for the client's NetworkClient. */
const NETWORK_CLIENT_LOG = 'org.slf4j.simpleLogger.log.org.apache.kafka.clients.NetworkClient'

const BUILD_TIMEOUT_MS = 5 * 60_000
const RUN_TIMEOUT_MS = 3 * 60_000

const JAVA_HINT = 'this test needs Java 17+ and Maven'
const run = (cmd: string, args: string[], timeoutMs: number, env?: Record<string, string>): Promise<ProcResult> =>
  runProcess(cmd, args, { timeoutMs, installHint: JAVA_HINT, ...(env ? { env } : {}) })

describe('Apache Kafka Java client (kafka-clients)', () => {
  let broker: BrokerProcess | undefined

  let built = false

  before(async () => {
    broker = await startBrokerProcess()
  })

  after(async () => {
    await stopAndCheck(broker)
  })

  // A test, not a hook: a missing java/mvn or a broken build counts as a failed test.
  test('java and mvn are installed and the Maven project builds', { timeout: BUILD_TIMEOUT_MS + 60_000 }, async () => {
    const java = await run(javaCommand(), ['-version'], 60_000)
    assert.equal(java.code, 0, `java -version failed: ${show(java)}`)
    const mvnVersion = await run('mvn', ['-v'], 60_000)
    assert.equal(mvnVersion.code, 0, `mvn -v failed: ${show(mvnVersion)}`)

    const build = await run('mvn', ['-q', '-B', '-Dstyle.color=never', '-f', POM, 'package'], BUILD_TIMEOUT_MS)
    assert.equal(build.code, 0, `Maven build of ${POM} failed: ${show(build)}`)
    assert.ok(existsSync(join(PROJECT_DIR, 'target', 'interop.jar')), 'Maven build produced no target/interop.jar')
    built = true
    console.log(`java-client: Maven build took ${build.ms} ms`)
  })

  test(`admin, idempotent producer (${COUNT} keyed records), group-less consumer, listOffsets, deleteTopics`, {
    timeout: RUN_TIMEOUT_MS + 30_000,
  }, async () => {
    assert.ok(built, 'the Maven build failed (see the previous test)')
    assert.ok(broker, 'broker not started')
    const r = await run(
      javaCommand(),
      [`-D${NETWORK_CLIENT_LOG}=debug`, '-cp', CLASSPATH, MAIN_CLASS, broker.bootstrap, TOPIC],
      RUN_TIMEOUT_MS,
      {
        INTEROP_LOG_LEVEL: process.env.INTEROP_LOG_LEVEL ?? 'warn',
      },
    )
    const context = () => `${show(r)}\nbroker stderr tail:\n${broker!.stderr().slice(-4000)}`
    assert.equal(r.code, 0, `Java interop program failed: ${context()}`)
    const lines = r.stdout.split(/\r?\n/).map((l) => l.trim())
    assert.ok(lines.includes(`INTEROP OK ${COUNT}`), `no 'INTEROP OK ${COUNT}' line: ${context()}`)
    assert.ok(broker.alive(), 'broker died during the Java client run')
    const sent = (api: string) => new RegExp(`Sending ${api} request`).test(r.stderr)
    assert.ok(sent('DESCRIBE_TOPIC_PARTITIONS'), `describeTopics did not use DescribeTopicPartitions: ${context()}`)
    assert.ok(sent('API_VERSIONS'), `no ApiVersions request in the client log (is the debug log on?): ${context()}`)
    assert.ok(sent('GET_TELEMETRY_SUBSCRIPTIONS'), `the clients never asked for telemetry subscriptions: ${context()}`)
    const telemetryTrouble = r.stderr.split(/\r?\n/).filter((l) => /\b(WARN|ERROR)\b/.test(l) && /telemetry/i.test(l))
    assert.deepEqual(telemetryTrouble, [], `telemetry warnings or errors in the client log: ${context()}`)
    console.log(`java-client: Java program took ${r.ms} ms`)
  })

  test('Kafka 4.4 versions: ListOffsets v11 specs, DescribeCluster v2, DescribeGroups v6, DeleteGroups v3, group commits, DescribeProducers', {
    timeout: RUN_TIMEOUT_MS + 30_000,
  }, async () => {
    assert.ok(built, 'the Maven build failed (see the first test)')
    assert.ok(broker, 'broker not started')
    const r = await run(javaCommand(), ['-cp', CLASSPATH, KAFKA44_CLASS, broker.bootstrap, KAFKA44_TOPIC], RUN_TIMEOUT_MS, {
      INTEROP_LOG_LEVEL: process.env.INTEROP_LOG_LEVEL ?? 'warn',
    })
    const context = () => `${show(r)}\nbroker stderr tail:\n${broker!.stderr().slice(-4000)}`
    assert.equal(r.code, 0, `Kafka44 program failed: ${context()}`)
    const lines = r.stdout.split(/\r?\n/).map((l) => l.trim())
    assert.ok(lines.includes('KAFKA44 OK'), `no 'KAFKA44 OK' line: ${context()}`)
    // The program checked id, epoch and sequence itself; its log line shows the check ran.
    assert.ok(
      lines.some((l) => /^\[interop\] describeProducers ProducerState\(producerId=\d+, producerEpoch=0, lastSequence=9,/.test(l)),
      `no describeProducers line: ${context()}`,
    )
    assert.ok(broker.alive(), 'broker died during the Kafka44 run')
  })

  test('a transactional producer commits and a Kafka Streams exactly_once_v2 application starts, neither hanging', {
    timeout: RUN_TIMEOUT_MS + 30_000,
  }, async () => {
    assert.ok(built, 'the Maven build failed (see the first test)')
    assert.ok(broker, 'broker not started')
    const r = await run(javaCommand(), ['-cp', CLASSPATH, 'io.tributary.interop.FailFast', broker.bootstrap, `${TOPIC}-ff`], RUN_TIMEOUT_MS)
    const context = () => `${show(r)}\nbroker stderr tail:\n${broker!.stderr().slice(-4000)}`
    assert.equal(r.code, 0, `FailFast failed: ${context()}`)
    const lines = r.stdout.split(/\r?\n/)
    assert.ok(lines.includes('FAILFAST OK'), context())
    assert.match(lines.find((l) => l.startsWith('FAILFAST producer ')) ?? '', /committed$/, context())
    assert.match(lines.find((l) => l.startsWith('FAILFAST streams ')) ?? '', /RUNNING$/, context())
  })

  test('record errors (KIP-467): each named record fails with its own message, the rest of its batch as part of it', {
    timeout: RUN_TIMEOUT_MS + 30_000,
  }, async () => {
    assert.ok(built, 'the Maven build failed (see the first test)')
    assert.ok(broker, 'broker not started')
    const r = await run(
      javaCommand(),
      ['-cp', CLASSPATH, 'io.tributary.interop.RecordErrors', broker.bootstrap, 'it-java-record-errors'],
      RUN_TIMEOUT_MS,
      {
        INTEROP_LOG_LEVEL: process.env.INTEROP_LOG_LEVEL ?? 'warn',
      },
    )
    const context = () => `${show(r)}\nbroker stderr tail:\n${broker!.stderr().slice(-4000)}`
    assert.equal(r.code, 0, `RecordErrors program failed: ${context()}`)
    assert.ok(
      r.stdout
        .split(/\r?\n/)
        .map((l) => l.trim())
        .includes('RECORD ERRORS OK'),
      `no 'RECORD ERRORS OK' line: ${context()}`,
    )
  })

  test('idempotent producer retries (Produce answers lost by a proxy): every record stored exactly once, at its acknowledged offset', {
    timeout: RUN_TIMEOUT_MS + 30_000,
  }, async (t) => {
    assert.ok(built, 'the Maven build failed (see the first test)')
    // A broker of its own that advertises the proxy, so every connection of the client goes through it.
    const brokerPort = await freePort()
    const proxy = await startDropProxy({ upstreamPort: brokerPort, every: 7, maxDrops: 6 })
    const b = await startBrokerProcess({
      overrides: { listeners: `PLAINTEXT://127.0.0.1:${brokerPort}`, 'advertised.listeners': `PLAINTEXT://127.0.0.1:${proxy.port}` },
    })
    t.after(async () => {
      await proxy.close()
      await stopAndCheck(b)
    })
    const count = 3000
    const r = await run(
      javaCommand(),
      ['-cp', CLASSPATH, 'io.tributary.interop.Retries', `127.0.0.1:${proxy.port}`, 'it-java-retries', String(count)],
      RUN_TIMEOUT_MS,
      { INTEROP_LOG_LEVEL: process.env.INTEROP_LOG_LEVEL ?? 'warn' },
    )
    const context = () =>
      `${show(r)}\nproxy: ${proxy.produces} produces, ${proxy.dropped} answers lost\nbroker stderr tail:\n${b.stderr().slice(-4000)}`
    assert.equal(r.code, 0, `Retries program failed: ${context()}`)
    assert.ok(r.stdout.split(/\r?\n/).includes(`RETRIES OK ${count} ${count}`), context())
    assert.ok(proxy.dropped > 0, `no Produce answer was lost, so nothing was retried: ${context()}`)
  })
})
