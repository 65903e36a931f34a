// The chaos runs' network: a fault-injecting TCP proxy (node:net) in front of every broker and, per
// broker, in front of etcd, so the nemesis can cut links between two brokers or between a broker and
// etcd while everything else keeps talking (docs/reliability.md says why a proxy and not network
// namespaces).
//
//   const net = new FaultNet(() => new Map([[pidOfBroker1, 'b1'], …]))
//   const p = await net.proxy('b2', brokerPort2)          // clients and brokers dial p.port for b2
//   const e = await net.proxy('etcd', etcdPort, 'b1')     // only broker 1 dials this one
//   net.cut('b1', 'b2'); net.cut('b1', 'etcd'); net.heal()
//
// Who is calling: a broker proxy serves every client of its broker, so on each connection it
// looks the caller up — the socket with the caller's port in /proc/net/tcp, then which broker
// process holds that socket (its /proc/<pid>/fd) — and a caller that is no broker is a client (the
// workload, the harness), never cut. An etcd proxy has one caller, the broker it was made for.
//
// A cut link drops nothing and refuses nothing: like a network that loses every packet, its
// connections stop carrying bytes (both sockets paused, the kernel's buffers fill, the peers' own
// timeouts fire) and new connections on it are accepted but not forwarded. heal() lets them all
// go on, as TCP would after the network came back. Nothing is buffered by the proxy beyond what a socket's
// write buffer holds before it pauses its source (back-pressure).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { connect, createServer, type Server, type Socket } from 'node:net'

export interface FaultProxy {
  readonly port: number
  /** The node the proxy stands for ('b1', 'etcd'). */
  readonly target: string
  close(): Promise<void>
}

interface Link {
  from: string
  to: string
  client: Socket
  upstream: Socket | null
  /** Connects upstream and starts forwarding (once). */
  open(): void
  held: boolean
}

const pairKey = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`)

/** The inode of the socket whose local port is `localPort` and remote port `remotePort` (IPv4 loopback), if any. */
function socketInode(localPort: number, remotePort: number): string | undefined {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0')
  const want = `:${hex(localPort)}`
  const remote = `:${hex(remotePort)}`
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      if (f.length > 9 && f[1]!.endsWith(want) && f[2]!.endsWith(remote)) return f[9]
    }
  }
  return undefined
}

/** Which of `pids` holds socket `inode`. */
function ownerOf(inode: string, pids: Iterable<number>): number | undefined {
  const link = `socket:[${inode}]`
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === link) return pid
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined
}

/** Copies from → to with back-pressure; a held link is not resumed by a drain. */
function forward(from: Socket, to: Socket, link: Link): void {
  from.on('data', (chunk: Buffer) => {
    if (!to.write(chunk)) from.pause()
  })
  to.on('drain', () => {
    if (!link.held) from.resume()
  })
  from.on('end', () => to.end())
}

export class FaultNet {
  private readonly cuts = new Set<string>()
  private readonly links = new Set<Link>()
  private readonly servers = new Set<Server>()
  /** Connections accepted, those a broker made to another broker's proxy, and those a cut held, over the run. */
  readonly counts = { connections: 0, brokerToBroker: 0, held: 0 }

  /** `brokers()`: the pid of every broker process running now, with its node name. */
  constructor(private readonly brokers: () => Map<number, string>) {}

  /**
   * Starts a proxy for `target` on a free port, forwarding to upstreamPort (a function: read on
   * each connection); `caller` when only that node dials it (etcd proxies).
   */
  async proxy(target: string, upstreamPort: number | (() => number), caller?: string): Promise<FaultProxy> {
    const server = createServer((client) => this.accept(client, target, upstreamPort, caller, server))
    server.on('error', () => {})
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => resolve())
    })
    this.servers.add(server)
    const address = server.address()
    const port = typeof address === 'object' && address ? address.port : 0
    return {
      port,
      target,
      close: () =>
        new Promise<void>((resolve) => {
          this.servers.delete(server)
          for (const l of this.links) if (l.to === target && (caller === undefined || l.from === caller)) this.drop(l)
          server.close(() => resolve())
        }),
    }
  }

  /** Cuts the link between nodes a and b, both ways (their connections now and later). */
  cut(a: string, b: string): void {
    this.cuts.add(pairKey(a, b))
    for (const l of this.links) if (this.isCut(l)) this.hold(l)
  }

  /** Every link works again; held connections go on. */
  heal(): void {
    this.cuts.clear()
    for (const l of [...this.links]) {
      if (!l.held) continue
      l.held = false
      l.client.resume()
      if (l.upstream) l.upstream.resume()
      else l.open()
    }
  }

  /** The cut links, as 'a|b'. */
  cutLinks(): string[] {
    return [...this.cuts].sort()
  }

  async close(): Promise<void> {
    for (const l of this.links) this.drop(l)
    await Promise.all([...this.servers].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))))
    this.servers.clear()
  }

  private isCut(l: Link): boolean {
    return this.cuts.has(pairKey(l.from, l.to))
  }

  private callerOf(client: Socket, server: Server): string {
    const address = server.address()
    const port = typeof address === 'object' && address ? address.port : 0
    const inode = client.remotePort === undefined ? undefined : socketInode(client.remotePort, port)
    if (inode === undefined) return 'client'
    const brokers = this.brokers()
    const pid = ownerOf(inode, brokers.keys())
    return pid === undefined ? 'client' : brokers.get(pid)!
  }

  private accept(client: Socket, target: string, upstreamPort: number | (() => number), caller: string | undefined, server: Server): void {
    this.counts.connections++
    client.on('error', () => {})
    const link: Link = {
      from: caller ?? this.callerOf(client, server),
      to: target,
      client,
      upstream: null,
      held: false,
      open: () => {
        if (link.upstream || client.destroyed) return
        const upstream = connect(typeof upstreamPort === 'number' ? upstreamPort : upstreamPort(), '127.0.0.1')
        link.upstream = upstream
        upstream.on('error', () => {})
        upstream.on('close', () => this.drop(link))
        forward(client, upstream, link)
        forward(upstream, client, link)
      },
    }
    if (caller === undefined && link.from !== 'client') this.counts.brokerToBroker++
    this.links.add(link)
    client.on('close', () => this.drop(link))
    if (this.isCut(link)) this.hold(link)
    else link.open()
  }

  private hold(l: Link): void {
    if (l.held) return
    l.held = true
    this.counts.held++
    l.client.pause()
    l.upstream?.pause()
  }

  private drop(l: Link): void {
    if (!this.links.delete(l)) return
    l.client.destroy()
    l.upstream?.destroy()
  }
}
