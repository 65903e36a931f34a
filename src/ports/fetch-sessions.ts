// Incremental fetch sessions (KIP-227): the port between the Fetch handler and the broker's
// session cache (replication/fetch-session-cache.ts). A session remembers, for one fetcher, the
// partitions it fetches with their request parameters and what it was last told of each (high
// watermark, last stable offset, log start offset), so that a fetch after the first names only
// the partitions that changed and its response carries only the partitions with news.
//
// Sessions are keyed by id, not by connection (as Kafka's FetchSessionCache): a fetcher that
// reconnects carries on with its session.

/** A requested partition's parameters, as the Fetch request carries them (v7+). */
export interface FetchPartitionParams {
  partition: number
  currentLeaderEpoch: number
  fetchOffset: number
  lastFetchedEpoch: number
  logStartOffset: number
  partitionMaxBytes: number
  /** v18 (KIP-1166): the high watermark a follower knows. */
  highWatermark: number
}

/** One partition of a session (Kafka's CachedPartition). */
export interface SessionPartition {
  /** sessionPartitionKey of the partition (its key in FetchSession.partitions). */
  readonly key: string
  /** v13+ sessions: the topic's id (the key); '' in sessions by name. */
  readonly topicId: string
  /** Sessions by name: the key; sessions by id: '' (names are resolved at each fetch). */
  readonly topic: string
  readonly partition: number
  /** The request parameters last sent for this partition (replaced when the fetcher sends new ones). */
  params: FetchPartitionParams
  /** What the fetcher was last told; -1 after an error, so the partition is answered again. */
  highWatermark: number
  lastStableOffset: number
  logStartOffset: number
}

export interface FetchSession {
  /** Positive, unique on this broker. */
  readonly id: number
  /** Created by a follower (a replica id ≥ 0): ranks above consumers' sessions for eviction. */
  readonly privileged: boolean
  /** Created by a v13+ fetch (topics by id); the session may then only be used at v13+, and vice versa. */
  readonly usesTopicIds: boolean
  readonly creationMs: number
  /** Set by the cache's touch. */
  lastUsedMs: number
  /** The epoch the fetcher's next incremental request must carry (1 after creation). */
  epoch: number
  /** In fetch order, keyed by sessionPartitionKey. */
  readonly partitions: Map<string, SessionPartition>
}

/** Kafka's FetchMetadata: epoch 0 opens a session, -1 closes it (or asks for none); session id 0 is none. */
export const INITIAL_EPOCH = 0
export const FINAL_EPOCH = -1
export const INVALID_SESSION_ID = 0

/** The epoch after `epoch`: 2^31−1 wraps to 1, a negative one stays final (Kafka's FetchMetadata.nextEpoch). */
export function nextEpoch(epoch: number): number {
  if (epoch < 0) return FINAL_EPOCH
  return epoch >= 0x7fffffff ? 1 : epoch + 1
}

/** A session partition's key: by topic id in a v13+ session, by name before. */
export function sessionPartitionKey(usesTopicIds: boolean, topicId: string, topic: string, partition: number): string {
  return usesTopicIds ? `${topicId}:${partition}` : `${topic}:${partition}`
}

export interface FetchSessionCache {
  get(sessionId: number): FetchSession | undefined
  /**
   * A new session of `size` partitions, if there is room or a less valuable session can be
   * evicted (then `partitions()` builds its partitions); INVALID_SESSION_ID when not.
   */
  maybeCreate(
    nowMs: number,
    privileged: boolean,
    size: number,
    usesTopicIds: boolean,
    partitions: () => Map<string, SessionPartition>,
  ): number
  /** Marks the session used now, after its partitions changed. */
  touch(session: FetchSession, nowMs: number): void
  remove(sessionId: number): FetchSession | undefined
  /** Sessions in the cache (Kafka's NumIncrementalFetchSessions). */
  readonly size: number
  /** Partitions of all sessions (NumIncrementalFetchPartitionsCached), as of their last touch. */
  readonly totalPartitions: number
  /** Sessions evicted so far (IncrementalFetchSessionEvictionsPerSec's count). */
  readonly evictions: number
}
