// Client quotas against the Java 4.4 clients (test/interop/java, program Quotas) and Kafka's own
// kafka-configs tool (org.apache.kafka.tools.ConfigCommand from Kafka 4.4's jars, see
// bench/harness/brokers.ts prepareKafka), on a real broker process with quota.window.num=3 (so the
// burst a new client may send before throttling is 2 windows of its quota, not 10):
// - kafka-configs sets client-id quotas (producer_byte_rate, consumer_byte_rate,
//   controller_mutation_rate) and describes them back;
// - a producer with producer_byte_rate = 100 KiB/s sending 1 MiB is throttled: its own
//   produce-throttle-time metric is above 0 and its average rate stays near the quota; one whose
//   client id has no quota sees no throttle;
// - a consumer with consumer_byte_rate = 100 KiB/s reading that 1 MiB likewise (fetch-throttle-time);
// - an admin client creating topics past controller_mutation_rate gets THROTTLING_QUOTA_EXCEEDED
//   (ThrottlingQuotaExceededException, CreateTopics v7) with a throttle time.
// Missing java or mvn fails this file; it never skips.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type JavaEnv, prepareKafka } from '../../bench/harness/brokers.js'
import { describeMachine } from '../../bench/harness/machine.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { javaCommand, type ProcResult, runProcess, show } from '../helpers/run-process.js'

const PROJECT_DIR = fileURLToPath(new URL('../../../test/interop/java/', import.meta.url))
const CLASSPATH = [join(PROJECT_DIR, 'target', 'interop.jar'), join(PROJECT_DIR, 'target', 'lib', '*')].join(delimiter)
const KIB = 1024
const QUOTA = 100 * KIB
const BYTES = 1024 * KIB
const TOPIC = 'quota-java'

const run = (cmd: string, args: string[], timeoutMs = 180_000): Promise<ProcResult> =>
  runProcess(cmd, args, { timeoutMs, installHint: 'this test needs Java 17+ and Maven' })

/** "QUOTA produce bytes=1 ms=2 throttle-avg=3.0" → { bytes: 1, ms: 2, 'throttle-avg': 3 } */
function fields(r: ProcResult, mode: string): Record<string, number> {
  const line = r.stdout.split(/\r?\n/).find((l) => l.startsWith(`QUOTA ${mode} `))
  assert.ok(line, `no QUOTA ${mode} line: ${show(r)}`)
  return Object.fromEntries([...line.matchAll(/([\w-]+)=([\d.]+)/g)].map((m) => [m[1]!, Number(m[2])]))
}

describe('client quotas with the Java clients and kafka-configs', () => {
  let broker: BrokerProcess | undefined
  let kafka: JavaEnv | undefined
  let built = false

  before(async () => {
    broker = await startBrokerProcess({ overrides: { 'quota.window.num': '3', 'num.partitions': '1' } })
  })
  after(async () => {
    await stopAndCheck(broker)
  })

  const configs = (...args: string[]) =>
    run(javaCommand(), [
      ...kafka!.toolArgs,
      '-cp',
      kafka!.classpath,
      'org.apache.kafka.tools.ConfigCommand',
      '--bootstrap-server',
      broker!.bootstrap,
      ...args,
    ])
  const quotas = (...args: string[]) => run(javaCommand(), ['-cp', CLASSPATH, 'io.tributary.interop.Quotas', broker!.bootstrap, ...args])

  test('the Java programs build and Kafka 4.4 tools are at hand', { timeout: 16 * 60_000 }, async () => {
    const build = await run('mvn', ['-q', '-B', '-Dstyle.color=never', '-f', join(PROJECT_DIR, 'pom.xml'), 'package'], 10 * 60_000)
    assert.equal(build.code, 0, `Maven build failed: ${show(build)}`)
    assert.ok(existsSync(join(PROJECT_DIR, 'target', 'interop.jar')))
    const machine = await describeMachine()
    const env = await prepareKafka(machine.java, machine.maven, () => {})
    if ('skip' in env) assert.fail(`cannot run Kafka's tools: ${env.skip}`)
    kafka = env
    built = true
  })

  test('kafka-configs sets client quotas and describes them back', { timeout: 180_000 }, async () => {
    assert.ok(built, 'see the first test')
    for (const [name, config] of [
      ['slow-producer', `producer_byte_rate=${QUOTA}`],
      ['slow-consumer', `consumer_byte_rate=${QUOTA}`],
      ['mutator', 'controller_mutation_rate=1'],
    ] as const) {
      const r = await configs('--alter', '--entity-type', 'clients', '--entity-name', name, '--add-config', config)
      assert.equal(r.code, 0, show(r))
      assert.match(r.stdout, new RegExp(`Completed updating config for client ${name}\\.`), show(r))
    }
    const described = await configs('--describe', '--entity-type', 'clients', '--entity-name', 'slow-producer')
    assert.equal(described.code, 0, show(described))
    assert.match(
      described.stdout,
      new RegExp(`Quota configs for client-id 'slow-producer' are producer_byte_rate=${QUOTA}.0`),
      show(described),
    )
    const all = await configs('--describe', '--entity-type', 'clients')
    assert.equal(all.code, 0, show(all))
    for (const name of ['slow-producer', 'slow-consumer', 'mutator']) assert.match(all.stdout, new RegExp(`client-id '${name}'`), show(all))
  })

  test('a producer over producer_byte_rate is throttled near the quota; one without a quota is not', { timeout: 240_000 }, async () => {
    assert.ok(built, 'see the first test')
    const slow = fields(await quotas('produce', TOPIC, 'slow-producer', String(BYTES)), 'produce')
    console.log('quota-java: throttled producer', slow)
    assert.ok(slow.bytes! >= BYTES)
    assert.ok(slow['throttle-max']! > 0, `produce-throttle-time-max ${slow['throttle-max']}`)
    assert.ok(slow['throttle-avg']! > 0, `produce-throttle-time-avg ${slow['throttle-avg']}`)
    // 1 MiB at 100 KiB/s after a burst of 2 windows' worth: ≈ 8 s. Generous: at most twice the quota.
    const rate = (slow.bytes! / slow.ms!) * 1000
    assert.ok(rate < 2 * QUOTA, `average rate ${Math.round(rate)} B/s with a quota of ${QUOTA}`)
    const free = fields(await quotas('produce', `${TOPIC}-free`, 'free-producer', String(BYTES)), 'produce')
    console.log('quota-java: free producer', free)
    assert.equal(free['throttle-max'], 0)
  })

  test('a consumer over consumer_byte_rate is throttled near the quota', { timeout: 240_000 }, async () => {
    assert.ok(built, 'see the first test')
    const slow = fields(await quotas('consume', TOPIC, 'slow-consumer', String(BYTES)), 'consume')
    console.log('quota-java: throttled consumer', slow)
    assert.ok(slow.bytes! >= BYTES)
    assert.ok(slow['throttle-max']! > 0, `fetch-throttle-time-max ${slow['throttle-max']}`)
    const rate = (slow.bytes! / slow.ms!) * 1000
    assert.ok(rate < 2 * QUOTA, `average rate ${Math.round(rate)} B/s with a quota of ${QUOTA}`)
    const free = fields(await quotas('consume', TOPIC, 'free-consumer', String(BYTES)), 'consume')
    assert.equal(free['throttle-max'], 0)
  })

  test('CreateTopics past controller_mutation_rate: THROTTLING_QUOTA_EXCEEDED with a throttle time', { timeout: 180_000 }, async () => {
    assert.ok(built, 'see the first test')
    // Rate 1 partition/s, burst 11 (controller.quota.window.num 11 × 1 s): topics of 5 partitions,
    // the fourth asked for once the bucket is below zero.
    const r = fields(await quotas('mutate', 'mutator', 'quota-mutate-', '6', '5'), 'mutate')
    console.log('quota-java: mutations', r)
    assert.ok(r.created! >= 1 && r.created! <= 4, `created ${r.created}`)
    assert.ok(r.throttled! >= 1, `throttled ${r.throttled}`)
    assert.ok(r['throttle-ms']! > 0)
    assert.ok(broker!.alive())
  })
})
