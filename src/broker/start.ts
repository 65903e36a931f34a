// Starting a broker: from the command line (`tributary start`, Kafka's config defaults: data in
// ./tributary-data, listening on 127.0.0.1:9092) or embedded in a program or test
// (`startBroker()`: a temporary data dir unless one is given, removed on close).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger, type Logger } from '../util/logger.js'
import { Broker } from './broker.js'
import { loadBrokerConfig } from './config.js'
import { VERSION } from './version.js'

export interface StartBrokerOptions {
  /** Data directory (log.dirs). Default: a new temporary directory, removed by close(). */
  dataDir?: string
  /** Port to listen on; 0 picks a free one. Default 9092 unless `config` sets listeners. */
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
}

export interface RunningBroker {
  /** host:port for clients' bootstrap.servers. */
  bootstrap: string
  port: number
  host: string
  dataDir: string
  close(): Promise<void>
}

async function launch(
  values: Record<string, string | number | boolean>,
  opts: { configFile?: string; overrides?: string[]; logger: Logger; removeOnClose?: string },
): Promise<RunningBroker> {
  const { config, warnings } = await loadBrokerConfig({ file: opts.configFile, overrides: opts.overrides, values })
  for (const w of warnings) opts.logger.warn(w)
  const broker = await Broker.start({ config, logger: opts.logger })
  const { listener, host, port } = broker.endpoint
  opts.logger.info(`Tributary ${VERSION} node ${config.nodeId} listening on ${listener}://${host}:${port}, data in ${config.logDirs[0]}`)
  return {
    bootstrap: `${host}:${port}`,
    host,
    port,
    dataDir: config.logDirs[0]!,
    async close() {
      await broker.close()
      if (opts.removeOnClose) await rm(opts.removeOnClose, { recursive: true, force: true })
    },
  }
}

/** The broker of `tributary start`: configuration from the file, the environment and overrides. */
export function startBrokerFromConfig(opts: { configFile?: string; overrides?: string[]; logger?: Logger }): Promise<RunningBroker> {
  return launch({}, { configFile: opts.configFile, overrides: opts.overrides, logger: opts.logger ?? createLogger('info') })
}

/**
 * Starts a broker in this process. `await startBroker({ port: 0 })` gives a working broker on a
 * free port with a temporary data directory, removed again by close().
 */
export async function startBroker(opts: StartBrokerOptions = {}): Promise<RunningBroker> {
  const values: Record<string, string | number | boolean> = { ...opts.config }
  let temp: string | undefined
  if (opts.dataDir !== undefined) values['log.dirs'] = opts.dataDir
  else if (values['log.dirs'] === undefined && values['log.dir'] === undefined) {
    temp = await mkdtemp(join(tmpdir(), 'tributary-'))
    values['log.dirs'] = temp
  }
  if (opts.port !== undefined || opts.host !== undefined || values.listeners === undefined) {
    values.listeners = `PLAINTEXT://${opts.host ?? '127.0.0.1'}:${opts.port ?? 9092}`
  }
  try {
    return await launch(values, {
      configFile: opts.configFile,
      overrides: opts.overrides,
      logger: opts.logger ?? createLogger('warn'),
      removeOnClose: temp,
    })
  } catch (err) {
    if (temp) await rm(temp, { recursive: true, force: true })
    throw err
  }
}
