// Followers copy their leaders by fetching (docs/architecture.md §1.6, Kafka's ReplicaFetcherThread): one
// fetcher per leader broker, fetching every partition this broker follows there in one Fetch
// request with this broker's id as the replica id.
//
// A partition that starts following a leader is first truncated (KIP-101/KIP-279): the fetcher asks
// the leader, with OffsetForLeaderEpoch, where the newest leader epoch this replica holds ended on
// the leader, and cuts its own log there — records a crashed or deposed leader wrote that the new
// leader never got are removed, so no offset ever holds two different records across replicas.
// When the leader answers with an older epoch than asked, the local end of that epoch bounds the
// truncation too. Only then does it fetch, from its log end offset.
//
// Each answer's batches are appended as they are (offsets and partition leader epochs kept,
// PartitionLog.appendAsFollower), after their CRCs are checked; the follower's high watermark is
// the leader's, bounded by its own log end; its log start follows the leader's (retention and
// DeleteRecords reach followers this way). A fetch position below the leader's log start (this
// replica was away while the leader deleted old segments) restarts the log at the leader's start.
//
// Errors: a partition whose leader answers NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH /
// UNKNOWN_LEADER_EPOCH waits out replica.fetch.backoff.ms (the new partition state reaches this
// broker meanwhile and moves it to the right fetcher); a broken connection is re-opened after the
// same pause.
import type { InterBrokerEndpoint } from '../client/security.js'
import { connectNegotiated } from '../client/api-versions.js'
import type { Connection } from '../client/connection.js'
import { ErrorCode, KafkaError } from '../protocol/errors.js'
import { FetchRequest, FetchResponse } from '../protocol/messages/01-fetch.js'
import { ListOffsetsRequest, ListOffsetsResponse } from '../protocol/messages/02-list-offsets.js'
import { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from '../protocol/messages/23-offset-for-leader-epoch.js'
import { type BatchHeader, batchCrcMatches, readBatchHeader, BATCH_HEADER_SIZE } from '../protocol/records/batch.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import type { Partition } from './partition.js'

export interface FetcherConfig {
  /** replica.fetch.max.bytes */
  partitionMaxBytes: number
  /** replica.fetch.response.max.bytes */
  responseMaxBytes: number
  /** replica.fetch.wait.max.ms */
  maxWaitMs: number
  /** replica.fetch.min.bytes */
  minBytes: number
  /** replica.fetch.backoff.ms */
  backoffMs: number
  /** replica.socket.timeout.ms */
  socketTimeoutMs: number
}

export interface FetcherDeps {
  nodeId: number
  clock: Clock
  logger: Logger
  config: FetcherConfig
  /** Where a broker listens for other brokers (inter-broker listener); undefined when not registered. */
  endpointOf(nodeId: number): InterBrokerEndpoint | undefined
  /** A follower's log grew or its high watermark moved (long-polling readers may wake). */
  onProgress?(p: Partition): void
}

interface Followed {
  p: Partition
  leaderEpoch: number
  truncated: boolean
  /** Monotonic ms before which this partition is not fetched (after an error). */
  retryAt: number
}

// Fetch v12 is the newest that names topics (later versions use ids, which followers know as well,
// but names keep this path simple) and it still carries replicaId in the body.
const FETCH_VERSION = 12
const EPOCH_VERSION = 4

export class FetcherManager {
  private readonly fetchers = new Map<number, ReplicaFetcher>()
  private closed = false

  constructor(private readonly deps: FetcherDeps) {}

  /** Starts (or restarts, with truncation first) following p's leader at the given epoch. */
  follow(p: Partition, leaderId: number, leaderEpoch: number): void {
    if (this.closed) return
    for (const [id, f] of this.fetchers) if (id !== leaderId) f.remove(p)
    let f = this.fetchers.get(leaderId)
    if (!f) {
      f = new ReplicaFetcher(leaderId, this.deps)
      this.fetchers.set(leaderId, f)
    }
    f.add(p, leaderEpoch)
  }

  /** Stops fetching p (it leads now, or is no longer hosted). */
  unfollow(p: Partition): void {
    for (const f of this.fetchers.values()) f.remove(p)
  }

  /** Partitions being fetched, by leader (tests, DescribeLogDirs). */
  followedCount(): number {
    let n = 0
    for (const f of this.fetchers.values()) n += f.size
    return n
  }

  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.fetchers.values()].map((f) => f.close()))
    this.fetchers.clear()
  }
}

class ReplicaFetcher {
  private readonly partitions = new Map<string, Followed>()
  private conn: Connection | undefined
  private running: Promise<void> | undefined
  private closed = false
  private wake: (() => void) | undefined

  constructor(
    readonly leaderId: number,
    private readonly deps: FetcherDeps,
  ) {}

  get size(): number {
    return this.partitions.size
  }

  add(p: Partition, leaderEpoch: number): void {
    const cur = this.partitions.get(p.key)
    if (cur && cur.p === p && cur.leaderEpoch === leaderEpoch) return
    this.partitions.set(p.key, { p, leaderEpoch, truncated: false, retryAt: 0 })
    this.wake?.()
    this.running ??= this.run().finally(() => {
      this.running = undefined
    })
  }

  remove(p: Partition): void {
    const cur = this.partitions.get(p.key)
    if (cur && cur.p === p) this.partitions.delete(p.key)
  }

  async close(): Promise<void> {
    this.closed = true
    this.wake?.()
    this.conn?.close()
    await this.running
  }

  private async run(): Promise<void> {
    const { logger } = this.deps
    while (!this.closed && this.partitions.size > 0) {
      try {
        const conn = await this.connection()
        await this.truncatePending(conn)
        const fetched = await this.fetchOnce(conn)
        if (!fetched) await this.pause(this.nextRetryIn())
      } catch (err) {
        if (this.closed) break
        logger.warn('replica fetch failed; retrying', { leader: this.leaderId, err: (err as Error).message })
        this.conn?.close()
        this.conn = undefined
        await this.pause(this.deps.config.backoffMs)
      }
    }
    this.conn?.close()
    this.conn = undefined
  }

  private nextRetryIn(): number {
    const now = this.deps.clock.monotonic()
    let soonest = Number.POSITIVE_INFINITY
    for (const f of this.partitions.values()) soonest = Math.min(soonest, f.retryAt - now)
    return Math.max(10, Math.min(soonest, this.deps.config.backoffMs))
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.deps.clock.setTimeout(() => {
        this.wake = undefined
        resolve()
      }, ms)
      this.wake = () => {
        timer.cancel()
        this.wake = undefined
        resolve()
      }
    })
  }

  private async connection(): Promise<Connection> {
    if (this.conn?.isOpen) return this.conn
    const at = this.deps.endpointOf(this.leaderId)
    if (!at) throw new KafkaError('BROKER_NOT_AVAILABLE', `broker ${this.leaderId} is not registered`)
    const conn = await connectNegotiated({
      host: at.host,
      port: at.port,
      ...(at.security ? { security: at.security } : {}),
      clientId: `tributary-replica-fetcher-${this.deps.nodeId}`,
      requestTimeoutMs: this.deps.config.socketTimeoutMs + this.deps.config.maxWaitMs,
    })
    this.conn = conn
    return conn
  }

  private ready(): Followed[] {
    const now = this.deps.clock.monotonic()
    return [...this.partitions.values()].filter((f) => f.retryAt <= now && f.p.log.usable)
  }

  private backOff(f: Followed): void {
    f.retryAt = this.deps.clock.monotonic() + this.deps.config.backoffMs
  }

  /** OffsetForLeaderEpoch for the partitions that just started following, then their truncation. */
  private async truncatePending(conn: Connection): Promise<void> {
    const pending = this.ready().filter((f) => !f.truncated)
    if (pending.length === 0) return
    const withEpoch = pending.filter((f) => f.p.log.latestEpoch >= 0)
    // No epoch to compare (an empty log, or records whose epoch checkpoint was lost): keep only what
    // is known committed, the high watermark, as Kafka does.
    for (const f of pending) {
      if (f.p.log.latestEpoch >= 0) continue
      if (f.p.log.highWatermark < f.p.log.logEndOffset) await f.p.log.truncateTo(f.p.log.highWatermark)
      f.truncated = true
    }
    if (withEpoch.length === 0) return
    const byTopic = groupByTopic(withEpoch)
    const res = await conn.request(OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, EPOCH_VERSION, {
      replicaId: this.deps.nodeId,
      topics: [...byTopic].map(([topic, fs]) => ({
        topic,
        partitions: fs.map((f) => ({ partition: f.p.index, currentLeaderEpoch: f.leaderEpoch, leaderEpoch: f.p.log.latestEpoch })),
      })),
    })
    for (const t of res.topics) {
      for (const r of t.partitions) {
        const f = this.partitions.get(`${t.topic}:${r.partition}`)
        if (!f || f.truncated) continue
        if (r.errorCode !== 0) {
          this.backOff(f)
          continue
        }
        await this.truncate(f, r.leaderEpoch, r.endOffset)
      }
    }
  }

  /**
   * Kafka's follower truncation rule (KIP-279). The leader answered with the largest epoch it has
   * that is ≤ ours and where that epoch ends on it. If we have that epoch too, we cut at the smaller
   * of the two ends. If we do not (the histories diverged earlier, e.g. after an unclean election),
   * we cut at the end of our own largest epoch below it and ask again with what is left.
   */
  private async truncate(f: Followed, leaderEpoch: number, leaderEndOffset: number): Promise<void> {
    const log = f.p.log
    let target: number
    let askAgain = false
    if (leaderEpoch < 0 || leaderEndOffset < 0) {
      // The leader knows no epoch as old as ours: keep only what is known committed.
      target = log.highWatermark
    } else if (leaderEpoch === log.latestEpoch) {
      target = Math.min(leaderEndOffset, log.logEndOffset)
    } else {
      const local = log.endOffsetForEpoch(leaderEpoch)
      if (local.epoch === leaderEpoch || local.endOffset < 0) {
        target = Math.min(leaderEndOffset, local.endOffset < 0 ? log.logEndOffset : local.endOffset)
      } else {
        target = Math.min(local.endOffset, log.logEndOffset)
        askAgain = target < log.logEndOffset
      }
    }
    if (target < log.logEndOffset) {
      this.deps.logger.info('truncating follower log to the leader epoch boundary', {
        partition: f.p.key,
        from: log.logEndOffset,
        to: target,
        leader: this.leaderId,
        leaderEpoch,
      })
      await log.truncateTo(target)
    }
    f.truncated = !askAgain
  }

  /** One Fetch for every ready partition; false when there was nothing to fetch. */
  private async fetchOnce(conn: Connection): Promise<boolean> {
    const ready = this.ready().filter((f) => f.truncated)
    if (ready.length === 0) return false
    const { config, nodeId } = this.deps
    const byTopic = groupByTopic(ready)
    const res = await conn.request(FetchRequest, FetchResponse, FETCH_VERSION, {
      replicaId: nodeId,
      maxWaitMs: config.maxWaitMs,
      minBytes: config.minBytes,
      maxBytes: config.responseMaxBytes,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [...byTopic].map(([topic, fs]) => ({
        topic,
        partitions: fs.map((f) => ({
          partition: f.p.index,
          currentLeaderEpoch: f.leaderEpoch,
          fetchOffset: f.p.log.logEndOffset,
          lastFetchedEpoch: -1,
          logStartOffset: f.p.log.logStartOffset,
          partitionMaxBytes: config.partitionMaxBytes,
        })),
      })),
      forgottenTopicsData: [],
      rackId: '',
    })
    if (res.errorCode !== 0)
      throw new KafkaError('UNKNOWN_SERVER_ERROR', `fetch from broker ${this.leaderId} failed with error ${res.errorCode}`)
    for (const t of res.responses) {
      for (const r of t.partitions) {
        const f = this.partitions.get(`${t.topic}:${r.partitionIndex}`)
        if (!f) continue // unfollowed while the fetch was in flight
        await this.handlePartition(conn, f, r)
      }
    }
    return true
  }

  private async handlePartition(
    conn: Connection,
    f: Followed,
    r: { errorCode: number; highWatermark: number; logStartOffset: number; records: Buffer | null },
  ): Promise<void> {
    const log = f.p.log
    if (r.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE.code) {
      await this.handleOutOfRange(conn, f)
      return
    }
    if (r.errorCode !== 0) {
      this.backOff(f)
      return
    }
    const records = r.records
    if (records && records.length > 0) {
      const { buf, batches } = completeBatches(records, log.logEndOffset, f.p.key)
      if (batches.length > 0) await log.appendAsFollower(buf, batches)
    }
    // The high watermark first: the log start never passes it.
    f.p.updateFollowerHighWatermark(r.highWatermark)
    if (r.logStartOffset > log.logStartOffset) {
      if (r.logStartOffset > log.logEndOffset) await log.truncateFullyAndStartAtOffset(r.logStartOffset)
      else await log.maybeIncrementLogStartOffset(r.logStartOffset)
      f.p.updateFollowerHighWatermark(r.highWatermark)
    }
    this.deps.onProgress?.(f.p)
  }

  /** Below the leader's log start: restart there; above its end: truncate by epoch again. */
  private async handleOutOfRange(conn: Connection, f: Followed): Promise<void> {
    const res = await conn.request(ListOffsetsRequest, ListOffsetsResponse, 4, {
      replicaId: this.deps.nodeId,
      isolationLevel: 0,
      topics: [{ name: f.p.topic, partitions: [{ partitionIndex: f.p.index, currentLeaderEpoch: f.leaderEpoch, timestamp: -2 }] }],
    })
    const pr = res.topics[0]?.partitions[0]
    if (pr?.errorCode !== 0) {
      this.backOff(f)
      return
    }
    const log = f.p.log
    if (log.logEndOffset < pr.offset) {
      this.deps.logger.info('follower is behind the leader log start; restarting its log there', { partition: f.p.key, offset: pr.offset })
      await log.truncateFullyAndStartAtOffset(pr.offset)
    } else {
      f.truncated = false
    }
  }
}

function groupByTopic(fs: Followed[]): Map<string, Followed[]> {
  const m = new Map<string, Followed[]>()
  for (const f of fs) {
    let list = m.get(f.p.topic)
    if (!list) m.set(f.p.topic, (list = []))
    list.push(f)
  }
  return m
}

/**
 * The whole batches of a fetched buffer from the follower's log end on (a batch cut by the size
 * limit is dropped; batches wholly below the log end are skipped), CRC-checked. The headers are
 * re-read from the returned buffer, as appendAsFollower needs positions within it.
 */
function completeBatches(records: Buffer, logEndOffset: number, partition: string): { buf: Buffer; batches: BatchHeader[] } {
  let start = -1
  let end = 0
  for (let pos = 0; pos + BATCH_HEADER_SIZE <= records.length; ) {
    const h = readBatchHeader(records, pos)
    if (h.sizeBytes < BATCH_HEADER_SIZE || pos + h.sizeBytes > records.length) break
    if (!batchCrcMatches(records, pos, h.sizeBytes)) {
      throw new KafkaError('CORRUPT_MESSAGE', `${partition}: batch at offset ${h.baseOffset} from the leader fails its CRC`)
    }
    if (h.baseOffset + h.lastOffsetDelta >= logEndOffset && start < 0) start = pos
    pos += h.sizeBytes
    end = pos
  }
  if (start < 0) return { buf: records.subarray(0, 0), batches: [] }
  const buf = records.subarray(start, end)
  const batches: BatchHeader[] = []
  for (let pos = 0; pos < buf.length; ) {
    const h = readBatchHeader(buf, pos)
    batches.push(h)
    pos += h.sizeBytes
  }
  return { buf, batches }
}
