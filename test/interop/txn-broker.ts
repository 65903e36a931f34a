// What the transaction interop tests (test/integration/txn-*.test.ts) share: the broker they run
// against and the Java programs of test/interop/java.
//
// The broker is a Tributary process (test/helpers/broker-process.ts). With TXN_TEST_BROKER=kafka in
// the environment it is Apache Kafka 4.x instead (test/helpers/apache-kafka.ts): the same tests
// then check themselves — what they assert is what Kafka does. CI never sets it.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startApacheKafka } from '../helpers/apache-kafka.js'
import { startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { runOk } from '../helpers/run-process.js'

export interface TxnBroker {
  /** 'tributary' or 'kafka <version>'. */
  readonly kind: string
  readonly bootstrap: string
  alive(): boolean
  /** The broker's recent log, for failure messages. */
  logTail(): string
  /** Stops the broker; for Tributary it must still have been running and exit cleanly. */
  stop(): Promise<void>
}

export const againstKafka = (): boolean => process.env.TXN_TEST_BROKER === 'kafka'

export async function startTxnBroker(overrides: Record<string, string> = {}): Promise<TxnBroker> {
  if (againstKafka()) {
    const k = await startApacheKafka()
    return { kind: `kafka ${k.version}`, bootstrap: k.bootstrap, alive: () => true, logTail: () => k.logTail(), stop: () => k.stop() }
  }
  const b = await startBrokerProcess({ overrides: { 'group.initial.rebalance.delay.ms': '0', ...overrides } })
  return {
    kind: 'tributary',
    bootstrap: b.bootstrap,
    alive: () => b.alive(),
    logTail: () => b.stderr().slice(-6000),
    stop: () => stopAndCheck(b),
  }
}

/** dist/test/interop/… → test/interop/java (the sources, not dist). */
const JAVA_PROJECT = fileURLToPath(new URL('../../../test/interop/java/', import.meta.url))
const MAVEN = { timeoutMs: 5 * 60_000, installHint: 'this test needs Java 17+ and Maven' }

export interface JavaPrograms {
  classpath: string
  remove(): void
}

/**
 * Builds test/interop/java in a copy of its own: other test files build test/interop/java/target
 * and may run at the same time; a jar rewritten under a running JVM breaks it.
 */
export async function buildJavaPrograms(): Promise<JavaPrograms> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-java-txn-'))
  cpSync(join(JAVA_PROJECT, 'pom.xml'), join(dir, 'pom.xml'))
  cpSync(join(JAVA_PROJECT, 'src'), join(dir, 'src'), { recursive: true })
  const pom = join(dir, 'pom.xml')
  // Offline first (the dependencies are usually in ~/.m2 already); online when they are not.
  await runOk('mvn', ['-q', '-B', '-o', '-Dstyle.color=never', '-f', pom, 'package'], MAVEN).catch(() =>
    runOk('mvn', ['-q', '-B', '-Dstyle.color=never', '-f', pom, 'package'], MAVEN),
  )
  return {
    classpath: [join(dir, 'target', 'interop.jar'), join(dir, 'target', 'lib', '*')].join(delimiter),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** The environment of the Java programs: the client's log level (INTEROP_LOG_LEVEL, default warn). */
export const javaEnv = (): Record<string, string> => ({ INTEROP_LOG_LEVEL: process.env.INTEROP_LOG_LEVEL ?? 'warn' })

/** A long-running program whose stdout lines a test waits on; its stdin is a pipe. */
export class LineProcess {
  readonly lines: string[] = []
  stderr = ''
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  private partial = ''
  private readonly waiters: Array<() => void> = []

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8')
    child.stderr.setEncoding('utf8')
    child.stdout.on('data', (s: string) => {
      const parts = (this.partial + s).split('\n')
      this.partial = parts.pop()!
      this.lines.push(...parts)
      for (const w of this.waiters.splice(0)) w()
    })
    child.stderr.on('data', (s: string) => {
      this.stderr = (this.stderr + s).slice(-20_000)
    })
    this.exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })))
    void this.exited.then(() => {
      for (const w of this.waiters.splice(0)) w()
    })
  }

  static start(cmd: string, args: string[], env: Record<string, string> = {}): LineProcess {
    return new LineProcess(spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } }))
  }

  get pid(): number {
    return this.child.pid!
  }

  alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null
  }

  /** Resolves with the first line (from the start) that matches; rejects after timeoutMs or at exit. */
  async waitLine(match: (line: string) => boolean, what: string, timeoutMs: number): Promise<string> {
    const deadline = performance.now() + timeoutMs
    for (;;) {
      const line = this.lines.find(match)
      if (line !== undefined) return line
      if (!this.alive()) throw new Error(`the program exited before ${what}:\n${this.context()}`)
      const left = deadline - performance.now()
      if (left <= 0) throw new Error(`no ${what} within ${timeoutMs} ms:\n${this.context()}`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1000))
        this.waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`)
  }

  endInput(): void {
    this.child.stdin.end()
  }

  kill9(): Promise<unknown> {
    if (this.alive()) this.child.kill('SIGKILL')
    return this.exited
  }

  context(): string {
    return `stdout:\n${this.lines.slice(-40).join('\n')}\nstderr:\n${this.stderr.slice(-6000)}`
  }
}
