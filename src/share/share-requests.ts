// ShareFetch and ShareAcknowledge at a partition leader (KIP-932; Kafka's KafkaApis
// handleShareFetchRequest / handleShareAcknowledgeRequest and SharePartitionManager): the share
// session step, the acknowledgements, then — ShareFetch only — the acquisition of records, with a
// long poll. Implements ports/share-fetch.ts.
//
// Order within one request (Kafka's): the group and member ids are checked (INVALID_REQUEST when
// null or empty, or a member id longer than 36 characters); a request marked isRenewAck must have
// zero fetch parameters and acknowledgements in every partition (INVALID_REQUEST); the session epoch is applied (share-sessions.ts; its errors answer the whole
// request with no partitions); the acknowledgements are applied, each partition answering its own
// acknowledgeErrorCode; at the final epoch (−1) the session is closed and the records its member
// still holds are released — no records are fetched then, nor when isRenewAck (v2, KIP-1222)
// marks the request as one renewing locks. Else every partition of the session is read from its
// share-partition's next offset, until maxRecords records are acquired or maxBytes filled (the
// first partition with data returns at least one whole batch); in the batch-optimized acquire
// mode (KIP-1206, mode 0, Kafka's default) maxRecords ends at a batch boundary — the batch in which
// it is reached is acquired whole — and in record-limit mode (1) it is exact. When nothing was acquired the
// request waits up to maxWaitMs for an append to one of the partitions or for records to become
// available again (released, lock expired, backoff or delivery delay over), then reads again.
// Any acquired record answers the request: minBytes counts as 1 (what the share consumer sends by
// default), so acquired records are never held back while a request waits for more.
// An answer nobody will read — its connection closed, or its member opened a new session while
// it waited — gives back what it acquired at once, as if never acquired, not when the locks expire.
// A session's first answer names every partition of the session; later ones only those with
// records, an error or an acknowledgement result (as Kafka 4.4 answers). Each partition carries
// its current leader (leader id and epoch as the metadata knows them).
// Partition errors: UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER (with the
// leader the metadata knows, and its endpoint in nodeEndpoints, as Fetch v16+ answers).
import { ErrorCode, KafkaError, toErrorCode } from '../protocol/errors.js'
import type { ShareAcknowledgeRequestData, ShareAcknowledgeResponseData } from '../protocol/messages/79-share-acknowledge.js'
import type { ShareFetchRequestData, ShareFetchResponseData } from '../protocol/messages/78-share-fetch.js'
import type { BrokerEndpoint } from '../ports/broker-services.js'
import { type AppendWaiting, partitionKey } from '../ports/replicas.js'
import type { ShareFetchAnswer, ShareFetchService, ShareRequestOrigin } from '../ports/share-fetch.js'
import { type ShareGroupSettingsSource, sharePartitionKeyString } from '../ports/shares.js'
import type { TopicService } from '../ports/topics.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { AcquiredRange } from './acquire.js'
import type { AckBatch } from './share-partition.js'
import type { HeldPartition, SharePartitionManager } from './share-partition-manager.js'
import { FINAL_EPOCH, INITIAL_EPOCH, type SessionPartition, type ShareSession, type ShareSessionCache } from './share-sessions.js'

export interface ShareRequestsOptions {
  manager: SharePartitionManager
  sessions: ShareSessionCache
  topics: Pick<TopicService, 'getById' | 'partitionState'>
  settings: ShareGroupSettingsSource
  brokers: (listenerName: string) => BrokerEndpoint[]
  waiters: AppendWaiting
  clock: Clock
  logger: Logger
  /** fetch.max.bytes: the most one response carries. */
  fetchMaxBytes: number
}

const EMPTY = Buffer.alloc(0)
/** maxRecords ≤ 0: the share consumer's default max.poll.records. */
const DEFAULT_MAX_RECORDS = 500
/** Kafka refuses a member id longer than a UUID's text (INVALID_REQUEST). */
const MAX_MEMBER_ID_LENGTH = 36
const NO_LEADER = { leaderId: -1, leaderEpoch: -1 }

interface PartitionOut {
  topicId: string
  partitionIndex: number
  errorCode: number
  acknowledgeErrorCode: number
  records: Buffer
  acquiredRecords: AcquiredRange[]
  /** Answered even in a later epoch (it has news). */
  news: boolean
}

type TopicPartitions = Array<{ topicId: string; partitions: Array<{ partitionIndex: number; acknowledgementBatches: AckBatch[] }> }>

export class ShareRequests implements ShareFetchService {
  private readonly watchedConnections = new Set<number>()

  constructor(private readonly o: ShareRequestsOptions) {}

  async shareFetch(req: ShareFetchRequestData, origin: ShareRequestOrigin): Promise<ShareFetchAnswer> {
    const fail = (name: 'INVALID_REQUEST' | undefined, err?: unknown): ShareFetchAnswer => ({
      response: this.fetchResponse(err === undefined ? ErrorCode[name!].code : toErrorCode(err), [], origin, 0),
      release: () => {},
      unsent: () => {},
    })
    const { groupId, memberId } = req
    if (!groupId || !validMemberId(memberId)) return fail('INVALID_REQUEST')
    const allowRenew = origin.apiVersion >= 2 && req.isRenewAck
    // KIP-1222: a request renewing locks fetches nothing — its fetch parameters are all zero and
    // every partition it names carries acknowledgements.
    if (allowRenew && (req.maxBytes !== 0 || req.minBytes !== 0 || req.maxRecords !== 0 || req.maxWaitMs !== 0))
      return fail('INVALID_REQUEST')
    if (allowRenew && req.topics.some((t) => t.partitions.some((p) => p.acknowledgementBatches.length === 0)))
      return fail('INVALID_REQUEST')
    const lockMs = this.o.settings(groupId).recordLockDurationMs
    // The connection closed while the request waited its turn: nobody will read the answer.
    if (origin.closed.aborted) return { response: this.fetchResponse(0, [], origin, lockMs), release: () => {}, unsent: () => {} }
    const epoch = req.shareSessionEpoch
    const hasAcks = req.topics.some((t) => t.partitions.some((p) => p.acknowledgementBatches.length > 0))
    // Kafka: a session's first request carries no acknowledgements (nothing is acquired yet).
    if (epoch === INITIAL_EPOCH && hasAcks) return fail('INVALID_REQUEST')
    const requested = flatten(req.topics)
    let session: ShareSession
    try {
      if (epoch === FINAL_EPOCH) session = this.o.sessions.close(groupId, memberId)
      else if (epoch === INITIAL_EPOCH) session = this.open(groupId, memberId, requested, origin)
      else {
        session = this.o.sessions.continue(groupId, memberId, epoch)
        this.o.sessions.add(session, requested)
        this.o.sessions.forget(session, req.forgottenTopicsData)
      }
    } catch (err) {
      if (!(err instanceof KafkaError)) throw err
      return fail(undefined, err)
    }
    const out = new Map<string, PartitionOut>()
    const slot = (p: SessionPartition): PartitionOut => {
      const k = `${p.topicId}:${p.partition}`
      let o = out.get(k)
      if (!o) {
        o = {
          topicId: p.topicId,
          partitionIndex: p.partition,
          errorCode: 0,
          acknowledgeErrorCode: 0,
          records: EMPTY,
          acquiredRecords: [],
          news: false,
        }
        out.set(k, o)
      }
      return o
    }
    // An acknowledgement's failure — of the partition or of the records — is its
    // acknowledgeErrorCode; errorCode is the fetch's (Kafka's KafkaApis combines them so).
    await this.acknowledgeAll(groupId, memberId, req.topics, allowRenew, (p, _error, ackError) => {
      const o = slot(p)
      o.news = true
      o.acknowledgeErrorCode = ackError
    })
    if (epoch === FINAL_EPOCH) {
      await this.o.manager.releaseMember(groupId, memberId, session.partitions.values())
      return { response: this.fetchResponse(0, [...out.values()], origin, lockMs), release: () => {}, unsent: () => {} }
    }
    if (epoch === INITIAL_EPOCH) for (const p of session.partitions.values()) slot(p).news = true
    const releases: Array<() => void> = []
    if (!allowRenew) await this.fetchRecords(req, session, origin, slot, releases)
    const answered = [...out.values()].filter((o) => o.news)
    return {
      response: this.fetchResponse(0, answered, origin, lockMs),
      release: () => {
        for (const r of releases) r()
      },
      unsent: () => {
        for (const o of answered) {
          if (o.acquiredRecords.length === 0) continue
          this.o.manager.unacquire({ groupId, topicId: o.topicId, partition: o.partitionIndex }, memberId, o.acquiredRecords)
        }
      },
    }
  }

  async shareAcknowledge(req: ShareAcknowledgeRequestData, origin: ShareRequestOrigin): Promise<ShareAcknowledgeResponseData> {
    const { groupId, memberId } = req
    const top = (code: number): ShareAcknowledgeResponseData => ({
      throttleTimeMs: 0,
      errorCode: code,
      errorMessage: null,
      acquisitionLockTimeoutMs: 0,
      responses: [],
      nodeEndpoints: [],
    })
    if (!groupId || !validMemberId(memberId)) return top(ErrorCode.INVALID_REQUEST.code)
    const epoch = req.shareSessionEpoch
    // A share session is opened by ShareFetch only.
    if (epoch === INITIAL_EPOCH) return top(ErrorCode.INVALID_SHARE_SESSION_EPOCH.code)
    let session: ShareSession
    try {
      session = epoch === FINAL_EPOCH ? this.o.sessions.close(groupId, memberId) : this.o.sessions.continue(groupId, memberId, epoch)
    } catch (err) {
      if (!(err instanceof KafkaError)) throw err
      return top(err.code)
    }
    const results: Array<{ p: SessionPartition; code: number }> = []
    const allowRenew = origin.apiVersion >= 2 && req.isRenewAck
    await this.acknowledgeAll(groupId, memberId, req.topics, allowRenew, (p, error, ackError) => {
      results.push({ p, code: error !== 0 ? error : ackError })
    })
    if (epoch === FINAL_EPOCH) await this.o.manager.releaseMember(groupId, memberId, session.partitions.values())
    const endpoints = new Map<number, BrokerEndpoint>()
    const byTopic = new Map<string, ShareAcknowledgeResponseData['responses'][number]>()
    for (const { p, code } of results) {
      let t = byTopic.get(p.topicId)
      if (!t) byTopic.set(p.topicId, (t = { topicId: p.topicId, partitions: [] }))
      t.partitions.push({
        partitionIndex: p.partition,
        errorCode: code,
        errorMessage: null,
        currentLeader: this.leaderFor(p, code, origin, endpoints),
      })
    }
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      acquisitionLockTimeoutMs: this.o.settings(groupId).recordLockDurationMs,
      responses: [...byTopic.values()],
      nodeEndpoints: [...endpoints.values()],
    }
  }

  private open(groupId: string, memberId: string, partitions: SessionPartition[], origin: ShareRequestOrigin): ShareSession {
    const { session } = this.o.sessions.open(groupId, memberId, origin.connectionId, partitions)
    // One listener per connection: when it closes, its sessions go and their records are released.
    if (!this.watchedConnections.has(origin.connectionId)) {
      this.watchedConnections.add(origin.connectionId)
      const onClose = () => {
        this.watchedConnections.delete(origin.connectionId)
        for (const s of this.o.sessions.removeConnection(origin.connectionId)) {
          this.o.manager.releaseMember(s.groupId, s.memberId, s.partitions.values()).catch((err) => {
            this.o.logger.warn('releasing a closed connection’s records failed', { groupId: s.groupId, err })
          })
        }
      }
      // Closed while this request was on its way: its session goes once the request is answered.
      if (origin.closed.aborted) queueMicrotask(onClose)
      else origin.closed.addEventListener('abort', onClose, { once: true })
    }
    return session
  }

  /** Applies each partition's acknowledgements; report(partition, partition error, acknowledge error). */
  private async acknowledgeAll(
    groupId: string,
    memberId: string,
    topics: TopicPartitions,
    allowRenew: boolean,
    report: (p: SessionPartition, error: number, ackError: number) => void,
  ): Promise<void> {
    const work: Promise<void>[] = []
    for (const t of topics) {
      for (const tp of t.partitions) {
        if (tp.acknowledgementBatches.length === 0) continue
        const p = { topicId: t.topicId, partition: tp.partitionIndex }
        work.push(
          (async () => {
            let held: HeldPartition
            try {
              held = await this.o.manager.partition(groupId, p.topicId, p.partition)
            } catch (err) {
              this.logUnexpected(err)
              const code = toErrorCode(err)
              return report(p, code, code)
            }
            report(p, 0, await held.sp.acknowledge(memberId, tp.acknowledgementBatches, allowRenew))
          })(),
        )
      }
    }
    await Promise.all(work)
  }

  /** Reads the session's partitions (rotating where it starts), long-polling while nothing is acquired. */
  private async fetchRecords(
    req: ShareFetchRequestData,
    session: ShareSession,
    origin: ShareRequestOrigin,
    slot: (p: SessionPartition) => PartitionOut,
    releases: Array<() => void>,
  ): Promise<void> {
    const { clock } = this.o
    const groupId = session.groupId
    const deadline = clock.monotonic() + Math.max(0, req.maxWaitMs)
    const all = [...session.partitions.values()]
    if (all.length === 0) return
    const first = session.epoch % all.length
    const order = [...all.slice(first), ...all.slice(0, first)]
    const maxRecords = req.maxRecords > 0 ? req.maxRecords : DEFAULT_MAX_RECORDS
    // KIP-1206: batch-optimized (0, and every v1 request) ends on a batch boundary; record-limit (1) is exact.
    const wholeBatches = origin.apiVersion < 2 || req.shareAcquireMode !== 1
    for (;;) {
      if (origin.closed.aborted) return
      let recordsLeft = maxRecords
      let bytesLeft = Math.min(req.maxBytes, this.o.fetchMaxBytes)
      let bytes = 0
      let acquiredAny = false
      let failed = false
      const logKeys: string[] = []
      const shareKeys: string[] = []
      const moved: Array<() => boolean> = []
      const acquired: Array<{ p: SessionPartition; ranges: AcquiredRange[] }> = []
      for (const p of order) {
        if (recordsLeft <= 0) break
        try {
          const held = await this.o.manager.partition(groupId, p.topicId, p.partition)
          logKeys.push(partitionKey(held.topic, p.partition))
          shareKeys.push(sharePartitionKeyString(held.sp.key))
          const hw = held.replica.log.highWatermark
          moved.push(() => held.replica.log.highWatermark !== hw)
          const got = await this.o.manager.fetch(held, session.memberId, recordsLeft, bytesLeft, bytes === 0, wholeBatches)
          if (got.acquired.length === 0) continue
          acquiredAny = true
          acquired.push({ p, ranges: got.acquired })
          releases.push(got.release)
          const o = slot(p)
          o.news = true
          o.records = got.records
          o.acquiredRecords = got.acquired
          for (const r of got.acquired) recordsLeft -= r.lastOffset - r.firstOffset + 1
          bytes += got.records.length
          bytesLeft -= got.records.length
        } catch (err) {
          this.logUnexpected(err)
          const o = slot(p)
          o.news = true
          o.errorCode = toErrorCode(err)
          failed = true
        }
      }
      if (acquiredAny && (origin.closed.aborted || this.o.sessions.get(groupId, session.memberId) !== session)) {
        // Acquired for an answer nobody will read: its connection closed meanwhile (what its
        // sessions held was released then), or the member opened a new session since — a client
        // whose request timed out reconnects and starts over, while this broker, waiting on the
        // share-partition, has not seen the old connection close (a half-closed one is still
        // answered). They go back at once, as if never acquired (the member never sees them, so
        // this is no delivery), rather than when their locks expire; only what this request
        // acquired, not what the member holds through its new session.
        for (const a of acquired) {
          this.o.manager.unacquire({ groupId, topicId: a.p.topicId, partition: a.p.partition }, session.memberId, a.ranges)
          const o = slot(a.p)
          o.records = EMPTY
          o.acquiredRecords = []
        }
        return
      }
      const waitMs = deadline - clock.monotonic()
      if (acquiredAny || failed || waitMs <= 0 || logKeys.length === 0 || origin.closed.aborted) return
      const woken = new AbortController()
      const signal = AbortSignal.any([origin.closed, woken.signal])
      void this.o.manager.whenAvailable(shareKeys, signal).then(() => woken.abort())
      await this.o.waiters.wait(logKeys, waitMs, signal, () => moved.some((m) => m()))
      woken.abort()
    }
  }

  private fetchResponse(errorCode: number, parts: PartitionOut[], origin: ShareRequestOrigin, lockMs: number): ShareFetchResponseData {
    const endpoints = new Map<number, BrokerEndpoint>()
    const byTopic = new Map<string, ShareFetchResponseData['responses'][number]>()
    for (const o of parts) {
      let t = byTopic.get(o.topicId)
      if (!t) byTopic.set(o.topicId, (t = { topicId: o.topicId, partitions: [] }))
      t.partitions.push({
        partitionIndex: o.partitionIndex,
        errorCode: o.errorCode,
        errorMessage: null,
        acknowledgeErrorCode: o.acknowledgeErrorCode,
        acknowledgeErrorMessage: null,
        currentLeader: this.leaderFor({ topicId: o.topicId, partition: o.partitionIndex }, o.errorCode, origin, endpoints),
        records: o.records,
        acquiredRecords: o.acquiredRecords,
      })
    }
    return {
      throttleTimeMs: 0,
      errorCode,
      errorMessage: null,
      acquisitionLockTimeoutMs: lockMs,
      responses: [...byTopic.values()],
      nodeEndpoints: [...endpoints.values()],
    }
  }

  /** The leader the metadata knows; with NOT_LEADER_OR_FOLLOWER its endpoint goes in nodeEndpoints too. */
  private leaderFor(p: SessionPartition, code: number, origin: ShareRequestOrigin, endpoints: Map<number, BrokerEndpoint>) {
    const topic = this.o.topics.getById(p.topicId)
    const st = topic ? this.o.topics.partitionState(topic.name, p.partition) : undefined
    if (!st || st.leader < 0) return NO_LEADER
    if (code === ErrorCode.NOT_LEADER_OR_FOLLOWER.code) {
      const e = this.o.brokers(origin.listenerName).find((b) => b.nodeId === st.leader)
      if (e) endpoints.set(e.nodeId, e)
    }
    return { leaderId: st.leader, leaderEpoch: st.leaderEpoch }
  }

  private logUnexpected(err: unknown): void {
    if (!(err instanceof KafkaError)) this.o.logger.error('share fetch failed', { err })
  }
}

function validMemberId(memberId: string | null): memberId is string {
  return memberId !== null && memberId.length > 0 && memberId.length <= MAX_MEMBER_ID_LENGTH
}

function flatten(topics: ShareFetchRequestData['topics']): SessionPartition[] {
  const out: SessionPartition[] = []
  for (const t of topics) for (const p of t.partitions) out.push({ topicId: t.topicId, partition: p.partitionIndex })
  return out
}
