// Starting a broker: from the command line (`tributary start`, Kafka's config defaults: data in
// ./tributary-data, listening on 127.0.0.1:9092) or embedded in a program or test
// (`startBroker()`: a temporary data dir unless one is given, removed on close).
//
// `startBroker({ storage: 'memory' })` is the test broker: logs, checkpoints and cluster metadata
// go through a MemoryFs instead of the disk (the whole storage layer only sees the Fs port), so
// nothing is written anywhere and start-up costs no file system calls. Such a broker listens on a
// free port unless told otherwise — a test broker should never collide with another one — and
// starts a new group's first rebalance at once (MEMORY_BROKER_DEFAULTS).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Fs } from '../storage/fs.js'
import { MemoryFs } from '../storage/memory-fs.js'
import { createLogger, type Logger } from '../util/logger.js'
import { Broker } from './broker.js'
import { type BrokerConfigName, loadBrokerConfig } from '../config/config.js'
import { VERSION } from '../config/version.js'

/** What RunningBroker.dataDir says for a broker with storage: 'memory'. */
export const MEMORY_DATA_DIR = 'memory:'

/**
 * Defaults of a storage: 'memory' broker that differ from Kafka's, for keys nothing else sets.
 * Kafka's docs advise group.initial.rebalance.delay.ms=0 "during development and testing"; with
 * the default 3 s every test that uses a consumer group would wait 3 s for its first assignment.
 */
export const MEMORY_BROKER_DEFAULTS: Readonly<Record<string, number>> = { 'group.initial.rebalance.delay.ms': 0 }

export interface StartBrokerOptions {
  /**
   * Where logs and metadata live: 'disk' (default; see dataDir) or 'memory' (nothing touches the
   * disk, everything is gone after close(); for tests).
   */
  storage?: 'disk' | 'memory'
  /** Data directory (log.dirs). Default: a new temporary directory, removed by close(). Disk only. */
  dataDir?: string
  /**
   * Port to listen on; 0 picks a free one. Default: 9092 on disk, 0 (a free port) in memory, unless
   * `config` sets listeners.
   */
  port?: number
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string
  /** Broker config keys, Kafka's names (e.g. { 'num.partitions': 3 }). */
  config?: Record<string, string | number | boolean>
  /** A server.properties file. */
  configFile?: string
  /** `key=value` overrides, as `--override` takes them. */
  overrides?: string[]
  /** Default: warnings and errors to stderr. */
  logger?: Logger
  /**
   * The HTTP listener (REST, push, console, metrics): true for one on a free port of `host`, a
   * number for that port. Default: off, unless `config` sets tributary.http.listeners.
   */
  http?: boolean | number
}

export interface RunningBroker {
  /** host:port for clients' bootstrap.servers. */
  bootstrap: string
  port: number
  host: string
  /** The data directory, or 'memory:' (MEMORY_DATA_DIR) for storage: 'memory'. */
  dataDir: string
  /** The HTTP listener's base URL (http://host:port), when it has one. */
  http?: string
  /** Stops the broker and removes what it owned (a temporary data dir, or all of its memory). */
  close(): Promise<void>
}

interface LaunchOptions {
  configFile?: string
  overrides?: string[]
  logger: Logger
  /** A temporary data dir to remove on close. */
  removeOnClose?: string
  /** The in-memory file system of a storage: 'memory' broker. */
  memory?: MemoryFs
  /** The file system of a disk broker (default: the disk, nodeFs). */
  fs?: Fs
  /** What to do when the log dir fails (BrokerDeps.onLogDirFailure). */
  onLogDirFailure?: (err: Error) => void
}

async function launch(values: Record<string, string | number | boolean>, opts: LaunchOptions): Promise<RunningBroker> {
  // The config file, if any, is the user's and is read from the disk even for a memory broker.
  let { config, warnings } = await loadBrokerConfig({ file: opts.configFile, overrides: opts.overrides, values })
  if (opts.memory) {
    const testDefaults = Object.entries(MEMORY_BROKER_DEFAULTS).filter(([k]) => !config.isSet(k as BrokerConfigName))
    if (testDefaults.length > 0) {
      const more = { ...Object.fromEntries(testDefaults), ...values }
      ;({ config, warnings } = await loadBrokerConfig({ file: opts.configFile, overrides: opts.overrides, values: more }))
    }
  }
  for (const w of warnings) opts.logger.warn(w)
  const fs: Fs | undefined = opts.memory ?? opts.fs
  const broker = await Broker.start({
    config,
    logger: opts.logger,
    ...(fs ? { fs } : {}),
    ...(opts.onLogDirFailure ? { onLogDirFailure: opts.onLogDirFailure } : {}),
  })
  const { listener, host, port } = broker.endpoint
  const dataDir = opts.memory ? MEMORY_DATA_DIR : config.logDirs[0]!
  // The HTTP URLs first: the "listening on" line is the one that says the broker is up.
  const http = broker.http?.urls[0]
  if (http !== undefined) opts.logger.info(`console ${http}/ · REST ${http}/v3 · metrics ${http}/metrics`)
  opts.logger.info(
    `Tributary ${VERSION} node ${config.nodeId} listening on ${listener}://${host}:${port}, data ${opts.memory ? 'in memory' : `in ${dataDir}`}`,
  )
  return {
    bootstrap: `${host}:${port}`,
    host,
    port,
    dataDir,
    ...(http !== undefined ? { http } : {}),
    async close() {
      // The broker's own timers never keep the process alive (Clock port); while close() is being
      // awaited, this one does, so a test runner does not see an empty event loop mid-shutdown.
      const keepAlive = setInterval(() => {}, 1_000)
      try {
        await broker.close()
        if (opts.removeOnClose) await rm(opts.removeOnClose, { recursive: true, force: true })
        opts.memory?.clear()
      } finally {
        clearInterval(keepAlive)
      }
    },
  }
}

/**
 * The broker of `tributary start`: configuration from the file, the environment and overrides.
 * `fs` puts another file system under it (the chaos tests' disk faults); the command never does.
 */
export function startBrokerFromConfig(opts: {
  configFile?: string
  overrides?: string[]
  logger?: Logger
  fs?: Fs
}): Promise<RunningBroker> {
  return launch(
    {},
    {
      configFile: opts.configFile,
      overrides: opts.overrides,
      logger: opts.logger ?? createLogger('info'),
      ...(opts.fs ? { fs: opts.fs } : {}),
      // The broker is this process: it halts as Kafka's does when its only log dir fails — no clean
      // shutdown, whose flushes and checkpoints would write to the failed dir — and the logs are
      // recovered from their last fsync at the next start.
      onLogDirFailure: () => process.exit(1),
    },
  )
}

/**
 * Starts a broker in this process. `await startBroker({ port: 0 })` gives a working broker on a
 * free port with a temporary data directory, removed again by close();
 * `await startBroker({ storage: 'memory' })` one on a free port that keeps everything in memory.
 */
export async function startBroker(opts: StartBrokerOptions = {}): Promise<RunningBroker> {
  const storage = opts.storage ?? 'disk'
  if (storage !== 'disk' && storage !== 'memory') {
    throw new TypeError(`startBroker: storage must be 'disk' or 'memory', not ${JSON.stringify(storage)}`)
  }
  if (storage === 'memory' && opts.dataDir !== undefined) {
    throw new TypeError(`startBroker: dataDir is for storage: 'disk'; a broker with storage: 'memory' writes no files`)
  }
  const values: Record<string, string | number | boolean> = { ...opts.config }
  let temp: string | undefined
  let memory: MemoryFs | undefined
  if (storage === 'memory') {
    memory = new MemoryFs()
    // log.dirs only names the root of the in-memory tree.
    if (values['log.dirs'] === undefined && values['log.dir'] === undefined) values['log.dirs'] = MEMORY_DATA_DIR
  } else if (opts.dataDir !== undefined) values['log.dirs'] = opts.dataDir
  else if (values['log.dirs'] === undefined && values['log.dir'] === undefined) {
    temp = await mkdtemp(join(tmpdir(), 'tributary-'))
    values['log.dirs'] = temp
  }
  if (opts.http !== undefined && opts.http !== false) {
    values['tributary.http.listeners'] = `http://${opts.host ?? '127.0.0.1'}:${opts.http === true ? 0 : opts.http}`
  } else if (values['tributary.http.listeners'] === undefined) values['tributary.http.listeners'] = ''
  if (opts.port !== undefined || opts.host !== undefined || values.listeners === undefined) {
    const defaultPort = storage === 'memory' ? 0 : 9092
    values.listeners = `PLAINTEXT://${opts.host ?? '127.0.0.1'}:${opts.port ?? defaultPort}`
  }
  try {
    return await launch(values, {
      configFile: opts.configFile,
      overrides: opts.overrides,
      logger: opts.logger ?? createLogger('warn'),
      removeOnClose: temp,
      memory,
    })
  } catch (err) {
    if (temp) await rm(temp, { recursive: true, force: true })
    memory?.clear()
    throw err
  }
}
