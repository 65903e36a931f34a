// Fetch v4–18. Returns whole stored batches, the first containing the fetch offset (clients drop
// the records before their position), bounded by the high watermark, partition_max_bytes and the
// response's max_bytes — at least one batch for the first partition with data (KIP-74).
// isolation_level 1 (read_committed, KIP-98): bounded by the last stable offset instead, and each
// partition carries the aborted transactions its batches overlap (the consumer drops their
// records); read_uncommitted answers aborted_transactions null. last_stable_offset is the
// partition's LSO for both.
// Long-poll: with fewer than min_bytes available the request waits up to max_wait_ms and wakes
// as soon as one of its partitions is appended to.
// Fetch sessions (KIP-227, v7+) are declined: a full fetch is answered with session id 0, which
// tells the client to keep sending full fetches; an unknown session id gets
// FETCH_SESSION_ID_NOT_FOUND so the client starts over.
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

/** One pass over every requested partition; returns the response topics and the bytes gathered. */
async function readAll(
  ctx: RequestContext,
  req: FetchRequestData,
  byId: boolean,
  keys: string[],
  seen: Array<() => boolean>,
  releases: Array<() => void>,
): Promise<{ topics: TopicOut[]; bytes: number; failed: boolean; followerBehind: boolean }> {
  const { topics, replicas, settings } = ctx.broker
  let remaining = Math.min(req.maxBytes, settings.fetchMaxBytes)
  let bytes = 0
  let failed = false
  let followerBehind = false
  const out: TopicOut[] = []
  const readCommitted = req.isolationLevel === 1
  const replicaId = ctx.apiVersion >= 15 ? (req.replicaState?.replicaId ?? -1) : req.replicaId
  // A replica's fetch needs CLUSTER_ACTION (CVE-2018-1288), a consumer's READ on each topic.
  const follower = replicaId >= 0 ? canCluster(ctx, Op.CLUSTER_ACTION) : undefined
  for (const t of req.topics) {
    const record = byId ? topics.getById(t.topicId) : topics.get(t.topic)
    const name = record?.name ?? t.topic
    const partitions: PartitionOut[] = []
    const denied = (record !== undefined || !byId) && !(follower ?? canTopic(ctx, Op.READ, name))
    for (const fp of t.partitions) {
      try {
        if (denied) throw topicDenied()
        if (!record) throw new KafkaError(byId ? 'UNKNOWN_TOPIC_ID' : 'UNKNOWN_TOPIC_OR_PARTITION')
        const p = replicas.require(record.name, fp.partition)
        p.checkLeaderEpoch(fp.currentLeaderEpoch)
        keys.push(partitionKey(record.name, fp.partition))
        const hwSeen = p.log.highWatermark
        const leoSeen = p.log.logEndOffset
        seen.push(replicaId >= 0 ? () => p.log.logEndOffset !== leoSeen : () => p.log.highWatermark !== hwSeen)
        const limit = Math.max(0, Math.min(fp.partitionMaxBytes, remaining))
        // Once the response is full, later partitions report their offsets without reading.
        let read: PartitionRead
        if (replicaId >= 0) {
          read = await replicas.readForFollower(p, replicaId, fp.fetchOffset, limit === 0 && bytes > 0 ? 0 : limit)
        } else if (limit === 0 && bytes > 0) {
          if (fp.fetchOffset < p.log.logStartOffset || fp.fetchOffset > p.log.logEndOffset) throw new KafkaError('OFFSET_OUT_OF_RANGE')
          read = {
            records: EMPTY,
            highWatermark: p.log.highWatermark,
            lastStableOffset: p.log.lastStableOffset,
            logStartOffset: p.log.logStartOffset,
            abortedTransactions: readCommitted ? [] : null,
            release: () => {},
          }
        } else {
          read = await replicas.read(p, fp.fetchOffset, limit, bytes === 0, readCommitted)
        }
        releases.push(read.release)
        // Absent, the follower's highWatermark is the largest number: never behind.
        if (replicaId >= 0 && fp.highWatermark < read.highWatermark) followerBehind = true
        bytes += read.records.length
        remaining -= read.records.length
        partitions.push({
          partitionIndex: fp.partition,
          errorCode: 0,
          highWatermark: read.highWatermark,
          lastStableOffset: read.lastStableOffset,
          logStartOffset: read.logStartOffset,
          abortedTransactions: read.abortedTransactions,
          preferredReadReplica: -1,
          records: read.records,
        })
      } catch (err) {
        if (!(err instanceof KafkaError)) ctx.broker.logger.error('fetch failed', { topic: name, err })
        failed = true
        partitions.push(errorPartition(fp.partition, err))
      }
    }
    out.push({ topic: name, topicId: record?.topicId ?? t.topicId, partitions })
  }
  return { topics: out, bytes, failed, followerBehind }
}

export default defineHandler(FetchRequest, FetchResponse, { minVersion: 4, maxVersion: 18 }, async (ctx, req) => {
  const version = ctx.apiVersion
  if (version >= 7) {
    if (req.sessionId !== 0) {
      return { errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code, sessionId: 0, responses: [] }
    }
    if (req.sessionEpoch > 0) {
      return { errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH.code, sessionId: 0, responses: [] }
    }
  }
  const byId = version >= 13
  const clock = ctx.broker.clock
  const deadline = clock.monotonic() + Math.max(0, req.maxWaitMs)
  for (;;) {
    const keys: string[] = []
    const seen: Array<() => boolean> = []
    const releases: Array<() => void> = []
    const res = await readAll(ctx, req, byId, keys, seen, releases)
    const waitMs = deadline - clock.monotonic()
    if (res.bytes >= req.minBytes || res.failed || res.followerBehind || waitMs <= 0 || keys.length === 0 || ctx.conn.closed.aborted) {
      // The records point into pooled read buffers: they go back once the socket has the response.
      ctx.afterResponse?.(() => {
        for (const release of releases) release()
      })
      return { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses: res.topics }
    }
    // Nothing of this round is answered: its buffers go back before waiting for more.
    for (const release of releases) release()
    await ctx.broker.replicas.waiters.wait(keys, waitMs, ctx.conn.closed, () => seen.some((moved) => moved()))
  }
})
