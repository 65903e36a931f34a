// Starting and stopping the two brokers under test: Tributary (node dist/bin/tributary.js start) and
// Apache Kafka 4.x in KRaft combined mode from the jars that bench/kafka/pom.xml fetches.
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { firstAnswer, freePort, ROOT, runOk, sleep, spawnLogged } from './util.js'

export type BrokerName = 'tributary' | 'kafka'
export const BROKERS: readonly BrokerName[] = ['tributary', 'kafka']

export interface Broker {
  name: BrokerName
  bootstrap: string
  /** The SSL listener of a broker started with `tls` (the TLS scenarios), and the CA its clients trust. */
  tls?: { bootstrap: string; caFile: string }
  pid: number
  /** Spawn → first ApiVersions answer, ms. */
  startupMs: number
  /** Kafka only: the StorageTool format that precedes every start on a fresh directory, ms. */
  formatMs?: number
  logFile: string
  alive(): boolean
  /** SIGTERM, then SIGKILL after graceMs; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>
  /** The last lines of the broker's output (for error messages). */
  logTail(lines?: number): string
}

export const TRIBUTARY_MAIN = join(ROOT, 'dist/bin/tributary.js')
export const KAFKA_DIR = join(ROOT, 'bench/kafka')

/** Kafka's own defaults from kafka-run-class.sh (KAFKA_JVM_PERFORMANCE_OPTS), for broker and tools. */
const KAFKA_JVM_PERFORMANCE_OPTS = [
  '-server',
  '-XX:+UseG1GC',
  '-XX:MaxGCPauseMillis=20',
  '-XX:InitiatingHeapOccupancyPercent=35',
  '-XX:+ExplicitGCInvokesConcurrent',
  '-XX:MaxInlineLevel=15',
  '-Djava.awt.headless=true',
]
/** kafka-server-start.sh's KAFKA_HEAP_OPTS (the comparison caps the heap at 1 GB). */
export const KAFKA_BROKER_HEAP = ['-Xmx1g', '-Xms1g']
/** kafka-producer-perf-test.sh / kafka-consumer-perf-test.sh set -Xmx512M for the perf tools. */
const KAFKA_TOOL_HEAP = ['-Xmx512m']

export interface JavaEnv {
  java: string
  classpath: string
  kafkaVersion: string
  javaVersion: string
  brokerArgs: string[]
  toolArgs: string[]
}

/** The development CA and broker certificate of `tributary dev-certs` (openssl), made in dir/certs. */
export interface BenchCerts {
  caFile: string
  /** The broker's certificate and key in one PEM file: Kafka's and Tributary's ssl.keystore.type=PEM. */
  keystoreFile: string
}

export async function makeCerts(dir: string): Promise<BenchCerts> {
  const certs = join(dir, 'certs')
  await runOk(process.execPath, [TRIBUTARY_MAIN, 'dev-certs', '--dir', certs], { timeoutMs: 60_000 })
  return { caFile: join(certs, 'ca.pem'), keystoreFile: join(certs, 'broker-keystore.pem') }
}

/** The same server keys for both brokers: an SSL listener with a PEM key store (TLS 1.2/1.3, each broker's default ciphers). */
const sslProperties = (c: BenchCerts) => ['ssl.keystore.type=PEM', `ssl.keystore.location=${c.keystoreFile}`]

function wrap(
  child: ChildProcess,
  name: BrokerName,
  bootstrap: string,
  startupMs: number,
  logFile: string,
  formatMs?: number,
  tls?: Broker['tls'],
): Broker {
  return {
    name,
    bootstrap,
    ...(tls ? { tls } : {}),
    pid: child.pid!,
    startupMs,
    ...(formatMs !== undefined ? { formatMs } : {}),
    logFile,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop(graceMs = 60_000) {
      if (child.exitCode !== null || child.signalCode !== null) return
      const gone = new Promise<void>((r) => child.once('exit', () => r()))
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await gone
      clearTimeout(timer)
    },
    logTail(lines = 20) {
      try {
        return readFileSync(logFile, 'utf8').trim().split('\n').slice(-lines).join('\n')
      } catch {
        return ''
      }
    },
  }
}

async function waitStarted(child: ChildProcess, port: number, t0: number, logFile: string, what: string): Promise<number> {
  try {
    return (await firstAnswer(port, child, 120_000)) - t0
  } catch (err) {
    child.kill('SIGKILL')
    const tail = (() => {
      try {
        return readFileSync(logFile, 'utf8').trim().split('\n').slice(-20).join('\n')
      } catch {
        return ''
      }
    })()
    throw new Error(`${what} did not start: ${(err as Error).message}\n${tail}`)
  }
}

/** How a bench broker is started beyond its port and data directory. */
export interface StartOptions {
  /** An SSL listener on a second port, with these keys. */
  certs?: BenchCerts
  /**
   * Where the broker tells clients to connect instead of its own port (bench/fetch-shape.ts puts a
   * proxy there): called with the port the broker will listen on, before it starts.
   */
  advertise?: (port: number) => Promise<number>
  /** Tributary only: options for node itself, e.g. --cpu-prof (bench/profile.ts). */
  nodeArgs?: readonly string[]
  /**
   * Tributary only: the program to run instead of the bundled dist/bin/tributary.js; bench/profile.ts
   * runs the unbundled dist/src/cli/main.js, so that its profile names the project's own modules.
   */
  main?: string
  /** Tributary only: more broker settings, k=v, each passed as --override (bench/profile.ts). */
  overrides?: readonly string[]
}

/**
 * Starts `tributary start` on a free port with its data in dir, with an SSL listener on a second
 * port when given `certs`.
 */
export async function startTributary(dir: string, o: StartOptions = {}): Promise<Broker> {
  const { certs, advertise } = o
  mkdirSync(dir, { recursive: true })
  const port = await freePort()
  const advertised = advertise ? await advertise(port) : undefined
  const sslPort = certs ? await otherFreePort(port) : 0
  const logFile = join(dir, 'broker.log')
  const args = [
    ...(o.nodeArgs ?? []),
    o.main ?? TRIBUTARY_MAIN,
    'start',
    '--override',
    `listeners=PLAINTEXT://127.0.0.1:${port}${certs ? `,SSL://127.0.0.1:${sslPort}` : ''}`,
    ...(certs ? sslProperties(certs).flatMap((kv) => ['--override', kv]) : []),
    ...(advertised ? ['--override', `advertised.listeners=PLAINTEXT://127.0.0.1:${advertised}`] : []),
    '--override',
    `log.dirs=${join(dir, 'data')}`,
    '--override',
    'group.initial.rebalance.delay.ms=0',
    ...(o.overrides ?? []).flatMap((kv) => ['--override', kv]),
    '--log-level',
    'warn',
  ]
  const t0 = performance.now()
  const child = spawnLogged(process.execPath, args, logFile)
  const startupMs = await waitStarted(child, port, t0, logFile, 'Tributary')
  const tls = certs ? { bootstrap: `127.0.0.1:${sslPort}`, caFile: certs.caFile } : undefined
  return wrap(child, 'tributary', `127.0.0.1:${port}`, startupMs, logFile, undefined, tls)
}

async function otherFreePort(...taken: number[]): Promise<number> {
  for (;;) {
    const p = await freePort()
    if (!taken.includes(p)) return p
  }
}

function kafkaProperties(
  port: number,
  controllerPort: number,
  dataDir: string,
  ssl?: { port: number; certs: BenchCerts },
  advertised = port,
): string {
  const sslListener = ssl ? `,SSL://127.0.0.1:${ssl.port}` : ''
  return `${[
    '# Generated by bench/harness (npm run bench): single node, KRaft combined mode, loopback only.',
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.bootstrap.servers=127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${port}${sslListener},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${advertised}${sslListener}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    `listener.security.protocol.map=PLAINTEXT:PLAINTEXT,${ssl ? 'SSL:SSL,' : ''}CONTROLLER:PLAINTEXT`,
    ...(ssl ? sslProperties(ssl.certs) : []),
    `log.dirs=${dataDir}`,
    'num.partitions=1',
    'offsets.topic.replication.factor=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    'min.insync.replicas=1',
    'group.initial.rebalance.delay.ms=0',
  ].join('\n')}\n`
}

/**
 * Kafka's Uuid text form: 16 random bytes, URL-safe base64 without padding — never starting with
 * '-', as Kafka's Uuid.randomUuid() ensures, since a command line would take it for an option
 * (StorageTool's `-t -…` fails one start in 64 otherwise).
 */
function kafkaUuid(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url')
    if (!id.startsWith('-')) return id
  }
}

/**
 * Formats a fresh directory with StorageTool and starts kafka.Kafka on it (heap 1 GB). share.version=2
 * is Kafka 4.4's latest production level: share groups (level 1) and KIP-1191's dead-letter topics
 * (level 2; at level 1 the group accepts errors.deadletterqueue.topic.name but never writes to it).
 */
export async function startKafka(env: JavaEnv, dir: string, o: StartOptions = {}): Promise<Broker> {
  const { certs, advertise } = o
  mkdirSync(dir, { recursive: true })
  const port = await freePort()
  const controllerPort = await otherFreePort(port)
  const ssl = certs ? { port: await otherFreePort(port, controllerPort), certs } : undefined
  const advertised = advertise ? await advertise(port) : port
  const propsFile = join(dir, 'server.properties')
  writeFileSync(propsFile, kafkaProperties(port, controllerPort, join(dir, 'data'), ssl, advertised))
  const f0 = performance.now()
  await runOk(
    env.java,
    [
      ...env.toolArgs,
      '-cp',
      env.classpath,
      'kafka.tools.StorageTool',
      'format',
      '-t',
      kafkaUuid(),
      '-c',
      propsFile,
      '--standalone',
      '--feature',
      'share.version=2',
    ],
    {
      timeoutMs: 120_000,
    },
  )
  const formatMs = performance.now() - f0
  const logFile = join(dir, 'broker.log')
  const t0 = performance.now()
  const child = spawnLogged(env.java, [...env.brokerArgs, '-cp', env.classpath, 'kafka.Kafka', propsFile], logFile)
  const startupMs = await waitStarted(child, port, t0, logFile, 'Kafka')
  const tls = ssl ? { bootstrap: `127.0.0.1:${ssl.port}`, caFile: ssl.certs.caFile } : undefined
  return wrap(child, 'kafka', `127.0.0.1:${port}`, startupMs, logFile, formatMs, tls)
}

/** The Kafka version pom.xml asks for. */
function pomKafkaVersion(): string | null {
  try {
    return /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(join(KAFKA_DIR, 'pom.xml'), 'utf8'))?.[1] ?? null
  } catch {
    return null
  }
}

function javaMajor(versionLine: string): number {
  const m = /version "(\d+)(?:\.(\d+))?/.exec(versionLine)
  if (!m) return Number.NaN
  return m[1] === '1' ? Number(m[2]) : Number(m[1])
}

/**
 * Makes the Kafka side ready: Java ≥ 17 on PATH, and bench/kafka/target (the jars and the two
 * helper classes), running Maven when they are missing or older than pom.xml or the helpers.
 * Returns the reason to skip the Kafka side instead of throwing.
 */
export async function prepareKafka(
  javaVersion: string | null,
  mavenVersion: string | null,
  say: (s: string) => void,
): Promise<JavaEnv | { skip: string }> {
  if (!javaVersion) return { skip: 'no `java` on PATH (Apache Kafka 4.x needs Java 17 or newer)' }
  const major = javaMajor(javaVersion)
  if (major < 17) return { skip: `Java ${major} found; Apache Kafka 4.x brokers need Java 17 or newer` }
  const version = pomKafkaVersion()
  if (!version) return { skip: 'bench/kafka/pom.xml is missing or names no kafka.version' }
  const lib = join(KAFKA_DIR, 'target/lib')
  const classes = join(KAFKA_DIR, 'target/classes/dev/tributary/bench')
  const needed = [
    join(lib, `kafka_2.13-${version}.jar`),
    join(lib, `kafka-tools-${version}.jar`),
    join(classes, 'BenchAdmin.class'),
    join(classes, 'FixedRateEndToEnd.class'),
    join(classes, 'ShareConsume.class'),
    join(classes, 'Rebalance848.class'),
  ]
  const newestSource = Math.max(
    statSync(join(KAFKA_DIR, 'pom.xml')).mtimeMs,
    ...readdirSync(join(KAFKA_DIR, 'src/main/java/dev/tributary/bench')).map(
      (f) => statSync(join(KAFKA_DIR, 'src/main/java/dev/tributary/bench', f)).mtimeMs,
    ),
  )
  // copy-dependencies keeps the jars' own dates, so freshness is judged by a stamp written after
  // a successful Maven run.
  const stamp = join(KAFKA_DIR, 'target/bench-ready')
  const stale = needed.some((f) => !existsSync(f)) || !existsSync(stamp) || statSync(stamp).mtimeMs < newestSource
  const haveAll = needed.every((f) => existsSync(f))
  if (stale && !mavenVersion && haveAll) say('no `mvn` on PATH: using bench/kafka/target as it is (it may be older than pom.xml)')
  else if (stale) {
    if (!mavenVersion)
      return {
        skip: 'no `mvn` on PATH to fetch Apache Kafka from Maven Central (bench/kafka/pom.xml), and bench/kafka/target/lib is not there',
      }
    say(`fetching Apache Kafka ${version} and its dependencies from Maven Central (mvn -B -q -f bench/kafka/pom.xml clean package)…`)
    try {
      await runOk('mvn', ['-B', '-q', '-f', join(KAFKA_DIR, 'pom.xml'), 'clean', 'package'], { timeoutMs: 15 * 60_000 })
    } catch (err) {
      return { skip: `Maven could not fetch Apache Kafka ${version}: ${(err as Error).message}` }
    }
    const missing = needed.filter((f) => !existsSync(f))
    if (missing.length > 0) return { skip: `Maven finished but these are missing: ${missing.join(', ')}` }
    writeFileSync(stamp, `${version}\n`)
  }
  const log4j = `-Dlog4j2.configurationFile=${join(KAFKA_DIR, 'log4j2.properties')}`
  return {
    java: 'java',
    classpath: `${lib}/*:${join(KAFKA_DIR, 'target/classes')}`,
    kafkaVersion: version,
    javaVersion,
    brokerArgs: [...KAFKA_BROKER_HEAP, ...KAFKA_JVM_PERFORMANCE_OPTS, log4j],
    toolArgs: [...KAFKA_TOOL_HEAP, ...KAFKA_JVM_PERFORMANCE_OPTS, log4j],
  }
}

/** Gives a stopped broker's port time to be reused and its page-cache writes time to settle. */
export const settle = () => sleep(500)
