// Fetch v4–18. Returns whole stored batches, the first containing the fetch offset (clients drop
// the records before their position), bounded by the high watermark, partition_max_bytes and the
// response's max_bytes — at least one batch for the first partition with data (KIP-74).
// isolation_level 1 (read_committed, KIP-98): bounded by the last stable offset instead, and each
// partition carries the aborted transactions its batches overlap (the consumer drops their
// records); read_uncommitted answers aborted_transactions null. last_stable_offset is the
// partition's LSO for both.
// Long-poll: with fewer than min_bytes available the request waits up to max_wait_ms and wakes
// as soon as one of its partitions is appended to.
// Fetch sessions (KIP-227, v7+; Kafka's FetchManager, FullFetchContext, IncrementalFetchContext,
// SessionlessFetchContext), kept in ctx.broker.fetchSessions (replication/fetch-session-cache.ts):
// - epoch 0 is a full fetch: the session it names (if any) is closed, the partitions are answered
//   in full and a new session is made of them (its id in the response; 0 when the cache has no
//   room, and the client keeps sending full fetches); epoch -1 closes the named session and
//   answers in full without making one (session id 0, a "sessionless" fetch);
// - any other epoch is incremental: it must name a session (else FETCH_SESSION_ID_NOT_FOUND) at
//   its expected epoch (else INVALID_FETCH_SESSION_EPOCH), made at the same side of v13 (topics by
//   id or by name; else FETCH_SESSION_TOPIC_ID_ERROR); these errors carry no partitions. The
//   request's partitions are added to the session or update its parameters, its forgotten topics'
//   partitions leave it (a session left empty is closed and the fetch answered sessionless), and
//   the fetch reads all the session's partitions in its order; the response carries only those
//   with news: records, an error, or a high watermark, last stable offset or log start offset
//   other than the one last sent (Kafka's CachedPartition looks at the high watermark and the log
//   start offset; the last stable offset is here too, so a read_committed consumer learns a
//   committed transaction at once). A partition that returned records moves to the end of the
//   order, so a full response does not always favour the same partitions (Kafka's rotation).
//   If another request moved the session on during this one's long poll, this one is answered
//   INVALID_FETCH_SESSION_EPOCH. A throttled response (emptied) forgets what it would have sent,
//   so the next fetch sends those partitions again.
// Sessions are keyed by id, not by connection: a client that reconnects carries on.
// v13+ name topics by id: an unknown id gets UNKNOWN_TOPIC_ID.
// v18 (KIP-1166): a follower says which high watermark it knows; when that is behind the leader's,
// its fetch is answered at once instead of long-polling, so the follower learns the new one.
// Consumers do not send it (absent, it is "not supported" and changes nothing).
// Replica fetches (a replica id ≥ 0: the request's replicaId before v15, replicaState from v15) come
// from followers: they must be sent to the leader, read up to the log end rather than the high
// watermark, and tell the leader where the follower is (ReplicaManager.readForFollower). Consumers
// fetching from a follower get NOT_LEADER_OR_FOLLOWER.
// Authorization: READ on each topic, CLUSTER_ACTION on the cluster for a replica's fetch; either
// refused answers TOPIC_AUTHORIZATION_FAILED for the topic's partitions (Kafka's KafkaApis).
import type { FetchSession, FetchPartitionParams, SessionPartition } from '../ports/fetch-sessions.js'
import { FINAL_EPOCH, INITIAL_EPOCH, INVALID_SESSION_ID, nextEpoch, sessionPartitionKey } from '../ports/fetch-sessions.js'
import type { TopicRecord } from '../ports/metadata-store.js'
import { ErrorCode, KafkaError, toErrorCode } from '../protocol/errors.js'
import { FetchRequest, type FetchRequestData, FetchResponse } from '../protocol/messages/01-fetch.js'
import { type PartitionRead, partitionKey } from '../ports/replicas.js'
import { canCluster, canTopic, Op, topicDenied } from './authorize.js'
import { defineHandler, type RequestContext } from './define.js'

const EMPTY = Buffer.alloc(0)

interface PartitionOut {
  partitionIndex: number
  errorCode: number
  highWatermark: number
  lastStableOffset: number
  logStartOffset: number
  abortedTransactions: Array<{ producerId: number; firstOffset: number }> | null
  preferredReadReplica: number
  records: Buffer
}

interface TopicOut {
  topic: string
  topicId: string
  partitions: PartitionOut[]
}

function errorPartition(partitionIndex: number, err: unknown): PartitionOut {
  return {
    partitionIndex,
    errorCode: toErrorCode(err),
    highWatermark: -1,
    lastStableOffset: -1,
    logStartOffset: -1,
    abortedTransactions: null,
    preferredReadReplica: -1,
    records: EMPTY,
  }
}

/** One round of reads: the byte budget, what the round found, and what it holds. */
class Round {
  remaining: number
  bytes = 0
  failed = false
  followerBehind = false
  readonly keys: string[] = []
  readonly seen: Array<() => boolean> = []
  readonly releases: Array<() => void> = []
  readonly readCommitted: boolean
  readonly replicaId: number
  /** A replica's fetch: whether it may CLUSTER_ACTION; undefined for a consumer's. */
  readonly follower: boolean | undefined

  constructor(
    readonly ctx: RequestContext,
    req: FetchRequestData,
  ) {
    this.remaining = Math.min(req.maxBytes, ctx.broker.settings.fetchMaxBytes)
    this.readCommitted = req.isolationLevel === 1
    this.replicaId = replicaIdOf(ctx.apiVersion, req)
    // A replica's fetch needs CLUSTER_ACTION (CVE-2018-1288), a consumer's READ on each topic.
    this.follower = this.replicaId >= 0 ? canCluster(ctx, Op.CLUSTER_ACTION) : undefined
  }

  release(): void {
    for (const release of this.releases) release()
  }

  /** Whether the topic's partitions are refused (READ, or CLUSTER_ACTION for a replica). */
  denied(record: TopicRecord | undefined, byId: boolean, name: string): boolean {
    return (record !== undefined || !byId) && !(this.follower ?? canTopic(this.ctx, Op.READ, name))
  }

  async read(
    record: TopicRecord | undefined,
    byId: boolean,
    denied: boolean,
    name: string,
    fp: FetchPartitionParams,
    minOne?: boolean,
  ): Promise<PartitionOut> {
    const { replicas } = this.ctx.broker
    const replicaId = this.replicaId
    try {
      if (denied) throw topicDenied()
      if (!record) throw new KafkaError(byId ? 'UNKNOWN_TOPIC_ID' : 'UNKNOWN_TOPIC_OR_PARTITION')
      const p = replicas.require(record.name, fp.partition)
      p.checkLeaderEpoch(fp.currentLeaderEpoch)
      this.keys.push(partitionKey(record.name, fp.partition))
      const hwSeen = p.log.highWatermark
      const leoSeen = p.log.logEndOffset
      this.seen.push(replicaId >= 0 ? () => p.log.logEndOffset !== leoSeen : () => p.log.highWatermark !== hwSeen)
      const limit = Math.max(0, Math.min(fp.partitionMaxBytes, this.remaining))
      // Once the response is full, later partitions report their offsets without reading.
      let read: PartitionRead
      if (replicaId >= 0) {
        read = await replicas.readForFollower(p, replicaId, fp.fetchOffset, limit === 0 && this.bytes > 0 ? 0 : limit)
      } else if (limit === 0 && this.bytes > 0) {
        if (fp.fetchOffset < p.log.logStartOffset || fp.fetchOffset > p.log.logEndOffset) throw new KafkaError('OFFSET_OUT_OF_RANGE')
        read = {
          records: EMPTY,
          highWatermark: p.log.highWatermark,
          lastStableOffset: p.log.lastStableOffset,
          logStartOffset: p.log.logStartOffset,
          abortedTransactions: this.readCommitted ? [] : null,
          release: () => {},
        }
      } else {
        read = await replicas.read(p, fp.fetchOffset, limit, minOne ?? this.bytes === 0, this.readCommitted)
      }
      this.releases.push(read.release)
      // Absent, the follower's highWatermark is the largest number: never behind.
      if (replicaId >= 0 && fp.highWatermark < read.highWatermark) this.followerBehind = true
      this.bytes += read.records.length
      this.remaining -= read.records.length
      return {
        partitionIndex: fp.partition,
        errorCode: 0,
        highWatermark: read.highWatermark,
        lastStableOffset: read.lastStableOffset,
        logStartOffset: read.logStartOffset,
        abortedTransactions: read.abortedTransactions,
        preferredReadReplica: -1,
        records: read.records,
      }
    } catch (err) {
      if (!(err instanceof KafkaError)) this.ctx.broker.logger.error('fetch failed', { topic: name, err })
      this.failed = true
      return errorPartition(fp.partition, err)
    }
  }
}

/** One partition to read in a round: what read() takes. */
interface ReadJob {
  /** The topic of the answer it goes to. */
  group: TopicOut
  record: TopicRecord | undefined
  byId: boolean
  denied: boolean
  name: string
  fp: FetchPartitionParams
}

/**
 * Reads the jobs in order, as if one after the other: each gets what is left of the byte budget,
 * and the first batch is returned even past the partition's limit (KIP-74) until a partition has
 * returned records. When every partition's limit fits in the budget together, their reads do not
 * depend on each other's sizes and run at once (a fetch of 8 partitions of 1 MiB waits for the
 * slowest file read, not the sum); only the KIP-74 rule is then applied after the fact: a
 * consumer's partition that came back empty though it has records below its bound, with none
 * before it returning any, is read again as the first.
 */
async function readAll(round: Round, jobs: readonly ReadJob[]): Promise<PartitionOut[]> {
  let sum = 0
  for (const j of jobs) sum += Math.max(0, j.fp.partitionMaxBytes)
  if (jobs.length < 2 || sum > round.remaining || round.bytes > 0) {
    const out: PartitionOut[] = []
    for (const j of jobs) out.push(await round.read(j.record, j.byId, j.denied, j.name, j.fp))
    return out
  }
  const out = await Promise.all(jobs.map((j, i) => round.read(j.record, j.byId, j.denied, j.name, j.fp, i === 0)))
  if (round.follower !== undefined) return out // a follower's read takes its first batch anyway
  for (let i = 0; i < out.length; i++) {
    const o = out[i]!
    if (o.records.length > 0) break
    const bound = round.readCommitted ? o.lastStableOffset : o.highWatermark
    if (i === 0 || o.errorCode !== 0 || jobs[i]!.fp.fetchOffset >= bound) continue
    const j = jobs[i]!
    out[i] = await round.read(j.record, j.byId, j.denied, j.name, j.fp, true)
    if (out[i]!.records.length > 0) break
  }
  return out
}

function replicaIdOf(version: number, req: FetchRequestData): number {
  return version >= 15 ? (req.replicaState?.replicaId ?? -1) : req.replicaId
}

/** A full or sessionless fetch: every requested partition, in request order. */
async function readRequest(round: Round, req: FetchRequestData, byId: boolean): Promise<TopicOut[]> {
  const { topics } = round.ctx.broker
  const out: TopicOut[] = []
  const jobs: ReadJob[] = []
  for (const t of req.topics) {
    const record = byId ? topics.getById(t.topicId) : topics.get(t.topic)
    const name = record?.name ?? t.topic
    const denied = round.denied(record, byId, name)
    const group: TopicOut = { topic: name, topicId: record?.topicId ?? t.topicId, partitions: [] }
    out.push(group)
    for (const fp of t.partitions) jobs.push({ group, record, byId, denied, name, fp })
  }
  const read = await readAll(round, jobs)
  for (let i = 0; i < jobs.length; i++) jobs[i]!.group.partitions.push(read[i]!)
  return out
}

/**
 * An incremental fetch: every partition of the session, in its order, grouped by topic as they
 * come (a topic's partitions may then appear in more than one group, which clients accept).
 */
async function readSession(round: Round, session: FetchSession): Promise<TopicOut[]> {
  const { topics } = round.ctx.broker
  const byId = session.usesTopicIds
  const out: TopicOut[] = []
  const jobs: ReadJob[] = []
  let group: TopicOut | undefined
  let record: TopicRecord | undefined
  let denied = false
  for (const sp of session.partitions.values()) {
    if (group === undefined || (byId ? group.topicId !== sp.topicId : group.topic !== sp.topic)) {
      record = byId ? topics.getById(sp.topicId) : topics.get(sp.topic)
      const name = record?.name ?? sp.topic
      denied = round.denied(record, byId, name)
      group = { topic: name, topicId: record?.topicId ?? sp.topicId, partitions: [] }
      out.push(group)
    }
    jobs.push({ group, record, byId, denied, name: group.topic, fp: sp.params })
  }
  const read = await readAll(round, jobs)
  for (let i = 0; i < jobs.length; i++) jobs[i]!.group.partitions.push(read[i]!)
  return out
}

/** The partitions of a new session, from a full fetch and its answer. */
function sessionPartitions(req: FetchRequestData, res: TopicOut[], byId: boolean): Map<string, SessionPartition> {
  const map = new Map<string, SessionPartition>()
  for (let i = 0; i < req.topics.length; i++) {
    const t = req.topics[i]!
    const outs = res[i]!.partitions
    for (let j = 0; j < t.partitions.length; j++) {
      const fp = t.partitions[j]!
      const out = outs[j]!
      const key = sessionPartitionKey(byId, t.topicId, t.topic, fp.partition)
      map.set(key, {
        key,
        topicId: byId ? t.topicId : '',
        topic: byId ? '' : t.topic,
        partition: fp.partition,
        params: fp,
        highWatermark: out.highWatermark,
        lastStableOffset: out.lastStableOffset,
        logStartOffset: out.logStartOffset,
      })
    }
  }
  return map
}

/** An incremental request's partitions join the session or update it; its forgotten ones leave. */
function updateSession(session: FetchSession, req: FetchRequestData): void {
  const byId = session.usesTopicIds
  for (const t of req.topics) {
    for (const fp of t.partitions) {
      const key = sessionPartitionKey(byId, t.topicId, t.topic, fp.partition)
      const sp = session.partitions.get(key)
      if (sp) {
        sp.params = fp
      } else {
        session.partitions.set(key, {
          key,
          topicId: byId ? t.topicId : '',
          topic: byId ? '' : t.topic,
          partition: fp.partition,
          params: fp,
          highWatermark: -1,
          lastStableOffset: -1,
          logStartOffset: -1,
        })
      }
    }
  }
  for (const t of req.forgottenTopicsData) {
    for (const partition of t.partitions) session.partitions.delete(sessionPartitionKey(byId, t.topicId, t.topic, partition))
  }
}

/**
 * The incremental answer: the session's partitions with news (Kafka's
 * CachedPartition.maybeUpdateResponseData), what they were told recorded in the session; those
 * that returned records move to the end of the session's order.
 */
function incrementalResponse(ctx: RequestContext, session: FetchSession, topics: TopicOut[]): TopicOut[] {
  const out: TopicOut[] = []
  const answered: SessionPartition[] = []
  const iter = session.partitions.values()
  let moved: SessionPartition[] | undefined
  for (const t of topics) {
    let kept: PartitionOut[] | undefined
    for (const p of t.partitions) {
      const sp = iter.next().value as SessionPartition
      let news = p.records.length > 0
      if (p.errorCode !== 0) {
        // Answered at every fetch while it lasts, and once more when it is gone.
        news = true
        sp.highWatermark = -1
      } else {
        if (sp.highWatermark !== p.highWatermark) {
          news = true
          sp.highWatermark = p.highWatermark
        }
        if (sp.lastStableOffset !== p.lastStableOffset) {
          news = true
          sp.lastStableOffset = p.lastStableOffset
        }
        if (sp.logStartOffset !== p.logStartOffset) {
          news = true
          sp.logStartOffset = p.logStartOffset
        }
      }
      if (!news) continue
      answered.push(sp)
      if (p.records.length > 0) (moved ??= []).push(sp)
      ;(kept ??= []).push(p)
    }
    if (kept) out.push(kept.length === t.partitions.length ? t : { topic: t.topic, topicId: t.topicId, partitions: kept })
  }
  for (const sp of moved ?? []) {
    session.partitions.delete(sp.key)
    session.partitions.set(sp.key, sp)
  }
  forgetIfThrottled(ctx, answered)
  return out
}

/** A throttled (emptied) response told the fetcher nothing: its partitions are sent again next time. */
function forgetIfThrottled(ctx: RequestContext, told: Iterable<SessionPartition>): void {
  ctx.onThrottled?.(() => {
    for (const sp of told) sp.highWatermark = -1
  })
}

function sessionError(code: number, sessionId = INVALID_SESSION_ID) {
  return { throttleTimeMs: 0, errorCode: code, sessionId, responses: [] }
}

export default defineHandler(FetchRequest, FetchResponse, { minVersion: 4, maxVersion: 18 }, async (ctx, req) => {
  const version = ctx.apiVersion
  const byId = version >= 13
  const clock = ctx.broker.clock
  const cache = ctx.broker.fetchSessions
  // What kind of fetch (Kafka's FetchManager.newContext): full (may make a session),
  // sessionless, or incremental over `session`.
  let full = false
  let session: FetchSession | undefined
  if (version >= 7) {
    const epoch = req.sessionEpoch
    if (epoch === INITIAL_EPOCH || epoch === FINAL_EPOCH) {
      // A session named by a full fetch is closed.
      if (req.sessionId !== INVALID_SESSION_ID) cache?.remove(req.sessionId)
      full = epoch === INITIAL_EPOCH && cache !== undefined
    } else {
      const found = cache?.get(req.sessionId)
      if (!cache || !found) return sessionError(ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code)
      if (found.epoch !== epoch) return sessionError(ErrorCode.INVALID_FETCH_SESSION_EPOCH.code)
      if (found.usesTopicIds !== byId) return sessionError(ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR.code)
      updateSession(found, req)
      if (found.partitions.size === 0) {
        cache.remove(found.id)
      } else {
        cache.touch(found, clock.now())
        found.epoch = nextEpoch(found.epoch)
        session = found
      }
    }
  }
  const deadline = clock.monotonic() + Math.max(0, req.maxWaitMs)
  for (;;) {
    const round = new Round(ctx, req)
    const topics = session ? await readSession(round, session) : await readRequest(round, req, byId)
    const waitMs = deadline - clock.monotonic()
    if (
      round.bytes >= req.minBytes ||
      round.failed ||
      round.followerBehind ||
      waitMs <= 0 ||
      round.keys.length === 0 ||
      ctx.conn.closed.aborted
    ) {
      if (session && session.epoch !== nextEpoch(req.sessionEpoch)) {
        // Another request moved the session on meanwhile (a duplicate): nothing of this one is sent.
        round.release()
        return sessionError(ErrorCode.INVALID_FETCH_SESSION_EPOCH.code, session.id)
      }
      // The records point into pooled read buffers: they go back once the socket has the response.
      ctx.afterResponse?.(() => round.release())
      if (session) {
        return { throttleTimeMs: 0, errorCode: 0, sessionId: session.id, responses: incrementalResponse(ctx, session, topics) }
      }
      let sessionId = INVALID_SESSION_ID
      if (full && cache) {
        let size = 0
        for (const t of req.topics) size += t.partitions.length
        const privileged = round.replicaId >= 0
        sessionId = cache.maybeCreate(clock.now(), privileged, size, byId, () => sessionPartitions(req, topics, byId))
        const created = cache.get(sessionId)
        if (created) forgetIfThrottled(ctx, created.partitions.values())
      }
      return { throttleTimeMs: 0, errorCode: 0, sessionId, responses: topics }
    }
    // Nothing of this round is answered: its buffers go back before waiting for more.
    round.release()
    await ctx.broker.replicas.waiters.wait(round.keys, waitMs, ctx.conn.closed, () => round.seen.some((moved) => moved()))
  }
})
