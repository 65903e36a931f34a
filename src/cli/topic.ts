// `tributary topic create | list | describe | delete | alter-config | add-partitions`, the
// counterpart of Kafka's kafka-topics.sh and kafka-configs.sh for topics, on the client
// in src/client (admin-topics.ts). Works against Tributary and Apache Kafka alike.
//
// Outcomes (common.ts): human tables on stdout, or one JSON document with --json; errors on
// stderr as what went wrong plus what to do; exit 0 success, 1 the broker refused (or could not
// be reached), 2 usage. A topic that does not exist is always "topic 'x' does not exist" with the
// hint to list topics, whichever request found out.
import type { Command } from 'commander'
import {
  alterTopicConfigs,
  type ConfigChange,
  createPartitions,
  createTopic,
  deleteTopics,
  describeTopics,
  listTopics,
  type TopicDescription,
  type TopicOutcome,
} from '../client/admin-topics.js'
import type { KafkaClient } from '../client/client.js'
import { ClientError } from '../client/errors.js'
import {
  adminCommand,
  collect,
  type ConnectionOptions,
  INT16_MAX,
  INT32_MAX,
  intOption,
  type JsonOption,
  keyValues,
  runTool,
  table,
  ToolError,
  type ToolIo,
  UsageError,
  withClient,
  withExamples,
} from './common.js'
import type { CliDeps } from './deps.js'

const LIST_HINT = 'list topics with: tributary topic list'
const notFound = (name: string) => new ToolError(`topic '${name}' does not exist`, LIST_HINT)

export function registerTopicCommand(program: Command, deps: CliDeps): void {
  const topic = withExamples(program.command('topic').description('create, list, describe, delete and change topics'), [
    'tributary topic create events --partitions 3 --config retention.ms=86400000',
    'tributary topic list',
    'tributary topic describe events',
    'tributary topic alter-config events --set retention.ms=3600000 --delete cleanup.policy',
    'tributary topic add-partitions events --to 6',
    'tributary topic delete events',
  ])

  adminCommand(topic, 'create <name>', 'create a topic (CreateTopics, sent to the controller)', [
    'tributary topic create events',
    'tributary topic create events --partitions 6 --replication-factor 3 --config cleanup.policy=compact',
    'tributary topic create events --if-not-exists --json',
  ])
    .option('--partitions <n>', 'number of partitions (default: the broker’s num.partitions)', intOption(1, INT32_MAX))
    .option(
      '--replication-factor <n>',
      'replicas per partition (default: the broker’s default.replication.factor)',
      intOption(1, INT16_MAX),
    )
    .option('--config <key=value>', 'topic config override, Kafka’s names; repeatable', collect, [])
    .option('--if-not-exists', 'succeed without doing anything if the topic exists', false)
    .addHelpText('after', jsonHelp('{"name", "created": true|false, "partitions", "replicationFactor", "topicId"}'))
    .action((name: string, opts: CreateOptions) => runTool(deps, 'topic create', (io) => create(name, opts, io)))

  adminCommand(topic, 'list', 'list topics with their partition count and replication factor (Metadata)', [
    'tributary topic list',
    'tributary topic list --internal --json',
  ])
    .option('--internal', 'include internal topics (__consumer_offsets, …)', false)
    .addHelpText('after', jsonHelp('[{"name", "topicId", "internal", "partitions", "replicationFactor"}, …] sorted by name'))
    .action((opts: ListOptions) => runTool(deps, 'topic list', (io) => list(opts, io)))

  adminCommand(topic, 'describe <names...>', 'partitions (leader, replicas, ISR, offsets, size on disk) and non-default configs', [
    'tributary topic describe events',
    'tributary topic describe events orders --json',
  ])
    .addHelpText(
      'after',
      jsonHelp(
        '[{"name", "topicId", "internal", "replicationFactor", "sizeBytes", "partitions": [{"partition", "leader",\n' +
          '    "leaderEpoch", "replicas", "isr", "offlineReplicas", "error", "earliestOffset", "latestOffset", "sizeBytes"}],\n' +
          '    "configs": [{"name", "value", "source", "sensitive", "readOnly"}], "configsError"}, …]\n' +
          '  sizeBytes is the leader’s copy (DescribeLogDirs); configs lists those whose source is not DEFAULT_CONFIG.',
      ),
    )
    .action((names: string[], opts: JsonOption & ConnectionOptions) => runTool(deps, 'topic describe', (io) => describe(names, opts, io)))

  adminCommand(topic, 'delete <names...>', 'delete topics (DeleteTopics, sent to the controller)', [
    'tributary topic delete events',
    'tributary topic delete events orders --if-exists',
  ])
    .option('--if-exists', 'succeed for topics that do not exist', false)
    .addHelpText('after', jsonHelp('[{"name", "deleted": true|false, "error", "message"}, …] (error and message null on success)'))
    .action((names: string[], opts: DeleteOptions) => runTool(deps, 'topic delete', (io) => remove(names, opts, io)))

  adminCommand(topic, 'alter-config <name>', 'set or remove topic config overrides (IncrementalAlterConfigs)', [
    'tributary topic alter-config events --set retention.ms=3600000 --set max.message.bytes=2097152',
    'tributary topic alter-config events --delete retention.ms',
    'tributary topic alter-config events --append cleanup.policy=compact',
  ])
    .option('--set <key=value>', 'set a key; repeatable', collect, [])
    .option('--delete <key>', 'remove an override (back to the default); repeatable', collect, [])
    .option('--append <key=value>', 'add a value to a list-typed key; repeatable', collect, [])
    .option('--subtract <key=value>', 'remove a value from a list-typed key; repeatable', collect, [])
    .addHelpText('after', jsonHelp('{"name", "altered": true, "changes": [{"name", "op", "value"}]}'))
    .action((name: string, opts: AlterOptions) => runTool(deps, 'topic alter-config', (io) => alterConfig(name, opts, io)))

  adminCommand(topic, 'add-partitions <name>', 'raise the partition count of a topic (CreatePartitions)', [
    'tributary topic add-partitions events --to 12',
  ])
    .requiredOption('--to <n>', 'the new total number of partitions (must be more than now)', intOption(1, INT32_MAX))
    .addHelpText('after', jsonHelp('{"name", "partitions", "previousPartitions"}'))
    .action((name: string, opts: AddPartitionsOptions) => runTool(deps, 'topic add-partitions', (io) => addPartitions(name, opts, io)))
}

function jsonHelp(shape: string): string {
  return `\nJSON output (--json):\n  ${shape}\n`
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

// ---------------------------------------------------------------------------------------------
// create

interface CreateOptions extends JsonOption, ConnectionOptions {
  partitions?: number
  replicationFactor?: number
  config: string[]
  ifNotExists: boolean
}

async function create(name: string, opts: CreateOptions, io: ToolIo): Promise<void> {
  const configs = uniqueKeyValues(opts.config, '--config')
  const r = await withClient(opts, (client) =>
    createTopic(client, {
      name,
      numPartitions: opts.partitions ?? -1,
      replicationFactor: opts.replicationFactor ?? -1,
      configs: Object.fromEntries(configs),
    }),
  )
  if (r.error === 'TOPIC_ALREADY_EXISTS' && opts.ifNotExists) {
    io.stdout(opts.json ? json({ name, created: false }) : `topic '${name}' already exists; nothing to do\n`)
    return
  }
  if (r.error !== null) throw createError(r, configs)
  const out = { name, created: true, partitions: r.numPartitions, replicationFactor: r.replicationFactor, topicId: r.topicId }
  if (opts.json) io.stdout(json(out))
  else {
    const shape = r.numPartitions >= 0 ? ` (${plural(r.numPartitions, 'partition')}, replication factor ${r.replicationFactor})` : ''
    io.stdout(`created topic '${name}'${shape}\n`)
  }
}

function createError(r: TopicOutcome, configs: Array<[string, string]>): ToolError {
  const detail = r.message ?? r.error!
  switch (r.error) {
    case 'TOPIC_ALREADY_EXISTS':
      return new ToolError(
        `topic '${r.name}' already exists`,
        `describe it with: tributary topic describe ${r.name} (or pass --if-not-exists)`,
      )
    case 'INVALID_CONFIG': {
      // Name the key even when the broker's message does not.
      const named = configs.some(([k]) => detail.includes(k))
      const given = named ? '' : ` (given: ${configs.map(([k, v]) => `${k}=${v}`).join(', ')})`
      return new ToolError(
        `invalid config for topic '${r.name}': ${detail}${given}`,
        'topic configs use Kafka’s names and units, e.g. --config retention.ms=86400000',
      )
    }
    case 'INVALID_REPLICATION_FACTOR':
      return new ToolError(
        `invalid replication factor: ${detail}`,
        'give --replication-factor at most the number of brokers (see: tributary cluster info)',
      )
    case 'INVALID_PARTITIONS':
      return new ToolError(`invalid partition count: ${detail}`, 'give --partitions a number ≥ 1')
    default:
      return outcomeError(r)
  }
}

/** Errors any topic request may get, with what to do about them. */
function outcomeError(r: TopicOutcome): ToolError {
  const detail = r.message ? `${r.error}: ${r.message}` : r.error!
  switch (r.error) {
    case 'UNKNOWN_TOPIC_OR_PARTITION':
    case 'UNKNOWN_TOPIC_ID':
      return notFound(r.name)
    case 'INVALID_TOPIC_EXCEPTION':
      if (r.message?.includes('internal')) {
        return new ToolError(
          `topic '${r.name}' is internal: ${r.message}`,
          'internal topics (__consumer_offsets, …) are managed by the broker',
        )
      }
      return new ToolError(
        `invalid topic '${r.name}': ${r.message ?? 'illegal name'}`,
        'topic names use letters, digits, ".", "_" and "-", up to 249 characters',
      )
    case 'TOPIC_AUTHORIZATION_FAILED':
    case 'CLUSTER_AUTHORIZATION_FAILED':
      return new ToolError(`not authorized for topic '${r.name}' (${detail})`, 'ask an administrator for the ACLs this operation needs')
    default:
      return new ToolError(`topic '${r.name}': ${detail}`)
  }
}

// ---------------------------------------------------------------------------------------------
// list

interface ListOptions extends JsonOption, ConnectionOptions {
  internal: boolean
}

async function list(opts: ListOptions, io: ToolIo): Promise<void> {
  const topics = await withClient(opts, (client) => listTopics(client, { internal: opts.internal }))
  if (opts.json) {
    io.stdout(json(topics))
    return
  }
  if (topics.length === 0) {
    io.stdout(`no topics${opts.internal ? '' : ' (internal topics are shown with --internal)'}\n`)
    return
  }
  const headers = ['TOPIC', 'PARTITIONS', 'REPLICATION-FACTOR', ...(opts.internal ? ['INTERNAL'] : [])]
  const rows = topics.map((t) => [t.name, t.partitions, t.replicationFactor, ...(opts.internal ? [t.internal ? 'yes' : 'no'] : [])])
  io.stdout(table(headers, rows))
}

// ---------------------------------------------------------------------------------------------
// describe

async function describe(names: string[], opts: JsonOption & ConnectionOptions, io: ToolIo): Promise<void> {
  const unique = [...new Set(names)]
  const topics = await withClient(opts, async (client) => {
    await requireTopics(client, unique)
    return describeTopics(client, unique)
  })
  if (opts.json) {
    io.stdout(json(topics))
    return
  }
  io.stdout(topics.map(formatTopic).join('\n'))
}

/** Fails with "topic 'x' does not exist" (every missing one named) unless all exist. */
async function requireTopics(client: KafkaClient, names: string[]): Promise<void> {
  const md = await client.metadata(names, { refresh: true })
  const missing = names.filter((n) => {
    const t = md.topics.get(n)
    return !t || t.error === 'UNKNOWN_TOPIC_OR_PARTITION'
  })
  if (missing.length === 1) throw notFound(missing[0]!)
  if (missing.length > 1) throw new ToolError(`topics ${missing.map((n) => `'${n}'`).join(', ')} do not exist`, LIST_HINT)
}

function formatTopic(t: TopicDescription): string {
  const size =
    t.sizeBytes === null ? 'unknown' : t.sizeBytes < 1024 ? humanBytes(t.sizeBytes) : `${humanBytes(t.sizeBytes)} (${t.sizeBytes} bytes)`
  const head =
    `Topic: ${t.name}${t.internal ? ' (internal)' : ''}  TopicId: ${t.topicId}  Partitions: ${t.partitions.length}` +
    `  ReplicationFactor: ${t.replicationFactor}  Size: ${size}\n`
  const partitions = table(
    ['PARTITION', 'LEADER', 'REPLICAS', 'ISR', 'EARLIEST', 'LATEST', 'BYTES', ...(t.partitions.some((p) => p.error) ? ['ERROR'] : [])],
    t.partitions.map((p) => [
      p.partition,
      p.leader < 0 ? null : p.leader,
      p.replicas.join(',') || null,
      p.isr.join(',') || null,
      p.earliestOffset,
      p.latestOffset,
      p.sizeBytes,
      ...(t.partitions.some((x) => x.error) ? [p.error] : []),
    ]),
  )
  let configs: string
  if (t.configsError !== null) configs = `Configs: could not be described (${t.configsError})\n`
  else if (t.configs.length === 0) configs = 'Configs: all defaults\n'
  else {
    configs = `Configs (not default):\n${table(
      ['CONFIG', 'VALUE', 'SOURCE'],
      t.configs.map((c) => [c.name, c.sensitive ? '(sensitive)' : c.value, c.source]),
    )}`
  }
  return `${head}${partitions}${configs}`
}

// ---------------------------------------------------------------------------------------------
// delete

interface DeleteOptions extends JsonOption, ConnectionOptions {
  ifExists: boolean
}

async function remove(names: string[], opts: DeleteOptions, io: ToolIo): Promise<number> {
  const unique = [...new Set(names)]
  const results = await withClient(opts, (client) => deleteTopics(client, unique))
  const absentOk = (r: TopicOutcome) => opts.ifExists && (r.error === 'UNKNOWN_TOPIC_OR_PARTITION' || r.error === 'UNKNOWN_TOPIC_ID')
  const failures = results.filter((r) => r.error !== null && !absentOk(r))
  if (opts.json) {
    io.stdout(json(results.map((r) => ({ name: r.name, deleted: r.error === null, error: r.error, message: r.message }))))
  } else {
    for (const r of results) {
      if (r.error === null) io.stdout(`deleted topic '${r.name}'\n`)
      else if (absentOk(r)) io.stdout(`topic '${r.name}' does not exist; nothing to do\n`)
    }
  }
  if (failures.length === 0) return 0
  if (failures.length === 1) throw deleteError(failures[0]!)
  for (const f of failures) {
    const e = deleteError(f)
    io.stderr(`tributary topic delete: ${e.message}\n${e.hint ? `  ${e.hint}\n` : ''}`)
  }
  return 1
}

function deleteError(r: TopicOutcome): ToolError {
  if (r.error === 'TOPIC_DELETION_DISABLED') {
    return new ToolError(
      `topic '${r.name}' was not deleted: the broker has delete.topic.enable=false`,
      'set delete.topic.enable=true on the broker',
    )
  }
  if (r.error === 'UNKNOWN_TOPIC_OR_PARTITION')
    return new ToolError(`topic '${r.name}' does not exist`, `${LIST_HINT} (or pass --if-exists)`)
  return outcomeError(r)
}

// ---------------------------------------------------------------------------------------------
// alter-config

interface AlterOptions extends JsonOption, ConnectionOptions {
  set: string[]
  delete: string[]
  append: string[]
  subtract: string[]
}

async function alterConfig(name: string, opts: AlterOptions, io: ToolIo): Promise<void> {
  const changes: ConfigChange[] = [
    ...keyValues(opts.set, '--set').map(([k, v]): ConfigChange => ({ name: k, op: 'set', value: v })),
    ...opts.delete.map((k): ConfigChange => ({ name: k.trim(), op: 'delete', value: null })),
    ...keyValues(opts.append, '--append').map(([k, v]): ConfigChange => ({ name: k, op: 'append', value: v })),
    ...keyValues(opts.subtract, '--subtract').map(([k, v]): ConfigChange => ({ name: k, op: 'subtract', value: v })),
  ]
  if (changes.length === 0) throw new UsageError('nothing to change: give --set key=value, --delete key, --append or --subtract')
  const seen = new Set<string>()
  for (const c of changes) {
    if (c.name === '') throw new UsageError('--delete needs a key name')
    if (seen.has(c.name)) throw new UsageError(`config ${c.name} is named twice; change each key once`)
    seen.add(c.name)
  }
  const r = await withClient(opts, async (client) => {
    await requireTopics(client, [name])
    return alterTopicConfigs(client, name, changes).catch(unsupported('changing topic configs (IncrementalAlterConfigs, API 44)'))
  })
  if (r.error === 'INVALID_CONFIG' || r.error === 'INVALID_REQUEST') {
    throw new ToolError(
      `invalid config change for topic '${name}': ${r.message ?? r.error}`,
      `topic configs use Kafka’s names and units; see the current ones with: tributary topic describe ${name}`,
    )
  }
  if (r.error !== null) throw outcomeError(r)
  if (opts.json) {
    io.stdout(json({ name, altered: true, changes }))
    return
  }
  io.stdout(`altered topic '${name}': ${changes.map(sayChange).join('; ')}\n`)
}

function sayChange(c: ConfigChange): string {
  switch (c.op) {
    case 'set':
      return `set ${c.name}=${c.value}`
    case 'delete':
      return `removed ${c.name}`
    case 'append':
      return `appended ${c.value} to ${c.name}`
    case 'subtract':
      return `removed ${c.value} from ${c.name}`
  }
}

// ---------------------------------------------------------------------------------------------
// add-partitions

interface AddPartitionsOptions extends JsonOption, ConnectionOptions {
  to: number
}

async function addPartitions(name: string, opts: AddPartitionsOptions, io: ToolIo): Promise<void> {
  const previous = await withClient(opts, async (client) => {
    await requireTopics(client, [name])
    const current = (await client.metadata([name])).topics.get(name)!.partitions.length
    if (opts.to <= current) throw cannotShrink(name, current, opts.to)
    const r = await createPartitions(client, name, opts.to).catch(unsupported('adding partitions (CreatePartitions, API 37)'))
    if (r.error === 'INVALID_PARTITIONS') {
      throw new ToolError(
        `cannot give topic '${name}' ${opts.to} partitions: ${r.message ?? r.error}`,
        `partition counts can only increase; check the count with: tributary topic describe ${name}`,
      )
    }
    if (r.error !== null) throw outcomeError(r)
    return current
  })
  if (opts.json) io.stdout(json({ name, partitions: opts.to, previousPartitions: previous }))
  else io.stdout(`topic '${name}' now has ${plural(opts.to, 'partition')} (was ${previous})\n`)
}

function cannotShrink(name: string, current: number, wanted: number): ToolError {
  const what =
    wanted === current ? `already has ${plural(current, 'partition')}` : `has ${plural(current, 'partition')}, more than ${wanted}`
  return new ToolError(`topic '${name}' ${what}: the partition count can only increase`, `give --to a number greater than ${current}`)
}

// ---------------------------------------------------------------------------------------------
// helpers

function uniqueKeyValues(values: string[], what: string): Array<[string, string]> {
  const pairs = keyValues(values, what)
  const seen = new Set<string>()
  for (const [k] of pairs) {
    if (seen.has(k)) throw new UsageError(`${what} ${k} is given twice; give each key once`)
    seen.add(k)
  }
  return pairs
}

/** Rethrows UNSUPPORTED_VERSION as "the broker does not support <what>", other errors as they are. */
function unsupported(what: string): (err: unknown) => never {
  return (err) => {
    if (err instanceof ClientError && err.code === 'UNSUPPORTED_VERSION') {
      throw new ToolError(
        `the broker does not support ${what}: ${err.detail}`,
        'see the APIs it serves with: tributary cluster info --apis',
      )
    }
    throw err
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** 1536 → "1.5 KiB". */
export function humanBytes(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB']
  let i = 0
  let v = n
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return i === 0 ? `${n} bytes` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`
}
