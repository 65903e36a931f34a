// `tributary acl create|list|delete`: ACLs as Kafka's kafka-acls.sh manages them (its
// AclCommand's options and listing format), on the client's ACL calls (src/client/admin-acls.ts),
// so it works against Apache Kafka too.
//   tributary acl create --allow-principal User:alice --operation Read --topic orders --group app
//   tributary acl list [--topic orders] [--principal User:alice]
//   tributary acl delete --deny-principal User:bob --operation Write --topic logs- --resource-pattern-type prefixed
// Resources: --topic/--group/--transactional-id (repeatable), --cluster; names are Kafka's
// (Read, Write, All, DescribeConfigs, … in any case). create needs a principal and a resource;
// list and delete without a resource cover every resource. Pattern type: create LITERAL by
// default, list ANY, delete LITERAL (as AclCommand). Hosts: --allow-host/--deny-host (or --host
// for both), "*" by default. Exit codes: 0 done, 1 a refusal by the broker, 2 usage.
import type { Command } from 'commander'
import { createAcls, deleteAcls, describeAcls } from '../client/admin-acls.js'
import {
  type AclBinding,
  type AclBindingFilter,
  AclOperation,
  AclPermissionType,
  CLUSTER_NAME,
  PatternType,
  ResourceType,
} from '../ports/authorizer.js'
import { adminCommand, collect, type ConnectionOptions, runTool, type ToolIo, UsageError, withClient } from './common.js'
import type { CliDeps } from './deps.js'
import { describePattern, operationName, patternTypeName, permissionName, resourceTypeName } from '../security/acl/bindings.js'

interface AclOptions extends ConnectionOptions {
  json: boolean
  allowPrincipal: string[]
  denyPrincipal: string[]
  principal: string[]
  allowHost: string[]
  denyHost: string[]
  host: string[]
  operation: string[]
  topic: string[]
  group: string[]
  transactionalId: string[]
  cluster: boolean
  resourcePatternType?: string
}

type Verb = 'create' | 'list' | 'delete'

const OPERATIONS = new Map(Object.entries(AclOperation).map(([name, code]) => [name.replaceAll('_', '').toLowerCase(), code]))
const PATTERNS = new Map(Object.entries(PatternType).map(([name, code]) => [name.toLowerCase(), code]))

export function registerAclCommand(program: Command, deps: CliDeps): void {
  const acl = program.command('acl').description("manage ACLs (as Kafka's kafka-acls.sh)")
  const specs: Array<[Verb, string, string[]]> = [
    [
      'create',
      'add ACLs: each principal × host × operation × resource',
      ['tributary acl create --allow-principal User:alice --operation Read --topic orders'],
    ],
    [
      'list',
      'list the ACLs (of the resources given, or all)',
      ['tributary acl list --topic orders', 'tributary acl list --principal User:alice'],
    ],
    [
      'delete',
      'remove the ACLs matching the options',
      ['tributary acl delete --allow-principal User:alice --operation Read --topic orders'],
    ],
  ]
  for (const [verb, description, examples] of specs) {
    adminCommand(acl, verb, description, examples)
      .option('--allow-principal <principal>', 'Type:name allowed (repeatable)', collect, [])
      .option('--deny-principal <principal>', 'Type:name denied (repeatable)', collect, [])
      .option('--principal <principal>', 'list: only ACLs of this principal (repeatable)', collect, [])
      .option('--allow-host <host>', 'host of the allow principals (default *)', collect, [])
      .option('--deny-host <host>', 'host of the deny principals (default *)', collect, [])
      .option('--host <host>', 'host of every principal (default *)', collect, [])
      .option(
        '--operation <op>',
        'Read, Write, Create, Delete, Alter, Describe, ClusterAction, DescribeConfigs, AlterConfigs, IdempotentWrite, All (repeatable)',
        collect,
        [],
      )
      .option('--topic <name>', 'a topic (repeatable)', collect, [])
      .option('--group <name>', 'a consumer group (repeatable)', collect, [])
      .option('--transactional-id <id>', 'a transactional id (repeatable)', collect, [])
      .option('--cluster', 'the cluster', false)
      .option('--resource-pattern-type <type>', 'literal, prefixed (create); also any, match (list, delete)')
      .action((opts: AclOptions) => runTool(deps, `acl ${verb}`, (io) => run(verb, opts, io)))
  }
}

function operationsOf(opts: AclOptions, verb: Verb): number[] {
  if (opts.operation.length === 0) return [verb === 'create' ? AclOperation.ALL : AclOperation.ANY]
  return opts.operation.map((o) => {
    const code = OPERATIONS.get(o.replaceAll('_', '').replaceAll('-', '').toLowerCase())
    if (code === undefined || code === AclOperation.UNKNOWN) throw new UsageError(`unknown operation '${o}'`)
    return code
  })
}

function patternOf(opts: AclOptions, verb: Verb): number {
  if (opts.resourcePatternType === undefined) return verb === 'list' ? PatternType.ANY : PatternType.LITERAL
  const code = PATTERNS.get(opts.resourcePatternType.toLowerCase())
  const allowed =
    verb === 'create'
      ? [PatternType.LITERAL, PatternType.PREFIXED]
      : [PatternType.LITERAL, PatternType.PREFIXED, PatternType.ANY, PatternType.MATCH]
  if (code === undefined || !allowed.includes(code as 1))
    throw new UsageError(`--resource-pattern-type must be ${allowed.map((c) => patternTypeName(c).toLowerCase()).join(', ')}`)
  return code
}

function resourcesOf(opts: AclOptions): Array<[number, string]> {
  return [
    ...opts.topic.map((n): [number, string] => [ResourceType.TOPIC, n]),
    ...opts.group.map((n): [number, string] => [ResourceType.GROUP, n]),
    ...opts.transactionalId.map((n): [number, string] => [ResourceType.TRANSACTIONAL_ID, n]),
    ...(opts.cluster ? [[ResourceType.CLUSTER, CLUSTER_NAME] as [number, string]] : []),
  ]
}

/** The (principal, host, permission) entries the options name; empty when they name none. */
function entriesOf(opts: AclOptions): Array<{ principal: string; host: string; permissionType: number }> {
  const hosts = (own: string[]) => (own.length > 0 ? own : opts.host.length > 0 ? opts.host : ['*'])
  const out = []
  for (const [principals, own, permissionType] of [
    [opts.allowPrincipal, opts.allowHost, AclPermissionType.ALLOW],
    [opts.denyPrincipal, opts.denyHost, AclPermissionType.DENY],
  ] as const) {
    for (const principal of principals) {
      if (!/^[^:]+:.+$/.test(principal)) throw new UsageError(`principal '${principal}' must be Type:name, e.g. User:alice`)
      for (const host of hosts(own)) out.push({ principal, host, permissionType })
    }
  }
  return out
}

async function run(verb: Verb, opts: AclOptions, io: ToolIo): Promise<number> {
  const ops = operationsOf(opts, verb)
  const patternType = patternOf(opts, verb)
  const resources = resourcesOf(opts)
  const entries = entriesOf(opts)
  if (verb === 'create') {
    if (entries.length === 0) throw new UsageError('create needs --allow-principal or --deny-principal')
    if (resources.length === 0) throw new UsageError('create needs a resource: --topic, --group, --transactional-id or --cluster')
    const bindings: AclBinding[] = []
    for (const [resourceType, resourceName] of resources)
      for (const e of entries) for (const operation of ops) bindings.push({ resourceType, resourceName, patternType, operation, ...e })
    await withClient(opts, (client) => createAcls(client, bindings))
    print(io, opts, `Adding ACLs for ${bindings.length === 1 ? 'one binding' : `${bindings.length} bindings`}:`, bindings)
    return 0
  }
  const anyResource: Array<[number, string | null]> = resources.length > 0 ? resources : [[ResourceType.ANY, null]]
  const who =
    verb === 'list' ? opts.principal.map((principal) => ({ principal, host: null, permissionType: AclPermissionType.ANY })) : entries
  const filters: AclBindingFilter[] = []
  for (const [resourceType, resourceName] of anyResource)
    for (const e of who.length > 0 ? who : [{ principal: null, host: null, permissionType: AclPermissionType.ANY }])
      for (const operation of ops) filters.push({ resourceType, resourceName, patternType, operation, ...e })
  const found = await withClient(opts, async (client) =>
    verb === 'list' ? (await Promise.all(filters.map((f) => describeAcls(client, f)))).flat() : deleteAcls(client, filters),
  )
  print(io, opts, verb === 'list' ? 'Current ACLs:' : 'Removed ACLs:', found)
  return 0
}

/** Kafka's AclCommand listing: per resource pattern, its entries. */
function print(io: ToolIo, opts: AclOptions, title: string, bindings: AclBinding[]): void {
  if (opts.json) {
    const named = bindings.map((b) => ({
      resourceType: resourceTypeName(b.resourceType),
      resourceName: b.resourceName,
      patternType: patternTypeName(b.patternType),
      principal: b.principal,
      host: b.host,
      operation: operationName(b.operation),
      permissionType: permissionName(b.permissionType),
    }))
    io.stdout(`${JSON.stringify({ acls: named }, null, 2)}\n`)
    return
  }
  const byPattern = new Map<string, AclBinding[]>()
  for (const b of bindings) {
    const key = describePattern(b)
    byPattern.set(key, [...(byPattern.get(key) ?? []), b])
  }
  let out = `${title}\n`
  for (const [pattern, list] of byPattern) {
    out += `resource \`${pattern}\`:\n`
    for (const b of list)
      out += `\t(principal=${b.principal}, host=${b.host}, operation=${operationName(b.operation)}, permissionType=${permissionName(b.permissionType)})\n`
  }
  io.stdout(out)
}
