// `tributary quota set | list`: client quotas (user, client-id, ip entities and their defaults),
// shaped like Kafka's `kafka-configs --alter --add-config k=v --delete-config k` and `--describe`
// with its entity options (--user, --user-defaults, --client, --client-defaults, --ip,
// --ip-defaults; --client-id is the tool's own client id, as in every command), on the client's alterClientQuotas /
// describeClientQuotas (src/client/admin-quotas.ts), so it works against Apache Kafka too. The
// broker checks keys and values (Kafka's rules and messages); the tool only checks its own syntax.
// Exit codes: 0 done, 1 the broker refused the alteration (its reason printed), 2 usage.
import type { Command } from 'commander'
import { alterClientQuotas, type ClientQuotaEntity, describeClientQuotas } from '../client/admin-quotas.js'
import {
  adminCommand,
  collect,
  type ConnectionOptions,
  keyValues,
  runTool,
  type ToolIo,
  table,
  ToolError,
  UsageError,
  withClient,
  withExamples,
} from './common.js'
import type { CliDeps } from './deps.js'

interface EntityOptions {
  user?: string
  userDefaults?: boolean
  client?: string
  clientDefaults?: boolean
  ip?: string
  ipDefaults?: boolean
}

interface SetOptions extends ConnectionOptions, EntityOptions {
  json: boolean
  producerByteRate?: number
  consumerByteRate?: number
  requestPercentage?: number
  controllerMutationRate?: number
  connectionCreationRate?: number
  add: string[]
  delete: string[]
  validateOnly?: boolean
}

interface ListOptions extends ConnectionOptions, EntityOptions {
  json: boolean
  strict?: boolean
}

/** The named options of the quota keys (--add KEY=VALUE takes any key; the broker checks it). */
const KEY_OPTIONS = [
  ['producerByteRate', 'producer_byte_rate', 'bytes per second a client may produce'],
  ['consumerByteRate', 'consumer_byte_rate', 'bytes per second a client may fetch'],
  ['requestPercentage', 'request_percentage', "percent of one broker thread's time per quota window"],
  ['controllerMutationRate', 'controller_mutation_rate', 'partitions per second created or deleted (KIP-599)'],
  ['connectionCreationRate', 'connection_creation_rate', 'connections per second from an ip (KIP-612)'],
] as const

function numberOption(value: string): number {
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n)) throw new UsageError(`${JSON.stringify(value)} is not a number`)
  return n
}

function withEntityOptions(cmd: Command): Command {
  return cmd
    .option('--user <name>', 'the user principal name (e.g. ANONYMOUS)')
    .option('--user-defaults', 'the default of all users')
    .option('--client <client-id>', "a client id (the clients' client.id)")
    .option('--client-defaults', 'the default of all client ids')
    .option('--ip <address>', 'a client address (connection_creation_rate only)')
    .option('--ip-defaults', 'the default of all addresses')
}

/** The entity named by the options; for `list`, absent types are left out of the filter. */
function entityOf(o: EntityOptions): ClientQuotaEntity {
  const entity: ClientQuotaEntity = {}
  const one = (type: string, option: string, name: string | undefined, dflt: boolean | undefined) => {
    if (name !== undefined && dflt) throw new UsageError(`--${option} and --${option}-defaults name two entities; give one`)
    if (name !== undefined) entity[type] = name
    else if (dflt) entity[type] = null
  }
  one('user', 'user', o.user, o.userDefaults)
  one('client-id', 'client', o.client, o.clientDefaults)
  one('ip', 'ip', o.ip, o.ipDefaults)
  return entity
}

export function formatQuotaEntity(entity: ClientQuotaEntity): string {
  return Object.entries(entity)
    .map(([type, name]) => `${type}=${name ?? '<default>'}`)
    .join(', ')
}

export function registerQuotaCommand(program: Command, deps: CliDeps): void {
  const quota = withExamples(
    program.command('quota').description('set and list client quotas (byte rates, request time, mutations, connections)'),
    ['tributary quota set --client app --producer-byte-rate 1048576', 'tributary quota list'],
  )
  const set = adminCommand(quota, 'set', 'set or delete quota values of one entity (kafka-configs --alter)', [
    'tributary quota set --user alice --client app --producer-byte-rate 1048576',
    'tributary quota set --user-defaults --consumer-byte-rate 10485760',
    'tributary quota set --client app --delete producer_byte_rate',
    'tributary quota set --ip-defaults --connection-creation-rate 50',
  ])
  withEntityOptions(set)
  for (const [, key, doc] of KEY_OPTIONS) set.option(`--${key.replaceAll('_', '-')} <value>`, `${key}: ${doc}`, numberOption)
  set
    .option('--add <key=value>', 'set any quota key (repeatable)', collect, [])
    .option('--delete <key>', 'remove a quota key (repeatable)', collect, [])
    .option('--validate-only', 'let the broker check the change without making it')
    .action((opts: SetOptions) => runTool(deps, 'quota set', (io) => runSet(opts, io)))
  void KEY_OPTIONS.map(([prop]) => prop)
  const list = adminCommand(quota, 'list', 'list quota entities and their values (kafka-configs --describe)', [
    'tributary quota list',
    'tributary quota list --user alice',
    'tributary quota list --client-defaults --strict',
  ])
  withEntityOptions(list)
    .option('--strict', 'only entities of exactly the types given')
    .action((opts: ListOptions) => runTool(deps, 'quota list', (io) => runList(opts, io)))
}

async function runSet(opts: SetOptions, io: ToolIo): Promise<number> {
  const entity = entityOf(opts)
  if (Object.keys(entity).length === 0) throw new UsageError('name an entity: --user, --client, --ip or their --*-defaults')
  const ops: Record<string, number | null> = {}
  for (const [prop, key] of KEY_OPTIONS) {
    const v = opts[prop]
    if (v !== undefined) ops[key] = v
  }
  for (const [key, value] of keyValues(opts.add, '--add')) ops[key] = numberOption(value)
  for (const key of opts.delete) {
    if (key in ops) throw new UsageError(`${key} is both set and deleted`)
    ops[key] = null
  }
  if (Object.keys(ops).length === 0) throw new UsageError('nothing to change: give a quota value, --add or --delete')
  const [result] = await withClient(opts, (client) => alterClientQuotas(client, [{ entity, ops }], { validateOnly: opts.validateOnly }))
  if (!result) throw new ToolError('the broker answered no result for the entity')
  if (opts.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`)
  if (result.error !== null) {
    io.stderr(`tributary quota set: ${formatQuotaEntity(entity)}: ${result.error}${result.message ? `: ${result.message}` : ''}\n`)
    return 1
  }
  if (!opts.json) io.stdout(`${opts.validateOnly ? 'Validated' : 'Updated'} quotas of ${formatQuotaEntity(entity)}\n`)
  return 0
}

async function runList(opts: ListOptions, io: ToolIo): Promise<number> {
  const entries = await withClient(opts, (client) => describeClientQuotas(client, entityOf(opts), { strict: opts.strict }))
  entries.sort((a, b) => formatQuotaEntity(a.entity).localeCompare(formatQuotaEntity(b.entity)))
  if (opts.json) {
    io.stdout(`${JSON.stringify(entries, null, 2)}\n`)
    return 0
  }
  if (entries.length === 0) {
    io.stdout('no quotas\n')
    return 0
  }
  const name = (n: string | null | undefined) => (n === undefined ? null : (n ?? '<default>'))
  const rows = entries.flatMap((e) =>
    Object.entries(e.values)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, value]) => [name(e.entity.user), name(e.entity['client-id']), name(e.entity.ip), key, String(value)]),
  )
  io.stdout(table(['USER', 'CLIENT-ID', 'IP', 'KEY', 'VALUE'], rows))
  return 0
}
