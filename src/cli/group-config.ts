// `tributary group alter-config <group> --set key=value --delete key`: a group's configs
// (IncrementalAlterConfigs on a GROUP resource — Kafka's `kafka-configs.sh --entity-type groups`):
// consumer.* for KIP-848 groups; share.* (share.auto.offset.reset, share.record.lock.duration.ms,
// share.delivery.count.limit, …), errors.deadletterqueue.* (KIP-1191) and tributary.share.* for
// share groups. The group need not exist yet: set a queue's start before its first consumer comes.
import type { Command } from 'commander'
import { alterGroupConfigs, type ConfigChange } from '../client/admin-topics.js'
import {
  adminCommand,
  collect,
  type ConnectionOptions,
  type JsonOption,
  keyValues,
  runTool,
  ToolError,
  type ToolIo,
  UsageError,
  withClient,
} from './common.js'
import type { CliDeps } from './deps.js'

interface AlterOptions extends ConnectionOptions, JsonOption {
  set: string[]
  delete: string[]
}

export function registerGroupAlterConfig(group: Command, deps: CliDeps): void {
  adminCommand(group, 'alter-config <group>', "set or remove a group's configs (IncrementalAlterConfigs on a GROUP resource)", [
    'tributary group alter-config workers --set share.auto.offset.reset=earliest',
    'tributary group alter-config workers --set share.delivery.count.limit=3 --set errors.deadletterqueue.topic.name=dlq.workers',
    'tributary group alter-config workers --delete share.record.lock.duration.ms',
  ])
    .option('--set <key=value>', 'set a key; repeatable', collect, [])
    .option('--delete <key>', 'remove a key (back to the broker’s default); repeatable', collect, [])
    .addHelpText('after', '\nJSON output (--json):\n  {"groupId", "altered": true, "changes": [{"name", "op", "value"}]}\n')
    .action((groupId: string, opts: AlterOptions) => runTool(deps, 'group alter-config', (io) => alterConfig(groupId, opts, io)))
}

async function alterConfig(groupId: string, opts: AlterOptions, io: ToolIo): Promise<void> {
  const changes: ConfigChange[] = [
    ...keyValues(opts.set, '--set').map(([k, v]): ConfigChange => ({ name: k, op: 'set', value: v })),
    ...opts.delete.map((k): ConfigChange => ({ name: k.trim(), op: 'delete', value: null })),
  ]
  if (changes.length === 0) throw new UsageError('nothing to change: give --set key=value or --delete key')
  const seen = new Set<string>()
  for (const c of changes) {
    if (c.name === '') throw new UsageError('--delete needs a key name')
    if (seen.has(c.name)) throw new UsageError(`config ${c.name} is named twice; change each key once`)
    seen.add(c.name)
  }
  const r = await withClient(opts, (client) => alterGroupConfigs(client, groupId, changes))
  if (r.error === 'INVALID_CONFIG' || r.error === 'INVALID_REQUEST') {
    throw new ToolError(
      `invalid config change for group '${groupId}': ${r.message ?? r.error}`,
      'group configs use Kafka’s names (consumer.*, share.*, errors.deadletterqueue.*) and units',
    )
  }
  if (r.error !== null)
    throw new ToolError(`cannot change the configs of group '${groupId}': ${r.message ? `${r.error}: ${r.message}` : r.error}`)
  if (opts.json) {
    io.stdout(`${JSON.stringify({ groupId, altered: true, changes }, null, 2)}\n`)
    return
  }
  io.stdout(
    `altered group '${groupId}': ${changes.map((c) => (c.op === 'set' ? `set ${c.name}=${c.value}` : `removed ${c.name}`)).join('; ')}\n`,
  )
}
