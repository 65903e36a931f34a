// A cluster of real broker processes for tests of membership, replication and failover: one etcd
// (test/helpers/etcd.ts; or an etcd cluster of `etcdMembers`, every broker given every member's
// endpoint) under a prefix of its own, and N `tributary start` processes
// (test/helpers/broker-process.ts) with broker.id 1..N, each with its own temporary data dir.
//
//   const c = await startCluster({ brokers: 3 })          // resolves once every broker lists all 3
//   await c.kill9(2); await c.restart(2)                  // same data dir, overrides and port
//   c.pause(3); c.resume(3)                               // SIGSTOP / SIGCONT: a hung broker
//   const { leader, isr } = await c.partitionState('t', 0)
//   await c.close()
//
// Faults: kill9 (SIGKILL: no clean shutdown, the etcd lease expires after the session timeout),
// stop (SIGTERM: clean shutdown, the lease is revoked at once), pause (SIGSTOP: the process keeps
// its sockets but answers nothing; etcd drops its registration when the lease expires, and it must
// register again after resume). A restarted broker listens on its previous port, so clients holding
// the old address reconnect to it (a port taken meanwhile is retried for a while, then given up for
// a new one).
//
// Each broker runs with broker.session.timeout.ms = 2000 unless told otherwise (etcd's smallest
// lease TTL is 2 s), so a dead broker leaves the registered set within about 2 s.
// close() kills every process and removes every directory; a test process that ends without it
// still kills them (the helpers' exit hooks) and removes the data dirs (this file's).
//
// The data of a replica is read from its files with readPartitionLog (replica-log.ts) — stop the
// broker first — and acknowledged writes are produced with startProducer (acked-producer.ts); both
// are re-exported here.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KafkaClient } from '../../src/client/client.js'
import type { ClientSecurity } from '../../src/client/security.js'
import type { SecurityProtocol } from '../../src/network/listeners.js'
import type { ClusterMetadata, PartitionInfo } from '../../src/client/metadata.js'
import { abortAllProducers } from './acked-producer.js'
import { type BrokerProcess, startBrokerProcess } from './broker-process.js'
import { sleep, waitFor } from './clients.js'
import { type EtcdCluster, type EtcdServer, startEtcd, startEtcdCluster } from './etcd.js'

export { type AckedRecord, type ContinuousProducer, type ProducerResult, startProducer } from './acked-producer.js'
export { waitFor } from './clients.js'
export { compareReplicas, type LogBatch, type LogRecord, offsetConflicts, readPartitionLog, recordsOf } from './replica-log.js'

const DEFAULT_SESSION_TIMEOUT_MS = 2000
/** How long start-up, restart and addBroker wait for the brokers to see each other. */
const READY_TIMEOUT_MS = 60_000
/** How long a restart retries a port still taken before taking any free port. */
const PORT_RETRY_MS = 10_000
const CLIENT_TIMEOUTS = { requestTimeoutMs: 10_000, connectTimeoutMs: 5000 }

export interface ClusterOptions {
  brokers: number
  /** `--override` settings for every broker. */
  overrides?: Record<string, string>
  /** Settings for one broker (beat `overrides`). */
  perBroker?: (id: number) => Record<string, string>
  /** broker.session.timeout.ms; default 2000. */
  sessionTimeoutMs?: number
  /** The one listener's security protocol (default PLAINTEXT); the harness's own clients log in with `clientSecurity`. */
  securityProtocol?: SecurityProtocol
  clientSecurity?: ClientSecurity
  /** Members of the etcd cluster (default 1: one etcd server). */
  etcdMembers?: number
  /**
   * One of broker `id`'s etcd.endpoints, given an etcd member's own endpoint and its index (default:
   * that endpoint); chaos runs put a proxy between.
   */
  etcdEndpointOf?: (id: number, endpoint: string, member: number) => string
  /** The script brokers run (default: dist/bin/tributary.js); it is given `start` and the overrides. */
  brokerMain?: string
  /** Extra environment of broker `id`'s processes. */
  brokerEnv?: (id: number) => Record<string, string>
}

export type BrokerState = 'running' | 'paused' | 'stopped'

export interface PartitionState {
  leader: number
  leaderEpoch: number
  replicas: number[]
  isr: number[]
  offlineReplicas: number[]
  /** Error of the partition (or of its topic) in the Metadata response, null if none. */
  error: string | null
}

interface Member {
  id: number
  dir: string
  /** The port the broker last listened on; a restart asks for it again. */
  port: number
  proc: BrokerProcess
  state: BrokerState
  /** stderr of the previous incarnations of this broker (before restarts). */
  earlierStderr: string
}

const ownDirs = new Set<string>()
const pids = new Set<number>()
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on('exit', () => {
    // The broker helper SIGKILLs its children too; a paused one dies of SIGKILL as well.
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // gone
      }
    }
    for (const dir of ownDirs) rmSync(dir, { recursive: true, force: true })
  })
}

const sortedIds = (ids: Iterable<number>) => [...ids].sort((a, b) => a - b)

export class Cluster {
  private readonly members = new Map<number, Member>()
  private closed = false

  private constructor(
    readonly etcd: EtcdServer,
    /** The etcd.prefix of this cluster. */
    readonly prefix: string,
    readonly sessionTimeoutMs: number,
    private readonly opts: ClusterOptions,
  ) {}

  /** Use startCluster(). */
  static async start(opts: ClusterOptions): Promise<Cluster> {
    installExitHook()
    const members = opts.etcdMembers ?? 1
    const etcd = members > 1 ? await startEtcdCluster(members) : await startEtcd()
    const c = new Cluster(etcd, `/cluster-${randomBytes(6).toString('hex')}`, opts.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS, opts)
    try {
      const ids = Array.from({ length: opts.brokers }, (_, i) => i + 1)
      await Promise.all(ids.map((id) => c.launch(id)))
      await c.waitForMetadataBrokers(ids)
    } catch (err) {
      await c.close()
      throw err
    }
    return c
  }

  /** The etcd cluster, when it has more than one member (etcdMembers). */
  etcdCluster(): EtcdCluster | undefined {
    return 'members' in this.etcd ? (this.etcd as EtcdCluster) : undefined
  }

  /** Every broker id this cluster ever started (running, paused or stopped). */
  ids(): number[] {
    return sortedIds(this.members.keys())
  }

  /** Ids of the brokers that run and are not paused. */
  liveIds(): number[] {
    return this.ids().filter((id) => this.member(id).state === 'running')
  }

  state(id: number): BrokerState {
    return this.member(id).state
  }

  /** The broker's current process (the latest incarnation). */
  broker(id: number): BrokerProcess {
    return this.member(id).proc
  }

  dataDir(id: number): string {
    return this.member(id).dir
  }

  /** Everything the broker wrote to stderr, over all its restarts. */
  stderr(id: number): string {
    const m = this.member(id)
    return m.earlierStderr + m.proc.stderr()
  }

  /** host:port of every running, unpaused broker, comma-joined (kafkajs: split(',')). */
  bootstrap(): string {
    return this.liveIds()
      .map((id) => this.member(id).proc.bootstrap)
      .join(',')
  }

  /** SIGKILL; resolves once the process is gone. */
  async kill9(id: number): Promise<void> {
    const m = this.member(id)
    await m.proc.kill9()
    pids.delete(m.proc.pid)
    m.state = 'stopped'
  }

  /** SIGTERM (a clean shutdown); resolves with the exit code. A paused broker is resumed to hear it. */
  async stop(id: number): Promise<number> {
    const m = this.member(id)
    if (m.state === 'paused') this.resume(id)
    const code = await m.proc.stop()
    pids.delete(m.proc.pid)
    m.state = 'stopped'
    return code
  }

  /** SIGSTOP: the broker holds its sockets and its lease's keep-alives stop. */
  pause(id: number): void {
    const m = this.member(id)
    if (m.state !== 'running') throw new Error(`broker ${id} is ${m.state}, not running`)
    process.kill(m.proc.pid, 'SIGSTOP')
    m.state = 'paused'
  }

  /** SIGCONT. */
  resume(id: number): void {
    const m = this.member(id)
    if (m.state !== 'paused') throw new Error(`broker ${id} is ${m.state}, not paused`)
    process.kill(m.proc.pid, 'SIGCONT')
    m.state = 'running'
  }

  /**
   * Starts a stopped broker again on its data dir, with its overrides and (if it can be had) its
   * previous port, and waits until every running broker lists it (wait: false skips that).
   * `extra` overrides are added for this incarnation only.
   */
  async restart(id: number, opts: { wait?: boolean; extra?: Record<string, string> } = {}): Promise<BrokerProcess> {
    const m = this.member(id)
    if (m.state !== 'stopped') throw new Error(`broker ${id} is ${m.state}; kill9 or stop it first`)
    await this.launch(id, opts.extra)
    if (opts.wait !== false) await this.waitForListedBy(id)
    return m.proc
  }

  /** Starts broker max(id) + 1 with a new data dir and waits until every running broker lists it. */
  async addBroker(opts: { wait?: boolean } = {}): Promise<number> {
    const id = Math.max(0, ...this.members.keys()) + 1
    await this.launch(id)
    if (opts.wait !== false) await this.waitForListedBy(id)
    return id
  }

  /** Metadata (brokers, controller, the given topics; [] = none, null = all) as broker `id` answers it. */
  async metadataFrom(id: number, topics: string[] | null = []): Promise<ClusterMetadata> {
    const client = await KafkaClient.connect({ bootstrap: [this.member(id).proc.bootstrap], ...this.clientOptions() })
    try {
      return await client.metadata(topics, { refresh: true })
    } finally {
      await client.close()
    }
  }

  /** The broker ids broker `id` reports in Metadata. */
  async brokersSeenBy(id: number): Promise<number[]> {
    return sortedIds((await this.metadataFrom(id)).brokers.keys())
  }

  /** The broker ids registered in etcd right now (keys <prefix>/brokers/<id>), read from etcd itself. */
  async registeredIds(): Promise<number[]> {
    const key = `${this.prefix}/brokers/`
    const rangeEnd = key.slice(0, -1) + String.fromCharCode(key.charCodeAt(key.length - 1) + 1)
    const b64 = (s: string) => Buffer.from(s).toString('base64')
    const res = await fetch(`${this.etcd.endpoint}/v3/kv/range`, {
      method: 'POST',
      body: JSON.stringify({ key: b64(key), range_end: b64(rangeEnd), keys_only: true }),
      signal: AbortSignal.timeout(5000),
    })
    if (!res.ok) throw new Error(`etcd range ${key}: HTTP ${res.status} ${await res.text()}`)
    const body = (await res.json()) as { kvs?: Array<{ key: string }> }
    return sortedIds((body.kvs ?? []).map((kv) => Number(Buffer.from(kv.key, 'base64').toString().slice(key.length))))
  }

  /**
   * Leader, epoch, replicas and ISR of a partition, from a fresh Metadata request to a running
   * broker (the lowest id first), or to broker `via`.
   */
  async partitionState(topic: string, partition: number, opts: { via?: number } = {}): Promise<PartitionState> {
    const ask = opts.via === undefined ? this.liveIds() : [opts.via]
    if (ask.length === 0) throw new Error('no running broker to ask')
    const client = await KafkaClient.connect({ bootstrap: ask.map((id) => this.member(id).proc.bootstrap), ...this.clientOptions() })
    try {
      const md = await client.metadata([topic], { refresh: true })
      const t = md.topics.get(topic)
      if (!t) throw new Error(`topic ${topic} is not in the Metadata response`)
      const p: PartitionInfo | undefined = t.partitions.find((x) => x.partition === partition)
      if (!p) {
        if (t.error) throw new Error(`topic ${topic}: ${t.error}`)
        throw new Error(`topic ${topic} has no partition ${partition} (${t.partitions.length} partitions)`)
      }
      return {
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        replicas: p.replicas,
        isr: p.isr,
        offlineReplicas: p.offlineReplicas,
        error: p.error,
      }
    } finally {
      await client.close()
    }
  }

  /** The partition's leader per a fresh Metadata request (-1: none). */
  async leaderOf(topic: string, partition: number, opts: { via?: number } = {}): Promise<number> {
    return (await this.partitionState(topic, partition, opts)).leader
  }

  /**
   * Waits until every running broker's Metadata lists exactly `ids` (default: the running brokers)
   * and names the same controller, one of them; resolves with that controller id.
   */
  async waitForMetadataBrokers(ids: number[] = this.liveIds(), timeoutMs = READY_TIMEOUT_MS): Promise<number> {
    const want = sortedIds(ids).join()
    let last = ''
    return waitFor(
      async () => {
        const views = await Promise.all(this.liveIds().map(async (id) => ({ id, md: await this.metadataFrom(id) })))
        last = views.map((v) => `broker ${v.id}: [${sortedIds(v.md.brokers.keys())}] controller ${v.md.controllerId}`).join('; ')
        const controllers = new Set(views.map((v) => v.md.controllerId))
        const [controller] = controllers
        const ok = views.every((v) => sortedIds(v.md.brokers.keys()).join() === want) && controllers.size === 1 && ids.includes(controller!)
        return ok ? controller : undefined
      },
      `every running broker to list brokers [${want}] and one controller (last seen: ${last || 'nothing'})`,
      timeoutMs,
      100,
    )
  }

  /** Kills every broker and etcd, aborts running producers and removes every directory. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    // The children are unref'd: a referenced timer keeps the event loop up while we wait on them.
    const keepAlive = setInterval(() => {}, 1000)
    try {
      await abortAllProducers()
      for (const m of this.members.values()) {
        await m.proc.kill9().catch(() => {})
        pids.delete(m.proc.pid)
        m.state = 'stopped'
        rmSync(m.dir, { recursive: true, force: true })
        ownDirs.delete(m.dir)
      }
      await this.etcd.stop()
    } finally {
      clearInterval(keepAlive)
    }
  }

  private member(id: number): Member {
    const m = this.members.get(id)
    if (!m) throw new Error(`no broker ${id} in this cluster (brokers: ${this.ids().join(', ')})`)
    if (m.state !== 'stopped' && !m.proc.alive()) {
      // It died by itself: a broker that exits on a fatal error.
      m.state = 'stopped'
      pids.delete(m.proc.pid)
    }
    return m
  }

  private clientOptions() {
    return { ...CLIENT_TIMEOUTS, ...(this.opts.clientSecurity ? { security: this.opts.clientSecurity } : {}) }
  }

  private overridesOf(id: number, port: number, extra: Record<string, string> = {}): Record<string, string> {
    return {
      listeners: `${this.opts.securityProtocol ?? 'PLAINTEXT'}://127.0.0.1:${port}`,
      'broker.id': String(id),
      'etcd.endpoints': this.etcdEndpoints()
        .map((e, i) => this.opts.etcdEndpointOf?.(id, e, i) ?? e)
        .join(','),
      'etcd.prefix': this.prefix,
      'broker.session.timeout.ms': String(this.sessionTimeoutMs),
      ...this.opts.overrides,
      ...this.opts.perBroker?.(id),
      ...extra,
    }
  }

  private etcdEndpoints(): string[] {
    return this.etcdCluster()?.endpoints ?? [this.etcd.endpoint]
  }

  private startProcess(id: number, dir: string, overrides: Record<string, string>): Promise<BrokerProcess> {
    return startBrokerProcess({
      dataDir: dir,
      overrides,
      ...(this.opts.brokerMain ? { main: this.opts.brokerMain } : {}),
      ...(this.opts.brokerEnv ? { env: this.opts.brokerEnv(id) } : {}),
    })
  }

  /** Starts broker `id`: a new one (new data dir, any port) or a stopped one again (its dir and port). */
  private async launch(id: number, extra?: Record<string, string>): Promise<void> {
    if (this.closed) throw new Error('cluster closed')
    const existing = this.members.get(id)
    const dir = existing?.dir ?? mkdtempSync(join(tmpdir(), `tributary-cluster-b${id}-`))
    ownDirs.add(dir)
    let proc: BrokerProcess
    if (!existing) proc = await this.startProcess(id, dir, this.overridesOf(id, 0, extra))
    else proc = await this.startOnPort(id, dir, existing.port, extra)
    pids.add(proc.pid)
    if (existing) {
      existing.earlierStderr += existing.proc.stderr()
      existing.proc = proc
      existing.port = proc.port
      existing.state = 'running'
    } else this.members.set(id, { id, dir, port: proc.port, proc, state: 'running', earlierStderr: '' })
  }

  /** Starts on `port`, retrying while it is taken; after PORT_RETRY_MS takes any free port. */
  private async startOnPort(id: number, dir: string, port: number, extra?: Record<string, string>): Promise<BrokerProcess> {
    const giveUpAt = Date.now() + PORT_RETRY_MS
    for (;;) {
      try {
        return await this.startProcess(id, dir, this.overridesOf(id, port, extra))
      } catch (err) {
        if (!/EADDRINUSE|address already in use/i.test(String(err))) throw err
        if (Date.now() > giveUpAt) return this.startProcess(id, dir, this.overridesOf(id, 0, extra))
        await sleep(250)
      }
    }
  }

  /** Waits until every running broker's Metadata lists broker `id`. */
  private async waitForListedBy(id: number): Promise<void> {
    await waitFor(
      async () => {
        const seen = await Promise.all(this.liveIds().map((b) => this.brokersSeenBy(b)))
        return seen.every((ids) => ids.includes(id))
      },
      `every running broker to list broker ${id}`,
      READY_TIMEOUT_MS,
      100,
    )
  }
}

/** Starts etcd and `opts.brokers` brokers (ids 1..N); resolves once each broker's Metadata lists all N. */
export function startCluster(opts: ClusterOptions): Promise<Cluster> {
  return Cluster.start(opts)
}
