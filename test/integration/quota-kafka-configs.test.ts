// Kafka's own kafka-configs (org.apache.kafka.tools.ConfigCommand, Kafka 4.4's jars) run the same
// script of client quota commands against Apache Kafka 4.4 and against Tributary; what it prints
// and how it exits must be the same: users, clients, user+client and ip entities, defaults, set,
// delete, describe with and without names, and the values the brokers refuse (Kafka's messages).
// (Describing users alone also asks for their SCRAM credentials, DescribeUserScramCredentials,
// which belongs to the SASL work: users are described here together with a client.)
// Missing Java or Maven fails this file; it never skips.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type JavaEnv, prepareKafka } from '../../bench/harness/brokers.js'
import { describeMachine } from '../../bench/harness/machine.js'
import { type RunningBroker, startBroker } from '../../src/index.js'
import { type ApacheKafka, startApacheKafka } from '../helpers/apache-kafka.js'
import { javaCommand, runProcess } from '../helpers/run-process.js'

const ALICE_APP = ['--entity-type', 'users', '--entity-name', 'alice', '--entity-type', 'clients', '--entity-name', 'app']
const SCRIPT: string[][] = [
  ['--alter', ...ALICE_APP, '--add-config', 'producer_byte_rate=1048576,consumer_byte_rate=2097152'],
  ['--alter', '--entity-type', 'clients', '--entity-default', '--add-config', 'request_percentage=50.5'],
  ['--alter', '--entity-type', 'users', '--entity-default', '--add-config', 'controller_mutation_rate=10'],
  ['--alter', '--entity-type', 'users', '--entity-name', 'alice', '--add-config', 'producer_byte_rate=500'],
  ['--alter', '--entity-type', 'ips', '--entity-name', '10.1.2.3', '--add-config', 'connection_creation_rate=100'],
  ['--describe', ...ALICE_APP],
  ['--describe', '--entity-type', 'clients'],
  ['--describe', '--entity-type', 'ips'],
  ['--alter', ...ALICE_APP, '--delete-config', 'producer_byte_rate'],
  ['--describe', ...ALICE_APP],
  ['--alter', '--entity-type', 'clients', '--entity-name', 'frac', '--add-config', 'producer_byte_rate=1.5'],
  ['--alter', '--entity-type', 'clients', '--entity-name', 'neg', '--add-config', 'consumer_byte_rate=-1'],
  ['--alter', '--entity-type', 'ips', '--entity-name', '10.1.2.4', '--add-config', 'connection_creation_rate=2.5'],
  ['--alter', '--entity-type', 'ips', '--entity-name', 'no-such-host.invalid', '--add-config', 'connection_creation_rate=5'],
  ['--describe', '--entity-type', 'clients', '--entity-name', 'nobody'],
]

interface Outcome {
  code: number | null
  stdout: string[]
  /** The tool's error lines (its message and the exception with the broker's message), when it failed. */
  errors: string[]
}

/**
 * Lines sorted (entities may be listed in another order), stack frames dropped, the broker's
 * address replaced.
 */
function outcome(r: { code: number | null; stdout: string; stderr: string }, bootstrap: string): Outcome {
  const lines = (s: string) =>
    s
      .split(/\r?\n/)
      .filter((l) => l.trim() !== '' && !/^\s+at /.test(l) && !/^\s*\.\.\. \d+ more/.test(l))
      .map((l) => l.replaceAll(bootstrap, 'BOOTSTRAP'))
  const isError = (l: string) => /Error|Exception/.test(l)
  return {
    code: r.code,
    stdout: lines(r.stdout)
      .filter((l) => !isError(l))
      .sort(),
    errors: lines(r.stdout + r.stderr).filter(isError),
  }
}

describe('kafka-configs client quotas: Tributary answers as Apache Kafka 4.4', () => {
  let tributary: RunningBroker
  let kafka: ApacheKafka | undefined
  let env: JavaEnv

  before(async () => {
    tributary = await startBroker({ storage: 'memory' })
  })
  after(async () => {
    await kafka?.stop()
    await tributary?.close()
  })

  const run = (bootstrap: string, args: string[]) =>
    runProcess(
      javaCommand(),
      [...env.toolArgs, '-cp', env.classpath, 'org.apache.kafka.tools.ConfigCommand', '--bootstrap-server', bootstrap, ...args],
      {
        timeoutMs: 120_000,
      },
    )

  test('the same script, the same output', { timeout: 20 * 60_000 }, async () => {
    const machine = await describeMachine()
    const prepared = await prepareKafka(machine.java, machine.maven, () => {})
    if ('skip' in prepared) assert.fail(`cannot run Apache Kafka: ${prepared.skip}`)
    env = prepared
    kafka = await startApacheKafka()
    for (const args of SCRIPT) {
      const theirs = outcome(await run(kafka.bootstrap, args), kafka.bootstrap)
      const ours = outcome(await run(tributary.bootstrap, args), tributary.bootstrap)
      console.log(`quota-kafka-configs: ${args.join(' ')} → exit ${theirs.code} ${theirs.errors.join(' | ')}`)
      assert.deepEqual(ours, theirs, `kafka-configs ${args.join(' ')}`)
    }
  })
})
