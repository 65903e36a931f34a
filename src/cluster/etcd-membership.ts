// EtcdMembership: a broker's registration in the cluster and the controller election, through etcd
// (docs/architecture.md §1.5) — the roles of ZooKeeper's /brokers/ids/<id> ephemeral nodes and /controller in
// Kafka ≤ 3.x.
//
// Keys, under `etcd.prefix` (default /tributary), both attached to this broker's lease:
//   <prefix>/brokers/<id>    {"nodeId","rack","endpoints":[{"listener","host","port","securityProtocol"}],"registeredMs"}
//   <prefix>/controller      {"nodeId"}; its create revision is the controller epoch (it only grows)
//
// Liveness = the lease is alive. The broker keeps it alive (a keep-alive every third of the TTL);
// when the process dies the keep-alives stop and etcd deletes both keys once the TTL
// (`broker.session.timeout.ms`, rounded up to whole seconds) runs out. A clean shutdown revokes the
// lease, so the keys go at once.
//
// Registration is create-if-absent: a second broker with the same id is refused. The key of a
// broker that crashed a moment ago still exists until its lease expires, so a conflicting start
// waits up to one session timeout for the key to go before giving up with BrokerIdInUseError.
//
// Election: every broker watches the controller key; when it is absent (first start, or the
// controller's lease expired or was revoked) each registered broker tries a create-if-absent
// transaction and exactly one wins. isController is true only while the key holds this broker's
// current lease and that lease is known to be alive by this broker's own clock: the lease's
// deadline is the send time of the last acknowledged keep-alive plus the TTL etcd granted, so a
// broker cut off from etcd stops calling itself controller no later than etcd expires its key.
// When the etcd3 client reports the lease lost, the broker registers again under a new lease.
import type { Etcd3, IRequestOp, Lease } from 'etcd3'
import type { Clock, Timer } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import { EtcdMirror, type MirrorEntry } from './etcd-mirror.js'
import { DEFAULT_ETCD_PREFIX, normalizePrefix } from './etcd-store.js'
import type { BrokerRegistration, ControllerState, Membership, RegisteredEndpoint } from './membership.js'

export type { BrokerRegistration, ControllerState, RegisteredEndpoint } from './membership.js'

export interface EtcdMembershipOptions {
  client: Etcd3
  prefix?: string
  nodeId: number
  rack: string | null
  endpoints: RegisteredEndpoint[]
  /** Lease TTL (broker.session.timeout.ms); rounded up to whole seconds, at least 2. */
  sessionTimeoutMs: number
  clock: Clock
  logger: Logger
}

/** Another live broker is registered with this broker's id. */
export class BrokerIdInUseError extends Error {
  constructor(
    readonly nodeId: number,
    holder: string,
    prefix: string,
  ) {
    super(
      `broker.id ${nodeId} is already registered in etcd (prefix ${prefix}) by a running broker (${holder}); ` +
        'every broker of a cluster needs its own broker.id: stop the other broker or give this one another id',
    )
    this.name = 'BrokerIdInUseError'
  }
}

const BROKERS = 'brokers/'
const CONTROLLER = 'controller'
const RETRY_MS = 500
const MAX_RETRY_MS = 8000
const REGISTRATION_VISIBLE_TIMEOUT_MS = 10_000
const CLOSE_TIMEOUT_MS = 2000
/** Keep-alives tried per tick (each on a member picked at random): see keepAlive. */
const KEEPALIVE_ATTEMPTS = 8
const STALE_REGISTRATION_GRACE_MS = 3000

export class EtcdMembership implements Membership {
  private lease: Lease | undefined
  private leaseId = ''
  /** The lease under which brokers/<id> was last created; campaigning needs a registration. */
  private registeredLease = ''
  /** Leases this process was granted; a registration still held by one of them is ours to replace. */
  private readonly ownLeases = new Set<string>()
  /** Monotonic ms until which the current lease is surely alive. */
  private leaseDeadline = 0
  private deadlineTimer: Timer | undefined
  private keepAliveTimer: Timer | undefined
  private state: ControllerState = { controllerId: -1, controllerEpoch: 0, isController: false }
  private registered: BrokerRegistration[] = []
  private readonly controllerListeners: Array<(s: ControllerState) => void> = []
  private readonly brokerListeners: Array<(b: readonly BrokerRegistration[]) => void> = []
  private campaigning = false
  private reregistering = false
  private closed = false
  private readonly ttlSeconds: number
  private readonly keepAliveIntervalMs: number

  private constructor(
    private readonly client: Etcd3,
    private readonly mirror: EtcdMirror,
    private readonly opts: EtcdMembershipOptions,
    private readonly prefix: string,
  ) {
    this.ttlSeconds = Math.max(2, Math.ceil(opts.sessionTimeoutMs / 1000))
    this.keepAliveIntervalMs = Math.floor((this.ttlSeconds * 1000) / 3)
  }

  /** Registers the broker (waiting out a crashed predecessor's registration) and joins the election. */
  static async start(opts: EtcdMembershipOptions): Promise<EtcdMembership> {
    const prefix = normalizePrefix(opts.prefix ?? DEFAULT_ETCD_PREFIX)
    const mirror = await EtcdMirror.open(opts.client, prefix, opts.clock, opts.logger, (k) => k === CONTROLLER || k.startsWith(BROKERS))
    const m = new EtcdMembership(opts.client, mirror, opts, prefix)
    try {
      // A crashed predecessor's key lasts up to one TTL; etcd revokes expired leases with some delay.
      await m.register(opts.clock.monotonic() + m.ttlSeconds * 1000 + STALE_REGISTRATION_GRACE_MS)
    } catch (err) {
      await m.close()
      throw err
    }
    m.refreshBrokers()
    m.mirror.onChange((changes) => {
      if (changes.some((c) => c.key.startsWith(BROKERS))) m.refreshBrokers()
      if (changes.some((c) => c.key === CONTROLLER)) m.refreshController()
    })
    m.refreshController()
    return m
  }

  get isController(): boolean {
    // The lease is checked at every read too: the timer that refreshes the state at the lease's
    // deadline can fire late (a busy or paused process), and no other broker may be controller
    // then while this one still says it is.
    return this.state.isController && this.leaseAlive()
  }

  /**
   * True while this broker's lease is known alive by its own clock: its registration stands, so no
   * other broker can have been given its partitions' leadership because it was gone.
   */
  get leaseValid(): boolean {
    return this.leaseAlive()
  }

  get controllerId(): number {
    return this.state.controllerId
  }

  get controllerEpoch(): number {
    return this.state.controllerEpoch
  }

  /** The registered (live) brokers, by node id. */
  brokers(): readonly BrokerRegistration[] {
    return this.registered
  }

  onControllerChange(listener: (state: ControllerState) => void): void {
    this.controllerListeners.push(listener)
  }

  onBrokersChange(listener: (brokers: readonly BrokerRegistration[]) => void): void {
    this.brokerListeners.push(listener)
  }

  /** Leaves the cluster: revokes the lease, so the registration (and controllership) go at once. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.deadlineTimer?.cancel()
    this.keepAliveTimer?.cancel()
    // Step down before the key goes: another broker may be elected the moment it does.
    this.setState({ controllerId: -1, controllerEpoch: 0, isController: false })
    await this.mirror.close()
    const lease = this.lease
    this.lease = undefined
    if (lease)
      await lease
        .revoke(this.callDeadline())
        .catch((err) => this.opts.logger.warn('revoking the etcd lease failed; it expires by itself', { err }))
  }

  // ---------------------------------------------------------------------------------------------
  // Registration and the lease

  /** gRPC options bounding a call that must not hang a shutdown on an unreachable etcd. */
  private callDeadline(): { deadline: number } {
    return { deadline: Date.now() + CLOSE_TIMEOUT_MS }
  }

  private key(sub: string): Buffer {
    return Buffer.from(this.prefix + sub)
  }

  /**
   * A fresh lease, kept alive by this broker's own timer (the clock's, which never holds the
   * process open) rather than the etcd3 client's loop: one keep-alive at a time, every third of
   * the TTL, each bounded by a deadline, and nothing left running once the lease is given up.
   */
  private async grantLease(): Promise<void> {
    const { clock, logger } = this.opts
    const lease = this.client.lease(this.ttlSeconds, { autoKeepAlive: false })
    const asked = clock.monotonic()
    lease.on('lost', (err) => {
      if (this.lease !== lease || this.closed) return
      logger.error('lost the etcd lease: this broker is no longer registered; registering again', { err })
      this.lease = undefined
      this.leaseDeadline = 0
      this.refreshController()
      void this.reregister()
    })
    const id = await lease.grant()
    if (this.closed) {
      await lease.revoke(this.callDeadline()).catch(() => {})
      throw new Error('broker membership closed while registering')
    }
    this.leaseId = id
    this.ownLeases.add(this.leaseId)
    this.lease = lease
    this.extendDeadline(asked + this.ttlSeconds * 1000)
    this.scheduleKeepAlive(lease)
  }

  private scheduleKeepAlive(lease: Lease): void {
    this.keepAliveTimer?.cancel()
    this.keepAliveTimer = this.opts.clock.setTimeout(() => void this.keepAlive(lease), this.keepAliveIntervalMs)
  }

  /**
   * One keep-alive, tried again at once on another connection when it fails, within the tick. The
   * etcd3 client opens each keep-alive stream on a member picked at random among etcd.endpoints
   * and never learns from a failed stream that the member is down (its circuit breaker counts the
   * stream's creation as a success), so with one member of three down, a third of the keep-alives
   * failed; three in a row (one 2 s TTL) lost the lease and the broker's registration, although
   * etcd had its quorum (test/unit/cluster/etcd-failover.test.ts). A down member refuses at once,
   * so the attempts cost little; a member that hangs uses up the tick's deadline, as before.
   */
  private async keepAlive(lease: Lease): Promise<void> {
    if (this.closed || this.lease !== lease) return
    const until = Date.now() + this.keepAliveIntervalMs
    for (let attempt = 1; attempt <= KEEPALIVE_ATTEMPTS && Date.now() < until; attempt++) {
      const sent = this.opts.clock.monotonic()
      try {
        const res = await lease.keepaliveOnce({ deadline: until })
        if (this.lease === lease) this.extendDeadline(sent + Number(res.TTL) * 1000)
        break
      } catch (err) {
        // An expired lease is reported through 'lost'; anything else is tried again.
        if (lease.revoked()) return
        this.opts.logger.debug('etcd keep-alive failed', { err, attempt })
        if (this.closed || this.lease !== lease) return
      }
    }
    if (this.lease === lease && !this.closed) this.scheduleKeepAlive(lease)
  }

  private extendDeadline(deadline: number): void {
    const wasAlive = this.leaseAlive()
    this.leaseDeadline = Math.max(this.leaseDeadline, deadline)
    this.deadlineTimer?.cancel()
    this.deadlineTimer = this.opts.clock.setTimeout(() => this.refreshController(), this.leaseDeadline - this.opts.clock.monotonic() + 1)
    if (!wasAlive) this.refreshController()
  }

  private leaseAlive(): boolean {
    return this.lease !== undefined && this.opts.clock.monotonic() < this.leaseDeadline
  }

  /**
   * Creates brokers/<id> under a fresh lease; waits until `deadline` for a stale holder to expire.
   * On failure the fresh lease is given up (its keep-alives stop; etcd lets it expire).
   */
  private async register(deadline: number): Promise<void> {
    try {
      await this.registerOnce(deadline)
    } catch (err) {
      const lease = this.lease
      this.lease = undefined
      lease?.release()
      throw err
    }
  }

  private async registerOnce(deadline: number): Promise<void> {
    const { nodeId, clock, logger } = this.opts
    await this.grantLease()
    const reg: BrokerRegistration = {
      nodeId,
      rack: this.opts.rack,
      endpoints: this.opts.endpoints,
      registeredMs: clock.now(),
    }
    const key = this.key(BROKERS + nodeId)
    const put: IRequestOp = { request_put: { key, value: Buffer.from(JSON.stringify(reg)), lease: this.leaseId } }
    let warned = false
    let written = 0
    for (;;) {
      const res = await this.client.if(key, 'Create', '==', 0).then(put).else({ request_range: { key } }).commit()
      if (res.succeeded) {
        written = Number(res.header.revision)
        break
      }
      const holder = res.responses[0]?.response_range?.kvs[0]
      if (holder && this.ownLeases.has(String(holder.lease))) {
        // Our own earlier registration (a lease we lost): replace it.
        const swap = await this.client.if(key, 'Lease', '==', String(holder.lease)).then(put).commit()
        if (swap.succeeded) {
          written = Number(swap.header.revision)
          break
        }
        continue
      }
      if (this.closed) throw new Error('broker membership closed while registering')
      if (clock.monotonic() >= deadline) {
        await this.lease?.revoke(this.callDeadline()).catch(() => {})
        this.lease = undefined
        throw new BrokerIdInUseError(nodeId, describeHolder(holder?.value), this.prefix)
      }
      if (!warned) {
        logger.warn('broker id is registered by another lease; waiting for it to expire (a broker that just crashed)', { nodeId })
        warned = true
      }
      await new Promise<void>((r) => clock.setTimeout(r, RETRY_MS))
    }
    this.registeredLease = this.leaseId
    // The registration is in this broker's own view before start() returns.
    await this.mirror.waitFor(written, REGISTRATION_VISIBLE_TIMEOUT_MS).catch(() => {})
    logger.info('registered in etcd', { nodeId, lease: this.leaseId, ttlSeconds: this.ttlSeconds })
  }

  /** Registers again after the lease was lost, retrying with backoff (500 ms doubling to 8 s). */
  private async reregister(): Promise<void> {
    if (this.reregistering) return
    this.reregistering = true
    try {
      await this.reregisterLoop()
    } finally {
      this.reregistering = false
    }
  }

  private async reregisterLoop(): Promise<void> {
    for (let attempt = 0; !this.closed && !this.lease; attempt++) {
      try {
        await this.register(Number.POSITIVE_INFINITY)
        this.refreshController()
        return
      } catch (err) {
        this.lease = undefined
        if (this.closed) return
        const delayMs = Math.min(RETRY_MS * 2 ** attempt, MAX_RETRY_MS)
        if (attempt === 0) this.opts.logger.warn('registering in etcd failed; retrying until etcd answers', { err })
        else this.opts.logger.debug('registering in etcd failed again', { err, delayMs })
        await new Promise<void>((r) => this.opts.clock.setTimeout(r, delayMs))
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Brokers and the controller

  private refreshBrokers(): void {
    const list: BrokerRegistration[] = []
    for (const e of this.mirror.under(BROKERS)) {
      const reg = parseRegistration(e)
      if (reg) list.push(reg)
      else this.opts.logger.error('ignoring an invalid broker registration in etcd', { key: this.prefix + e.key })
    }
    list.sort((a, b) => a.nodeId - b.nodeId)
    this.registered = list
    for (const l of this.brokerListeners) l(list)
  }

  private refreshController(): void {
    if (this.closed) return
    const entry = this.mirror.get(CONTROLLER)
    const nodeId = entry ? parseNodeId(entry.value) : undefined
    this.setState({
      controllerId: nodeId ?? -1,
      controllerEpoch: entry ? entry.createRevision : 0,
      isController: entry !== undefined && entry.lease === this.leaseId && this.leaseAlive(),
    })
    if (!entry) void this.campaign()
  }

  private setState(next: ControllerState): void {
    const prev = this.state
    if (prev.controllerId === next.controllerId && prev.controllerEpoch === next.controllerEpoch && prev.isController === next.isController)
      return
    this.state = next
    if (next.isController && !prev.isController) this.opts.logger.info('elected controller', { epoch: next.controllerEpoch })
    if (!next.isController && prev.isController && !this.closed)
      this.opts.logger.warn('no longer controller', { controllerId: next.controllerId, epoch: next.controllerEpoch })
    for (const l of this.controllerListeners) l(next)
  }

  /** Tries to become controller while there is none; the watch tells everyone who won. */
  private async campaign(): Promise<void> {
    if (this.campaigning || this.closed || !this.leaseAlive() || this.registeredLease !== this.leaseId) return
    this.campaigning = true
    try {
      const key = this.key(CONTROLLER)
      const value = Buffer.from(JSON.stringify({ nodeId: this.opts.nodeId }))
      await this.client
        .if(key, 'Create', '==', 0)
        .then({ request_put: { key, value, lease: this.leaseId } })
        .commit()
    } catch (err) {
      if (!this.closed) {
        this.opts.logger.warn('controller election attempt failed; retrying', { err })
        this.opts.clock.setTimeout(() => this.refreshController(), RETRY_MS)
      }
    } finally {
      this.campaigning = false
    }
  }
}

function parseJson(value: Buffer): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(value.toString('utf8'))
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : undefined
  } catch {
    return undefined
  }
}

function parseNodeId(value: Buffer): number | undefined {
  const id = parseJson(value)?.nodeId
  return Number.isSafeInteger(id) && (id as number) >= 0 ? (id as number) : undefined
}

function parseRegistration(e: MirrorEntry): BrokerRegistration | undefined {
  const r = parseJson(e.value) as Partial<BrokerRegistration> | undefined
  if (!r || !Number.isSafeInteger(r.nodeId) || e.key !== BROKERS + r.nodeId || !Array.isArray(r.endpoints)) return undefined
  const endpoints = r.endpoints.filter(
    (p) =>
      p &&
      typeof p.listener === 'string' &&
      typeof p.host === 'string' &&
      Number.isSafeInteger(p.port) &&
      typeof p.securityProtocol === 'string',
  )
  return {
    nodeId: r.nodeId!,
    rack: typeof r.rack === 'string' ? r.rack : null,
    endpoints,
    registeredMs: typeof r.registeredMs === 'number' ? r.registeredMs : 0,
  }
}

function describeHolder(value: Buffer | undefined): string {
  const r = value ? (parseJson(value) as Partial<BrokerRegistration> | undefined) : undefined
  const ep = Array.isArray(r?.endpoints) ? r.endpoints[0] : undefined
  return ep ? `advertising ${ep.host}:${ep.port}` : 'endpoints unknown'
}
