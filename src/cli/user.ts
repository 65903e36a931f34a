// `tributary user create|list|delete`: SCRAM users, through AlterUserScramCredentials and
// DescribeUserScramCredentials (KIP-554) on the client's scram-users.ts, so it works against
// Apache Kafka too — what `kafka-configs.sh --entity-type users --alter --add-config
// 'SCRAM-SHA-512=[password=…]'` does. The password is salted on this side; it is read from
// --password or --password-file (first line) and never printed.
// Exit codes: 0 done, 1 the broker refused (e.g. RESOURCE_NOT_FOUND, UNACCEPTABLE_CREDENTIAL), 2 usage.
import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import { deleteScramUser, describeScramUsers, upsertScramUser } from '../client/scram-users.js'
import { SCRAM_DEFAULT_ITERATIONS, SCRAM_MAX_ITERATIONS, SCRAM_MECHANISMS, SCRAM_MIN_ITERATIONS } from '../protocol/sasl/scram-crypto.js'
import { adminCommand, type ConnectionOptions, intOption, runTool, type ToolIo, table, UsageError, withClient } from './common.js'
import type { CliDeps } from './deps.js'

const MECHANISM_NAMES: readonly string[] = SCRAM_MECHANISMS.map((m) => m.name)

interface CreateOptions extends ConnectionOptions {
  json: boolean
  mechanism: string[]
  password?: string
  passwordFile?: string
  iterations: number
}

interface DeleteOptions extends ConnectionOptions {
  json: boolean
  mechanism?: string[]
}

interface ListOptions extends ConnectionOptions {
  json: boolean
}

function mechanismOption(value: string, previous: string[] | undefined): string[] {
  const m = value.toUpperCase()
  if (!MECHANISM_NAMES.includes(m)) throw new UsageError(`--mechanism must be ${MECHANISM_NAMES.join(' or ')}, not "${value}"`)
  return [...(previous ?? []), m]
}

export function registerUserCommand(program: Command, deps: CliDeps): void {
  const user = program.command('user').description('manage SCRAM users (SASL/SCRAM-SHA-256, SCRAM-SHA-512)')
  adminCommand(user, 'create', 'create a SCRAM user, or set a new password', [
    'tributary user create alice --mechanism SCRAM-SHA-512 --password-file alice.pw',
    'tributary user create alice --password alice-secret --command-config admin.properties',
  ])
    .argument('<name>', 'user name')
    .option('--mechanism <name>', `SCRAM mechanism, repeatable (${MECHANISM_NAMES.join(', ')}); default SCRAM-SHA-512`, mechanismOption)
    .option('--password <password>', 'the password (visible to other users of this machine: prefer --password-file)')
    .option('--password-file <file>', 'read the password from the first line of this file')
    .option(
      '--iterations <n>',
      `PBKDF2 iterations (${SCRAM_MIN_ITERATIONS}..${SCRAM_MAX_ITERATIONS})`,
      intOption(SCRAM_MIN_ITERATIONS, SCRAM_MAX_ITERATIONS),
      SCRAM_DEFAULT_ITERATIONS,
    )
    .action((name: string, opts: CreateOptions) => runTool(deps, 'user create', (io) => create(name, opts, io)))
  adminCommand(user, 'list', 'list SCRAM users with their mechanisms and iterations', [
    'tributary user list',
    'tributary user list alice --json',
  ])
    .argument('[names...]', 'only these users')
    .action((names: string[], opts: ListOptions) => runTool(deps, 'user list', (io) => list(names, opts, io)))
  adminCommand(user, 'delete', "delete a user's SCRAM credentials (all its mechanisms unless --mechanism)", [
    'tributary user delete alice',
    'tributary user delete alice --mechanism SCRAM-SHA-256',
  ])
    .argument('<name>', 'user name')
    .option('--mechanism <name>', 'only this mechanism, repeatable', mechanismOption)
    .action((name: string, opts: DeleteOptions) => runTool(deps, 'user delete', (io) => remove(name, opts, io)))
}

async function readPassword(opts: CreateOptions): Promise<string> {
  if ((opts.password === undefined) === (opts.passwordFile === undefined)) {
    throw new UsageError('give exactly one of --password and --password-file')
  }
  if (opts.password !== undefined) return opts.password
  let text: string
  try {
    text = await readFile(opts.passwordFile!, 'utf8')
  } catch (err) {
    throw new UsageError(
      `cannot read --password-file ${opts.passwordFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    )
  }
  const password = text.split(/\r?\n/)[0]!
  if (password === '') throw new UsageError(`--password-file ${opts.passwordFile} has an empty first line`)
  return password
}

async function create(name: string, opts: CreateOptions, io: ToolIo): Promise<void> {
  const password = await readPassword(opts)
  const mechanisms = opts.mechanism ?? ['SCRAM-SHA-512']
  await withClient(opts, async (client) => {
    for (const mechanism of mechanisms) await upsertScramUser(client, name, { mechanism, password, iterations: opts.iterations })
  })
  if (opts.json) io.stdout(`${JSON.stringify({ user: name, mechanisms, iterations: opts.iterations })}\n`)
  else io.stdout(`User ${name}: ${mechanisms.join(', ')} credentials set (${opts.iterations} iterations)\n`)
}

async function list(names: string[], opts: ListOptions, io: ToolIo): Promise<void> {
  const users = await withClient(opts, (client) => describeScramUsers(client, names))
  if (opts.json) {
    io.stdout(`${JSON.stringify({ users }, null, 2)}\n`)
    return
  }
  io.stdout(
    table(
      ['USER', 'MECHANISM', 'ITERATIONS'],
      users.flatMap((u) => u.credentials.map((c) => [u.user, c.mechanism, c.iterations])),
    ),
  )
}

async function remove(name: string, opts: DeleteOptions, io: ToolIo): Promise<void> {
  const deleted = await withClient(opts, async (client) => {
    const mechanisms = opts.mechanism ?? (await describeScramUsers(client, [name]))[0]!.credentials.map((c) => c.mechanism)
    for (const m of mechanisms) await deleteScramUser(client, name, m)
    return mechanisms
  })
  if (opts.json) io.stdout(`${JSON.stringify({ user: name, deleted })}\n`)
  else io.stdout(`User ${name}: ${deleted.join(', ')} credentials deleted\n`)
}
