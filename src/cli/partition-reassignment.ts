// `tributary cluster rebalance | reassignments | elect-leaders`: moving partition replicas between
// brokers and electing leaders, on the client's admin helpers (src/client/admin-cluster.ts), so
// each works against Apache Kafka too.
//
//   tributary cluster rebalance [--execute] [--topic T]… [--exclude-broker ID]… [--json]
//   tributary cluster reassignments [--json]
//   tributary cluster elect-leaders [--topic T [--partition P]] [--unclean] [--json]
//
// rebalance reads every topic's replica lists from Metadata and proposes (cluster/placement.ts
// proposeRebalance) the fewest replica moves that leave each live broker within one replica and one
// preferred leader of every other — evacuating brokers named with --exclude-broker — and prints the
// per-broker counts before and after and the moves. Nothing changes without --execute, which
// submits the moves (AlterPartitionReassignments), follows them (ListPartitionReassignments) with a
// progress line on stderr until they are all done, then elects each moved partition's preferred
// replica (ElectLeaders) so that leaders follow the new first replicas, and prints a summary. It
// refuses to plan while other reassignments are in progress: Metadata then lists the replicas of
// both the old and the new assignment.
import type { Command } from 'commander'
import {
  alterPartitionReassignments,
  electLeaders,
  listPartitionReassignments,
  type PartitionResult,
  type TopicPartitionRef,
} from '../client/admin-cluster.js'
import type { KafkaClient } from '../client/client.js'
import type { ClusterMetadata } from '../client/metadata.js'
import { describeImbalance, proposeRebalance } from '../cluster/placement.js'
import { KafkaError } from '../protocol/errors.js'
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
} from './common.js'
import type { CliDeps } from './deps.js'

interface RebalanceOptions extends ConnectionOptions, JsonOption {
  execute: boolean
  topic: string[]
  excludeBroker: number[]
  timeoutMs: number
  pollIntervalMs: number
}

interface ElectOptions extends ConnectionOptions, JsonOption {
  topic?: string
  partition?: number
  unclean: boolean
}

const LIST_TOPICS_HINT = 'list topics with: tributary topic list'
const FOLLOW_HINT = 'the moves continue in the background; follow them with: tributary cluster reassignments'
/** Election attempts for a preferred replica that has not joined the ISR yet. */
const ELECTION_ATTEMPTS = 5

export function registerReassignmentCommands(cluster: Command, deps: CliDeps): void {
  adminCommand(cluster, 'rebalance', 'spread replicas and preferred leaders evenly over the live brokers (dry run unless --execute)', [
    'tributary cluster rebalance                        # prints the plan, changes nothing',
    'tributary cluster rebalance --execute',
    'tributary cluster rebalance --exclude-broker 3 --execute   # move everything off broker 3',
    'tributary cluster rebalance --topic orders --json',
  ])
    .option('--execute', 'move the replicas, wait until done, then elect the preferred leaders', false)
    .option('--topic <topic>', 'only this topic; repeatable (without it: every topic, internal ones included)', collect, [])
    .option(
      '--exclude-broker <id>',
      'move every replica off this broker; repeatable',
      (v: string, prev: number[]) => [...prev, intOption(0)(v)],
      [],
    )
    .option('--timeout-ms <ms>', 'with --execute: longest wait for the moves to finish', intOption(1), 30 * 60_000)
    .option('--poll-interval-ms <ms>', 'with --execute: how often progress is checked', intOption(10), 1000)
    .addHelpText(
      'after',
      '\nJSON output (--json):\n' +
        '  {"brokers": [ids], "before": [{"broker", "replicas", "leaders"}], "after": [...],\n' +
        '   "moves": [{"topic", "partition", "from": [ids], "to": [ids]}], "movedReplicas", "leaderChanges", "executed",\n' +
        '   "failed": [{"topic", "partition", "error", "message"}], "elections": {"elected", "notNeeded", "failed": [...]},\n' +
        '   "durationMs"}   (failed, elections, durationMs only with --execute)\n' +
        '"leaders" before and after are preferred leaders (first replicas).\n',
    )
    .action((opts: RebalanceOptions) => runTool(deps, 'cluster rebalance', (io) => runRebalance(opts, io)))

  adminCommand(cluster, 'reassignments', 'list the partition reassignments in progress', [
    'tributary cluster reassignments',
    'tributary cluster reassignments --json',
  ])
    .addHelpText(
      'after',
      '\nJSON output (--json):\n  [{"topic", "partition", "replicas": [ids], "addingReplicas": [ids], "removingReplicas": [ids]}]\n',
    )
    .action((opts: ConnectionOptions & JsonOption) => runTool(deps, 'cluster reassignments', (io) => runList(opts, io)))

  adminCommand(cluster, 'elect-leaders', 'elect preferred (or, with --unclean, any live) replicas as partition leaders', [
    'tributary cluster elect-leaders                            # every partition not led by its preferred replica',
    'tributary cluster elect-leaders --topic orders',
    'tributary cluster elect-leaders --topic orders --partition 3 --unclean',
  ])
    .option('--topic <topic>', 'only this topic (default: every partition)')
    .option('--partition <n>', 'only this partition of --topic', intOption(0))
    .option('--unclean', 'for partitions without a live in-sync replica: elect any live replica (records it lacks are lost)', false)
    .addHelpText(
      'after',
      '\nJSON output (--json):\n  [{"topic", "partition", "error": null | "ELECTION_NOT_NEEDED" | "PREFERRED_LEADER_NOT_AVAILABLE" | …, "message"}]\n' +
        'Without --topic only the partitions an election was tried for are listed. Exit code 1 when a partition got no leader\n' +
        '(ELECTION_NOT_NEEDED is not a failure).\n',
    )
    .action((opts: ElectOptions) => runTool(deps, 'cluster elect-leaders', (io) => runElect(opts, io)))
}

const printJson = (io: ToolIo, value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`)
const key = (topic: string, partition: number) => `${topic}:${partition}`
const ids = (list: readonly number[]) => list.join(',')

// ---------------------------------------------------------------------------------------------
// rebalance

interface Move extends TopicPartitionRef {
  from: number[]
  to: number[]
}

interface Plan {
  brokers: number[]
  current: Map<string, number[]>
  moves: Move[]
  summary: ReturnType<typeof describeImbalance>
}

async function runRebalance(opts: RebalanceOptions, io: ToolIo): Promise<number> {
  return withClient(opts, async (client) => {
    const plan = await makePlan(client, opts)
    if (!opts.json) io.stdout(planText(plan))
    if (!opts.execute || plan.moves.length === 0) {
      if (opts.json) printJson(io, planJson(plan, false))
      else if (plan.moves.length > 0)
        io.stdout('\nDry run: nothing was changed. Apply this plan with: tributary cluster rebalance --execute\n')
      return 0
    }
    return execute(client, plan, opts, io)
  })
}

async function makePlan(client: KafkaClient, opts: RebalanceOptions): Promise<Plan> {
  const md = await client.metadata(null, { refresh: true })
  const moving = await listPartitionReassignments(client)
  if (moving.length > 0) {
    throw new ToolError(
      `${moving.length} partition reassignment(s) already in progress`,
      'wait until `tributary cluster reassignments` lists none, then plan again',
    )
  }
  for (const t of opts.topic)
    if (!md.topics.get(t) || md.topics.get(t)!.error) throw new ToolError(`topic '${t}' does not exist`, LIST_TOPICS_HINT)
  const live = [...md.brokers.keys()].sort((a, b) => a - b)
  for (const b of opts.excludeBroker) {
    if (!live.includes(b))
      throw new ToolError(`broker ${b} is not in the cluster`, `the live brokers are ${ids(live)} (tributary cluster info)`)
  }
  const brokers = live.filter((b) => !opts.excludeBroker.includes(b))
  if (brokers.length === 0) throw new ToolError('no broker would be left to hold the replicas', 'exclude fewer brokers')
  const wanted = opts.topic.length > 0 ? new Set(opts.topic) : undefined
  const current = new Map<string, number[]>()
  for (const t of md.topics.values()) {
    if (t.error || (wanted && !wanted.has(t.name))) continue
    for (const p of t.partitions) current.set(key(t.name, p.partition), [...p.replicas])
  }
  let proposal: Map<string, number[]>
  try {
    proposal = proposeRebalance(current, brokers)
  } catch (err) {
    if (err instanceof KafkaError) throw new ToolError(err.message, 'add brokers, or exclude fewer')
    throw err
  }
  const moves: Move[] = [...proposal].map(([k, to]) => {
    const i = k.lastIndexOf(':')
    return { topic: k.slice(0, i), partition: Number(k.slice(i + 1)), from: current.get(k)!, to }
  })
  return { brokers, current, moves, summary: describeImbalance(current, proposal, brokers) }
}

function planText(plan: Plan): string {
  const { summary, moves } = plan
  const after = new Map(summary.after.map((l) => [l.broker, l]))
  let text = `Live brokers: ${ids(plan.brokers)}; ${plan.current.size} partitions\n\n`
  text += table(
    ['BROKER', 'REPLICAS', 'AFTER', 'LEADERS', 'AFTER'],
    summary.before.map((l) => [l.broker, l.replicas, after.get(l.broker)?.replicas ?? 0, l.leaders, after.get(l.broker)?.leaders ?? 0]),
  )
  text += '(leaders: preferred leaders, the first replica of each partition)\n\n'
  if (moves.length === 0) return `${text}The replicas are balanced: nothing to move.\n`
  text += `${moves.length} partition(s) change: ${summary.movedReplicas} replica(s) move, ${summary.leaderChanges} preferred leader(s) change\n`
  text += table(
    ['TOPIC', 'PARTITION', 'REPLICAS', 'NEW REPLICAS'],
    moves.map((m) => [m.topic, m.partition, ids(m.from), ids(m.to)]),
  )
  return text
}

function planJson(plan: Plan, executed: boolean) {
  return {
    brokers: plan.brokers,
    before: plan.summary.before,
    after: plan.summary.after,
    moves: plan.moves.map((m) => ({ topic: m.topic, partition: m.partition, from: m.from, to: m.to })),
    movedReplicas: plan.summary.movedReplicas,
    leaderChanges: plan.summary.leaderChanges,
    executed,
  }
}

async function execute(client: KafkaClient, plan: Plan, opts: RebalanceOptions, io: ToolIo): Promise<number> {
  const startedAt = Date.now()
  const stop = new AbortController()
  io.onStop(() => stop.abort())
  const results = await alterPartitionReassignments(
    client,
    plan.moves.map((m) => ({ topic: m.topic, partition: m.partition, replicas: m.to })),
  )
  const failed = results.filter((r) => r.error !== null)
  const submitted = plan.moves.filter((m) => !failed.some((f) => f.topic === m.topic && f.partition === m.partition))
  if (!opts.json) {
    for (const f of failed) io.stderr(`cannot move ${f.topic}-${f.partition}: ${f.error}${f.message ? ` (${f.message})` : ''}\n`)
  }
  const refs = submitted.map((m) => ({ topic: m.topic, partition: m.partition }))
  await waitForMoves(client, refs, opts, io, stop.signal, startedAt)
  const elections = await electPreferred(client, refs, opts.pollIntervalMs, stop.signal)
  const after = loadsOf(await client.metadata(null, { refresh: true }), plan)
  const durationMs = Date.now() - startedAt
  const elected = elections.filter((e) => e.error === null).length
  const notNeeded = elections.filter((e) => e.error === 'ELECTION_NOT_NEEDED').length
  const electionFailures = elections.filter((e) => e.error !== null && e.error !== 'ELECTION_NOT_NEEDED')
  if (opts.json) {
    printJson(io, {
      ...planJson(plan, true),
      failed,
      elections: { elected, notNeeded, failed: electionFailures },
      durationMs,
    })
  } else {
    let text = `\nRebalance done in ${(durationMs / 1000).toFixed(1)} s: ${submitted.length} partition(s) reassigned`
    text += `, ${elected} leader(s) elected${failed.length > 0 ? `, ${failed.length} partition(s) could not be moved` : ''}.\n\n`
    text += table(
      ['BROKER', 'REPLICAS', 'LEADERS'],
      after.map((l) => [l.broker, l.replicas, l.leaders]),
    )
    text += '(leaders: current leaders)\n'
    io.stdout(text)
  }
  for (const e of electionFailures) {
    io.stderr(`warning: ${e.topic}-${e.partition} is not led by its preferred replica: ${e.error}${e.message ? ` (${e.message})` : ''}\n`)
  }
  if (electionFailures.length > 0) io.stderr('  elect them later with: tributary cluster elect-leaders\n')
  return failed.length > 0 ? 1 : 0
}

/** Polls ListPartitionReassignments until none of `refs` is moving; a progress line on stderr. */
async function waitForMoves(
  client: KafkaClient,
  refs: TopicPartitionRef[],
  opts: RebalanceOptions,
  io: ToolIo,
  signal: AbortSignal,
  startedAt: number,
): Promise<void> {
  let lastLine = ''
  const show = (line: string) => {
    if (line === lastLine) return
    lastLine = line
    io.stderr(io.isTty ? `\r\x1b[K${line}` : `${line}\n`)
  }
  try {
    for (;;) {
      const left = refs.length === 0 ? [] : await listPartitionReassignments(client, refs)
      const adding = left.reduce((n, r) => n + r.addingReplicas.length, 0)
      show(
        `rebalance: ${refs.length - left.length}/${refs.length} partitions done${left.length > 0 ? `, ${adding} replica(s) still catching up` : ''}`,
      )
      if (left.length === 0) return
      if (signal.aborted) throw new ToolError(`interrupted with ${left.length} partition(s) still moving`, FOLLOW_HINT)
      if (Date.now() - startedAt > opts.timeoutMs) {
        throw new ToolError(`${left.length} partition(s) still moving after ${Math.round(opts.timeoutMs / 1000)} s`, FOLLOW_HINT)
      }
      await sleep(opts.pollIntervalMs, signal)
    }
  } finally {
    if (io.isTty && lastLine) io.stderr('\n')
  }
}

/** Preferred elections for the moved partitions; a preferred replica not in sync yet is tried again. */
async function electPreferred(
  client: KafkaClient,
  refs: TopicPartitionRef[],
  pauseMs: number,
  signal: AbortSignal,
): Promise<PartitionResult[]> {
  const done = new Map<string, PartitionResult>()
  let pending = refs
  for (let attempt = 1; pending.length > 0; attempt++) {
    const results = await electLeaders(client, 'preferred', pending)
    for (const r of results) done.set(key(r.topic, r.partition), r)
    pending = results.filter((r) => r.error === 'PREFERRED_LEADER_NOT_AVAILABLE').map((r) => ({ topic: r.topic, partition: r.partition }))
    if (attempt >= ELECTION_ATTEMPTS || signal.aborted) break
    if (pending.length > 0) await sleep(pauseMs, signal)
  }
  return [...done.values()]
}

/** Replicas and current leaders per broker, over the partitions the plan covered. */
function loadsOf(md: ClusterMetadata, plan: Plan): Array<{ broker: number; replicas: number; leaders: number }> {
  const counts = new Map<number, { replicas: number; leaders: number }>()
  const at = (b: number) => {
    let c = counts.get(b)
    if (!c) counts.set(b, (c = { replicas: 0, leaders: 0 }))
    return c
  }
  for (const b of md.brokers.keys()) at(b)
  for (const t of md.topics.values()) {
    for (const p of t.partitions) {
      if (!plan.current.has(key(t.name, p.partition))) continue
      for (const r of p.replicas) at(r).replicas++
      if (p.leader >= 0) at(p.leader).leaders++
    }
  }
  return [...counts].sort(([a], [b]) => a - b).map(([broker, c]) => ({ broker, ...c }))
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const t = setTimeout(done, ms)
    function done() {
      clearTimeout(t)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done)
  })
}

// ---------------------------------------------------------------------------------------------
// reassignments

async function runList(opts: ConnectionOptions & JsonOption, io: ToolIo): Promise<void> {
  const moving = await withClient(opts, (client) => listPartitionReassignments(client))
  if (opts.json) {
    printJson(io, moving)
    return
  }
  if (moving.length === 0) {
    io.stdout('No partition reassignment in progress.\n')
    return
  }
  io.stdout(
    table(
      ['TOPIC', 'PARTITION', 'REPLICAS', 'ADDING', 'REMOVING'],
      moving.map((r) => [r.topic, r.partition, ids(r.replicas), ids(r.addingReplicas) || '-', ids(r.removingReplicas) || '-']),
    ),
  )
}

// ---------------------------------------------------------------------------------------------
// elect-leaders

async function runElect(opts: ElectOptions, io: ToolIo): Promise<number> {
  if (opts.partition !== undefined && opts.topic === undefined) throw new UsageError('--partition needs --topic')
  const kind = opts.unclean ? 'unclean' : 'preferred'
  const results = await withClient(opts, async (client) => {
    if (opts.topic === undefined) return electLeaders(client, kind, null)
    const t = (await client.metadata([opts.topic], { refresh: true })).topics.get(opts.topic)
    if (!t || t.error === 'UNKNOWN_TOPIC_OR_PARTITION') throw new ToolError(`topic '${opts.topic}' does not exist`, LIST_TOPICS_HINT)
    if (opts.partition !== undefined && !t.partitions.some((p) => p.partition === opts.partition)) {
      throw new ToolError(`topic '${opts.topic}' has no partition ${opts.partition}`, `its partitions are 0..${t.partitions.length - 1}`)
    }
    const partitions = opts.partition !== undefined ? [opts.partition] : t.partitions.map((p) => p.partition)
    return electLeaders(
      client,
      kind,
      partitions.map((partition) => ({ topic: opts.topic!, partition })),
    )
  })
  const failures = results.filter((r) => r.error !== null && r.error !== 'ELECTION_NOT_NEEDED')
  if (opts.json) printJson(io, results)
  else if (results.length === 0) {
    io.stdout(
      opts.unclean
        ? 'Every partition has a live leader: no election needed.\n'
        : 'Every partition is led by its preferred replica: no election needed.\n',
    )
  } else {
    io.stdout(
      table(
        ['TOPIC', 'PARTITION', 'RESULT'],
        results.map((r) => [
          r.topic,
          r.partition,
          r.error === null
            ? 'elected'
            : r.error === 'ELECTION_NOT_NEEDED'
              ? 'not needed'
              : `${r.error}${r.message ? `: ${r.message}` : ''}`,
        ]),
      ),
    )
  }
  if (failures.length > 0) {
    throw new ToolError(
      `${failures.length} partition(s) got no new leader`,
      opts.unclean
        ? 'a partition needs at least one live replica'
        : 'a preferred replica must be alive and in sync; try again once it caught up, or use --unclean for partitions without a live in-sync replica',
    )
  }
  return 0
}
