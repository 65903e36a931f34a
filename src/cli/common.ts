// What every client-side `tributary` command shares (topic, produce, consume, group, cluster):
// the connection options, the run wrapper that turns outcomes into exit codes, errors that say
// what to do next, and plain-text tables.
//
// Conventions (README "Command line"):
//   --bootstrap-server host:port[,host:port…]  (env TRIBUTARY_BOOTSTRAP; default localhost:9092)
//   --json          machine-readable output on stdout (one JSON document, or JSON lines)
//   exit codes      0 success · 1 failure (the broker refused, timed out, or could not be reached)
//                   · 2 usage (bad option or argument)
// Human output goes to stdout; progress and errors go to stderr, so `… --json | jq` stays clean.
import type { Command } from 'commander'
import { KafkaClient } from '../client/client.js'
import { ClientError } from '../client/errors.js'
import { bootstrapDefault, INT16_MAX, INT32_MAX, intOption, splitBootstrap, UsageError } from './options.js'
import { loadClientSecurity } from './command-config.js'
import type { CliDeps } from './deps.js'

export { INT16_MAX, INT32_MAX, intOption, UsageError }

/** A failure to report without a stack trace (exit 1); `hint` says what to do about it. */
export class ToolError extends Error {
  override name = 'ToolError'
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message)
  }
}

export interface ConnectionOptions {
  bootstrapServer: string
  clientId: string
  requestTimeoutMs: number
  /** --command-config: a Kafka client properties file (security.protocol, sasl.*, ssl.*; command-config.ts). */
  commandConfig?: string
}

/** Adds --bootstrap-server, --command-config, --client-id and --request-timeout-ms. */
export function withConnectionOptions(cmd: Command, clientId = 'tributary-cli'): Command {
  return withCommandConfig(
    cmd.option('--bootstrap-server <host:port,...>', 'brokers to bootstrap from (env TRIBUTARY_BOOTSTRAP)', bootstrapDefault()),
  )
    .option('--client-id <id>', 'client id sent with every request', clientId)
    .option('--request-timeout-ms <ms>', 'timeout of each request', intOption(1, INT32_MAX), 30_000)
}

/** Adds --command-config (every command that connects to a broker has it). */
export function withCommandConfig(cmd: Command): Command {
  return cmd.option(
    '--command-config <file>',
    'Kafka client properties: security.protocol, sasl.mechanism, sasl.jaas.config, ssl.* (env TRIBUTARY_COMMAND_CONFIG, TRIBUTARY_SECURITY_PROTOCOL, TRIBUTARY_SASL_*)',
  )
}

/** What withJsonOption adds. */
export interface JsonOption {
  json: boolean
}

/** Adds --json. */
export function withJsonOption(cmd: Command): Command {
  return cmd.option('--json', 'machine-readable JSON output on stdout', false)
}

/** A subcommand of an admin command (topic, group, cluster, …): connection options, --json, examples. */
export function adminCommand(parent: Command, spec: string, description: string, examples: string[]): Command {
  return withExamples(withJsonOption(withConnectionOptions(parent.command(spec).description(description))), examples)
}

/** Appends an "Examples:" block to a command's --help. */
export function withExamples(cmd: Command, examples: string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`)
}

/** What a running command may use from the process (fakes in tests). */
export interface ToolIo {
  stdout(text: string | Uint8Array): void
  stderr(text: string): void
  /** Whether stderr is a terminal (progress bars are drawn only then). */
  isTty: boolean
  /** Registers fn to run on the first SIGINT/SIGTERM; a second signal exits 1 at once. */
  onStop(fn: () => void): void
  /** The process's stdin (produce). */
  stdin?: NodeJS.ReadableStream
}

/** The one place CLI commands open their client: bootstrap, client id, timeout and security. */
export async function connect(o: ConnectionOptions): Promise<KafkaClient> {
  const security = await loadClientSecurity(o.commandConfig)
  return KafkaClient.connect({
    bootstrap: splitBootstrap(o.bootstrapServer),
    clientId: o.clientId,
    requestTimeoutMs: o.requestTimeoutMs,
    ...(security ? { security } : {}),
  })
}

/** Connects, runs fn and closes the client whatever happens. */
export async function withClient<T>(o: ConnectionOptions, fn: (client: KafkaClient) => Promise<T>): Promise<T> {
  const client = await connect(o)
  try {
    return await fn(client)
  } finally {
    await client.close()
  }
}

/**
 * Runs one command: the exit code is what `run` returns (default 0), 2 for a UsageError, 1 for
 * any other failure, reported on stderr as `tributary <name>: <message>` plus a hint line.
 */
export async function runTool(deps: CliDeps, name: string, run: (io: ToolIo) => Promise<number | undefined | void>): Promise<void> {
  const stoppers: Array<() => void> = []
  let signalled = false
  const onSignal = () => {
    if (signalled) {
      deps.exit(1)
      return
    }
    signalled = true
    for (const fn of stoppers) fn()
  }
  deps.onSignal('SIGINT', onSignal)
  deps.onSignal('SIGTERM', onSignal)
  const io: ToolIo = {
    stdout: deps.stdout,
    stderr: deps.stderr,
    isTty: deps.isTty ?? false,
    onStop: (fn) => stoppers.push(fn),
    ...(deps.stdin ? { stdin: deps.stdin } : {}),
  }
  let code: number
  try {
    code = (await run(io)) ?? 0
  } catch (err) {
    deps.stderr(`tributary ${name}: ${describeError(err)}\n`)
    const hint = err instanceof ToolError ? err.hint : hintFor(err)
    if (hint) deps.stderr(`  ${hint}\n`)
    code = err instanceof UsageError ? 2 : 1
  }
  deps.exit(code)
}

export function describeError(err: unknown): string {
  if (err instanceof UsageError || err instanceof ToolError || err instanceof ClientError) return err.message
  if (err instanceof Error) return err.stack ?? err.message
  return String(err)
}

/** What to do about common client failures. */
function hintFor(err: unknown): string | undefined {
  if (!(err instanceof ClientError)) return undefined
  switch (err.code) {
    case 'NETWORK_EXCEPTION':
      return 'is a broker running there? Give its address with --bootstrap-server or TRIBUTARY_BOOTSTRAP'
    case 'REQUEST_TIMED_OUT':
      return 'the broker did not answer in time; raise --request-timeout-ms or check the broker'
    default:
      return undefined
  }
}

/**
 * Left-aligned plain-text columns separated by two spaces (numbers right-aligned), header first.
 * Null and undefined cells print as '-'.
 */
export function table(headers: string[], rows: Array<Array<string | number | bigint | null | undefined>>): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))))
  const numeric = headers.map(
    (_, i) => rows.length > 0 && rows.every((r) => r[i] === null || r[i] === undefined || typeof r[i] !== 'string'),
  )
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)))
  const line = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  return `${[line(headers), ...cells.map(line)].join('\n')}\n`
}

/** Parses repeated `key=value` options (--config, --header) into pairs; `what` names the option. */
export function keyValues(values: string[], what: string): Array<[string, string]> {
  return values.map((kv) => {
    const i = kv.indexOf('=')
    if (i <= 0) throw new UsageError(`${what} ${JSON.stringify(kv)}: expected key=value`)
    return [kv.slice(0, i), kv.slice(i + 1)]
  })
}

/** Commander's collector for repeatable options. */
export const collect = (value: string, previous: string[]): string[] => [...previous, value]
