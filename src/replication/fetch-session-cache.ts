// The broker's incremental fetch sessions (KIP-227; Kafka's FetchSessionCache), bounded by
// max.incremental.fetch.session.cache.slots (default 1000; 0 turns sessions off) sessions.
//
// Eviction, as Kafka's tryEvict, only when a new session is to be made and every slot is taken:
// 1. the least recently used session, if unused for more than
//    min.incremental.fetch.session.eviction.ms (default 120000), is evicted;
// 2. otherwise the least valuable evictable session is, if the new one is worth at least as much.
//    Value orders by (privileged, partitions, id): a follower's session above any consumer's, then
//    more partitions above fewer; the new session counts id 0, so it must have strictly more
//    partitions than the one it replaces (or be a follower's replacing a consumer's). A session
//    becomes evictable once it is older than the eviction time (as of its last use); a consumer's
//    session is evictable by a follower's at once.
// When nothing can be evicted the new session is not made: the fetch is answered with session
// id 0, and the fetcher keeps sending full fetches.
//
// Costs: get/touch/remove are Map operations (touch moves the session to the end of the
// least-recently-used order); only a creation on a full cache with an evictable session scans the
// sessions, at most `slots`. Clients that send epoch 0 at every fetch and ignore the session id
// (@platformatic/kafka does) make a session each time, as they would on Kafka; once the cache is
// full of those young sessions their fetches are answered sessionless without a scan.
import {
  type FetchSession,
  type FetchSessionCache,
  INITIAL_EPOCH,
  INVALID_SESSION_ID,
  nextEpoch,
  type SessionPartition,
} from '../ports/fetch-sessions.js'

/** Kafka's max.incremental.fetch.session.cache.slots default. */
export const DEFAULT_FETCH_SESSION_SLOTS = 1000
/** Kafka's min.incremental.fetch.session.eviction.ms default. */
export const DEFAULT_FETCH_SESSION_EVICTION_MS = 120_000

interface Entry extends FetchSession {
  /** Partitions as of the last touch (the value the eviction order uses). */
  cachedSize: number
  /** Older than the eviction time as of its last touch: evictable by any new session. */
  old: boolean
}

export class BrokerFetchSessionCache implements FetchSessionCache {
  /** Least recently used first (touch re-inserts). */
  private readonly sessions = new Map<number, Entry>()
  private partitionCount = 0
  private evicted = 0
  /** Sessions evictable by a consumer's (old ones) and by a follower's (old or a consumer's): no scan when 0. */
  private oldCount = 0
  private consumerCount = 0

  constructor(
    private readonly maxEntries = DEFAULT_FETCH_SESSION_SLOTS,
    private readonly evictionMs = DEFAULT_FETCH_SESSION_EVICTION_MS,
    /** Uniform in [0, 1), for session ids. */
    private readonly random: () => number = Math.random,
  ) {}

  get size(): number {
    return this.sessions.size
  }

  get totalPartitions(): number {
    return this.partitionCount
  }

  get evictions(): number {
    return this.evicted
  }

  get(sessionId: number): FetchSession | undefined {
    return this.sessions.get(sessionId)
  }

  maybeCreate(
    nowMs: number,
    privileged: boolean,
    size: number,
    usesTopicIds: boolean,
    partitions: () => Map<string, SessionPartition>,
  ): number {
    if (this.maxEntries <= 0) return INVALID_SESSION_ID
    if (this.sessions.size >= this.maxEntries && !this.tryEvict(privileged, size, nowMs)) return INVALID_SESSION_ID
    const session: Entry = {
      id: this.newSessionId(),
      privileged,
      usesTopicIds,
      creationMs: nowMs,
      lastUsedMs: nowMs,
      epoch: nextEpoch(INITIAL_EPOCH),
      partitions: partitions(),
      cachedSize: 0,
      old: false,
    }
    this.sessions.set(session.id, session)
    if (!privileged) this.consumerCount++
    this.touch(session, nowMs)
    return session.id
  }

  touch(session: FetchSession, nowMs: number): void {
    const entry = this.sessions.get(session.id)
    if (entry !== session) return // evicted meanwhile
    this.sessions.delete(entry.id)
    this.sessions.set(entry.id, entry)
    entry.lastUsedMs = nowMs
    this.partitionCount += entry.partitions.size - entry.cachedSize
    entry.cachedSize = entry.partitions.size
    if (!entry.old && nowMs - entry.creationMs > this.evictionMs) {
      entry.old = true
      this.oldCount++
    }
  }

  remove(sessionId: number): FetchSession | undefined {
    const entry = this.sessions.get(sessionId)
    if (!entry) return undefined
    this.sessions.delete(sessionId)
    this.partitionCount -= entry.cachedSize
    if (entry.old) this.oldCount--
    if (!entry.privileged) this.consumerCount--
    return entry
  }

  /** Kafka's tryEvict (see the header): true when a session was evicted to make room. */
  private tryEvict(privileged: boolean, size: number, nowMs: number): boolean {
    const lru = this.sessions.values().next().value
    if (lru === undefined) return false
    if (nowMs - lru.lastUsedMs > this.evictionMs) return this.evict(lru)
    // Clients that open a session at every fetch fill the cache with young ones: no scan then.
    if (this.oldCount === 0 && !(privileged && this.consumerCount > 0)) return false
    let victim: Entry | undefined
    for (const s of this.sessions.values()) {
      // Evictable as of its last use: older than the eviction time, or (by a follower) a consumer's.
      if (!s.old && !(privileged && !s.privileged)) continue
      if (victim === undefined || compareValue(s, victim) < 0) victim = s
    }
    if (victim === undefined) return false
    // The new session's key (privileged, size, 0) must not be below the victim's.
    const newKey = { privileged, cachedSize: size, id: 0 }
    if (compareValue(newKey, victim) < 0) return false
    return this.evict(victim)
  }

  private evict(session: Entry): boolean {
    this.remove(session.id)
    this.evicted++
    return true
  }

  private newSessionId(): number {
    for (;;) {
      // 1 … 2^31−2, as Kafka's nextInt(1, Int.MaxValue).
      const id = 1 + Math.floor(this.random() * 0x7ffffffe)
      if (id !== INVALID_SESSION_ID && !this.sessions.has(id)) return id
    }
  }
}

/** Kafka's EvictableKey order: (privileged, size, id). */
function compareValue(
  a: { privileged: boolean; cachedSize: number; id: number },
  b: { privileged: boolean; cachedSize: number; id: number },
): number {
  if (a.privileged !== b.privileged) return a.privileged ? 1 : -1
  if (a.cachedSize !== b.cachedSize) return a.cachedSize - b.cachedSize
  return a.id - b.id
}
