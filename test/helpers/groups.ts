// Consumer-group test helpers: one `GroupMember` abstraction over three real clients — kafkajs
// (classic protocol, non-flexible versions), @platformatic/kafka (flexible versions, JoinGroup v9)
// and kcat -G (librdkafka, JoinGroup v5) — recording every record received and every assignment
// the client reports, plus group inspectors (kafkajs / platformatic admin), wait-for-settled, and
// the scenarios every client file runs (disjoint share, idle 7th member, join/leave/kill churn,
// two groups, static membership).
//
// A kafkajs or platformatic member can run in a child process (`childProcess: true`), so that
// kill() can SIGKILL it: its socket dies without LeaveGroup and the coordinator only notices when
// the session times out. The child is this very file run as a script:
//   node dist/test/helpers/groups.js member '<MemberOptions JSON>'
// It reports to the parent on stdout, one JSON object per line.

import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { resolve as resolvePath } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Admin as PAdmin, Consumer as PConsumer, type MessagesStream, stringDeserializers } from '@platformatic/kafka'
import { type Admin as KAdmin, AssignerProtocol, type Consumer as KConsumer, Kafka, logLevel } from 'kafkajs'
import { makeRecords, type ProducedRecord, sleep } from './clients.js'

const THIS_FILE = fileURLToPath(import.meta.url)

/** Broker overrides that keep group tests fast: no initial rebalance delay, short sessions allowed. */
export const GROUP_BROKER_OVERRIDES: Readonly<Record<string, string>> = {
  'group.initial.rebalance.delay.ms': '0',
  'group.min.session.timeout.ms': '1000',
}

export const DEFAULT_SESSION_TIMEOUT_MS = 6000
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 500
export const DEFAULT_REBALANCE_TIMEOUT_MS = 20_000
/** Fetch long-poll of the kafkajs and platformatic members (maxWaitTime). */
export const FETCH_MAX_WAIT_MS = 500
/**
 * Pause between "the group settled" and producing records that must arrive exactly once. A
 * client may have a Fetch for its previous assignment parked at the broker (a long-poll issued
 * before the rebalance, up to FETCH_MAX_WAIT_MS): @platformatic/kafka delivers what such a fetch
 * returns even for partitions it no longer owns, so records produced within that window can reach
 * the old owner too. That is the client's at-least-once, not the broker's doing; nothing outside the
 * client shows when the fetch has come back, hence a fixed pause of two long-polls.
 */
export const STALE_FETCH_GRACE_MS = 2 * FETCH_MAX_WAIT_MS

export type GroupClient = 'kafkajs' | 'platformatic' | 'kcat'

export interface MemberOptions {
  client: GroupClient
  /** Client id and label in messages. */
  name: string
  bootstrap: string
  groupId: string
  topic: string
  sessionTimeoutMs?: number
  heartbeatIntervalMs?: number
  rebalanceTimeoutMs?: number
  /** Static membership (KIP-345): kcat `group.instance.id`, platformatic `groupInstanceId`. */
  groupInstanceId?: string
  /** Where to start without a committed offset (default earliest). */
  reset?: 'earliest' | 'latest'
  /** kafkajs/platformatic: run in a child process so kill() can SIGKILL it. kcat always is one. */
  childProcess?: boolean
  /** kcat only: partition.assignment.strategy (e.g. cooperative-sticky); default librdkafka's range,roundrobin. */
  assignor?: string
}

export interface GroupRecord {
  member: string
  partition: number
  offset: number
  key: string | null
  value: string | null
  atMs: number
}

export interface AssignmentEvent {
  atMs: number
  /** null: revoked / rebalance announced. */
  partitions: number[] | null
  memberId: string | null
  generation: number | null
}

const sortNum = (xs: Iterable<number>) => [...xs].sort((a, b) => a - b)

/** One consumer-group member of any client, and what it has seen so far. */
export class GroupMember {
  readonly records: GroupRecord[] = []
  readonly history: AssignmentEvent[] = []
  /** Last assignment reported by the client; null before the first one and after a revocation. */
  assigned: number[] | null = null
  memberId: string | null = null
  /** platformatic only (kafkajs and kcat do not expose it). */
  generation: number | null = null
  isLeader: boolean | null = null
  /** Completed assignments (joins / rebalances this member went through). */
  joins = 0
  revokes = 0
  alive = true
  readonly notes: string[] = []
  private stopFn: (() => Promise<void>) | null = null
  private killFn: (() => Promise<void>) | null = null

  constructor(readonly opts: MemberOptions) {}

  get name(): string {
    return this.opts.name
  }

  setControls(stop: () => Promise<void>, kill: (() => Promise<void>) | null): void {
    this.stopFn = stop
    this.killFn = kill
  }

  onAssign(memberId: string | null, partitions: number[], generation: number | null, isLeader: boolean | null): void {
    this.assigned = sortNum(partitions)
    if (memberId !== null) this.memberId = memberId
    if (generation !== null) this.generation = generation
    if (isLeader !== null) this.isLeader = isLeader
    this.joins++
    this.history.push({ atMs: Date.now(), partitions: this.assigned, memberId: this.memberId, generation: this.generation })
  }

  /** Cooperative (incremental) rebalance callbacks: partitions added to or removed from the assignment. */
  onIncremental(memberId: string | null, kind: 'assign' | 'revoke', partitions: number[]): void {
    if (memberId !== null) this.memberId = memberId
    const cur = new Set(this.assigned ?? [])
    for (const p of partitions) {
      if (kind === 'assign') cur.add(p)
      else cur.delete(p)
    }
    this.assigned = sortNum(cur)
    if (kind === 'assign') this.joins++
    else this.revokes++
    this.history.push({ atMs: Date.now(), partitions: this.assigned, memberId: this.memberId, generation: this.generation })
  }

  onRevoke(): void {
    this.assigned = null
    this.revokes++
    this.history.push({ atMs: Date.now(), partitions: null, memberId: this.memberId, generation: this.generation })
  }

  onRecord(partition: number, offset: number, key: string | null, value: string | null): void {
    this.records.push({ member: this.name, partition, offset, key, value, atMs: Date.now() })
  }

  note(msg: string): void {
    this.notes.push(`${new Date().toISOString()} ${msg}`)
    if (this.notes.length > 200) this.notes.splice(0, this.notes.length - 200)
  }

  /** Leaves cleanly: kafkajs disconnect, platformatic close (LeaveGroup), kcat SIGTERM. */
  async stop(): Promise<void> {
    if (!this.alive) return
    this.alive = false
    await this.stopFn?.()
  }

  /** Dies without LeaveGroup (SIGKILL of the process); only child-process members and kcat. */
  async kill(): Promise<void> {
    if (!this.killFn) throw new Error(`${this.name} (${this.opts.client}, in-process) cannot be killed; start it with childProcess: true`)
    this.alive = false
    await this.killFn()
  }

  summary(): string {
    const last = this.history
      .slice(-4)
      .map((h) => `${h.partitions === null ? 'revoked' : `[${h.partitions.join(',')}]`}${h.generation !== null ? `@g${h.generation}` : ''}`)
    return `${this.name}(${this.opts.client}${this.opts.groupInstanceId ? ` static=${this.opts.groupInstanceId}` : ''}) alive=${this.alive} member=${this.memberId} assigned=${this.assigned === null ? 'none' : `[${this.assigned.join(',')}]`} joins=${this.joins} revokes=${this.revokes} records=${this.records.length} history=${last.join(' ')}${this.notes.length ? ` notes: ${this.notes.slice(-3).join(' | ')}` : ''}`
  }
}

// ---------------------------------------------------------------------------------------------
// Child processes: tracked and SIGKILLed when the test process exits.

const liveChildren = new Set<ChildProcess>()
let exitHook = false
function track(child: ChildProcess): void {
  liveChildren.add(child)
  child.once('exit', () => liveChildren.delete(child))
  if (!exitHook) {
    exitHook = true
    process.on('exit', () => {
      for (const c of liveChildren) {
        try {
          c.kill('SIGKILL')
        } catch {
          // gone
        }
      }
    })
  }
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

async function signalAndWait(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const done = exitOf(child)
  child.kill(signal)
  let timer: NodeJS.Timeout | undefined
  const timedOut = await Promise.race([done.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs)))])
  clearTimeout(timer)
  if (timedOut) {
    child.kill('SIGKILL')
    await done
  }
}

/** Calls onLine for every complete line of a stream. */
function lines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buf = ''
  stream.setEncoding('utf8')
  stream.on('data', (s: string) => {
    buf += s
    let i = buf.indexOf('\n')
    while (i >= 0) {
      onLine(buf.slice(0, i))
      buf = buf.slice(i + 1)
      i = buf.indexOf('\n')
    }
  })
}

// ---------------------------------------------------------------------------------------------
// kafkajs.

async function startKafkajsInProcess(m: GroupMember): Promise<void> {
  const o = m.opts
  const kafka = new Kafka({
    clientId: o.name,
    brokers: [o.bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 1000 },
    connectionTimeout: 3000,
  })
  const consumer: KConsumer = kafka.consumer({
    groupId: o.groupId,
    sessionTimeout: o.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS,
    heartbeatInterval: o.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS,
    rebalanceTimeout: o.rebalanceTimeoutMs ?? DEFAULT_REBALANCE_TIMEOUT_MS,
    // kafkajs heartbeats from its fetch loop: a short long-poll keeps it responsive to rebalances.
    maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
    retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 1000 },
  })
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    m.onAssign(e.payload.memberId, e.payload.memberAssignment[o.topic] ?? [], null, e.payload.isLeader)
  })
  consumer.on(consumer.events.REBALANCING, () => m.onRevoke())
  consumer.on(consumer.events.CRASH, (e) => m.note(`crash: ${String(e.payload.error)} restart=${e.payload.restart}`))
  await consumer.connect()
  await consumer.subscribe({ topics: [o.topic], fromBeginning: (o.reset ?? 'earliest') === 'earliest' })
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      m.onRecord(partition, Number(message.offset), message.key?.toString('utf8') ?? null, message.value?.toString('utf8') ?? null)
    },
  })
  m.setControls(() => consumer.disconnect(), null)
}

// ---------------------------------------------------------------------------------------------
// @platformatic/kafka.

async function startPlatformaticInProcess(m: GroupMember): Promise<void> {
  const o = m.opts
  const sessionTimeout = o.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS
  const consumer = new PConsumer<string, string, string, string>({
    clientId: o.name,
    groupId: o.groupId,
    bootstrapBrokers: [o.bootstrap],
    sessionTimeout,
    heartbeatInterval: o.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS,
    rebalanceTimeout: Math.max(o.rebalanceTimeoutMs ?? DEFAULT_REBALANCE_TIMEOUT_MS, sessionTimeout),
    ...(o.groupInstanceId ? { groupInstanceId: o.groupInstanceId } : {}),
    deserializers: stringDeserializers,
    maxWaitTime: FETCH_MAX_WAIT_MS,
    autocommit: true,
    retries: 10,
    retryDelay: 200,
  })
  consumer.on('consumer:group:join', (p) => {
    const a = p.assignments?.find((x) => x.topic === o.topic)
    m.onAssign(p.memberId, a?.partitions ?? [], p.generationId ?? null, p.isLeader ?? null)
  })
  consumer.on('consumer:group:rebalance', () => m.onRevoke())
  consumer.on('consumer:heartbeat:error', (p) => m.note(`heartbeat error: ${String(p.error)}`))
  const stream: MessagesStream<string, string, string, string> = await consumer.consume({
    topics: [o.topic],
    mode: 'committed',
    fallbackMode: o.reset ?? 'earliest',
    autocommit: true,
    maxWaitTime: FETCH_MAX_WAIT_MS,
  })
  stream.on('data', (msg) => {
    m.onRecord(msg.partition, Number(msg.offset), msg.key ?? null, msg.value ?? null)
  })
  stream.on('error', (e) => m.note(`stream error: ${String(e)}`))
  m.setControls(async () => {
    await stream.close()
    await consumer.close()
  }, null)
}

// ---------------------------------------------------------------------------------------------
// kcat -G (librdkafka's classic group consumer).

const KCAT_REBALANCE_RE = /^% Group \S+ rebalanced \(memberid ([^)]*)\): (assigned|revoked): ?(.*)$/
const KCAT_INCREMENTAL_RE =
  /^% Group \S+ rebalanced: incremental (assignment|revoke) of \d+ partition\(s\) \(memberid ([^,)]*)[^)]*\): ?(.*)$/
const KCAT_RECORD_RE = /^(\d+) (\d+) (\S*) (.*)$/

async function startKcat(m: GroupMember): Promise<void> {
  const o = m.opts
  const args = [
    '-b',
    o.bootstrap,
    '-G',
    o.groupId,
    '-X',
    `client.id=${o.name}`,
    '-X',
    `session.timeout.ms=${o.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS}`,
    '-X',
    `heartbeat.interval.ms=${o.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS}`,
    // Offsets are committed on librdkafka's 5 s auto-commit timer and on revoke/close: kcat's -X
    // puts auto.commit.interval.ms on the legacy topic property of that name, not the consumer's.
    '-X',
    `topic.auto.offset.reset=${o.reset ?? 'earliest'}`,
    '-f',
    '%p %o %k %s\n',
    '-u',
    // Keep running through transient errors (e.g. all brokers down while the broker restarts).
    '-E',
  ]
  if (o.groupInstanceId) args.push('-X', `group.instance.id=${o.groupInstanceId}`)
  if (o.assignor) args.push('-X', `partition.assignment.strategy=${o.assignor}`)
  args.push(o.topic)
  const child = spawn('kcat', args, { stdio: ['ignore', 'pipe', 'pipe'] })
  track(child)
  lines(child.stdout!, (line) => {
    const r = KCAT_RECORD_RE.exec(line)
    if (r) m.onRecord(Number(r[1]), Number(r[2]), r[3]!, r[4]!)
    else if (line !== '') m.note(`stdout: ${line}`)
  })
  const topicPartitions = (list: string) => {
    const parts: number[] = []
    for (const x of list.matchAll(/(\S+) \[(\d+)\]/g)) if (x[1] === o.topic) parts.push(Number(x[2]))
    return parts
  }
  lines(child.stderr!, (line) => {
    const inc = KCAT_INCREMENTAL_RE.exec(line)
    if (inc) {
      m.onIncremental(inc[2]!, inc[1] === 'assignment' ? 'assign' : 'revoke', topicPartitions(inc[3]!))
      return
    }
    const r = KCAT_REBALANCE_RE.exec(line)
    if (!r) {
      if (line.includes('ERROR') || line.includes('FAIL') || line.includes('rror')) m.note(line)
      return
    }
    if (r[2] === 'revoked') {
      m.onRevoke()
      return
    }
    m.onAssign(r[1]!, topicPartitions(r[3]!), null, null)
  })
  child.once('exit', (code, signal) => {
    m.alive = false
    m.note(`kcat exited code=${code} signal=${signal}`)
  })
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve())
    child.once('error', reject)
  })
  m.setControls(
    () => signalAndWait(child, 'SIGTERM', 15_000),
    () => signalAndWait(child, 'SIGKILL', 5_000),
  )
}

// ---------------------------------------------------------------------------------------------
// kafkajs / platformatic in a child process.

interface ChildMessage {
  t: 'assign' | 'revoke' | 'rec' | 'note' | 'ready'
  memberId?: string | null
  partitions?: number[]
  generation?: number | null
  isLeader?: boolean | null
  p?: number
  o?: number
  k?: string | null
  v?: string | null
  msg?: string
}

async function startChild(m: GroupMember): Promise<void> {
  const child = spawn(process.execPath, [THIS_FILE, 'member', JSON.stringify({ ...m.opts, childProcess: false })], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  track(child)
  let ready: () => void = () => {}
  const readyP = new Promise<void>((r) => (ready = r))
  lines(child.stdout!, (line) => {
    if (line === '') return
    let msg: ChildMessage
    try {
      msg = JSON.parse(line) as ChildMessage
    } catch {
      m.note(`child stdout: ${line}`)
      return
    }
    switch (msg.t) {
      case 'assign':
        m.onAssign(msg.memberId ?? null, msg.partitions ?? [], msg.generation ?? null, msg.isLeader ?? null)
        break
      case 'revoke':
        m.onRevoke()
        break
      case 'rec':
        m.onRecord(msg.p!, msg.o!, msg.k ?? null, msg.v ?? null)
        break
      case 'note':
        m.note(`child: ${msg.msg}`)
        break
      case 'ready':
        ready()
        break
    }
  })
  lines(child.stderr!, (line) => {
    if (line.trim() !== '') m.note(`child stderr: ${line}`)
  })
  const exited = exitOf(child)
  child.once('exit', (code, signal) => {
    m.alive = false
    m.note(`child exited code=${code} signal=${signal}`)
    ready()
  })
  m.setControls(
    () => signalAndWait(child, 'SIGTERM', 15_000),
    () => signalAndWait(child, 'SIGKILL', 5_000),
  )
  await Promise.race([readyP, exited])
}

/** The child side: runs one member in-process and reports to the parent on stdout. */
class ReportingMember extends GroupMember {
  private send(msg: ChildMessage): void {
    process.stdout.write(`${JSON.stringify(msg)}\n`)
  }
  override onAssign(memberId: string | null, partitions: number[], generation: number | null, isLeader: boolean | null): void {
    super.onAssign(memberId, partitions, generation, isLeader)
    this.send({ t: 'assign', memberId, partitions, generation, isLeader })
  }
  override onRevoke(): void {
    super.onRevoke()
    this.send({ t: 'revoke' })
  }
  override onRecord(partition: number, offset: number, key: string | null, value: string | null): void {
    this.send({ t: 'rec', p: partition, o: offset, k: key, v: value })
  }
  override note(msg: string): void {
    this.send({ t: 'note', msg })
  }
}

async function childMain(opts: MemberOptions): Promise<void> {
  const m = new ReportingMember(opts)
  if (opts.client === 'kafkajs') await startKafkajsInProcess(m)
  else if (opts.client === 'platformatic') await startPlatformaticInProcess(m)
  else throw new Error(`child member of client ${opts.client}`)
  process.stdout.write(`${JSON.stringify({ t: 'ready' })}\n`)
  process.once('SIGTERM', () => {
    m.stop()
      .catch((e) => m.note(`stop failed: ${String(e)}`))
      .finally(() => process.exit(0))
  })
}

// ---------------------------------------------------------------------------------------------
// Starting members.

/** Starts a member; resolves once the client runs (not once it has joined). */
export async function startMember(opts: MemberOptions): Promise<GroupMember> {
  const m = new GroupMember(opts)
  if (opts.client === 'kcat') await startKcat(m)
  else if (opts.childProcess) await startChild(m)
  else if (opts.client === 'kafkajs') await startKafkajsInProcess(m)
  else await startPlatformaticInProcess(m)
  return m
}

/** Members of one scenario, stopped together at its end whatever happened. */
export class Cohort {
  readonly members: GroupMember[] = []
  async add(opts: MemberOptions): Promise<GroupMember> {
    const m = await startMember(opts)
    this.members.push(m)
    return m
  }
  async stopAll(): Promise<void> {
    await Promise.allSettled(this.members.map((m) => m.stop()))
  }
  summary(): string {
    return this.members.map((m) => `  ${m.summary()}`).join('\n')
  }
}

// ---------------------------------------------------------------------------------------------
// Inspecting groups through an admin client.

export interface DescribedMember {
  memberId: string
  groupInstanceId: string | null
  clientId: string
  /** Partitions of the inspected topic in the member's assignment (as the coordinator stores it). */
  partitions: number[]
}

export interface GroupDescription {
  groupId: string
  /** Kafka's spelling: Empty, PreparingRebalance, CompletingRebalance, Stable, Dead. */
  state: string
  protocolType: string
  protocol: string
  members: DescribedMember[]
}

export interface GroupInspector {
  describe(groupId: string, topic: string): Promise<GroupDescription>
  /** Committed offsets of topic's partitions 0..numPartitions-1 (-1 where none). */
  committed(groupId: string, topic: string, numPartitions: number): Promise<number[]>
}

const STATE_NAMES: Record<string, string> = {
  EMPTY: 'Empty',
  PREPARING_REBALANCE: 'PreparingRebalance',
  PREPARINGREBALANCE: 'PreparingRebalance',
  COMPLETING_REBALANCE: 'CompletingRebalance',
  COMPLETINGREBALANCE: 'CompletingRebalance',
  STABLE: 'Stable',
  DEAD: 'Dead',
}
export function normalizeState(s: string): string {
  return STATE_NAMES[s.toUpperCase()] ?? s
}

export function kafkajsInspector(admin: KAdmin): GroupInspector {
  return {
    async describe(groupId, topic) {
      const res = await admin.describeGroups([groupId])
      const g = res.groups.find((x) => x.groupId === groupId)
      assert.ok(g, `describeGroups answers for ${groupId}`)
      return {
        groupId,
        state: normalizeState(g.state),
        protocolType: g.protocolType,
        protocol: g.protocol,
        members: g.members.map((mm) => {
          const decoded = mm.memberAssignment.length > 0 ? AssignerProtocol.MemberAssignment.decode(mm.memberAssignment) : null
          return {
            memberId: mm.memberId,
            groupInstanceId: null, // DescribeGroups v0-2 (kafkajs) has no instance id
            clientId: mm.clientId,
            partitions: sortNum(decoded?.assignment[topic] ?? []),
          }
        }),
      }
    },
    async committed(groupId, topic, numPartitions) {
      const res = await admin.fetchOffsets({ groupId, topics: [topic] })
      const t = res.find((x) => x.topic === topic)
      const out = new Array<number>(numPartitions).fill(-1)
      for (const p of t?.partitions ?? []) if (p.partition < numPartitions) out[p.partition] = Number(p.offset)
      return out
    },
  }
}

export function platformaticInspector(admin: PAdmin): GroupInspector {
  return {
    async describe(groupId, topic) {
      const res = await admin.describeGroups({ groups: [groupId] })
      const g = res.get(groupId)
      assert.ok(g, `describeGroups answers for ${groupId}`)
      return {
        groupId,
        state: normalizeState(g.state),
        protocolType: g.protocolType,
        protocol: g.protocol,
        members: [...g.members.values()].map((mm) => ({
          memberId: mm.id,
          groupInstanceId: mm.groupInstanceId ?? null,
          clientId: mm.clientId,
          partitions: sortNum(mm.assignments?.get(topic)?.partitions ?? []),
        })),
      }
    },
    async committed(groupId, topic, numPartitions) {
      const res = await admin.listConsumerGroupOffsets({
        groups: [{ groupId, topics: [{ name: topic, partitionIndexes: Array.from({ length: numPartitions }, (_, i) => i) }] }],
      })
      const out = new Array<number>(numPartitions).fill(-1)
      const g = res.find((x) => x.groupId === groupId)
      for (const t of g?.topics ?? []) {
        if (t.name !== topic) continue
        for (const p of t.partitions) if (p.partitionIndex < numPartitions) out[p.partitionIndex] = Number(p.committedOffset)
      }
      return out
    },
  }
}

// ---------------------------------------------------------------------------------------------
// Waiting.

/** Polls probe until it returns a value; on timeout the error carries detail() (the state seen). */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  detail: () => string | Promise<string>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  for (;;) {
    try {
      const v = await probe()
      if (v !== undefined && v !== false) return v
      lastError = undefined
    } catch (e) {
      lastError = e
    }
    if (Date.now() > deadline) {
      let d = ''
      try {
        d = await detail()
      } catch (e) {
        d = `(detail failed: ${String(e)})`
      }
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}\n${d}`)
    }
    await sleep(intervalMs)
  }
}

const sameList = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => x === b[i])

function describeText(d: GroupDescription | null): string {
  if (!d) return 'describeGroups: (none yet)'
  return `describeGroups: state=${d.state} protocolType=${d.protocolType} protocol=${d.protocol} members=${d.members
    .map((x) => `${x.memberId}${x.groupInstanceId ? `(${x.groupInstanceId})` : ''}:[${x.partitions.join(',')}]`)
    .join(' ')}`
}

/**
 * Waits until the group is Stable with exactly `members` (by member id), each member's own view of
 * its assignment equals the coordinator's, the assignments are disjoint and cover every partition,
 * and exactly `idle` members have none.
 */
export async function waitSettled(
  inspector: GroupInspector,
  groupId: string,
  topic: string,
  members: GroupMember[],
  numPartitions: number,
  opts: { idle?: number; timeoutMs?: number } = {},
): Promise<GroupDescription> {
  let last: GroupDescription | null = null
  let why = ''
  const unsettled = (d: GroupDescription): string | null => {
    if (d.state !== 'Stable') return `state ${d.state}`
    if (d.members.length !== members.length) return `${d.members.length} members described`
    for (const m of members) {
      if (m.assigned === null || m.memberId === null) return `${m.name} has no assignment`
      const dm = d.members.find((x) => x.memberId === m.memberId)
      if (!dm) return `${m.name} (${m.memberId}) not among the described members`
      if (!sameList(dm.partitions, m.assigned)) return `${m.name} sees [${m.assigned}], coordinator has [${dm.partitions}]`
    }
    const all = members.flatMap((m) => m.assigned!)
    if (new Set(all).size !== all.length) return `overlapping assignments [${all}]`
    if (all.length !== numPartitions) return `${all.length} of ${numPartitions} partitions assigned`
    const idle = members.filter((m) => m.assigned!.length === 0).length
    if (idle !== (opts.idle ?? 0)) return `${idle} idle members`
    return null
  }
  return waitUntil(
    `group ${groupId} to settle on ${members.map((m) => m.name).join(', ')}`,
    async () => {
      const d = await inspector.describe(groupId, topic)
      last = d
      why = unsettled(d) ?? ''
      return why === '' ? d : false
    },
    () => `last reason: ${why}\n${describeText(last)}\n${members.map((m) => `  ${m.summary()}`).join('\n')}`,
    opts.timeoutMs ?? 30_000,
  )
}

/** value → number of times any of members received it. */
export function receiptCounts(members: GroupMember[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const m of members) for (const r of m.records) if (r.value !== null) counts.set(r.value, (counts.get(r.value) ?? 0) + 1)
  return counts
}

/** Who received each of values (member, partition@offset, when), and the members' assignment histories: for failure messages. */
export function receiptDetail(members: GroupMember[], values: string[], t0 = 0): string {
  const want = new Set(values.slice(0, 5))
  const lines: string[] = []
  for (const m of members) {
    for (const r of m.records) {
      if (r.value !== null && want.has(r.value)) lines.push(`  ${r.value}: ${m.name} p${r.partition}@${r.offset} at +${r.atMs - t0} ms`)
    }
  }
  for (const m of members) {
    lines.push(
      `  ${m.name} history: ${m.history.map((h) => `+${h.atMs - t0}ms ${h.partitions === null ? 'revoked' : `[${h.partitions}]`}${h.generation !== null ? `@g${h.generation}` : ''}`).join(' ')}`,
    )
  }
  return lines.join('\n')
}

/** Asserts each of values was received exactly once by members (together). */
export function assertExactlyOnce(members: GroupMember[], values: string[], what: string, t0 = 0): void {
  const counts = receiptCounts(members)
  const bad = values.filter((v) => counts.get(v) !== 1)
  if (bad.length === 0) return
  assert.fail(
    `${what}: ${bad.length} records not received exactly once (${bad
      .slice(0, 5)
      .map((v) => `${v} ×${counts.get(v) ?? 0}`)
      .join(', ')})\n${receiptDetail(members, bad, t0)}`,
  )
}

/** Waits until every produced record has been received at least once by one of members. */
export async function waitAllReceived(members: GroupMember[], produced: ProducedRecord[], timeoutMs = 30_000): Promise<void> {
  const missing = () => {
    const counts = receiptCounts(members)
    return produced.filter((r) => !counts.has(r.value))
  }
  await waitUntil(
    `${produced.length} records to be received by ${members.map((m) => m.name).join(', ')}`,
    () => missing().length === 0,
    () => {
      const miss = missing()
      const byP = new Map<number, number>()
      for (const r of miss) byP.set(r.partition, (byP.get(r.partition) ?? 0) + 1)
      return `missing ${miss.length} (per partition: ${[...byP].map(([p, n]) => `${p}:${n}`).join(' ')}; first: ${miss[0]?.value})\n${members.map((m) => `  ${m.summary()}`).join('\n')}`
    },
    timeoutMs,
  )
}

/** End offset of every partition after `produced` went into an empty topic. */
export function endOffsets(produced: ProducedRecord[], numPartitions: number): number[] {
  const ends = new Array<number>(numPartitions).fill(0)
  for (const r of produced) ends[r.partition]!++
  return ends
}

/** Waits until the group's committed offsets equal `ends` (everything consumed is committed). */
export async function waitCommitted(
  inspector: GroupInspector,
  groupId: string,
  topic: string,
  ends: number[],
  timeoutMs = 20_000,
): Promise<void> {
  let last: number[] = []
  await waitUntil(
    `group ${groupId} to commit [${ends.join(',')}] on ${topic}`,
    async () => {
      last = await inspector.committed(groupId, topic, ends.length)
      return sameList(last, ends)
    },
    () => `committed: [${last.join(',')}]`,
    timeoutMs,
    200,
  )
}

/** Records with unique keys/values tagged by `tag`, partitioned as the Java partitioner does. */
export function taggedRecords(tag: string, count: number, numPartitions: number): ProducedRecord[] {
  return makeRecords({ count, numPartitions, client: tag, baseTimestamp: Date.now() })
}

/** Every received record sits on the partition the Java partitioner picks for its key. */
export function assertPartitioning(members: GroupMember[], produced: ProducedRecord[]): void {
  const want = new Map(produced.map((r) => [r.value, r.partition]))
  for (const m of members) {
    for (const r of m.records) {
      const p = r.value === null ? undefined : want.get(r.value)
      if (p !== undefined) assert.equal(r.partition, p, `${m.name} got ${r.value} from partition ${r.partition}`)
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Scenarios shared by the three client files.

export interface GroupSuite {
  client: GroupClient
  bootstrap: string
  inspector: GroupInspector
  createTopic(topic: string, partitions: number): Promise<void>
  produce(topic: string, records: ProducedRecord[]): Promise<void>
  log(msg: string): void
}

function memberOpts(s: GroupSuite, groupId: string, topic: string, name: string, extra: Partial<MemberOptions> = {}): MemberOptions {
  return { client: s.client, name, bootstrap: s.bootstrap, groupId, topic, ...extra }
}

/**
 * 1. `count` members of one group on a `partitions`-partition topic: after the group settles each
 * member owns a disjoint, non-empty share, receives only records of its own partitions, and
 * together they receive every record produced afterwards exactly once.
 * 2. With more members than partitions (idle = members - partitions), the surplus members own
 * nothing and receive nothing.
 */
export async function scenarioShare(
  s: GroupSuite,
  opts: { label: string; members: number; partitions: number; records: number },
): Promise<void> {
  const topic = `${s.client}-${opts.label}`
  const groupId = `${s.client}-${opts.label}-group`
  const idle = Math.max(0, opts.members - opts.partitions)
  await s.createTopic(topic, opts.partitions)
  const cohort = new Cohort()
  try {
    const t0 = Date.now()
    const members = await Promise.all(
      Array.from({ length: opts.members }, (_, i) => cohort.add(memberOpts(s, groupId, topic, `${opts.label}-${i}`))),
    )
    const d = await waitSettled(s.inspector, groupId, topic, members, opts.partitions, { idle })
    s.log(`${opts.label}: settled after ${Date.now() - t0} ms: ${members.map((m) => `${m.name}=[${m.assigned}]`).join(' ')}`)
    assert.equal(d.protocolType, 'consumer')
    const idleMembers = members.filter((m) => m.assigned!.length === 0)
    assert.equal(idleMembers.length, idle, 'members without partitions')
    if (idle === 0) for (const m of members) assert.ok(m.assigned!.length > 0, `${m.name} owns at least one partition`)
    const joinsAtSettle = members.map((m) => m.joins)
    await sleep(STALE_FETCH_GRACE_MS)

    const produced = taggedRecords(`${s.client}-${opts.label}`, opts.records, opts.partitions)
    await s.produce(topic, produced)
    await waitAllReceived(members, produced)
    // Give a straggling duplicate delivery a moment to show up before counting.
    await sleep(300)

    assertPartitioning(members, produced)
    assertExactlyOnce(
      members,
      produced.map((r) => r.value),
      `${opts.label}: records produced after the group settled`,
      t0,
    )
    const counts = receiptCounts(members)
    assert.equal(
      [...counts.values()].reduce((a, b) => a + b, 0),
      opts.records,
      'records received in total',
    )
    for (const m of members) {
      const foreign = m.records.filter((r) => !m.assigned!.includes(r.partition))
      assert.equal(
        foreign.length,
        0,
        `${m.name} received ${foreign.length} records of partitions it does not own (e.g. partition ${foreign[0]?.partition})`,
      )
      if (m.assigned!.length > 0) assert.ok(m.records.length > 0, `${m.name} (owns [${m.assigned}]) received records`)
      else assert.equal(m.records.length, 0, `${m.name} owns no partition and receives nothing`)
    }
    // Which member consumed each partition: exactly one each.
    const owners = new Map<number, Set<string>>()
    for (const m of members) for (const r of m.records) owners.set(r.partition, (owners.get(r.partition) ?? new Set()).add(m.name))
    for (const [p, who] of owners) assert.equal(who.size, 1, `partition ${p} consumed by ${[...who].join(', ')}`)
    assert.deepEqual(
      members.map((m) => m.joins),
      joinsAtSettle,
      'no rebalance while consuming',
    )
  } catch (e) {
    s.log(`${opts.label} members:\n${cohort.summary()}`)
    throw e
  } finally {
    await cohort.stopAll()
  }
}

/**
 * 3. Membership changes — a member joins, one leaves cleanly, one is killed (no LeaveGroup: the
 * session times out) — each trigger a rebalance after which consumption continues: records
 * produced right after each change all arrive (no gap), and nothing committed before a change is
 * delivered again after it (a new owner resumes at the committed offset).
 *
 * `killable` starts the member that is later killed (a child process or kcat).
 */
export async function scenarioChurn(
  s: GroupSuite,
  opts: {
    killable: Partial<MemberOptions>
    records?: number
    label?: string
    member?: Partial<MemberOptions>
    /**
     * Let the leaving member exit before producing the records of the leave phase. kcat needs it:
     * a record librdkafka hands over after SIGTERM is not printed (kcat returns early once it is
     * told to stop) but its offset is stored and committed on close, so it is lost to the group —
     * a client artefact, not a broker fault.
     */
    stopBeforeProducing?: boolean
  },
): Promise<void> {
  const P = 6
  const N = opts.records ?? 240
  const label = opts.label ?? 'churn'
  const topic = `${s.client}-${label}`
  const groupId = `${s.client}-${label}-group`
  const extra = opts.member ?? {}
  await s.createTopic(topic, P)
  const cohort = new Cohort()
  const produced: ProducedRecord[] = []
  /** Receipt counts of the records committed at each checkpoint; they must never grow. */
  const frozen = new Map<string, number>()
  const phase = async (phaseLabel: string, members: () => GroupMember[], during?: () => Promise<void>, changeFirst = false) => {
    const recs = taggedRecords(`${s.client}-${label}-${phaseLabel}`, N, P)
    const t0 = Date.now()
    const change = during?.()
    if (changeFirst) await change
    await s.produce(topic, recs)
    produced.push(...recs)
    await change
    const d = await waitSettled(s.inspector, groupId, topic, members(), P, { timeoutMs: 40_000 })
    const settledMs = Date.now() - t0
    await waitAllReceived(cohort.members, recs)
    await waitCommitted(s.inspector, groupId, topic, endOffsets(produced, P))
    const counts = receiptCounts(cohort.members)
    for (const r of recs) frozen.set(r.value, counts.get(r.value) ?? 0)
    const dups = recs.filter((r) => (counts.get(r.value) ?? 0) > 1).length
    s.log(
      `${label} ${phaseLabel}: settled ${settledMs} ms after the change on ${describeText(d)}; ${dups} of ${N} records of this phase delivered twice`,
    )
    return settledMs
  }
  try {
    const a = await cohort.add(memberOpts(s, groupId, topic, `${label}-a`, { sessionTimeoutMs: 10_000, ...extra }))
    const b = await cohort.add(memberOpts(s, groupId, topic, `${label}-b`, { sessionTimeoutMs: 15_000, ...extra }))
    await phase('start', () => [a, b])

    let c: GroupMember | undefined
    await phase(
      'join',
      () => [a, b, c!],
      async () => {
        c = await cohort.add(memberOpts(s, groupId, topic, `${label}-c`, { sessionTimeoutMs: 6000, ...extra, ...opts.killable }))
      },
    )
    for (const m of [a, b, c!]) assert.ok(m.assigned!.length > 0, `${m.name} owns partitions after the join`)

    // Clean leave: b's session (15 s) is long, so a prompt rebalance proves LeaveGroup was honoured.
    const leaveMs = await phase(
      'leave',
      () => [a, c!],
      () => b.stop(),
      opts.stopBeforeProducing,
    )
    assert.ok(
      leaveMs < 10_000,
      `rebalance after a clean leave took ${leaveMs} ms (b's session timeout is 15 s: LeaveGroup must trigger it)`,
    )

    // Kill: no LeaveGroup; the coordinator removes c when its 6 s session expires.
    const killMs = await phase(
      'kill',
      () => [a],
      () => c!.kill(),
    )
    assert.ok(killMs >= 2000, `rebalance ${killMs} ms after a kill: a killed member is removed by session timeout, not sooner`)

    const counts = receiptCounts(cohort.members)
    const missing = produced.filter((r) => !counts.has(r.value))
    assert.equal(
      missing.length,
      0,
      `records never received: ${missing
        .slice(0, 5)
        .map((r) => r.value)
        .join(', ')}`,
    )
    const redelivered = [...frozen].filter(([v, n]) => (counts.get(v) ?? 0) !== n)
    assert.equal(
      redelivered.length,
      0,
      `records delivered again after their offsets were committed: ${redelivered
        .slice(0, 5)
        .map(([v, n]) => `${v} ${n}→${counts.get(v)}`)
        .join(', ')}`,
    )
    assertPartitioning(cohort.members, produced)
  } catch (e) {
    s.log(`${label} members:\n${cohort.summary()}`)
    throw e
  } finally {
    await cohort.stopAll()
  }
}

/**
 * 4. Two groups on one topic each receive every record: records produced before the groups start
 * (read from earliest), and records produced once both settled (exactly once per group).
 */
export async function scenarioTwoGroups(s: GroupSuite, opts: { records?: number } = {}): Promise<void> {
  const P = 4
  const N = opts.records ?? 200
  const topic = `${s.client}-two-groups`
  await s.createTopic(topic, P)
  const before = taggedRecords(`${s.client}-two-before`, N, P)
  await s.produce(topic, before)
  const cohort = new Cohort()
  try {
    const t0 = Date.now()
    const gx = `${s.client}-two-x`
    const gy = `${s.client}-two-y`
    const [x1, x2, y1] = await Promise.all([
      cohort.add(memberOpts(s, gx, topic, 'two-x1')),
      cohort.add(memberOpts(s, gx, topic, 'two-x2')),
      cohort.add(memberOpts(s, gy, topic, 'two-y1')),
    ])
    await waitSettled(s.inspector, gx, topic, [x1!, x2!], P)
    await waitSettled(s.inspector, gy, topic, [y1!], P)
    await sleep(STALE_FETCH_GRACE_MS)
    const after = taggedRecords(`${s.client}-two-after`, N, P)
    await s.produce(topic, after)
    await waitAllReceived([x1!, x2!], [...before, ...after])
    await waitAllReceived([y1!], [...before, ...after])
    await sleep(300)
    const cx = receiptCounts([x1!, x2!])
    const cy = receiptCounts([y1!])
    assertExactlyOnce(
      [x1!, x2!],
      after.map((r) => r.value),
      'group x, records produced after it settled',
      t0,
    )
    // A single member never rebalances: it reads the earlier records exactly once too.
    assertExactlyOnce(
      [y1!],
      [...before, ...after].map((r) => r.value),
      'group y (one member)',
      t0,
    )
    s.log(
      `two groups: x got ${[...cx.values()].reduce((a, b) => a + b, 0)} deliveries, y ${[...cy.values()].reduce((a, b) => a + b, 0)} for ${2 * N} records`,
    )
  } catch (e) {
    s.log(`two-groups members:\n${cohort.summary()}`)
    throw e
  } finally {
    await cohort.stopAll()
  }
}

/**
 * 6. Static membership: three static members; one restarts (kcat: SIGTERM — librdkafka sends no
 * LeaveGroup for a static member — then a new process; platformatic: SIGKILL of its child process
 * then a new one) with the same group.instance.id within its session timeout. It gets its
 * partitions back under a new member id, the group's generation does not change (where the client
 * shows it), and the other members see no rebalance; consumption continues without gaps or
 * re-deliveries. With `restartLeader` the restarting member is the group leader (the first to
 * join): a static leader rejoining a stable group gets the member list without a rebalance
 * (JoinGroup v9 flags it with skipAssignment, KIP-814; older versions let it assign again, and
 * SyncGroup answers with the assignment the group already has).
 *
 * `restart` ends the restarting member without LeaveGroup.
 */
export async function scenarioStaticRestart(
  s: GroupSuite,
  opts: {
    restartable: Partial<MemberOptions>
    restart: (m: GroupMember) => Promise<void>
    restartLeader?: boolean
    records?: number
  },
): Promise<void> {
  const P = 6
  const N = opts.records ?? 180
  const label = opts.restartLeader ? 'static-leader' : 'static'
  const topic = `${s.client}-${label}`
  const groupId = `${s.client}-${label}-group`
  const session = 10_000
  const r = opts.restartLeader ? 0 : 2
  await s.createTopic(topic, P)
  const cohort = new Cohort()
  try {
    const names = [1, 2, 3].map((i) => `${label}-${i}`)
    const instanceOf = (i: number) => `${s.client}-${names[i]}`
    const so = (i: number) =>
      memberOpts(s, groupId, topic, names[i]!, {
        groupInstanceId: instanceOf(i),
        sessionTimeoutMs: session,
        ...(i === r ? opts.restartable : {}),
      })
    // The first member joins alone, so it leads.
    const tStart = Date.now()
    const first = await cohort.add(so(0))
    await waitSettled(s.inspector, groupId, topic, [first], P)
    const members = [first, await cohort.add(so(1)), await cohort.add(so(2))]
    const d0 = await waitSettled(s.inspector, groupId, topic, members, P)
    if (first.isLeader !== null) assert.equal(first.isLeader, true, `${first.name} leads the group`)
    await sleep(STALE_FETCH_GRACE_MS)
    const p1 = taggedRecords(`${s.client}-${label}-p1`, N, P)
    s.log(`${label}: +${Date.now() - tStart} ms settled, producing`)
    await s.produce(topic, p1)
    await waitAllReceived(cohort.members, p1)
    s.log(`${label}: +${Date.now() - tStart} ms received`)
    await waitCommitted(s.inspector, groupId, topic, endOffsets(p1, P))

    const old = members[r]!
    const others = members.filter((_, i) => i !== r)
    const rebalancesSeen = () => others.map((m) => m.joins + m.revokes)
    const before = { others: rebalancesSeen(), gen: old.generation, parts: old.assigned!, memberId: old.memberId }
    s.log(`${label}: +${Date.now() - tStart} ms restarting ${old.name}; ${describeText(d0)}`)
    const t0 = Date.now()
    await opts.restart(old)
    const again = await cohort.add(so(r))
    members[r] = again
    await waitUntil(
      'the restarted static member to get an assignment',
      () => again.assigned !== null,
      () => again.summary(),
      session + 5000,
    )
    const restartMs = Date.now() - t0
    assert.ok(restartMs < session, `restart took ${restartMs} ms, longer than the session timeout`)
    const d1 = await waitSettled(s.inspector, groupId, topic, members, P)
    s.log(`${label}: after restart (${restartMs} ms) ${describeText(d1)}; member id ${before.memberId} → ${again.memberId}`)
    assert.notEqual(again.memberId, before.memberId, 'a rejoining static member gets a new member id')
    assert.deepEqual(again.assigned, before.parts, 'the restarted static member gets its partitions back')
    if (before.gen !== null) {
      assert.equal(again.generation, before.gen, 'generation unchanged by the static rejoin (no rebalance)')
      for (const m of others) assert.equal(m.generation, before.gen, `${m.name} still in generation ${before.gen}`)
    }
    const withInstance = d1.members.filter((x) => x.groupInstanceId !== null)
    if (withInstance.length > 0) {
      assert.deepEqual(
        withInstance.map((x) => x.groupInstanceId).sort(),
        [0, 1, 2].map(instanceOf),
        'describeGroups shows the instance ids',
      )
      assert.equal(
        d1.members.find((x) => x.groupInstanceId === instanceOf(r))?.memberId,
        again.memberId,
        `instance ${instanceOf(r)} maps to the new member id`,
      )
    }

    const p2 = taggedRecords(`${s.client}-${label}-p2`, N, P)
    await s.produce(topic, p2)
    await waitAllReceived(cohort.members, p2)
    await sleep(300)
    assert.deepEqual(rebalancesSeen(), before.others, `the other members saw no rebalance:\n${others.map((m) => m.summary()).join('\n')}`)
    assert.equal(again.joins, 1, 'the restarted member joined once')
    assertExactlyOnce(
      cohort.members,
      [...p1, ...p2].map((x) => x.value),
      `${label}: records produced before and after the restart`,
      tStart,
    )
    for (const x of again.records)
      assert.ok(before.parts.includes(x.partition), `restarted member consumed only its own partitions (got ${x.partition})`)
  } catch (e) {
    s.log(`${label} members:\n${cohort.summary()}`)
    throw e
  } finally {
    await cohort.stopAll()
  }
}

// ---------------------------------------------------------------------------------------------
// Entry point of a child-process member.

if (process.argv[1] && resolvePath(process.argv[1]) === THIS_FILE && process.argv[2] === 'member') {
  childMain(JSON.parse(process.argv[3]!) as MemberOptions).catch((e) => {
    process.stderr.write(`child member failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
    process.exit(1)
  })
}

/**
 * Waits until m received every offset in [starts[p], ends[p]) of each partition, then checks it
 * received nothing outside that range and each record once. `settleMs` waits a little longer first,
 * so a record delivered again late is caught.
 */
export async function assertConsumedRange(
  m: GroupMember,
  starts: number[],
  ends: number[],
  what: string,
  opts: { timeoutMs?: number; settleMs?: number } = {},
): Promise<void> {
  const have = () => {
    const seen = starts.map(() => new Set<number>())
    for (const r of m.records) seen[r.partition]?.add(r.offset)
    return seen
  }
  await waitUntil(
    `${m.name} to consume ${what}`,
    () => have().every((s, p) => Array.from({ length: ends[p]! - starts[p]! }, (_, i) => starts[p]! + i).every((o) => s.has(o))),
    () =>
      `wanted [${starts}]..[${ends}], got per partition: ${have()
        .map((s, p) => `${p}: ${s.size} (min ${Math.min(...s)})`)
        .join('; ')}\n${m.summary()}`,
    opts.timeoutMs ?? 20_000,
  )
  if (opts.settleMs) await sleep(opts.settleMs)
  for (const r of m.records) {
    assert.ok(
      r.offset >= starts[r.partition]!,
      `${what}: ${m.name} got partition ${r.partition} offset ${r.offset}, before the start ${starts[r.partition]}`,
    )
    assert.ok(
      r.offset < ends[r.partition]!,
      `${what}: ${m.name} got partition ${r.partition} offset ${r.offset}, beyond ${ends[r.partition]}`,
    )
  }
  const total = ends.reduce((a, e, p) => a + e - starts[p]!, 0)
  assert.equal(m.records.length, total, `${what}: each record once`)
}
