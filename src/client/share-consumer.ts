// A share-group consumer (KIP-932, "queues"): many consumers read the same partitions and each
// record goes to one of them, acquired under a time lock and acknowledged one by one — the
// behaviour of Kafka's KafkaShareConsumer, for Node.
//
//   const c = new ShareConsumer({ bootstrap: ['127.0.0.1:9092'], groupId: 'workers' })
//   await c.subscribe(['jobs'])
//   for await (const batch of c.batches()) {
//     for (const r of batch) c.acknowledge(r, r.value ? 'accept' : 'reject')
//   }                                                 // or: const records = await c.poll()
//   await c.close()
//
// Parts: membership by ShareGroupHeartbeat (share-membership.ts) on a client of its own, so a
// heartbeat never waits behind a long-polling fetch; one share session per partition leader
// (share-session.ts); records filtered to the acquired ranges (share-records.ts); acknowledgements
// batched as Kafka batches them (share-acks.ts).
//
// Acknowledgement, as Kafka's consumer in its implicit and explicit modes together: a record the
// application acknowledged (accept, release or reject) is sent with the next request to its
// leader — piggy-backed on the next ShareFetch, or in a ShareAcknowledge from commit() — and a
// record of the previous poll left unacknowledged is accepted by the next poll. close() sends the
// acknowledgements made and closes every session (epoch -1), so what the member held and did not
// acknowledge is released at once to the other members; then it leaves the group (epoch -1).
// renew(record) (RENEW, v2, KIP-1222) extends a record's lock while it is being worked on.
//
// Outcomes of acknowledgements (Kafka's AcknowledgementCommitCallback) go to onAcknowledgement and
// are what commit() resolves with: INVALID_RECORD_STATE means the record lost its lock (it was
// delivered again, maybe to another member) before the acknowledgement arrived.
//
// Errors of ShareFetch: NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, UNKNOWN_TOPIC_OR_PARTITION,
// UNKNOWN_TOPIC_ID and LEADER_NOT_AVAILABLE refresh metadata and retry the partition next round;
// SHARE_SESSION_NOT_FOUND and INVALID_SHARE_SESSION_EPOCH start a new session; other retriable
// errors and lost connections back off and retry (a session whose request got no answer starts
// again). A fatal error from the coordinator or a non-retriable fetch error is thrown from poll().
import type { ClientSecurity } from './security.js'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ErrorName } from '../protocol/errors.js'
import { ShareAcknowledgeRequest, ShareAcknowledgeResponse } from '../protocol/messages/79-share-acknowledge.js'
import { ShareFetchRequest, type ShareFetchResponseData, ShareFetchResponse } from '../protocol/messages/78-share-fetch.js'
import { KafkaClient } from './client.js'
import { ClientError, errorName } from './errors.js'
import {
  AcknowledgeType,
  type AcknowledgeTypeId,
  type AckKind,
  acknowledgementBatches,
  ackTypeOf,
  type AcknowledgementBatch,
  expandBatches,
} from './share-acks.js'
import { type AssignedPartition, ShareMembership } from './share-membership.js'
import { decodeShareRecords, type ShareRecord } from './share-records.js'
import { ShareSession, type SharePartitionId, sharePartitionKey } from './share-session.js'

export type { AckKind } from './share-acks.js'
export type { AssignedPartition } from './share-membership.js'
export type { ShareRecord } from './share-records.js'

export interface ShareConsumerOptions {
  bootstrap: string[]
  /** TLS and SASL for its connections (security.ts). Default PLAINTEXT. */
  security?: ClientSecurity
  groupId: string
  /** Default 'tributary-share-consumer'. */
  clientId?: string
  rackId?: string | null
  /** Long-poll wait of each ShareFetch (fetch.max.wait.ms). Default 500. */
  maxWaitMs?: number
  /** fetch.min.bytes. Default 1. */
  minBytes?: number
  /** fetch.max.bytes. Default 52428800. */
  maxBytes?: number
  /** Records per ShareFetch (max.poll.records). Default 500. */
  maxRecords?: number
  requestTimeoutMs?: number
  /** Outcome of every acknowledgement sent (Kafka's AcknowledgementCommitCallback). */
  onAcknowledgement?: (result: AcknowledgementResult) => void
  /** Told of every new assignment. */
  onAssignment?: (partitions: AssignedPartition[]) => void
}

/** What became of the acknowledgements of one partition sent in one request. */
export interface AcknowledgementResult {
  topic: string
  partition: number
  /** The offsets acknowledged (gaps the client filled in itself included). */
  offsets: number[]
  /** null when the leader took them; INVALID_RECORD_STATE when a lock had expired. */
  error: ErrorName | null
}

/** A record delivered and not yet acknowledged: where its acknowledgement must go. */
interface Held {
  nodeId: number
  key: string
  offset: number
}

/** Per-partition fetch errors after which fresh metadata may find the leader. */
const STALE_METADATA: ReadonlySet<ErrorName> = new Set<ErrorName>([
  'NOT_LEADER_OR_FOLLOWER',
  'FENCED_LEADER_EPOCH',
  'UNKNOWN_LEADER_EPOCH',
  'LEADER_NOT_AVAILABLE',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'UNKNOWN_TOPIC_ID',
  'KAFKA_STORAGE_ERROR',
  'REPLICA_NOT_AVAILABLE',
])
const MAX_FAILED_ROUNDS = 10
/** Top-level ShareFetch errors while the group is still settling the member: try again next round. */
const MEMBER_NOT_READY: ReadonlySet<ErrorName> = new Set<ErrorName>(['UNKNOWN_MEMBER_ID', 'FENCED_MEMBER_EPOCH'])

const recordKey = (topic: string, partition: number, offset: number) => `${topic}\u0000${partition}\u0000${offset}`

export class ShareConsumer {
  readonly groupId: string
  private readonly opts: ShareConsumerOptions
  private fetchClient: KafkaClient | undefined
  private memberClient: KafkaClient | undefined
  private membership: ShareMembership | undefined
  private readonly sessions = new Map<number, ShareSession>()
  /** Acknowledgements not sent yet: node → partition key → offset → type. */
  private readonly pending = new Map<number, Map<string, Map<number, AcknowledgeTypeId>>>()
  /** Records of the last poll the application has not acknowledged. */
  private readonly held = new Map<string, Held>()
  /** Topic and partition of a partition key, for results. */
  private readonly names = new Map<string, { topic: string; partition: number }>()
  private staleMetadata = true
  private failedRounds = 0
  private lockTimeoutMs: number | null = null
  private closed = false
  private polling: Promise<unknown> | null = null
  /** Per broker, the tail of its session's requests: one at a time, so epochs arrive in order. */
  private readonly sessionTails = new Map<number, Promise<unknown>>()

  constructor(opts: ShareConsumerOptions) {
    if (opts.groupId.trim() === '') throw new ClientError('INVALID_GROUP_ID', 'a share group id must not be empty')
    this.opts = opts
    this.groupId = opts.groupId
  }

  /** The member id this consumer generated (sent in every request). */
  get memberId(): string | null {
    return this.membership?.memberId ?? null
  }

  /** The partitions the coordinator assigned, as of the last heartbeat. */
  get assignment(): AssignedPartition[] {
    return this.membership?.assignment ?? []
  }

  /** How long a record stays acquired before it goes back (the leader's answer; null before any). */
  get acquisitionLockTimeoutMs(): number | null {
    return this.lockTimeoutMs
  }

  /** Joins the group (or changes the subscription) and resolves once the coordinator answered. */
  async subscribe(topics: readonly string[]): Promise<void> {
    this.assertOpen()
    if (topics.length === 0) throw new ClientError('INVALID_REQUEST', 'subscribe to at least one topic')
    await this.connect()
    await this.membership!.subscribe(topics)
  }

  /**
   * One round: accepts the previous poll's unacknowledged records, sends the acknowledgements
   * made, and returns the records acquired by one ShareFetch per leader (at most maxRecords
   * each). Waits up to maxWaitMs for an assignment when there is none.
   */
  async poll(): Promise<ShareRecord[]> {
    this.assertOpen()
    if (!this.membership) throw new ClientError('INVALID_REQUEST', 'subscribe() before poll()')
    if (this.polling) throw new ClientError('INVALID_REQUEST', 'poll() is already running')
    const p = this.pollOnce()
    this.polling = p
    try {
      return await p
    } finally {
      this.polling = null
    }
  }

  /** Polls until close(); yields every non-empty poll. */
  async *batches(): AsyncGenerator<ShareRecord[]> {
    while (!this.closed) {
      const batch = await this.poll().catch((err) => {
        if (this.closed) return []
        throw err
      })
      if (batch.length > 0) yield batch
    }
  }

  /** Acknowledges a record of the last poll; sent with the next request to its leader. */
  acknowledge(record: ShareRecord, kind: AckKind = 'accept'): void {
    const type = ackTypeOf(kind)
    if (type === undefined) throw new ClientError('INVALID_REQUEST', `unknown acknowledgement type ${String(kind)}`)
    const rk = recordKey(record.topic, record.partition, record.offset)
    const h = this.held.get(rk)
    if (!h) {
      throw new ClientError(
        'INVALID_RECORD_STATE',
        `${record.topic}-${record.partition} offset ${record.offset} is not a record of the last poll, or is acknowledged already`,
      )
    }
    this.held.delete(rk)
    this.addPending(h.nodeId, h.key, record.offset, type)
  }

  /** Extends the lock of a record of the last poll (RENEW, ShareAcknowledge v2); it still needs an acknowledgement. */
  async renew(record: ShareRecord): Promise<AcknowledgementResult> {
    this.assertOpen()
    const h = this.held.get(recordKey(record.topic, record.partition, record.offset))
    if (!h) throw new ClientError('INVALID_RECORD_STATE', `${record.topic}-${record.partition} offset ${record.offset} is not held`)
    const session = this.sessions.get(h.nodeId)
    if (!session?.open) throw new ClientError('SHARE_SESSION_NOT_FOUND', `no share session with node ${h.nodeId}`)
    const version = await this.fetchClient!.version(ShareAcknowledgeRequest, ShareAcknowledgeResponse, h.nodeId)
    if (version < 2)
      throw new ClientError('UNSUPPORTED_VERSION', `node ${h.nodeId} does not take RENEW acknowledgements (ShareAcknowledge v2)`)
    const acks = new Map([[h.key, [{ firstOffset: record.offset, lastOffset: record.offset, acknowledgeTypes: [AcknowledgeType.Renew] }]]])
    const results = await this.serial(h.nodeId, () => this.sendAcknowledge(h.nodeId, session, acks, true))
    return results[0] ?? { topic: record.topic, partition: record.partition, offsets: [record.offset], error: null }
  }

  /** Sends every acknowledgement made so far now (ShareAcknowledge), resolving with their outcomes. */
  async commit(): Promise<AcknowledgementResult[]> {
    this.assertOpen()
    const out: AcknowledgementResult[] = []
    await Promise.all(
      [...this.pending.keys()].map(async (nodeId) => {
        const session = this.sessions.get(nodeId)
        if (!session?.open) return // kept for the next ShareFetch, which opens the session
        const acks = this.takePending(nodeId)
        if (acks.size > 0) out.push(...(await this.serial(nodeId, () => this.sendAcknowledge(nodeId, session, acks, false))))
      }),
    )
    return out
  }

  /**
   * Sends the acknowledgements made, closes every share session (what is held and not
   * acknowledged goes back to the group at once) and leaves the group.
   */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.polling?.catch(() => {})
    this.held.clear()
    try {
      await Promise.all(
        [...this.sessions].map(async ([nodeId, session]) => {
          const acks = this.takePending(nodeId)
          if (!session.open) {
            this.report(acks, 'SHARE_SESSION_NOT_FOUND')
            return
          }
          await this.serial(nodeId, () => {
            session.markClosing()
            return this.sendAcknowledge(nodeId, session, acks, false)
          }).catch(() => {})
        }),
      )
      await this.membership?.leave().catch(() => {})
    } finally {
      this.membership?.stop()
      await Promise.all([this.fetchClient?.close(), this.memberClient?.close()])
    }
  }

  // -------------------------------------------------------------------------------------------

  private async connect(): Promise<void> {
    if (this.membership) return
    const base = {
      bootstrap: this.opts.bootstrap,
      clientId: this.opts.clientId ?? 'tributary-share-consumer',
      ...(this.opts.security !== undefined ? { security: this.opts.security } : {}),
      ...(this.opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: this.opts.requestTimeoutMs } : {}),
    }
    const fetchClient = await KafkaClient.connect(base)
    try {
      this.memberClient = await KafkaClient.connect(base)
    } catch (err) {
      await fetchClient.close()
      throw err
    }
    this.fetchClient = fetchClient
    this.membership = new ShareMembership({
      client: this.memberClient,
      groupId: this.groupId,
      rackId: this.opts.rackId ?? null,
      onAssignment: (list) => {
        this.staleMetadata = true
        this.opts.onAssignment?.(list)
      },
    })
  }

  private async pollOnce(): Promise<ShareRecord[]> {
    const m = this.membership!
    // Implicit acknowledgement: what the application did not acknowledge is accepted.
    for (const h of this.held.values()) this.addPending(h.nodeId, h.key, h.offset, AcknowledgeType.Accept)
    this.held.clear()
    if (m.failure) throw m.failure
    if (m.assignment.length === 0) {
      await Promise.all([this.closeIdleSessions(new Set()), m.waitForChange(this.opts.maxWaitMs ?? 500)])
      if (m.failure) throw m.failure
      return []
    }
    let byLeader: Map<number, AssignedPartition[]>
    try {
      byLeader = await this.leaders(m.assignment)
    } catch (err) {
      return this.failedRound(err)
    }
    await this.closeIdleSessions(new Set(byLeader.keys()))
    const answers = await Promise.allSettled([...byLeader].map(([nodeId, parts]) => this.fetchFrom(nodeId, parts)))
    const out: ShareRecord[] = []
    let failure: unknown = null
    for (const a of answers) {
      if (a.status === 'fulfilled') out.push(...a.value)
      else failure ??= a.reason
    }
    // Records acquired are never dropped: they are returned even if another leader failed.
    if (failure === null || out.length > 0) {
      this.failedRounds = 0
      if (failure !== null) this.staleMetadata = true
      return out
    }
    return this.failedRound(failure)
  }

  /** A round that brought nothing and failed: retriable errors back off (up to MAX_FAILED_ROUNDS in a row). */
  private async failedRound(err: unknown): Promise<ShareRecord[]> {
    if (!(err instanceof ClientError) || !err.retriable || ++this.failedRounds >= MAX_FAILED_ROUNDS) throw err
    this.staleMetadata = true
    await sleep(Math.min(1000, 100 * this.failedRounds))
    return []
  }

  /** Assigned partitions grouped by leader; partitions without a leader wait for the next round. */
  private async leaders(assigned: readonly AssignedPartition[]): Promise<Map<number, AssignedPartition[]>> {
    const topics = [...new Set(assigned.map((a) => a.topic))]
    const md = await this.fetchClient!.metadata(topics, { refresh: this.staleMetadata })
    this.staleMetadata = false
    const out = new Map<number, AssignedPartition[]>()
    for (const a of assigned) {
      this.names.set(sharePartitionKey(a), { topic: a.topic, partition: a.partition })
      const leader = md.topics.get(a.topic)?.partitions.find((p) => p.partition === a.partition)?.leader ?? -1
      if (leader < 0) {
        this.staleMetadata = true
        continue
      }
      const list = out.get(leader) ?? []
      list.push(a)
      out.set(leader, list)
    }
    if (out.size === 0) await sleep(200) // every leader unknown: wait for an election
    return out
  }

  /** Sessions with brokers that lead none of our partitions any more: send their acks and close them. */
  private async closeIdleSessions(active: ReadonlySet<number>): Promise<void> {
    await Promise.all(
      [...this.sessions].map(async ([nodeId, session]) => {
        if (active.has(nodeId)) return
        this.sessions.delete(nodeId)
        const acks = this.takePending(nodeId)
        if (!session.open) {
          // No session to carry them: the locks expire and the records go back to the group.
          this.report(acks, 'SHARE_SESSION_NOT_FOUND')
          return
        }
        await this.serial(nodeId, () => {
          session.markClosing()
          return this.sendAcknowledge(nodeId, session, acks, false)
        }).catch(() => {})
      }),
    )
  }

  /** Runs fn after the requests already queued for a broker's session (see sessionTails). */
  private serial<T>(nodeId: number, fn: () => Promise<T>): Promise<T> {
    const run = (this.sessionTails.get(nodeId) ?? Promise.resolve()).catch(() => {}).then(fn)
    const tail = run.catch(() => {})
    this.sessionTails.set(nodeId, tail)
    void tail.then(() => {
      if (this.sessionTails.get(nodeId) === tail) this.sessionTails.delete(nodeId)
    })
    return run
  }

  private fetchFrom(nodeId: number, parts: AssignedPartition[]): Promise<ShareRecord[]> {
    return this.serial(nodeId, () => this.fetchInSession(nodeId, parts))
  }

  private async fetchInSession(nodeId: number, parts: AssignedPartition[]): Promise<ShareRecord[]> {
    let session = this.sessions.get(nodeId)
    if (!session) this.sessions.set(nodeId, (session = new ShareSession(nodeId)))
    const s = session
    const acks = s.open ? this.takePending(nodeId) : new Map<string, AcknowledgementBatch[]>()
    const wanted: SharePartitionId[] = parts.map((p) => ({ topicId: p.topicId, partition: p.partition }))
    // Acknowledgements of partitions this member no longer fetches from here go first, alone: in
    // the ShareFetch they would put the partition back into the session.
    const wantedKeys = new Set(wanted.map(sharePartitionKey))
    const strays = new Map([...acks].filter(([key]) => !wantedKeys.has(key)))
    for (const key of strays.keys()) acks.delete(key)
    if (strays.size > 0) await this.sendAcknowledge(nodeId, s, strays, false).catch(() => {})
    if (!s.open && acks.size > 0) {
      // That answer ended the session: a new one cannot carry acknowledgements, keep them.
      for (const [key, batches] of acks)
        for (const [offset, type] of expandBatches(batches)) this.addPending(nodeId, key, offset, type as AcknowledgeTypeId)
      acks.clear()
    }
    const topics = s.fetchTopics(wanted, acks)
    const maxWaitMs = this.opts.maxWaitMs ?? 500
    const maxRecords = this.opts.maxRecords ?? 500
    let res: ShareFetchResponseData
    try {
      res = await this.fetchClient!.request(
        ShareFetchRequest,
        ShareFetchResponse,
        {
          groupId: this.groupId,
          memberId: this.membership!.memberId,
          shareSessionEpoch: s.epoch,
          maxWaitMs,
          minBytes: this.opts.minBytes ?? 1,
          maxBytes: this.opts.maxBytes ?? 52_428_800,
          maxRecords,
          batchSize: maxRecords,
          ...topics,
        },
        { nodeId, timeoutMs: this.fetchClient!.requestTimeoutMs + maxWaitMs },
      )
    } catch (err) {
      s.reset()
      this.report(acks, err instanceof ClientError ? err.code : 'UNKNOWN_SERVER_ERROR')
      throw err
    }
    const ok = s.answered(res.errorCode)
    if (res.errorCode !== 0) {
      const name = errorName(res.errorCode)
      this.report(acks, name)
      if (!ok) return [] // session errors: the next round opens a new one
      if (MEMBER_NOT_READY.has(name)) {
        s.reset() // the coordinator has not told the leader of the member yet, or fenced it
        await sleep(100)
        return []
      }
      throw new ClientError(name, `ShareFetch to node ${nodeId}${res.errorMessage ? `: ${res.errorMessage}` : ''}`)
    }
    if (res.acquisitionLockTimeoutMs > 0) this.lockTimeoutMs = res.acquisitionLockTimeoutMs
    const out: ShareRecord[] = []
    let firstError: ClientError | null = null
    for (const t of res.responses) {
      for (const p of t.partitions) {
        const key = sharePartitionKey({ topicId: t.topicId, partition: p.partitionIndex })
        const sent = acks.get(key)
        if (sent) {
          acks.delete(key)
          this.reportOne(key, sent, p.acknowledgeErrorCode === 0 ? null : errorName(p.acknowledgeErrorCode))
        }
        const name = this.names.get(key)
        if (!name) continue
        if (p.errorCode !== 0) {
          const error = errorName(p.errorCode)
          if (STALE_METADATA.has(error)) this.staleMetadata = true
          else
            firstError ??= new ClientError(
              error,
              `ShareFetch ${name.topic}-${name.partition}${p.errorMessage ? `: ${p.errorMessage}` : ''}`,
            )
          continue
        }
        const decoded = decodeShareRecords(name.topic, name.partition, p.records, p.acquiredRecords)
        for (const [offset, type] of decoded.automatic) this.addPending(nodeId, key, offset, type)
        for (const r of decoded.records) {
          this.held.set(recordKey(r.topic, r.partition, r.offset), { nodeId, key, offset: r.offset })
          out.push(r)
        }
        if (decoded.error) firstError ??= new ClientError(decoded.error.code, decoded.error.message)
      }
    }
    this.report(acks, null) // partitions the answer did not mention: taken without remark
    if (firstError && out.length === 0 && !firstError.retriable) throw firstError
    return out
  }

  private async sendAcknowledge(
    nodeId: number,
    session: ShareSession,
    acks: Map<string, AcknowledgementBatch[]>,
    renew: boolean,
  ): Promise<AcknowledgementResult[]> {
    const results: AcknowledgementResult[] = []
    const collect = (r: AcknowledgementResult) => results.push(r)
    let res: Awaited<ReturnType<typeof this.ackRequest>>
    try {
      res = await this.ackRequest(nodeId, session, acks, renew)
    } catch (err) {
      session.reset()
      this.report(acks, err instanceof ClientError ? err.code : 'UNKNOWN_SERVER_ERROR', collect)
      throw err
    }
    session.answered(res.errorCode)
    if (res.errorCode !== 0) {
      this.report(acks, errorName(res.errorCode), collect)
      return results
    }
    for (const t of res.responses) {
      for (const p of t.partitions) {
        const key = sharePartitionKey({ topicId: t.topicId, partition: p.partitionIndex })
        const sent = acks.get(key)
        if (!sent) continue
        acks.delete(key)
        this.reportOne(key, sent, p.errorCode === 0 ? null : errorName(p.errorCode), collect)
      }
    }
    this.report(acks, null, collect)
    return results
  }

  private ackRequest(nodeId: number, session: ShareSession, acks: Map<string, AcknowledgementBatch[]>, renew: boolean) {
    return this.fetchClient!.request(
      ShareAcknowledgeRequest,
      ShareAcknowledgeResponse,
      {
        groupId: this.groupId,
        memberId: this.membership!.memberId,
        shareSessionEpoch: session.epoch,
        isRenewAck: renew,
        topics: session.acknowledgeTopics(acks),
      },
      { nodeId },
    )
  }

  private addPending(nodeId: number, key: string, offset: number, type: AcknowledgeTypeId): void {
    let byPartition = this.pending.get(nodeId)
    if (!byPartition) this.pending.set(nodeId, (byPartition = new Map()))
    let offsets = byPartition.get(key)
    if (!offsets) byPartition.set(key, (offsets = new Map()))
    offsets.set(offset, type)
  }

  /** The pending acknowledgements of a node as batches per partition key; they leave `pending`. */
  private takePending(nodeId: number): Map<string, AcknowledgementBatch[]> {
    const byPartition = this.pending.get(nodeId)
    this.pending.delete(nodeId)
    const out = new Map<string, AcknowledgementBatch[]>()
    for (const [key, offsets] of byPartition ?? []) if (offsets.size > 0) out.set(key, acknowledgementBatches(offsets))
    return out
  }

  private report(acks: Map<string, AcknowledgementBatch[]>, error: ErrorName | null, also?: (r: AcknowledgementResult) => void): void {
    for (const [key, batches] of acks) this.reportOne(key, batches, error, also)
    acks.clear()
  }

  private reportOne(
    key: string,
    batches: AcknowledgementBatch[],
    error: ErrorName | null,
    also?: (r: AcknowledgementResult) => void,
  ): void {
    const name = this.names.get(key)
    if (!name) return
    const offsets: number[] = []
    for (const b of batches) {
      if (b.acknowledgeTypes.length === 1 && b.acknowledgeTypes[0] === AcknowledgeType.Renew) continue
      for (let o = b.firstOffset; o <= b.lastOffset; o++) offsets.push(o)
    }
    const result = { topic: name.topic, partition: name.partition, offsets, error }
    if (offsets.length > 0 || batches.length > 0) {
      this.opts.onAcknowledgement?.(result)
      also?.(result)
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new ClientError('NETWORK_EXCEPTION', 'the share consumer is closed')
  }
}
