// `tributary group list | describe | reset-offsets | delete | delete-offsets`: groups as Kafka's
// kafka-consumer-groups.sh (and kafka-share-groups.sh) shows and changes them, on the client's group admin helpers
// (src/client/admin-groups.ts), so every command works against Apache Kafka too.
//
//   tributary group list [--json]
//   tributary group describe GROUP [--json]
//   tributary group reset-offsets GROUP (--topic T[:P,P…]… | --all-topics)
//       (--to-earliest | --to-latest | --to-datetime ISO | --to-offset N | --shift-by N) [--execute]
//   tributary group delete GROUP…
//   tributary group delete-offsets GROUP --topic T[:P,P…]…
//
// list shows each group's type (classic, consumer, share; ListGroups v5). describe handles the
// three types (group-describe.ts).
// reset-offsets prints its plan and commits it only with --execute. Like Kafka's tool it refuses
// while the group has members — their next commit would undo the reset — and commits with
// generation -1 and no member id, which a coordinator accepts only for a group without members.
import type { Command } from 'commander'
import {
  commitOffsets,
  deleteGroups,
  deleteOffsets,
  describeGroup,
  fetchCommittedOffsets,
  type GroupDescription,
  listGroups,
  listOffsetsOf,
  type TopicPartition,
  byTopicPartition,
} from '../client/admin-groups.js'
import { OffsetSpec } from '../client/admin.js'
import type { KafkaClient } from '../client/client.js'
import { ClientError } from '../client/errors.js'
import type { ErrorName } from '../protocol/errors.js'
import {
  adminCommand,
  collect,
  type ConnectionOptions,
  intOption,
  type JsonOption,
  runTool,
  table,
  ToolError,
  type ToolIo,
  UsageError,
  withClient,
  withExamples,
} from './common.js'
import {
  mergeTopicSelections,
  type PartitionState,
  type PlannedReset,
  parseDatetime,
  parseTopicSelection,
  planReset,
  type ResetSpec,
  type TopicSelection,
} from './group-reset-plan.js'
import type { CliDeps } from './deps.js'
import { registerGroupAlterConfig } from './group-config.js'
import { runDescribe } from './group-describe.js'

interface ResetOptions extends ConnectionOptions, JsonOption {
  topic: string[]
  allTopics: boolean
  toEarliest: boolean
  toLatest: boolean
  toDatetime?: string
  toOffset?: number
  shiftBy?: number
  execute: boolean
}

interface DeleteOffsetsOptions extends ConnectionOptions, JsonOption {
  topic: string[]
}

const LIST_GROUPS_HINT = 'list groups with: tributary group list'
const STOP_CONSUMERS_HINT = "stop the group's consumers first"
/** Commit answers that mean the group has members (a reset raced with a joining consumer). */
const MEMBER_ERRORS: ReadonlySet<ErrorName> = new Set([
  'UNKNOWN_MEMBER_ID',
  'ILLEGAL_GENERATION',
  'REBALANCE_IN_PROGRESS',
  'FENCED_INSTANCE_ID',
])

const notFound = (groupId: string) => new ToolError(`group '${groupId}' does not exist`, LIST_GROUPS_HINT)

export function registerGroupCommand(program: Command, deps: CliDeps): void {
  const group = withExamples(
    program.command('group').description('list, describe, configure, reset and delete groups (classic, consumer and share)'),
    [
      'tributary group list',
      'tributary group describe billing',
      'tributary group reset-offsets billing --topic events --to-earliest --execute',
    ],
  )

  adminCommand(group, 'list', 'list every group with its type (classic, consumer, share) and state', [
    'tributary group list',
    'tributary group list --json | jq -r ".[].groupId"',
  ]).action((opts: ConnectionOptions & JsonOption) => runTool(deps, 'group list', (io) => runList(opts, io)))

  adminCommand(group, 'describe', "show a group's members, offsets and lag (classic, consumer and share groups)", [
    'tributary group describe billing',
    'tributary group describe workers            # a share group: start offsets and lag per partition',
    'tributary group describe billing --json | jq .totalLag',
  ])
    .argument('<group>', 'group id')
    .action((groupId: string, opts: ConnectionOptions & JsonOption) =>
      runTool(deps, 'group describe', (io) => runDescribe(groupId, opts, io)),
    )

  adminCommand(group, 'reset-offsets', "move a group's committed offsets (the group must have no active members)", [
    'tributary group reset-offsets billing --topic events --to-earliest            # dry run: prints the plan',
    'tributary group reset-offsets billing --topic events --to-earliest --execute',
    'tributary group reset-offsets billing --topic events:0,2 --to-offset 1000 --execute',
    'tributary group reset-offsets billing --all-topics --shift-by -100 --execute',
    'tributary group reset-offsets billing --all-topics --to-datetime 2024-05-01T12:00:00Z --execute',
  ])
    .argument('<group>', 'group id')
    .option('--topic <topic[:partitions]>', 'topic to reset, or only some partitions of it (orders:0,2); repeatable', collect, [])
    .option('--all-topics', 'every partition the group has committed offsets for', false)
    .option('--to-earliest', 'reset to the log start offset', false)
    .option('--to-latest', 'reset to the log end offset (skip everything not yet consumed)', false)
    .option(
      '--to-datetime <iso>',
      'reset to the first record at or after this time (YYYY-MM-DDTHH:mm:ss[.sss][Z|±hh:mm]; local time without a zone)',
    )
    .option('--to-offset <n>', 'reset to this offset (kept within the log)', intOption(0))
    .option('--shift-by <n>', 'move the committed offset by n (negative: back), kept within the log', intOption(Number.MIN_SAFE_INTEGER))
    .option('--execute', 'apply the plan (without it nothing changes)', false)
    .action((groupId: string, opts: ResetOptions) => runTool(deps, 'group reset-offsets', (io) => runReset(groupId, opts, io)))

  adminCommand(group, 'delete', 'delete groups and their committed offsets (each group must have no active members)', [
    'tributary group delete billing',
    'tributary group delete old-a old-b',
  ])
    .argument('<group...>', 'group ids')
    .action((groupIds: string[], opts: ConnectionOptions & JsonOption) =>
      runTool(deps, 'group delete', (io) => runDelete(groupIds, opts, io)),
    )

  adminCommand(group, 'delete-offsets', "delete a group's committed offsets for topics it no longer consumes", [
    'tributary group delete-offsets billing --topic old-events',
    'tributary group delete-offsets billing --topic old-events:0,1',
  ])
    .argument('<group>', 'group id')
    .option('--topic <topic[:partitions]>', 'topic, or only some partitions of it; repeatable (required)', collect, [])
    .action((groupId: string, opts: DeleteOffsetsOptions) =>
      runTool(deps, 'group delete-offsets', (io) => runDeleteOffsets(groupId, opts, io)),
    )

  registerGroupAlterConfig(group, deps)
}

const printJson = (io: ToolIo, value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`)

// ---------------------------------------------------------------------------------------------
// list

async function runList(opts: ConnectionOptions & JsonOption, io: ToolIo): Promise<void> {
  const groups = await withClient(opts, (client) => listGroups(client))
  if (opts.json) {
    printJson(io, groups)
    return
  }
  io.stdout(
    table(
      ['GROUP', 'TYPE', 'STATE', 'PROTOCOL TYPE'],
      groups.map((g) => [g.groupId, g.groupType ?? '-', g.state, g.protocolType || '-']),
    ),
  )
}

// ---------------------------------------------------------------------------------------------
// reset-offsets

/** The one --to-… or --shift-by option given; a UsageError for none or several. */
export function resetSpecOf(opts: Pick<ResetOptions, 'toEarliest' | 'toLatest' | 'toDatetime' | 'toOffset' | 'shiftBy'>): ResetSpec {
  const given: Array<[string, () => ResetSpec]> = []
  if (opts.toEarliest) given.push(['--to-earliest', () => ({ kind: 'earliest' })])
  if (opts.toLatest) given.push(['--to-latest', () => ({ kind: 'latest' })])
  if (opts.toDatetime !== undefined)
    given.push(['--to-datetime', () => ({ kind: 'datetime', timestampMs: parseDatetime(opts.toDatetime!) })])
  if (opts.toOffset !== undefined) given.push(['--to-offset', () => ({ kind: 'offset', offset: opts.toOffset! })])
  if (opts.shiftBy !== undefined) given.push(['--shift-by', () => ({ kind: 'shift', by: opts.shiftBy! })])
  const all = '--to-earliest, --to-latest, --to-datetime, --to-offset or --shift-by'
  if (given.length === 0) throw new UsageError(`say where to reset to: give one of ${all}`)
  if (given.length > 1) throw new UsageError(`give only one of ${all} (got ${given.map(([n]) => n).join(' and ')})`)
  return given[0]![1]()
}

function scopeOf(opts: Pick<ResetOptions, 'topic' | 'allTopics'>): TopicSelection[] | 'all' {
  if (opts.allTopics && opts.topic.length > 0) throw new UsageError('give either --topic or --all-topics, not both')
  if (opts.allTopics) return 'all'
  if (opts.topic.length === 0)
    throw new UsageError('say which partitions to reset: give --topic TOPIC[:PARTITIONS] (repeatable) or --all-topics')
  return mergeTopicSelections(opts.topic.map(parseTopicSelection))
}

async function runReset(groupId: string, opts: ResetOptions, io: ToolIo): Promise<void> {
  const spec = resetSpecOf(opts)
  const scope = scopeOf(opts)
  const plan = await withClient(opts, async (client) => {
    const group = await describeGroup(client, groupId)
    refuseActive(group)
    const committed = await fetchCommittedOffsets(client, groupId)
    let partitions: TopicPartition[]
    if (scope === 'all') {
      if (committed.length === 0)
        throw new ToolError(`group '${groupId}' has no committed offsets`, 'name the partitions to reset with --topic TOPIC[:PARTITIONS]')
      partitions = committed.map(({ topic, partition }) => ({ topic, partition }))
    } else {
      partitions = await selectedPartitions(client, scope)
    }
    const plan = planReset(spec, await partitionStates(client, partitions, committed, spec))
    if (opts.execute) await applyPlan(client, groupId, plan)
    return plan
  })
  if (opts.json) {
    printJson(io, {
      groupId,
      executed: opts.execute,
      partitions: plan.map((p) => ({ topic: p.topic, partition: p.partition, currentOffset: p.current, newOffset: p.target })),
    })
  } else {
    io.stdout(
      table(
        ['TOPIC', 'PARTITION', 'CURRENT', 'NEW'],
        plan.map((p) => [p.topic, p.partition, p.current, p.target]),
      ),
    )
  }
  io.stderr(
    opts.execute
      ? `reset ${plan.length} partition${plan.length === 1 ? '' : 's'} of group '${groupId}'\n`
      : 'dry run: add --execute to apply\n',
  )
}

/** Kafka's tool resets only Empty and Dead groups: a member's next commit would undo the reset. */
function refuseActive(group: GroupDescription): void {
  if (group.state === 'Empty' || group.state === 'Dead') return
  const n = group.members.length
  throw new ToolError(
    `group '${group.groupId}' is ${group.state} with ${n} active member${n === 1 ? '' : 's'}; offsets can only be reset while it has none`,
    STOP_CONSUMERS_HINT,
  )
}

/** The partitions --topic names, checked against the cluster's metadata. */
async function selectedPartitions(client: KafkaClient, selections: TopicSelection[]): Promise<TopicPartition[]> {
  const md = await client.metadata(
    selections.map((s) => s.topic),
    { refresh: true },
  )
  const out: TopicPartition[] = []
  for (const s of selections) {
    const info = md.topics.get(s.topic)
    if (!info || info.error === 'UNKNOWN_TOPIC_OR_PARTITION') {
      throw new ToolError(`topic '${s.topic}' does not exist`, 'list topics with: tributary topic list')
    }
    if (info.error) throw new ClientError(info.error, `metadata of ${s.topic}`)
    const existing = info.partitions.map((p) => p.partition)
    const wanted = s.partitions ?? existing
    const missing = wanted.filter((p) => !existing.includes(p))
    if (missing.length > 0) {
      throw new ToolError(
        `topic '${s.topic}' has no partition ${missing.join(', ')}`,
        existing.length === 1 ? 'its only partition is 0' : `its partitions are numbered 0 to ${existing.length - 1}`,
      )
    }
    for (const partition of wanted) out.push({ topic: s.topic, partition })
  }
  return out.sort(byTopicPartition)
}

async function partitionStates(
  client: KafkaClient,
  partitions: TopicPartition[],
  committed: ReadonlyArray<TopicPartition & { offset: number }>,
  spec: ResetSpec,
): Promise<PartitionState[]> {
  const [earliest, latest, atTime] = await Promise.all([
    listOffsetsOf(client, partitions, OffsetSpec.Earliest),
    listOffsetsOf(client, partitions, OffsetSpec.Latest),
    spec.kind === 'datetime' ? listOffsetsOf(client, partitions, spec.timestampMs) : Promise.resolve(null),
  ])
  return partitions.map(({ topic, partition }) => {
    const lo = earliest.get(topic)?.get(partition)
    const hi = latest.get(topic)?.get(partition)
    if (lo === undefined || hi === undefined)
      throw new ToolError(`topic '${topic}' has no partition ${partition}`, 'list topics with: tributary topic list')
    const current = committed.find((c) => c.topic === topic && c.partition === partition)?.offset ?? null
    return { topic, partition, current, earliest: lo, latest: hi, atTimestamp: atTime?.get(topic)?.get(partition) ?? null }
  })
}

async function applyPlan(client: KafkaClient, groupId: string, plan: PlannedReset[]): Promise<void> {
  const outcomes = await commitOffsets(
    client,
    groupId,
    plan.map((p) => ({ topic: p.topic, partition: p.partition, offset: p.target })),
  )
  const failed = outcomes.filter((o) => o.error !== null)
  if (failed.length === 0) return
  if (failed.some((o) => MEMBER_ERRORS.has(o.error!))) {
    throw new ToolError(`group '${groupId}' has active members; offsets can only be reset while it has none`, STOP_CONSUMERS_HINT)
  }
  const list = failed.map((o) => `${o.topic}:${o.partition} ${o.error}`).join(', ')
  throw new ToolError(`the coordinator refused ${failed.length} of ${outcomes.length} offsets: ${list}`)
}

// ---------------------------------------------------------------------------------------------
// delete, delete-offsets

async function runDelete(groupIds: string[], opts: ConnectionOptions & JsonOption, io: ToolIo): Promise<number> {
  const results = await withClient(opts, (client) => deleteGroups(client, [...new Set(groupIds)]))
  if (opts.json) printJson(io, results)
  let failures = 0
  for (const r of results) {
    if (r.error === null) {
      if (!opts.json) io.stdout(`deleted group '${r.groupId}'\n`)
      continue
    }
    failures++
    const [message, hint] = deleteFailure(r.groupId, r.error)
    io.stderr(`tributary group delete: ${message}\n${hint ? `  ${hint}\n` : ''}`)
  }
  return failures === 0 ? 0 : 1
}

function deleteFailure(groupId: string, error: ErrorName): [string, string | undefined] {
  switch (error) {
    case 'GROUP_ID_NOT_FOUND':
      return [`group '${groupId}' does not exist`, LIST_GROUPS_HINT]
    case 'NON_EMPTY_GROUP':
      return [`group '${groupId}' still has active members and cannot be deleted`, STOP_CONSUMERS_HINT]
    default:
      return [`could not delete group '${groupId}': ${error}`, undefined]
  }
}

async function runDeleteOffsets(groupId: string, opts: DeleteOffsetsOptions, io: ToolIo): Promise<number> {
  if (opts.topic.length === 0) throw new UsageError('say which offsets to delete: give --topic TOPIC[:PARTITIONS] (repeatable)')
  const selections = mergeTopicSelections(opts.topic.map(parseTopicSelection))
  const result = await withClient(opts, async (client) => deleteOffsets(client, groupId, await selectedPartitions(client, selections)))
  if (result.error === 'GROUP_ID_NOT_FOUND') throw notFound(groupId)
  if (result.error === 'NON_EMPTY_GROUP') throw new ToolError(`group '${groupId}' still has active members`, STOP_CONSUMERS_HINT)
  if (result.error !== null) throw new ToolError(`could not delete offsets of group '${groupId}': ${result.error}`)
  if (opts.json) printJson(io, { groupId, partitions: result.partitions })
  else {
    io.stdout(
      table(
        ['TOPIC', 'PARTITION', 'STATUS'],
        result.partitions.map((p) => [p.topic, p.partition, p.error === null ? 'deleted' : p.error]),
      ),
    )
  }
  const subscribed = result.partitions.some((p) => p.error === 'GROUP_SUBSCRIBED_TO_TOPIC')
  if (subscribed) io.stderr('  a member of the group still consumes that topic: stop the consumers or change their subscription first\n')
  return result.partitions.some((p) => p.error !== null) ? 1 : 0
}
