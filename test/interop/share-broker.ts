// What the share-group interop tests (test/integration/share-java.test.ts and the cluster one)
// share: the broker they run against, the record lock duration it allows, and the Share program
// of test/interop/java (KafkaShareConsumer, Java 4.4) with parsers for its output lines.
//
// The broker is a Tributary process (test/helpers/broker-process.ts). With SHARE_TEST_BROKER=kafka
// it is Apache Kafka 4.4 instead (test/helpers/apache-kafka.ts, formatted with share.version=2):
// the same tests then check themselves — what they assert is what Kafka does. CI never sets it.
//
// Kafka bounds a group's share.record.lock.duration.ms by group.share.min.record.lock.duration.ms
// (15000 by default) and share.delivery.count.limit by group.share.min.delivery.count.limit (2).
// Tributary is started with a lower minimum lock duration so its tests wait less.
import { startApacheKafka } from '../helpers/apache-kafka.js'
import { startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { javaCommand, runProcess, show } from '../helpers/run-process.js'
import { type JavaPrograms, javaEnv, LineProcess, type TxnBroker } from './txn-broker.js'

export { buildJavaPrograms, type JavaPrograms, LineProcess } from './txn-broker.js'

export type ShareBroker = TxnBroker

export const againstKafka = (): boolean => process.env.SHARE_TEST_BROKER === 'kafka'

/** The lock duration the tests give their groups: Kafka's minimum there, 5 s on Tributary. */
export const lockDurationMs = (): number => (againstKafka() ? 15_000 : 5_000)

export async function startShareBroker(overrides: Record<string, string> = {}): Promise<ShareBroker> {
  if (againstKafka()) {
    const k = await startApacheKafka()
    return { kind: `kafka ${k.version}`, bootstrap: k.bootstrap, alive: () => true, logTail: () => k.logTail(), stop: () => k.stop() }
  }
  const b = await startBrokerProcess({
    overrides: { 'group.initial.rebalance.delay.ms': '0', 'group.share.min.record.lock.duration.ms': '1000', ...overrides },
  })
  return {
    kind: 'tributary',
    bootstrap: b.bootstrap,
    alive: () => b.alive(),
    logTail: () => b.stderr().slice(-6000),
    stop: () => stopAndCheck(b),
  }
}

const RUN_TIMEOUT_MS = 3 * 60_000

/** Runs one Share subcommand to its end; fails on a non-zero exit. */
export async function share(java: JavaPrograms, args: string[]): Promise<string[]> {
  const r = await runProcess(javaCommand(), ['-cp', java.classpath, 'io.tributary.interop.Share', ...args], {
    timeoutMs: RUN_TIMEOUT_MS,
    installHint: 'this test needs Java 17+ and Maven',
    env: javaEnv(),
  })
  if (r.code !== 0) throw new Error(`Share ${args.join(' ')} failed: ${show(r)}`)
  return r.stdout.split('\n').filter((l) => l.length > 0)
}

/** Starts `Share consume …` (its stdin stays open until stop()). */
export function startShareConsumer(java: JavaPrograms, bootstrap: string, group: string, topic: string, opts: string[]): LineProcess {
  return LineProcess.start(
    javaCommand(),
    ['-cp', java.classpath, 'io.tributary.interop.Share', 'consume', bootstrap, group, topic, ...opts],
    javaEnv(),
  )
}

/** "stop" on stdin, then its CLOSED line; SIGKILL if it does not close within 40 s. */
export async function stopShareConsumer(p: LineProcess): Promise<string> {
  if (!p.alive()) return p.lines.find((l) => l.startsWith('CLOSED ')) ?? ''
  p.send('stop')
  try {
    return await p.waitLine((l) => l.startsWith('CLOSED '), 'the consumers closing', 40_000)
  } finally {
    await p.kill9()
  }
}

/** One acknowledged delivery: `R consumer offset deliveryCount accept|release|reject`. */
export interface Delivery {
  consumer: number
  offset: number
  deliveryCount: number
  ack: string
}

export function deliveries(p: LineProcess): Delivery[] {
  return p.lines
    .filter((l) => l.startsWith('R '))
    .map((l) => {
      const [, consumer, offset, count, ack] = l.split(' ')
      return { consumer: Number(consumer), offset: Number(offset), deliveryCount: Number(count), ack: ack! }
    })
}

/** Lines that say a commit failed or a consumer thread died. */
export const failures = (p: LineProcess): string[] => p.lines.filter((l) => l.startsWith('F ') || l.startsWith('ERROR '))

/** Waits until `done(deliveries)` holds, re-checking as lines arrive; rejects after timeoutMs. */
export async function waitDeliveries(
  p: LineProcess,
  done: (d: Delivery[]) => boolean,
  what: string,
  timeoutMs: number,
): Promise<Delivery[]> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const d = deliveries(p)
    if (done(d)) return d
    const left = deadline - performance.now()
    if (left <= 0 || !p.alive()) throw new Error(`${what}: not reached (${d.length} deliveries so far):\n${p.context()}`)
    // waitLine resolves on the next line or after the timeout; any line is a reason to re-check.
    const before = p.lines.length
    await p.waitLine((_l) => p.lines.length > before, what, Math.min(left, 2000)).catch(() => {})
  }
}

/** A record of a dead-letter topic as `Share dump` prints it: offset, key and headers. */
export interface DumpedRecord {
  offset: number
  key: string
  headers: Map<string, string>
}

export async function dumpTopic(
  java: JavaPrograms,
  bootstrap: string,
  topic: string,
  count: number,
  timeoutMs: number,
): Promise<DumpedRecord[]> {
  const lines = await share(java, ['dump', bootstrap, topic, String(count), String(timeoutMs)])
  return lines
    .filter((l) => l.startsWith('D '))
    .map((l) => {
      const [, offset, key, ...rest] = l.split(' ')
      const headers = new Map<string, string>()
      // Header values may hold spaces and commas (the reason text); keys are __dlq.errors.*-like names.
      for (const part of rest.join(' ').split(/,(?=[\w.-]+=)/)) {
        const eq = part.indexOf('=')
        if (eq > 0) headers.set(part.slice(0, eq), part.slice(eq + 1))
      }
      return { offset: Number(offset), key: key!, headers }
    })
}
