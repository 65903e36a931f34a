// The nemesis of a chaos run: one fault at a time on a seeded schedule, then a calm spell.
//
//   kill       kill -9 a broker, restart it on its data dir a few seconds later
//   pause      SIGSTOP a partition leader (the zombie: it keeps its sockets), SIGCONT later
//   partition  through the fault proxies (fault-proxy.ts): a broker cut from the other brokers,
//              from etcd, from both, or one broker↔broker link cut alone (a non-transitive split)
//   etcd-kill  kill -9 one member of the 3-member etcd cluster — its raft leader or a follower —
//              and restart it on its data dir when the fault ends (2 of 3 keep etcd's quorum)
//   disk       one broker's disk fails (faulty-fs.ts): writes refused with ENOSPC or with EIO,
//              reads failing with EIO, or every fsync slow; a broker that stops itself on it is
//              restarted when the fault ends
//   power      a broker's power is cut: kill -9, and its files lose what was not fsynced
//              (power-journal.ts); it boots again on what is left when the fault ends
// The victim is picked by role — a partition's leader, the controller, the consumer group's
// coordinator, or any broker — and what the schedule draws (fault, role, variant, durations) comes
// from the seed alone, so a seed replays the same schedule; which broker holds a role at that
// moment is the cluster's doing (a role that cannot be looked up falls back to a seeded pick).
// Every fault is logged when it starts and when it is healed.
import { findCoordinator } from '../../src/client/admin-groups.js'
import { KafkaClient } from '../../src/client/client.js'
import { seededRandom } from '../../src/util/seeded-random.js'
import { sleep } from '../helpers/clients.js'
import { brokerName, type ChaosCluster } from './chaos-cluster.js'
import { DISK_FAULTS, type DiskFault } from './faulty-fs.js'

export { seededRandom }

export const NEMESES = ['kill', 'pause', 'partition', 'etcd-kill', 'disk', 'power'] as const
export type NemesisKind = (typeof NEMESES)[number]
/** The kinds whose steps draw more than the first three kinds' (see drawStep). */
const LATER_KINDS: readonly NemesisKind[] = ['etcd-kill', 'disk', 'power']

export interface Fault {
  kind: NemesisKind
  /** What was done, e.g. "kill -9 broker 2 (leader of 1)". */
  what: string
  start: number
  end?: number
}

/** `--nemesis kill,pause` → kinds; 'all' is every kind, 'none' none. */
export function parseNemeses(spec: string): NemesisKind[] {
  if (spec === 'all') return [...NEMESES]
  if (spec === 'none' || spec === '') return []
  return spec.split(',').map((s) => {
    if (!(NEMESES as readonly string[]).includes(s))
      throw new Error(`--nemesis: unknown fault ${JSON.stringify(s)} (${NEMESES.join(', ')}, all, none)`)
    return s as NemesisKind
  })
}

export interface NemesisOptions {
  cc: ChaosCluster
  kinds: NemesisKind[]
  topic: string
  partitions: number
  groupId: string
  random: () => number
  now: () => number
  log: (line: string) => void
  /** Calm between faults and length of one fault, ms. Defaults 2000–5000 and 3000–8000. */
  calmMs?: [number, number]
  faultMs?: [number, number]
}

export type Role = 'leader' | 'controller' | 'coordinator' | 'any'
export type CutVariant = 'brokers' | 'etcd' | 'both' | 'link'

/** One step of the schedule: everything drawn from the seed, before the cluster is looked at. */
export interface Step {
  calmMs: number
  kind: NemesisKind
  role: Role
  partition: number
  /** Picks the victim among the running brokers when the role cannot be looked up. */
  fallback: number
  variant: CutVariant
  /** Picks the other end of a cut link ('link'). */
  other: number
  durationMs: number
  /** etcd-kill: the etcd leader (else a follower). */
  etcdLeader: boolean
  /** etcd-kill: picks the member among the candidates. */
  member: number
  /** disk: what goes wrong. */
  disk: DiskFault
}

/**
 * The next step of the schedule; the same generator state, the same step. The draws of etcd-kill
 * and disk come after all the others and only when one of them is asked for, so a schedule of
 * kill, pause and partition alone is the one those kinds had before (recorded seeds replay).
 */
export function drawStep(
  random: () => number,
  kinds: readonly NemesisKind[],
  partitions: number,
  calmMs: [number, number],
  faultMs: [number, number],
): Step {
  const between = ([lo, hi]: [number, number]) => lo + Math.floor(random() * (hi - lo))
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
  const calm = between(calmMs)
  const kind = pick(kinds)
  const role: Role = kind === 'pause' ? 'leader' : pick(['leader', 'controller', 'coordinator', 'any'] as const)
  const partition = Math.floor(random() * partitions)
  const fallback = random()
  const variant = pick(['brokers', 'etcd', 'both', 'link'] as const)
  const other = random()
  const durationMs = between(faultMs)
  const step: Step = {
    calmMs: calm,
    kind,
    role,
    partition,
    fallback,
    variant,
    other,
    durationMs,
    etcdLeader: false,
    member: 0,
    disk: 'enospc',
  }
  if (kinds.some((k) => LATER_KINDS.includes(k))) {
    step.etcdLeader = random() < 0.5
    step.member = random()
    step.disk = pick(DISK_FAULTS)
  }
  return step
}

export class Nemesis {
  readonly faults: Fault[] = []
  private stopped = false
  private loop: Promise<void> | undefined

  constructor(private readonly o: NemesisOptions) {}

  start(): void {
    if (this.o.kinds.length > 0) this.loop = this.run()
  }

  /** Ends the current fault at once (heals, resumes, restarts) and stops. */
  async stop(): Promise<void> {
    this.stopped = true
    await this.loop
  }

  /** Sleeps ms, or less once stop() was called. */
  private async wait(ms: number): Promise<void> {
    const until = Date.now() + ms
    while (!this.stopped && Date.now() < until) await sleep(Math.min(100, until - Date.now()))
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const step = drawStep(this.o.random, this.o.kinds, this.o.partitions, this.o.calmMs ?? [2000, 5000], this.o.faultMs ?? [3000, 8000])
      await this.wait(step.calmMs)
      if (this.stopped) break
      const { kind, role, partition } = step
      // An etcd member is the victim of etcd-kill; 0 stands for "no broker".
      const victim = kind === 'etcd-kill' ? 0 : await this.victim(role, partition, step.fallback)
      if (victim === undefined) continue
      const fault: Fault = { kind, what: '', start: this.o.now() }
      try {
        if (kind === 'etcd-kill') await this.etcdKill(fault, step.etcdLeader, step.member, step.durationMs)
        else if (kind === 'disk') await this.disk(fault, victim, role, partition, step.disk, step.durationMs)
        else if (kind === 'kill') await this.kill(fault, victim, role, partition, step.durationMs)
        else if (kind === 'power') await this.powerCut(fault, victim, role, partition, step.durationMs)
        else if (kind === 'pause') await this.pause(fault, victim, partition, step.durationMs)
        else await this.cutOff(fault, victim, role, partition, step.variant, step.other, step.durationMs)
      } catch (err) {
        this.o.log(`nemesis: ${fault.what || kind} failed: ${err instanceof Error ? err.message : String(err)}`)
      }
    }
  }

  private describeRole(role: Role, partition: number): string {
    return role === 'leader' ? `leader of ${this.o.topic}-${partition}` : role === 'any' ? 'any broker' : role
  }

  private running(): number[] {
    return this.o.cc.cluster.liveIds()
  }

  private async victim(role: Role, partition: number, fallback: number): Promise<number | undefined> {
    const live = this.running()
    if (live.length === 0) return undefined
    const seeded = live[Math.floor(fallback * live.length)]
    try {
      const c = this.o.cc.cluster
      let id = -1
      if (role === 'leader') id = await c.leaderOf(this.o.topic, partition)
      else if (role === 'controller') id = (await c.metadataFrom(live[0]!)).controllerId
      else if (role === 'coordinator') {
        const client = await KafkaClient.connect({ bootstrap: this.o.cc.bootstrap(), requestTimeoutMs: 5000, connectTimeoutMs: 3000 })
        try {
          id = await findCoordinator(client, this.o.groupId)
        } finally {
          await client.close()
        }
      }
      return live.includes(id) ? id : seeded
    } catch {
      return seeded
    }
  }

  private begin(fault: Fault, what: string): void {
    fault.what = what
    this.faults.push(fault)
    this.o.log(`nemesis @${(fault.start / 1000).toFixed(1)}s: ${what}`)
  }

  private end(fault: Fault, how: string): void {
    fault.end = this.o.now()
    this.o.log(`nemesis @${(fault.end / 1000).toFixed(1)}s: ${how}`)
  }

  private async kill(fault: Fault, id: number, role: Role, partition: number, duration: number): Promise<void> {
    const c = this.o.cc.cluster
    this.begin(fault, `kill -9 broker ${id} (${this.describeRole(role, partition)})`)
    await c.kill9(id)
    await this.wait(duration)
    await this.restartBroker(id)
    this.end(fault, `broker ${id} restarted`)
  }

  private async powerCut(fault: Fault, id: number, role: Role, partition: number, duration: number): Promise<void> {
    const c = this.o.cc.cluster
    this.begin(fault, `power cut on broker ${id} (${this.describeRole(role, partition)})`)
    await c.kill9(id)
    const lost = this.o.cc.cutPower(id)
    this.o.log(`nemesis: broker ${id} lost ${lost.bytes} unsynced bytes of ${lost.files} files`)
    await this.wait(duration)
    await this.restartBroker(id)
    this.end(fault, `broker ${id} booted again`)
  }

  /** Restarts a stopped broker, retrying: a restart can meet its port still taken or etcd slow. */
  private async restartBroker(id: number): Promise<void> {
    const c = this.o.cc.cluster
    for (let attempt = 1; ; attempt++) {
      try {
        await c.restart(id)
        return
      } catch (err) {
        if (attempt >= 5) throw err
        if (c.state(id) !== 'stopped') await c.kill9(id).catch(() => {})
        await sleep(1000)
      }
    }
  }

  private async etcdKill(fault: Fault, leader: boolean, member: number, duration: number): Promise<void> {
    const etcd = this.o.cc.cluster.etcdCluster()
    if (!etcd) throw new Error('the chaos cluster has a single etcd')
    const leaderIndex = await etcd.leader()
    const all = etcd.members.map((_, i) => i)
    // The leader when asked for and known; otherwise a follower (any member if no leader is known).
    const candidates = leader && leaderIndex !== undefined ? [leaderIndex] : all.filter((i) => i !== leaderIndex)
    const victim = etcd.members[candidates[Math.floor(member * candidates.length)]!]!
    const role = leaderIndex === undefined ? 'leader unknown' : etcd.members[leaderIndex] === victim ? 'leader' : 'follower'
    this.begin(fault, `kill -9 etcd member ${victim.name} (${role})`)
    await victim.kill9()
    await this.wait(duration)
    for (let attempt = 1; ; attempt++) {
      try {
        await victim.restart()
        break
      } catch (err) {
        if (attempt >= 5) throw err
        await victim.kill9()
        await sleep(1000)
      }
    }
    this.end(fault, `etcd member ${victim.name} restarted`)
  }

  private async disk(fault: Fault, id: number, role: Role, partition: number, mode: DiskFault, duration: number): Promise<void> {
    const { cc } = this.o
    this.begin(fault, `disk ${mode} on broker ${id} (${this.describeRole(role, partition)})`)
    cc.setDisk(id, mode)
    try {
      await this.wait(duration)
    } finally {
      cc.setDisk(id, 'none')
    }
    // A broker that stopped itself on the fault (as Kafka's does when its only log dir fails) is
    // started again, as after a kill.
    if (cc.cluster.state(id) === 'stopped') {
      await this.restartBroker(id)
      this.end(fault, `disk of broker ${id} healed; it had stopped, restarted`)
    } else this.end(fault, `disk of broker ${id} healed`)
  }

  private async pause(fault: Fault, id: number, partition: number, duration: number): Promise<void> {
    const c = this.o.cc.cluster
    this.begin(fault, `SIGSTOP broker ${id} (${this.describeRole('leader', partition)})`)
    c.pause(id)
    await this.wait(duration)
    c.resume(id)
    this.end(fault, `SIGCONT broker ${id}`)
  }

  private async cutOff(
    fault: Fault,
    id: number,
    role: Role,
    partition: number,
    variant: 'brokers' | 'etcd' | 'both' | 'link',
    other: number,
    duration: number,
  ) {
    const { net } = this.o.cc
    const me = brokerName(id)
    const others = this.o.cc.cluster.ids().filter((x) => x !== id)
    const cuts: Array<[string, string]> = []
    if (variant === 'brokers' || variant === 'both') for (const o of others) cuts.push([me, brokerName(o)])
    if (variant === 'etcd' || variant === 'both') cuts.push([me, 'etcd'])
    if (variant === 'link') cuts.push([me, brokerName(others[Math.floor(other * others.length)]!)])
    this.begin(
      fault,
      `partition (${variant}) of broker ${id} (${this.describeRole(role, partition)}): cut ${cuts.map((c) => c.join('-')).join(', ')}`,
    )
    for (const [a, b] of cuts) net.cut(a, b)
    await this.wait(duration)
    net.heal()
    this.end(fault, `healed ${cuts.map((c) => c.join('-')).join(', ')}`)
  }
}
