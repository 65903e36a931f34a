// A small Kafka client on Tributary's own protocol layer, for the `tributary` command line (perf,
// and later the topic, group and console tools) and for tests.
//
//   const client = await KafkaClient.connect({ bootstrap: ['127.0.0.1:9092'] })
//   const md = await client.metadata(['events'])              // cached, refreshable
//   const res = await client.request(ListOffsetsRequest, ListOffsetsResponse, (v) => body, { nodeId })
//   await client.close()
//
// Connections: one to the first reachable bootstrap server, then one per broker, by node id, to the
// host:port it advertises in Metadata (the bootstrap connection is reused when the addresses are
// the same). Each connection negotiates versions on opening (api-versions.ts); a request goes in
// the highest version both sides support. A closed connection is reopened on next use; the client
// itself does not retry failed requests — that is the caller's decision, from ClientError.code.
//
// Metadata is cached per topic for metadataMaxAgeMs (Kafka's metadata.max.age.ms); topics whose
// entry carries an error are always fetched again, and { refresh: true } forces a fetch (after
// NOT_LEADER_OR_FOLLOWER, say).
import type { ClientSecurity } from './security.js'
import { MetadataRequest, MetadataResponse } from '../protocol/messages/03-metadata.js'
import { ZERO_UUID } from '../protocol/primitives/uuid.js'
import type { Encodable, Message } from '../protocol/schema.js'
import { connectNegotiated } from './api-versions.js'
import { type Connection, DEFAULT_REQUEST_TIMEOUT_MS } from './connection.js'
import { ClientError, throwIfError } from './errors.js'
import { type BrokerInfo, type ClusterMetadata, parseMetadata, type TopicInfo } from './metadata.js'

export interface KafkaClientOptions {
  /** host:port of one or more brokers (`[::1]:9092` for IPv6; the port defaults to 9092). */
  bootstrap: string[]
  /** Sent in every request header. Default 'tributary'. */
  clientId?: string
  /** Per-request timeout in ms. Default 30000. */
  requestTimeoutMs?: number
  /** Default 10000. */
  connectTimeoutMs?: number
  /** Cached metadata older than this is fetched again. Default 300000. */
  metadataMaxAgeMs?: number
  /** TLS and SASL for every connection (security.ts). Default PLAINTEXT. */
  security?: ClientSecurity
}

export interface RequestOptions {
  /** The broker to send to; by default any connected broker (the bootstrap one first). */
  nodeId?: number
  /** Overrides the client's request timeout. */
  timeoutMs?: number
  /** Caps the negotiated version. */
  maxVersion?: number
}

export interface MetadataOptions {
  /** Fetch even if the cache is fresh. */
  refresh?: boolean
  /** Ask the broker to create missing topics (Metadata v4+; the broker must allow it). Default false. */
  autoCreate?: boolean
}

export interface Address {
  host: string
  port: number
}

/** Parses `host:port`, `[v6addr]:port`, or a bare host (port 9092). */
export function parseAddress(s: string): Address {
  const text = s.trim()
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(text)
  if (v6) return { host: v6[1]!, port: v6[2] === undefined ? 9092 : checkPort(v6[2], s) }
  const i = text.lastIndexOf(':')
  if (i < 0) {
    if (text === '') throw new ClientError('INVALID_REQUEST', `empty bootstrap address`)
    return { host: text, port: 9092 }
  }
  if (text.indexOf(':') !== i) throw new ClientError('INVALID_REQUEST', `bad address ${s}: write IPv6 as [addr]:port`)
  const host = text.slice(0, i)
  if (host === '') throw new ClientError('INVALID_REQUEST', `bad address ${s}: no host`)
  return { host, port: checkPort(text.slice(i + 1), s) }
}

function checkPort(p: string, whole: string): number {
  const port = Number(p)
  if (!/^\d+$/.test(p) || port < 1 || port > 65535) throw new ClientError('INVALID_REQUEST', `bad port in ${whole}`)
  return port
}

/** The SASL answers that end a connection attempt (no other broker is tried). */
const AUTHENTICATION_ERRORS: ReadonlySet<string> = new Set([
  'SASL_AUTHENTICATION_FAILED',
  'UNSUPPORTED_SASL_MECHANISM',
  'ILLEGAL_SASL_STATE',
])

export class KafkaClient {
  readonly clientId: string
  readonly requestTimeoutMs: number
  /** TLS and SASL of every connection this client opens (security.ts). */
  readonly security: ClientSecurity | undefined
  private readonly connectTimeoutMs: number
  private readonly metadataMaxAgeMs: number
  private readonly bootstrapAddresses: Address[]
  private bootstrapConn: Connection | undefined
  private readonly nodes = new Map<number, Promise<Connection>>()
  private brokers = new Map<number, BrokerInfo>()
  private clusterId: string | null = null
  private controllerId = -1
  private readonly topics = new Map<string, { info: TopicInfo; fetchedAt: number }>()
  private allTopicsAt = Number.NEGATIVE_INFINITY
  private closed = false

  private constructor(opts: KafkaClientOptions) {
    if (opts.bootstrap.length === 0) throw new ClientError('INVALID_REQUEST', 'no bootstrap servers given')
    this.bootstrapAddresses = opts.bootstrap.map(parseAddress)
    this.clientId = opts.clientId ?? 'tributary'
    this.requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
    this.security = opts.security
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 10_000
    this.metadataMaxAgeMs = opts.metadataMaxAgeMs ?? 300_000
  }

  /** Connects to the first reachable bootstrap server and negotiates API versions with it. */
  static async connect(opts: KafkaClientOptions): Promise<KafkaClient> {
    const client = new KafkaClient(opts)
    client.bootstrapConn = await client.openFirst(client.bootstrapAddresses)
    return client
  }

  /** Cluster id, controller and brokers as of the last Metadata response. */
  get cluster(): { clusterId: string | null; controllerId: number; brokers: ReadonlyMap<number, BrokerInfo> } {
    return { clusterId: this.clusterId, controllerId: this.controllerId, brokers: this.brokers }
  }

  /**
   * Sends one request in the highest version both sides support and resolves with the decoded
   * response; `body` may depend on the version chosen. Response error codes are the caller's to
   * check (throwIfError); transport failures reject with a ClientError.
   */
  async request<Req, Res>(
    req: Message<Req>,
    res: Message<Res>,
    body: Encodable<Req> | ((version: number) => Encodable<Req>),
    opts: RequestOptions = {},
  ): Promise<Res> {
    const conn = opts.nodeId === undefined ? await this.anyConnection() : await this.connection(opts.nodeId)
    const version = conn.versions!.pick(req, res, opts.maxVersion)
    const value = typeof body === 'function' ? (body as (v: number) => Encodable<Req>)(version) : body
    return conn.request(req, res, version, value, opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {})
  }

  /** The version `request` would use for an API on a broker's connection. */
  async version(req: Message<any>, res: Message<any>, nodeId?: number): Promise<number> {
    const conn = nodeId === undefined ? await this.anyConnection() : await this.connection(nodeId)
    return conn.versions!.pick(req, res)
  }

  /**
   * Cluster metadata for the given topics (null: every topic), from the cache when it is fresh.
   * Topics the broker does not know are returned with error UNKNOWN_TOPIC_OR_PARTITION.
   */
  async metadata(topics: string[] | null, opts: MetadataOptions = {}): Promise<ClusterMetadata> {
    this.assertOpen()
    const now = performance.now()
    if (!opts.refresh && this.isFresh(topics, now)) return this.view(topics)
    const res = await this.request(MetadataRequest, MetadataResponse, (v) => ({
      // v0: an empty list means every topic; from v1, null does.
      topics: topics === null ? (v === 0 ? [] : null) : topics.map((name) => ({ name, topicId: ZERO_UUID })),
      allowAutoTopicCreation: opts.autoCreate ?? false,
      includeTopicAuthorizedOperations: false,
    }))
    // v13 (KIP-1102): a broker may ask the client to bootstrap again; this client has no
    // rebootstrap, so it reports the answer rather than keeping metadata the broker calls stale.
    throwIfError(res.errorCode, 'Metadata')
    const md = parseMetadata(res)
    this.brokers = md.brokers
    this.clusterId = md.clusterId
    this.controllerId = md.controllerId
    const at = performance.now()
    if (topics === null) {
      this.topics.clear()
      this.allTopicsAt = at
    }
    for (const [name, info] of md.topics) this.topics.set(name, { info, fetchedAt: at })
    return this.view(topics)
  }

  /** The connection to a broker by node id, opened (and its versions negotiated) on first use. */
  async connection(nodeId: number): Promise<Connection> {
    this.assertOpen()
    const existing = this.nodes.get(nodeId)
    if (existing) {
      const conn = await existing.catch(() => undefined)
      if (conn?.isOpen) return conn
      if (this.nodes.get(nodeId) === existing) this.nodes.delete(nodeId)
    }
    let broker = this.brokers.get(nodeId)
    if (!broker) {
      await this.metadata([], { refresh: true })
      broker = this.brokers.get(nodeId)
      if (!broker) throw new ClientError('BROKER_NOT_AVAILABLE', `node ${nodeId} is not in the cluster metadata`)
    }
    const pending = this.nodes.get(nodeId)
    if (pending) return pending // opened concurrently while we fetched metadata
    const b = broker
    const boot = this.bootstrapConn
    const opening =
      boot?.isOpen && boot.host === b.host && boot.port === b.port ? Promise.resolve(boot) : this.open({ host: b.host, port: b.port })
    this.nodes.set(nodeId, opening)
    const forget = () => {
      if (this.nodes.get(nodeId) === opening) this.nodes.delete(nodeId)
    }
    opening.then((conn) => conn.onClose(forget), forget)
    return opening
  }

  /** The leader of a partition per the cached metadata (-1 if unknown or leaderless). */
  leaderOf(topic: string, partition: number): number {
    const t = this.topics.get(topic)?.info
    return t?.partitions.find((p) => p.partition === partition)?.leader ?? -1
  }

  /** Closes every connection; requests in flight fail with NETWORK_EXCEPTION. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.bootstrapConn?.close()
    const conns = await Promise.all([...this.nodes.values()].map((p) => p.catch(() => undefined)))
    for (const c of conns) c?.close()
    this.nodes.clear()
  }

  private isFresh(topics: string[] | null, now: number): boolean {
    if (this.brokers.size === 0) return false
    if (topics === null) return now - this.allTopicsAt < this.metadataMaxAgeMs
    for (const name of topics) {
      const t = this.topics.get(name)
      if (!t || t.info.error !== null || now - t.fetchedAt >= this.metadataMaxAgeMs) return false
      if (t.info.partitions.some((p) => p.error !== null || p.leader < 0)) return false
    }
    return true
  }

  private view(topics: string[] | null): ClusterMetadata {
    const out = new Map<string, TopicInfo>()
    if (topics === null) for (const [name, t] of this.topics) out.set(name, t.info)
    else {
      for (const name of topics) {
        const t = this.topics.get(name)
        if (t) out.set(name, t.info)
      }
    }
    return { clusterId: this.clusterId, controllerId: this.controllerId, brokers: new Map(this.brokers), topics: out }
  }

  /** An open connection to any broker: the bootstrap one if open, else a broker's, else a new one. */
  private async anyConnection(): Promise<Connection> {
    this.assertOpen()
    if (this.bootstrapConn?.isOpen) return this.bootstrapConn
    for (const p of this.nodes.values()) {
      const conn = await p.catch(() => undefined)
      if (conn?.isOpen) return conn
    }
    const known = [...this.brokers.values()].map((b) => ({ host: b.host, port: b.port }))
    this.bootstrapConn = await this.openFirst([...known, ...this.bootstrapAddresses])
    return this.bootstrapConn
  }

  private async openFirst(addresses: Address[]): Promise<Connection> {
    const failures: string[] = []
    for (const a of addresses) {
      try {
        return await this.open(a)
      } catch (err) {
        // A refused login is not a broker being away: Kafka's clients fail at once with it.
        if (err instanceof ClientError && AUTHENTICATION_ERRORS.has(err.code)) throw err
        failures.push(err instanceof ClientError ? err.detail : (err as Error).message)
      }
    }
    throw new ClientError('NETWORK_EXCEPTION', `no broker reachable: ${failures.join('; ')}`)
  }

  private async open(a: Address): Promise<Connection> {
    const conn = await connectNegotiated({
      host: a.host,
      port: a.port,
      clientId: this.clientId,
      requestTimeoutMs: this.requestTimeoutMs,
      connectTimeoutMs: this.connectTimeoutMs,
      ...(this.security ? { security: this.security } : {}),
    })
    if (this.closed) {
      conn.close()
      throw new ClientError('NETWORK_EXCEPTION', 'client closed')
    }
    return conn
  }

  private assertOpen(): void {
    if (this.closed) throw new ClientError('NETWORK_EXCEPTION', 'client closed')
  }
}
