// The `tributary` command line, built with commander. Kept apart from main.ts (the executable) so
// tests can run it with a fake startBroker, fake signals and a fake exit.
//
//   tributary start [server.properties] [--config <file>] [--override key=value ...]
//   tributary perf produce | consume | e2e [options]   (see perf/command.ts)
//   tributary dev-certs --dir DIR [--host H ...]     (development TLS certificates, dev-certs.ts)
//   tributary acl create | list | delete [options]     (see acl.ts)
//   tributary --version
//
// `start` takes its config file either positionally, as kafka-server-start.sh does
// (`tributary start server.properties --override log.retention.hours=1`), or with --config.
// Exit codes: 0 clean shutdown, 1 startup/shutdown failure or a second signal, 2 bad configuration
// or usage (the message is printed without a stack trace).
import { Command, CommanderError } from 'commander'
import { ConfigError, parseOverride } from '../config/config.js'
import { MetadataFileError } from '../cluster/local-store.js'
import { createLogger, type LogLevel } from '../util/logger.js'
import type { CliDeps, CliRunningBroker } from './deps.js'

export type { CliDeps, CliRunningBroker, CliStartOptions } from './deps.js'

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent']

const collect = (value: string, previous: string[]): string[] => [...previous, value]

/** Parses argv (process.argv form) and runs the command; resolves once the command is running. */
export async function runCli(argv: readonly string[], deps: CliDeps): Promise<void> {
  const program = new Command()
  program
    .name('tributary')
    .description('A Kafka-wire-compatible commit log broker')
    .version(deps.version, '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: deps.stdout, writeErr: deps.stderr })

  program
    .command('start')
    .description('start a broker (127.0.0.1:9092, data in ./tributary-data unless configured)')
    .argument('[server.properties]', 'config file, as kafka-server-start.sh takes it')
    .option('-c, --config <file>', 'config file (Java properties, Kafka key names)')
    .option('--override <key=value>', 'set one config key; repeatable; wins over file and environment', collect, [])
    .option('--log-level <level>', `log level: ${LEVELS.join(', ')}`, 'info')
    .action(async (positional: string | undefined, opts: { config?: string; override: string[]; logLevel: string }) => {
      await startCommand(positional, opts, deps)
    })

  // The client-side commands (and the client library under them) are loaded only when the command
  // line may name one: `tributary start` does not pay for them (a third of its start-up time).
  if (argv[2] !== 'start') {
    const [topic, produce, consume, group, cluster, perf, producers, transactions, user, devCerts, quota, acl] = await Promise.all([
      import('./topic.js'),
      import('./produce.js'),
      import('./consume.js'),
      import('./group.js'),
      import('./cluster.js'),
      import('./perf/command.js'),
      import('./producers.js'),
      import('./transactions.js'),
      import('./user.js'),
      import('./dev-certs.js'),
      import('./quota.js'),
      import('./acl.js'),
    ])
    topic.registerTopicCommand(program, deps)
    produce.registerProduceCommand(program, deps)
    consume.registerConsumeCommand(program, deps)
    group.registerGroupCommand(program, deps)
    cluster.registerClusterCommand(program, deps)
    perf.registerPerfCommand(program, deps)
    producers.registerProducersCommand(program, deps)
    transactions.registerTransactionsCommand(program, deps)
    user.registerUserCommand(program, deps)
    devCerts.registerDevCertsCommand(program, deps)
    quota.registerQuotaCommand(program, deps)
    acl.registerAclCommand(program, deps)
  }

  try {
    await program.parseAsync([...argv])
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and --version end with exitCode 0; usage errors are already printed by commander.
      deps.exit(err.exitCode === 0 ? 0 : 2)
      return
    }
    reportStartupError(err, deps)
  }
}

async function startCommand(
  positional: string | undefined,
  opts: { config?: string; override: string[]; logLevel: string },
  deps: CliDeps,
): Promise<void> {
  if (positional !== undefined && opts.config !== undefined && positional !== opts.config) {
    throw new ConfigError(`Two config files given (${positional} and --config ${opts.config}); give one`)
  }
  if (!(LEVELS as readonly string[]).includes(opts.logLevel)) {
    throw new ConfigError(`Invalid --log-level ${JSON.stringify(opts.logLevel)}: expected one of ${LEVELS.join(', ')}`)
  }
  for (const o of opts.override) parseOverride(o) // refuse `--override foo` before starting anything
  const configFile = positional ?? opts.config
  const logger = (deps.createLogger ?? createLogger)(opts.logLevel as LogLevel)

  // Signals: the first one closes the broker once (after start finishes, if it is still starting)
  // and exits 0; a second one exits 1 at once.
  let broker: CliRunningBroker | undefined
  let stopping = false
  const stop = () => {
    if (!broker) return
    broker.close().then(
      () => deps.exit(0),
      (err: unknown) => {
        logger.error('shutdown failed', { err: err instanceof Error ? err : String(err) })
        deps.exit(1)
      },
    )
  }
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => () => {
    if (stopping) {
      logger.warn(`${signal} again: exiting without finishing shutdown`)
      deps.exit(1)
      return
    }
    stopping = true
    logger.info(`${signal} received: shutting down`)
    stop()
  }
  deps.onSignal('SIGTERM', onSignal('SIGTERM'))
  deps.onSignal('SIGINT', onSignal('SIGINT'))

  broker = await deps.startBroker({
    ...(configFile !== undefined ? { configFile } : {}),
    overrides: opts.override,
    logger,
  })
  if (stopping) stop()
}

function reportStartupError(err: unknown, deps: CliDeps): void {
  const isConfigError = err instanceof ConfigError || (err instanceof Error && err.name === 'ConfigError')
  // By name, so the etcd modules load only when etcd is configured.
  const isEtcdError = err instanceof Error && (err.name === 'EtcdMetadataError' || err.name === 'BrokerIdInUseError')
  if (isConfigError || err instanceof MetadataFileError || isEtcdError) {
    deps.stderr(`tributary: ${(err as Error).message}\n`)
    deps.exit(isConfigError ? 2 : 1)
    return
  }
  const text = err instanceof Error ? (err.stack ?? err.message) : String(err)
  deps.stderr(`tributary: failed to start: ${text}\n`)
  deps.exit(1)
}
