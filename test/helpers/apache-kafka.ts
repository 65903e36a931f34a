// Apache Kafka 4.x, started from its jars on Maven Central (bench/kafka/pom.xml, the same broker
// the benchmarks compare against), for tests that check our tools also work against Kafka itself.
// Missing Java or Maven fails the test that asks for it; it never skips.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Broker, prepareKafka, startKafka } from '../../bench/harness/brokers.js'
import { describeMachine } from '../../bench/harness/machine.js'
import { type ProcResult, runProcess } from './run-process.js'

export interface ApacheKafka {
  bootstrap: string
  version: string
  stop(): Promise<void>
  logTail(): string
}

export async function startApacheKafka(say: (s: string) => void = () => {}): Promise<ApacheKafka> {
  const machine = await describeMachine()
  const env = await prepareKafka(machine.java, machine.maven, say)
  if ('skip' in env) throw new Error(`cannot run Apache Kafka: ${env.skip}`)
  const dir = mkdtempSync(join(tmpdir(), 'tributary-kafka-'))
  let broker: Broker
  try {
    broker = await startKafka(env, dir)
  } catch (err) {
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
  return {
    bootstrap: broker.bootstrap,
    version: env.kafkaVersion,
    logTail: () => broker.logTail(40),
    async stop() {
      await broker.stop(30_000)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The java command and the classpath of Apache Kafka's jars (its tools, e.g. ConfigCommand), without a broker. */
export async function apacheKafkaTools(say: (s: string) => void = () => {}): Promise<{ java: string; classpath: string }> {
  const machine = await describeMachine()
  const env = await prepareKafka(machine.java, machine.maven, say)
  if ('skip' in env) throw new Error(`cannot run Apache Kafka's tools: ${env.skip}`)
  return { java: env.java, classpath: env.classpath }
}

/**
 * Runs one of Kafka's tool classes (org.apache.kafka.tools.AclCommand, ConfigCommand, …) with
 * Kafka's own tool JVM options, to completion; the caller checks the exit code and output.
 */
export async function runKafkaTool(mainClass: string, args: string[], timeoutMs = 120_000): Promise<ProcResult> {
  const machine = await describeMachine()
  const env = await prepareKafka(machine.java, machine.maven, () => {})
  if ('skip' in env) throw new Error(`cannot run Apache Kafka's tools: ${env.skip}`)
  return runProcess(env.java, [...env.toolArgs, '-cp', env.classpath, mainClass, ...args], { timeoutMs })
}
