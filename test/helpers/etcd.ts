// Starts a real etcd server (the `etcd` binary from PATH, or ETCD_BIN) for tests of the etcd
// metadata store and cluster membership: one member on two free loopback ports (client, peer)
// with a temporary data dir, ready once /health answers. Every server is SIGKILLed and its data dir
// removed when the test process exits, so a failing test leaves nothing behind.
//
// startEtcdCluster(3) starts an etcd cluster of N members (one --initial-cluster naming them all),
// ready once every member's /health answers (it does only while the member sees a leader). A
// member can be killed (SIGKILL) and restarted on its data dir and ports, and leader() asks the
// members' JSON gateway (/v3/maintenance/status) which one leads — what a chaos run needs to kill
// the leader or a follower.
//
// TcpProxy sits between a client and etcd so a test can cut the client off (every connection is
// dropped and new ones are held unanswered) and later let it back in — a network partition
// without touching etcd, which other clients keep using meanwhile.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { createServer, type Server, type Socket, connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const START_TIMEOUT_MS = 30_000
const MAX_CAPTURE = 1024 * 1024

export const etcdBinary = (): string => process.env.ETCD_BIN || 'etcd'

const live = new Set<ChildProcess>()
const ownDirs = new Set<string>()
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on('exit', () => {
    for (const child of live) {
      try {
        child.kill('SIGKILL')
      } catch {
        // already gone
      }
    }
    for (const dir of ownDirs) rmSync(dir, { recursive: true, force: true })
  })
}

export interface EtcdServer {
  /** http://127.0.0.1:<client port> (https:// with TLS), as etcd.endpoints takes it. */
  readonly endpoint: string
  readonly port: number
  readonly dataDir: string
  /** The process of a single server (startEtcd); a cluster's members have their own. */
  readonly pid?: number
  /** What etcd wrote to stderr (last 1 MiB). */
  stderr(): string
  /** SIGKILLs the server and removes its data dir. Safe to call twice. */
  stop(): Promise<void>
}

/** A port that was free a moment ago (the OS picked it for a listener we closed at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

/** TLS for etcd's client port (PEM files): its certificate and key, and the CA client certificates must chain to. */
export interface EtcdTlsFiles {
  cert: string
  key: string
  ca: string
}

/** /health over TLS, presenting the server's own certificate (it has client use too in the dev certs). */
function healthyTls(endpoint: string, tls: EtcdTlsFiles): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpsRequest(
      `${endpoint}/health`,
      { ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key), timeout: 2000 },
      (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (s: string) => (body += s))
        res.on('end', () => resolve(res.statusCode === 200 && body.includes('"health":"true"')))
      },
    )
    req.on('error', () => resolve(false))
    req.on('timeout', () => req.destroy())
    req.end()
  })
}

async function healthy(endpoint: string, tls?: EtcdTlsFiles): Promise<boolean> {
  if (tls) return healthyTls(endpoint, tls)
  try {
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(2000) })
    const body = (await res.json()) as { health?: string }
    return res.ok && body.health === 'true'
  } catch {
    return false
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** One etcd process: its stderr, whether it exited, and a SIGKILL that waits for the exit. */
interface EtcdProcess {
  readonly pid: number
  stderr(): string
  exited(): boolean
  kill(): Promise<void>
}

function spawnEtcd(args: string[]): EtcdProcess {
  const child = spawn(etcdBinary(), [...args, '--logger', 'zap', '--log-level', 'warn'], { stdio: ['ignore', 'ignore', 'pipe'] })
  live.add(child)
  child.unref()
  ;(child.stderr as unknown as { unref(): void }).unref()
  let err = ''
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    err += s
    if (err.length > MAX_CAPTURE) err = err.slice(err.length - MAX_CAPTURE)
  })
  let exited = false
  const gone = new Promise<void>((resolve) => {
    const done = () => {
      exited = true
      live.delete(child)
      resolve()
    }
    child.once('exit', done)
    child.once('error', done)
  })
  return {
    pid: child.pid!,
    stderr: () => err,
    exited: () => exited,
    kill: async () => {
      if (!exited) child.kill('SIGKILL')
      await gone
    },
  }
}

/** Waits until the member at `endpoint` is healthy; false if it exited or the deadline passed. */
async function waitHealthy(endpoint: string, exited: () => boolean, timeoutMs: number, tls?: EtcdTlsFiles): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!(await healthy(endpoint, tls))) {
    if (exited() || Date.now() > deadline) return false
    await sleep(100)
  }
  return true
}

async function startOnce(tls?: EtcdTlsFiles): Promise<EtcdServer> {
  const [port, peerPort] = [await freePort(), await freePort()]
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-etcd-'))
  ownDirs.add(dataDir)
  const endpoint = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`
  const peer = `http://127.0.0.1:${peerPort}`
  const proc = spawnEtcd([
    '--name',
    'test',
    '--data-dir',
    dataDir,
    '--listen-client-urls',
    endpoint,
    '--advertise-client-urls',
    endpoint,
    '--listen-peer-urls',
    peer,
    '--initial-advertise-peer-urls',
    peer,
    '--initial-cluster',
    `test=${peer}`,
    // Client-certificate authentication on the client port, as a secured etcd runs.
    ...(tls ? ['--cert-file', tls.cert, '--key-file', tls.key, '--trusted-ca-file', tls.ca, '--client-cert-auth'] : []),
  ])
  const stop = async () => {
    await proc.kill()
    rmSync(dataDir, { recursive: true, force: true })
    ownDirs.delete(dataDir)
  }
  if (!(await waitHealthy(endpoint, proc.exited, START_TIMEOUT_MS, tls))) {
    await stop()
    throw new Error(`etcd (${etcdBinary()}) did not become healthy on ${endpoint}; stderr:\n${proc.stderr().slice(-3000)}`)
  }
  return { endpoint, port, dataDir, pid: proc.pid, stderr: proc.stderr, stop }
}

/** Starts etcd (with TLS on its client port if given); a port taken between choosing it and binding it gets another try. */
export async function startEtcd(tls?: EtcdTlsFiles): Promise<EtcdServer> {
  installExitHook()
  let last: unknown
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(tls)
    } catch (e) {
      last = e
    }
  }
  throw last
}

/** One member of an etcd cluster (startEtcdCluster). */
export interface EtcdMember {
  /** etcd's --name: m1, m2, … */
  readonly name: string
  readonly endpoint: string
  readonly port: number
  readonly dataDir: string
  running(): boolean
  /** SIGKILL; resolves once the process is gone. Its data dir stays. */
  kill9(): Promise<void>
  /** Starts the killed member again on its data dir and ports; resolves once it is healthy (it sees a leader). */
  restart(): Promise<void>
  stderr(): string
}

/** An etcd cluster; as an EtcdServer, `endpoint` is the first running member's (for tests that want one). */
export interface EtcdCluster extends EtcdServer {
  readonly members: readonly EtcdMember[]
  /** Every member's client URL, in member order (etcd.endpoints takes them comma-joined). */
  readonly endpoints: string[]
  /** Index into members of the current raft leader, as the running members report it; undefined if none answers. */
  leader(): Promise<number | undefined>
}

interface MemberStatus {
  header?: { member_id?: string }
  leader?: string
}

/** /v3/maintenance/status of one member (the gRPC gateway; uint64 ids come as decimal strings). */
async function memberStatus(endpoint: string): Promise<MemberStatus | undefined> {
  try {
    const res = await fetch(`${endpoint}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2000) })
    return res.ok ? ((await res.json()) as MemberStatus) : undefined
  } catch {
    return undefined
  }
}

interface MemberSpec {
  name: string
  port: number
  peer: string
  endpoint: string
  dataDir: string
}

async function startClusterOnce(n: number): Promise<EtcdCluster> {
  const specs: MemberSpec[] = []
  for (let i = 1; i <= n; i++) {
    const [port, peerPort] = [await freePort(), await freePort()]
    const dataDir = mkdtempSync(join(tmpdir(), `tributary-etcd-m${i}-`))
    ownDirs.add(dataDir)
    specs.push({ name: `m${i}`, port, peer: `http://127.0.0.1:${peerPort}`, endpoint: `http://127.0.0.1:${port}`, dataDir })
  }
  const initialCluster = specs.map((m) => `${m.name}=${m.peer}`).join(',')
  const token = `tributary-${process.pid}-${specs[0]!.port}`
  const argsOf = (m: MemberSpec) => [
    '--name',
    m.name,
    '--data-dir',
    m.dataDir,
    '--listen-client-urls',
    m.endpoint,
    '--advertise-client-urls',
    m.endpoint,
    '--listen-peer-urls',
    m.peer,
    '--initial-advertise-peer-urls',
    m.peer,
    '--initial-cluster',
    initialCluster,
    '--initial-cluster-token',
    token,
  ]
  const members = specs.map((m) => {
    let proc = spawnEtcd(argsOf(m))
    let earlier = ''
    const member: EtcdMember = {
      name: m.name,
      endpoint: m.endpoint,
      port: m.port,
      dataDir: m.dataDir,
      running: () => !proc.exited(),
      kill9: () => proc.kill(),
      async restart() {
        if (!proc.exited()) throw new Error(`etcd member ${m.name} is running; kill9 it first`)
        earlier += proc.stderr()
        // On a data dir that holds a member, etcd ignores the --initial-cluster flags and rejoins.
        proc = spawnEtcd(argsOf(m))
        if (!(await waitHealthy(m.endpoint, proc.exited, START_TIMEOUT_MS))) {
          throw new Error(`etcd member ${m.name} did not become healthy again on ${m.endpoint}; stderr:\n${proc.stderr().slice(-3000)}`)
        }
      },
      stderr: () => earlier + proc.stderr(),
    }
    return member
  })
  const stop = async () => {
    for (const m of members) await m.kill9()
    for (const m of specs) {
      rmSync(m.dataDir, { recursive: true, force: true })
      ownDirs.delete(m.dataDir)
    }
  }
  const ready = await Promise.all(
    members.map((m, i) => waitHealthy(m.endpoint, () => !m.running(), START_TIMEOUT_MS).then((ok) => ok || i)),
  )
  const failed = ready.filter((r) => r !== true)
  if (failed.length > 0) {
    const text = members.map((m) => `${m.name}: ${m.stderr().slice(-1500)}`).join('\n')
    await stop()
    throw new Error(`etcd cluster of ${n} (${etcdBinary()}) did not become healthy; stderr:\n${text}`)
  }
  const first = () => members.find((m) => m.running()) ?? members[0]!
  return {
    get endpoint() {
      return first().endpoint
    },
    get port() {
      return first().port
    },
    get dataDir() {
      return first().dataDir
    },
    members,
    endpoints: members.map((m) => m.endpoint),
    stderr: () => members.map((m) => `[${m.name}] ${m.stderr()}`).join('\n'),
    stop,
    async leader() {
      for (const m of members) {
        if (!m.running()) continue
        const st = await memberStatus(m.endpoint)
        if (!st?.leader || st.leader === '0') continue
        const ids = await Promise.all(
          members.map(async (x) => (x.running() ? (await memberStatus(x.endpoint))?.header?.member_id : undefined)),
        )
        const i = ids.indexOf(st.leader)
        if (i >= 0) return i
      }
      return undefined
    },
  }
}

/** Starts an etcd cluster of n members (no TLS); a port taken meanwhile gets the whole cluster another try. */
export async function startEtcdCluster(n: number): Promise<EtcdCluster> {
  installExitHook()
  let last: unknown
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startClusterOnce(n)
    } catch (e) {
      last = e
    }
  }
  throw last
}

/** A TCP relay to 127.0.0.1:<target> that a test can pause (partition) and resume. */
export class TcpProxy {
  private paused = false
  private readonly pipes = new Set<Socket>()
  private readonly waiting = new Set<Socket>()

  private constructor(
    private readonly server: Server,
    private readonly target: number,
    readonly port: number,
  ) {}

  static start(target: number): Promise<TcpProxy> {
    return new Promise((resolve, reject) => {
      let proxy: TcpProxy | undefined
      const server = createServer((socket) => proxy!.accept(socket))
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => {
        proxy = new TcpProxy(server, target, (server.address() as { port: number }).port)
        resolve(proxy)
      })
    })
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`
  }

  private accept(socket: Socket): void {
    socket.on('error', () => {})
    if (this.paused) {
      this.waiting.add(socket)
      socket.once('close', () => this.waiting.delete(socket))
      return
    }
    this.relay(socket)
  }

  private relay(socket: Socket): void {
    const upstream = connect(this.target, '127.0.0.1')
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
    socket.pipe(upstream).pipe(socket)
    for (const s of [socket, upstream]) {
      this.pipes.add(s)
      s.once('close', () => {
        this.pipes.delete(s)
        socket.destroy()
        upstream.destroy()
      })
    }
  }

  /** Drops every relayed connection; new ones are accepted but get no answer until resume(). */
  pause(): void {
    this.paused = true
    for (const s of this.pipes) s.destroy()
  }

  /** Relays the held connections and every new one again. */
  resume(): void {
    this.paused = false
    for (const s of this.waiting) this.relay(s)
    this.waiting.clear()
  }

  close(): Promise<void> {
    for (const s of [...this.pipes, ...this.waiting]) s.destroy()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
